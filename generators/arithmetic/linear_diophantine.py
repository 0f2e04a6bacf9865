"""Linear Diophantine equations a*x + b*y = c over the integers.

Three kinds of question: any one integer solution (many answers, checked by substitution), the
general solution ``x = x0 + p*t, y = y0 + q*t`` (checked: the particular solution substitutes,
``a*p + b*q = 0``, and ``(p, q) = +-(b/g, -a/g)`` so that every solution is covered), and the
unique solution in positive integers with the smallest x. When gcd(a, b) does not divide c (or
no positive solution exists) the answer is "no solution". The reference solver is the extended
Euclidean algorithm (effort = its steps); the weak solver tries small x only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.arithmetic._common import extract, is_no_solution
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import read_integer, unwrap_math

MODES = ("particular", "general", "positive")
NO_SOLUTION = "no solution"
WEAK_BUDGET = 300
_NUMBER = r"[+\-\u2212]?\s*[0-9]+(?:\.[0-9]+)?"
_PAIR = re.compile(
    rf"(?:\(?\s*(?P<x1>{_NUMBER})\s*,\s*(?P<y1>{_NUMBER})\s*\)?|"
    rf"x\s*=\s*(?P<x2>{_NUMBER})\s*(?:,|;|\band\b)?\s*y\s*=\s*(?P<y2>{_NUMBER})|"
    # each value carries its name, so the other order is the same answer (as in the general mode)
    rf"y\s*=\s*(?P<y3>{_NUMBER})\s*(?:,|;|\band\b)?\s*x\s*=\s*(?P<x3>{_NUMBER}))",
    re.IGNORECASE,
)
_TERM = re.compile(r"([+-])([0-9]*)\*?([a-wz]?)")  # a parameter is any letter but x and y
_SIDES_SPLIT = re.compile(r",|;|\band\b|\n", re.IGNORECASE)  # parts are stripped: no \s* (quadratic)
_SIDE = re.compile(r"([xy])\s*=\s*(.+)", re.IGNORECASE | re.DOTALL)
_QUALIFIER_START = re.compile(r"\b(?:where|for|with)\b|[,;]\s*[a-wz]\s*(?:∈|\\in\b)", re.IGNORECASE)
_LATEX_SPACE = re.compile(r"\\[;,!: ]|\\q?quad\b")
# "where t is an integer" (or "any integer"), "for all integers t", "for any integer t", "t ∈ ℤ",
# "t \in \mathbb{Z}"
_QUALIFIER = re.compile(
    r"[,;]?\s*(?:(?:where|for|with)\s+(?:(?:all|any|every|each|some|an?)\s+)?(?:(?:arbitrary\s+)?integers?\s+)?)?"
    r"(?P<param>[a-wz])\s*(?:(?:∈|\\in|in)\s*(?:\\mathbb\s*\{\s*Z\s*\}|\\mathbb\s*Z|ℤ|Z|the\s+integers)"
    r"|is\s+(?:an?\s+|any\s+)?(?:arbitrary\s+)?integer)?\s*",  # "t is an integer", "t is any integer"
    re.IGNORECASE,
)


@dataclass(frozen=True)
class LinearDiophantineKnobs(Knobs):
    mode: str = knob("particular", choices=(*MODES, "mixed"), help="which solution is asked for")
    digits: int = knob(1, low=1, high=12, help="digits of the coefficients a and b")
    negatives: bool = knob(False, help="allow negative coefficients (not in 'positive' mode)")
    unsolvable_share: float = knob(
        0.0, low=0.0, high=1.0, help="probability that gcd(a, b) does not divide c"
    )


LEVELS = {
    1: LinearDiophantineKnobs(mode="particular", digits=1),
    2: LinearDiophantineKnobs(mode="particular", digits=2),
    3: LinearDiophantineKnobs(mode="general", digits=2),
    4: LinearDiophantineKnobs(mode="positive", digits=2, unsolvable_share=0.15),
    5: LinearDiophantineKnobs(mode="mixed", digits=3, unsolvable_share=0.15),
    6: LinearDiophantineKnobs(mode="mixed", digits=3, negatives=True, unsolvable_share=0.2),
    7: LinearDiophantineKnobs(mode="mixed", digits=4, negatives=True, unsolvable_share=0.2),
    8: LinearDiophantineKnobs(mode="mixed", digits=5, negatives=True, unsolvable_share=0.2),
    9: LinearDiophantineKnobs(mode="mixed", digits=7, negatives=True, unsolvable_share=0.2),
    10: LinearDiophantineKnobs(mode="mixed", digits=9, negatives=True, unsolvable_share=0.2),
}


# --------------------------------------------------------------------------------------------
# Exact solver
# --------------------------------------------------------------------------------------------


def extended_gcd(a: int, b: int) -> tuple[int, int, int, int]:
    """(g, s, t, steps) with s*a + t*b = g = gcd(|a|, |b|) >= 0."""
    old_r, r, old_s, s, old_t, t, steps = a, b, 1, 0, 0, 1, 0
    while r:
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_s, s = s, old_s - q * s
        old_t, t = t, old_t - q * t
        steps += 1
    if old_r < 0:
        old_r, old_s, old_t = -old_r, -old_s, -old_t
    return old_r, old_s, old_t, steps


def solve_equation(a: int, b: int, c: int, mode: str) -> tuple[dict[str, int] | None, int]:
    """The answer's numbers ({x, y} or {x0, p, y0, q}) or None, and the Euclid steps spent."""
    g, s, t, steps = extended_gcd(a, b)
    if c % g:
        return None, steps
    x0, y0, p, q = s * (c // g), t * (c // g), b // g, -a // g
    if mode == "particular":
        return {"x": x0, "y": y0}, steps
    if mode == "general":
        return {"x0": x0, "p": p, "y0": y0, "q": q}, steps
    # positive: the smallest x >= 1 on the solution line, then its y must be positive too
    period = abs(p)
    x = (x0 - 1) % period + 1
    y = (c - a * x) // b
    return ({"x": x, "y": y} if y > 0 else None), steps + 1


def format_answer(mode: str, numbers: dict[str, int] | None) -> str:
    if numbers is None:
        return NO_SOLUTION
    if mode == "general":
        return f"x = {_linear(numbers['x0'], numbers['p'])}, y = {_linear(numbers['y0'], numbers['q'])}"
    return f"x = {numbers['x']}, y = {numbers['y']}"


def _linear(const: int, coef: int) -> str:
    sign = "+" if coef >= 0 else "-"
    return f"{const} {sign} {abs(coef)}t"


# --------------------------------------------------------------------------------------------
# Parsing answers
# --------------------------------------------------------------------------------------------


def parse_pair(text: str) -> tuple[int | Verdict, int | Verdict] | None:
    """``x = 3, y = -2``, ``y = -2, x = 3``, ``(3, -2)`` -> (3, -2); ``None`` unless the whole
    text is such a pair.

    Each value comes back as read by the shared number reader: an int, or the verdict on a
    number that is not an integer.
    """
    match = _PAIR.fullmatch(unwrap_math(text))
    if not match:
        return None
    x, y = match["x1"] or match["x2"] or match["x3"], match["y1"] or match["y2"] or match["y3"]
    return read_integer(x), read_integer(y)


def parse_linear(text: str) -> tuple[int, int, str] | None:
    """``3 + 5t``, ``-7k - 2``, ``4n`` -> (constant, coefficient, parameter letter)."""
    body = re.sub(r"\s+", "", text).replace("\u2212", "-").replace("·", "*").replace("\\cdot", "*").lower()
    if not body or len(body) > 200:
        return None
    if body[0] not in "+-":
        body = "+" + body
    const, coef, letter, pos = 0, 0, "", 0
    for match in _TERM.finditer(body):
        if match.start() != pos or not (match.group(2) or match.group(3)):
            return None
        pos = match.end()
        sign = -1 if match.group(1) == "-" else 1
        if match.group(3):
            if letter and match.group(3) != letter:
                return None
            letter = match.group(3)
            coef += sign * int(match.group(2) or 1)
        else:
            const += sign * int(match.group(2))
    if pos != len(body):
        return None
    return const, coef, letter


def parse_general(text: str) -> tuple[int, int, int, int] | str:
    """``x = 3 + 5t, y = -2 - 7t`` -> (x0, p, y0, q); a string says why it could not be read.

    Every character must be read: the two sides, separated by a comma, semicolon, "and" or a
    line break, then at most a qualifier about the parameter ("where t is an integer", "for all
    integers t", "t ∈ ℤ"). Any other text, or a side given twice, is a format error.
    """
    body = _LATEX_SPACE.sub(" ", unwrap_math(text))
    param_note = None
    if start := _QUALIFIER_START.search(body):
        qualifier = _QUALIFIER.fullmatch(body, start.start())
        if qualifier is None:
            return f"could not read {body[start.start() :].strip()[:40]!r} (only a note such as 'where t is an integer' may follow)"
        param_note, body = qualifier["param"].lower(), body[: start.start()].rstrip()
        body = body[:-1] if body[-1:] in (",", ";") else body  # the separator before the note
    parts = [part.strip() for part in _SIDES_SPLIT.split(body.strip())]
    sides = [_SIDE.fullmatch(part) for part in parts]
    if len(parts) != 2 or None in sides or {m.group(1).lower() for m in sides if m} != {"x", "y"}:
        return "expected exactly 'x = ... , y = ...'"
    linear = {m.group(1).lower(): parse_linear(m.group(2)) for m in sides if m}
    x, y = linear["x"], linear["y"]
    if x is None or y is None:
        return "each side must be an integer plus an integer multiple of one parameter"
    letters = {side[2] for side in (x, y) if side[2]}
    if len(letters) > 1:
        return "x and y must use the same parameter"
    if param_note and letters and param_note not in letters:
        return f"the note names {param_note}, but the parameter is {letters.pop()}"
    return x[0], x[1], y[0], y[1]


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def _coefficient(rng: np.random.Generator, digits: int, negative: bool) -> int:
    value = int(rng.integers(max(2, 10 ** (digits - 1)), 10**digits))
    return -value if negative and rng.random() < 0.5 else value


def draw(knobs: LinearDiophantineKnobs, rng: np.random.Generator) -> tuple[str, int, int, int]:
    mode = knobs.mode if knobs.mode != "mixed" else MODES[int(rng.integers(len(MODES)))]
    negatives = knobs.negatives and mode != "positive"
    unsolvable = rng.random() < knobs.unsolvable_share
    for _ in range(1000):
        a, b = _coefficient(rng, knobs.digits, negatives), _coefficient(rng, knobs.digits, negatives)
        g = math.gcd(a, b)
        if g in (abs(a), abs(b)) or (unsolvable and g == 1):
            continue  # one coefficient dividing the other is a trivial equation
        scale = 10**knobs.digits
        if unsolvable:
            c = g * int(rng.integers(1, scale)) + int(rng.integers(1, g))
        elif mode == "positive":
            c = a * int(rng.integers(1, scale)) + b * int(rng.integers(1, scale))
        else:
            c = a * int(rng.integers(-scale, scale)) + b * int(rng.integers(-scale, scale))
        small = any((c - a * x) % b == 0 for x in range(-3, 4))
        if small and knobs.digits > 1 and not unsolvable:
            continue  # a solution with |x| <= 3 falls to trial and error
        return mode, a, b, c
    raise RuntimeError(f"could not draw an equation for {knobs}")


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


QUESTIONS = {
    "particular": "Find one pair of integers (x, y) that satisfies the equation. Many pairs work; "
    "any correct pair is accepted. Answer like <answer>x = 12, y = -7</answer>.",
    "general": "Give the general integer solution: every integer solution must be of the form you "
    "give, for one integer parameter t, and every integer t must give a solution. Any correct "
    "parametrisation is accepted. Answer like <answer>x = 4 + 9t, y = -1 - 5t</answer>.",
    "positive": "Among the solutions in positive integers (x > 0 and y > 0), give the one with the "
    "smallest x. Answer like <answer>x = 12, y = 7</answer>.",
}

PROMPT = """Solve the linear Diophantine equation over the integers:

{equation}

{question} If there is no such solution, answer "no solution"."""


def _equation(a: int, b: int, c: int) -> str:
    sign = "+" if b >= 0 else "-"
    return f"{a}x {sign} {abs(b)}y = {c}"


@family(
    "linear_diophantine",
    domain="arithmetic",
    knobs=LinearDiophantineKnobs,
    levels=LEVELS,
    description="Linear Diophantine equations ax + by = c: one solution, the general one, or the least positive.",
    verifier_kind="constraint check (substitution)",
)
class LinearDiophantine(Family):
    def generate(self, knobs: LinearDiophantineKnobs, rng: np.random.Generator) -> TaskDraft:
        mode, a, b, c = draw(knobs, rng)
        numbers, steps = solve_equation(a, b, c, mode)
        metadata = {
            "mode": mode,
            "a": a,
            "b": b,
            "c": c,
            "gcd": math.gcd(a, b),
            "solvable": numbers is not None,
            "euclid_steps": steps,
            "canonical_hash": content_hash([mode, *sorted([a, b]), c]),
        }
        prompt = PROMPT.format(equation=_equation(a, b, c), question=QUESTIONS[mode])
        return TaskDraft(prompt=prompt, answer=format_answer(mode, numbers), metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = extract(response)
        if isinstance(text, Verdict):
            return text
        meta = task.metadata
        if is_no_solution(text):
            if task.answer == NO_SOLUTION:
                return Verdict.right(parsed=NO_SOLUTION)
            return Verdict.wrong("a solution exists", parsed=NO_SOLUTION)
        if meta["mode"] == "general":
            return self._verify_general(task, text)
        pair = parse_pair(text)
        if pair is None:
            return Verdict.bad_format(f"could not read {text[:60]!r} as 'x = ..., y = ...'")
        x, y = pair
        if isinstance(x, Verdict) or isinstance(y, Verdict):
            return x if isinstance(x, Verdict) else y  # type: ignore[return-value]
        a, b, c = meta["a"], meta["b"], meta["c"]
        if a * x + b * y != c:
            return Verdict.wrong(f"{a}*{x} + {b}*{y} != {c}", parsed=[x, y])
        if meta["mode"] == "positive" and task.answer != format_answer("positive", {"x": x, "y": y}):
            return Verdict.wrong("not the positive solution with the smallest x", parsed=[x, y])
        return Verdict.right(parsed=[x, y])

    def _verify_general(self, task: Task, text: str) -> Verdict:
        parsed = parse_general(text)
        if isinstance(parsed, str):
            return Verdict.bad_format(parsed)
        x0, p, y0, q = parsed
        a, b, c, g = task.metadata["a"], task.metadata["b"], task.metadata["c"], task.metadata["gcd"]
        if task.answer == NO_SOLUTION:
            return Verdict.wrong("the equation has no integer solution", parsed=list(parsed))
        if a * x0 + b * y0 != c:
            return Verdict.wrong("t = 0 does not give a solution", parsed=list(parsed))
        if (p, q) not in ((b // g, -a // g), (-b // g, a // g)):
            return Verdict.wrong("the step does not generate every solution exactly", parsed=list(parsed))
        return Verdict.right(parsed=list(parsed))

    def solve_exact(self, task: Task) -> SolverRun:
        meta = task.metadata
        numbers, steps = solve_equation(meta["a"], meta["b"], meta["c"], meta["mode"])
        return SolverRun(
            response=f"<answer>{format_answer(meta['mode'], numbers)}</answer>", effort=float(steps)
        )

    def solve_weak(self, task: Task) -> SolverRun:
        # trial and error on small x only; never proves "no solution"
        meta = task.metadata
        a, b, c, mode = meta["a"], meta["b"], meta["c"], meta["mode"]
        candidates = range(1, WEAK_BUDGET) if mode == "positive" else range(-WEAK_BUDGET, WEAK_BUDGET)
        for tried, x in enumerate(candidates, 1):
            if (c - a * x) % b == 0 and (mode != "positive" or (c - a * x) // b > 0):
                y = (c - a * x) // b
                if mode == "general":
                    g = math.gcd(a, b)
                    answer = f"x = {_linear(x, b // g)}, y = {_linear(y, -a // g)}"
                else:
                    answer = f"x = {x}, y = {y}"
                return SolverRun(response=f"<answer>{answer}</answer>", effort=float(tried))
        return SolverRun(response=None, effort=float(len(candidates)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = task.metadata
        a, b, c, g, mode = meta["a"], meta["b"], meta["c"], meta["gcd"], meta["mode"]
        if task.answer == NO_SOLUTION:
            return [
                "<answer>x = 0, y = 0</answer>",
                f"<answer>x = {c}, y = 0</answer>",
                "<answer>(1, 1)</answer>",
                f"<answer>x = 1 + {abs(b)}t, y = 1 - {abs(a)}t</answer>",
            ]
        numbers, _ = solve_equation(a, b, c, mode)
        assert numbers is not None
        if mode == "general":
            x0, p, y0, q = numbers["x0"], numbers["p"], numbers["y0"], numbers["q"]
            bad = [(x0, 2 * p, y0, 2 * q), (x0 + 1, p, y0, q), (x0, p, y0, -q), (x0, 0, y0, 0)]
            return [f"<answer>x = {_linear(u, v)}, y = {_linear(w, z)}</answer>" for u, v, w, z in bad] + [
                f"<answer>{NO_SOLUTION}</answer>"
            ]
        x, y = numbers["x"], numbers["y"]
        # (b/g, -a/g) steps along the solution line; (b/g, +a/g) leaves it
        bad = [(x + 1, y), (x + b // g, y + a // g), (x - 1, y + 1)]
        if mode == "positive":
            bad.append((x + b // g, y - a // g))  # a solution, but not the one with the smallest x
        return [f"<answer>x = {u}, y = {v}</answer>" for u, v in bad] + [f"<answer>{NO_SOLUTION}</answer>"]
