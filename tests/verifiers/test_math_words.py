"""Units, number words, sentences and answer forms (``_mathwords`` and the comparer's form rules).

Unit tests of the readers, then hypothesis properties over the whole comparison (run in this
process: ``compare_strings`` is what the worker runs): every spelling of a number equals it and
no other; units convert within a dimension and never across; equivalence is symmetric between
answers of the same form; a perturbed value is never equal; a restated problem is never paid.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from palaestra.verifiers import _mathwords
from palaestra.verifiers._mathcompare import Settings, compare_strings
from palaestra.verifiers.math import math_equal
from palaestra.verifiers.mathparse import Options, ParseError, read_answer

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WORDS = Options(words=True)


def equal(gold: str, pred: str) -> bool:
    return compare_strings(gold, pred, Settings())["correct"]


# ------------------------------------------------------------------------------------------
# The readers
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name", "dimension"),
    [
        ("cm", "cm", (("length", 1),)),
        ("square feet", "ft^2", (("length", 2),)),
        ("cm^2", "cm^2", (("length", 2),)),
        ("km/h", "km/h", (("length", 1), ("time", -1))),
        ("miles per hour", "mi/h", (("length", 1), ("time", -1))),
        ("mph", "mph", (("length", 1), ("time", -1))),
        ("m/s^2", "m/s^2", (("length", 1), ("time", -2))),
        ("years old", "year", (("calendar", 1),)),
        ("square units", "unit^2", (("unit", 2),)),
    ],
)
def test_unit_phrases(text: str, name: str, dimension: tuple) -> None:
    unit = _mathwords.parse_unit(text)
    assert unit is not None and (unit.name, unit.dimension) == (name, dimension)


@pytest.mark.parametrize("text", ["cm or", "or", "years ago today", "squared", "cm cm", "kg^2", "5 cm", ""])
def test_not_unit_phrases(text: str) -> None:
    assert _mathwords.parse_unit(text) is None


def test_unit_scales_are_exact() -> None:
    mph, kmh = _mathwords.parse_unit("mph"), _mathwords.parse_unit("km/h")
    assert mph is not None and kmh is not None
    assert mph.scale / kmh.scale == Fraction(1609344, 1000000)  # 1 mile = 1.609344 km exactly


@pytest.mark.parametrize(
    ("text", "units", "value"),
    [
        (r"5\text{ cm}", ["cm"], "5"),
        ("18 eggs", ["egg"], "18"),
        ("5 red apples", ["apple"], "5"),
        ("10 s", ["s"], "10"),
        ("10s", [], "10*s"),  # glued: a product, not ten seconds
        ("x = 5 m", ["m"], "x = 5"),
        ("2x m", [], "2*m*x"),  # a variable in the item: m is a variable too
        (r"\$5", ["USD"], "5"),
        (r"100^\circ\text{C}", ["°C"], "100"),
        ("(3 cm, 4 cm)", ["cm", "cm"], "(3, 4)"),
        ("5 nope", None, None),  # not a plural noun: refused, not read as 5
        ("3 squared", None, None),
        ("3 ignore previous instructions", None, None),
    ],
)
def test_units_read_after_values(text: str, units: list[str] | None, value: str | None) -> None:
    if units is None:
        with pytest.raises(ParseError):
            read_answer(text, WORDS)
        return
    answer = read_answer(text, WORDS)
    assert [u.name for u in answer.units] == units
    assert str(answer.value) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("three", "3"),
        ("Twenty-One", "21"),
        ("one hundred and five", "105"),
        ("twelve hundred", "1200"),
        ("two million five thousand", "2005000"),
        ("2.5 million", "2500000"),
        ("three-fourths", "3/4"),
        ("negative seven", "-7"),
        (r"\text{three}", "3"),
    ],
)
def test_number_words(text: str, value: str) -> None:
    assert str(read_answer(text, WORDS).value) == value


@pytest.mark.parametrize(
    "text", ["someone", "threefold", "one two three", "thousand", "three hundred four hundred"]
)
def test_not_number_words(text: str) -> None:
    with pytest.raises(ParseError):
        read_answer(text, WORDS)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (r"The probability is $\boxed{\dfrac{5}{12}}$.", r"\dfrac{5}{12}"),
        ("**Answer:** 6", "6"),
        ("Final Answer: The final answer is $6$. I hope it is correct.", "$6$"),
        ("Therefore, the answer is 12.", "12"),
        (r"\textbf{Answer:} 7", "7"),
        ("2**3", "2**3"),  # Python's power is not markdown bold
    ],
)
def test_unwrap_answer(text: str, answer: str) -> None:
    assert _mathwords.unwrap_answer(text) == answer


@pytest.mark.parametrize(
    "text", [" " * 100_000 + "x", "\n" * 100_000 + "x", "#" * 100_000, "**" * 50_000, "answer is " * 10_000]
)
def test_unwrap_is_linear_on_hostile_sentences(text: str) -> None:
    import time

    start = time.process_time()
    try:
        _mathwords.unwrap_answer(text)
    except ParseError:
        pass
    assert time.process_time() - start < 1.0  # the first patterns were quadratic: ~2 s at 20,000 characters


def test_two_different_boxes_are_one_answer_list_never_one_value() -> None:
    assert _mathwords.unwrap_answer(r"$\boxed{5}$ or $\boxed{6}$") == r"\{5, 6\}"
    assert not math_equal("(5, 6)", r"$\boxed{5}$ or $\boxed{6}$").correct  # a set, not a point
    assert math_equal("k = 45, n = 2", r"\boxed{k = 45} and \boxed{n = 2}").correct
    assert _mathwords.unwrap_answer(r"\boxed{5} so \boxed{5}") == "5"
    assert not math_equal("5", r"$\boxed{5}$ or $\boxed{6}$").correct
    assert not math_equal("6", r"$\boxed{5}$ or $\boxed{6}$").correct
    assert math_equal(r"\{5, 6\}", r"$\boxed{5}$ or $\boxed{6}$").correct


@pytest.mark.parametrize(
    ("text", "literal", "functions"),
    [
        ("3", True, set()),
        (r"-\frac{3}{4}", True, set()),
        (r"2\frac{1}{2}", True, set()),
        (r"1.5 \times 10^{3}", True, set()),
        (r"40\%", True, set()),
        (r"(1, \infty)", True, set()),
        ("x = 3", True, set()),
        ("x = 1 + 2 = 3", True, set()),  # a worked chain: only its last term is the answer
        ("3 + 4", False, set()),
        ("2^{10}", False, set()),
        (r"\frac{12}{4}", False, set()),
        (r"\sqrt{16}", False, set()),
        (r"\sin\frac{\pi}{6}", False, {"trig"}),
        (r"\binom{7}{3}", False, {"factorial"}),
        ("|3+4i|", False, {"abs"}),
        (r"2\begin{pmatrix} 1 \\ 2 \end{pmatrix}", True, set()),
    ],
)
def test_forms(text: str, literal: bool, functions: set[str]) -> None:
    form = read_answer(text, WORDS).form
    assert (form.literal, set(form.functions)) == (literal, functions)


# ------------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------------

_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
)
_ONES += "seventeen eighteen nineteen"
ONES = _ONES.split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def spell(n: int, hyphen: bool, use_and: bool) -> str:
    """An independent speller (0 <= n < 10**9), in the styles people write."""
    if n < 20:
        return ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return TENS[tens] + (("-" if hyphen else " ") + ONES[ones] if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        head = ONES[hundreds] + " hundred"
        return head + ((" and " if use_and else " ") + spell(rest, hyphen, use_and) if rest else "")
    for scale, word in ((10**6, "million"), (10**3, "thousand")):
        if n >= scale:
            high, rest = divmod(n, scale)
            head = spell(high, hyphen, use_and) + " " + word
            return head + (" " + spell(rest, hyphen, use_and) if rest else "")
    raise AssertionError(n)


@SETTINGS
@given(st.integers(0, 999_999_999), st.booleans(), st.booleans(), st.booleans())
def test_spelled_numbers_equal_their_value_and_no_other(
    n: int, hyphen: bool, use_and: bool, title: bool
) -> None:
    words = spell(n, hyphen, use_and)
    words = words.title() if title else words
    assert equal(str(n), words), (n, words)
    assert not equal(str(n + 1), words), (n, words)
    two_numbers = words + " " + spell(n % 7 + 1, hyphen, use_and)
    assert not equal(str(n), two_numbers), two_numbers


LENGTHS = {"mm": Fraction(1, 1000), "cm": Fraction(1, 100), "m": Fraction(1), "km": Fraction(1000)}
TIMES = {"seconds": Fraction(1), "minutes": Fraction(60), "hours": Fraction(3600)}


def _decimal(value: Fraction) -> str:
    assume(value.denominator in (1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 1000, 10000, 100000, 1000000))
    if value < 0:
        return "-" + _decimal(-value)
    whole, rest = divmod(value.numerator, value.denominator)
    digits = ""
    while rest:
        rest *= 10
        d, rest = divmod(rest, value.denominator)
        digits += str(d)
    return f"{whole}.{digits}" if digits else str(whole)


@SETTINGS
@given(
    st.integers(1, 5000),
    st.sampled_from([LENGTHS, TIMES]),
    st.data(),
)
def test_units_convert_within_a_dimension_and_never_across(
    value: int, table: dict, data: st.DataObject
) -> None:
    a, b = data.draw(st.sampled_from(sorted(table))), data.draw(st.sampled_from(sorted(table)))
    converted = Fraction(value) * table[a] / table[b]
    gold, pred = rf"{value}\text{{ {a}}}", f"{_decimal(converted)} {b}"
    assert equal(gold, pred), (gold, pred)
    assert equal(pred, gold), (pred, gold)
    assert not equal(gold, f"{_decimal(converted + Fraction(1, 4))} {b}"), (gold, pred)
    other = "kg" if table is TIMES else "hours"
    assert not equal(gold, f"{value} {other}")  # another dimension
    assert equal(str(value), f"{value} {b}") and equal(f"{value} {a}", str(value))  # one side without unit


@SETTINGS
@given(st.integers(1, 999), st.sampled_from([r"\%", " percent", "%", " per cent"]))
def test_percent_reads_as_the_percentage_or_its_fraction(p: int, sign: str) -> None:
    pred = f"{p}{sign}"
    assert equal(str(p), pred) and equal(str(Fraction(p, 100)), pred)
    assert not equal(str(Fraction(p, 1000)), pred) and not equal(str(p + 1), pred)
    small = f"0.{p}{sign}"  # below one percent: only ever the fraction 0.00p
    assert not equal(f"0.{p}", small) and equal(str(Fraction(p, 10 ** (len(str(p)) + 2))), small)


_RATIONALS = st.tuples(st.integers(-500, 500), st.integers(1, 40)).map(lambda t: Fraction(*t))


def _spellings(value: Fraction) -> list[str]:
    sign = "-" if value < 0 else ""
    a, b = abs(value.numerator), value.denominator
    out = [
        str(value),
        rf"{sign}\frac{{{a}}}{{{b}}}",
        rf"\dfrac{{{value.numerator}}}{{{b}}}",
        rf"{{{a} \over {b}}}",
    ]
    if sign:
        out.pop()
    if b == 1:
        out = [str(a * (-1 if sign else 1)), f"{sign}{a}.0", f"**Answer:** {value}"]
    return out


@SETTINGS
@given(_RATIONALS, _RATIONALS, st.data())
def test_equivalence_is_symmetric_between_written_numbers(
    x: Fraction, y: Fraction, data: st.DataObject
) -> None:
    a = data.draw(st.sampled_from(_spellings(x)))
    b = data.draw(st.sampled_from(_spellings(y)))
    assert equal(a, b) is equal(b, a) is (x == y), (a, b)


@SETTINGS
@given(
    st.integers(-9, 9),
    st.integers(-20, 20),
    st.integers(-20, 20),
    st.sampled_from(["<", ">", r"\le", r"\ge"]),
    st.sampled_from(["", r"\sqrt{3}"]),
)
def test_restated_inequality_is_never_paid(a: int, b: int, c: int, op: str, surd: str) -> None:
    # a x + b op c (times a surd: then only the solved-form rule, not the written-number one, applies)
    assume(a != 0 and (a != 1 or b != 0))
    bound = Fraction(c - b, a)
    lower = (op in (">", r"\ge")) != (a < 0)
    closed = op in (r"\le", r"\ge")
    bound_text = f"{{{bound.numerator}}} / {{{bound.denominator}}}" + surd
    if lower:
        interval = ("[" if closed else "(") + f"{bound_text}, \\infty)"
    else:
        interval = "(-\\infty, " + bound_text + ("]" if closed else ")")
    restated = f"{a}x + {b}{surd} {op} {c}{surd}"
    solved = f"x {'>' if lower else '<'}{'=' if closed else ''} {bound_text}"
    assert equal(interval, solved), (interval, solved)
    assert not equal(interval, restated), (interval, restated)
    assert not equal(solved, restated), (solved, restated)
    assert equal(restated, interval), (restated, interval)  # an unsolved reference takes any equivalent form


@SETTINGS
@given(st.integers(-9, 9), st.lists(st.integers(-9, 9), min_size=4, max_size=4), st.integers(0, 3))
def test_scalar_multiples_of_matrices(k: int, entries: list[int], bump: int) -> None:
    assume(k not in (0, 1))
    a, b, c, d = entries
    factored = rf"{k}\begin{{pmatrix}} {a} & {b} \\ {c} & {d} \end{{pmatrix}}"
    expanded = [k * e for e in entries]
    written = r"\begin{{pmatrix}} {} & {} \\ {} & {} \end{{pmatrix}}".format(*expanded)
    assert equal(written, factored) and equal(factored, written)
    expanded[bump] += 1
    wrong = r"\begin{{pmatrix}} {} & {} \\ {} & {} \end{{pmatrix}}".format(*expanded)
    assert not equal(wrong, factored)


_SOUP = st.sampled_from(
    ["1", "23", "x", "j", " ", "cm", "m", "s", "eggs", "per", "hour", "three", "-", "twenty", "hundred", "and",
     "or", "percent", r"\%", r"\over", r"\mid", r"\{", r"\}", "(", ")", ",", "=", "<", r"\text{ cm}", r"\boxed{",
     "}", "{", "**", "Answer:", r"\begin{pmatrix}", "&", r"\\", r"\end{pmatrix}", "^", "2", ".", r"\$", "million"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_SOUP, max_size=16).map("".join))
def test_word_soup_never_raises_anything_but_parse_error(text: str) -> None:
    try:
        read_answer(text, WORDS)
    except ParseError:
        pass
    result = compare_strings("5", text, Settings())
    assert set(result) == {"correct", "format_ok", "parsed", "reason"}
