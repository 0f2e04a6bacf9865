"""Long arithmetic on big integers: addition, subtraction, multiplication, long division.

Operands have a fixed number of digits (no leading zeros). Division asks for the quotient and
the remainder (``0 <= remainder < divisor``). The reference solver simulates the schoolbook
methods and counts digit operations, carries and borrows included; the weak solver computes in
double precision, which is exact only while the numbers stay below 2**53.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.arithmetic._common import MAX_INTEGER_CHARS, extract
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import read_integer, unwrap_math

OPERATIONS = ("add", "sub", "mul", "div")
SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_NUMBER = r"[+\-\u2212]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?"
_DIVISION = re.compile(
    rf"^\s*(?:q(?:uotient)?\s*(?:=|:|is)?\s*)?(?P<q>{_NUMBER})"
    rf"(?:\s*[,;]\s+|\s*[,;]?\s*(?:and\s+)?(?:r|rem|remainder)(?![a-z])\.?\s*(?:=|:|is|of)?\s*|\s*[,;]?\s+and\s+)"
    rf"(?P<r>{_NUMBER})\s*\.?\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class LongArithmeticKnobs(Knobs):
    operation: str = knob("add", choices=(*OPERATIONS, "mixed"), help="operation, or 'mixed' for any")
    digits: int = knob(3, low=1, high=200, help="digits of the first operand (both operands for + and -)")
    digits2: int = knob(2, low=1, high=100, help="digits of the second operand of * and / (the divisor)")

    def validate(self) -> None:
        if self.operation in ("div", "mixed") and self.digits2 > self.digits:
            raise ValueError("the divisor cannot have more digits than the dividend (digits2 <= digits)")


LEVELS = {
    1: LongArithmeticKnobs(operation="add", digits=3),
    2: LongArithmeticKnobs(operation="sub", digits=4),
    3: LongArithmeticKnobs(operation="mul", digits=3, digits2=2),
    4: LongArithmeticKnobs(operation="div", digits=5, digits2=2),
    5: LongArithmeticKnobs(operation="mixed", digits=8, digits2=3),
    6: LongArithmeticKnobs(operation="mixed", digits=12, digits2=4),
    7: LongArithmeticKnobs(operation="mixed", digits=16, digits2=6),
    8: LongArithmeticKnobs(operation="mixed", digits=22, digits2=8),
    9: LongArithmeticKnobs(operation="mixed", digits=30, digits2=11),
    10: LongArithmeticKnobs(operation="mixed", digits=40, digits2=15),
}


# --------------------------------------------------------------------------------------------
# Schoolbook effort: digit operations, carries and borrows
# --------------------------------------------------------------------------------------------


def _digits_of(n: int) -> list[int]:
    return [int(c) for c in reversed(str(n))]  # least significant first


def add_effort(a: int, b: int) -> tuple[int, int]:
    """(digit operations incl. carries, carries) of the column addition of a, b >= 0."""
    x, y = _digits_of(a), _digits_of(b)
    carry = carries = 0
    for i in range(max(len(x), len(y))):
        total = (x[i] if i < len(x) else 0) + (y[i] if i < len(y) else 0) + carry
        carry = total // 10
        carries += carry
    return max(len(x), len(y)) + carries, carries


def sub_effort(a: int, b: int) -> tuple[int, int]:
    """(digit operations incl. borrows, borrows) of the column subtraction of the smaller from the larger."""
    big, small = max(a, b), min(a, b)
    x, y = _digits_of(big), _digits_of(small)
    borrow = borrows = 0
    for i in range(len(x)):
        diff = x[i] - (y[i] if i < len(y) else 0) - borrow
        borrow = 1 if diff < 0 else 0
        borrows += borrow
    return len(x) + borrows, borrows


def mul_effort(a: int, b: int) -> int:
    """Single-digit products, their carries, and the additions of the partial products."""
    ops = 0
    total = 0
    for shift, digit in enumerate(_digits_of(b)):
        partial = 0
        carry = 0
        for d in _digits_of(a):
            product = d * digit + carry
            carry = product // 10
            ops += 1 + (carry > 0)
        partial = a * digit * 10**shift
        if shift:
            ops += add_effort(total, partial)[0]
        total += partial
    return ops


def div_effort(a: int, b: int) -> int:
    """Long division: per quotient digit, trial products of the divisor and one subtraction."""
    ops = 0
    remainder = 0
    for digit in str(a):
        remainder = remainder * 10 + int(digit)
        if remainder < b and ops == 0:
            continue  # leading digits smaller than the divisor: nothing to do yet
        q = remainder // b
        ops += (q + 1) * len(str(b)) + sub_effort(remainder, q * b)[0]
        remainder -= q * b
    return ops


def effort_of(op: str, a: int, b: int) -> int:
    if op == "add":
        return add_effort(a, b)[0]
    if op == "sub":
        return sub_effort(a, b)[0]
    if op == "mul":
        return mul_effort(a, b)
    return div_effort(a, b)


def exact_answer(op: str, a: int, b: int) -> str:
    if op == "add":
        return str(a + b)
    if op == "sub":
        return str(a - b)
    if op == "mul":
        return str(a * b)
    q, r = divmod(a, b)
    return f"{q} remainder {r}"


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def _draw_number(rng: np.random.Generator, digits: int) -> int:
    first = str(int(rng.integers(1, 10)))
    rest = "".join(str(int(d)) for d in rng.integers(0, 10, size=digits - 1))
    return int(first + rest)


def _degenerate(op: str, a: int, b: int, digits: int) -> bool:
    """Instances a trivial baseline solves: no carries/borrows, or a power-of-ten factor."""
    if op in ("mul", "div"):
        return b <= 1 or str(b).rstrip("0") == "1" or (op == "div" and a < b)
    if digits < 3:
        return False
    return (add_effort(a, b)[1] if op == "add" else sub_effort(a, b)[1]) == 0


def draw(knobs: LongArithmeticKnobs, rng: np.random.Generator) -> tuple[str, int, int]:
    op = knobs.operation
    if op == "mixed":
        op = OPERATIONS[int(rng.integers(len(OPERATIONS)))]
    for _ in range(1000):
        a = _draw_number(rng, knobs.digits)
        b = _draw_number(rng, knobs.digits if op in ("add", "sub") else knobs.digits2)
        if not _degenerate(op, a, b, knobs.digits):
            return op, a, b
    raise RuntimeError(f"could not draw a non-degenerate instance for {knobs}")


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


PROMPT = """Compute exactly, by hand-style long arithmetic:

{a} {symbol} {b}

Give the exact integer result (it may be negative), for example <answer>-123456789</answer>."""

PROMPT_DIV = """Divide with remainder (long division):

{a} ÷ {b}

Give the integer quotient and the remainder, with 0 <= remainder < {b}, written as \
"QUOTIENT remainder REMAINDER", for example <answer>1234 remainder 56</answer>."""


def parse_division(text: str) -> tuple[int | Verdict, int | Verdict] | None:
    """``1234 remainder 56``, ``1234 R 56``, ``q = 1234, r = 56``, ``1234, 56`` -> (1234, 56).

    Each number comes back as read by the shared reader: an int, or the verdict on a number
    that is not an integer (``1234.5``); ``None`` when the text is not such a pair.
    """
    match = _DIVISION.match(unwrap_math(text))
    if not match:
        return None
    return read_integer(match["q"], max_chars=MAX_INTEGER_CHARS), read_integer(
        match["r"], max_chars=MAX_INTEGER_CHARS
    )


@family(
    "long_arithmetic",
    domain="arithmetic",
    knobs=LongArithmeticKnobs,
    levels=LEVELS,
    description="Big-integer addition, subtraction, multiplication and long division with remainder.",
    verifier_kind="exact value",
)
class LongArithmetic(Family):
    def generate(self, knobs: LongArithmeticKnobs, rng: np.random.Generator) -> TaskDraft:
        op, a, b = draw(knobs, rng)
        if op == "div":
            prompt = PROMPT_DIV.format(a=a, b=b)
        else:
            prompt = PROMPT.format(a=a, b=b, symbol=SYMBOLS[op])
        canonical = [op, *sorted((a, b))] if op in ("add", "mul") else [op, a, b]
        metadata = {
            "operation": op,
            "a": str(a),
            "b": str(b),
            "digit_operations": effort_of(op, a, b),
            "canonical_hash": content_hash([str(x) for x in canonical]),
        }
        return TaskDraft(prompt=prompt, answer=exact_answer(op, a, b), metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = extract(response)
        if isinstance(text, Verdict):
            return text
        op, a, b = task.metadata["operation"], int(task.metadata["a"]), int(task.metadata["b"])
        if op == "div":
            parsed = parse_division(text)
            if parsed is None:
                return Verdict.bad_format(f"could not read {text[:60]!r} as 'QUOTIENT remainder REMAINDER'")
            q, r = parsed
            if isinstance(q, Verdict) or isinstance(r, Verdict):
                return q if isinstance(q, Verdict) else r  # type: ignore[return-value]
            if (q, r) == divmod(a, b):
                return Verdict.right(parsed=[q, r])
            if q * b + r == a:
                return Verdict.wrong(f"remainder {r} is not in [0, {b})", parsed=[q, r])
            return Verdict.wrong(f"{q} remainder {r} is not {a} ÷ {b}", parsed=[q, r])
        value = read_integer(text, max_chars=MAX_INTEGER_CHARS)
        if isinstance(value, Verdict):
            return value
        if str(value) == task.answer:
            return Verdict.right(parsed=str(value))
        return Verdict.wrong(f"{value} is not the result", parsed=str(value))

    def solve_exact(self, task: Task) -> SolverRun:
        # the schoolbook simulation ran at generation; its digit-operation count is the effort
        effort = float(task.metadata["digit_operations"])
        return SolverRun(response=f"<answer>{task.answer}</answer>", effort=effort)

    def solve_weak(self, task: Task) -> SolverRun:
        # double-precision arithmetic: right while the numbers fit in 53 bits, wrong beyond
        op, a, b = task.metadata["operation"], int(task.metadata["a"]), int(task.metadata["b"])
        x, y = float(a), float(b)
        if op == "div":
            q = int(x // y)
            answer = f"{q} remainder {int(x - q * y)}"
        else:
            answer = str(int({"add": x + y, "sub": x - y, "mul": x * y}[op]))
        return SolverRun(response=f"<answer>{answer}</answer>", effort=1.0)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        op, a, b = task.metadata["operation"], int(task.metadata["a"]), int(task.metadata["b"])
        if op == "div":
            q, r = divmod(a, b)
            wrong = [(q + 1, r), (q, r + 1), (q - 1, r + b), (r, q) if r != q else (q, r - 1)]
            return [f"<answer>{x} remainder {y}</answer>" for x, y in wrong] + [f"<answer>{q}</answer>"]
        value = int(task.answer)
        lowest = 10 ** (len(str(abs(value))) - 1)
        wrong = [value + 1, value - 10, -value if value else 1, value + lowest]
        return [f"<answer>{w}</answer>" for w in wrong] + [f"<answer>{value} {value + 1}</answer>"]
