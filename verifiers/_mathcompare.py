"""Equivalence of two parsed answers (see ``docs/verifiers.md`` for the label policy).

Scalars are equal when exact symbolic forms agree, or when high-precision numeric
evaluation (mpmath through sympy's evalf) at several points agrees to far more digits than
either input spells out; one disagreeing point refutes. Structures compare by kind: tuples
in order, sets and answer lists without order, intervals with their open/closed ends,
inequalities as the sets they describe, equations by their solutions.

The comparison is aware of the answer's type, read from the reference: where the reference
is a solution (a number, a value of a variable, an interval), the answer must be in solved
form too. A relation that still has to be solved (``2x - 3 > -1`` for ``(1, \\infty)``,
``2x = 4`` for ``x = 2``) restates the problem and is not paid. Arithmetic left to do on
numbers (``2^{10}`` for 1024, ``\\sqrt4`` for 2, ``\\sin\\frac{\\pi}{6}`` for ``\\frac12``) is the
written-number rule: paid unless the answer restates the question (its expression appears in
the question) or the task asks for a simplified form. Units must agree when both sides give one.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

import sympy

from palaestra.verifiers._mathwords import unwrap_answer
from palaestra.verifiers.mathparse import (
    DEG,
    PCT,
    PM,
    Alts,
    Answer,
    Bracket,
    Options,
    ParseError,
    Rel,
    SetBuilder,
    SetLit,
    SetOp,
    Text,
    Unit,
    has_thousands_ambiguity,
    normalize_text,
    read_answer,
)

N_POINTS = 6  # random points for expressions with free symbols
MAX_PAIRS = 2_500  # element comparisons inside one unordered match


@dataclass(frozen=True)
class Settings:
    """The comparison side of the policy (mirrors ``MathPolicy`` in ``math.py``)."""

    rel_tol: float | None = None
    strip_units: bool = False
    e_is_euler: bool = True
    i_is_imaginary: bool = True
    j_is_imaginary: bool | None = None
    strict_units: bool = False
    simplified: bool = False


class _Undecided(Exception):
    """Numeric evaluation could not decide (free functions, non-numeric values)."""


# ------------------------------------------------------------------------------------------
# Entry point
# ------------------------------------------------------------------------------------------


def _options(settings: Settings, thousands: bool = True) -> Options:
    return Options(
        e_is_euler=settings.e_is_euler,
        i_is_imaginary=settings.i_is_imaginary,
        j_is_imaginary=bool(settings.j_is_imaginary),
        thousands=thousands,
        words=True,
    )


def compare_strings(gold: str, pred: str, settings: Settings, question: str | None = None) -> dict[str, Any]:
    """Compare answer strings; returns the fields of a Verdict as a plain dict. ``question`` (the
    task's prompt, when there is one) lets the written-number rule see a restatement."""
    options = _options(settings)
    restated = question is not None and restates(pred, question)
    try:
        g = read_answer(gold, options)
    except ParseError:
        g = None
    try:
        p = read_answer(pred, options)
    except ParseError as exc:
        if g is None and _same_text(gold, pred):
            return _result(True, True, normalize_text(pred), "the same text answer")
        return _result(False, False, None, f"cannot parse the answer: {exc}")
    if g is None:
        same = _same_text(gold, pred)
        return _result(same, True, _show(p.value), "the same text answer" if same else "not equivalent")
    equal, reason = decide(g, p, settings, restated)
    if equal:
        return _result(True, True, _show(p.value), reason)
    # "100,200" may be a list or a number: if the strict reading differs, try the other
    if reason == "not equivalent" and (has_thousands_ambiguity(gold) or has_thousands_ambiguity(pred)):
        other = _options(settings, thousands=False)
        try:
            g2: Answer | None = read_answer(gold, other)
            p2: Answer | None = read_answer(pred, other)
        except ParseError:
            g2 = p2 = None
        if g2 is not None and p2 is not None and decide(g2, p2, settings, restated)[0]:
            return _result(True, True, _show(p2.value), "equivalent")
    return _result(False, True, _show(p.value), reason)


def _same_text(gold: str, pred: str) -> bool:
    """Two free-text answers that say the same thing. A text with no letter or digit (``""``,
    ``\\text{ }``, ``{}``, ``.``) says nothing: a blank reference is a broken task, never an
    answer that a blank response matches."""
    text = normalize_text(gold)
    return any(ch.isalnum() for ch in text) and text == normalize_text(pred)


def decide(g: Answer, p: Answer, s: Settings, restated: bool = False) -> tuple[bool, str]:
    """(equal, reason) for parsed answers: units, then the values, then the answer's form
    (``restated``: the answer's expression appears in the question)."""
    gv, pv = g.value, p.value
    if s.strict_units and (problem := _strict_unit_problem(g, p)):
        return False, problem
    if not s.strip_units:
        scale, problem = unit_scale(g.units, p.units)
        if problem is not None:
            return False, problem
        if scale != 1:
            pv = map_numbers(pv, lambda e: e * scale)
        # an angle given in radians on one side fixes how the other side's degree sign reads
        if _has_unit(p.units, "rad"):
            gv = map_numbers(gv, lambda e: e.subs(DEG, sympy.pi / 180), constants_only=False)
        if _has_unit(g.units, "rad"):
            pv = map_numbers(pv, lambda e: e.subs(DEG, sympy.pi / 180), constants_only=False)
    if not (equivalent(gv, pv, s) or _equal_reading_j(gv, pv, s)):
        return False, "not equivalent"
    return _written_number_rule(g, p, s, restated)


def _written_number_rule(g: Answer, p: Answer, s: Settings, restated: bool) -> tuple[bool, str]:
    """An answer equal in value that leaves arithmetic to do (``2^{10}``, ``\\sqrt4``, ``5!``,
    ``\\log_2 8`` for a written number; a function the reference does not apply) is paid unless
    it restates the question or the task asks for a simplified form; under ``simplified`` a
    radical or fraction not in simplest form is refused too. A function applied to a variable
    the reference does not apply (``|x| = 1`` for ``x = 1``) is another answer, never paid."""
    extra = p.form.functions - g.form.functions
    if extra and _free(p.value):
        return False, f"the answer applies {', '.join(sorted(extra))} to a variable"
    if g.form.literal and g.form.values and not p.form.literal and not _contains(g.value, DEG):
        undone = "the reference is a number and the answer leaves arithmetic to do"
    elif extra:
        undone = f"the answer leaves {', '.join(sorted(extra))} unevaluated"
    elif s.simplified and (p.form.unsimplified - g.form.unsimplified):
        kinds = sorted(p.form.unsimplified - g.form.unsimplified)
        verb = "are" if len(kinds) > 1 else "is"
        return (
            False,
            f"the task asks for a simplified form and the answer's {' and '.join(kinds)} {verb} not in simplest form",
        )
    else:
        return True, "equivalent"
    if s.simplified:
        return False, f"{undone}, and the task asks for a simplified form"
    if restated:
        return False, f"{undone}: the answer restates the question"
    return True, "equivalent (arithmetic left to do, paid: see the written-number rule)"


def _free(node: Any) -> bool:
    """Whether a parsed answer has a variable (markers such as % and degrees are not)."""
    return any(e.free_symbols - MARKER_SET for e in _scalars(node))


# The question text and the answer compared for a restatement: spacing, braces, \left/\right,
# math delimiters and the spelling of fractions, products and powers do not matter.
_FRAC_BRACES = re.compile(r"\\[dtc]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_FRAC_DIGITS = re.compile(r"\\[dtc]?frac\s*(\d)\s*(\d)")
_TEX_NOISE = re.compile(r"\\left|\\right|\\displaystyle|\\boxed|\\[,;:! ]|\\[()\[\]]|[\s${}]")
_BINOM = re.compile(r"\\[dt]binom")
# a word of prose: not a TeX command, not a function name applied (sqrt(16), log_2 8)
_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}(?![A-Za-z(_^{\d])")
_LONE_GROUP = re.compile(r"\(([\w.]+)\)")
MAX_QUESTION_CHARS = 200_000  # a question longer than this is read up to here


def _math_text(text: str) -> str:
    text = text[:MAX_QUESTION_CHARS].replace("**", "^").replace("\\cdot", "*").replace("\\times", "*")
    text = _BINOM.sub(r"\\binom", text)
    text = _WORD.sub(" ", text)  # prose around the expression ("The answer is", "apples")
    text = _FRAC_DIGITS.sub(r"(\1)/(\2)", _FRAC_BRACES.sub(r"(\1)/(\2)", text))
    text = _TEX_NOISE.sub("", text)
    for _ in range(3):  # ((1)/(2))^2 -> (1/2)^2
        text = _LONE_GROUP.sub(r"\1", text)
    return text


def restates(pred: str, question: str) -> bool:
    """Whether the answer ``pred`` is written in ``question`` (up to spelling, see _math_text),
    as a whole token: ``2^{10}`` restates "Compute $2^{10}$" but not "Compute $2^{100}$"."""
    needle, hay = _math_text(unwrap_answer(pred[:MAX_QUESTION_CHARS])), _math_text(question)
    if len(needle) < 2 or not re.search(r"[^\d.,()]", needle):
        return False  # a bare number (what is left of prose around one) restates nothing
    start = hay.find(needle)
    while start != -1:
        end = start + len(needle)
        before, after = hay[start - 1 : start], hay[end : end + 1]
        if not (_joins(before, needle[0]) or _joins(needle[-1], after)):
            return True
        start = hay.find(needle, start + 1)
    return False


def _joins(a: str, b: str) -> bool:
    """Whether two adjacent characters belong to one number or one word."""
    return bool(a and b) and ((a.isdigit() and b.isdigit()) or (a.isalpha() and b.isalpha()))


def _strict_unit_problem(g: Answer, p: Answer) -> str | None:
    """Under ``strict_units`` the reference names the one unit asked for (a percentage is
    written with its ``%``): the answer may leave the unit out (a bare number is a number of
    that unit) or give one of the same dimension, but a unit, a percent sign or a degree sign
    that the reference does not have is a wrong answer, never dropped or read as a factor
    (``360 %``, ``360 rad``, ``360°`` for 360 km; ``12.5 kg`` for 12.5 percent)."""
    if p.units and not g.units:
        return f"the answer gives a unit ({p.units[0]}) where the question asks for none"
    if _has_unit(p.units, "rad") and not _has_unit(g.units, "rad"):
        return "the answer is an angle in radians; the question asks for another quantity"
    for marker, name in ((PCT, "a percent sign"), (DEG, "a degree sign")):
        if _contains(p.value, marker) and not _contains(g.value, marker):
            return f"the answer has {name} that the question does not ask for"
    return None


def _result(correct: bool, format_ok: bool, parsed: Any, reason: str) -> dict[str, Any]:
    return {"correct": correct, "format_ok": format_ok, "parsed": parsed, "reason": reason}


def _show(node: Any) -> str:
    """A short printable form of a parsed answer (huge integers are not printed in full)."""
    try:
        text = str(node)
    except ValueError:
        return "<a number too long to print>"
    return text if len(text) <= 300 else text[:300] + "..."


# ------------------------------------------------------------------------------------------
# Units, numbers inside structures, the imaginary j
# ------------------------------------------------------------------------------------------


def unit_scale(gold: tuple[Unit, ...], pred: tuple[Unit, ...]) -> tuple[sympy.Rational, str | None]:
    """(factor that converts the answer's numbers to the reference's unit, problem or None).

    A side without units takes the other's (the question names the unit); with units on both
    sides the dimensions must agree (``5 cm`` is not ``5 m``, ``150 cm`` is ``1.5 m``)."""
    gold = tuple(u for u in gold if u.name != "rad")
    pred = tuple(u for u in pred if u.name != "rad")
    if not gold or not pred:
        return sympy.Integer(1), None
    g_units, p_units = set(gold), set(pred)
    if len(g_units) == 1 and len(p_units) == 1:
        (a,), (b,) = g_units, p_units
        if a.dimension != b.dimension:
            return sympy.Integer(1), f"the units differ: {a} and {b}"
        ratio = b.scale / a.scale
        return sympy.Rational(ratio.numerator, ratio.denominator), None
    if gold != pred:
        return sympy.Integer(1), "the units differ"
    return sympy.Integer(1), None


def _has_unit(units: tuple[Unit, ...], name: str) -> bool:
    return any(u.name == name for u in units)


def map_numbers(node: Any, fn: Any, constants_only: bool = True) -> Any:
    """``node`` with ``fn`` applied to every scalar inside it (only to those without variables
    when ``constants_only``): ``x = 150`` scaled by 1/100 is ``x = 3/2``."""

    def walk(n: Any) -> Any:
        if _is_scalar(n):
            return n if constants_only and (n.free_symbols - MARKER_SET) else fn(n)
        if isinstance(n, Bracket):
            return Bracket(tuple(map(walk, n.items)), n.left, n.right)
        if isinstance(n, (SetLit, Alts, SetOp, Rel)):
            return _rebuilt(n, tuple(map(walk, _children(n))))
        if isinstance(n, sympy.MatrixBase):
            return n.applyfunc(walk)
        return n

    return walk(node)


def _children(node: Any) -> tuple[Any, ...]:
    return node.terms if isinstance(node, Rel) else node.items


def _rebuilt(node: Any, children: tuple[Any, ...]) -> Any:
    if isinstance(node, Rel):
        return Rel(node.ops, children)
    if isinstance(node, SetLit):
        return SetLit(children)
    if isinstance(node, Alts):
        return Alts(children, node.joiner)
    return SetOp(node.op, children)


def _scalars(node: Any) -> list[sympy.Expr]:
    """Every scalar inside an answer (list items, tuple entries, relation sides, matrix entries)."""
    found: list[sympy.Expr] = []

    def keep(expr: sympy.Expr) -> sympy.Expr:
        found.append(expr)
        return expr

    map_numbers(node, keep, constants_only=False)
    return found


def _contains(node: Any, marker: sympy.Symbol) -> bool:
    return any(e.has(marker) for e in _scalars(node))


_J = sympy.Symbol("j")


def _equal_reading_j(g: Any, p: Any, s: Settings) -> bool:
    """``3 + 4j`` for ``3 + 4i``: where j is the only letter on one side and the other side is a
    number, j reads as the imaginary unit (unless the policy fixes how j reads)."""
    if s.j_is_imaginary is not None:
        return False
    free_g = set().union(*(e.free_symbols for e in _scalars(g))) - MARKER_SET
    free_p = set().union(*(e.free_symbols for e in _scalars(p))) - MARKER_SET

    def as_i(node: Any) -> Any:
        return map_numbers(node, lambda e: e.subs(_J, sympy.I), constants_only=False)

    if free_p == {_J} and not free_g:
        return equivalent(g, as_i(p), s)
    if free_g == {_J} and not free_p:
        return equivalent(as_i(g), p, s)
    return False


# ------------------------------------------------------------------------------------------
# Structural dispatch
# ------------------------------------------------------------------------------------------


def equivalent(g: Any, p: Any, s: Settings) -> bool:
    """Whether parsed answers ``g`` (gold) and ``p`` (prediction) are the same answer."""
    named = _compare_named(g, p, s)
    if named is not None:
        return named
    g, p = _expand_pm(_unnamed(g)), _expand_pm(_unnamed(p))
    if isinstance(g, Text) or isinstance(p, Text):
        return (
            isinstance(g, Text) and isinstance(p, Text) and normalize_text(g.text) == normalize_text(p.text)
        )
    if _is_scalar(g) and _is_scalar(p):
        return scalar_equal(g, p, s)
    for a, b in ((g, p), (p, g)):
        if isinstance(a, Rel) and _is_scalar(b):
            value = _assigned_value(a)
            return value is not None and _is_scalar(value) and scalar_equal(value, b, s)
    if isinstance(g, Rel) and isinstance(p, Rel) and _all_eq(g) and _all_eq(p):
        return _equations_equal(g, p, s)
    if _setlike(g) or _setlike(p):
        return _sets_equal(g, p, s)
    for a, b in ((g, p), (p, g)):
        if (
            isinstance(a, Bracket)
            and isinstance(b, Alts)
            and b.joiner == ","
            and all(map(_is_scalar, b.items))
        ):
            # "2, 3" for the point (2, 3): a bare list read in order, never as a set
            return len(a.items) == len(b.items) and all(
                equivalent(x, y, s) for x, y in zip(a.items, b.items, strict=True)
            )
    gv, pv = _values(g), _values(p)
    if gv is not None and pv is not None and (_unordered(g) or _unordered(p)):
        return _unordered_equal(gv, pv, s)
    if isinstance(g, sympy.MatrixBase) or isinstance(p, sympy.MatrixBase):
        gm, pm = _as_matrix(g), _as_matrix(p)  # None for a flat tuple: a vector, compared below
        if gm is not None and pm is not None:
            return gm.shape == pm.shape and all(scalar_equal(a, b, s) for a, b in zip(gm, pm, strict=True))
    gt, pt = _as_tuple(g), _as_tuple(p)
    if gt is not None and pt is not None:
        if isinstance(g, Bracket) and isinstance(p, Bracket) and len(gt) == 2:
            if (g.left, g.right) != (p.left, p.right):
                return False  # [1, 2] and (1, 2) differ: either could be an interval
        return len(gt) == len(pt) and all(equivalent(a, b, s) for a, b in zip(gt, pt, strict=True))
    return False


def _is_scalar(x: Any) -> bool:
    return isinstance(x, sympy.Expr) and not isinstance(x, sympy.MatrixBase)


def _named_tuple(node: Any) -> tuple[tuple[Any, ...], Bracket] | None:
    """``(x, y) = (4, 5)``: the names and the tuple of values, or None."""
    if not (isinstance(node, Rel) and node.ops == ("=",)):
        return None
    names, values = node.terms
    if not (
        isinstance(names, Bracket) and isinstance(values, Bracket) and len(names.items) == len(values.items)
    ):
        return None
    if not all(isinstance(n, sympy.Symbol) for n in names.items) or len(set(names.items)) != len(names.items):
        return None
    return names.items, values


def _named_values(node: Any) -> dict[Any, Any] | None:
    """The values by name of ``(x, y) = (4, 5)`` or of a system ``x = 4, y = 5``."""
    named = _named_tuple(node)
    if named is not None:
        return dict(zip(named[0], named[1].items, strict=True))
    if isinstance(node, Alts) and _is_system(node):
        return {i.terms[0]: _assigned_value(i) for i in node.items}
    return None


def _compare_named(g: Any, p: Any, s: Settings) -> bool | None:
    """Named tuples and systems compare by name against names; a system against a bare list in
    written order (``x = -5, p = 3`` is ``-5, 3``; ``AB = 4, CD = 5`` is ``4, 5``), against a
    tuple in the order of the names (``y = -2, x = 3`` is ``(3, -2)``)."""
    gs, ps = _system_tuple(g), _system_tuple(p)
    if (gs is None) != (ps is None) and _named_tuple(g) is None and _named_tuple(p) is None:
        system, other = (gs, p) if gs is not None else (ps, g)
        assert system is not None  # exactly one side is a system here
        if isinstance(other, SetLit) and _indexed_roots(g if gs is not None else p):
            # x_1 = a, x_2 = b lists the roots of one unknown: as a set of values, in any order
            return _unordered_equal(list(system.items), list(other.items), s)
        if isinstance(other, Alts) and other.joiner == "," and all(map(_is_scalar, other.items)):
            system = _system_tuple(g if gs is not None else p, written=True)
            other = Bracket(other.items, "(", ")")
        if system is not None and isinstance(other, Bracket) and other.left == "(":
            return len(system.items) == len(other.items) and all(
                equivalent(a, b, s) for a, b in zip(system.items, other.items, strict=True)
            )
        return None
    if _named_tuple(g) is None and _named_tuple(p) is None:
        return None
    gn, pn = _named_values(g), _named_values(p)
    if gn is not None and pn is not None:
        return gn.keys() == pn.keys() and all(equivalent(v, pn[k], s) for k, v in gn.items())
    return None


def _unnamed(node: Any) -> Any:
    """``(x, y) = (4, 5)`` is the tuple ``(4, 5)`` (also inside an answer list)."""
    named = _named_tuple(node)
    if named is not None:
        return named[1]
    if isinstance(node, Alts) and any(_named_tuple(i) is not None for i in node.items):
        return Alts(tuple(_unnamed(i) for i in node.items), node.joiner)
    if isinstance(node, Alts) and any(isinstance(i, Alts) and _system_tuple(i) for i in node.items):
        # p = 5, q = 2; p = 7, q = 2 (or "... or ..."): several solutions, each a point
        return Alts(tuple(_system_tuple(i) or i for i in node.items), node.joiner)
    return node


def _expand_pm(node: Any) -> Any:
    """``1 \\pm \\sqrt 2`` is the two answers ``1 + \\sqrt 2`` and ``1 - \\sqrt 2``."""
    if _is_scalar(node) and node.has(PM):
        return Alts((node.subs(PM, 1), node.subs(PM, -1)), "or")
    if isinstance(node, Rel) and any(_is_scalar(t) and t.has(PM) for t in node.terms):
        plus = Rel(node.ops, tuple(t.subs(PM, 1) if _is_scalar(t) else t for t in node.terms))
        minus = Rel(node.ops, tuple(t.subs(PM, -1) if _is_scalar(t) else t for t in node.terms))
        return Alts((plus, minus), "or")
    if isinstance(node, Alts) and any(_is_scalar(i) and i.has(PM) or isinstance(i, Rel) for i in node.items):
        items: list[Any] = []
        for item in node.items:
            expanded = _expand_pm(item)
            items.extend(
                expanded.items if isinstance(expanded, Alts) and expanded is not item else [expanded]
            )
        return Alts(tuple(items), node.joiner)
    return node


def _all_eq(rel: Rel) -> bool:
    return all(op == "=" for op in rel.ops)


def _is_name(expr: Any) -> bool:
    """A named quantity: a variable (``x``), a product or quotient of letters (``AB`` for a
    segment, ``V_1:V_2``) or the absolute value of one (``|AB|``). Never a number or a sum: ``2x = 4`` and ``x + 1 = 5``
    restate a problem, they do not name its answer."""
    if isinstance(expr, sympy.Abs):  # |AB| names a length; |x| = 1 restates x = 1 or x = -1
        return isinstance(expr.args[0], sympy.Mul) and _is_name(expr.args[0])
    if isinstance(expr, sympy.Symbol):
        return expr not in MARKER_SET
    return isinstance(expr, sympy.Mul) and all(
        (isinstance(a, sympy.Symbol) and a not in MARKER_SET)
        or (isinstance(a, sympy.Pow) and isinstance(a.base, sympy.Symbol) and a.exp == -1)
        for a in expr.args
    )  # AB, or V_1/V_2 for the ratio V_1:V_2


def _assigned_value(rel: Rel) -> Any:
    """``x = 3`` (or ``3 = x``, ``f(x) = ... = 3``, ``AB = 3``) assigns 3: the last term after a
    name."""
    if not _all_eq(rel):
        return None
    first, last = rel.terms[0], rel.terms[-1]
    if isinstance(first, sympy.Symbol) and len(rel.terms) == 2:
        return last
    if _is_name(first) and len(rel.terms) == 2 and _is_scalar(last) and not last.free_symbols:
        return last  # AB = 4, |AB| = 1: a named length
    if isinstance(last, sympy.Symbol) and len(rel.terms) == 2 and not isinstance(first, sympy.Symbol):
        return first
    if len(rel.terms) > 2 and isinstance(first, sympy.Symbol) and _steps_agree(rel.terms[1:]):
        return last  # x = 2 + 1 = 3: a worked chain ending in the value
    return None


def _steps_agree(terms: tuple[Any, ...]) -> bool:
    """Every step of ``x = a = b = c`` equals c exactly (``x = 4 = 3`` is not an answer of 3)."""
    last = terms[-1]
    return all(_is_scalar(t) and _is_scalar(last) and scalar_equal(t, last, Settings()) for t in terms[:-1])


def _assignment(rel: Rel) -> tuple[sympy.Symbol, Any] | None:
    """``x = 3`` or ``3 = x``: (x, 3) when one side is a bare variable the other lacks."""
    if rel.ops != ("=",):
        return None
    for name, value in (rel.terms, rel.terms[::-1]):
        if (
            isinstance(name, sympy.Symbol)
            and name not in MARKER_SET
            and not (_is_scalar(value) and value.has(name))
        ):
            return name, value
    return None


def _equations_equal(g: Rel, p: Rel, s: Settings) -> bool:
    solution = _assignment(g)
    if solution is not None and _is_scalar(solution[1]) and not (solution[1].free_symbols - MARKER_SET):
        # the reference is a solution (x = 3): the answer must be one too, not 2x = 6
        answer = _assignment(p) if len(p.terms) == 2 else None
        if answer is None:
            value = _assigned_value(p)
            return value is not None and p.terms[0] == solution[0] and _same(solution[1], value, s)
        return answer[0] == solution[0] and _same(solution[1], answer[1], s)
    if len(g.terms) == 2 == len(p.terms):
        gs, ps = g.terms[0], p.terms[0]
        if isinstance(gs, sympy.Symbol) and gs == ps:
            return _same(g.terms[1], p.terms[1], s)
        gd, pd = _difference(g), _difference(p)
        if gd is None or pd is None:
            return False
        return _proportional(gd, pd, s)
    gv, pv = _assigned_value(g), _assigned_value(p)
    return gv is not None and pv is not None and _same(gv, pv, s)


def _same(a: Any, b: Any, s: Settings) -> bool:
    return equivalent(a, b, s)


def _difference(rel: Rel) -> sympy.Expr | None:
    left, right = rel.terms
    if _is_scalar(left) and _is_scalar(right):
        return left - right
    return None


def _proportional(a: sympy.Expr, b: sympy.Expr, s: Settings) -> bool:
    """``2y = 4x + 2`` and ``y = 2x + 1`` describe the same curve: a = k b, k constant."""
    if a == 0 or b == 0:
        return a == b
    ratio = sympy.cancel(a / b)
    if ratio.free_symbols:
        return False
    return ratio != 0 and ratio.is_finite is not False


# ------------------------------------------------------------------------------------------
# Collections
# ------------------------------------------------------------------------------------------


def _unordered(node: Any) -> bool:
    return isinstance(node, (SetLit, Alts, sympy.FiniteSet))


def _values(node: Any) -> list[Any] | None:
    """An unordered answer list as values: ``1, 2`` / ``\\{1, 2\\}`` / ``x = 1 or x = 2``."""
    if isinstance(node, SetLit):
        return list(node.items)
    if isinstance(node, sympy.FiniteSet):
        return list(node.args)
    if isinstance(node, Alts):
        if _is_system(node):
            return None  # "x = 1 and y = 2" is one point; "x = 1 and x = 2" lists two values
        out = []
        for item in node.items:
            if isinstance(item, Rel):
                value = _assigned_value(item)
                if value is None:
                    return None
                out.append(value)
            else:
                out.append(item)
        return out
    if _is_scalar(node) or isinstance(node, (Bracket, sympy.MatrixBase)):
        return [node]
    if isinstance(node, Rel):
        value = _assigned_value(node)
        return [value] if value is not None else None
    return None


def _is_system(node: Alts) -> bool:
    """``x = 1, y = 2`` (or ``AB = 4, CD = 5``): assignments to different names (a point, not
    two answers)."""
    names = [
        i.terms[0]
        for i in node.items
        if isinstance(i, Rel) and _assigned_value(i) is not None and _is_name(i.terms[0])
    ]
    return len(names) == len(node.items) and len(set(names)) == len(names) > 1


_INDEXED = re.compile(r"([A-Za-z]+)_\{?\d+\}?")


def _indexed_roots(system: Alts) -> bool:
    """``x_1 = ..., x_2 = ...``: one letter with different indices names the roots of one
    unknown (an unordered set of solutions), unlike ``x = 1, y = 2``, a point."""
    matches = [_INDEXED.fullmatch(str(item.terms[0])) for item in system.items]
    return all(matches) and len({m.group(1) for m in matches if m}) == 1


def _system_tuple(node: Any, written: bool = False) -> Bracket | None:
    """A system ``y = 2, x = 1`` as the tuple of its values in the order of the names,
    ``(1, 2)``, as a point's coordinates are written; or, ``written``, in the order written
    (against a bare list, which restates the system: ``x = -5, p = 3`` is ``-5, 3``)."""
    if isinstance(node, Alts) and node.joiner == "," and _is_system(node):
        ordered = node.items if written else sorted(node.items, key=lambda i: str(i.terms[0]))
        return Bracket(tuple(_assigned_value(i) for i in ordered), "(", ")")
    return None


def _as_matrix(node: Any) -> sympy.MatrixBase | None:
    """A matrix, or a plain-text one written as rows: ``[[1, 2], [3, 4]]``."""
    if isinstance(node, sympy.MatrixBase):
        return node
    if isinstance(node, Bracket) and all(isinstance(r, Bracket) for r in node.items):
        rows = [r.items for r in node.items]
        if len({len(r) for r in rows}) == 1 and all(_is_scalar(x) for r in rows for x in r):
            return sympy.ImmutableMatrix(rows)
    return None


def _as_tuple(node: Any) -> list[Any] | None:
    if isinstance(node, Bracket):
        return list(node.items)
    if isinstance(node, sympy.MatrixBase) and 1 in node.shape:
        return list(node)
    if isinstance(node, Alts) and _is_system(node):
        pairs = sorted(((str(i.terms[0]), _assigned_value(i)) for i in node.items), key=lambda kv: kv[0])
        return [value for _, value in pairs]
    return None


def _unordered_equal(gv: list[Any], pv: list[Any], s: Settings) -> bool:
    """Equal as sets: every gold item matches a predicted one and vice versa."""
    if all(isinstance(v, sympy.Rational) for v in gv + pv):
        return set(gv) == set(pv)  # exact numbers are canonical: a hash comparison suffices
    if len(gv) * len(pv) > MAX_PAIRS:
        return False
    matches = [[equivalent(a, b, s) for b in pv] for a in gv]
    return all(any(row) for row in matches) and all(any(col) for col in zip(*matches, strict=True))


# ------------------------------------------------------------------------------------------
# Sets, intervals, inequalities
# ------------------------------------------------------------------------------------------


def _setlike(node: Any) -> bool:
    if isinstance(node, (sympy.Set, SetOp, SetBuilder)):
        return True
    if isinstance(node, Bracket) and len(node.items) == 2:
        mixed = node.left + node.right in ("(]", "[)")
        return mixed or any(_is_scalar(i) and i.has(sympy.oo, -sympy.oo) for i in node.items)
    if isinstance(node, Rel):
        return any(op != "=" for op in node.ops)
    if isinstance(node, Alts):
        return any(_setlike(i) for i in node.items)
    return False


def solved(rel: Rel) -> bool:
    """A relation in solved form: one side is a bare variable that no other side contains
    (``x > 1``, ``1 < x \\le 3``, ``x \\ne 0``, ``x \\in [1, 2]``; not ``2x > 6`` nor ``|x| > 1``)."""
    if "in" in rel.ops:
        return rel.ops == ("in",) and isinstance(rel.terms[0], sympy.Symbol)
    bare = [k for k, t in enumerate(rel.terms) if isinstance(t, sympy.Symbol) and t not in MARKER_SET]
    if len(bare) != 1:
        return False
    x = rel.terms[bare[0]]
    return all(not (_is_scalar(t) and t.has(x)) for k, t in enumerate(rel.terms) if k != bare[0])


def _unsolved(node: Any) -> bool:
    """Whether the answer holds a relation that is not in solved form."""
    if isinstance(node, Rel):
        return not solved(node)
    if isinstance(node, (Alts, SetOp)):
        return any(_unsolved(i) for i in node.items)
    if isinstance(node, SetBuilder):
        return _unsolved(node.condition)
    return False


def _sets_equal(g: Any, p: Any, s: Settings) -> bool:
    if _unsolved(p) and not _unsolved(g):
        return False  # the reference is solved: an unsolved relation restates the problem
    gs, ps = to_set(g), to_set(p)
    if gs is None or ps is None:
        return False
    if gs == ps:
        return True
    return _set_parts_equal(gs, ps, s)


def to_set(node: Any) -> sympy.Set | None:
    """The real set an answer describes, or None if it describes none."""
    try:
        return _to_set(node)
    except (TypeError, ValueError, ParseError, NotImplementedError):
        return None


def _to_set(node: Any) -> sympy.Set | None:
    if isinstance(node, sympy.Set):
        return node
    if isinstance(node, Bracket) and len(node.items) == 2 and all(map(_is_scalar, node.items)):
        lo, hi = node.items
        return sympy.Interval(
            lo,
            hi,
            left_open=node.left == "(" or node.left == "]",
            right_open=node.right == ")" or node.right == "[",
        )
    if isinstance(node, SetLit):
        if all(map(_is_scalar, node.items)):
            return sympy.FiniteSet(*node.items)
        return None
    if _is_scalar(node) and not node.free_symbols:
        return sympy.FiniteSet(node)
    if isinstance(node, SetOp):
        parts = [_to_set(i) for i in node.items]
        if any(x is None for x in parts):
            return None
        if node.op == "cup":
            return sympy.Union(*parts)
        if node.op == "cap":
            return sympy.Intersection(*parts)
        return sympy.Complement(parts[0], sympy.Union(*parts[1:]))
    if isinstance(node, Rel):
        return _relation_set(node)
    if isinstance(node, SetBuilder):
        condition = _to_set(node.condition)
        if condition is None or not _only_variable(node.condition, node.var):
            return None
        domain = _to_set(node.domain) if node.domain is not None else sympy.S.Reals
        return None if domain is None else sympy.Intersection(condition, domain)
    if isinstance(node, Alts):
        parts = [_to_set(i) for i in node.items]
        if any(x is None for x in parts):
            return None
        return sympy.Intersection(*parts) if node.joiner == "and" else sympy.Union(*parts)
    return None


def _only_variable(condition: Any, var: sympy.Symbol) -> bool:
    """The condition of a set builder speaks of its variable only."""
    symbols = set().union(*(e.free_symbols for e in _scalars(condition))) - MARKER_SET
    return symbols <= {var}


_OPS = {
    "<": sympy.StrictLessThan,
    "<=": sympy.LessThan,
    ">": sympy.StrictGreaterThan,
    ">=": sympy.GreaterThan,
    "=": sympy.Eq,
    "!=": sympy.Ne,
}


def _relation_set(rel: Rel) -> sympy.Set | None:
    if len(rel.terms) == 3 and "in" not in rel.ops and not isinstance(rel.terms[1], sympy.Symbol):
        low, middle, high = rel.terms
        named = isinstance(middle, sympy.Mul) and _is_name(middle)  # |z| stays a condition on z
        if named and all(_is_scalar(t) and not t.free_symbols for t in (low, high)):
            # 0 < f(x) < 1 (read f*x) or 0 < AB < 1: the interval of a named quantity's values
            rel = Rel(rel.ops, (low, sympy.Symbol("value"), high))
    symbols = set().union(*(t.free_symbols for t in rel.terms if _is_scalar(t)))
    if len(symbols) != 1:
        return None
    (x,) = symbols
    if rel.ops == ("in",) and rel.terms[0] == x:
        return _to_set(rel.terms[1])
    if "in" in rel.ops or not all(map(_is_scalar, rel.terms)):
        return None
    real = sympy.Dummy("x", real=True)
    pieces = []
    for op, a, b in zip(rel.ops, rel.terms, rel.terms[1:], strict=False):
        condition = _OPS[op](a.subs(x, real), b.subs(x, real))
        pieces.append(sympy.solveset(condition, real, sympy.S.Reals))
    return sympy.Intersection(*pieces)


def _set_parts_equal(a: sympy.Set, b: sympy.Set, s: Settings) -> bool:
    pa, pb = _parts(a), _parts(b)
    if pa is None or pb is None or len(pa) != len(pb):
        return False
    return all(_part_equal(x, y, s) for x, y in zip(pa, pb, strict=True))


def _parts(st: sympy.Set) -> list[sympy.Set] | None:
    parts = list(st.args) if isinstance(st, sympy.Union) else [st]
    if not all(isinstance(x, (sympy.Interval, sympy.FiniteSet)) for x in parts):
        return None
    try:
        return sorted(parts, key=lambda x: float(x.inf))
    except (TypeError, ValueError):
        return None


def _part_equal(x: sympy.Set, y: sympy.Set, s: Settings) -> bool:
    if isinstance(x, sympy.Interval) and isinstance(y, sympy.Interval):
        return (
            (x.left_open, x.right_open) == (y.left_open, y.right_open)
            and scalar_equal(x.start, y.start, s)
            and scalar_equal(x.end, y.end, s)
        )
    if isinstance(x, sympy.FiniteSet) and isinstance(y, sympy.FiniteSet):
        return _unordered_equal(list(x.args), list(y.args), s)
    return False


# ------------------------------------------------------------------------------------------
# Scalars
# ------------------------------------------------------------------------------------------

_MARKER_VALUES = {DEG: sympy.pi / 180, PCT: sympy.Rational(1, 100)}
MARKER_SET = {DEG, PCT, PM}


def scalar_equal(a: sympy.Expr, b: sympy.Expr, s: Settings) -> bool:
    """Equality of two scalar expressions, with ° and % read either way (see the docs); under
    ``strict_units`` a ° or % is the unit asked for and reads only as 1."""
    if s.strict_units:
        return _expr_equal(a.subs({DEG: 1, PCT: 1}), b.subs({DEG: 1, PCT: 1}), s)
    for left, right in _marker_readings(a, b):
        if _expr_equal(left, right, s):
            return True
    return False


def _marker_readings(a: sympy.Expr, b: sympy.Expr) -> list[tuple[sympy.Expr, sympy.Expr]]:
    readings = [(a, b)]
    for marker, value in _MARKER_VALUES.items():
        step = []
        for x, y in readings:
            in_x, in_y = x.has(marker), y.has(marker)
            if in_x and in_y:
                step.append((x.subs(marker, 1), y.subs(marker, 1)))
            elif in_x or in_y:
                # 50% may be read as 50 or as 1/2; 30° as 30 or as pi/6; but a percentage below
                # one (0.4%) is only ever 0.004: 0.4% for 0.4 is the classic slip, not notation
                for v in (1, value):
                    if v == 1 and marker == PCT and _small_percentage(x if in_x else y):
                        continue
                    step.append((x.subs(marker, v), y.subs(marker, v)))
            else:
                step.append((x, y))
        readings = step
    return readings


def _small_percentage(expr: sympy.Expr) -> bool:
    coefficient = expr.subs(PCT, 1)
    return bool(coefficient.is_number and abs(coefficient) < 1)


def _expr_equal(a: sympy.Expr, b: sympy.Expr, s: Settings) -> bool:
    if a == b:
        return True
    if a.has(sympy.nan, sympy.zoo) or b.has(sympy.nan, sympy.zoo):
        return False
    if s.rel_tol is not None:
        return _close(a, b, s.rel_tol)
    if a.is_Rational and b.is_Rational:
        return False
    if a.has(sympy.oo, -sympy.oo) or b.has(sympy.oo, -sympy.oo):
        return False  # infinities are equal only when written alike (a == b above)
    try:
        return _numerically_equal(a, b)
    except _Undecided:
        return _symbolically_zero(a - b)


def _close(a: sympy.Expr, b: sympy.Expr, rel_tol: float) -> bool:
    if a.free_symbols or b.free_symbols:
        try:
            return _numerically_equal(a, b)
        except _Undecided:
            return False
    va, vb = complex(a.evalf(30)), complex(b.evalf(30))
    return abs(va - vb) <= rel_tol * max(abs(va), abs(vb)) or abs(va - vb) == 0


def _digits(expr: sympy.Expr) -> int:
    # bit_length, not str(): str() of a huge int is slow and capped by Python
    return sum((abs(r.p).bit_length() + r.q.bit_length()) * 30 // 100 + 2 for r in expr.atoms(sympy.Rational))


def _numerically_equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    """Equal at random points to far more digits than the inputs spell out.

    A written decimal approximation (``3.14159`` for pi) differs from the exact value in a
    digit the precision reaches, so it is refuted; true identities agree to every digit.
    """
    dps = 40 + _digits(a) + _digits(b)
    if dps > 3000:
        raise _Undecided
    symbols = sorted(a.free_symbols | b.free_symbols, key=str)
    rng = random.Random(20240601)  # fixed: the same pair always gets the same verdict
    points = [{}] if not symbols else [_point(symbols, rng, k) for k in range(N_POINTS * 3)]
    checked, tiny = 0, False
    tolerance = sympy.Float(10) ** (10 - dps)
    for point in points:
        va, vb = a.evalf(dps, subs=point), b.evalf(dps, subs=point)
        if not (va.is_number and vb.is_number):
            raise _Undecided
        if va.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or vb.has(sympy.nan, sympy.zoo, sympy.oo):
            continue  # a pole of either side: try another point
        diff = abs(va - vb)
        if not diff <= max(abs(va), abs(vb)) * tolerance:
            if not diff <= tolerance:
                return False
            # equal in absolute terms only: 0 against e^{-10^6}, or a cancellation that
            # evaluated to noise; only an exact simplification may decide
            tiny = True
        tiny = tiny or _ill_conditioned(a, point, dps) or _ill_conditioned(b, point, dps)
        checked += 1
        if checked >= max(1, min(N_POINTS, len(points))):
            return _symbolically_zero(a - b) if tiny else True
    raise _Undecided


def _ill_conditioned(expr: sympy.Expr, point: dict, dps: int) -> bool:
    """Whether agreement to ``dps`` digits could be an artefact: some part of the expression
    is astronomically small or large (``1 + e^{-1000}`` agrees with 1 to 434 digits), or a
    sum cancels most of its digits. Then only an exact simplification may say "equal"."""
    limit = sympy.Float(10) ** (dps // 2)
    for node in sympy.preorder_traversal(expr):
        if node.is_Atom or node in MARKER_SET:
            continue
        value = abs(node.evalf(dps, subs=point))
        if not value.is_number or value == 0:
            continue
        if value * limit < 1 or value > limit:
            return True
        if node.is_Add:
            biggest = max(abs(t.evalf(15, subs=point)) for t in node.args)
            if value * limit < biggest:
                return True
    return False


def _point(symbols: list[sympy.Symbol], rng: random.Random, k: int) -> dict[sympy.Symbol, sympy.Expr]:
    # mostly positive points (most answers live there), one sign flip in three: |x| != x
    sign = -1 if k % 3 == 2 else 1
    return {x: sign * sympy.Rational(rng.randint(3, 97), rng.randint(7, 31)) for x in symbols}


def _symbolically_zero(diff: sympy.Expr) -> bool:
    try:
        return sympy.simplify(diff) == 0
    except (TypeError, ValueError, NotImplementedError, RecursionError):
        return False
