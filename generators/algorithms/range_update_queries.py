"""Range updates and range sums on an array, answered in order (what a lazy segment tree does).

Efficient algorithm: two Fenwick trees for range-add / range-sum, O((n + q) log n). The test
replays the operations on a plain list on every level. Levels grow the array and the operations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.algorithms.shared import answer_text, int_list, read_integers, tagged
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class RangeUpdateQueriesKnobs(Knobs):
    length: int = knob(10, low=3, high=1000, help="array length")
    operations: int = knob(8, low=2, high=500, help="number of operations (updates and queries)")


K = RangeUpdateQueriesKnobs
LEVELS = {
    1: K(length=4, operations=3),
    2: K(length=6, operations=5),
    3: K(length=8, operations=7),
    4: K(length=10, operations=9),
    5: K(length=13, operations=12),
    6: K(length=17, operations=16),
    7: K(length=22, operations=21),
    8: K(length=28, operations=27),
    9: K(length=36, operations=34),
    10: K(length=46, operations=43),
}


class RangeSums:
    """Range add and range sum with two Fenwick trees (positions 1..n)."""

    def __init__(self, values: list[int]) -> None:
        self.n = len(values)
        self.b1 = [0] * (self.n + 2)
        self.b2 = [0] * (self.n + 2)
        self.work = 0
        for i, v in enumerate(values, start=1):
            self.add(i, i, v)

    def _update(self, tree: list[int], i: int, delta: int) -> None:
        while i <= self.n:
            tree[i] += delta
            i += i & -i
            self.work += 1

    def _prefix(self, tree: list[int], i: int) -> int:
        total = 0
        while i > 0:
            total += tree[i]
            i -= i & -i
            self.work += 1
        return total

    def add(self, left: int, right: int, delta: int) -> None:
        self._update(self.b1, left, delta)
        self._update(self.b1, right + 1, -delta)
        self._update(self.b2, left, delta * (left - 1))
        self._update(self.b2, right + 1, -delta * right)

    def prefix_sum(self, i: int) -> int:
        return self._prefix(self.b1, i) * i - self._prefix(self.b2, i)

    def range_sum(self, left: int, right: int) -> int:
        return self.prefix_sum(right) - self.prefix_sum(left - 1)


def run(values: list[int], operations: list[list[int]]) -> tuple[list[int], int]:
    """The answers of the sum queries in order; and the Fenwick steps."""
    sums = RangeSums(values)
    answers = []
    for op in operations:
        if op[0] == 1:
            sums.add(op[1], op[2], op[3])
        else:
            answers.append(sums.range_sum(op[1], op[2]))
    return answers, sums.work


def describe(op: list[int]) -> str:
    if op[0] == 1:
        return f"add {op[3]} to every element at positions {op[1]}..{op[2]}"
    return f"report the sum of the elements at positions {op[1]}..{op[2]}"


PROMPT = """An array a[1..{n}] starts as: {values}

Apply these operations in order:
{operations}

Answer with the reported sums in order, separated by commas, for example <answer>{example}</answer>."""


@family(
    "range_update_queries",
    domain="algorithms",
    knobs=RangeUpdateQueriesKnobs,
    levels=LEVELS,
    description="Range additions and range-sum queries on an array, answered in order (segment tree).",
    verifier_kind="exact list of integers",
)
class RangeUpdateQueries(Family):
    def generate(self, knobs: RangeUpdateQueriesKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.length
        values = int_list(rng.integers(-20, 51, size=n))
        operations: list[list[int]] = []
        for k in range(knobs.operations):
            left, right = sorted(int(v) for v in rng.integers(1, n + 1, size=2))
            if k == knobs.operations - 1 or (k and rng.random() < 0.5):
                operations.append([2, left, right])
            else:
                operations.append([1, left, right, int(rng.integers(-30, 31))])
        answers, work = run(values, operations)
        prompt = PROMPT.format(
            n=n,
            values=" ".join(map(str, values)),
            operations="\n".join(f"{i + 1}. {describe(op)}" for i, op in enumerate(operations)),
            example="12, -3, 40",
        )
        metadata = {
            "values": values,
            "operations": operations,
            "work": work,
            "canonical_hash": content_hash([values, operations]),
        }
        return TaskDraft(prompt, ", ".join(map(str, answers)), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, labels=("sums",))
        if isinstance(text, Verdict):
            return text
        if "->" in text:
            return Verdict.bad_format("answer with the sums separated by commas")
        claimed = read_integers(text)
        if claimed is None:
            return Verdict.bad_format("answer with the sums separated by commas")
        expected = [int(v) for v in task.answer.split(", ")]
        if len(claimed) != len(expected):
            return Verdict.wrong(f"{len(claimed)} sums given, {len(expected)} were reported", parsed=claimed)
        wrong_at = [i + 1 for i, (a, b) in enumerate(zip(claimed, expected, strict=True)) if a != b]
        if wrong_at:
            return Verdict.wrong(f"report number {wrong_at[0]} is wrong", parsed=claimed)
        return Verdict.right(parsed=claimed)

    def solve_exact(self, task: Task) -> SolverRun:
        """Fenwick trees (effort: tree steps)."""
        answers, work = run(task.metadata["values"], task.metadata["operations"])
        return SolverRun(tagged(", ".join(map(str, answers))), float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Forgets the updates: sums of the starting array (right only when no update touches a query)."""
        values = task.metadata["values"]
        sums = [sum(values[op[1] - 1 : op[2]]) for op in task.metadata["operations"] if op[0] == 2]
        return SolverRun(tagged(", ".join(map(str, sums))), float(len(values)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        answers = [int(v) for v in task.answer.split(", ")]
        wrong = [
            answers[:-1] or [answers[0] + 1],
            answers[:-1] + [answers[-1] + 1],
            answers + [0],
            [answers[0] - 1] + answers[1:],
        ]
        return [tagged(", ".join(map(str, w))) for w in wrong if w != answers]
