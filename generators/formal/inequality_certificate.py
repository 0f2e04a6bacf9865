"""Inequality certificates: prove p >= 0 by writing p as a sum of nonnegative terms, exactly.

Two kinds of task. On the reals (levels 1-8) p is a random sum of squares ``sum c_i (q_i)^2``
with small integer q_i, expanded so that the cross terms mix: the model must find a
Gram-matrix decomposition of its own (any will do). On the nonnegative orthant (levels 9 and
10) p is ``sum c_i m_i (q_i)^2`` with monomial multipliers m_i such as x or x*y, an AM-GM /
Positivstellensatz style certificate: p itself has negative coefficients and takes a negative
value at an integer point outside the orthant (checked), so no plain sum of squares proves it.

The verifier never evaluates model text: a small recursive-descent scanner over numbers, the
task's variables, ``+ - * / ^`` and parentheses builds exact polynomials over QQ
(``sympy.polys.rings``) while it reads, with caps on length, nesting, numbers, exponents,
degree and multiplication work, so a pathological certificate is a bounded format error. A
term counts as nonnegative when it is a nonnegative rational times factors that are each an
even power, a parenthesised sum of such terms, or (on the orthant) a polynomial with only
nonnegative coefficients; repeated odd factors (``(x-y)(x-y)``, also up to a scalar) merge into
one power. The certificate must expand to exactly p. Certificates are not unique (the
generating decomposition and the LDL^T of its Gram matrix are two different ones); all valid
ones are accepted.

Exact solver: the exact LDL^T (rational pivots) of the generator's Gram matrix per multiplier
block; effort = (monomials of p + Gram entries + LDL updates) * (1 + free Gram parameters), the
last being the dimension of the family of Gram matrices with the same expansion, which a
solver without the generator's witness has to search (an SDP of that dimension). Weak solver:
"complete the squares" on the canonical Gram matrix (each monomial of p put on the diagonal
when it is a square, otherwise on the most balanced pair), one block per parity class of
exponents, with at most ``WEAK_MAX_BASIS`` basis monomials; it gives up when that matrix is not
PSD, which happens as soon as the Gram matrix has free entries that must be chosen well. Level 5
generates at about 200-270 tasks/s on one core (level 10: about 50-70), measured under shared
load.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from sympy import QQ
from sympy.polys.rings import PolyElement, ring

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

NAMES = ("x", "y", "z", "w")
MAX_CHARS = 6000  # certificate text
MAX_TOKENS = 3000
MAX_DEPTH = 40  # parenthesis nesting
MAX_NUMBER_DIGITS = 30
MAX_EXPONENT = 16
MAX_COEFFICIENT_BITS = 4000
MAX_TERMS = 120  # top-level terms of the certificate
MAX_FACTORS = 60  # factors of one term
DEGREE_SLACK = 4  # intermediate polynomials may exceed deg p by this much
MAX_WORK = 20_000  # monomial-pair products per verification (50x what a valid one needs; ~0.2 s)
WEAK_MAX_BASIS = 6

Exps = tuple[int, ...]
Poly = dict[Exps, Fraction]  # generator-side sparse polynomial


@dataclass(frozen=True)
class InequalityKnobs(Knobs):
    variables: int = knob(1, low=1, high=4, help="number of variables of p")
    degree: int = knob(2, low=2, high=8, help="total degree of p (even on the reals)")
    squares: int = knob(2, low=1, high=10, help="squares in the generating certificate")
    terms: int = knob(2, low=1, high=8, help="monomials of each squared polynomial q_i")
    coefficient: int = knob(3, low=1, high=9, help="largest |coefficient| in each q_i")
    homogeneous: bool = knob(False, help="p is a form (every q_i homogeneous of one degree)")
    weights: str = knob("ones", choices=("ones", "integers", "fractions"), help="the weights c_i")
    domain: str = knob("reals", choices=("reals", "orthant"), help="prove p >= 0 on R^n or on x_i >= 0")

    def validate(self) -> None:
        if self.domain == "reals" and self.degree % 2:
            raise ValueError("on the reals the degree must be even")
        if self.domain == "orthant" and self.variables < 2:
            raise ValueError("orthant tasks need at least 2 variables")


LEVELS = {
    1: InequalityKnobs(variables=1, degree=2, squares=2, terms=2, coefficient=6),
    2: InequalityKnobs(
        variables=2, degree=2, squares=2, terms=2, coefficient=5, homogeneous=True, weights="integers"
    ),
    3: InequalityKnobs(variables=2, degree=2, squares=3, terms=3, weights="integers"),
    4: InequalityKnobs(variables=3, degree=2, squares=3, terms=3, coefficient=4, weights="integers"),
    5: InequalityKnobs(variables=2, degree=4, squares=3, terms=3, homogeneous=True, weights="integers"),
    6: InequalityKnobs(variables=2, degree=6, squares=4, terms=3, homogeneous=True, weights="fractions"),
    7: InequalityKnobs(variables=2, degree=4, squares=3, terms=3, coefficient=4, weights="fractions"),
    8: InequalityKnobs(variables=3, degree=4, squares=4, terms=4, homogeneous=True, weights="fractions"),
    9: InequalityKnobs(
        variables=3, degree=3, squares=5, terms=4, coefficient=4, weights="fractions", domain="orthant"
    ),
    10: InequalityKnobs(
        variables=3, degree=4, squares=7, terms=6, coefficient=6, weights="fractions", domain="orthant"
    ),
}


# --------------------------------------------------------------------------------------------
# Generator-side polynomials (exponent tuple -> Fraction)
# --------------------------------------------------------------------------------------------


def _mono_mul(a: Exps, b: Exps) -> Exps:
    return tuple(i + j for i, j in zip(a, b, strict=True))


def poly_add(p: Poly, q: Poly, scale: Fraction = Fraction(1)) -> Poly:
    out = dict(p)
    for m, c in q.items():
        v = out.get(m, Fraction(0)) + scale * c
        if v:
            out[m] = v
        else:
            out.pop(m, None)
    return out


def poly_mul(p: Poly, q: Poly) -> Poly:
    out: Poly = {}
    for (m1, c1), (m2, c2) in itertools.product(p.items(), q.items()):
        m = _mono_mul(m1, m2)
        out[m] = out.get(m, Fraction(0)) + c1 * c2
    return {m: c for m, c in out.items() if c}


def _order(m: Exps) -> tuple[int, Exps]:
    return (sum(m), m)


def format_fraction(c: Fraction) -> str:
    return str(c.numerator) if c.denominator == 1 else f"{c.numerator}/{c.denominator}"


def render_monomial(m: Exps, names: tuple[str, ...]) -> str:
    parts = [n if e == 1 else f"{n}^{e}" for n, e in zip(names, m, strict=True) if e]
    return "*".join(parts)


def render_poly(p: Poly, names: tuple[str, ...]) -> str:
    if not p:
        return "0"
    out = ""
    for m in sorted(p, key=_order, reverse=True):
        c = p[m]
        mono = render_monomial(m, names)
        mag = abs(c)
        body = format_fraction(mag) if not mono else (mono if mag == 1 else f"{format_fraction(mag)}*{mono}")
        if not out:
            out = ("-" if c < 0 else "") + body
        else:
            out += (" - " if c < 0 else " + ") + body
    return out


def render_term(weight: Fraction, multiplier: Exps, q: Poly, names: tuple[str, ...]) -> str:
    """``c*m*(q)^2`` with the unit parts left out."""
    parts = [] if weight == 1 else [format_fraction(weight)]
    if any(multiplier):
        parts.append(render_monomial(multiplier, names))
    if not (len(q) == 1 and q.get(tuple(0 for _ in multiplier)) == 1):  # (1)^2 is left out
        parts.append(f"({render_poly(q, names)})^2")
    return "*".join(parts) or "1"


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def monomials(n: int, low: int, high: int) -> list[Exps]:
    """Every exponent tuple in n variables with total degree in [low, high], in a fixed order."""
    out = [m for m in itertools.product(range(high + 1), repeat=n) if low <= sum(m) <= high]
    return sorted(out, key=_order)


def _draw_weight(knobs: InequalityKnobs, rng: np.random.Generator) -> Fraction:
    if knobs.weights == "ones":
        return Fraction(1)
    if knobs.weights == "integers":
        return Fraction(int(rng.integers(1, 4)))
    return Fraction(int(rng.integers(1, 5)), int(rng.integers(1, 6)))


def _draw_q(knobs: InequalityKnobs, rng: np.random.Generator, half: int) -> Poly:
    """A polynomial of degree exactly ``half`` with ``knobs.terms`` monomials."""
    n = knobs.variables
    top = monomials(n, half, half)
    rest = [] if knobs.homogeneous else monomials(n, 0, half - 1)
    chosen = [top[int(rng.integers(len(top)))]]
    pool = [m for m in top + rest if m != chosen[0]]
    extra = min(knobs.terms - 1, len(pool))
    for k in rng.choice(len(pool), size=extra, replace=False) if extra else []:
        chosen.append(pool[int(k)])
    q: Poly = {}
    for m in chosen:
        c = int(rng.integers(1, knobs.coefficient + 1)) * (1 if rng.random() < 0.5 else -1)
        q[m] = Fraction(c)
    return q


def _draw_multiplier(knobs: InequalityKnobs, rng: np.random.Generator) -> Exps:
    """A squarefree monomial (1 now and then) whose degree has the parity of p's degree."""
    n = knobs.variables
    options = [
        m
        for m in itertools.product((0, 1), repeat=n)
        if sum(m) <= min(2, knobs.degree) and (not knobs.homogeneous or (knobs.degree - sum(m)) % 2 == 0)
    ]
    odd = [m for m in options if sum(m) % 2 == knobs.degree % 2 and any(m)]
    if odd and rng.random() < 0.75:
        return odd[int(rng.integers(len(odd)))]
    return options[int(rng.integers(len(options)))]


@dataclass
class Certificate:
    """The generating decomposition: terms (weight, multiplier, q)."""

    terms: list[tuple[Fraction, Exps, Poly]]

    def expand(self) -> Poly:
        total: Poly = {}
        for weight, multiplier, q in self.terms:
            total = poly_add(total, poly_mul({multiplier: Fraction(1)}, poly_mul(q, q)), weight)
        return total


def _trivial(p: Poly, domain: str) -> bool:
    """Certified at a glance: all coefficients positive, and (on R^n) all monomials squares."""
    if domain == "orthant":
        return all(c > 0 for c in p.values())
    return all(c > 0 and all(e % 2 == 0 for e in m) for m, c in p.items())


def _negative_somewhere(p: Poly) -> bool:
    """Whether p < 0 at some integer point of [-2, 2]^n (then no sum of squares proves it)."""
    n = len(next(iter(p)))
    for point in itertools.product(range(-2, 3), repeat=n):
        value = sum(c * math.prod(v**e for v, e in zip(point, m, strict=True)) for m, c in p.items())
        if value < 0:
            return True
    return False


def draw_certificate(knobs: InequalityKnobs, rng: np.random.Generator) -> tuple[Certificate, Poly]:
    n = knobs.variables
    for _ in range(500):
        terms = []
        for _ in range(knobs.squares):
            multiplier = _draw_multiplier(knobs, rng) if knobs.domain == "orthant" else (0,) * n
            half = (knobs.degree - sum(multiplier)) // 2
            q = _draw_q(knobs, rng, half) if half > 0 else {(0,) * n: Fraction(1)}
            terms.append((_draw_weight(knobs, rng), multiplier, q))
        cert = Certificate(terms)
        p = cert.expand()
        degree = max((sum(m) for m in p), default=-1)
        used = all(any(m[k] for m in p) for k in range(n))
        if degree != knobs.degree or not used or _trivial(p, knobs.domain) or len(p) > 80:
            continue
        if knobs.domain == "orthant" and not _negative_somewhere(p):
            continue  # the orthant must matter
        return cert, p
    raise RuntimeError(f"could not draw a nontrivial certificate for {knobs}")


def gram_blocks(cert: Certificate) -> list[dict[str, Any]]:
    """Per multiplier: the monomial basis and the Gram matrix sum c_i v_i v_i^T (exact)."""
    by_mult: dict[Exps, list[tuple[Fraction, Poly]]] = {}
    for weight, multiplier, q in cert.terms:
        by_mult.setdefault(multiplier, []).append((weight, q))
    blocks = []
    for multiplier in sorted(by_mult, key=_order):
        basis = sorted({m for _, q in by_mult[multiplier] for m in q}, key=_order)
        index = {m: i for i, m in enumerate(basis)}
        gram = [[Fraction(0)] * len(basis) for _ in basis]
        for weight, q in by_mult[multiplier]:
            for (m1, c1), (m2, c2) in itertools.product(q.items(), q.items()):
                gram[index[m1]][index[m2]] += weight * c1 * c2
        blocks.append({"multiplier": multiplier, "basis": basis, "gram": gram})
    return blocks


def ldl_squares(
    basis: list[Exps], gram: list[list[Fraction]]
) -> tuple[list[tuple[Fraction, Poly]] | None, int]:
    """Exact LDL^T of a symmetric matrix in basis order: ``([(d_k, z_k + sum l_jk z_j)], ops)``,
    or ``(None, ops)`` when it is not positive semidefinite."""
    a = [row[:] for row in gram]
    n, ops, out = len(a), 0, []
    for k in range(n):
        d = a[k][k]
        if d < 0:
            return None, ops
        if d == 0:
            if any(a[k][j] for j in range(k + 1, n)):
                return None, ops
            continue
        ls = {j: a[k][j] / d for j in range(k + 1, n) if a[k][j]}
        square: Poly = {basis[k]: Fraction(1)}
        square.update({basis[j]: lj for j, lj in ls.items()})
        out.append((d, square))
        for i, li in ls.items():
            for j, lj in ls.items():
                a[i][j] -= d * li * lj
                ops += 1
        ops += 1
    return out, ops


def free_parameters(blocks: list[tuple[Exps, list[Exps]]]) -> int:
    """Gram entries (i <= j, over all multiplier blocks) minus the distinct monomials they
    produce: the dimension of the family of Gram matrices that all expand to the same p."""
    entries, products = 0, set()
    for multiplier, basis in blocks:
        for i, bi in enumerate(basis):
            for bj in basis[i:]:
                entries += 1
                products.add(_mono_mul(multiplier, _mono_mul(bi, bj)))
    return entries - len(products)


def render_certificate(terms: list[tuple[Fraction, Exps, Poly]], names: tuple[str, ...]) -> str:
    return " + ".join(render_term(w, m, q, names) for w, m, q in terms)


# --------------------------------------------------------------------------------------------
# Canonical form (variable renaming)
# --------------------------------------------------------------------------------------------


def canonical_form(p: Poly, n: int) -> str:
    names = NAMES[:n]
    best = None
    for perm in itertools.permutations(range(n)):
        renamed = {tuple(m[perm[k]] for k in range(n)): c for m, c in p.items()}
        text = render_poly(renamed, names)
        best = text if best is None or text < best else best
    return best or ""


# --------------------------------------------------------------------------------------------
# The verifier's scanner: exact polynomials over QQ, with structure for nonnegativity
# --------------------------------------------------------------------------------------------


class CertificateError(ValueError):
    """The text is not a certificate this grammar reads, or it exceeds a size cap."""


_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<name>[A-Za-z])|(?P<op>[-+*/^()]))")
_SUPERSCRIPTS = {"²": "^2", "³": "^3", "⁴": "^4", "⁵": "^5", "⁶": "^6"}
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_LHS_NAME = re.compile(r"^\s*[A-Za-z]\s*(?:\(\s*[A-Za-z](?:\s*,\s*[A-Za-z])*\s*\))?\s*$")
_GEQ_ZERO = re.compile(r"\s*(?:>=|≥|\\geq?)\s*0\s*\.?\s*$")


def normalize(text: str) -> str:
    """Unicode and LaTeX spellings to the scanner's small alphabet."""
    text = text.replace("$", " ").replace("\\left", "").replace("\\right", "").replace("**", "^")
    text = _FRAC.sub(r"((\1)/(\2))", text)
    for old, new in (("\\cdot", "*"), ("\\times", "*"), ("·", "*"), ("⋅", "*"), ("×", "*"), ("−", "-")):
        text = text.replace(old, new)
    for old, new in _SUPERSCRIPTS.items():
        text = text.replace(old, new)
    text = re.sub(r"\\[,;:! ]", " ", text)
    return text.replace("{", "(").replace("}", ")").replace("[", "(").replace("]", ")")


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens, pos, text = [], 0, text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise CertificateError(f"unexpected character {text[pos : pos + 1]!r}")
        kind = m.lastgroup or ""
        tokens.append((kind, m.group(kind)))
        if len(tokens) > MAX_TOKENS:
            raise CertificateError(f"more than {MAX_TOKENS} symbols")
        pos = m.end()
    tokens.append(("eof", ""))
    return tokens


def _parse_number(text: str) -> Fraction:
    if len(text) > MAX_NUMBER_DIGITS + 1:
        raise CertificateError(f"a number longer than {MAX_NUMBER_DIGITS} digits")
    return Fraction(text)  # digits and one optional point only (the token regex saw to that)


@lru_cache(maxsize=16)
def _ring(n: int) -> tuple[Any, tuple[PolyElement, ...]]:
    r, *gens = ring(",".join(NAMES[:n]), QQ)
    return r, tuple(gens)


def _degree(p: PolyElement) -> int:
    return max((sum(m) for m in p), default=0)


def _is_constant(p: PolyElement) -> bool:
    return all(not any(m) for m in p)


def _constant(p: PolyElement) -> Fraction:
    c = p.get(tuple(0 for _ in p.ring.gens), 0)
    return Fraction(int(c.numerator), int(c.denominator)) if c else Fraction(0)


class _Scanner:
    """Recursive descent: ``sum := [+-] term {[+-] term}``, ``term := factor {[*/] factor}``
    (a factor may follow another directly: ``2x``, ``3(x-y)^2``), ``factor := atom [^ int]``,
    ``atom := number | variable | ( sum )``. Every sum also reports whether each of its terms
    is certified nonnegative by the rules of the task's domain."""

    def __init__(self, tokens: list[tuple[str, str]], n: int, orthant: bool, max_degree: int) -> None:
        self.toks, self.i, self.depth, self.work = tokens, 0, 0, 0
        self.ring, gens = _ring(n)
        self.vars = dict(zip(NAMES[:n], gens, strict=True))
        self.orthant, self.max_degree = orthant, max_degree

    def peek(self) -> tuple[str, str]:
        return self.toks[self.i]

    def take(self) -> tuple[str, str]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def mul(self, a: PolyElement, b: PolyElement) -> PolyElement:
        if _degree(a) + _degree(b) > self.max_degree:
            raise CertificateError(f"a product of degree above {self.max_degree}")
        self.work += len(a) * len(b)
        if self.work > MAX_WORK:
            raise CertificateError("the certificate is too large to expand")
        return a * b

    def power(self, base: PolyElement, e: int) -> PolyElement:
        if _is_constant(base):
            c = _constant(base)
            size = len(str(c.numerator)) + len(str(c.denominator))
            if size * e > 400:
                raise CertificateError("a number power too large")
            return self.ring(c**e)
        out = self.ring(1)
        for _ in range(e):
            out = self.mul(out, base)
        return out

    def parse(self) -> tuple[PolyElement, list[str]]:
        value, problems = self.sum(top=True)
        if self.peek()[0] != "eof":
            raise CertificateError(f"unexpected {self.peek()[1]!r}")
        return value, problems

    def sum(self, top: bool = False) -> tuple[PolyElement, list[str]]:
        """The value and, per term that is not certified nonnegative, why not."""
        total, problems, k = self.ring(0), [], 0
        sign = 1
        if self.peek() in (("op", "+"), ("op", "-")):
            sign = -1 if self.take()[1] == "-" else 1
        while True:
            k += 1
            if top and k > MAX_TERMS:
                raise CertificateError(f"more than {MAX_TERMS} terms")
            value, why = self.term(sign)
            total = total + value
            if why:
                problems.append(f"term {k} {why}")
            if self.peek() not in (("op", "+"), ("op", "-")):
                return total, problems
            sign = -1 if self.take()[1] == "-" else 1

    def term(self, sign: int) -> tuple[PolyElement, str]:
        coef = Fraction(sign)
        groups: list[list[Any]] = []  # [base, exponent, nonnegative on its own]
        first = True
        while True:
            kind, value = self.peek()
            divide = False
            if (kind, value) in (("op", "*"), ("op", "/")):
                if first:
                    raise CertificateError(f"unexpected {value!r}")
                divide = self.take()[1] == "/"
            elif not first and not (kind in ("num", "name") or (kind, value) == ("op", "(")):
                break
            base, exponent, nonneg = self.factor()
            first = False
            if _is_constant(base):
                c = _constant(base) ** exponent
                if divide and c == 0:
                    raise CertificateError("division by zero")
                coef = coef / c if divide else coef * c
                if coef.numerator.bit_length() + coef.denominator.bit_length() > MAX_COEFFICIENT_BITS:
                    raise CertificateError("a coefficient too large")
                continue
            if divide:
                raise CertificateError("division by a non-constant polynomial")
            coef *= self._merge(groups, base, exponent, nonneg)
            if len(groups) > MAX_FACTORS:
                raise CertificateError(f"more than {MAX_FACTORS} factors in one term")
        product = self.ring(coef)
        why = "" if coef >= 0 else "has a negative coefficient"
        for base, exponent, nonneg in groups:
            product = self.mul(product, self.power(base, exponent))
            if not (nonneg or exponent % 2 == 0) and not why:
                why = "has a factor that is not known to be nonnegative (an odd power)"
        return product, "" if coef == 0 else why  # a zero term is harmless

    @staticmethod
    def _merge(groups: list[list[Any]], base: PolyElement, exponent: int, nonneg: bool) -> Fraction:
        """Collect repeated odd factors up to a scalar, (x-y)*(2y-2x) = -2*(x-y)^2; returns the
        scalar that moves into the coefficient."""
        if not (nonneg or exponent % 2 == 0):
            for g in groups:
                if g[2] or g[1] % 2 == 0 or len(g[0]) != len(base):
                    continue
                scale = base.LC / g[0].LC
                if base == g[0] * scale:
                    g[1] += exponent
                    return Fraction(int(scale.numerator), int(scale.denominator)) ** exponent
        groups.append([base, exponent, nonneg])
        return Fraction(1)

    def factor(self) -> tuple[PolyElement, int, bool]:
        base, nonneg = self.atom()
        exponent = 1
        if self.peek() == ("op", "^"):
            self.take()
            paren = self.peek() == ("op", "(")
            if paren:
                self.take()
            kind, value = self.take()
            if kind != "num" or not value.isdigit():
                raise CertificateError("an exponent must be a nonnegative integer")
            if paren and self.take() != ("op", ")"):
                raise CertificateError("unclosed exponent")
            exponent = int(value) if len(value) <= 3 else MAX_EXPONENT + 1
            if exponent > MAX_EXPONENT:
                raise CertificateError(f"an exponent above {MAX_EXPONENT}")
            if not _is_constant(base) and _degree(base) * exponent > self.max_degree:
                raise CertificateError(f"a power of degree above {self.max_degree}")
        return base, exponent, nonneg

    def atom(self) -> tuple[PolyElement, bool]:
        kind, value = self.take()
        if kind == "num":
            c = _parse_number(value)
            return self.ring(c), c >= 0
        if kind == "name":
            if value not in self.vars:
                raise CertificateError(f"unknown symbol {value!r} (the variables are {', '.join(self.vars)})")
            return self.vars[value], self.orthant
        if (kind, value) == ("op", "("):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise CertificateError("parentheses nested too deeply")
            inner, problems = self.sum()
            if self.take() != ("op", ")"):
                raise CertificateError("unclosed parenthesis")
            self.depth -= 1
            nonneg = not problems or (self.orthant and all(c >= 0 for c in inner.values()))
            return inner, nonneg
        raise CertificateError(f"unexpected {value or 'end of the certificate'!r}")


def read_certificate(
    text: str, n: int, orthant: bool, max_degree: int
) -> tuple[PolyElement, list[str], PolyElement | None]:
    """``(value of the right-hand side, terms not certified nonnegative, value of a written
    left-hand side or None)``; raises CertificateError for text outside the grammar or caps."""
    if len(text) > MAX_CHARS:
        raise CertificateError(f"a certificate longer than {MAX_CHARS} characters")
    text = _GEQ_ZERO.sub("", normalize(text)).strip()
    text = text[:-1] if text.endswith(".") else text  # a sentence's full stop
    sides = text.split("=")
    if len(sides) > 2:
        raise CertificateError("more than one '=' in the certificate")
    lhs = None
    named = _LHS_NAME.match(sides[0]) and sides[0].strip()[0] not in NAMES[:n]  # "p =", "f(x, y) ="
    if len(sides) == 2 and not named:
        lhs, _ = _Scanner(tokenize(sides[0]), n, orthant, max_degree).parse()
    scanner = _Scanner(tokenize(sides[-1]), n, orthant, max_degree)
    value, problems = scanner.parse()
    return value, problems, lhs


# --------------------------------------------------------------------------------------------
# Weak solver: complete the squares on the canonical Gram matrix
# --------------------------------------------------------------------------------------------


def canonical_gram(r: Poly, n: int) -> tuple[list[Exps], list[list[Fraction]]] | None:
    """Each monomial of r on the diagonal when it is a basis square, else split over the most
    balanced pair of basis monomials; None when some monomial has no pair."""
    degrees = [sum(m) for m in r]
    top = [max(m[k] for m in r) // 2 for k in range(n)]
    low, high = (min(degrees) + 1) // 2, max(degrees) // 2
    basis = [m for m in monomials(n, low, high) if all(m[k] <= top[k] for k in range(n))]
    index = {m: i for i, m in enumerate(basis)}
    gram = [[Fraction(0)] * len(basis) for _ in basis]
    for mono, c in r.items():
        half = tuple(e // 2 for e in mono)
        if all(e % 2 == 0 for e in mono) and half in index:
            gram[index[half]][index[half]] += c
            continue
        pairs = [
            (sum(abs(a - b) for a, b in zip(basis[i], basis[j], strict=True)), i, j)
            for i in range(len(basis))
            for j in range(i + 1, len(basis))
            if _mono_mul(basis[i], basis[j]) == mono
        ]
        if not pairs:
            return None
        _, i, j = min(pairs)
        gram[i][j] += c / 2
        gram[j][i] += c / 2
    return basis, gram


def parity_classes(p: Poly, orthant: bool) -> dict[Exps, Poly]:
    """On the orthant: multiplier (odd-exponent variables) -> p's part divided by it."""
    n = len(next(iter(p)))
    if not orthant:
        return {(0,) * n: dict(p)}
    out: dict[Exps, Poly] = {}
    for m, c in p.items():
        mult = tuple(e % 2 for e in m)
        out.setdefault(mult, {})[tuple(e - f for e, f in zip(m, mult, strict=True))] = c
    return out


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


PROMPT_REALS = """Prove that the polynomial

p({args}) = {p}

is nonnegative for all real {args}, by writing it as a sum of squares with nonnegative weights:
p = c1*(q1)^2 + c2*(q2)^2 + ...

Each weight c_i must be a nonnegative rational number and each q_i a polynomial in {args} with \
rational coefficients (a nonnegative constant term on its own is also allowed; more generally a \
term may be a nonnegative rational times a product of even powers of polynomials). After \
expanding, the sum must equal p exactly. Write * for multiplication (2x also works), ^ for \
powers and fractions as 1/3. Certificates are not unique: any valid certificate is accepted. \
Example of the format (for a different polynomial):
<answer>
{example}
</answer>"""

PROMPT_ORTHANT = """Prove that the polynomial

p({args}) = {p}

is nonnegative whenever {nonneg}, by writing it as a sum of terms that are visibly nonnegative \
there. Each term must be a nonnegative rational number times a product of factors, where each \
factor is either an even power of any polynomial, such as (x - 2*y)^2, or any power of a \
polynomial whose coefficients are all nonnegative, such as x, x*y or (x + 3*y), which cannot be \
negative when {nonneg}. After expanding, the sum must equal p exactly. Write * for \
multiplication (2x also works), ^ for powers and fractions as 1/3. Certificates are not unique: \
any valid certificate is accepted. Example of the format (for a different polynomial):
<answer>
{example}
</answer>"""


def _example(names: tuple[str, ...], orthant: bool) -> str:
    a = names[0]
    if orthant:
        b = names[1]
        return f"{a}*({a} - {b})^2 + 1/2*{b}*({a} - 2)^2 + 3*{a}*{b}"
    if len(names) == 1:
        return f"2*({a} - 1)^2 + 1/3*({a}^2 + 3*{a})^2 + 5"
    b = names[1]
    return f"2*({a} - {b})^2 + 1/3*({a}*{b} + 3*{b} - 1)^2 + 5"


def _poly_from_meta(task: Task) -> Poly:
    return {tuple(m): Fraction(c) for m, c in task.metadata["p_terms"]}


def _to_ring(p: Poly, n: int) -> PolyElement:
    r, _ = _ring(n)
    return r.from_dict({m: QQ(c.numerator, c.denominator) for m, c in p.items()})


def split_terms(text: str) -> list[str]:
    """The top-level `` + ``-separated terms of a rendered certificate."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and text.startswith(" + ", i):
            out.append(text[start:i])
            start = i + 3
    return [*out, text[start:]]


def _wrap(text: str) -> str:
    return f"<answer>\n{text}\n</answer>"


@family(
    "inequality_certificate",
    domain="formal",
    knobs=InequalityKnobs,
    levels=LEVELS,
    description="Prove a polynomial inequality p >= 0 with a sum-of-squares / AM-GM certificate.",
    verifier_kind="exact polynomial identity + term-wise nonnegativity (any valid certificate)",
)
class InequalityCertificate(Family):
    def generate(self, knobs: InequalityKnobs, rng: np.random.Generator) -> TaskDraft:
        cert, p = draw_certificate(knobs, rng)
        n = knobs.variables
        names = NAMES[:n]
        orthant = knobs.domain == "orthant"
        blocks = gram_blocks(cert)
        text = render_poly(p, names)
        args = ", ".join(names)
        if orthant:
            prompt = PROMPT_ORTHANT.format(
                args=args, p=text, nonneg=", ".join(f"{v} >= 0" for v in names), example=_example(names, True)
            )
        else:
            prompt = PROMPT_REALS.format(args=args, p=text, example=_example(names, False))
        return TaskDraft(
            prompt=prompt,
            answer=render_certificate(cert.terms, names),
            metadata={
                "variables": list(names),
                "domain": knobs.domain,
                "p": text,
                "p_terms": [
                    [list(m), format_fraction(c)] for m, c in sorted(p.items(), key=lambda t: _order(t[0]))
                ],
                "degree": knobs.degree,
                "monomials": len(p),
                "squares": len(cert.terms),
                "blocks": [
                    {
                        "multiplier": list(b["multiplier"]),
                        "basis": [list(m) for m in b["basis"]],
                        "gram": [[format_fraction(c) for c in row] for row in b["gram"]],
                    }
                    for b in blocks
                ],
                "gram_size": sum(len(b["basis"]) for b in blocks),
                "canonical_hash": content_hash([knobs.domain, canonical_form(p, n)]),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        n = len(task.metadata["variables"])
        orthant = task.metadata["domain"] == "orthant"
        try:
            value, problems, lhs = read_certificate(
                extraction.text, n, orthant, int(task.metadata["degree"]) + DEGREE_SLACK
            )
        except CertificateError as exc:
            return Verdict.bad_format(str(exc))
        except RecursionError:
            return Verdict.bad_format("the certificate is nested too deeply")
        p = _to_ring(_poly_from_meta(task), n)
        shown = str(value)[:200]
        if lhs is not None and lhs != p:
            return Verdict.wrong("the left-hand side is not p", parsed=shown)
        if problems:
            return Verdict.wrong(problems[0] + ", so it does not prove p >= 0", parsed=shown)
        if value != p:
            diff = value - p
            mono = max(diff, key=lambda m: (sum(m), m))
            where = render_monomial(mono, NAMES[:n]) or "the constant term"
            return Verdict.wrong(
                f"the certificate does not expand to p (they differ at {where})", parsed=shown
            )
        return Verdict.right(parsed=shown)

    def solve_exact(self, task: Task) -> SolverRun:
        n = len(task.metadata["variables"])
        names, terms, effort = NAMES[:n], [], len(task.metadata["p_terms"])
        structure = []
        for block in task.metadata["blocks"]:
            basis = [tuple(m) for m in block["basis"]]
            gram = [[Fraction(c) for c in row] for row in block["gram"]]
            squares, ops = ldl_squares(basis, gram)
            if squares is None:  # the generator's Gram matrices are PSD by construction
                raise RuntimeError("stored Gram matrix is not positive semidefinite")
            effort += len(basis) ** 2 + ops
            terms += [(d, tuple(block["multiplier"]), q) for d, q in squares]
            structure.append((tuple(block["multiplier"]), basis))
        # a solver without the witness searches the whole family of Gram matrices: scale the
        # decomposition work by the dimension of that family
        effort *= 1 + free_parameters(structure)
        return SolverRun(_wrap(render_certificate(terms, names)), float(effort))

    def solve_weak(self, task: Task) -> SolverRun:
        n = len(task.metadata["variables"])
        p = _poly_from_meta(task)
        terms, effort = [], 0
        for mult, r in sorted(parity_classes(p, task.metadata["domain"] == "orthant").items()):
            gram = canonical_gram(r, n)
            if gram is None or len(gram[0]) > WEAK_MAX_BASIS:
                return SolverRun(None, float(effort))
            squares, ops = ldl_squares(*gram)
            effort += ops
            if squares is None:
                return SolverRun(None, float(effort))
            terms += [(d, mult, q) for d, q in squares]
        return SolverRun(_wrap(render_certificate(terms, NAMES[:n])), float(effort))

    def reference_response(self, task: Task) -> str:
        return _wrap(task.answer)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        answer = task.answer
        v = task.metadata["variables"][0]
        first, *rest = split_terms(answer)
        out = [
            # a weight changed: the identity breaks
            " + ".join([f"2*{first}", *rest]),
            # the identity kept, but one weight negative
            f"{answer} + 3*({v} - 1)^2 - 3*({v} - 1)^2",
            # the identity kept, but a term that is not a square
            f"{answer} + ({v} - 1) + (1 - {v})",
            # a square dropped (or, with one term, a constant added)
            " + ".join(rest) if rest else f"{answer} + 1",
            # the identity kept, and every term a square, but one weight minus: written as -c
            f"{answer} + ({v} + 2)^2 - 1*({v} + 2)^2",
        ]
        return [_wrap(text) for text in out]
