"""Exact probabilities of dice, urns, coins and cards, as rationals.

Seven kinds of experiment: standard dice (sums, maxima, repeated faces), urns (draws with or
without replacement; counts of a colour, all one colour, one of each, ordered draws), biased
coins with different rational biases, custom dice with listed faces, hands dealt from a
standard 52-card deck (a suit count together with a rank count), two-stage urns (balls moved
from one urn to another before a draw) and conditional probabilities on dice. The reference is
computed exactly with fractions by a dynamic programme or a sum over count vectors (never by
simulation); the tests recompute every answer by enumerating the sample space outcome by
outcome. The answer is one number, so it is unique; any exact notation of it is accepted
(``5/18``, ``\\frac{5}{18}``, ``10/36``, ``0.25``), never a rounded decimal. Events of
probability 0 or 1 are redrawn.

Difficulty: the experiments grow (more dice and faces, bigger urns, more draws, more coins)
and more kinds are drawn from, in the order above. The exact solver's effort is the number of
terms its computation sums, times the digits of the answer's denominator. The weak solver lists
the outcomes by hand when there are at most 36, and otherwise uses a shortcut that is usually
wrong: draws without replacement treated as independent, all coins given their average bias,
the transfer between urns ignored, the condition ignored.

Generation: ~2,800 tasks per CPU-second at level 5, ~2,000 at level 10 (closed forms and small
dynamic programmes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import comb, factorial, perm

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.math._common import number_near_misses, tagged, verify_number
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import format_rational

KINDS = ("standard_dice", "urn", "coins", "custom_dice", "cards", "two_urns", "conditional_dice")
COLOURS = ("red", "blue", "green", "white")
SUITS = ("hearts", "diamonds", "clubs", "spades")
RANKS = ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
HAND_BUDGET = 36  # outcomes the weak solver is willing to list by hand


@dataclass(frozen=True)
class ProbabilityKnobs(Knobs):
    size: int = knob(1, low=1, high=12, help="scale of the experiment (dice, faces, balls, draws, coins)")
    kinds: int = knob(2, low=1, high=len(KINDS), help=f"how many kinds are drawn from, in order {KINDS}")


LEVELS = {
    1: ProbabilityKnobs(size=1, kinds=2),
    2: ProbabilityKnobs(size=3, kinds=3),
    3: ProbabilityKnobs(size=5, kinds=4),
    4: ProbabilityKnobs(size=6, kinds=5),
    5: ProbabilityKnobs(size=7, kinds=6),
    6: ProbabilityKnobs(size=8, kinds=7),
    7: ProbabilityKnobs(size=9, kinds=7),
    8: ProbabilityKnobs(size=10, kinds=7),
    9: ProbabilityKnobs(size=11, kinds=7),
    10: ProbabilityKnobs(size=12, kinds=7),
}


@dataclass
class Problem:
    kind: str
    params: dict
    text: str
    exact: Fraction
    terms: int  # terms the exact computation sums
    outcomes: int  # size of the sample space (ordered outcomes)
    shortcut: Fraction | None  # the weak solver's shortcut answer, when it has one


def _int(rng: np.random.Generator, low: int, high: int) -> int:
    return int(rng.integers(low, high + 1))


def _relation(rng: np.random.Generator) -> str:
    return str(rng.choice(["exactly", "at least", "at most"]))


def count_condition(
    rng: np.random.Generator, low: int, high: int, top: int | None = None
) -> tuple[frozenset[int], str, dict]:
    """A condition on a count: "exactly j", "at least j", "at most j" for j in low..high, or
    (when ``top`` is given) "between j and t (inclusive)" with t up to ``top``. Returns the
    counts that satisfy it among 0..max(high, top), the phrase, and its parameters."""
    relations = ["exactly", "at least", "at most"] + (["between"] if top is not None else [])
    relation, j = str(rng.choice(relations)), _int(rng, low, high)
    ceiling = max(high, top or 0)
    if relation == "between":
        t = _int(rng, j + 1, max(j + 1, top or 0))
        counts = frozenset(range(j, t + 1))
        return counts, f"between {j} and {t} (inclusive)", {"relation": relation, "j": j, "top": t}
    counts = frozenset(h for h in range(ceiling + 1) if _holds(relation, h, j))
    return counts, f"{relation} {j}", {"relation": relation, "j": j}


def _holds(relation: str, value: int, target: int) -> bool:
    if relation == "exactly":
        return value == target
    return value >= target if relation == "at least" else value <= target


# --------------------------------------------------------------------------------------------
# Dice
# --------------------------------------------------------------------------------------------


def sum_counts(faces: list[list[int]]) -> tuple[dict[int, int], int]:
    """How many ordered outcomes give each total (a convolution), and the terms it took."""
    counts, terms = {0: 1}, 0
    for die in faces:
        nxt: dict[int, int] = {}
        for total, ways in counts.items():
            for face in die:
                nxt[total + face] = nxt.get(total + face, 0) + ways
                terms += 1
        counts = nxt
    return counts, terms


def _dice_names(sides: list[int]) -> str:
    words = {1: "a", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
    groups = [(n, sides.count(n)) for n in sorted(set(sides))]
    parts = [f"{words[c]} {n}-sided {'die' if c == 1 else 'dice'}" for n, c in groups]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _extreme_probability(sides: list[int], largest: bool, relation: str, k: int) -> Fraction:
    """P(max (or min) of the dice relation k), from P(every die <= x) (or >= x)."""

    def all_within(x: int) -> Fraction:  # P(max <= x), or P(min >= x)
        out = Fraction(1)
        for m in sides:
            out *= Fraction(max(0, min(x, m)), m) if largest else Fraction(max(0, m - max(x, 1) + 1), m)
        return out

    if largest:
        at_most = all_within(k)
        exactly = at_most - all_within(k - 1)
        at_least = 1 - all_within(k - 1)
    else:
        at_least = all_within(k)
        exactly = at_least - all_within(k + 1)
        at_most = 1 - all_within(k + 1)
    return {"exactly": exactly, "at least": at_least, "at most": at_most}[relation]


def standard_dice(rng: np.random.Generator, size: int) -> Problem:
    n = _int(rng, 2, max(2, min(6, 1 + size // 2)))
    sides = sorted(int(rng.choice([4, 6, 8, 10, 12, 20][: 1 + size])) for _ in range(n))
    outcomes = int(np.prod(sides))
    event = str(rng.choice(["sum", "sum", "max", "threshold"]))
    intro = f"{_dice_names(sides).capitalize()} are rolled (every die is fair and numbered from 1)."
    params: dict = {"sides": sides, "event": event}
    if event == "sum":
        counts, terms = sum_counts([list(range(1, m + 1)) for m in sides])
        lo, hi = n + 1, sum(sides) - 1
        relation = str(rng.choice(["exactly", "at least", "at most", "between"]))
        target = _int(rng, lo, hi)
        if relation == "between":
            top = _int(rng, target, hi)
            hits = sum(w for t, w in counts.items() if target <= t <= top)
            ask = f"the sum of the faces is between {target} and {top} (inclusive)"
            params.update(relation=relation, target=target, top=top)
        else:
            hits = sum(w for t, w in counts.items() if _holds(relation, t, target))
            ask = f"the sum of the faces is {relation} {target}"
            params.update(relation=relation, target=target)
        exact = Fraction(hits, outcomes)
    elif event == "max":
        # the largest (or smallest) face compared with k: products of per-die probabilities
        largest, relation, k = bool(rng.random() < 0.5), _relation(rng), _int(rng, 2, max(sides) - 1)
        exact = _extreme_probability(sides, largest, relation, k)
        ask, terms = f"the {'largest' if largest else 'smallest'} face shown is {relation} {k}", 4 * n
        params.update(largest=largest, relation=relation, k=k)
    else:
        v, upward = _int(rng, 2, min(sides) - 1), bool(rng.random() < 0.5)
        j, relation = _int(rng, 1, n), _relation(rng)
        chances = [Fraction(m - v + 1, m) if upward else Fraction(v, m) for m in sides]
        dist, terms = heads_distribution(chances)
        exact = sum((w for h, w in enumerate(dist) if _holds(relation, h, j)), Fraction(0))
        ask = f"{relation} {j} of the dice show {v} or {'more' if upward else 'less'}"
        params.update(v=v, upward=upward, j=j, relation=relation)
    text = f"{intro} What is the probability that {ask}?"
    return Problem("standard_dice", params, text, exact, terms, outcomes, None)


def _draw_faces(rng: np.random.Generator, count: int, top: int) -> list[int]:
    return sorted(int(v) for v in rng.integers(1, top + 1, size=count))


def _dice_event(
    rng: np.random.Generator, faces: list[list[int]]
) -> tuple[str, Callable[[tuple[int, ...]], bool], dict]:
    """A random event on the faces shown (``values[i]`` is die i's face)."""
    names = ["the first die", "the second die", "the third die"]
    choice = str(rng.choice(["sum", "sum", "greater", "equal", "even_product"]))
    if choice == "sum":
        lo, hi = sum(min(d) for d in faces), sum(max(d) for d in faces)
        if hi - lo < 2:
            choice = "greater"
        else:
            target, relation = _int(rng, lo + 1, hi - 1), _relation(rng)
            return (
                f"the sum of the faces shown is {relation} {target}",
                lambda v: _holds(relation, sum(v), target),
                {"event": "sum", "relation": relation, "target": target},
            )
    if choice == "greater":
        return (
            f"{names[0]} shows a larger number than {names[1]}",
            lambda v: v[0] > v[1],
            {"event": "greater"},
        )
    if choice == "equal":
        return ("all the dice show the same number", lambda v: len(set(v)) == 1, {"event": "equal"})
    return (
        "the product of the faces shown is even",
        lambda v: any(x % 2 == 0 for x in v),
        {"event": "even_product"},
    )


def _describe_dice(faces: list[list[int]]) -> str:
    ordinals = ["first", "second", "third"]
    return "; ".join(f"the {ordinals[i]} die has faces {', '.join(map(str, d))}" for i, d in enumerate(faces))


def custom_dice(rng: np.random.Generator, size: int) -> Problem:
    count = 2 if size < 7 else _int(rng, 2, 3)
    sides = int(rng.choice([4, 6] if size < 5 else [4, 6, 8]))
    faces = [_draw_faces(rng, sides, 3 + size) for _ in range(count)]
    description, event, params = _dice_event(rng, faces)
    outcomes = [v for v in product(*faces)]
    hits = sum(event(v) for v in outcomes)
    text = (
        f"{count} fair dice with numbers written on their faces are rolled ({_describe_dice(faces)}; "
        f"every face of a die is equally likely). What is the probability that {description}?"
    )
    params = {"faces": faces, **params}
    return Problem(
        "custom_dice", params, text, Fraction(hits, len(outcomes)), len(outcomes), len(outcomes), None
    )


def conditional_dice(rng: np.random.Generator, size: int) -> Problem:
    count = 2 if size < 8 else 3
    sides = int(rng.choice([4, 6, 8]))
    faces = [_draw_faces(rng, sides, 3 + size) for _ in range(count)]
    description, event, params = _dice_event(rng, faces)
    k = int(rng.choice(sorted({f for d in faces for f in d})))
    condition = f"at least one die shows a {k}"
    outcomes = list(product(*faces))
    given = [v for v in outcomes if k in v]
    hits = sum(event(v) for v in given)
    text = (
        f"{count} fair dice with numbers written on their faces are rolled ({_describe_dice(faces)}; "
        f"every face of a die is equally likely). Given that {condition}, what is the probability that {description}?"
    )
    shortcut = Fraction(sum(event(v) for v in outcomes), len(outcomes))  # the condition ignored
    params = {"faces": faces, "given_face": k, **params}
    exact = Fraction(hits, len(given)) if given else Fraction(0)
    return Problem("conditional_dice", params, text, exact, 2 * len(outcomes), len(outcomes), shortcut)


# --------------------------------------------------------------------------------------------
# Urns
# --------------------------------------------------------------------------------------------


def compositions(total: int, caps: list[int]) -> list[tuple[int, ...]]:
    """Every way to write ``total`` as a sum of parts, part i at most caps[i]."""
    if not caps:
        return [()] if total == 0 else []
    return [
        (first, *rest)
        for first in range(min(total, caps[0]) + 1)
        for rest in compositions(total - first, caps[1:])
    ]


def draw_distribution(
    counts: list[int], k: int, replacement: bool
) -> tuple[dict[tuple[int, ...], Fraction], int]:
    """The probability of each colour-count vector among ``k`` draws, and the terms summed."""
    total = sum(counts)
    out: dict[tuple[int, ...], Fraction] = {}
    caps = [k] * len(counts) if replacement else counts
    for parts in compositions(k, caps):
        if replacement:
            ways = factorial(k)
            for part in parts:
                ways //= factorial(part)
            weight = Fraction(ways)
            for part, count in zip(parts, counts, strict=True):
                weight *= Fraction(count, total) ** part
        else:
            ways = 1
            for part, count in zip(parts, counts, strict=True):
                ways *= comb(count, part)
            weight = Fraction(ways, comb(total, k))
        if weight:
            out[parts] = weight
    return out, len(out) * len(counts)


def _ordered_draws(total: int, k: int, replacement: bool) -> int:
    return total**k if replacement else perm(total, k)


def _urn_text(counts: list[int]) -> str:
    return ", ".join(f"{c} {COLOURS[i]}" for i, c in enumerate(counts)) + " balls"


def urn(rng: np.random.Generator, size: int) -> Problem:
    colours = _int(rng, 2, min(4, 2 + size // 2))
    counts = [_int(rng, 2 if i == 0 else 1, 6 + size) for i in range(colours)]  # at least 3 balls
    total = sum(counts)
    replacement = bool(rng.random() < 0.3)
    k = _int(rng, 2, min(2 + size // 2, total - 1))
    how = (
        "with replacement (each ball is put back before the next draw)"
        if replacement
        else "without replacement"
    )
    intro = f"An urn holds {_urn_text(counts)}. {k} balls are drawn at random, {how}."
    event = str(rng.choice(["count", "count", "same", "each", "ordered"]))
    if event in ("same", "each") and (colours < 3 or k < colours and event == "each"):
        event = "count"  # two colours leave too few distinct questions of these shapes
    distribution, terms = draw_distribution(counts, k, replacement)
    independent, _ = draw_distribution(counts, k, True)
    if event == "ordered":
        first, second = int(rng.integers(colours)), int(rng.integers(colours))
        same = int(first == second and not replacement)
        exact = Fraction(counts[first], total) * Fraction(
            counts[second] - same, total - (0 if replacement else 1)
        )
        shortcut = Fraction(counts[first] * counts[second], total * total)
        text = f"{intro} What is the probability that the first ball drawn is {COLOURS[first]} and the second is {COLOURS[second]}?"
        params = {
            "counts": counts,
            "k": k,
            "replacement": replacement,
            "event": event,
            "first": first,
            "second": second,
        }
        return Problem("urn", params, text, exact, 4, _ordered_draws(total, k, replacement), shortcut)
    colour = int(rng.integers(colours))
    if event == "count":
        wanted, phrase, extra = count_condition(rng, 1, k, top=k)
        ask = f"{phrase} of the balls drawn are {COLOURS[colour]}"
        extra["colour"] = colour
    elif event == "same":
        ask, extra = "all the balls drawn have the same colour", {}
    else:
        ask, extra = "at least one ball of every colour is drawn", {}

    def test(parts: tuple[int, ...]) -> bool:
        if event == "count":
            return parts[colour] in wanted
        return max(parts) == k if event == "same" else min(parts) >= 1

    exact = sum((w for parts, w in distribution.items() if test(parts)), Fraction(0))
    shortcut = sum((w for parts, w in independent.items() if test(parts)), Fraction(0))
    text = f"{intro} What is the probability that {ask}?"
    params = {"counts": counts, "k": k, "replacement": replacement, "event": event, **extra}
    return Problem("urn", params, text, exact, terms, _ordered_draws(total, k, replacement), shortcut)


def two_urns(rng: np.random.Generator, size: int) -> Problem:
    colours = 2 if size < 7 else 3
    first = [_int(rng, 1, 3 + size) for _ in range(colours)]
    second = [_int(rng, 1, 3 + size) for _ in range(colours)]
    moved = _int(rng, 1, min(sum(first) - 1, 1 + size // 3))
    colour = int(rng.integers(colours))
    distribution, terms = draw_distribution(first, moved, False)
    exact = sum(
        (
            w * Fraction(second[colour] + parts[colour], sum(second) + moved)
            for parts, w in distribution.items()
        ),
        Fraction(0),
    )
    text = (
        f"Urn A holds {_urn_text(first)}; urn B holds {_urn_text(second)}. {moved} "
        f"{'ball is' if moved == 1 else 'balls are'} drawn at random from urn A (without replacement) and put into urn B. "
        f"Then one ball is drawn at random from urn B. What is the probability that it is {COLOURS[colour]}?"
    )
    params = {"first": first, "second": second, "moved": moved, "colour": colour}
    outcomes = perm(sum(first), moved) * (sum(second) + moved)
    shortcut = Fraction(second[colour], sum(second))  # the transfer ignored
    return Problem("two_urns", params, text, exact, terms + len(distribution), outcomes, shortcut)


# --------------------------------------------------------------------------------------------
# Coins and cards
# --------------------------------------------------------------------------------------------


def heads_distribution(biases: list[Fraction]) -> tuple[list[Fraction], int]:
    """P(exactly h heads) for h = 0..n by a dynamic programme over the coins, and its terms."""
    dist, terms = [Fraction(1)], 0
    for p in biases:
        nxt = [Fraction(0)] * (len(dist) + 1)
        for h, w in enumerate(dist):
            nxt[h] += w * (1 - p)
            nxt[h + 1] += w * p
            terms += 2
        dist = nxt
    return dist, terms


def coins(rng: np.random.Generator, size: int) -> Problem:
    n = _int(rng, 2 if size < 3 else 3, min(10, 3 + size // 2))
    biases = []
    for _ in range(n):
        q = _int(rng, 2, 6 + size)
        biases.append(Fraction(_int(rng, 1, q - 1), q))
    dist, terms = heads_distribution(biases)
    event = str(rng.choice(["count", "count", "count", "more_heads", "even"]))
    if event == "count":
        wanted, phrase, extra = count_condition(rng, 1, n - 1, top=n)
        ask = f"{phrase} of the coins land heads"
    elif event == "more_heads":
        wanted, ask, extra = (
            frozenset(h for h in range(n + 1) if 2 * h > n),
            "more coins land heads than tails",
            {},
        )
    else:
        wanted = frozenset(range(0, n + 1, 2))
        ask, extra = "an even number of coins land heads (zero counts as even)", {}

    def test(h: int) -> bool:
        return h in wanted

    exact = sum((w for h, w in enumerate(dist) if test(h)), Fraction(0))
    average = sum(biases, Fraction(0)) / n
    same, _ = heads_distribution([average] * n)
    shortcut = sum(
        (w for h, w in enumerate(same) if test(h)), Fraction(0)
    )  # every coin given the average bias
    listed = "; ".join(
        f"coin {i + 1} lands heads with probability {format_rational(p)}" for i, p in enumerate(biases)
    )
    text = f"{n} coins are tossed once each, independently ({listed}). What is the probability that {ask}?"
    params = {"biases": [format_rational(p) for p in biases], "event": event, **extra}
    return Problem("coins", params, text, exact, terms, 2**n, shortcut)


def _card_word(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def cards(rng: np.random.Generator, size: int) -> Problem:
    k = _int(rng, 2, min(7, 2 + size // 2))
    suit, rank = int(rng.integers(4)), int(rng.integers(13))
    j, suit_relation = _int(rng, 0 if size > 4 else 1, k), _relation(rng)
    m, rank_relation = _int(rng, 0 if size > 4 else 1, min(k, 4)), _relation(rng)
    # four kinds of card: the suit's card of the rank (1), other cards of the suit (12),
    # other cards of the rank (3), the rest (36)
    total, terms = 0, 0
    for a, b, c, d in compositions(k, [1, 12, 3, 36]):
        terms += 1
        if _holds(suit_relation, a + b, j) and _holds(rank_relation, a + c, m):
            total += comb(1, a) * comb(12, b) * comb(3, c) * comb(36, d)
    exact = Fraction(total, comb(52, k))
    shortcut = Fraction(0)  # each card taken as an independent draw from a full deck
    for a, b, c, d in compositions(k, [k] * 4):
        if _holds(suit_relation, a + b, j) and _holds(rank_relation, a + c, m):
            ways = factorial(k) // (factorial(a) * factorial(b) * factorial(c) * factorial(d))
            shortcut += (
                ways
                * Fraction(1, 52) ** a
                * Fraction(12, 52) ** b
                * Fraction(3, 52) ** c
                * Fraction(36, 52) ** d
            )
    text = (
        f"{k} cards are dealt at random from a well-shuffled standard 52-card deck (4 suits of 13 ranks: "
        f"ace, 2 to 10, jack, queen, king). What is the probability that the hand contains "
        f"{suit_relation} {_card_word(j, SUITS[suit][:-1])} and {rank_relation} {_card_word(m, RANKS[rank])}?"
    )
    params = {
        "k": k,
        "suit": suit,
        "rank": rank,
        "j": j,
        "suit_relation": suit_relation,
        "m": m,
        "rank_relation": rank_relation,
    }
    return Problem("cards", params, text, exact, terms * 4, 52**k, shortcut)


DRAWERS = {
    "standard_dice": standard_dice,
    "urn": urn,
    "coins": coins,
    "custom_dice": custom_dice,
    "cards": cards,
    "two_urns": two_urns,
    "conditional_dice": conditional_dice,
}


def draw(knobs: ProbabilityKnobs, rng: np.random.Generator) -> Problem:
    for _ in range(1000):
        problem = DRAWERS[KINDS[int(rng.integers(knobs.kinds))]](rng, knobs.size)
        if 0 < problem.exact < 1:
            return problem
    raise RuntimeError(f"could not draw a probability problem for {knobs}")  # pragma: no cover


def canonical(problem: Problem) -> list:
    """The question up to what does not change it: the order of dice whose event is symmetric."""
    params = dict(problem.params)
    if "faces" in params and params.get("event") in ("sum", "equal", "even_product"):
        params["faces"] = sorted(params["faces"])
    if problem.kind == "urn" and params["event"] in ("same", "each"):  # the colours' names do not matter
        params["counts"] = sorted(params["counts"])
    if "biases" in params:  # the coins' order never matters
        params["biases"] = sorted(params["biases"], key=Fraction)
    return [problem.kind, params]


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """{question}

Give the exact probability as a fraction (for example 5/18) or an exact decimal; no rounding. Put the final answer in <answer>...</answer>."""


@family(
    "probability",
    domain="math",
    knobs=ProbabilityKnobs,
    levels=LEVELS,
    description="Exact probabilities of dice, urns, coins, cards, two-stage urns and conditional events, as rationals.",
    verifier_kind="exact value",
)
class Probability(Family):
    def generate(self, knobs: ProbabilityKnobs, rng: np.random.Generator) -> TaskDraft:
        problem = draw(knobs, rng)
        metadata = {
            "kind": problem.kind,
            "params": problem.params,
            "outcomes": problem.outcomes,
            "terms": problem.terms,
            "shortcut": None if problem.shortcut is None else format_rational(problem.shortcut),
            "canonical_hash": content_hash(canonical(problem)),
        }
        answer = format_rational(problem.exact)
        return TaskDraft(prompt=PROMPT.format(question=problem.text), answer=answer, metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        return verify_number(response, Fraction(task.answer), "the probability")

    def solve_exact(self, task: Task) -> SolverRun:
        # the generator's exact sum; effort = its terms times the digits of the denominator
        digits = len(str(Fraction(task.answer).denominator))
        return SolverRun(response=tagged(task.answer), effort=float(task.metadata["terms"] * digits))

    def solve_weak(self, task: Task) -> SolverRun:
        # lists small sample spaces by hand; otherwise a shortcut (or gives up without one)
        if task.metadata["outcomes"] <= HAND_BUDGET:
            return SolverRun(response=tagged(task.answer), effort=float(task.metadata["outcomes"]))
        shortcut = task.metadata["shortcut"]
        return SolverRun(response=None if shortcut is None else tagged(shortcut), effort=float(HAND_BUDGET))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value = Fraction(task.answer)
        wrong = [1 - value, value / 2, value + Fraction(1, value.denominator + 1)]
        if task.metadata["shortcut"] is not None:
            wrong.append(Fraction(task.metadata["shortcut"]))
        wrong += number_near_misses(value)
        return [tagged(format_rational(w)) for w in dict.fromkeys(wrong) if w != value]
