"""Exact integer bit operations on stated widths: and, or, xor, not, shifts, rotations,
arithmetic shifts, wrap-around sums, popcounts, two's complement.

An expression over fixed-width unsigned integers (8 to 64 bits) is to be evaluated; every
operation is reduced to the width, and the prompt defines each operator (logical shifts,
``sar`` copying the sign bit, rotations within the width, ``+``/``-`` modulo 2^width). The
question asks for the result as an unsigned integer, as a signed integer (two's complement of
the result's bits), or for the number of 1 bits of the result. The value is a function of the
expression, so it is unique; the tests re-evaluate every expression from the prompt text with
numpy's fixed-width integer types. An unsigned result may be written in decimal, as ``0x...``
or ``0b...``; a signed result in decimal only.

Difficulty: wider integers, deeper expressions, more operators (in the order & | ^ << >> ~
sar rotl rotr + -), operands written in hexadecimal and binary, from level 5 signed answers and
popcounts, and from level 8 only expressions whose value depends on the width (see the weak
solver). The exact solver's effort is the bits it processes (width times operations). The
weak solver evaluates the expression with unbounded integers, forgetting the width (no
truncation after a shift or sum, ``~x`` as ``-x - 1``, rotations and ``sar`` as plain shifts),
which is exact only while no bit leaves the width.

Generation: ~6,400 tasks per CPU-second at level 5 and ~2,500 at level 10.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.math._common import answer_text, tagged
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import parse_rational

OPERATORS = ("&", "|", "^", "<<", ">>", "~", "sar", "rotl", "rotr", "+", "-")
BINARY = {"&", "|", "^", "+", "-"}
SHIFTS = {"<<", ">>", "rotl", "rotr", "sar"}
ASKS = ("unsigned", "signed", "popcount")
BASES = ("dec", "hex", "bin")
MAX_ANSWER_CHARS = 100


@dataclass(frozen=True)
class BitwiseKnobs(Knobs):
    width: int = knob(8, choices=(8, 16, 32, 64), help="bits of every value")
    operators: int = knob(
        3, low=1, high=len(OPERATORS), help=f"how many operators are used, in order {OPERATORS}"
    )
    depth: int = knob(1, low=1, high=7, help="depth of the expression tree")
    bases: int = knob(1, low=1, high=3, help="how operands may be written: decimal, + hexadecimal, + binary")
    asks: int = knob(
        1, low=1, high=3, help="what is asked: the unsigned value, + the signed value, + the popcount"
    )
    width_matters: bool = knob(False, help="reject expressions whose value is the same without the width")


LEVELS = {
    1: BitwiseKnobs(width=8, operators=3, depth=1, bases=1, asks=1),
    2: BitwiseKnobs(width=8, operators=5, depth=2, bases=1, asks=1),
    3: BitwiseKnobs(width=16, operators=6, depth=2, bases=2, asks=1),
    4: BitwiseKnobs(width=16, operators=8, depth=3, bases=2, asks=1),
    5: BitwiseKnobs(width=16, operators=9, depth=3, bases=2, asks=2),
    6: BitwiseKnobs(width=32, operators=9, depth=3, bases=3, asks=3),
    7: BitwiseKnobs(width=32, operators=11, depth=4, bases=3, asks=3),
    8: BitwiseKnobs(width=32, operators=11, depth=5, bases=3, asks=3, width_matters=True),
    9: BitwiseKnobs(width=64, operators=11, depth=5, bases=3, asks=3, width_matters=True),
    10: BitwiseKnobs(width=64, operators=11, depth=6, bases=3, asks=3, width_matters=True),
}


# --------------------------------------------------------------------------------------------
# Expressions: ("leaf", value, base) | (op, left[, right]) | (shift op, child, k)
# --------------------------------------------------------------------------------------------


def evaluate(node: tuple, width: int, bounded: bool = True) -> tuple[int, int]:
    """The value of ``node`` and the operations taken. ``bounded=False`` is the weak solver's
    evaluation: unbounded integers, nothing reduced to the width."""
    mask = (1 << width) - 1 if bounded else -1
    op = node[0]
    if op == "leaf":
        return node[1], 0
    left, ops = evaluate(node[1], width, bounded)
    if op == "~":
        return (~left) & mask if bounded else ~left, ops + 1
    if op in SHIFTS:
        k = node[2]
        if op == "<<":
            value = (left << k) & mask if bounded else left << k
        elif op == ">>":
            value = left >> k
        elif op == "sar":
            sign = left >> (width - 1) & 1 if bounded else 0
            value = (left >> k) | ((mask << (width - k)) & mask if sign else 0)
        elif op == "rotl":
            value = (
                ((left << k) | (left >> (width - k))) & mask
                if bounded
                else (left << k) | (left >> (width - k))
            )
        else:  # rotr
            value = (
                ((left >> k) | (left << (width - k))) & mask
                if bounded
                else (left >> k) | (left << (width - k))
            )
        return value, ops + 1
    right, more = evaluate(node[2], width, bounded)
    ops += more + 1
    value = {
        "&": left & right,
        "|": left | right,
        "^": left ^ right,
        "+": left + right,
        "-": left - right,
    }[op]
    return (value & mask if bounded else value), ops


def render(node: tuple, width: int, top: bool = True) -> str:
    op = node[0]
    if op == "leaf":
        return literal(node[1], node[2], width)
    if op == "~":
        return "~" + render(node[1], width, top=False)
    if op in ("rotl", "rotr", "sar"):
        return f"{op}({render(node[1], width)}, {node[2]})"
    if op in ("<<", ">>"):
        text = f"{render(node[1], width, top=False)} {op} {node[2]}"
    else:
        text = f"{render(node[1], width, top=False)} {op} {render(node[2], width, top=False)}"
    return text if top else f"({text})"


def literal(value: int, base: str, width: int) -> str:
    if base == "hex":
        return f"0x{value:0{width // 4}X}"
    if base == "bin":
        return f"0b{value:0{width}b}"
    return str(value)


def draw_expression(knobs: BitwiseKnobs, rng: np.random.Generator, depth: int) -> tuple:
    if depth == 0 or (depth < knobs.depth and rng.random() < 0.15):
        # mostly wide operands, some narrow ones; a value of exactly that many bits
        bits = (
            int(rng.integers(knobs.width // 2, knobs.width + 1))
            if rng.random() < 0.8
            else int(rng.integers(3, knobs.width // 2 + 1))
        )
        value = (int(rng.integers(0, 2**32)) << 32 | int(rng.integers(0, 2**32))) & (
            (1 << (bits - 1)) - 1
        ) | 1 << (bits - 1)
        base = BASES[int(rng.integers(knobs.bases))]
        return ("leaf", value, base)
    op = OPERATORS[int(rng.integers(knobs.operators))]
    child = draw_expression(knobs, rng, depth - 1)
    if op == "~":
        return ("~", child) if child[0] != "~" else child  # never ~~x
    if op in SHIFTS:
        return (op, child, int(rng.integers(1, knobs.width)))
    return (op, child, draw_expression(knobs, rng, depth - 1))


def degenerate(node: tuple, width: int) -> bool:
    """Whether some operation yields 0 or all ones (a part of the expression that stops
    mattering, e.g. a value shifted out entirely)."""
    if node[0] == "leaf":
        return False
    value, _ = evaluate(node, width)
    if value in (0, (1 << width) - 1):
        return True
    return any(degenerate(child, width) for child in node[1:] if isinstance(child, tuple))


def _operators_in(node: tuple) -> set[str]:
    if node[0] == "leaf":
        return set()
    found = {node[0]}
    for child in node[1:]:
        if isinstance(child, tuple):
            found |= _operators_in(child)
    return found


def as_signed(value: int, width: int) -> int:
    return value - (1 << width) if value >> (width - 1) else value


# --------------------------------------------------------------------------------------------
# Reading answers
# --------------------------------------------------------------------------------------------


def read_integer(text: str, allow_prefixed: bool) -> int | None:
    """A decimal integer (any exact notation the shared number reader takes), or, when
    ``allow_prefixed``, a ``0x``/``0b`` literal; None otherwise."""
    text = text.strip().rstrip(".").strip()
    if allow_prefixed and len(text) > 2 and text[:2].lower() in ("0x", "0b"):
        digits = text[2:].replace("_", "")
        allowed = "0123456789abcdefABCDEF" if text[1] in "xX" else "01"
        if digits and all(c in allowed for c in digits):
            return int(digits, 16 if text[1] in "xX" else 2)
        return None
    value = parse_rational(text)
    if value is None or value.denominator != 1:
        return None
    return int(value)


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

SEMANTICS = (
    "All values are {w}-bit unsigned integers: every result is reduced modulo 2^{w} (bits above bit {top} are "
    "dropped). & | ^ are bitwise and, or, xor; ~x flips all {w} bits; x << k and x >> k are logical shifts; "
    "sar(x, k) shifts right by k copying the sign bit (bit {top}) into the vacated bits; rotl(x, k) and rotr(x, k) "
    "rotate left and right within {w} bits; + and - wrap around modulo 2^{w}. Literals are decimal, "
    "hexadecimal (0x) or binary (0b)."
)
ASK_TEXT = {
    "unsigned": "What is the value of the expression, as an unsigned integer? Give it in decimal (0x... or 0b... are accepted too).",
    "signed": "Read the {w} bits of the result as a signed integer in two's complement (bit {top} has weight -2^{top}). What is that signed value? Give it in decimal.",
    "popcount": "How many 1 bits does the result have (its popcount)? Give the count in decimal.",
}
PROMPT = """{semantics}

Expression: {expression}

{ask} Put the final answer in <answer>...</answer>."""


@family(
    "bitwise",
    domain="math",
    knobs=BitwiseKnobs,
    levels=LEVELS,
    description="Evaluate fixed-width integer bit expressions (and/or/xor/not, shifts, rotations, sar, wrap-around sums, popcount, two's complement).",
    verifier_kind="exact value",
)
class Bitwise(Family):
    def generate(self, knobs: BitwiseKnobs, rng: np.random.Generator) -> TaskDraft:
        w = knobs.width
        for _ in range(1000):
            tree = draw_expression(knobs, rng, knobs.depth)
            operations = evaluate(tree, w)[1]
            if operations < min(knobs.depth, 2) or degenerate(tree, w):
                continue
            value, ops = evaluate(tree, w)
            ask = ASKS[int(rng.integers(knobs.asks))]
            answer = {"unsigned": value, "signed": as_signed(value, w), "popcount": bin(value).count("1")}[
                ask
            ]
            weak_value, _ = evaluate(tree, w, bounded=False)
            weak = {"unsigned": weak_value, "signed": weak_value, "popcount": bin(weak_value).count("1")}[ask]
            if not (knobs.width_matters and weak == answer):
                break
        else:  # pragma: no cover - almost every draw has a non-constant value
            raise RuntimeError(f"could not draw a bitwise expression for {knobs}")
        expression = render(tree, w)
        prompt = PROMPT.format(
            semantics=SEMANTICS.format(w=w, top=w - 1),
            expression=expression,
            ask=ASK_TEXT[ask].format(w=w, top=w - 1),
        )
        metadata = {
            "width": w,
            "ask": ask,
            "expression": expression,
            "unsigned": str(value),
            "operators": sorted(_operators_in(tree)),
            "bit_operations": ops * w,
            "weak": str(weak),
            "canonical_hash": content_hash([w, ask, expression]),
        }
        return TaskDraft(prompt=prompt, answer=str(answer), metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response)
        if isinstance(text, Verdict):
            return text
        if len(text) > MAX_ANSWER_CHARS:
            return Verdict.bad_format(f"the answer is longer than {MAX_ANSWER_CHARS} characters")
        value = read_integer(text, allow_prefixed=task.metadata["ask"] == "unsigned")
        if value is None:
            return Verdict.bad_format(f"could not read {text[:40]!r} as an integer")
        if value == int(task.answer):
            return Verdict.right(parsed=value)
        return Verdict.wrong(f"{value} is not the {task.metadata['ask']} result", parsed=value)

    def solve_exact(self, task: Task) -> SolverRun:
        # evaluation at the stated width; effort = bits processed (width times operations)
        return SolverRun(response=tagged(task.answer), effort=float(task.metadata["bit_operations"]))

    def solve_weak(self, task: Task) -> SolverRun:
        # unbounded integers: forgets the width
        return SolverRun(
            response=tagged(task.metadata["weak"]),
            effort=float(task.metadata["bit_operations"]) / task.metadata["width"],
        )

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value, w = int(task.answer), task.metadata["width"]
        unsigned = int(task.metadata["unsigned"])
        wrong = [value + 1, value - 1, value ^ (1 << int(rng.integers(w))), value + 2]
        if task.metadata["ask"] == "signed" and value < 0:
            wrong.append(unsigned)  # the unsigned reading of the same bits
        elif task.metadata["ask"] == "unsigned" and unsigned >> (w - 1):
            wrong.append(as_signed(unsigned, w))
        return [tagged(v) for v in dict.fromkeys(wrong) if v != value]
