"""Stack sorting: the output of one pass of West's stack-sort on a permutation.

Push each entry; before pushing, pop every smaller-topped... precisely: before pushing x, pop
while the top of the stack is smaller than x; at the end pop everything. Efficient algorithm:
that simulation, O(n). The test re-derives the output from the recursive definition
S(L n R) = S(L) S(R) n on every level. Levels grow the permutation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.algorithms.shared import answer_text, read_integers, tagged
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class StackSortPassKnobs(Knobs):
    length: int = knob(10, low=3, high=500, help="length of the permutation")
    passes: int = knob(1, low=1, high=4, help="number of stack-sort passes applied")


K = StackSortPassKnobs
LEVELS = {
    1: K(length=5, passes=1),
    2: K(length=7, passes=1),
    3: K(length=10, passes=1),
    4: K(length=12, passes=1),
    5: K(length=14, passes=2),
    6: K(length=17, passes=2),
    7: K(length=20, passes=2),
    8: K(length=24, passes=3),
    9: K(length=28, passes=3),
    10: K(length=34, passes=3),
}


def stack_sort(values: list[int]) -> tuple[list[int], int]:
    """One pass; the output and the stack operations."""
    out, stack, work = [], [], 0
    for x in values:
        while stack and stack[-1] < x:
            out.append(stack.pop())
            work += 1
        stack.append(x)
        work += 1
    while stack:
        out.append(stack.pop())
        work += 1
    return out, work


def apply_passes(values: list[int], passes: int) -> tuple[list[int], int]:
    total = 0
    for _ in range(passes):
        values, work = stack_sort(values)
        total += work
    return values, total


PROMPT = """Stack-sort reads a sequence from left to right with an empty stack. For each entry x: \
while the stack is not empty and its top entry is smaller than x, pop the top entry and write it \
to the output; then push x. After the last entry, pop the remaining entries one by one to the output.

Apply stack-sort {times} to the permutation {values} (each pass reads the previous pass's output). \
Answer with the final output, entries separated by spaces or commas, for example <answer>{example}</answer>."""


@family(
    "stack_sort_pass",
    domain="algorithms",
    knobs=StackSortPassKnobs,
    levels=LEVELS,
    description="The output of passes of West's stack-sort on a permutation.",
    verifier_kind="exact sequence",
)
class StackSortPass(Family):
    def generate(self, knobs: StackSortPassKnobs, rng: np.random.Generator) -> TaskDraft:
        while True:
            values = [int(v) + 1 for v in rng.permutation(knobs.length)]
            out, work = apply_passes(values, knobs.passes)
            if out != sorted(values):  # not already sorted by the passes
                break
        times = "once" if knobs.passes == 1 else f"{knobs.passes} times in a row"
        prompt = PROMPT.format(times=times, values=" ".join(map(str, values)), example="2 1 3")
        metadata = {
            "values": values,
            "passes": knobs.passes,
            "work": work,
            "canonical_hash": content_hash([values, knobs.passes]),
        }
        return TaskDraft(prompt, " ".join(map(str, out)), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, labels=("output",))
        if isinstance(text, Verdict):
            return text
        if "->" in text:
            return Verdict.bad_format("answer with the entries separated by spaces or commas")
        claimed = read_integers(text)
        if claimed is None:
            return Verdict.bad_format("answer with the entries separated by spaces or commas")
        expected = [int(v) for v in task.answer.split()]
        if claimed != expected:
            return Verdict.wrong("not the output of the passes", parsed=claimed)
        return Verdict.right(parsed=claimed)

    def solve_exact(self, task: Task) -> SolverRun:
        """The stack simulation (effort: stack operations)."""
        out, work = apply_passes(task.metadata["values"], task.metadata["passes"])
        return SolverRun(tagged(" ".join(map(str, out))), float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Assumes the passes sort the permutation (never right: sorted outputs are not drawn)."""
        return SolverRun(
            None if len(task.metadata["values"]) > 5 else tagged(task.answer),
            float(len(task.metadata["values"])),
        )

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        out = [int(v) for v in task.answer.split()]
        wrong = [sorted(out), out[::-1], out[1:] + out[:1], task.metadata["values"]]
        return [tagged(" ".join(map(str, w))) for w in wrong if w != out]
