"""DFA minimisation: group the states of a deterministic finite automaton into equivalence classes.

Two states are equivalent when every input string leads both to acceptance or both to
rejection; the classes are the states of the minimal DFA (Myhill-Nerode). The instance is a
random minimal DFA with one accepting state (every state reachable, every pair of states
distinguished) whose states are copied: each copy's transitions go to copies of the original
targets (every copy gets an incoming transition; the instance is kept only when every state is
reachable from the start state 0), so copies of one state are equivalent and copies of
different states are not. The answer (the partition) is unique; it is recomputed for the proof
by Moore's partition refinement on the instance itself (and from the definition, by a search of
the pair graph, in the test).

Difficulty: the minimal DFA's states (3 to 9), the alphabet (2 or 3 letters), the copies
(5 to 22 states in all) and the refinement rounds Moore's algorithm needs (the instance is
redrawn until it needs at least ``min_rounds``: pairs told apart only by longer strings). The
weak solver stops after three rounds of refinement (states told apart by strings of at most
three letters); the exact solver's effort is the state signatures it computes over all rounds.
Relabelled copies of one instance are duplicates (the canonical hash renumbers states
breadth-first, letters in order). Generation (CPU time, mean over 30 seeds): ~2,400 tasks per
second at level 1, ~630 at level 5, ~80 at level 10 (draws are redrawn until Moore's algorithm
needs 5 rounds).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

LETTERS = "abc"
WEAK_ROUNDS = 3
_GROUP = re.compile(r"\{([^{}]*)\}")
_BETWEEN = re.compile(r"[\s,;]*(?:and)?[\s,;]*")


@dataclass(frozen=True)
class DfaKnobs(Knobs):
    classes: int = knob(3, low=2, high=12, help="states of the minimal DFA")
    letters: int = knob(2, low=2, high=3, help="alphabet size (a, b, c)")
    states: int = knob(6, low=2, high=30, help="states of the given DFA")
    # 7 at most: at 8-10 rounds with 12 classes and 30 states the draw ran past 60 s (issue 27)
    min_rounds: int = knob(1, low=1, high=7, help="fewest refinement rounds Moore's algorithm needs")

    def validate(self) -> None:
        if self.states < self.classes:
            raise ValueError("states must be at least classes")
        if self.min_rounds > self.classes - 2:  # each round adds a class to the first two
            raise ValueError("min_rounds must be at most classes - 2")


LEVELS = {
    1: DfaKnobs(classes=3, letters=2, states=5, min_rounds=1),
    2: DfaKnobs(classes=4, letters=2, states=6, min_rounds=2),
    3: DfaKnobs(classes=4, letters=2, states=8, min_rounds=2),
    4: DfaKnobs(classes=5, letters=2, states=9, min_rounds=3),
    5: DfaKnobs(classes=5, letters=3, states=11, min_rounds=3),
    6: DfaKnobs(classes=6, letters=2, states=12, min_rounds=3),
    7: DfaKnobs(classes=6, letters=3, states=14, min_rounds=4),
    8: DfaKnobs(classes=7, letters=2, states=16, min_rounds=4),
    9: DfaKnobs(classes=8, letters=2, states=19, min_rounds=5),
    10: DfaKnobs(classes=9, letters=3, states=22, min_rounds=5),
}

Dfa = tuple[list[list[int]], list[bool]]  # transitions[state][letter], accepting[state]


def refine(
    delta: list[list[int]], accepting: list[bool], rounds: int | None = None
) -> tuple[list[int], int, int]:
    """Moore's partition refinement: class of each state, the rounds that changed the
    partition, and the state signatures computed (the effort). ``rounds`` stops early (the weak solver)."""
    cls = [int(a) for a in accepting]
    done, work = 0, 0
    while rounds is None or done < rounds:
        signature = {}
        new = []
        for s, row in enumerate(delta):
            work += 1
            key = (cls[s], *(cls[t] for t in row))
            new.append(signature.setdefault(key, len(signature)))
        if len(signature) == len(set(cls)):
            break
        cls, done = new, done + 1
    return cls, done, work


def bfs_order(delta: list[list[int]]) -> list[int]:
    """States in breadth-first order from state 0 (letters in order)."""
    order, seen, queue = [], {0}, deque([0])
    while queue:
        s = queue.popleft()
        order.append(s)
        for t in delta[s]:
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return order


def renumber(delta: list[list[int]], accepting: list[bool], order: list[int]) -> Dfa:
    index = {s: i for i, s in enumerate(order)}
    return [[index[t] for t in delta[s]] for s in order], [accepting[s] for s in order]


def draw(knobs: DfaKnobs, rng: np.random.Generator) -> tuple[Dfa, list[int]] | None:
    k, m = knobs.classes, knobs.letters
    base = [[int(t) for t in rng.integers(k, size=m)] for _ in range(k)]
    base_acc = [False] * k
    base_acc[int(rng.integers(k))] = True  # one accepting class: pairs split by longer strings
    if len(bfs_order(base)) < k:
        return None  # not every state reachable
    cls, rounds, _ = refine(base, base_acc)
    if len(set(cls)) < k or rounds < knobs.min_rounds:
        return None  # not minimal, or told apart by short strings only (copies keep both)
    # copies: every class keeps at least one copy
    owner = list(range(k)) + [int(c) for c in rng.integers(k, size=knobs.states - k)]
    accepting = [base_acc[o] for o in owner]
    for _ in range(20):
        delta = wire_copies(base, owner, rng)
        if delta is not None and len(bfs_order(delta)) == len(owner):
            break
    else:
        return None  # some copy stays unreachable (state 0, a copy of the start, is the start)
    permuted = [int(x) for x in rng.permutation(len(owner))]
    permuted.remove(0)
    shuffled = [0, *permuted]  # state 0 stays the start
    delta, accepting = renumber(delta, accepting, shuffled)
    cls, rounds, _ = refine(delta, accepting)
    assert len(set(cls)) == k and rounds >= knobs.min_rounds  # copies of a state are equivalent
    return (delta, accepting), cls


def wire_copies(base: list[list[int]], owner: list[int], rng: np.random.Generator) -> list[list[int]] | None:
    """Transitions of the copies: each copy of X follows X's transitions to copies of their
    targets; every copy gets at least one incoming transition (``None`` if there are too few)."""
    copies: dict[int, list[int]] = {}
    for s, o in enumerate(owner):
        copies.setdefault(o, []).append(s)
    delta = [[-1] * len(base[0]) for _ in owner]
    slots: dict[int, list[tuple[int, int]]] = {}  # class -> (state, letter) that lead to it
    for s, o in enumerate(owner):
        for letter, t in enumerate(base[o]):
            slots.setdefault(t, []).append((s, letter))
    for target, spots in slots.items():
        order = [spots[int(i)] for i in rng.permutation(len(spots))]
        # state 0 (copy 0 of the start class) is the start: it needs no incoming transition
        first = copies[target][1:] if target == owner[0] else copies[target]
        if len(order) < len(first):
            return None
        for n, (s, letter) in enumerate(order):
            pick = first[n] if n < len(first) else copies[target][int(rng.integers(len(copies[target])))]
            delta[s][letter] = pick
    return delta


def partition(cls: list[int]) -> list[list[int]]:
    groups: dict[int, list[int]] = {}
    for s, c in enumerate(cls):
        groups.setdefault(c, []).append(s)
    return sorted(groups.values())


def show(groups: list[list[int]]) -> str:
    return " ".join("{" + ", ".join(map(str, g)) + "}" for g in groups)


def read_partition(text: str, states: int) -> list[list[int]] | None:
    """``{0, 3} {1} {2, 4}`` (commas or 'and' between groups allowed) -> sorted groups."""
    if len(text) > 20 * states + 100:
        return None
    groups, end = [], 0
    for match in _GROUP.finditer(text):
        if _BETWEEN.fullmatch(text[end : match.start()]) is None:
            return None
        items = [x for x in re.split(r"[\s,]+", match.group(1).strip()) if x]
        if not items or not all(x.isascii() and x.isdigit() and len(x) <= 3 for x in items):
            return None
        groups.append(sorted(int(x) for x in items))
        end = match.end()
    if not groups or _BETWEEN.fullmatch(text[end:].rstrip(".")) is None:
        return None
    flat = [s for g in groups for s in g]
    if sorted(flat) != list(range(states)):
        return None
    return sorted(groups)


PROMPT = """A deterministic finite automaton over the alphabet {{{alphabet}}} has states 0 to \
{last}; the start state is 0 and the accepting states are {accepting}. Its transitions \
(state: {header}):

{table}

Two states are equivalent when every input string leads from both to an accepting state or \
from both to a rejecting one. Group the states into equivalence classes (the states of the \
minimal equivalent DFA). Answer with every class in braces, each state exactly once, for \
example <answer>{{0, 2}} {{1}} {{3, 4}}</answer>."""


@family(
    "dfa",
    domain="languages",
    knobs=DfaKnobs,
    levels=LEVELS,
    description="Minimise a DFA: group its states into equivalence classes (unique, proven by partition refinement).",
    verifier_kind="exact (the Myhill-Nerode partition, computed by Moore's refinement)",
)
class DfaMinimisation(Family):
    def generate(self, knobs: DfaKnobs, rng: np.random.Generator) -> TaskDraft:
        while (drawn := draw(knobs, rng)) is None:
            pass
        (delta, accepting), cls = drawn
        letters = LETTERS[: knobs.letters]
        table = "\n".join(
            f"{s}: " + ", ".join(f"{a} -> {t}" for a, t in zip(letters, row, strict=True))
            for s, row in enumerate(delta)
        )
        prompt = PROMPT.format(
            alphabet=", ".join(letters),
            last=len(delta) - 1,
            accepting=", ".join(str(s) for s, a in enumerate(accepting) if a) or "none",
            header=", ".join(f"{a} -> next" for a in letters),
            table=table,
        )
        canonical = renumber(delta, accepting, bfs_order(delta))
        metadata = {"delta": delta, "accepting": accepting, "canonical_hash": content_hash(list(canonical))}
        return TaskDraft(prompt, show(partition(cls)), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=2000)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        states = len(task.metadata["delta"])
        groups = read_partition(extraction.text, states)
        if groups is None:
            return Verdict.bad_format(
                f"answer with classes in braces, every state 0-{states - 1} exactly once"
            )
        if show(groups) != task.answer:
            return Verdict.wrong("that is not the partition into equivalence classes", parsed=show(groups))
        return Verdict.right(parsed=show(groups))

    def solve_exact(self, task: Task) -> SolverRun:
        """Moore's refinement to a fixed point (effort = state signatures over all rounds)."""
        cls, _, work = refine(task.metadata["delta"], task.metadata["accepting"])
        return SolverRun(f"<answer>{show(partition(cls))}</answer>", float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Three rounds of refinement (tells apart only states split by strings of <= 3 letters)."""
        cls, _, work = refine(task.metadata["delta"], task.metadata["accepting"], rounds=WEAK_ROUNDS)
        return SolverRun(f"<answer>{show(partition(cls))}</answer>", float(work))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        groups = partition(refine(task.metadata["delta"], task.metadata["accepting"])[0])
        accepting = task.metadata["accepting"]
        big = max(groups, key=len)
        rest = [g for g in groups if g is not big]
        wrong = [
            [*rest, big[:1], big[1:]],  # one class split in two
            [groups[0] + groups[1], *groups[2:]],  # two classes merged
            [*rest[1:], big[:-1], [*rest[0], big[-1]]],  # one state moved to another class
            [[s for s, a in enumerate(accepting) if a], [s for s, a in enumerate(accepting) if not a]],
            [[s] for s in range(len(accepting))],  # every state on its own
        ]
        texts = {show(sorted(sorted(g) for g in w if g)) for w in wrong} - {task.answer}
        return [f"<answer>{t}</answer>" for t in sorted(texts)]
