"""Property tests: every rendering of an exact value equals it; small perturbations do not."""

from __future__ import annotations

import re
from fractions import Fraction

import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from palaestra.verifiers._mathcompare import Settings, compare_strings
from palaestra.verifiers.math import MathPolicy, math_equal

# Equivalence tests must not depend on how loaded the test machine is: a generous bound
# here; the default bound is exercised in test_math_api.py and measured in the benchmark.
POLICY = MathPolicy(timeout_s=60)


def _eq(gold: str, pred: str):
    return math_equal(gold, pred, policy=POLICY)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEWER = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------------------------------
# Random exact expressions and their renderings
# ------------------------------------------------------------------------------------------

_LEAVES = st.one_of(
    st.integers(-12, 12).map(sympy.Integer),
    st.tuples(st.integers(-9, 9), st.integers(1, 9)).map(lambda t: sympy.Rational(*t)),
    st.sampled_from([2, 3, 5, 6]).map(sympy.sqrt),
    st.just(sympy.pi),
    st.just(sympy.I),
)


def _combine(children: st.SearchStrategy) -> st.SearchStrategy:
    pairs = st.tuples(children, children)
    return st.one_of(
        pairs.map(lambda ab: ab[0] + ab[1]),
        pairs.map(lambda ab: ab[0] * ab[1]),
        pairs.map(lambda ab: ab[0] - ab[1]),
        pairs.filter(lambda ab: ab[1] != 0).map(lambda ab: ab[0] / ab[1]),
        st.tuples(children, st.integers(2, 3)).map(lambda t: t[0] ** t[1]),
    )


EXPRS = st.recursive(_LEAVES, _combine, max_leaves=5)


def _plain(expr: sympy.Expr) -> str:
    """sympy's str form with the imaginary unit written i (a bare capital I is a letter here)."""
    return re.sub(r"\bI\b", "i", sympy.sstr(expr))


def _unicode(expr: sympy.Expr) -> str:
    text = _plain(expr)
    return (
        text.replace("sqrt", "√")
        .replace("pi", "π")
        .replace("**", "^")
        .replace("*", "×")
        .replace("-", "\u2212")
    )


def _renderings(expr: sympy.Expr) -> list[str]:
    out = [sympy.latex(expr), _plain(expr), _unicode(expr)]
    if isinstance(expr, sympy.Rational):
        q = expr.q
        while q % 2 == 0:
            q //= 2
        while q % 5 == 0:
            q //= 5
        if q == 1:  # a terminating decimal is exact
            out.append(_decimal(Fraction(expr.p, expr.q)))
    return out


def _decimal(value: Fraction) -> str:
    sign = "-" if value < 0 else ""
    value = abs(value)
    whole, rest = divmod(value.numerator, value.denominator)
    digits = ""
    while rest and len(digits) < 60:
        rest *= 10
        d, rest = divmod(rest, value.denominator)
        digits += str(d)
    return f"{sign}{whole}.{digits}" if digits else f"{sign}{whole}"


@SETTINGS
@given(EXPRS)
def test_every_rendering_equals_the_value(expr: sympy.Expr) -> None:
    assume(expr.is_finite and sympy.count_ops(expr) < 40)
    gold = sympy.latex(expr)
    for text in _renderings(expr):
        verdict = _eq(gold, text)
        assert verdict.correct, (gold, text, verdict)


@SETTINGS
@given(
    EXPRS,
    st.sampled_from([sympy.Rational(1, 7), sympy.Rational(-1, 1000), sympy.Rational(10) ** -9, sympy.I]),
)
def test_perturbed_values_are_not_equal(expr: sympy.Expr, delta: sympy.Expr) -> None:
    assume(expr.is_finite and sympy.count_ops(expr) < 40)
    gold = sympy.latex(expr)
    for text in (sympy.latex(expr + delta), _plain(expr + delta)):
        verdict = _eq(gold, text)
        assert not verdict.correct, (gold, text, verdict)


# ------------------------------------------------------------------------------------------
# Polynomials, intervals, sets, tuples
# ------------------------------------------------------------------------------------------

x = sympy.Symbol("x")
LE = r"\le"


@FEWER
@given(st.lists(st.integers(-6, 6), min_size=1, max_size=4), st.integers(1, 3), st.integers(-3, 3))
def test_factored_and_expanded_polynomials(roots: list[int], lead: int, bump: int) -> None:
    factored = lead * sympy.Mul(*[(x - r) for r in roots], evaluate=False)
    expanded = sympy.expand(factored)
    assert _eq(sympy.latex(factored), sympy.latex(expanded)).correct
    assert _eq(sympy.sstr(expanded), sympy.latex(factored)).correct
    assume(bump != 0)
    assert not _eq(sympy.latex(factored), sympy.latex(expanded + bump * x)).correct


@FEWER
@given(st.integers(-20, 20), st.integers(1, 20), st.booleans(), st.booleans())
def test_interval_and_inequality_forms(a: int, width: int, left_open: bool, right_open: bool) -> None:
    b = a + width

    def inequality(lo: int, hi: int) -> str:
        return f"{lo} {'<' if left_open else LE} x {'<' if right_open else LE} {hi}"

    interval = ("(" if left_open else "[") + f"{a}, {b}" + (")" if right_open else "]")
    assert _eq(interval, inequality(a, b)).correct, (interval, inequality(a, b))
    flipped = ("[" if left_open else "(") + f"{a}, {b}" + (")" if right_open else "]")
    assert not _eq(interval, flipped).correct
    assert not _eq(interval, inequality(a, b + 1)).correct


@SETTINGS
@given(st.lists(st.integers(-50, 50), min_size=2, max_size=6, unique=True), st.randoms(use_true_random=False))
def test_sets_ignore_order_tuples_do_not(items: list[int], rnd) -> None:
    shuffled = items[:]
    rnd.shuffle(shuffled)
    as_set = r"\{" + ", ".join(map(str, items)) + r"\}"
    assert _eq(as_set, r"\{" + ", ".join(map(str, shuffled)) + r"\}").correct
    assert not _eq(as_set, r"\{" + ", ".join(map(str, items[:-1])) + r"\}").correct
    as_tuple = "(" + ", ".join(map(str, items)) + ")"
    other = "(" + ", ".join(map(str, shuffled)) + ")"
    assert _eq(as_tuple, other).correct is (shuffled == items)


# ------------------------------------------------------------------------------------------
# Number formats; the in-process fast path agrees with the full parser
# ------------------------------------------------------------------------------------------


@SETTINGS
@given(st.integers(-(10**12), 10**12))
def test_thousands_separators(n: int) -> None:
    plain = str(n)
    assert _eq(plain, f"{n:,}").correct
    assert _eq(plain, f"{n:,}".replace(",", r"\,")).correct
    assert not _eq(plain, str(n + 1)).correct


@SETTINGS
@given(st.integers(-999, 999), st.integers(1, 999))
def test_fraction_spellings(p: int, q: int) -> None:
    value = Fraction(p, q)
    sign = "-" if value < 0 else ""
    a, b = abs(value.numerator), value.denominator
    gold = f"{p}/{q}"
    for text in (rf"{sign}\frac{{{a}}}{{{b}}}", rf"\dfrac{{{value.numerator}}}{{{b}}}", f"{sign}{a}/{b}"):
        assert _eq(gold, text).correct, (gold, text)
    assert not _eq(gold, f"{value.numerator + 1}/{b}").correct


@SETTINGS
@given(st.integers(0, 10**6), st.integers(0, 10**4), st.integers(1, 4))
def test_fast_path_agrees_with_the_parser(whole: int, frac: int, digits: int) -> None:
    pieces = [
        str(whole),
        f"{whole}.{frac:0{digits}d}",
        f"{whole:,}",
        f"{frac}/{digits}",
        rf"\frac{{{frac}}}{{{digits}}}",
    ]
    for gold in pieces:
        for pred in pieces:
            fast = _eq(gold, pred)
            slow = compare_strings(gold, pred, Settings())
            assert fast.correct is slow["correct"], (gold, pred, fast, slow)


# ------------------------------------------------------------------------------------------
# Robustness: arbitrary text never crashes the verifier
# ------------------------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "1",
        "23",
        "x",
        "+",
        "-",
        "^",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ",",
        "=",
        "<",
        r"\frac",
        r"\sqrt",
        r"\pi",
        r"\{",
        r"\}",
        r"\cup",
        "i",
        "e",
        ".",
        r"\overline",
        "!",
        "%",
        r"\circ",
        " ",
        r"\text{",
        "or",
        "|",
        "/",
        "\\",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=25).map("".join))
def test_random_token_soup_never_crashes(text: str) -> None:
    verdict = _eq("12", text)
    assert verdict.error is None, (text, verdict)
    verdict = _eq(text, "12")
    assert verdict.error is None, (text, verdict)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        _PIECES
        | st.sampled_from(
            [
                "f",
                "(",
                "x",
                ",",
                ")",
                "=",
                "^",
                "{-1}",
                r"\begin{pmatrix}",
                "&",
                r"\\",
                r"\end{pmatrix}",
                r"\left(",
                r"\right)",
                r"\in",
                "U",
                r"\pm",
            ]
        ),
        max_size=20,
    ).map("".join)
)
def test_the_parser_only_ever_raises_parse_error(text: str) -> None:
    # in-process and cheap, so many more examples than through the worker
    from palaestra.verifiers.mathparse import ParseError, parse_answer

    try:
        parse_answer(text)
    except ParseError:
        pass
