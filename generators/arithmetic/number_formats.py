"""Machine number formats: two's complement integers and IEEE-754 binary floats, both directions.

Encode: write the bit pattern of a value (an N-bit two's-complement integer, or the IEEE-754
half/single/double pattern of a decimal, rounded to nearest, ties to even). Decode: give the
exact value of a bit pattern (an integer, an exact rational, or inf/-inf/NaN). The IEEE encoder
and decoder here are exact (fractions, explicit round-half-even, subnormals, overflow to
infinity) and are cross-checked against ``struct``/``numpy`` in the tests. Bit patterns are
accepted as binary (spaces/underscores allowed, optional ``0b``) or as hex (``0x`` + the full
number of hex digits); values as integers, exact decimals, fractions, ``1.5e-3`` or ``m*2^e``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.arithmetic._common import extract
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import parse_rational, read_integer

WEAK_WIDTH = 16  # the weak solver converts patterns of at most 16 bits by hand
PRECISIONS = {"half": (5, 10), "single": (8, 23), "double": (11, 52)}  # exponent bits, fraction bits
_SCIENTIFIC = re.compile(r"^([+\-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE]([+\-]?[0-9]{1,4})$")
_POWER = re.compile(
    r"^([+\-]?[0-9]+(?:/[0-9]+)?)\s*(?:\*|×|·|\\times|\\cdot)\s*2\s*\^\s*\{?\s*\(?([+\-]?[0-9]{1,4})\)?\s*\}?$"
)
_INF = re.compile(r"^([+\-]?)\s*(?:inf|infinity|∞|\\infty)$", re.IGNORECASE)
_NAN = re.compile(r"^[+\-]?\s*(?:nan|qnan|snan)$", re.IGNORECASE)


@dataclass(frozen=True)
class NumberFormatsKnobs(Knobs):
    kind: str = knob(
        "int", choices=("int", "float", "mixed"), help="two's complement ints or IEEE-754 floats"
    )
    direction: str = knob(
        "mixed", choices=("encode", "decode", "mixed"), help="value -> bits or bits -> value"
    )
    width: int = knob(8, choices=(4, 8, 16, 32, 64), help="bits of the two's complement integers")
    precision: str = knob("half", choices=tuple(PRECISIONS), help="IEEE-754 binary format of the floats")
    inexact: bool = knob(False, help="decimals to encode may need rounding (round to nearest, ties to even)")
    specials: bool = knob(False, help="include subnormals, zeros, infinities and NaN")


LEVELS = {
    1: NumberFormatsKnobs(kind="int", width=8),
    2: NumberFormatsKnobs(kind="float", direction="decode", precision="half"),
    # 16-bit formats hold only 65,536 patterns: from level 3 on, 32 bits or more keep repeats rare
    3: NumberFormatsKnobs(kind="mixed", width=32, precision="single"),
    4: NumberFormatsKnobs(kind="int", width=32),
    5: NumberFormatsKnobs(kind="mixed", width=32, precision="single", inexact=True),
    6: NumberFormatsKnobs(kind="mixed", width=32, precision="single", inexact=True, specials=True),
    7: NumberFormatsKnobs(kind="float", precision="double", inexact=True),
    8: NumberFormatsKnobs(kind="mixed", width=64, precision="double", inexact=True),
    9: NumberFormatsKnobs(kind="mixed", width=64, precision="double", inexact=True, specials=True),
    10: NumberFormatsKnobs(kind="float", precision="double", inexact=True, specials=True),
}


# --------------------------------------------------------------------------------------------
# Exact conversions
# --------------------------------------------------------------------------------------------


def twos_encode(value: int, width: int) -> str:
    if not -(2 ** (width - 1)) <= value < 2 ** (width - 1):
        raise ValueError(f"{value} does not fit in {width} bits")
    return format(value % 2**width, f"0{width}b")


def twos_decode(bits: str) -> int:
    value = int(bits, 2)
    return value - 2 ** len(bits) if bits[0] == "1" else value


def _round_half_even(q: Fraction) -> int:
    floor = q.numerator // q.denominator
    rest = q - floor
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2 == 1):
        return floor + 1
    return floor


def _floor_log2(a: Fraction) -> int:
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def float_encode(x: Fraction, precision: str, negative_zero: bool = False) -> str:
    """The IEEE-754 bit pattern of the exact rational ``x`` (round to nearest, ties to even)."""
    ebits, mbits = PRECISIONS[precision]
    bias = 2 ** (ebits - 1) - 1
    sign = 1 if x < 0 or (x == 0 and negative_zero) else 0
    a = abs(x)
    exp_field = mant = 0
    if a != 0:
        e = _floor_log2(a)
        if e < 1 - bias:  # subnormal range: fixed scale 2^(1 - bias - mbits)
            m = _round_half_even(a / Fraction(2) ** (1 - bias - mbits))
            exp_field, mant = (1, m - 2**mbits) if m >= 2**mbits else (0, m)
        else:
            m = _round_half_even(a / Fraction(2) ** (e - mbits))
            if m == 2 ** (mbits + 1):
                m, e = 2**mbits, e + 1
            exp_field, mant = e + bias, m - 2**mbits
            if exp_field >= 2**ebits - 1:
                exp_field, mant = 2**ebits - 1, 0  # overflow rounds to infinity
    return f"{sign}{exp_field:0{ebits}b}{mant:0{mbits}b}"


def float_decode(bits: str, precision: str) -> Fraction | str:
    """The exact value of an IEEE-754 pattern: a Fraction, or "inf", "-inf", "nan", "-0"."""
    ebits, mbits = PRECISIONS[precision]
    bias = 2 ** (ebits - 1) - 1
    sign, exp_field, mant = bits[0] == "1", int(bits[1 : 1 + ebits], 2), int(bits[1 + ebits :], 2)
    if exp_field == 2**ebits - 1:
        return "nan" if mant else ("-inf" if sign else "inf")
    if exp_field == 0:
        value = mant * Fraction(2) ** (1 - bias - mbits)
        if value == 0 and sign:
            return "-0"
    else:
        value = (2**mbits + mant) * Fraction(2) ** (exp_field - bias - mbits)
    return -value if sign else value


def exact_text(value: Fraction) -> str:
    """A dyadic rational as an exact decimal, or as ``m*2^e`` (m odd) when the decimal is long."""
    text = exact_decimal(value)
    if len(text) <= 40:
        return text
    m, e = value.numerator, -(value.denominator.bit_length() - 1)
    while m % 2 == 0:
        m, e = m // 2, e + 1
    return f"{m}*2^{e}"


def exact_decimal(value: Fraction) -> str:
    """The finite decimal expansion of a dyadic rational (``-13.375``)."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    k = value.denominator.bit_length() - 1  # denominator is 2^k
    digits = str(value.numerator * 5**k)
    if k == 0:
        return sign + digits
    digits = digits.rjust(k + 1, "0")
    whole, frac = digits[:-k], digits[-k:].rstrip("0")
    return sign + whole + ("." + frac if frac else "")


# --------------------------------------------------------------------------------------------
# Reading answers
# --------------------------------------------------------------------------------------------


def parse_bits(text: str, width: int) -> str | None:
    """Binary (``0b``, spaces, underscores allowed) or full-width hex (``0x``) -> a bit string."""
    compact = re.sub(r"[\s_']", "", text.strip().strip("`$")).lower()
    if compact.startswith("0x"):
        digits = compact[2:]
        if len(digits) != width // 4 or not re.fullmatch(r"[0-9a-f]+", digits):
            return None
        return format(int(digits, 16), f"0{width}b")
    compact = compact.removeprefix("0b")
    if len(compact) != width or not re.fullmatch(r"[01]+", compact):
        return None
    return compact


def parse_value(text: str) -> Fraction | str | None:
    """An exact value, ``"inf"``/``"-inf"``/``"nan"``, ``"-0"`` for negative zero, or ``None``."""
    text = text.strip().strip("$").strip().replace("\u2212", "-")
    if match := _INF.match(text):
        return "-inf" if match.group(1) == "-" else "inf"
    if _NAN.match(text):
        return "nan"
    if re.fullmatch(r"-\s*0(?:\.0*)?", text):
        return "-0"
    if (value := parse_rational(text)) is not None:
        return value
    if match := _SCIENTIFIC.match(text):
        mantissa = parse_rational(match.group(1) + match.group(2))
        return None if mantissa is None else mantissa * Fraction(10) ** int(match.group(3))
    if match := _POWER.match(text):
        mantissa = parse_rational(match.group(1))
        return None if mantissa is None else mantissa * Fraction(2) ** int(match.group(2))
    return None


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def _draw_int(knobs: NumberFormatsKnobs, rng: np.random.Generator) -> int:
    half = 2 ** (knobs.width - 1)
    while True:
        magnitude_bits = int(rng.integers(max(2, knobs.width // 2), knobs.width))
        value = (
            int(rng.integers(0, 2**magnitude_bits))
            if magnitude_bits < 63
            else int(rng.integers(0, 2**62)) * 2
        )
        value = -value if rng.random() < 0.6 else value
        if -half <= value < half and abs(value) > 1:
            return value


def _draw_float(knobs: NumberFormatsKnobs, rng: np.random.Generator, encode: bool) -> tuple[Fraction, bool]:
    """(value, negative zero?) for a float task."""
    ebits, mbits = PRECISIONS[knobs.precision]
    bias = 2 ** (ebits - 1) - 1
    sign = -1 if rng.random() < 0.4 else 1
    if knobs.specials and rng.random() < 0.25:
        choice = rng.random()
        if choice < 0.02:  # zeros: only four such tasks exist, so they stay rare
            return Fraction(0), sign < 0
        if choice < 0.6:  # a subnormal
            mant = int(rng.integers(1, 2 ** min(mbits, 12)))
            return sign * mant * Fraction(2) ** (1 - bias - mbits), False
        # beyond the largest finite value: encodes to infinity
        return sign * Fraction(int(rng.integers(2, 10**4))) * Fraction(2) ** (bias + 1), False
    if encode and knobs.inexact and rng.random() < 0.7:
        # a short decimal that binary cannot hold exactly; version 2: one more digit before the
        # point (one-place decimals up to 99.9 repeated too often)
        while True:
            places = int(rng.integers(1, 4))
            value = Fraction(int(rng.integers(1, 10 ** (places + 3))), 10**places)
            if value.denominator % 5 == 0:
                return sign * value, False
    # enough bits that tasks rarely repeat; version 2: two more for doubles (with at most 12,
    # levels 7 and 10 repeated ~1% of 2,000 tasks)
    top = min(mbits + 1, 14 if knobs.precision == "double" else 12)
    significant = int(rng.integers(top - 4, top + 1))
    mant = int(rng.integers(2 ** (significant - 1), 2**significant)) | 1
    low, high = -min(bias - 1, 20), min(bias, 20)
    exponent = int(rng.integers(low, high + 1)) - (significant - 1)
    return sign * mant * Fraction(2) ** exponent, False


def draw(knobs: NumberFormatsKnobs, rng: np.random.Generator) -> dict:
    kind = knobs.kind if knobs.kind != "mixed" else ("int", "float")[int(rng.integers(2))]
    direction = knobs.direction if knobs.direction != "mixed" else ("encode", "decode")[int(rng.integers(2))]
    if kind == "int":
        value = _draw_int(knobs, rng)
        bits = twos_encode(value, knobs.width)
        return {"kind": kind, "direction": direction, "width": knobs.width, "value": str(value), "bits": bits}
    x, negative_zero = _draw_float(knobs, rng, direction == "encode")
    bits = float_encode(x, knobs.precision, negative_zero)
    ebits, mbits = PRECISIONS[knobs.precision]
    if direction == "decode" and bits[1 : 1 + ebits] == "1" * ebits and rng.random() < 0.95:
        # an all-ones exponent to decode: mostly NaNs with a random payload (only two infinities exist)
        payload = int(rng.integers(1, 2 ** min(mbits, 62)))
        bits = bits[: 1 + ebits] + format(payload, f"0{mbits}b")
    if direction == "encode":
        shown = (
            "-0"
            if negative_zero
            else (exact_decimal(x) if x.denominator & (x.denominator - 1) == 0 else _decimal(x))
        )
    else:
        decoded = float_decode(bits, knobs.precision)
        shown = decoded if isinstance(decoded, str) else exact_text(decoded)
    width = 1 + sum(PRECISIONS[knobs.precision])
    return {
        "kind": kind,
        "direction": direction,
        "width": width,
        "precision": knobs.precision,
        "value": shown,
        "bits": bits,
    }


def _decimal(x: Fraction) -> str:
    """Exact decimal text of a rational whose denominator divides a power of ten."""
    places = next(p for p in range(40) if 10**p % x.denominator == 0)
    sign = "-" if x < 0 else ""
    digits = str(abs(x.numerator) * (10**places // x.denominator)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}" if places else sign + digits


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


def _prompt(task: dict) -> str:
    width, value, bits = task["width"], task["value"], task["bits"]
    bit_format = (
        f"Give all {width} bits, most significant first, for example <answer>{'01' * (width // 2)}</answer> "
        f"(spaces between groups are fine; a 0x hex form with {width // 4} digits is also accepted)."
    )
    if task["kind"] == "int":
        if task["direction"] == "encode":
            return f"Write the integer {value} in {width}-bit two's complement.\n\n{bit_format}"
        return (
            f"The {width}-bit pattern {bits} holds a two's complement integer. What is its value "
            f"in decimal? Answer like <answer>-42</answer>."
        )
    name = f"IEEE-754 {task['precision']} precision (binary{width})"
    if task["direction"] == "encode":
        return (
            f"Write the {name} bit pattern of the number {value}, rounding to the nearest representable "
            f"value (ties to even) if it is not exact; values too large become infinity.\n\n{bit_format}"
        )
    return (
        f"The bit pattern {bits} is an {name} floating-point number. What is its exact value? Answer "
        "with an exact decimal, a fraction or m*2^e (like <answer>-13.375</answer>, <answer>3/1024</answer> "
        "or <answer>5*2^-1070</answer>), or inf, -inf, NaN, or -0 for negative zero."
    )


def _effort(task: dict) -> int:
    if task["kind"] == "int":
        return task["width"] + task["bits"].count("1")  # a bit per position plus the negation's work
    ebits, mbits = PRECISIONS[task["precision"]]
    significant = len(task["bits"][1 + ebits :].rstrip("0"))
    shift = abs(int(task["bits"][1 : 1 + ebits], 2) - (2 ** (ebits - 1) - 1))
    rounding = mbits if task["direction"] == "encode" and "." in task["value"] else 0
    return 1 + ebits + significant + shift + rounding


@family(
    "number_formats",
    domain="arithmetic",
    knobs=NumberFormatsKnobs,
    levels=LEVELS,
    description="Two's complement and IEEE-754 (half/single/double) bit patterns, value to bits and back.",
    verifier_kind="exact value",
    version=2,
)
class NumberFormats(Family):
    def generate(self, knobs: NumberFormatsKnobs, rng: np.random.Generator) -> TaskDraft:
        task = draw(knobs, rng)
        answer = task["bits"] if task["direction"] == "encode" else task["value"]
        metadata = {**task, "bit_operations": _effort(task)}
        metadata["canonical_hash"] = content_hash(
            [task[k] for k in ("kind", "direction", "width", "value", "bits")]
        )
        return TaskDraft(prompt=_prompt(task), answer=answer, metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = extract(response)
        if isinstance(text, Verdict):
            return text
        meta = task.metadata
        if meta["direction"] == "encode":
            bits = parse_bits(text, meta["width"])
            if bits is None:
                return Verdict.bad_format(
                    f"expected {meta['width']} bits (or 0x + {meta['width'] // 4} hex digits)"
                )
            if bits == meta["bits"]:
                return Verdict.right(parsed=bits)
            return Verdict.wrong("not the right bit pattern", parsed=bits)
        if meta["kind"] == "int":
            value = read_integer(text)
            if isinstance(value, Verdict):
                return value
            return (
                Verdict.right(parsed=value)
                if str(value) == meta["value"]
                else Verdict.wrong("wrong value", parsed=value)
            )
        parsed = parse_value(text)
        if parsed is None:
            return Verdict.bad_format(f"could not read {text[:60]!r} as an exact value, inf or NaN")
        expected = parse_value(meta["value"])
        shown = parsed if isinstance(parsed, str) else str(parsed)
        if parsed == expected:
            return Verdict.right(parsed=shown)
        return Verdict.wrong(f"{shown} is not the value of the pattern", parsed=shown)

    def solve_exact(self, task: Task) -> SolverRun:
        meta = task.metadata
        if meta["kind"] == "int":
            answer = (
                twos_encode(int(meta["value"]), meta["width"])
                if meta["direction"] == "encode"
                else str(twos_decode(meta["bits"]))
            )
        elif meta["direction"] == "encode":
            negative_zero = meta["value"] == "-0"
            answer = float_encode(
                Fraction(0) if negative_zero else Fraction(meta["value"]), meta["precision"], negative_zero
            )
        else:
            decoded = float_decode(meta["bits"], meta["precision"])
            answer = decoded if isinstance(decoded, str) else exact_text(decoded)
        return SolverRun(response=f"<answer>{answer}</answer>", effort=float(meta["bit_operations"]))

    def solve_weak(self, task: Task) -> SolverRun:
        # by hand: patterns of at most 16 bits, no rounding, no special values
        meta = task.metadata
        value = parse_value(meta["value"])
        needs_rounding = isinstance(value, Fraction) and value.denominator % 5 == 0
        special = meta["kind"] == "float" and not (isinstance(value, Fraction) and value)
        if meta["width"] > WEAK_WIDTH or needs_rounding or special:
            return SolverRun(response=None, effort=1.0)
        return self.solve_exact(task)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = task.metadata
        bits = meta["bits"]
        if meta["direction"] == "encode":
            flip_low = bits[:-1] + ("1" if bits[-1] == "0" else "0")
            flip_sign = ("1" if bits[0] == "0" else "0") + bits[1:]
            shifted = bits[1:] + bits[0] if bits[1:] + bits[0] != bits else flip_low[::-1]
            return [f"<answer>{b}</answer>" for b in (flip_low, flip_sign, shifted)] + [
                f"<answer>{bits[:-1]}</answer>"
            ]
        value = meta["value"]
        if meta["kind"] == "int":
            v = int(value)
            unsigned = int(bits, 2)
            wrong = {v + 1, -v if v else 1, unsigned if unsigned != v else v - 1}
            return [f"<answer>{w}</answer>" for w in wrong]
        if value in ("inf", "-inf", "nan", "-0"):
            others = [x for x in ("inf", "-inf", "nan", "1") if x != value]
            return [f"<answer>{x}</answer>" for x in others]
        x = parse_value(value)
        assert isinstance(x, Fraction)
        wrong = [x * 2, x + 1, -x] if x else [Fraction(1), Fraction(-1, 2)]
        return [f"<answer>{exact_text(w)}</answer>" for w in wrong] + ["<answer>nan</answer>"]
