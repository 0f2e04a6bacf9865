"""Matrix chain multiplication: the fewest scalar multiplications to multiply a chain of matrices.

Efficient algorithm: the interval DP over split points, O(n^3). The test tries every
parenthesisation on the small levels. Levels grow the chain and the dimensions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, int_list
from palaestra.registry import family


@dataclass(frozen=True)
class MatrixChainKnobs(Knobs):
    matrices: int = knob(5, low=2, high=80, help="number of matrices in the chain")
    max_dimension: int = knob(30, low=2, high=1000, help="dimensions are drawn from 2..max_dimension")


K = MatrixChainKnobs
LEVELS = {
    1: K(matrices=3, max_dimension=10),
    2: K(matrices=4, max_dimension=15),
    3: K(matrices=5, max_dimension=25),
    4: K(matrices=6, max_dimension=40),
    5: K(matrices=8, max_dimension=60),
    6: K(matrices=10, max_dimension=80),
    7: K(matrices=13, max_dimension=100),
    8: K(matrices=17, max_dimension=150),
    9: K(matrices=22, max_dimension=200),
    10: K(matrices=28, max_dimension=300),
}


def fewest_multiplications(dims: list[int]) -> tuple[int, int]:
    """Matrix i is dims[i] x dims[i+1]; the optimum and the split points tried."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    work = 0
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j] = min(
                cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1] for k in range(i, j)
            )
            work += span
    return cost[0][n - 1], work


def left_to_right(dims: list[int]) -> int:
    """((A1 A2) A3) ...: the weak solver's order."""
    return sum(dims[0] * dims[k] * dims[k + 1] for k in range(1, len(dims) - 1))


@family(
    "matrix_chain",
    domain="algorithms",
    knobs=MatrixChainKnobs,
    levels=LEVELS,
    description="Matrix chain multiplication: the fewest scalar multiplications over all parenthesisations.",
    verifier_kind="exact integer (the optimum)",
)
class MatrixChain(IntegerFamily):
    what = "the fewest scalar multiplications"
    example = "4500"

    def build(self, knobs: MatrixChainKnobs, rng: np.random.Generator) -> Instance:
        dims = int_list(rng.integers(2, knobs.max_dimension + 1, size=knobs.matrices + 1))
        best, work = fewest_multiplications(dims)
        shapes = ", ".join(f"A{i + 1}: {dims[i]} x {dims[i + 1]}" for i in range(knobs.matrices))
        question = (
            f"Matrices {shapes}. Multiplying a p x q matrix by a q x r matrix costs p*q*r scalar "
            f"multiplications. Over all ways to parenthesise the product A1 A2 ... A{knobs.matrices}, "
            "what is the smallest total number of scalar multiplications?"
        )
        naive = left_to_right(dims)
        return Instance(
            question,
            best,
            work=work + 1,
            data={"dims": dims},
            weak=naive,
            wrong=[naive, best + 1, best * 2],
        )
