"""Coordinate geometry with exact answers: areas, distances, intersections, circles, angles.

Ten kinds of question about points with integer (or, at higher levels, derived rational)
coordinates: the area of a triangle or polygon, a distance, the intersection of two lines, the
distance from a point to a line, a reflection, a circumradius, a chord length, the area of a
circumcircle, and the cosine of an angle. Every answer is one closed form computed exactly with
fractions: a rational, a rational times one square root in lowest terms (``\\frac{5\\sqrt{13}}{13}``),
a rational times pi, or a point ``(x, y)`` with rational coordinates. The answer is a function of
the givens, so it is unique; the math equivalence verifier (:mod:`palaestra.verifiers.math`)
grades it under ``MathPolicy(simplified=True)``, as the prompt asks for a simplified radical: every
exact way of writing the value in simplest form is accepted (``5/\\sqrt{13}``, ``(1.5, -1)``), and
no decimal approximation, no arithmetic left to do (``\\sqrt{225}`` for 15), no radical or fraction
that is not in simplest form (``\\sqrt{25/13}``, ``\\frac{10}{2\\sqrt{13}}``): the written-number rule
of docs/verifiers.md, one policy both ways. A unit word after the number (``7 square units``) is allowed and ignored
(the plane has no unit). Degenerate instances (collinear triangles, parallel lines, a point on
the line, a line missing the circle) are redrawn.

Difficulty: the coordinate range grows (one digit to two), more kinds are drawn from (in the
order above: the later kinds need a radical, pi or several steps), and from level 5 on some
points are given only by a construction (the midpoint of two points, or the point dividing a
segment in a ratio), which adds steps and fractions. The exact solver's effort counts the
arithmetic operations weighted by the digits of the numbers they act on; the weak solver is a
calculator user (8 significant digits, recognising fractions with denominators up to 12) who
cannot write radicals or pi.

Generation: ~3,900 tasks per CPU-second at level 5 (3,100 at level 10) (no search; square roots are simplified by
trial division up to the cube root).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import gcd, isqrt, log10

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.math._common import calculator, tagged, verify_math_answer
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.math import MathPolicy
from palaestra.verifiers.numbers import format_rational

KINDS = (
    "triangle_area",
    "intersection",
    "distance",
    "polygon_area",
    "point_line_distance",
    "reflection",
    "circumradius",
    "chord_length",
    "circumcircle_area",
    "angle_cosine",
)
# arithmetic operations of each kind's formula (before the constructed points)
KIND_OPS = {
    "triangle_area": 8,
    "intersection": 14,
    "distance": 10,  # with simplifying the radical
    "polygon_area": 4,  # per vertex
    "point_line_distance": 12,
    "reflection": 18,
    "circumradius": 24,
    "chord_length": 20,
    "circumcircle_area": 24,
    "angle_cosine": 14,
}
POLICY = MathPolicy(simplified=True)  # exact, simplest form; a unit after the number is ignored
Point = tuple[Fraction, Fraction]


@dataclass(frozen=True)
class GeometryKnobs(Knobs):
    coordinate: int = knob(
        5, low=2, high=999, help="integer coordinates are drawn from [-coordinate, coordinate]"
    )
    kinds: int = knob(2, low=1, high=len(KINDS), help=f"how many kinds are drawn from, in order {KINDS}")
    constructed: int = knob(0, low=0, high=3, help="points given only by a construction (midpoint, ratio)")


LEVELS = {
    1: GeometryKnobs(coordinate=5, kinds=2, constructed=0),
    2: GeometryKnobs(coordinate=8, kinds=3, constructed=0),
    3: GeometryKnobs(coordinate=12, kinds=4, constructed=0),
    4: GeometryKnobs(coordinate=15, kinds=5, constructed=0),
    5: GeometryKnobs(coordinate=20, kinds=6, constructed=1),
    6: GeometryKnobs(coordinate=30, kinds=7, constructed=1),
    7: GeometryKnobs(coordinate=40, kinds=8, constructed=1),
    8: GeometryKnobs(coordinate=60, kinds=9, constructed=2),
    9: GeometryKnobs(coordinate=80, kinds=10, constructed=2),
    10: GeometryKnobs(coordinate=99, kinds=10, constructed=3),
}


# --------------------------------------------------------------------------------------------
# Exact values: c * sqrt(r) (* pi)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Surd:
    """The exact number ``coef * sqrt(radicand) * (pi if pi else 1)``, radicand square-free."""

    coef: Fraction
    radicand: int = 1
    pi: bool = False

    def __mul__(self, other: Surd) -> Surd:
        common = gcd(self.radicand, other.radicand)  # sqrt(a) sqrt(b) = g sqrt(a/g * b/g), both square-free
        radicand = (self.radicand // common) * (other.radicand // common)
        return Surd(self.coef * other.coef * common, radicand, self.pi or other.pi)

    def inverse(self) -> Surd:
        return Surd(1 / (self.coef * self.radicand), self.radicand, self.pi)

    def float(self) -> float:
        return float(self.coef) * self.radicand**0.5 * (np.pi if self.pi else 1.0)

    def latex(self) -> str:
        sign = "-" if self.coef < 0 else ""
        p, q = abs(self.coef.numerator), self.coef.denominator
        factor = (f"\\sqrt{{{self.radicand}}}" if self.radicand > 1 else "") + ("\\pi" if self.pi else "")
        top = (str(p) if p != 1 or not factor else "") + factor
        return sign + (top if q == 1 else f"\\frac{{{top}}}{{{q}}}")

    def to_json(self) -> list[int | bool]:
        return [self.coef.numerator, self.coef.denominator, self.radicand, self.pi]


def square_free(n: int) -> tuple[int, int]:
    """``(a, b)`` with ``n == a * a * b`` and ``b`` square-free. Trial division runs only to the
    cube root of what is left: a rest with no factor up to its cube root is 1, a prime, a prime
    square or a product of two distinct primes, and a square root test tells them apart."""
    outside, inside, rest, p = 1, 1, n, 2
    while p * p * p <= rest:
        while rest % (p * p) == 0:
            rest //= p * p
            outside *= p
        if rest % p == 0:
            rest //= p
            inside *= p
        p += 1 if p == 2 else 2
    root = isqrt(rest)
    if root * root == rest:
        return outside * root, inside
    return outside, inside * rest


def sqrt_of(value: Fraction) -> Surd:
    """The exact square root of a non-negative rational: sqrt(p/q) = sqrt(p*q)/q."""
    a, b = square_free(value.numerator * value.denominator)
    return Surd(Fraction(a, value.denominator), b)


# --------------------------------------------------------------------------------------------
# Points and constructions
# --------------------------------------------------------------------------------------------


def show_number(value: Fraction) -> str:
    return format_rational(value)


def show_point(point: Point) -> str:
    return f"({show_number(point[0])}, {show_number(point[1])})"


def point_latex(point: Point) -> str:
    return f"({Surd(point[0]).latex()}, {Surd(point[1]).latex()})"


@dataclass(frozen=True)
class Given:
    """A named point of the question: plain coordinates, or a construction from two points."""

    name: str
    point: Point
    text: str  # how the question states it
    key: tuple  # what identifies it for the duplicate measure


def _int_point(rng: np.random.Generator, size: int) -> Point:
    x, y = rng.integers(-size, size + 1, size=2)
    return Fraction(int(x)), Fraction(int(y))


def draw_given(name: str, rng: np.random.Generator, size: int, constructed: bool) -> Given:
    if not constructed:
        point = _int_point(rng, size)
        return Given(name, point, f"{name} = {show_point(point)}", ("plain", show_point(point)))
    while True:
        u, v = _int_point(rng, size), _int_point(rng, size)
        if u != v:
            break
    m, n = (1, 1) if rng.random() < 0.5 else (int(rng.integers(1, 4)), int(rng.integers(1, 5)))
    if m == n:
        m = n = 1
    point = ((n * u[0] + m * v[0]) / (m + n), (n * u[1] + m * v[1]) / (m + n))
    if m == n:
        text = f"{name} is the midpoint of {show_point(u)} and {show_point(v)}"
    else:
        text = (
            f"{name} is the point on the segment from {show_point(u)} to {show_point(v)} whose distances"
            f" to {show_point(u)} and to {show_point(v)} are in the ratio {m}:{n}"
        )
    return Given(name, point, text, ("ratio", show_point(u), show_point(v), m, n))


# --------------------------------------------------------------------------------------------
# The kinds: exact formulas on rational points
# --------------------------------------------------------------------------------------------


def _sub(a: Point, b: Point) -> Point:
    return a[0] - b[0], a[1] - b[1]


def _cross(u: Point, v: Point) -> Fraction:
    return u[0] * v[1] - u[1] * v[0]


def _dot(u: Point, v: Point) -> Fraction:
    return u[0] * v[0] + u[1] * v[1]


def _norm2(u: Point) -> Fraction:
    return _dot(u, u)


def triangle_area(a: Point, b: Point, c: Point) -> Fraction:
    return abs(_cross(_sub(b, a), _sub(c, a))) / 2


def polygon_area(points: list[Point]) -> Fraction:
    twice = sum(_cross(points[i], points[(i + 1) % len(points)]) for i in range(len(points)))
    return abs(twice) / 2


def line_intersection(a: Point, b: Point, c: Point, d: Point) -> Point | None:
    r, s = _sub(b, a), _sub(d, c)
    denominator = _cross(r, s)
    if denominator == 0:
        return None
    t = _cross(_sub(c, a), s) / denominator
    return a[0] + t * r[0], a[1] + t * r[1]


def foot(p: Point, a: Point, b: Point) -> Point:
    d = _sub(b, a)
    t = _dot(_sub(p, a), d) / _norm2(d)
    return a[0] + t * d[0], a[1] + t * d[1]


def reflection(p: Point, a: Point, b: Point) -> Point:
    f = foot(p, a, b)
    return 2 * f[0] - p[0], 2 * f[1] - p[1]


def point_line_distance(p: Point, a: Point, b: Point) -> Surd:
    d = _sub(b, a)
    return Surd(abs(_cross(d, _sub(p, a)))) * sqrt_of(_norm2(d)).inverse()


def circumradius_squared(a: Point, b: Point, c: Point) -> Fraction:
    area = triangle_area(a, b, c)
    return _norm2(_sub(a, b)) * _norm2(_sub(b, c)) * _norm2(_sub(c, a)) / (16 * area * area)


def circumradius(a: Point, b: Point, c: Point) -> Surd:
    sides = [sqrt_of(_norm2(_sub(a, b))), sqrt_of(_norm2(_sub(b, c))), sqrt_of(_norm2(_sub(c, a)))]
    return sides[0] * sides[1] * sides[2] * Surd(1 / (4 * triangle_area(a, b, c)))


def chord_length(center: Point, radius: int, a: Point, b: Point) -> Surd | None:
    d = _sub(b, a)
    distance2 = _cross(d, _sub(center, a)) ** 2 / _norm2(d)
    if distance2 >= radius * radius:
        return None
    return Surd(Fraction(2)) * sqrt_of(radius * radius - distance2)


def angle_cosine(a: Point, b: Point, c: Point) -> Surd:
    u, v = _sub(a, b), _sub(c, b)
    return Surd(_dot(u, v)) * (sqrt_of(_norm2(u)) * sqrt_of(_norm2(v))).inverse()


def convex_polygon(rng: np.random.Generator, size: int, count: int) -> list[Point] | None:
    """``count`` integer points in convex position, listed counter-clockwise, or None."""
    points = {tuple(int(v) for v in rng.integers(-size, size + 1, size=2)) for _ in range(count * 3)}
    hull = _convex_hull(sorted(points))
    if len(hull) < count:
        return None
    picks = sorted(rng.choice(len(hull), size=count, replace=False))
    chosen = [hull[int(i)] for i in picks]
    return [(Fraction(x), Fraction(y)) for x, y in chosen]


def _convex_hull(points: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Andrew's monotone chain: the strict hull, counter-clockwise."""

    def turn(o: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> int:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[int, int]] = []
    upper: list[tuple[int, int]] = []
    for p in points:
        while len(lower) >= 2 and turn(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(points):
        while len(upper) >= 2 and turn(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


# --------------------------------------------------------------------------------------------
# Drawing one question
# --------------------------------------------------------------------------------------------


@dataclass
class Question:
    kind: str
    givens: list[Given]
    text: str
    answer: Surd | Point
    extra: dict  # kind-specific parameters (circle radius, polygon)

    @property
    def is_point(self) -> bool:
        return isinstance(self.answer, tuple)


def _givens(names: str, rng: np.random.Generator, size: int, constructed: int) -> list[Given]:
    made = set(rng.choice(len(names), size=min(constructed, len(names)), replace=False).tolist())
    return [draw_given(name, rng, size, i in made) for i, name in enumerate(names)]


def _collinear(a: Point, b: Point, c: Point) -> bool:
    return _cross(_sub(b, a), _sub(c, a)) == 0


def draw_question(kind: str, rng: np.random.Generator, knobs: GeometryKnobs) -> Question | None:
    """One question of ``kind``, or None when the draw is degenerate (the caller redraws)."""
    size, constructed = knobs.coordinate, knobs.constructed
    if kind == "polygon_area":
        count = int(rng.integers(4, 7))
        polygon = convex_polygon(rng, size, count)
        if polygon is None:
            return None
        listed = ", ".join(show_point(p) for p in polygon)
        text = f"A convex polygon has the vertices {listed}, in this order around it. Find its area."
        return Question(
            kind, [], text, Surd(polygon_area(polygon)), {"polygon": [show_point(p) for p in polygon]}
        )
    names = {"triangle_area": "ABC", "intersection": "ABCD", "distance": "AB", "point_line_distance": "PAB",
             "reflection": "PAB", "circumradius": "ABC", "chord_length": "AB", "circumcircle_area": "ABC",
             "angle_cosine": "ABC"}[kind]  # fmt: skip
    givens = _givens(names, rng, size, constructed)
    pts = [g.point for g in givens]
    if len(set(pts)) < len(pts):
        return None
    stated = "; ".join(g.text for g in givens)
    extra: dict = {}
    answer: Surd | Point
    if kind == "triangle_area":
        if _collinear(*pts):
            return None
        answer, ask = Surd(triangle_area(*pts)), "Find the area of triangle ABC."
    elif kind == "intersection":
        meet = line_intersection(*pts)
        if meet is None:
            return None
        answer, ask = meet, "Find the point where line AB meets line CD."
    elif kind == "distance":
        answer, ask = sqrt_of(_norm2(_sub(pts[0], pts[1]))), "Find the distance from A to B."
    elif kind == "point_line_distance":
        if _collinear(*pts):
            return None
        answer, ask = point_line_distance(*pts), "Find the distance from P to the line through A and B."
    elif kind == "reflection":
        if _collinear(*pts):
            return None
        answer, ask = reflection(*pts), "Find the reflection of P across the line through A and B."
    elif kind in ("circumradius", "circumcircle_area"):
        if _collinear(*pts):
            return None
        if kind == "circumradius":
            answer, ask = circumradius(*pts), "Find the radius of the circle through A, B and C."
        else:
            answer = Surd(circumradius_squared(*pts), 1, True)
            ask = "Find the area of the circle through A, B and C."
    elif kind == "chord_length":
        center = _int_point(rng, max(2, size // 2))
        radius = int(rng.integers(max(2, size // 3), size + 2))
        chord = chord_length(center, radius, *pts)
        if chord is None:
            return None
        extra = {"center": show_point(center), "radius": radius}
        stated = f"The circle has center {show_point(center)} and radius {radius}; {stated}"
        answer, ask = (
            chord,
            "Find the length of the chord that the line through A and B cuts from the circle.",
        )
    else:  # angle_cosine
        if _collinear(*pts):
            return None
        answer, ask = angle_cosine(*pts), "Find the cosine of the angle ABC (the angle at B)."
    return Question(kind, givens, f"In the coordinate plane: {stated}. {ask}", answer, extra)


def canonical_key(question: Question) -> list:
    """What identifies a question up to relabelling the points that play the same role."""
    keys = [list(map(str, g.key)) for g in question.givens]
    if question.kind in ("triangle_area", "circumradius", "circumcircle_area"):
        keys = sorted(keys)
    elif question.kind == "distance":
        keys = sorted(keys)
    elif question.kind == "intersection":
        keys = sorted([sorted(keys[:2]), sorted(keys[2:])])
    elif question.kind in ("point_line_distance", "reflection"):
        keys = [keys[0], sorted(keys[1:])]
    elif question.kind == "chord_length":
        keys = sorted(keys)
    elif question.kind == "angle_cosine":
        keys = [keys[1], sorted([keys[0], keys[2]])]
    polygon = question.extra.get("polygon")
    if polygon:  # a cycle read from any vertex, in either direction
        cycles = [polygon[i:] + polygon[:i] for i in range(len(polygon))]
        keys = min(cycles + [c[::-1] for c in cycles])
    return [question.kind, keys, question.extra.get("center"), question.extra.get("radius")]


def effort_of(question: Question, coordinate: int) -> float:
    """Arithmetic operations of the exact computation, weighted by the digits they act on."""
    ops = KIND_OPS[question.kind] * (len(question.extra["polygon"]) if "polygon" in question.extra else 1)
    ops += 6 * sum(g.key[0] == "ratio" for g in question.givens)
    return round(ops * (1 + log10(coordinate)), 2)


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """{question}

Give the exact value: an integer, a fraction, or a simplified radical such as \\frac{{3\\sqrt{{2}}}}{{2}} (with \\pi where it belongs); no decimal approximations. A point is written (x, y) with exact coordinates. A unit word after the answer is allowed and ignored. Put the final answer in <answer>...</answer>."""


@family(
    "geometry",
    domain="math",
    knobs=GeometryKnobs,
    levels=LEVELS,
    description="Coordinate geometry with exact answers: areas, distances, intersections, reflections, circles, angles.",
    verifier_kind="math equivalence",
)
class Geometry(Family):
    def generate(self, knobs: GeometryKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(1000):
            kind = KINDS[int(rng.integers(knobs.kinds))]
            question = draw_question(kind, rng, knobs)
            if question is not None:
                break
        else:  # pragma: no cover - every kind succeeds on a few draws
            raise RuntimeError(f"could not draw a geometry question for {knobs}")
        if question.is_point:
            answer = point_latex(question.answer)  # type: ignore[arg-type]
            value = [show_number(v) for v in question.answer]  # type: ignore[union-attr]
        else:
            answer = question.answer.latex()  # type: ignore[union-attr]
            value = question.answer.to_json()  # type: ignore[union-attr]
        metadata = {
            "kind": question.kind,
            "points": {g.name: show_point(g.point) for g in question.givens},
            "extra": question.extra,
            "value": value,
            "effort": effort_of(question, knobs.coordinate),
            "canonical_hash": content_hash(canonical_key(question)),
        }
        return TaskDraft(prompt=PROMPT.format(question=question.text), answer=answer, metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        return verify_math_answer(response, task.answer, POLICY, question=task.prompt)

    def solve_exact(self, task: Task) -> SolverRun:
        # the generator's exact fraction arithmetic; effort = its operations times digit size
        return SolverRun(response=tagged(task.answer), effort=float(task.metadata["effort"]))

    def solve_weak(self, task: Task) -> SolverRun:
        # a calculator: 8 significant digits, fractions with small denominators, no radicals or pi
        value = task.metadata["value"]
        if isinstance(value[0], str):  # a point
            guess = ", ".join(format_rational(calculator(Fraction(v))) for v in value)
            return SolverRun(response=tagged(f"({guess})"), effort=2.0)
        numerator, denominator, radicand, pi = value
        exact = Surd(Fraction(numerator, denominator), radicand, pi)
        if radicand == 1 and not pi:
            return SolverRun(response=tagged(format_rational(calculator(exact.coef))), effort=1.0)
        return SolverRun(response=tagged(f"{exact.float():.7g}"), effort=1.0)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value = task.metadata["value"]
        if isinstance(value[0], str):
            x, y = (Fraction(v) for v in value)
            wrong = [
                (x + 1, y),
                (x, y - 1),
                (y, x) if x != y else (x, -y - 1),
                (-x, -y) if (x, y) != (0, 0) else (1, 1),
            ]
            return [tagged(point_latex(p)) for p in wrong]
        numerator, denominator, radicand, pi = value
        exact = Surd(Fraction(numerator, denominator), radicand, pi)
        wrong = [Surd(exact.coef * 2, radicand, pi), Surd(exact.coef + 1, radicand, pi),
                 Surd(exact.coef, radicand, not pi), Surd(-exact.coef, radicand, pi)]  # fmt: skip
        if radicand > 1:
            wrong.append(Surd(exact.coef, 1, pi))  # the radical dropped
        else:
            wrong.append(Surd(exact.coef, 2, pi))
        return [tagged(w.latex()) for w in wrong]
