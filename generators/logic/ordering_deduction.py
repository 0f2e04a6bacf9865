"""Ordering deduction: place people in a row from clues; the order is unique.

A planted order is described by clues of the kinds "X is in position k", "X is somewhere left
of Y", "X is immediately left of Y", "X and Y are (not) neighbours", "exactly d people between X
and Y", "X is (not) at an end". Clues are added only when they cut off a rival solution found
by the propagation-and-search solver, until the order is unique; with ``minimal=True`` every
clue that is not needed is then removed (each removal re-proves uniqueness, so generation costs
a few dozen solver calls: about 400 tasks/s at level 5, 75 at level 10 with 12 people, CPU
time on one core).
Hardness: solver revisions, search nodes and failures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.logic import _positions as ps
from palaestra.generators.logic.knights_knaves import NAMES
from palaestra.generators.shared.logic_answers import scan_words
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

KINDS = ("at", "not_at", "end", "middle", "left", "next", "adjacent", "apart", "gap")
_FILLER = frozenset({"and", "then"})
# what may separate the names: punctuation, arrows and "<" (left of); ">" or "≠" refuse the answer
_SEPARATORS = re.compile(r"(?:\s+|->|=>|→|[<,;:.()\[\]\-–—*_`\"'|])+")
MAX_ANSWER_CHARS = 4000  # twelve names in order fit many times over


@dataclass(frozen=True)
class OrderingKnobs(Knobs):
    people: int = knob(3, low=3, high=12, help="number of people in the row")
    clue_kinds: str = knob("at,left,next", help="comma-separated clue kinds: " + ", ".join(KINDS))
    minimal: bool = knob(False, help="remove every clue the unique solution does not need")
    extra_clues: int = knob(0, low=0, high=8, help="redundant true clues added after that (noise, variety)")

    def validate(self) -> None:
        kinds = self.kind_list()
        if not kinds or set(kinds) - set(KINDS) or len(set(kinds)) != len(kinds):
            raise ValueError(f"clue_kinds must be distinct names from {list(KINDS)}")

    def kind_list(self) -> list[str]:
        return [k.strip() for k in self.clue_kinds.split(",") if k.strip()]


_WEAK = "not_at,end,middle,left,adjacent,apart"
LEVELS = {
    1: OrderingKnobs(people=3, clue_kinds="at,left,next"),
    2: OrderingKnobs(people=4, clue_kinds="at,left,next,end"),
    3: OrderingKnobs(extra_clues=1, people=5, clue_kinds=_WEAK),  # v2: 4 people repeated 5.7% of 2,000
    4: OrderingKnobs(extra_clues=2, people=5, clue_kinds=_WEAK),
    5: OrderingKnobs(extra_clues=2, people=6, clue_kinds=_WEAK + ",gap,next", minimal=True),
    6: OrderingKnobs(extra_clues=1, people=7, clue_kinds=_WEAK + ",gap,next", minimal=True),
    7: OrderingKnobs(extra_clues=1, people=8, clue_kinds=_WEAK + ",gap", minimal=True),
    8: OrderingKnobs(people=9, clue_kinds=_WEAK + ",gap", minimal=True),
    9: OrderingKnobs(people=11, clue_kinds=_WEAK + ",gap", minimal=True),
    10: OrderingKnobs(people=12, clue_kinds=_WEAK + ",gap", minimal=True),
}


def _candidate(kind: str, rng: np.random.Generator, pos: list[int]) -> ps.Clue | None:
    n = len(pos)
    who = [0] * n  # who[p] = person at position p
    for e, p in enumerate(pos):
        who[p] = e
    e = int(rng.integers(n))
    if kind == "at":
        return ["at", e, pos[e]]
    if kind == "not_at":
        k = int(rng.integers(n - 1))
        return ["not_at", e, k if k < pos[e] else k + 1]
    if kind in ("end", "middle"):
        ends = [who[0], who[n - 1]]
        pool = ends if kind == "end" else [x for x in range(n) if x not in ends]
        return [kind, pool[int(rng.integers(len(pool)))]] if pool else None
    if kind in ("next", "adjacent"):
        p = int(rng.integers(n - 1))
        a, b = who[p], who[p + 1]
        return ["next", a, b] if kind == "next" or rng.random() < 0.5 else ["adjacent", b, a]
    a, b = (int(x) for x in rng.permutation(n)[:2])
    d = abs(pos[a] - pos[b])
    if kind == "left":
        return ["left", a, b] if pos[a] < pos[b] else ["left", b, a]
    if kind == "apart":
        return ["apart", a, b] if d != 1 else None
    return ["gap", a, b, d] if d >= 2 else None  # gap


def _pick(cumulative: np.ndarray, rng: np.random.Generator) -> int:
    return min(int(np.searchsorted(cumulative, rng.random(), side="right")), len(cumulative) - 1)


def _drawer(knobs: OrderingKnobs):
    kinds = knobs.kind_list()
    # "at" and "next" pin people down fast; drawing them less often leaves more reasoning to do
    weights = np.array([0.5 if k in ("at", "next") else 1.0 for k in kinds])
    weights = np.cumsum(weights / weights.sum())

    def draw(rng: np.random.Generator, pos: list[int], other: list[int] | None) -> ps.Clue | None:
        n = len(pos)
        for _ in range(300):
            clue = _candidate(kinds[_pick(weights, rng)], rng, pos)
            if clue is not None and (other is None or not ps.holds(clue, other, n)):
                return clue
        # always possible: two people whose order differs between the solutions
        if other is None:
            return None
        pairs = [(a, b) for a in range(n) for b in range(n) if pos[a] < pos[b] and other[a] > other[b]]
        a, b = pairs[int(rng.integers(len(pairs)))]
        return ["left", a, b]

    return draw


def render(clue: ps.Clue, names: list[str], n: int) -> str:
    kind = clue[0]
    a = names[clue[1]]
    if kind == "at":
        return f"{a} is in position {clue[2] + 1}."
    if kind == "not_at":
        return f"{a} is not in position {clue[2] + 1}."
    if kind == "end":
        return f"{a} is at one of the two ends of the row."
    if kind == "middle":
        return f"{a} is not at either end of the row."
    b = names[clue[2]]
    if kind == "left":
        return f"{a} is somewhere to the left of {b}."
    if kind == "next":
        return f"{a} is immediately to the left of {b}."
    if kind == "adjacent":
        return f"{a} and {b} stand next to each other."
    if kind == "apart":
        return f"{a} and {b} do not stand next to each other."
    between = clue[3] - 1
    return f"There {'is' if between == 1 else 'are'} exactly {between} {'person' if between == 1 else 'people'} between {a} and {b}."


PROMPT = """{count} people stand in a row, in positions 1 to {count} from left to right: {names}.

{clues}

Exactly one order satisfies all the clues. List the people from position 1 (leftmost) to \
position {count} (rightmost), each exactly once, separated by commas, for example (with other \
names): <answer>Zed, Quinn, Uma</answer>"""


def parse_order(text: str, names: list[str]) -> tuple[list[str] | None, str]:
    """Names in order; enumerators ("1. Alice 2. Bob") are allowed when each one counts up and
    comes right before its name. Any word or sign not understood refuses the answer."""
    if len(text) > MAX_ANSWER_CHARS:
        return None, f"the answer is longer than {MAX_ANSWER_CHARS} characters"
    tokens, why = scan_words(text, _SEPARATORS)
    if tokens is None:
        return None, f"{why}: list only the names"
    lookup = {name.lower(): name for name in names}
    order: list[str] = []
    numbered = 0
    for token in tokens:
        if token.isdigit():
            if int(token) != len(order) + 1 or numbered > len(order):
                return None, f"unexpected number {token}"
            numbered = len(order) + 1
            continue
        if token in _FILLER:
            continue
        if token not in lookup:
            return None, f"unexpected word {token!r}: list only the names"
        if lookup[token] in order:
            return None, f"{lookup[token]} appears more than once"
        if numbered and numbered != len(order) + 1:
            return None, f"{lookup[token]} has no number before it"
        order.append(lookup[token])
    missing = [n for n in names if n not in order]
    if missing:
        return None, f"missing {', '.join(missing)}"
    return order, ""


def _order(pos: list[int], names: list[str]) -> list[str]:
    return [names[e] for e in sorted(range(len(pos)), key=lambda e: pos[e])]


@family(
    "ordering_deduction",
    version=2,  # v2: level 3 has 5 people (fewer than 1% duplicates among 2,000 tasks)
    domain="logic",
    knobs=OrderingKnobs,
    levels=LEVELS,
    description="Deduce the unique left-to-right order of people in a row from positional "
    "clues (before/after, neighbours, gaps, ends); uniqueness proven by a CSP solver.",
    verifier_kind="unique order",
)
class OrderingDeduction(Family):
    def generate(self, knobs: OrderingKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.people
        names = [str(x) for x in rng.choice(NAMES, size=n, replace=False)]
        for _ in range(50):
            pos = [int(p) for p in rng.permutation(n)]
            clues = ps.build_unique(n, n, [list(range(n))], pos, _drawer(knobs), rng, minimal=knobs.minimal)
            if clues is not None:
                break
        else:
            raise RuntimeError(f"could not build a unique ordering for {knobs}")
        draw = _drawer(knobs)
        for _ in range(knobs.extra_clues):
            clue = draw(rng, pos, None)
            if clue is not None and clue not in clues:
                clues.append(clue)
        clues = [clues[int(i)] for i in rng.permutation(len(clues))]
        stats = ps.solve(n, n, [list(range(n))], clues, limit=2)
        assert stats.solutions == [pos]
        order = _order(pos, names)
        return TaskDraft(
            prompt=PROMPT.format(
                count=n,
                names=", ".join(sorted(names)),
                clues="\n".join(f"- {render(c, names, n)}" for c in clues),
            ),
            answer=", ".join(order),
            metadata={
                "names": names,
                "clues": clues,
                "solution": pos,
                "search_nodes": stats.nodes,
                "failures": stats.failures,
                "revisions": stats.revisions,
                "canonical_hash": content_hash(ps.canonical(clues, pos)),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        names = list(task.metadata["names"])
        order, why = parse_order(extraction.text, names)
        if order is None:
            return Verdict.bad_format(why)
        pos = [order.index(name) for name in names]
        n = len(names)
        broken = [i for i, c in enumerate(task.metadata["clues"]) if not ps.holds(c, pos, n)]
        if broken:
            return Verdict.wrong(f"clue {broken[0] + 1} is violated ({len(broken)} in all)", parsed=order)
        if pos != task.metadata["solution"]:  # cannot happen: the solution is proven unique
            return Verdict.wrong("not the unique solution", parsed=order)
        return Verdict.right(parsed=order)

    def solve_exact(self, task: Task) -> SolverRun:
        names = list(task.metadata["names"])
        n = len(names)
        stats = ps.solve(n, n, [list(range(n))], task.metadata["clues"], limit=2)
        if len(stats.solutions) != 1:
            raise RuntimeError("expected a unique solution")
        effort = stats.revisions + stats.nodes
        return SolverRun(f"<answer>{', '.join(_order(stats.solutions[0], names))}</answer>", float(effort))

    def solve_weak(self, task: Task) -> SolverRun:
        # propagation only, no search: if it does not pin everyone down, guess in name order
        names = list(task.metadata["names"])
        n = len(names)
        stats = ps.solve(n, n, [list(range(n))], task.metadata["clues"], limit=1, search=False)
        if stats.solutions:
            return SolverRun(
                f"<answer>{', '.join(_order(stats.solutions[0], names))}</answer>", float(stats.revisions)
            )
        return SolverRun(f"<answer>{', '.join(names)}</answer>", float(stats.revisions))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        order = str(task.answer).split(", ")
        n = len(order)
        out = []
        i = int(rng.integers(n - 1))
        swapped = list(order)
        swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
        out.append(", ".join(swapped))
        out.append(", ".join(reversed(order)))
        out.append(", ".join(order[1:] + order[:1]))
        out.append(", ".join(order[:-1]))  # someone missing
        out.append(", ".join(order + order[:1]))  # someone twice
        return [f"<answer>{r}</answer>" for r in dict.fromkeys(out) if r != task.answer]
