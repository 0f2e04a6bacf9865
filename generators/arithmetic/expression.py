"""Exact arithmetic on random expressions (in the spirit of RandomCalculation).

The expression is a random binary tree over integers, fractions or decimals, rendered with the
fewest parentheses its precedence needs. The reference answer is the exact rational value;
the verifier accepts any exact way of writing that number (``7/2``, ``3.5``, ``3 1/2``,
``\\frac{7}{2}``) and nothing else (``3.49``, ``0.333`` for 1/3, two different answers).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from palaestra.core import Knobs, Task, Verdict, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.numbers import format_rational, parse_rational

OPERATORS = "+-*/^"
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}
MAX_VALUE_DIGITS = 40  # regenerate any expression whose value or parts grow beyond this


@dataclass(frozen=True)
class ExpressionKnobs(Knobs):
    operators: str = knob("+-", help="operators used, a subset of '+-*/^' (^ only with parentheses)")
    operands: int = knob(2, low=2, high=16, help="number of operands (leaves of the expression tree)")
    depth: int = knob(1, low=1, high=8, help="maximum nesting depth of the expression tree")
    parentheses: bool = knob(False, help="allow nested sub-expressions that need parentheses")
    domain: str = knob("integers", choices=("integers", "fractions", "decimals"), help="kind of operands")
    negatives: bool = knob(False, help="allow negative operands")
    digits: int = knob(1, low=1, high=8, help="digits of each integer operand (numerator for fractions)")

    def validate(self) -> None:
        if (
            not self.operators
            or set(self.operators) - set(OPERATORS)
            or len(set(self.operators)) != len(self.operators)
        ):
            raise ValueError(
                f"operators must be distinct characters from {OPERATORS!r}, got {self.operators!r}"
            )
        if "^" in self.operators and not self.parentheses:
            raise ValueError("operator '^' needs parentheses=True (powers are always parenthesised)")
        if self.parentheses and self.operands > 2**self.depth:
            raise ValueError(
                f"{self.operands} operands do not fit in depth {self.depth} (max {2**self.depth})"
            )


LEVELS = {
    1: ExpressionKnobs(operators="+-", operands=2, digits=1),
    2: ExpressionKnobs(operators="+-", operands=3, digits=2),
    3: ExpressionKnobs(operators="+-*", operands=3, depth=2, parentheses=True, digits=2),
    4: ExpressionKnobs(operators="+-*", operands=4, depth=3, parentheses=True, negatives=True, digits=2),
    5: ExpressionKnobs(operators="+-*/", operands=4, depth=3, parentheses=True, negatives=True, digits=2),
    6: ExpressionKnobs(operators="+-*/", operands=5, depth=3, parentheses=True, negatives=True, digits=3),
    7: ExpressionKnobs(
        operators="+-*/^", operands=5, depth=3, parentheses=True, domain="fractions", digits=2
    ),
    8: ExpressionKnobs(
        operators="+-*/^", operands=6, depth=4, parentheses=True, domain="decimals", negatives=True, digits=2
    ),
    9: ExpressionKnobs(
        operators="+-*/^", operands=8, depth=4, parentheses=True, domain="fractions", negatives=True, digits=3
    ),
    10: ExpressionKnobs(
        operators="+-*/^", operands=10, depth=5, parentheses=True, domain="decimals", negatives=True, digits=3
    ),
}


# --------------------------------------------------------------------------------------------
# Expression trees
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Leaf:
    value: Fraction
    text: str


@dataclass(frozen=True)
class Node:
    op: str
    left: Leaf | Node
    right: Leaf | Node


Expr = Leaf | Node


class _Rejected(Exception):
    """The draw is unusable (division by zero, values too large): draw again."""


def _apply(op: str, a: Fraction, b: Fraction) -> Fraction:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise _Rejected
        return a / b
    # '^': exponents are small non-negative integer literals by construction
    if a == 0 and b == 0:
        raise _Rejected
    return a ** int(b)


def evaluate(expr: Expr) -> Fraction:
    """The exact value of ``expr``; raises ``_Rejected`` if it leaves the size budget."""
    if isinstance(expr, Leaf):
        return expr.value
    value = _apply(expr.op, evaluate(expr.left), evaluate(expr.right))
    if len(str(value.numerator)) > MAX_VALUE_DIGITS or len(str(value.denominator)) > MAX_VALUE_DIGITS:
        raise _Rejected
    return value


def operation_cost(expr: Expr) -> int:
    """Reference-solver effort: digit-operations of schoolbook evaluation, bottom-up."""
    if isinstance(expr, Leaf):
        return 0
    a, b = evaluate(expr.left), evaluate(expr.right)
    size = max(_digits(a), 1) * max(_digits(b), 1) if expr.op in "*/^" else max(_digits(a), _digits(b))
    return operation_cost(expr.left) + operation_cost(expr.right) + size


def _digits(value: Fraction) -> int:
    return len(str(abs(value.numerator))) + (len(str(value.denominator)) if value.denominator != 1 else 0)


def render(expr: Expr) -> str:
    """Text with the fewest parentheses standard precedence needs (``^`` is right-associative)."""
    if isinstance(expr, Leaf):
        return expr.text
    left, right = render(expr.left), render(expr.right)
    if _needs_parens(expr.left, expr.op, is_right=False):
        left = f"({left})"
    if _needs_parens(expr.right, expr.op, is_right=True):
        right = f"({right})"
    return f"{left} {expr.op} {right}"


def _needs_parens(child: Expr, parent_op: str, *, is_right: bool) -> bool:
    if isinstance(child, Leaf):
        return False
    child_prec, parent_prec = _PRECEDENCE[child.op], _PRECEDENCE[parent_op]
    if child_prec != parent_prec:
        return child_prec < parent_prec
    if parent_op == "^":
        return not is_right
    return is_right and parent_op in "-/"


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def _draw_operand(knobs: ExpressionKnobs, rng: np.random.Generator) -> Leaf:
    high = 10**knobs.digits - 1
    magnitude = int(rng.integers(1, high + 1))
    negative = knobs.negatives and rng.random() < 0.35
    if knobs.domain == "fractions" and rng.random() < 0.6:
        denominator = int(rng.integers(2, 10 ** min(knobs.digits, 2)))
        value = Fraction(magnitude, denominator)
        text = f"{magnitude}/{denominator}"
        text = f"(-{text})" if negative else f"({text})"
        return Leaf(-value if negative else value, text)
    if knobs.domain == "decimals" and rng.random() < 0.6:
        places = int(rng.integers(1, 3))
        value = Fraction(magnitude, 10**places)
        text = f"{magnitude / 10**places:.{places}f}"
    else:
        value, text = Fraction(magnitude), str(magnitude)
    if negative:
        return Leaf(-value, f"(-{text})")
    return Leaf(value, text)


def _draw_tree(knobs: ExpressionKnobs, rng: np.random.Generator, leaves: int, depth: int) -> Expr:
    if leaves == 1:
        return _draw_operand(knobs, rng)
    ops = [op for op in knobs.operators if op != "^"] or ["+"]
    if "^" in knobs.operators and leaves - 1 <= 2 ** (depth - 1) and rng.random() < 0.2:
        # a power: any sub-expression raised to a small literal exponent
        base = _draw_tree(knobs, rng, leaves - 1, depth - 1) if leaves > 2 else _draw_operand(knobs, rng)
        exponent = int(rng.integers(2, 4))
        return Node("^", base, Leaf(Fraction(exponent), str(exponent)))
    # split the leaves so both sides still fit in the remaining depth
    cap = 2 ** (depth - 1)
    lo, hi = max(1, leaves - cap), min(leaves - 1, cap)
    left_leaves = int(rng.integers(lo, hi + 1))
    op = ops[int(rng.integers(len(ops)))]
    return Node(
        op,
        _draw_tree(knobs, rng, left_leaves, depth - 1),
        _draw_tree(knobs, rng, leaves - left_leaves, depth - 1),
    )


def _draw_chain(knobs: ExpressionKnobs, rng: np.random.Generator) -> Expr:
    """Without parentheses: a flat chain ``a op b op c`` parsed with standard precedence."""
    ops = [op for op in knobs.operators if op != "^"]
    terms: list[Expr] = [_draw_operand(knobs, rng)]
    operators: list[str] = []
    for _ in range(knobs.operands - 1):
        operators.append(ops[int(rng.integers(len(ops)))])
        terms.append(_draw_operand(knobs, rng))
    return _fold_chain(terms, operators)


def _fold_chain(terms: list[Expr], operators: list[str]) -> Expr:
    # multiplicative runs bind first, then additive ones left to right
    sums: list[Expr] = [terms[0]]
    sum_ops: list[str] = []
    for op, term in zip(operators, terms[1:], strict=True):
        if op in "*/":
            sums[-1] = Node(op, sums[-1], term)
        else:
            sum_ops.append(op)
            sums.append(term)
    expr = sums[0]
    for op, term in zip(sum_ops, sums[1:], strict=True):
        expr = Node(op, expr, term)
    return expr


def draw_expression(knobs: ExpressionKnobs, rng: np.random.Generator) -> tuple[Expr, Fraction]:
    """Draw expressions until one evaluates within the size budget."""
    for _ in range(1000):
        expr = (
            _draw_tree(knobs, rng, knobs.operands, knobs.depth)
            if knobs.parentheses
            else _draw_chain(knobs, rng)
        )
        try:
            return expr, evaluate(expr)
        except _Rejected:
            continue
    raise RuntimeError(f"could not draw a valid expression for {knobs}")


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


PROMPT = """Compute the exact value of this expression:

{expression}

Standard precedence applies: ^ (power) first, then * and /, then + and -; operators of equal \
precedence group left to right, except ^ which groups right to left. Give the exact result as an \
integer or a fraction in lowest terms (an exact decimal is also accepted), for example \
<answer>-7/3</answer>."""


@family(
    "expression",
    domain="arithmetic",
    knobs=ExpressionKnobs,
    levels=LEVELS,
    description="Evaluate a random arithmetic expression exactly (integers, fractions, decimals, powers).",
    verifier_kind="exact value",
)
class Expression(Family):
    def generate(self, knobs: ExpressionKnobs, rng: np.random.Generator) -> TaskDraft:
        expr, value = draw_expression(knobs, rng)
        text = render(expr)
        return TaskDraft(
            prompt=PROMPT.format(expression=text),
            answer=format_rational(value),
            metadata={"expression": text, "operations": operation_cost(expr)},
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        value = parse_rational(extraction.text)
        if value is None:
            return Verdict.bad_format(f"could not read {extraction.text[:60]!r} as an exact number")
        expected = Fraction(task.answer)
        if value == expected:
            return Verdict.right(parsed=format_rational(value))
        return Verdict.wrong(
            f"{format_rational(value)} is not the value of the expression", parsed=format_rational(value)
        )

    def solve_exact(self, task: Task) -> SolverRun:
        # the generator's own exact evaluation; effort is its schoolbook digit-operation count
        return SolverRun(
            response=f"<answer>{task.answer}</answer>", effort=float(task.metadata["operations"])
        )

    def solve_weak(self, task: Task) -> SolverRun:
        # mental arithmetic: gives up on anything with more than 12 digit-operations
        operations = float(task.metadata["operations"])
        response = f"<answer>{task.answer}</answer>" if operations <= 12 else None
        return SolverRun(response=response, effort=min(operations, 12.0))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value = Fraction(task.answer)
        wrong = [value + 1, value - Fraction(1, 2), value * 2 + 1, -value - 1]
        responses = [f"<answer>{format_rational(w)}</answer>" for w in wrong if w != value]
        rounded = f"{float(value):.3f}"
        if Fraction(rounded) != value:  # a rounded decimal is not exact
            responses.append(f"<answer>{rounded}</answer>")
        responses.append(f"<answer>{task.answer}</answer> <answer>{format_rational(value + 1)}</answer>")
        return responses
