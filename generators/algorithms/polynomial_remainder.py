"""Polynomial remainder modulo a prime: the remainder of A(x) divided by B(x), coefficients mod p.

The remainder is unique; the answer is its coefficient list from the highest power down.
Efficient algorithm: long division modulo p, O(deg A x deg B). The test compares with sympy's
Poly.rem over GF(p) on every level. Levels grow the degrees and the prime.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.algorithms.shared import answer_text, random_prime, read_integers, tagged
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class PolynomialRemainderKnobs(Knobs):
    dividend_degree: int = knob(5, low=2, high=60, help="degree of A")
    divisor_degree: int = knob(2, low=1, high=30, help="degree of B")
    prime_digits: int = knob(2, low=1, high=9, help="the prime has this many digits")


K = PolynomialRemainderKnobs
LEVELS = {
    1: K(dividend_degree=2, divisor_degree=1, prime_digits=1),
    2: K(dividend_degree=3, divisor_degree=1, prime_digits=2),
    3: K(dividend_degree=4, divisor_degree=2, prime_digits=2),
    4: K(dividend_degree=5, divisor_degree=2, prime_digits=2),
    5: K(dividend_degree=6, divisor_degree=3, prime_digits=3),
    6: K(dividend_degree=8, divisor_degree=3, prime_digits=3),
    7: K(dividend_degree=10, divisor_degree=4, prime_digits=4),
    8: K(dividend_degree=12, divisor_degree=5, prime_digits=5),
    9: K(dividend_degree=15, divisor_degree=6, prime_digits=6),
    10: K(dividend_degree=18, divisor_degree=7, prime_digits=7),
}


def remainder(a: list[int], b: list[int], p: int) -> tuple[list[int], int]:
    """A mod B over GF(p), coefficients highest first, padded to deg B terms; and the products."""
    rest = [c % p for c in a]
    inverse = pow(b[0], -1, p)
    work = 0
    while len(rest) >= len(b):
        factor = rest[0] * inverse % p
        for i in range(len(b)):
            rest[i] = (rest[i] - factor * b[i]) % p
            work += 1
        rest.pop(0)  # the leading term is now zero
    return rest, work


def poly_text(coefficients: list[int]) -> str:
    degree = len(coefficients) - 1
    terms = []
    for k, c in enumerate(coefficients):
        power = degree - k
        if c == 0:
            continue
        base = "" if power == 0 else ("x" if power == 1 else f"x^{power}")
        terms.append(f"{c}{base}" if base and c != 1 else (base or str(c)))
    return " + ".join(terms) or "0"


PROMPT = """Work with polynomials whose coefficients are integers modulo the prime p = {p}. Let
A(x) = {a}
B(x) = {b}
Divide A by B: A = Q·B + R with R of degree less than {deg_b}. Give R's {deg_b} coefficients, from \
x^{top} down to the constant term, each as an integer from 0 to {last} (write 0 for a missing \
term), separated by commas, for example <answer>{example}</answer>."""


@family(
    "polynomial_remainder",
    domain="algorithms",
    knobs=PolynomialRemainderKnobs,
    levels=LEVELS,
    description="The remainder of polynomial division over the integers modulo a prime.",
    verifier_kind="exact coefficient list",
)
class PolynomialRemainder(Family):
    def generate(self, knobs: PolynomialRemainderKnobs, rng: np.random.Generator) -> TaskDraft:
        p = random_prime(rng, max(5, 10 ** (knobs.prime_digits - 1)), 10**knobs.prime_digits - 1)
        da, db = knobs.dividend_degree, min(knobs.divisor_degree, knobs.dividend_degree - 1)
        while True:
            a = [int(rng.integers(1, p))] + [int(c) for c in rng.integers(0, p, size=da)]
            b = [int(rng.integers(1, p))] + [int(c) for c in rng.integers(0, p, size=db)]
            rest, work = remainder(a, b, p)
            if any(rest[:-1]) or db == 1:
                break
        prompt = PROMPT.format(
            p=p,
            a=poly_text(a),
            b=poly_text(b),
            deg_b=db,
            top=db - 1,
            last=p - 1,
            example=", ".join(["3"] * db),
        )
        metadata = {"p": p, "a": a, "b": b, "work": work, "canonical_hash": content_hash([p, a, b])}
        return TaskDraft(prompt, ", ".join(map(str, rest)), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, labels=("remainder", "coefficients"))
        if isinstance(text, Verdict):
            return text
        if "->" in text:
            return Verdict.bad_format("answer with the coefficients separated by commas")
        claimed = read_integers(text)
        if claimed is None:
            return Verdict.bad_format("answer with the coefficients separated by commas")
        expected = [int(c) for c in task.answer.split(", ")]
        if len(claimed) != len(expected):
            return Verdict.wrong(f"{len(claimed)} coefficients given, {len(expected)} asked", parsed=claimed)
        if any(not 0 <= c < task.metadata["p"] for c in claimed):
            return Verdict.wrong("coefficients must be reduced modulo p", parsed=claimed)
        if claimed != expected:
            return Verdict.wrong("not the remainder", parsed=claimed)
        return Verdict.right(parsed=claimed)

    def solve_exact(self, task: Task) -> SolverRun:
        """Long division modulo p (effort: products)."""
        rest, work = remainder(task.metadata["a"], task.metadata["b"], task.metadata["p"])
        return SolverRun(tagged(", ".join(map(str, rest))), float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Keeps A's last terms, as if B divided the rest (right only by luck)."""
        db = len(task.metadata["b"]) - 1
        return SolverRun(tagged(", ".join(map(str, task.metadata["a"][-db:]))), float(db))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        rest = [int(c) for c in task.answer.split(", ")]
        p = task.metadata["p"]
        wrong = [
            rest[:-1] + [(rest[-1] + 1) % p],
            [(rest[0] + 1) % p] + rest[1:],
            rest + [0],
            [c + p for c in rest],  # not reduced
        ]
        return [tagged(", ".join(map(str, w))) for w in wrong if w != rest]
