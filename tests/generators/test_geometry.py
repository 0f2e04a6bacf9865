"""geometry: answers recomputed with sympy.geometry from the prompt's own words, every exact
form accepted, approximations and near misses refused."""

from __future__ import annotations

import re

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.math.geometry import square_free

FAMILY = "geometry"
IMPL = palaestra.get(FAMILY).impl
SEEDS = st.integers(0, 2**63 - 1)

_NUM = r"-?\d+(?:/\d+)?"
_PT = rf"\(({_NUM}), ({_NUM})\)"


def _point(x: str, y: str) -> sympy.Point:
    return sympy.Point(sympy.Rational(x), sympy.Rational(y))


def points_from_prompt(prompt: str) -> dict[str, sympy.Point]:
    """Read every named point from the question text (plain, midpoint or ratio), independently
    of the generator's metadata."""
    points = {}
    for name, x, y in re.findall(rf"\b([A-Z]) = {_PT}", prompt):
        points[name] = _point(x, y)
    for name, x1, y1, x2, y2 in re.findall(rf"\b([A-Z]) is the midpoint of {_PT} and {_PT}", prompt):
        points[name] = (_point(x1, y1) + _point(x2, y2)) / 2
    pattern = rf"\b([A-Z]) is the point on the segment from {_PT} to {_PT} whose distances to .*? are in the ratio (\d+):(\d+)"
    for name, x1, y1, x2, y2, m, n in re.findall(pattern, prompt):
        u, v, m, n = _point(x1, y1), _point(x2, y2), int(m), int(n)
        p = u + (v - u) * sympy.Rational(m, m + n)
        assert sympy.Rational(m, n) == u.distance(p) / v.distance(p)
        points[name] = p
    return points


def expected_answer(task: palaestra.Task) -> sympy.Expr | sympy.Point:
    prompt = task.prompt.split("\n\n")[0]
    kind = task.metadata["kind"]
    pts = points_from_prompt(prompt)
    if kind == "polygon_area":
        vertices = [_point(x, y) for x, y in re.findall(_PT, prompt)]
        return abs(sympy.Polygon(*vertices).area)
    if kind == "triangle_area":
        return abs(sympy.Triangle(pts["A"], pts["B"], pts["C"]).area)
    if kind == "intersection":
        (meet,) = sympy.Line(pts["A"], pts["B"]).intersection(sympy.Line(pts["C"], pts["D"]))
        return meet
    if kind == "distance":
        return pts["A"].distance(pts["B"])
    if kind == "point_line_distance":
        return sympy.Line(pts["A"], pts["B"]).distance(pts["P"])
    if kind == "reflection":
        return pts["P"].reflect(sympy.Line(pts["A"], pts["B"]))
    if kind in ("circumradius", "circumcircle_area"):
        circle = sympy.Triangle(pts["A"], pts["B"], pts["C"]).circumcircle
        return circle.radius if kind == "circumradius" else circle.area
    if kind == "chord_length":
        x, y, radius = re.search(rf"center {_PT} and radius (\d+)", prompt).groups()
        circle = sympy.Circle(_point(x, y), int(radius))
        a, b = circle.intersection(sympy.Line(pts["A"], pts["B"]))
        return a.distance(b)
    if kind == "angle_cosine":
        u, v = pts["A"] - pts["B"], pts["C"] - pts["B"]
        return u.dot(v) / (u.distance(sympy.Point(0, 0)) * v.distance(sympy.Point(0, 0)))
    raise AssertionError(kind)


def as_latex(value: sympy.Expr | sympy.Point) -> str:
    if isinstance(value, sympy.Point):
        return f"({sympy.latex(value.x)}, {sympy.latex(value.y)})"
    return sympy.latex(sympy.radsimp(value))


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, level=st.integers(1, 10))
def test_sympy_answer_in_its_own_notation_is_paid(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    expected = expected_answer(task)
    verdict = palaestra.verify(task, f"<answer>{as_latex(expected)}</answer>")
    assert verdict.correct, (task.prompt, task.answer, as_latex(expected), verdict)
    if not isinstance(expected, sympy.Point) and not expected.is_rational:
        # a 12-digit decimal is close, but not exact
        assert not palaestra.verify(task, f"<answer>{sympy.N(expected, 12)}</answer>").correct


def test_every_kind_appears_at_level_ten() -> None:
    kinds = {palaestra.make_task(FAMILY, seed=s, level=10).metadata["kind"] for s in range(200)}
    assert len(kinds) == 10


def test_equivalent_forms_and_near_misses() -> None:
    for seed in range(60):
        task = palaestra.make_task(FAMILY, seed=seed, level=9)
        if task.metadata["kind"] == "distance" and task.metadata["value"][2] > 1:
            break
    p, q, r, _ = task.metadata["value"]
    value = sympy.Rational(p, q) * sympy.sqrt(r)
    squared = sympy.Rational(p, q) ** 2 * r
    for form in (
        f"{sympy.latex(value)} units",
        f"\\frac{{{p}}}{{{q}}} \\sqrt{{{r}}}",
        f"{p}\\sqrt{{{r}}}/{q}",
    ):
        assert palaestra.verify(task, f"<answer>{form}</answer>").correct, form
    # the prompt asks for a simplified radical: the value under one root is not in simplest form
    # (paid before issue 26's written-number rule, while \\sqrt{225} for 15 was refused)
    for form in (
        f"\\sqrt{{{squared}}}",
        f"\\sqrt{{{sympy.latex(squared)}}}",
        f"\\sqrt{{{squared + 1}}}",
        f"{squared}",
        f"{float(value):.10f}",
        f"\\sqrt{{{squared}}} \\text{{ or }} 3",
    ):
        assert not palaestra.verify(task, f"<answer>{form}</answer>").correct, form


def test_points_are_ordered_pairs() -> None:
    for seed in range(100):
        task = palaestra.make_task(FAMILY, seed=seed, level=6)
        if task.metadata["kind"] in ("intersection", "reflection"):
            x, y = task.metadata["value"]
            if x != y:
                break
    assert palaestra.verify(task, f"<answer>({x}, {y})</answer>").correct
    assert palaestra.verify(task, f"<answer>(x, y) = ({x}, {y})</answer>").correct
    assert not palaestra.verify(task, f"<answer>({y}, {x})</answer>").correct
    assert not palaestra.verify(task, f"<answer>{x}</answer>").correct


def test_square_free_against_sympy() -> None:
    rng = np.random.default_rng(0)
    for n in [1, 2, 4, 12, 49, 72, 97 * 97 * 3, 10**12 + 39] + [int(v) for v in rng.integers(1, 10**12, 200)]:
        outside, inside = square_free(n)
        assert outside * outside * inside == n
        assert all(e == 1 for e in sympy.factorint(inside).values())


def test_hostile_answers_are_quick_format_errors() -> None:
    task = palaestra.make_task(FAMILY, seed=1, level=5)
    for text in (
        "\\sqrt{" * 3000,
        "1" * 5000,
        "(" * 2000 + "1",
        "\\frac{1}{0}",
        "nan",
        "2^{2^{2^{2^{2^{2}}}}}",
    ):
        # how quick: benchmarks/reward_errors.py times hostile input (no wall clock in tests)
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None, text[:30]


@pytest.mark.parametrize("level", [1, 10])
def test_weak_solver_cannot_write_radicals(level: int) -> None:
    for seed in range(40):
        task = palaestra.make_task(FAMILY, seed=seed, level=level)
        value = task.metadata["value"]
        if not isinstance(value[0], str) and (value[2] > 1 or value[3]):
            assert not palaestra.verify(task, IMPL.solve_weak(task).response).correct
