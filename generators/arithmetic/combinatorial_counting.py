"""Combinatorial counting word problems with answers checked by brute-force enumeration.

Seven kinds: letter arrangements (optionally no two equal letters adjacent), committees with a
quota (optionally two people who refuse to serve together), identical balls in distinct boxes
with bounds, binary strings with a fixed number of ones (optionally no two adjacent), lattice
paths (optionally avoiding a point), permutations with forbidden fixed points, and onto
functions. The reference answer comes from a formula or a DP (effort = its terms/states); the
generator also enumerates every object by brute force and refuses to emit a task whose two
counts disagree. Sizes stay small enough for the enumeration (at most ~60,000 objects), so
levels 9-10 generate at ~10-30 tasks/s. The weak solver applies the textbook formula that
ignores the extra restriction (a classic slip), so it fails on restricted questions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import combinations, permutations, product
from math import comb, factorial

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.arithmetic._common import extract, parse_int
from palaestra.registry import Family, SolverRun, TaskDraft, family

KINDS = ("lattice", "committee", "binary", "boxes", "arrangements", "derangements", "onto")
MAX_OBJECTS = 60_000


@dataclass(frozen=True)
class CombinatorialCountingKnobs(Knobs):
    size: int = knob(1, low=1, high=10, help="scale of the objects counted")
    kinds: int = knob(3, low=1, high=len(KINDS), help=f"how many kinds are drawn from, in order {KINDS}")
    restricted_share: float = knob(0.0, low=0.0, high=1.0, help="probability of an extra restriction")


LEVELS = {
    1: CombinatorialCountingKnobs(size=1, kinds=3, restricted_share=0.0),
    2: CombinatorialCountingKnobs(size=2, kinds=4, restricted_share=0.2),
    3: CombinatorialCountingKnobs(size=3, kinds=5, restricted_share=0.4),
    4: CombinatorialCountingKnobs(size=4, kinds=6, restricted_share=0.5),
    5: CombinatorialCountingKnobs(size=5, kinds=7, restricted_share=0.6),
    6: CombinatorialCountingKnobs(size=6, kinds=7, restricted_share=0.7),
    7: CombinatorialCountingKnobs(size=7, kinds=7, restricted_share=0.8),
    8: CombinatorialCountingKnobs(size=8, kinds=7, restricted_share=0.9),
    9: CombinatorialCountingKnobs(size=9, kinds=7, restricted_share=1.0),
    10: CombinatorialCountingKnobs(size=10, kinds=7, restricted_share=1.0),
}


@dataclass
class Problem:
    kind: str
    params: dict[str, int | str]
    text: str
    exact: int
    ops: int
    naive: int  # the count without the restriction (the weak solver's answer)
    brute: Callable[[], tuple[int, int]]  # (count, objects enumerated)


def _int(rng: np.random.Generator, low: int, high: int) -> int:
    return int(rng.integers(low, high + 1))


# --------------------------------------------------------------------------------------------
# The kinds: each draws parameters, states the question, counts exactly and by brute force
# --------------------------------------------------------------------------------------------


def lattice(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    a, b = _int(rng, 2, 3 + size // 2), _int(rng, 2, 3 + size // 2)
    total = comb(a + b, a)
    text = f"How many shortest paths along the grid lines go from (0, 0) to ({a}, {b}), each step moving one unit right or up?"
    if not restricted:
        return Problem("lattice", {"a": a, "b": b}, text, total, 1, total, lambda: _brute_lattice(a, b, None))
    p, q = _int(rng, 1, a - 1), _int(rng, 1, b - 1)
    text = text[:-1] + f" The paths must avoid the point ({p}, {q})."
    exact = total - comb(p + q, p) * comb(a - p + b - q, a - p)
    return Problem(
        "lattice",
        {"a": a, "b": b, "p": p, "q": q},
        text,
        exact,
        3,
        total,
        lambda: _brute_lattice(a, b, (p, q)),
    )


def _brute_lattice(a: int, b: int, avoid: tuple[int, int] | None) -> tuple[int, int]:
    count = seen = 0
    for rights in combinations(range(a + b), a):
        seen += 1
        x = y = 0
        ok = True
        chosen = set(rights)
        for step in range(a + b):
            x, y = (x + 1, y) if step in chosen else (x, y + 1)
            if (x, y) == avoid:
                ok = False
                break
        count += ok
    return count, seen


def committee(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    men, women = _int(rng, 3, 4 + size // 2), _int(rng, 3, 4 + size // 2)
    k = _int(rng, 3, min(men + women - 2, 3 + size // 2))
    j = _int(rng, 1, min(k, women) - 1) if min(k, women) > 1 else 1
    text = (
        f"A committee of {k} people is chosen from {men} men and {women} women. How many committees "
        f"include at least {j} women?"
    )

    def count(exclude_pair: bool) -> int:
        total = 0
        for i in range(j, min(k, women) + 1):
            ways_men = comb(men, k - i) - (comb(men - 2, k - i - 2) if exclude_pair and k - i >= 2 else 0)
            total += comb(women, i) * ways_men
        return total

    naive = count(False)
    params = {"men": men, "women": women, "k": k, "j": j, "restricted": int(restricted)}
    if restricted:
        text += " Two particular men refuse to serve together."
    return Problem(
        "committee",
        params,
        text,
        count(restricted),
        2 * (k - j + 1),
        naive,
        lambda: _brute_committee(men, women, k, j, restricted),
    )


def _brute_committee(men: int, women: int, k: int, j: int, restricted: bool) -> tuple[int, int]:
    count = seen = 0
    for group in combinations(range(men + women), k):  # people 0..men-1 are the men
        seen += 1
        if sum(p >= men for p in group) >= j and not (restricted and 0 in group and 1 in group):
            count += 1
    return count, seen


def binary(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    n = _int(rng, 5, 6 + size)
    t = _int(rng, 2, max(2, (n + 1) // 2))
    text = f"How many binary strings of length {n} contain exactly {t} ones?"
    naive = comb(n, t)
    if not restricted:
        return Problem("binary", {"n": n, "t": t}, text, naive, 1, naive, lambda: _brute_binary(n, t, False))
    text = text[:-1] + " and no two adjacent ones?"
    exact = comb(n - t + 1, t)
    return Problem(
        "binary", {"n": n, "t": t, "restricted": 1}, text, exact, 1, naive, lambda: _brute_binary(n, t, True)
    )


def _brute_binary(n: int, t: int, restricted: bool) -> tuple[int, int]:
    count = seen = 0
    for ones in combinations(range(n), t):
        seen += 1
        count += not (restricted and any(b - a == 1 for a, b in zip(ones, ones[1:], strict=False)))
    return count, seen


def boxes(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    k = _int(rng, 3, 3 + size // 3)
    n = _int(rng, k + 2, k + 4 + size)
    low = int(rng.integers(0, 2))
    high = _int(rng, max(low + 1, -(-n // k)), n - 1) if restricted else n

    def count(cap: int) -> tuple[int, int]:
        total, terms = 0, 0
        for i in range(k + 1):
            rest = n - k * low - i * (cap - low + 1)
            if rest < 0:
                break
            total += (-1) ** i * comb(k, i) * comb(rest + k - 1, k - 1)
            terms += 1
        return total, terms

    exact, ops = count(high)
    naive, _ = count(n)
    text = f"In how many ways can {n} identical balls be placed into {k} distinct boxes so that every box gets at least {low} ball{'s' if low != 1 else ''}"
    text += f" and at most {high}?" if restricted else "?"
    params = {"n": n, "k": k, "low": low, "high": high}
    return Problem("boxes", params, text, exact, ops, naive, lambda: _brute_boxes(n, k, low, high))


def _brute_boxes(n: int, k: int, low: int, high: int) -> tuple[int, int]:
    seen = 0

    def fill(boxes_left: int, remaining: int) -> int:
        nonlocal seen
        if boxes_left == 1:
            seen += 1
            return int(low <= remaining <= high)
        return sum(fill(boxes_left - 1, remaining - x) for x in range(low, min(high, remaining) + 1))

    return fill(k, n), seen


def arrangements(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    length = _int(rng, 4, min(8, 4 + size // 2))
    distinct = _int(rng, 2, length - 1)
    letters = [str(x) for x in rng.choice(list("ABCDEFGHIKLMNOPRSTUVW"), size=distinct, replace=False)]
    word_letters = letters + [letters[int(i)] for i in rng.integers(distinct, size=length - distinct)]
    word = "".join(word_letters[int(i)] for i in rng.permutation(length))
    counts = Counter(word)
    naive = factorial(length)
    for c in counts.values():
        naive //= factorial(c)
    text = f"How many distinct arrangements of the letters of {word} are there?"
    if not restricted:
        return Problem(
            "arrangements", {"word": word}, text, naive, length, naive, lambda: _brute_words(word, False)
        )
    text = text[:-1] + " in which no two equal letters are adjacent?"
    exact, ops = _no_adjacent(tuple(sorted(counts.values())))
    return Problem(
        "arrangements",
        {"word": word, "restricted": 1},
        text,
        exact,
        ops,
        naive,
        lambda: _brute_words(word, True),
    )


def _no_adjacent(counts: tuple[int, ...]) -> tuple[int, int]:
    states = 0

    @cache
    def ways(remaining: tuple[int, ...], last: int) -> int:
        nonlocal states
        states += 1
        if not any(remaining):
            return 1
        total = 0
        for i, c in enumerate(remaining):
            if c and i != last:
                total += ways(remaining[:i] + (c - 1,) + remaining[i + 1 :], i)
        return total

    return ways(counts, -1), states


def _brute_words(word: str, restricted: bool) -> tuple[int, int]:
    seen_words = set(permutations(word))
    count = sum(not (restricted and any(a == b for a, b in zip(w, w[1:], strict=False))) for w in seen_words)
    return count, len(seen_words)


def derangements(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    n = _int(rng, 4, min(8, 4 + size // 2))
    f = _int(rng, 2, n) if restricted else 0
    naive = factorial(n)
    if not restricted:
        text = f"In how many orders can {n} different books be placed on a shelf?"
        return Problem("derangements", {"n": n}, text, naive, n, naive, lambda: _brute_fixed(n, 0))
    exact = sum((-1) ** i * comb(f, i) * factorial(n - i) for i in range(f + 1))
    text = (
        f"{n} students hand in their homework and each gets back someone's homework to grade, every "
        f"student exactly one. In how many ways can this happen if none of the first {f} students gets "
        f"their own homework back?"
    )
    return Problem("derangements", {"n": n, "f": f}, text, exact, f + 1, naive, lambda: _brute_fixed(n, f))


def _brute_fixed(n: int, f: int) -> tuple[int, int]:
    count = seen = 0
    for perm in permutations(range(n)):
        seen += 1
        count += all(perm[i] != i for i in range(f))
    return count, seen


def onto(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    k = _int(rng, 2, 3 + size // 5)
    n = _int(rng, k + 1, k + 1 + size // 2)
    while k**n > MAX_OBJECTS:
        n -= 1
    naive = k**n
    text = f"In how many ways can {n} different toys be given to {k} children (a child may get any number of toys)?"
    if not restricted:
        return Problem("onto", {"n": n, "k": k}, text, naive, 1, naive, lambda: _brute_onto(n, k, False))
    exact = sum((-1) ** i * comb(k, i) * (k - i) ** n for i in range(k + 1))
    text = (
        text[:-1].replace(" (a child may get any number of toys)", "")
        + " so that every child gets at least one toy?"
    )
    return Problem(
        "onto", {"n": n, "k": k, "restricted": 1}, text, exact, k + 1, naive, lambda: _brute_onto(n, k, True)
    )


def _brute_onto(n: int, k: int, restricted: bool) -> tuple[int, int]:
    count = seen = 0
    for assignment in product(range(k), repeat=n):
        seen += 1
        count += not restricted or len(set(assignment)) == k
    return count, seen


DRAWERS = {
    "lattice": lattice,
    "committee": committee,
    "binary": binary,
    "boxes": boxes,
    "arrangements": arrangements,
    "derangements": derangements,
    "onto": onto,
}


def draw(knobs: CombinatorialCountingKnobs, rng: np.random.Generator) -> tuple[Problem, int]:
    for _ in range(1000):
        kind = KINDS[int(rng.integers(knobs.kinds))]
        restricted = bool(rng.random() < knobs.restricted_share)
        problem = DRAWERS[kind](rng, knobs.size, restricted)
        if problem.exact < 4 or (restricted and problem.exact == problem.naive):
            continue  # degenerate: a tiny count, or a restriction that removes nothing
        count, seen = problem.brute()
        if count != problem.exact:
            raise AssertionError(f"formula {problem.exact} != enumeration {count} for {problem.params}")
        return problem, seen
    raise RuntimeError(f"could not draw a counting problem for {knobs}")


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


PROMPT = """{question}

Give the exact count as an integer, for example <answer>1260</answer>."""


@family(
    "combinatorial_counting",
    domain="arithmetic",
    knobs=CombinatorialCountingKnobs,
    levels=LEVELS,
    description="Counting problems (paths, committees, strings, boxes, words, derangements, onto maps) checked by enumeration.",
    verifier_kind="exact value",
)
class CombinatorialCounting(Family):
    def generate(self, knobs: CombinatorialCountingKnobs, rng: np.random.Generator) -> TaskDraft:
        problem, seen = draw(knobs, rng)
        metadata = {
            "kind": problem.kind,
            "params": problem.params,
            "formula_ops": problem.ops,
            "enumerated": seen,
            "naive_count": str(problem.naive),
            "canonical_hash": content_hash([problem.kind, problem.params]),
        }
        return TaskDraft(
            prompt=PROMPT.format(question=problem.text), answer=str(problem.exact), metadata=metadata
        )

    def verify(self, task: Task, response: str) -> Verdict:
        text = extract(response)
        if isinstance(text, Verdict):
            return text
        value = parse_int(text)
        if value is None:
            return Verdict.bad_format(f"could not read {text[:60]!r} as an integer")
        if str(value) == task.answer:
            return Verdict.right(parsed=value)
        return Verdict.wrong(f"{value} is not the count", parsed=value)

    def solve_exact(self, task: Task) -> SolverRun:
        # the formula/DP ran at generation (and was checked against enumeration); effort counts
        # its terms/states plus the size of the objects it reasons about
        effort = float(task.metadata["formula_ops"]) + len(task.answer)
        return SolverRun(response=f"<answer>{task.answer}</answer>", effort=effort)

    def solve_weak(self, task: Task) -> SolverRun:
        # the textbook count without the extra restriction
        return SolverRun(response=f"<answer>{task.metadata['naive_count']}</answer>", effort=1.0)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value = int(task.answer)
        wrong = {value + 1, value - 1, 2 * value, int(task.metadata["naive_count"])} - {value}
        return [f"<answer>{w}</answer>" for w in sorted(wrong)]
