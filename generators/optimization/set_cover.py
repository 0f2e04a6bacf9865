"""Set cover: choose the fewest of the given sets whose union is the whole universe.

Every minimum cover is accepted: the verifier checks that the chosen sets (each named once)
cover every element and that their number equals the optimum, proven by an exhaustive iterative-
deepening search (every selection of fewer sets is refuted). A count stated in the response is never
read; a repeated set is wrong, a number that names no set is a format error.

Difficulty: more elements (6 to 36) and more sets (5 to 26), so the optimum grows (2 to ~7)
and the search must refute many more smaller selections (the effort counts search nodes). From
level 3 on, instances the greedy heuristic (repeatedly take the set covering most uncovered
elements, the weak solver) solves optimally are rejected.

Generation: ~1,500 tasks per CPU-second at level 5 and ~110 at level 10 (the search in pure
Python, and redraws of the instances greedy covers optimally).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.optimization._common import numbered, read_numbers
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class SetCoverKnobs(Knobs):
    elements: int = knob(6, low=4, high=40, help="size of the universe (elements 1..n)")
    sets: int = knob(5, low=3, high=30, help="number of sets offered")
    density: float = knob(0.35, low=0.1, high=0.6, help="probability that a set holds a given element")
    reject_greedy: bool = knob(False, help="reject instances the most-new-elements greedy covers optimally")


LEVELS = {
    1: SetCoverKnobs(elements=6, sets=5, density=0.4),
    2: SetCoverKnobs(elements=8, sets=6, density=0.35),
    3: SetCoverKnobs(elements=10, sets=8, density=0.35, reject_greedy=True),
    4: SetCoverKnobs(elements=12, sets=10, density=0.3, reject_greedy=True),
    5: SetCoverKnobs(elements=15, sets=12, density=0.3, reject_greedy=True),
    6: SetCoverKnobs(elements=18, sets=14, density=0.25, reject_greedy=True),
    7: SetCoverKnobs(elements=20, sets=16, density=0.25, reject_greedy=True),
    8: SetCoverKnobs(elements=24, sets=18, density=0.22, reject_greedy=True),
    9: SetCoverKnobs(elements=30, sets=22, density=0.2, reject_greedy=True),
    10: SetCoverKnobs(elements=36, sets=26, density=0.18, reject_greedy=True),
}


def _masks(sets: list[list[int]]) -> list[int]:
    return [sum(1 << (e - 1) for e in s) for s in sets]


def minimum_cover(sets: list[list[int]], elements: int) -> tuple[list[int], int]:
    """A minimum cover (0-based set indices, ascending) and the search nodes visited.

    Iterative deepening: for each budget k = 1, 2, ... branch on the sets holding the lowest
    uncovered element (one of them must be chosen), pruning when k sets of the largest size
    cannot cover what is left. The first budget that succeeds is the optimum, and every smaller
    budget was refuted exhaustively.
    """
    masks = _masks(sets)
    holders = [[i for i, m in enumerate(masks) if m >> e & 1] for e in range(elements)]
    largest = max(m.bit_count() for m in masks)
    nodes = 0

    def search(uncovered: int, budget: int, chosen: list[int]) -> list[int] | None:
        nonlocal nodes
        nodes += 1
        if not uncovered:
            return chosen
        if budget * largest < uncovered.bit_count():
            return None
        lowest = (uncovered & -uncovered).bit_length() - 1
        for i in holders[lowest]:
            found = search(uncovered & ~masks[i], budget - 1, [*chosen, i])
            if found is not None:
                return found
        return None

    for budget in range(1, len(sets) + 1):
        found = search((1 << elements) - 1, budget, [])
        if found is not None:
            return sorted(found), nodes
    raise ValueError("the sets do not cover the universe")


def greedy_cover(sets: list[list[int]], elements: int) -> list[int]:
    """Repeatedly take the set with the most uncovered elements (ties: the lower number)."""
    masks, uncovered, chosen = _masks(sets), (1 << elements) - 1, []
    while uncovered:
        best = max(range(len(sets)), key=lambda i: (bin(masks[i] & uncovered).count("1"), -i))
        chosen.append(best)
        uncovered &= ~masks[best]
    return sorted(chosen)


PROMPT = """The universe is the numbers 1 to {n}. These sets are available:
{sets}

Choose the smallest possible number of sets whose union contains every number from 1 to {n}. \
Any selection with the fewest sets is accepted. Answer with the numbers of the chosen sets, \
separated by commas, for example <answer>1, 3</answer>."""


def _draw(knobs: SetCoverKnobs, rng: np.random.Generator) -> list[list[int]] | None:
    member = rng.random((knobs.sets, knobs.elements)) < knobs.density
    if not member.any(axis=0).all() or not member.any(axis=1).all():
        return None  # an element no set covers, or an empty set
    return [[int(e) + 1 for e in np.flatnonzero(row)] for row in member]


def _answer(chosen: list[int]) -> str:
    return ", ".join(str(i + 1) for i in chosen)


@family(
    "set_cover",
    domain="optimization",
    knobs=SetCoverKnobs,
    levels=LEVELS,
    description="Cover a universe with the fewest of the given sets (any minimum cover counts).",
    verifier_kind="coverage check + count equals the exhaustively proven minimum",
)
class SetCover(Family):
    def generate(self, knobs: SetCoverKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(5000):
            sets = _draw(knobs, rng)
            if sets is None:
                continue
            chosen, examined = minimum_cover(sets, knobs.elements)
            if len(chosen) < 2:
                continue  # one set covers everything
            if knobs.reject_greedy and len(greedy_cover(sets, knobs.elements)) == len(chosen):
                continue
            break
        else:
            raise RuntimeError(f"no suitable instance in 5000 draws for {knobs}")
        listing = "\n".join(f"Set {i + 1}: {{{', '.join(map(str, s))}}}" for i, s in enumerate(sets))
        metadata = {
            "elements": knobs.elements,
            "sets": sets,
            "optimum": len(chosen),
            "search_nodes": examined,
            "canonical_hash": content_hash([knobs.elements, sorted(sets)]),
        }
        return TaskDraft(PROMPT.format(n=knobs.elements, sets=listing), _answer(chosen), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        chosen = read_numbers(response, labels=("sets",))
        if isinstance(chosen, Verdict):
            return chosen
        sets, elements = task.metadata["sets"], task.metadata["elements"]
        if error := numbered(chosen, len(sets), "set"):
            return error
        if len(set(chosen)) != len(chosen):
            return Verdict.wrong("a set is chosen more than once", parsed=chosen)
        covered = set().union(*(sets[i - 1] for i in chosen))
        if len(covered) != elements:
            missing = min(set(range(1, elements + 1)) - covered)
            return Verdict.wrong(f"the chosen sets do not cover {missing}", parsed=chosen)
        if len(chosen) != task.metadata["optimum"]:
            return Verdict.wrong(f"{len(chosen)} sets cover everything, but fewer suffice", parsed=chosen)
        return Verdict.right(parsed=chosen)

    def solve_exact(self, task: Task) -> SolverRun:
        """Iterative-deepening branching on the lowest uncovered element (effort = search nodes)."""
        chosen, examined = minimum_cover(task.metadata["sets"], task.metadata["elements"])
        return SolverRun(f"<answer>{_answer(chosen)}</answer>", float(examined))

    def solve_weak(self, task: Task) -> SolverRun:
        """Greedy: always the set covering most uncovered elements (a ln(n) approximation)."""
        chosen = greedy_cover(task.metadata["sets"], task.metadata["elements"])
        return SolverRun(f"<answer>{_answer(chosen)}</answer>", float(len(task.metadata["sets"])))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        sets, elements = task.metadata["sets"], task.metadata["elements"]
        chosen = [int(i) - 1 for i in task.answer.split(", ")]
        unused = [i for i in range(len(sets)) if i not in chosen]
        mutations = [
            chosen[1:],  # a set fewer: below the optimum, so it cannot cover
            chosen + chosen[:1],  # a set twice
            sorted(chosen + unused[:1]) if unused else list(range(len(sets))) + [0],  # one set too many
        ]
        greedy = greedy_cover(sets, elements)
        if len(greedy) != task.metadata["optimum"]:
            mutations.append(greedy)
        return [f"<answer>{_answer(m)}</answer>" for m in mutations]
