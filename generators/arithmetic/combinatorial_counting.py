"""Combinatorial counting word problems with answers checked by brute-force enumeration.

Seven kinds: lattice paths (optionally avoiding points), committees with quotas (optionally a
feuding pair of men, women or both, a man or woman who must serve, a quota of men), binary
strings with a fixed number of ones (optionally forced zeros and ones, no two adjacent ones),
identical balls in numbered boxes (with per-box caps and minimums), letter arrangements (optionally no two equal letters adjacent), seatings with
refused seats (rook placements), and distributions of distinct toys with per-child bounds.
The reference answer comes from a formula or a DP (effort = its terms/states); the generator
also enumerates every object by brute force and refuses to emit a task whose two counts
disagree. Restrictions are drawn at random, which keeps duplicate tasks rare from level 3 on
(version 2 widened the committee, binary and boxes restrictions: duplicates among 2,000 tasks
were 1.5% at level 3).
Sizes stay small enough for the enumeration (at most 60,000 objects); that brute-force check is
what generation costs: level 5 runs at 70-90 tasks per CPU-second on a quiet core and level 10 at
~30 (measured/generation.json; a core shared with heavy load gives a fraction of that).
The weak solver counts by hand only small cases (<= 300 objects).
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
from palaestra.generators.arithmetic._common import MAX_INTEGER_CHARS, extract
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import read_integer

KINDS = ("lattice", "committee", "binary", "boxes", "arrangements", "seating", "onto")
MAX_OBJECTS = 60_000
WEAK_BUDGET = 300


@dataclass(frozen=True)
class CombinatorialCountingKnobs(Knobs):
    size: int = knob(1, low=1, high=10, help="scale of the objects counted")
    kinds: int = knob(3, low=1, high=len(KINDS), help=f"how many kinds are drawn from, in order {KINDS}")
    restricted_share: float = knob(0.0, low=0.0, high=1.0, help="probability of an extra restriction")


LEVELS = {
    1: CombinatorialCountingKnobs(size=1, kinds=3, restricted_share=0.0),
    2: CombinatorialCountingKnobs(size=2, kinds=4, restricted_share=0.5),
    3: CombinatorialCountingKnobs(size=3, kinds=5, restricted_share=1.0),
    4: CombinatorialCountingKnobs(size=4, kinds=6, restricted_share=1.0),
    5: CombinatorialCountingKnobs(size=5, kinds=7, restricted_share=1.0),
    6: CombinatorialCountingKnobs(size=6, kinds=7, restricted_share=1.0),
    7: CombinatorialCountingKnobs(size=7, kinds=7, restricted_share=1.0),
    8: CombinatorialCountingKnobs(size=8, kinds=7, restricted_share=1.0),
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
    while True:
        a, b = _int(rng, 3, 4 + size), _int(rng, 3, 4 + size)
        if comb(a + b, a) <= MAX_OBJECTS:
            break
    naive = comb(a + b, a)
    text = f"How many shortest paths along the grid lines go from (0, 0) to ({a}, {b}), each step moving one unit right or up?"
    blocked: list[tuple[int, int]] = []
    if restricted:
        inner = [(x, y) for x in range(a + 1) for y in range(b + 1) if (x, y) not in ((0, 0), (a, b))]
        picks = rng.choice(len(inner), size=min(len(inner), _int(rng, 2, 4)), replace=False)
        blocked = sorted(inner[int(i)] for i in picks)
        text += " The paths must avoid the point" + ("s " if len(blocked) > 1 else " ")
        text += ", ".join(f"({x}, {y})" for x, y in blocked) + "."
    grid = [[0] * (b + 1) for _ in range(a + 1)]
    for x in range(a + 1):
        for y in range(b + 1):
            if (x, y) not in blocked:
                grid[x][y] = 1 if x == y == 0 else (grid[x - 1][y] if x else 0) + (grid[x][y - 1] if y else 0)
    params = {"a": a, "b": b, "blocked": [list(p) for p in blocked]}
    return Problem(
        "lattice",
        params,
        text,
        grid[a][b],
        (a + 1) * (b + 1),
        naive,
        lambda: _brute_lattice(a, b, set(blocked)),
    )


def _brute_lattice(a: int, b: int, blocked: set[tuple[int, int]]) -> tuple[int, int]:
    count = seen = 0
    for rights in combinations(range(a + b), a):
        seen += 1
        chosen, x, y, ok = set(rights), 0, 0, True
        for step in range(a + b):
            x, y = (x + 1, y) if step in chosen else (x, y + 1)
            if (x, y) in blocked:
                ok = False
                break
        count += ok
    return count, seen


PAIRS = {"men": "mm", "women": "ww", "mixed": "mw"}  # genders of a named pair
PAIR_PEOPLE = {
    "men": "two particular men",
    "women": "two particular women",
    "mixed": "a particular man and a particular woman",
}


def _comb(n: int, k: int) -> int:
    return comb(n, k) if 0 <= k <= n else 0


def _named(conflict: str, together: str, must: str) -> str:
    """Genders of the named people, in order: feuding pair, inseparable pair, must-serve member."""
    return PAIRS.get(conflict, "") + PAIRS.get(together, "") + must[:1]


def _allowed(named: str, conflict: str, together: str, must: str, included: tuple[bool, ...]) -> bool:
    """Whether the named people ``included`` in a committee obey the restrictions."""
    i = 0
    if conflict:
        if included[0] and included[1]:
            return False
        i = 2
    if together:
        if included[i] != included[i + 1]:
            return False
        i += 2
    return not must or included[i]


def committee(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    while True:
        men, women = _int(rng, 3, 7 + size), _int(rng, 3, 7 + size)
        k = _int(rng, 3, min(men + women - 2, 6 + size // 2))
        if comb(men + women, k) <= MAX_OBJECTS:
            break
    j = _int(rng, 1, max(1, min(k, women) - 1))
    conflict = together = must = ""
    min_men = 0
    max_women = k
    if restricted:
        if k > j + 1 and rng.random() < 0.5:
            max_women = _int(rng, j + 1, k - 1)
        while not (conflict or together or must or min_men):
            # version 2: named pairs and members of either gender, and an inseparable pair
            conflict = str(rng.choice(list(PAIRS))) if rng.random() < 0.5 else ""
            together = str(rng.choice(list(PAIRS))) if rng.random() < 0.4 else ""
            must = str(rng.choice(["woman", "man"])) if rng.random() < 0.5 else ""
            min_men = _int(rng, 1, k - j) if rng.random() < 0.4 else 0
            named = _named(conflict, together, must)
            if named.count("m") > men or named.count("w") > women:
                together = ""  # not enough people to name them all
    text = f"A committee of {k} people is chosen from {men} men and {women} women. How many committees include at least {j} women"
    text += f" but at most {max_women} women" if max_women < k else ""
    text += f" and at least {min_men} men" if min_men else ""
    text += "?"
    other = ", different from those above,"
    if conflict:
        text += f" {PAIR_PEOPLE[conflict].capitalize()} refuse to serve together."
    if together:
        text += f" {PAIR_PEOPLE[together].capitalize()}{other if conflict else ''} serve only together (both or neither)."
    if must:
        text += f" One particular {must}{other if conflict or together else ''} must be on the committee."

    def count(conflict: str, together: str, must: str, min_men: int, top: int) -> int:
        # sum over the named people on the committee (those the restrictions allow), times the
        # ways to fill the other seats from the unnamed men and women
        named = _named(conflict, together, must)
        nw, nm = named.count("w"), named.count("m")
        total = 0
        for included in product((False, True), repeat=len(named)):
            if not _allowed(named, conflict, together, must, included):
                continue
            sw = sum(g == "w" for g, inc in zip(named, included, strict=True) if inc)
            sm = sum(included) - sw
            for x in range(j, min(top, women) + 1):
                y = k - x
                if y >= min_men:
                    total += _comb(women - nw, x - sw) * _comb(men - nm, y - sm)
        return total

    params = {
        "men": men,
        "women": women,
        "k": k,
        "j": j,
        "max_women": max_women,
        "conflict": conflict,
        "together": together,
        "must": must,
        "min_men": min_men,
    }
    return Problem(
        "committee",
        params,
        text,
        count(conflict, together, must, min_men, max_women),
        2 * (k - j + 1),
        count("", "", "", 0, k),
        lambda: _brute_committee(men, women, k, (j, max_women), (conflict, together, must), min_men),
    )


def _named_people(men: int, named: str) -> list[int]:
    """Indices of the named people: men are 0..men-1 and women men.. , each taken in turn."""
    next_index = {"m": 0, "w": men}
    people = []
    for gender in named:
        people.append(next_index[gender])
        next_index[gender] += 1
    return people


def _brute_committee(
    men: int, women: int, k: int, quota: tuple[int, int], rules: tuple[str, str, str], min_men: int
) -> tuple[int, int]:
    count = seen = 0
    named = _named(*rules)
    people = _named_people(men, named)
    for group in combinations(range(men + women), k):
        seen += 1
        n_women = sum(p >= men for p in group)
        ok = quota[0] <= n_women <= quota[1] and k - n_women >= min_men
        members = set(group)
        count += ok and _allowed(named, *rules, tuple(p in members for p in people))
    return count, seen


def binary(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    n = _int(rng, 6 + size // 2, min(16, 9 + size))  # version 2: the shortest lengths grow too
    t = _int(rng, 2, max(2, (n + 1) // 2))
    naive = comb(n, t)
    zeros: list[int] = []
    ones: list[int] = []
    no_adjacent = False
    if restricted:
        no_adjacent = bool(rng.random() < 0.5)
        zeros = sorted(int(i) + 1 for i in rng.choice(n, size=_int(rng, 2, min(5, n - t)), replace=False))
        if rng.random() < 0.75:  # version 2: some bits may be forced to 1 as well
            free = [i for i in range(1, n + 1) if i not in zeros]
            picks = rng.choice(len(free), size=_int(rng, 1, min(3, t - 1)), replace=False)
            ones = sorted(free[int(i)] for i in picks)
    text = f"How many binary strings of length {n} contain exactly {t} ones"
    text += " and no two adjacent ones" if no_adjacent else ""
    text += "?"
    if zeros:
        text += f" Positions are numbered 1 to {n} from the left; the bits at positions {', '.join(map(str, zeros))} must be 0"
        text += (
            f", and the bit{'s' if len(ones) > 1 else ''} at position{'s' if len(ones) > 1 else ''} {', '.join(map(str, ones))} must be 1."
            if ones
            else "."
        )
    # DP over positions: (ones so far, previous bit) -> ways
    ways = {(0, 0): 1}
    for position in range(1, n + 1):
        nxt: dict[tuple[int, int], int] = {}
        for (count, prev), w in ways.items():
            if position not in ones:
                nxt[(count, 0)] = nxt.get((count, 0), 0) + w
            if position not in zeros and count < t and not (no_adjacent and prev):
                nxt[(count + 1, 1)] = nxt.get((count + 1, 1), 0) + w
        ways = nxt
    exact = ways.get((t, 0), 0) + ways.get((t, 1), 0)
    params = {"n": n, "t": t, "zeros": zeros, "ones": ones, "no_adjacent": int(no_adjacent)}
    return Problem(
        "binary",
        params,
        text,
        exact,
        n * (t + 1),
        naive,
        lambda: _brute_binary(n, t, set(zeros), set(ones), no_adjacent),
    )


def _brute_binary(n: int, t: int, zeros: set[int], ones: set[int], no_adjacent: bool) -> tuple[int, int]:
    count = seen = 0
    for chosen in combinations(range(1, n + 1), t):
        seen += 1
        ok = not zeros.intersection(chosen) and ones.issubset(chosen)
        ok = ok and not (no_adjacent and any(b - a == 1 for a, b in zip(chosen, chosen[1:], strict=False)))
        count += ok
    return count, seen


def boxes(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    while True:
        k = _int(rng, 3, 3 + size // 3)
        n = _int(rng, k + 2, k + 6 + size)
        if comb(n + k - 1, k - 1) <= MAX_OBJECTS:
            break
    low = int(rng.integers(0, 3))
    caps = [n] * k
    mins = [low] * k
    if restricted:
        # version 2: each box on its own may get a cap and a minimum above the common one
        while caps == [n] * k and mins == [low] * k:
            for i in range(k):
                if rng.random() < 0.6:
                    caps[i] = _int(rng, low + 1, max(low + 1, n - 1))
                if rng.random() < 0.4:
                    mins[i] = min(caps[i], _int(rng, low + 1, low + 3))
    text = f"In how many ways can {n} identical balls be placed into {k} boxes numbered 1 to {k} so that every box gets at least {low} ball{'s' if low != 1 else ''}?"
    limits = [
        ", ".join(([f"at least {m}"] if m > low else []) + ([f"at most {c}"] if c < n else []))
        for m, c in zip(mins, caps, strict=True)
    ]
    limits = [f"box {i + 1} {limit}" for i, limit in enumerate(limits) if limit]
    if limits:
        text += " Moreover " + "; ".join(limits) + "."
    ways = [1] + [0] * n  # DP over boxes: ways[s] = fillings of the boxes so far with s balls
    ops = 0
    for least, cap in zip(mins, caps, strict=True):
        nxt = [0] * (n + 1)
        for s, w in enumerate(ways):
            if w:
                for x in range(least, min(cap, n - s) + 1):
                    nxt[s + x] += w
                    ops += 1
        ways = nxt
    naive = comb(n - k * low + k - 1, k - 1)
    params = {"n": n, "k": k, "low": low, "caps": caps, "mins": mins}
    return Problem("boxes", params, text, ways[n], ops, naive, lambda: _brute_boxes(n, low, mins, caps))


def _brute_boxes(n: int, low: int, mins: list[int], caps: list[int]) -> tuple[int, int]:
    """Every filling with the common minimum and the caps, kept when the box minimums hold."""
    seen = 0

    def fill(i: int, remaining: int, ok: bool) -> int:
        nonlocal seen
        if i == len(caps) - 1:
            seen += 1
            return int(ok and mins[i] <= remaining <= caps[i])
        return sum(
            fill(i + 1, remaining - x, ok and x >= mins[i]) for x in range(low, min(caps[i], remaining) + 1)
        )

    return fill(0, n, True), seen


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


def seating(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    n = _int(rng, 4, min(8, 4 + size // 2))
    naive = factorial(n)
    forbidden: list[tuple[int, int]] = []
    if restricted:
        cells = [(p, s) for p in range(1, n + 1) for s in range(1, n + 1)]
        # version 2: at least three refusals (two over four people left too few distinct tasks)
        picks = rng.choice(len(cells), size=_int(rng, 3, 2 * n), replace=False)
        forbidden = sorted(cells[int(i)] for i in picks)
    text = f"{n} people P1, ..., P{n} sit down in seats 1 to {n}, one person per seat. How many seatings are possible?"
    if forbidden:
        refusals = {}
        for p, s in forbidden:
            refusals.setdefault(p, []).append(s)
        text += (
            " "
            + "; ".join(
                f"P{p} refuses seat{'s' if len(seats) > 1 else ''} {', '.join(map(str, seats))}"
                for p, seats in refusals.items()
            )
            + "."
        )
    banned = set(forbidden)
    ways = {0: 1}  # bitmask DP: seats taken by P1..Pi -> ways
    ops = 0
    for person in range(1, n + 1):
        nxt: dict[int, int] = {}
        for mask, w in ways.items():
            for seat in range(1, n + 1):
                if not mask >> (seat - 1) & 1 and (person, seat) not in banned:
                    nxt[mask | 1 << (seat - 1)] = nxt.get(mask | 1 << (seat - 1), 0) + w
                    ops += 1
        ways = nxt
    params = {"n": n, "forbidden": [list(f) for f in forbidden]}
    return Problem(
        "seating", params, text, ways.get((1 << n) - 1, 0), ops, naive, lambda: _brute_seating(n, banned)
    )


def _brute_seating(n: int, banned: set[tuple[int, int]]) -> tuple[int, int]:
    count = seen = 0
    for perm in permutations(range(1, n + 1)):
        seen += 1
        count += all((p + 1, s) not in banned for p, s in enumerate(perm))
    return count, seen


def onto(rng: np.random.Generator, size: int, restricted: bool) -> Problem:
    # version 2: three or four children (bounds on two children left too few distinct tasks)
    k = _int(rng, 3, 4)
    n = _int(rng, k + 1, k + 2 + size)
    while k**n > MAX_OBJECTS:
        n -= 1
    naive = k**n
    lows, highs = [0] * k, [n] * k
    if restricted:
        while lows == [0] * k and highs == [n] * k:
            lows = [int(rng.integers(0, min(5, n + 1))) for _ in range(k)]
            highs = [int(rng.integers(max(lo, 1), n + 1)) if rng.random() < 0.6 else n for lo in lows]
    text = f"In how many ways can {n} different toys be shared among {k} children C1, ..., C{k} (every toy goes to exactly one child)?"
    limits = []
    for i, (lo, hi) in enumerate(zip(lows, highs, strict=True)):
        parts = ([f"at least {lo}"] if lo else []) + ([f"at most {hi}"] if hi < n else [])
        if parts:
            limits.append(
                f"C{i + 1} gets {' and '.join(parts)} toy{'s' if (hi if hi < n else lo) != 1 else ''}"
            )
    if limits:
        text += " " + "; ".join(limits) + "."
    ways = [1] + [0] * n  # DP over children: ways[s] = ways to hand out s chosen toys so far
    ops = 0
    for lo, hi in zip(lows, highs, strict=True):
        nxt = [0] * (n + 1)
        for s, w in enumerate(ways):
            for c in range(lo, min(hi, n - s) + 1):
                nxt[s + c] += w * comb(n - s, c)
                ops += 1
        ways = nxt
    params = {"n": n, "k": k, "lows": lows, "highs": highs}
    return Problem("onto", params, text, ways[n], ops, naive, lambda: _brute_onto(n, lows, highs))


def _brute_onto(n: int, lows: list[int], highs: list[int]) -> tuple[int, int]:
    count = seen = 0
    for assignment in product(range(len(lows)), repeat=n):
        seen += 1
        tally = Counter(assignment)
        count += all(lo <= tally[i] <= hi for i, (lo, hi) in enumerate(zip(lows, highs, strict=True)))
    return count, seen


DRAWERS = {
    "lattice": lattice,
    "committee": committee,
    "binary": binary,
    "boxes": boxes,
    "arrangements": arrangements,
    "seating": seating,
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
    version=2,
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
        value = read_integer(text, max_chars=MAX_INTEGER_CHARS)
        if isinstance(value, Verdict):
            return value
        if str(value) == task.answer:
            return Verdict.right(parsed=value)
        return Verdict.wrong(f"{value} is not the count", parsed=value)

    def solve_exact(self, task: Task) -> SolverRun:
        # the formula/DP ran at generation (and was checked against enumeration); effort counts
        # its terms/states plus the size of the objects it reasons about
        effort = float(task.metadata["formula_ops"]) + len(task.answer)
        return SolverRun(response=f"<answer>{task.answer}</answer>", effort=effort)

    def solve_weak(self, task: Task) -> SolverRun:
        # lists the objects by hand: only small cases, gives up above the budget
        seen = task.metadata["enumerated"]
        if seen > WEAK_BUDGET:
            return SolverRun(response=None, effort=float(WEAK_BUDGET))
        return SolverRun(response=f"<answer>{task.answer}</answer>", effort=float(seen))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value = int(task.answer)
        wrong = {value + 1, value - 1, 2 * value, int(task.metadata["naive_count"])} - {value}
        return [f"<answer>{w}</answer>" for w in sorted(wrong)]
