"""inequality_certificate: SOS / orthant certificates are checked exactly, many valid ones pass,
broken ones fail with the reason named, and pathological text is a bounded format error."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import make_rng
from palaestra.generators.formal.inequality_certificate import (
    NAMES,
    canonical_form,
    split_terms,
)
from palaestra.registry import get, make_task, verify

FAMILY = "inequality_certificate"
IMPL = get(FAMILY).impl


def wrap(text: str) -> str:
    return f"<answer>\n{text}\n</answer>"


def sympy_of(task, text: str) -> sympy.Expr:
    """Independent check in the test only: our own generated strings through sympy's parser."""
    names = {v: sympy.Symbol(v) for v in task.metadata["variables"]}
    return sympy.expand(sympy.sympify(text.replace("^", "**"), locals=names))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_generated_certificates_are_valid_and_independently_correct(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    p = sympy_of(task, task.metadata["p"])
    # the reference certificate and the exact solver's (LDL^T) one are two different valid ones
    exact = IMPL.solve_exact(task).response
    assert exact is not None
    for text in (task.answer, exact.split("<answer>")[1].split("</answer>")[0]):
        assert sympy.expand(sympy_of(task, text) - p) == 0
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, exact).correct
    # p really is nonnegative on its domain (sampled points, exact rationals)
    rng = np.random.default_rng(seed)
    symbols = [sympy.Symbol(v) for v in task.metadata["variables"]]
    low = 0 if task.metadata["domain"] == "orthant" else -5
    for _ in range(10):
        point = {s: sympy.Rational(int(rng.integers(low * 4, 21)), 4) for s in symbols}
        assert p.subs(point) >= 0
    if task.metadata["domain"] == "orthant":  # the orthant matters: no plain SOS proves p
        grid = itertools.product(range(-2, 3), repeat=len(symbols))
        assert any(p.subs(dict(zip(symbols, point, strict=True))) < 0 for point in grid)
    mutations = IMPL.mutated_responses(task, make_rng("mutations", 1, seed))
    assert len(set(mutations)) >= 3
    for response in mutations:
        verdict = verify(task, response)
        assert not verdict.correct and verdict.format_ok and verdict.error is None, (response, verdict)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_weak_solver_answers_are_valid_when_given(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    run = IMPL.solve_weak(task)
    if run.response is not None:
        assert verify(task, run.response).correct


def _rescaled(term: str) -> str:
    """``c*m*(q)^2`` -> ``4*c*m*((q)/2)^2`` (rendered weights and multipliers hold no parens)."""
    if "(" not in term:
        return term
    i = term.index("(")
    return f"4*{term[:i]}({term[i:-2]}/2)^2"


def test_distinct_valid_certificates_all_pass() -> None:
    task = make_task(FAMILY, seed=5, level=6)
    terms = split_terms(task.answer)
    # rescaled squares: c*(q)^2 = 4c*(q/2)^2, written with a division by a constant
    rescaled = " + ".join(_rescaled(t) for t in terms)
    # every term split in two halves
    halves = " + ".join(f"1/2*{t} + {t}/2" for t in terms)
    exact = IMPL.solve_exact(task).response
    texts = {task.answer, rescaled, halves, exact}
    assert len(texts) == 4
    for text in texts:
        verdict = verify(task, text if text.startswith("<answer>") else wrap(text))
        assert verdict.correct, (text, verdict)


P1 = "2*x^2 - 2*x*y + y^2 + 2*x + 1"  # = (x - y)^2 + (x + 1)^2


def _task_with(p_text: str, terms: list, domain: str = "reals", degree: int = 2):
    """A task of this family whose p is replaced (metadata is all the verifier reads)."""
    task = make_task(FAMILY, seed=0, level=3 if domain == "reals" else 9)
    meta = dict(task.metadata, p=p_text, p_terms=terms, degree=degree, domain=domain)
    meta["variables"] = list(NAMES[: len(terms[0][0])])
    return dataclasses.replace(task, metadata=meta, id="")


def _terms(expr: str, names: tuple[str, ...]) -> list:
    poly = sympy.Poly(sympy.sympify(expr.replace("^", "**")), *[sympy.Symbol(n) for n in names])
    return [[list(m), str(c)] for m, c in poly.terms()]


@pytest.fixture(scope="module")
def small_task():
    return _task_with(P1, _terms(P1, ("x", "y")))


@pytest.mark.parametrize(
    "text",
    [
        "(x - y)^2 + (x + 1)^2",
        "p = (x - y)^2 + (x + 1)^2",
        "p(x, y) = (y - x)**2 + (x+1)**2",
        "(x-y)²+(x+1)²",
        r"\left(x - y\right)^{2} + \left(x + 1\right)^{2}",
        r"4\cdot\left(\frac{x}{2} - \frac{y}{2}\right)^{2} + (x + 1)^2",
        "(x - y)(x - y) + (x + 1)(2x + 2)/2",
        "(x - y)^2 + (x + 1)^2 >= 0",
        "p = (x - y)^2 + (x + 1)^2.",
        "$p(x,y) = (x - y)^2 + (x + 1)^2 \\geq 0$",
        "2*x^2 - 2*x*y + y^2 + 2*x + 1 = (x - y)^2 + (x + 1)^2",
        "1/2*(2x - 2y)^2/2 + 0.5*(x + 1)^2 + 1/2*(-x - 1)^2",
        "3/4*(x - y)^2 + 1/4*(y - x)^2 + (x + 1)^2 + 0*(x + y)",
        "((x - y)^2 + (x + 1)^2)",
        "2*(1/2*(x - y)^2 + 1/2*(x + 1)^2)",
    ],
)
def test_format_variants_are_accepted(small_task, text: str) -> None:
    verdict = verify(small_task, wrap(text))
    assert verdict.correct, verdict


@pytest.mark.parametrize(
    "text,reason",
    [
        ("(x - y)^2 + (x + 2)^2", "does not expand to p"),  # identity broken
        ("(x - y)^2 + (x + 1)^2 + 2*(y - 1)^2 - 2*(y - 1)^2", "negative coefficient"),  # a minus weight
        ("(x - y)^2 + x^2 + 2*x + 1", "not known to be nonnegative"),  # 2*x is not a square
        ("(x - y)*(y - x) + 2*(x - y)^2 + (x + 1)^2", "negative coefficient"),  # -(x-y)^2 in disguise
        ("(x - y)^3 + (x + 1)^2", "not known to be nonnegative"),  # odd power
        ("(x - y)^2", "does not expand to p"),  # a square dropped
        ("x^2 = (x - y)^2 + (x + 1)^2", "left-hand side is not p"),
    ],
)
def test_wrong_certificates_fail_with_reason(small_task, text: str, reason: str) -> None:
    verdict = verify(small_task, wrap(text))
    assert not verdict.correct and verdict.format_ok and verdict.error is None
    assert reason in verdict.reason, verdict.reason


def test_orthant_factors_only_count_on_the_orthant() -> None:
    p = "x^3 - x^2*y - x*y^2 + y^3"  # = (x + y)(x - y)^2, nonnegative for x, y >= 0 only
    orthant = _task_with(p, _terms(p, ("x", "y")), domain="orthant", degree=3)
    reals = _task_with(p, _terms(p, ("x", "y")), domain="reals", degree=3)
    for text in ("x*(x - y)^2 + y*(x - y)^2", "(x + y)*(x - y)^2", "(x - y)^2*(x + y)"):
        assert verify(orthant, wrap(text)).correct, text
        verdict = verify(reals, wrap(text))
        assert not verdict.correct and "not known to be nonnegative" in verdict.reason
    # a factor with a negative coefficient is not nonnegative on the orthant either
    verdict = verify(orthant, wrap("(x + y - 1)*(x - y)^2 + (x - y)^2"))
    assert not verdict.correct and "not known to be nonnegative" in verdict.reason


@pytest.mark.parametrize(
    "text",
    [
        "(x + y)^99999",
        "(x + y)^" + "9" * 50,
        "(" * 200 + "x" + ")" * 200,
        "9" * 5000 + "*x^2",
        " + ".join(["(x - y)^2"] * 400),
        "(x + y + 1)^40",
        "x*" * 2000 + "x",
        "(x - y)^2 + (x + 1)^2 " * 400,
        "(x + y)^2 + import os",
        "(x - y)^2 + (x + 1)^2 + z^2",
        "(x - y)^2 / (x + 1)",
        "(x - y)^2 + 1/0",
        "x^-2",
        "(x - y)^2 + (x + 1)^2 = 3 = 4",
    ],
)
def test_pathological_certificates_are_bounded_format_errors(small_task, text: str) -> None:
    verdict = verify(small_task, wrap(text))
    assert not verdict.correct and not verdict.format_ok and verdict.error is None, verdict


def test_work_cap_stops_expensive_expansions() -> None:
    task = make_task(FAMILY, seed=1, level=10)  # 3 variables, degree 4: intermediate degree <= 8
    heavy = " + ".join(["(x + y + z + 1)^4*(x + y + z + 2)^4"] * 100)
    verdict = verify(task, wrap(heavy))
    assert not verdict.format_ok and "too large" in verdict.reason


def test_canonical_hash_is_invariant_under_renaming() -> None:
    p = {(2, 0, 1): Fraction(3), (0, 1, 1): Fraction(-2), (0, 0, 2): Fraction(1)}
    forms = {
        canonical_form({tuple(m[k] for k in perm): c for m, c in p.items()}, 3)
        for perm in itertools.permutations(range(3))
    }
    assert len(forms) == 1
    other = {(2, 0, 1): Fraction(3), (0, 1, 1): Fraction(2), (0, 0, 2): Fraction(1)}
    assert canonical_form(other, 3) not in forms


def test_levels_change_the_task_kind() -> None:
    assert make_task(FAMILY, seed=0, level=1).metadata["variables"] == ["x"]
    assert make_task(FAMILY, seed=0, level=9).metadata["domain"] == "orthant"
    assert "x >= 0" in make_task(FAMILY, seed=0, level=10).prompt
