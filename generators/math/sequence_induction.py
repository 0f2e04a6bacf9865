"""Continue an integer sequence whose rule comes from a stated class; graded on held-out terms.

The prompt names the class of the rule (an arithmetic or geometric sequence, a polynomial in n
of degree at most d, "p times the previous term plus q", two interleaved arithmetic sequences,
or a linear recurrence of order at most k with integer coefficients), shows a prefix, and asks
for the next few terms. The generator proves that the prefix determines the continuation within
the class: it fits the class to the shown terms by exact linear algebra over the rationals and
keeps the instance only if the fit is unique (a nonsingular system: d + 1 points for a
polynomial, and at least d + 2 shown; a nonsingular k x k Hankel system for a recurrence, with
2k + 1 shown; a nonzero first difference for "p times plus q") and reproduces every shown term.
So every rule of the class that agrees with the prefix gives the same held-out terms, and the
verifier compares them exactly, in order.

Difficulty: richer classes (in the order arithmetic, geometric, quadratic, affine, interleaved,
cubic, order-2 recurrence, quartic, order-3 recurrence), larger coefficients, more terms asked.
The exact solver's effort counts the operations of its elimination times the digits of the
terms. The weak solver is the usual pattern guesser: a constant difference, else a constant
ratio, else constant second differences; it fails on every richer class.

Generation: ~3,500 tasks per CPU-second at level 5 and ~2,300 at level 10.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.math._common import answer_text, read_number_list, tagged
from palaestra.registry import Family, SolverRun, TaskDraft, family

CLASSES = (
    "arithmetic",
    "geometric",
    "quadratic",
    "affine",
    "interleaved",
    "cubic",
    "recurrence2",
    "quartic",
    "recurrence3",
)
DEGREE = {"quadratic": 2, "cubic": 3, "quartic": 4}
ORDER = {"recurrence2": 2, "recurrence3": 3}
DESCRIPTION = {
    "arithmetic": "an arithmetic sequence (each term is the previous one plus a fixed integer)",
    "geometric": "a geometric sequence (each term is the previous one times a fixed nonzero integer)",
    "affine": "each term after the first is p times the previous term plus q, for fixed integers p and q",
    "interleaved": "the terms in odd positions (1st, 3rd, 5th, ...) form one arithmetic sequence and the terms in even positions form another",
}
MAX_TERM_DIGITS = 30


def describe(name: str) -> str:
    if name in DEGREE:
        return f"the n-th term is a polynomial in n of degree at most {DEGREE[name]} (n = 1, 2, 3, ...)"
    if name in ORDER:
        k = ORDER[name]
        places = ", ".join(
            f"c{i} times the term {i} place{'s' if i > 1 else ''} back" for i in range(1, k + 1)
        )
        names = ", ".join(f"c{i}" for i in range(1, k + 1))
        return (
            f"from term number {k + 1} on, each term is {places}, added together, for fixed integers {names}"
        )
    return DESCRIPTION[name]


@dataclass(frozen=True)
class SequenceInductionKnobs(Knobs):
    classes: int = knob(
        2, low=1, high=len(CLASSES), help=f"classes are drawn up to this one, in order {CLASSES}"
    )
    first_class: int = knob(1, low=1, high=len(CLASSES), help="classes are drawn from this one on")
    size: int = knob(10, low=3, high=1_000, help="scale of the starting values and coefficients")
    asked: int = knob(2, low=1, high=6, help="the most terms asked for")


LEVELS = {
    1: SequenceInductionKnobs(classes=2, size=10, asked=2),
    2: SequenceInductionKnobs(classes=3, size=20, asked=2),
    3: SequenceInductionKnobs(classes=4, size=40, asked=3),
    4: SequenceInductionKnobs(classes=5, size=60, asked=3),
    5: SequenceInductionKnobs(classes=6, size=80, asked=3, first_class=2),
    6: SequenceInductionKnobs(classes=7, size=100, asked=4, first_class=2),
    7: SequenceInductionKnobs(classes=8, size=150, asked=4, first_class=3),
    8: SequenceInductionKnobs(classes=9, size=200, asked=4, first_class=4),
    9: SequenceInductionKnobs(classes=9, size=400, asked=5, first_class=5),
    10: SequenceInductionKnobs(classes=9, size=1_000, asked=6, first_class=6),
}


# --------------------------------------------------------------------------------------------
# Exact linear algebra over the rationals
# --------------------------------------------------------------------------------------------


def solve(matrix: list[list[Fraction]], rhs: list[Fraction]) -> tuple[list[Fraction] | None, int]:
    """The unique solution of a square system by Gaussian elimination (None when singular), and
    the operations it took."""
    n = len(matrix)
    rows = [list(row) + [b] for row, b in zip(matrix, rhs, strict=True)]
    ops = 0
    for col in range(n):
        pivot = next((r for r in range(col, n) if rows[r][col] != 0), None)
        if pivot is None:
            return None, ops
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
                ops += n + 1
    return [rows[i][n] / rows[i][i] for i in range(n)], ops


# --------------------------------------------------------------------------------------------
# Fitting a class to the shown terms: the continuation, or None when the prefix does not
# determine one rule (the generator then redraws)
# --------------------------------------------------------------------------------------------

Continuation = Callable[[int], list[Fraction]]


def fit(name: str, terms: list[int]) -> tuple[Continuation | None, int]:
    """The continuation the class forces on ``terms`` (a function of how many more terms), or
    None when the shown terms admit no rule or more than one; with the operations taken."""
    values = [Fraction(t) for t in terms]
    if name == "arithmetic":
        return fit_polynomial(values, 1)
    if name in DEGREE:
        return fit_polynomial(values, DEGREE[name])
    if name == "geometric":
        return fit_recurrence(values, 1, integer=True)
    if name in ORDER:
        return fit_recurrence(values, ORDER[name], integer=True)
    if name == "affine":
        return fit_affine(values)
    return fit_interleaved(values)


def fit_polynomial(values: list[Fraction], degree: int) -> tuple[Continuation | None, int]:
    if len(values) < degree + 2:  # d + 1 points fix the polynomial; one more confirms the class
        return None, 0
    points = range(1, degree + 2)
    matrix = [[Fraction(n) ** j for j in range(degree + 1)] for n in points]
    coefficients, ops = solve(matrix, values[: degree + 1])
    if coefficients is None:
        return None, ops

    def at(n: int) -> Fraction:
        return sum((c * Fraction(n) ** j for j, c in enumerate(coefficients)), Fraction(0))

    if any(at(i + 1) != v for i, v in enumerate(values)):
        return None, ops
    shown = len(values)
    return (lambda more: [at(shown + i + 1) for i in range(more)]), ops + len(values) * (degree + 1)


def fit_recurrence(values: list[Fraction], order: int, integer: bool) -> tuple[Continuation | None, int]:
    """a_n = c1 a_{n-1} + ... + ck a_{n-k}: unique when the k x k system on the first 2k terms is
    nonsingular; a recurrence of lower order is the same with zero coefficients."""
    if len(values) < 2 * order + (0 if order == 1 else 1):
        return None, 0
    matrix = [[values[i + order - j] for j in range(1, order + 1)] for i in range(order)]
    rhs = [values[i + order] for i in range(order)]
    coefficients, ops = solve(matrix, rhs)
    if coefficients is None or (integer and any(c.denominator != 1 for c in coefficients)):
        return None, ops

    def extend(seq: list[Fraction], more: int) -> list[Fraction]:
        seq = list(seq)
        for _ in range(more):
            seq.append(sum((c * seq[-j] for j, c in enumerate(coefficients, start=1)), Fraction(0)))
        return seq

    predicted = extend(values[:order], len(values) - order)
    if predicted != values:
        return None, ops
    return (lambda more: extend(values, more)[len(values) :]), ops + len(values) * order


def fit_affine(values: list[Fraction]) -> tuple[Continuation | None, int]:
    if len(values) < 4 or values[1] == values[0]:
        return None, 0
    p = (values[2] - values[1]) / (values[1] - values[0])
    q = values[1] - p * values[0]
    if p.denominator != 1 or q.denominator != 1:
        return None, 4
    for a, b in zip(values, values[1:], strict=False):
        if b != p * a + q:
            return None, 4

    def more_terms(more: int) -> list[Fraction]:
        out, last = [], values[-1]
        for _ in range(more):
            last = p * last + q
            out.append(last)
        return out

    return more_terms, 4 + 2 * len(values)


def fit_interleaved(values: list[Fraction]) -> tuple[Continuation | None, int]:
    if len(values) < 6:
        return None, 0
    odd, even = values[0::2], values[1::2]
    fits = [fit_polynomial(part, 1) for part in (odd, even)]
    if any(f is None for f, _ in fits):
        return None, sum(o for _, o in fits)

    def more_terms(more: int) -> list[Fraction]:
        parts = [fits[0][0](more), fits[1][0](more)]  # type: ignore[misc]
        out, counters = [], [0, 0]
        for position in range(len(values), len(values) + more):
            side = position % 2  # position 0 is the 1st term (odd)
            out.append(parts[side][counters[side]])
            counters[side] += 1
        return out

    return more_terms, sum(o for _, o in fits)


# --------------------------------------------------------------------------------------------
# Drawing a sequence of a class
# --------------------------------------------------------------------------------------------


def _int(rng: np.random.Generator, low: int, high: int) -> int:
    return int(rng.integers(low, high + 1))


def _nonzero(rng: np.random.Generator, bound: int) -> int:
    value = _int(rng, 1, bound)
    return value if rng.random() < 0.5 else -value


def draw_terms(name: str, rng: np.random.Generator, size: int, count: int) -> list[int]:
    """``count`` terms of a random rule of the class."""
    if name == "arithmetic" or name in DEGREE:
        degree = DEGREE.get(name, 1)
        coefficients = [_int(rng, -5 * size, 5 * size)] + [
            _nonzero(rng, max(2, size // j)) for j in range(1, degree + 1)
        ]
        return [sum(c * n**j for j, c in enumerate(coefficients)) for n in range(1, count + 1)]
    if name == "geometric":
        ratio = _nonzero(rng, 2 + size // 10) if rng.random() < 0.8 else _nonzero(rng, 9)
        if abs(ratio) == 1:
            ratio *= 2
        first = _nonzero(rng, 20 * size)
        return [first * ratio**i for i in range(count)]
    if name == "affine":
        p = _nonzero(rng, 3 + size // 100)
        if p == 1:
            p = 2
        q, first = _nonzero(rng, size), _int(rng, -size, size)
        terms = [first]
        while len(terms) < count:
            terms.append(p * terms[-1] + q)
        return terms
    if name == "interleaved":
        starts = [_int(rng, -size, size) for _ in range(2)]
        steps = [_nonzero(rng, max(2, size // 4)) for _ in range(2)]
        return [starts[i % 2] + steps[i % 2] * (i // 2) for i in range(count)]
    order = ORDER[name]
    coefficients = [_nonzero(rng, 3) for _ in range(order)]
    terms = [_int(rng, -size // 4, size // 4) for _ in range(order)]
    while len(terms) < count:
        terms.append(sum(c * terms[-j] for j, c in enumerate(coefficients, start=1)))
    return terms


def shown_count(name: str, rng: np.random.Generator) -> int:
    """The terms shown: the minimum that pins the class down, plus up to two more."""
    minimum = {"arithmetic": 3, "geometric": 3, "affine": 4, "interleaved": 6}.get(name)
    if minimum is None:
        minimum = DEGREE[name] + 2 if name in DEGREE else 2 * ORDER[name] + 1
    return minimum + _int(rng, 0, 2)


def pattern_guess(terms: list[int], more: int) -> list[int]:
    """The weak solver: a constant difference, else a constant ratio, else constant second
    differences."""
    diffs = [b - a for a, b in zip(terms, terms[1:], strict=False)]
    if len(set(diffs)) == 1:
        return [terms[-1] + diffs[0] * (i + 1) for i in range(more)]
    if 0 not in terms and len({Fraction(b, a) for a, b in zip(terms, terms[1:], strict=False)}) == 1:
        ratio = Fraction(terms[1], terms[0])
        return [int(terms[-1] * ratio ** (i + 1)) for i in range(more)]
    second = diffs[-1] - diffs[-2]
    out, last, step = [], terms[-1], diffs[-1]
    for _ in range(more):
        step += second
        last += step
        out.append(last)
    return out


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """The integer sequence below follows a rule of this kind: {description}. The terms shown determine the rule.

Terms: {terms}, ...

What are the next {asked} terms? Give them in order, separated by commas, without thousands separators (for example <answer>{example}</answer>)."""


@family(
    "sequence_induction",
    domain="math",
    knobs=SequenceInductionKnobs,
    levels=LEVELS,
    description="Continue an integer sequence whose rule comes from a stated class (polynomials, recurrences, interleavings); the prefix provably determines the held-out terms.",
    verifier_kind="exact value",
)
class SequenceInduction(Family):
    def generate(self, knobs: SequenceInductionKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(1000):
            name = CLASSES[int(rng.integers(min(knobs.first_class, knobs.classes) - 1, knobs.classes))]
            count = shown_count(name, rng)
            asked = _int(rng, 1 if knobs.asked == 1 else 2, knobs.asked)
            terms = draw_terms(name, rng, knobs.size, count + asked)
            shown, hidden = terms[:count], terms[count:]
            if max(len(str(abs(t))) for t in terms) > MAX_TERM_DIGITS or len(set(shown)) < 3:
                continue
            continuation, ops = fit(name, shown)
            if continuation is None:
                continue  # the prefix does not pin one rule down: redraw
            if [int(v) for v in continuation(asked)] != hidden:
                raise AssertionError(f"the fitted {name} rule disagrees with the drawn one: {terms}")
            break
        else:  # pragma: no cover - a determined prefix comes within a few draws
            raise RuntimeError(f"could not draw a determined sequence for {knobs}")
        digits = max(len(str(abs(t))) for t in terms)
        example = ", ".join(str(v) for v in range(11, 11 + asked))
        prompt = PROMPT.format(
            description=describe(name), terms=", ".join(map(str, shown)), asked=asked, example=example
        )
        metadata = {
            "rule_class": name,
            "shown": [str(t) for t in shown],
            "asked": asked,
            "effort": ops * digits,
            "pattern_guess": [str(t) for t in pattern_guess(shown, asked)],
            "canonical_hash": content_hash([name, shown, asked]),
        }
        return TaskDraft(prompt=prompt, answer=", ".join(map(str, hidden)), metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, one_line=False)  # the terms asked for: a list
        if isinstance(text, Verdict):
            return text
        asked = task.metadata["asked"]
        values = read_number_list(text, asked)
        if isinstance(values, Verdict):
            return values
        expected = [Fraction(v) for v in task.answer.split(", ")]
        shown = ", ".join(str(v) if v.denominator > 1 else str(v.numerator) for v in values)
        wrong = [i + 1 for i, (a, b) in enumerate(zip(values, expected, strict=True)) if a != b]
        if not wrong:
            return Verdict.right(parsed=shown)
        return Verdict.wrong(f"term {wrong[0]} of the {asked} asked is wrong", parsed=shown)

    def solve_exact(self, task: Task) -> SolverRun:
        # the exact fit of the stated class; effort = elimination operations times term digits
        return SolverRun(response=tagged(task.answer), effort=float(task.metadata["effort"]))

    def solve_weak(self, task: Task) -> SolverRun:
        # a constant difference, else a constant ratio, else constant second differences
        return SolverRun(
            response=tagged(", ".join(task.metadata["pattern_guess"])),
            effort=float(len(task.metadata["shown"])),
        )

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        values = [int(v) for v in task.answer.split(", ")]
        wrong = [
            values[:-1] + [values[-1] + 1],
            [values[0] - 1] + values[1:],
            values[::-1] if len(set(values)) > 1 else [v + 2 for v in values],
            [int(v) for v in task.metadata["pattern_guess"]],
            values[:-1] + [values[-1] * 2 + 1],
        ]
        out = [tagged(", ".join(map(str, w))) for w in wrong if w != values]
        if len(values) > 1:
            out.append(tagged(", ".join(map(str, values[:-1]))))  # a term missing
        return list(dict.fromkeys(out))
