"""Identify a hidden function from queries: affine maps, polynomials, boolean functions.

Single-turn: the prompt shows exactly enough input/output pairs to pin the function down
within its stated class (degree + 1 distinct points for a polynomial of known degree bound;
the whole truth table for a boolean function), so the answer is unique as a function; any
equivalent way of writing it counts (``(2x-1)(x-1)`` for ``2x^2-3x+1``, any formula with the
same truth table). Interactive (``palaestra/HiddenFunction-v0``): query ``f(3)`` one value at
a time within a budget, then answer. Polynomials are compared by the exact math verifier,
formulas by z3 equivalence.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Episode, Family, SolverRun, TaskDraft, Turn, family
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.logic import evaluate, parse_formula, verify_equivalent_formula
from palaestra.verifiers.math import MathPolicy, math_equal

VARIABLES = "abcde"
_POLY_CHARS = re.compile(r"^[0-9x+\-*/^()., ²³⁴⁵⁶\u2212]+$")
_PREFIX = re.compile(r"^\s*(?:f\s*\(\s*[a-z]\s*\)|y|f)\s*=\s*", re.IGNORECASE)
_QUERY = re.compile(r"(?i)f\s*\(\s*([^)]*)\)\s*\?")
POLICY = MathPolicy(timeout_s=10.0)


@dataclass(frozen=True)
class HiddenFunctionKnobs(Knobs):
    kind: str = knob("polynomial", choices=("polynomial", "boolean"), help="hypothesis class")
    degree: int = knob(1, low=1, high=8, help="polynomial: the degree (1 = affine)")
    coefficient: int = knob(9, low=1, high=10**6, help="polynomial: largest absolute coefficient")
    inputs: int = knob(2, low=1, high=len(VARIABLES), help="boolean: number of input bits")
    terms: int = knob(
        0, low=0, high=12, help="boolean: terms of a hidden DNF (0: a chain over each input once)"
    )
    width: int = knob(3, low=1, high=len(VARIABLES), help="boolean: literals per DNF term")
    slack: int = knob(2, low=0, high=20, help="interactive: queries allowed beyond the minimum")

    def validate(self) -> None:
        if self.kind == "boolean" and self.terms and self.width > self.inputs:
            raise ValueError("width (literals per term) cannot exceed inputs")


# Every level >= 3 draws from at least ~500,000 distinct functions, so 2,000 tasks hold under
# 1% duplicates: degree 2 needs |coefficients| <= 40 (81^3 choices) and a boolean function needs
# five inputs (four have only 65,536 truth tables, too few for any sampler) and a sampler that
# spreads over them: a chain formula over five inputs repeats 4% of its functions in 2,000 draws,
# a DNF of 4 random 3-literal terms 0.05%.
LEVELS = {
    1: HiddenFunctionKnobs(degree=1, coefficient=9),
    2: HiddenFunctionKnobs(degree=1, coefficient=99),
    3: HiddenFunctionKnobs(degree=2, coefficient=40),
    4: HiddenFunctionKnobs(degree=2, coefficient=99),
    5: HiddenFunctionKnobs(degree=3, coefficient=99),
    6: HiddenFunctionKnobs(degree=4, coefficient=999),
    7: HiddenFunctionKnobs(degree=5, coefficient=999),
    8: HiddenFunctionKnobs(degree=6, coefficient=9999),
    9: HiddenFunctionKnobs(kind="boolean", inputs=5, terms=4, width=3),
    10: HiddenFunctionKnobs(kind="boolean", inputs=5, terms=5, width=3),
}


# ------------------------------------------------------------------------------- polynomials


def poly_text(coefficients: list[int]) -> str:
    """``[1, -3, 2]`` (constant first) -> ``2x^2 - 3x + 1``."""
    terms = []
    for power in range(len(coefficients) - 1, -1, -1):
        c = coefficients[power]
        if c == 0:
            continue
        magnitude = abs(c)
        body = {0: f"{magnitude}", 1: f"{'' if magnitude == 1 else magnitude}x"}.get(
            power, f"{'' if magnitude == 1 else magnitude}x^{power}"
        )
        sign = "-" if c < 0 else "+"
        terms.append(f"{'-' if sign == '-' else ''}{body}" if not terms else f" {sign} {body}")
    return "".join(terms) or "0"


def poly_value(coefficients: list[int], x: int) -> int:
    return sum(c * x**k for k, c in enumerate(coefficients))


def interpolate(points: list[tuple[int, int]]) -> list[Fraction]:
    """Exact Lagrange interpolation: coefficients (constant first) of the unique polynomial."""
    n = len(points)
    result = [Fraction(0)] * n
    for i, (xi, yi) in enumerate(points):
        basis = [Fraction(1)]
        denominator = Fraction(1)
        for j, (xj, _) in enumerate(points):
            if j != i:
                basis = [Fraction(0)] + basis  # multiply by x
                for k in range(len(basis) - 1):
                    basis[k] -= xj * basis[k + 1]
                denominator *= xi - xj
        for k in range(n):
            result[k] += yi * basis[k] / denominator
    return result


# ------------------------------------------------------------------------------- boolean


def _random_formula(inputs: int, rng: np.random.Generator) -> str:
    """A random formula over all the inputs that is not constant (rejection sampled)."""
    names = list(VARIABLES[:inputs])
    while True:
        parts = [names[i] if rng.random() < 0.6 else f"~{names[i]}" for i in rng.permutation(inputs)]
        formula = parts[0]
        for part in parts[1:]:
            op = ["&", "|", "^"][int(rng.integers(3))]
            formula = f"({formula} {op} {part})"
        table = truth_table(formula, inputs)
        if 0 < sum(table) < len(table):
            return formula


def _random_dnf(inputs: int, terms: int, width: int, rng: np.random.Generator) -> str:
    """A random non-constant DNF: ``terms`` conjunctions of ``width`` distinct-input literals."""
    names = VARIABLES[:inputs]
    while True:
        conjunctions = []
        for _ in range(terms):
            picked = sorted(int(i) for i in rng.choice(inputs, size=width, replace=False))
            literals = [names[i] if rng.random() < 0.5 else f"~{names[i]}" for i in picked]
            conjunctions.append("(" + " & ".join(literals) + ")")
        formula = " | ".join(conjunctions)
        table = truth_table(formula, inputs)
        if 0 < sum(table) < len(table):
            return formula


def truth_table(formula: str, inputs: int) -> list[int]:
    names = VARIABLES[:inputs]
    parsed = parse_formula(formula)  # once, not once per row
    return [
        int(evaluate(parsed, dict(zip(names, bits, strict=True))))
        for bits in itertools.product([False, True], repeat=inputs)
    ]


def _table_text(table: list[int], inputs: int) -> str:
    header = " ".join(VARIABLES[:inputs]) + " | f"
    rows = [
        " ".join(str(int(b)) for b in bits) + f" | {value}"
        for bits, value in zip(itertools.product([0, 1], repeat=inputs), table, strict=True)
    ]
    return "\n".join([header, *rows])


def minterms(table: list[int], inputs: int) -> str:
    """The disjunctive normal form of a truth table (the exact solver's answer)."""
    names = VARIABLES[:inputs]
    terms = []
    for bits, value in zip(itertools.product([0, 1], repeat=inputs), table, strict=True):
        if value:
            terms.append(
                "(" + " & ".join(n if b else f"~{n}" for n, b in zip(names, bits, strict=True)) + ")"
            )
    return " | ".join(terms)


# ------------------------------------------------------------------------------- the family


PROMPT_POLY = """A hidden function f is a polynomial in x with integer coefficients of degree at most \
{degree}. Its values:
{points}

Find f. Any equivalent way of writing it is accepted. Answer like <answer>f(x) = 3x^2 - x + 4</answer>."""

PROMPT_BOOL = """A hidden boolean function f of the inputs {names} has this truth table:
{table}

Write a formula for f using the inputs and ~ (not), & (and), | (or), ^ (xor) and parentheses. \
Any formula with exactly this truth table is accepted. Answer like <answer>(a & ~b) | c</answer>."""


@family(
    "hidden_function",
    version=2,  # v2: levels >= 3 redrawn for under 1% duplicates among 2,000 tasks
    domain="interactive",
    knobs=HiddenFunctionKnobs,
    levels=LEVELS,
    description="Identify a hidden polynomial or boolean function from its values; interactive: query it yourself.",
    verifier_kind="equivalence (exact polynomial identity, or z3 formula equivalence)",
)
class HiddenFunction(Family):
    def generate(self, knobs: HiddenFunctionKnobs, rng: np.random.Generator) -> TaskDraft:
        if knobs.kind == "boolean":
            formula = (
                _random_dnf(knobs.inputs, knobs.terms, knobs.width, rng)
                if knobs.terms
                else _random_formula(knobs.inputs, rng)
            )
            table = truth_table(formula, knobs.inputs)
            names = ", ".join(VARIABLES[: knobs.inputs])
            metadata = {"table": table, "canonical_hash": content_hash([knobs.inputs, table])}
            return TaskDraft(
                PROMPT_BOOL.format(names=names, table=_table_text(table, knobs.inputs)), formula, metadata
            )
        coefficients = [
            int(c) for c in rng.integers(-knobs.coefficient, knobs.coefficient + 1, size=knobs.degree + 1)
        ]
        if coefficients[-1] == 0:
            coefficients[-1] = int(rng.choice([-1, 1])) * int(rng.integers(1, knobs.coefficient + 1))
        xs = sorted(int(x) for x in rng.choice(np.arange(-9, 10), size=knobs.degree + 1, replace=False))
        points = [[x, poly_value(coefficients, x)] for x in xs]
        metadata = {
            "coefficients": coefficients,
            "points": points,
            "canonical_hash": content_hash(coefficients),
        }
        text = "\n".join(f"f({x}) = {y}" for x, y in points)
        return TaskDraft(
            PROMPT_POLY.format(degree=knobs.degree, points=text), poly_text(coefficients), metadata
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=2000)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        text = _PREFIX.sub("", extraction.text.strip().strip("$"))
        if task.knobs["kind"] == "boolean":
            return verify_equivalent_formula(task.answer, text)
        if not _POLY_CHARS.match(text):  # cheap screen before the exact comparison
            return Verdict.bad_format("write f as a polynomial in x, e.g. f(x) = 3x^2 - x + 4")
        return math_equal(task.answer, text, policy=POLICY)

    def solve_exact(self, task: Task) -> SolverRun:
        """Lagrange interpolation (polynomials) or the minterm DNF (boolean)."""
        if task.knobs["kind"] == "boolean":
            n = task.knobs["inputs"]
            return SolverRun(f"<answer>{minterms(task.metadata['table'], n)}</answer>", float(4**n))
        points = [tuple(p) for p in task.metadata["points"]]
        coefficients = [int(c) for c in interpolate(points)]
        digits = len(str(task.knobs["coefficient"]))
        return SolverRun(
            f"<answer>f(x) = {poly_text(coefficients)}</answer>", float(len(points) ** 2 * digits)
        )

    def solve_weak(self, task: Task) -> SolverRun:
        """Fits a line through the first two points, or answers the first input for boolean."""
        if task.knobs["kind"] == "boolean":
            return SolverRun("<answer>a</answer>", 1.0)
        (x0, y0), (x1, y1) = task.metadata["points"][:2]
        slope = Fraction(y1 - y0, x1 - x0)
        if slope.denominator != 1:
            return SolverRun(None, 2.0)
        intercept = y0 - int(slope) * x0
        return SolverRun(f"<answer>f(x) = {poly_text([intercept, int(slope)])}</answer>", 2.0)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        if task.knobs["kind"] == "boolean":
            return [
                f"<answer>~({task.answer})</answer>",
                "<answer>a & ~a</answer>",
                "<answer>a | ~a</answer>",
            ]
        c = task.metadata["coefficients"]
        wrong = [[c[0] + 1, *c[1:]], [*c[:-1], c[-1] * 2], [-x for x in c]]
        return [f"<answer>f(x) = {poly_text(w)}</answer>" for w in wrong] + ["<answer>f(x) = x +</answer>"]

    def new_episode(self, task: Task, rng: np.random.Generator) -> Episode:
        return QueryGame(task, self)


class QueryGame(Episode):
    """Ask ``f(<input>)?`` for single values, then give the answer in the task's format."""

    def __init__(self, task: Task, family_impl: HiddenFunction):
        self.task, self.family = task, family_impl
        self.boolean = task.knobs["kind"] == "boolean"
        minimum = 2 ** task.knobs["inputs"] if self.boolean else task.knobs["degree"] + 1
        self.queries_left = minimum + task.knobs["slack"]
        self.max_turns = self.queries_left + 10
        self.answers: dict[str, int] = {}

    def opening(self) -> str:
        if self.boolean:
            n = self.task.knobs["inputs"]
            what = f"a boolean function of {', '.join(VARIABLES[:n])}. Query a row like 'f({','.join('0' * n)})?'"
            answer = "then answer with a formula, like <answer>(a & ~b) | c</answer>"
        else:
            what = f"a polynomial of degree at most {self.task.knobs['degree']} with integer coefficients. Query 'f(3)?'"
            answer = "then answer like <answer>f(x) = 3x^2 - x + 4</answer>"
        return f"I have {what} (integer inputs), {answer}. You have {self.queries_left} queries; one answer ends the game."

    def _value(self, text: str) -> int | None:
        text = text.replace(" ", "")
        if self.boolean:
            bits = text.split(",") if "," in text else list(text)
            n = self.task.knobs["inputs"]
            if len(bits) != n or any(b not in "01" for b in bits):
                return None
            return self.task.metadata["table"][int("".join(bits), 2)]
        if not re.fullmatch(r"-?\d{1,6}", text):
            return None
        return poly_value(self.task.metadata["coefficients"], int(text))

    def act(self, action: str) -> Turn:
        query = _QUERY.search(action[:2000])
        if query and "<answer>" not in action.lower():
            value = self._value(query.group(1))
            if value is None:
                return Turn(
                    "invalid query: give one input, like f(3)? (or f(0,1,1)? for bits)",
                    info={"invalid": True},
                )
            self.queries_left -= 1
            self.answers[query.group(1).replace(" ", "")] = value
            if self.queries_left == 0:
                return Turn(f"f({query.group(1)}) = {value}. No queries left.", outcome="failed")
            return Turn(f"f({query.group(1)}) = {value}. {self.queries_left} queries left.")
        verdict = self.family.verify(self.task, action)
        if not verdict.format_ok:
            return Turn(f"invalid: {verdict.reason}", info={"invalid": True})
        return Turn(verdict.reason, reward=verdict.reward, outcome="solved" if verdict.correct else "failed")

    def reference_action(self) -> str:
        if self.boolean:
            n = self.task.knobs["inputs"]
            for bits in itertools.product("01", repeat=n):
                if ",".join(bits) not in self.answers:
                    return f"f({','.join(bits)})?"
            table = [self.answers[",".join(bits)] for bits in itertools.product("01", repeat=n)]
            return f"<answer>{minterms(table, n)}</answer>"
        needed = self.task.knobs["degree"] + 1
        for x in range(needed):
            if str(x) not in self.answers:
                return f"f({x})?"
        coefficients = [int(c) for c in interpolate([(x, self.answers[str(x)]) for x in range(needed)])]
        return f"<answer>f(x) = {poly_text(coefficients)}</answer>"

    def random_action(self, rng: np.random.Generator) -> str:
        if rng.random() < 0.5:
            return self.family.mutated_responses(self.task, rng)[0]
        if self.boolean:
            return (
                "f("
                + ",".join(str(int(b)) for b in rng.integers(0, 2, size=self.task.knobs["inputs"]))
                + ")?"
            )
        return f"f({int(rng.integers(-9, 10))})?"
