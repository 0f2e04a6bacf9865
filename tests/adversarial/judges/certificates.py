"""Judges for certificates checked by arithmetic: Pratt certificates, sums of squares, calculus."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from palaestra.core import Task

from ._registry import judge, others


def _pratt_lines(text: str) -> dict[int, tuple[int, list[tuple[int, int]]]]:
    lines: dict[int, tuple[int, list[tuple[int, int]]]] = {}
    for line in text.strip().splitlines():
        match = re.fullmatch(r"\s*(\d+)\s*:\s*a\s*=\s*(\d+)\s*;\s*p\s*-\s*1\s*=\s*(.+?)\s*", line)
        if not match:
            raise ValueError(line)
        prime, witness, factors = int(match.group(1)), int(match.group(2)), []
        for part in match.group(3).split("*"):
            base, _, exp = part.strip().partition("^")
            factors.append((int(base), int(exp) if exp else 1))
        if prime in lines:
            raise ValueError("repeated line")
        lines[prime] = (witness, factors)
    return lines


def _pratt_line_ok(q: int, witness: int, factors: list[tuple[int, int]]) -> bool:
    product = 1
    for base, exp in factors:
        if base < 2 or exp < 1:
            return False
        product *= base**exp
    if product != q - 1 or pow(witness, q - 1, q) != 1:
        return False
    return all(pow(witness, (q - 1) // base, q) != 1 for base, _ in factors)


@judge("pratt_certificate")
def _pratt_certificate(task: Task, text: str) -> bool:
    p = int(task.metadata["p"])
    lines = _pratt_lines(text)
    if p not in lines or not all(_pratt_line_ok(q, w, f) for q, (w, f) in lines.items()):
        return False
    needed = {base for _, factors in lines.values() for base, _ in factors if base != 2}
    return needed <= set(lines)


@others("pratt_certificate")
def _other_witnesses(task: Task) -> list[str]:
    """Every line with the largest witness below 200 that works instead of the given one."""
    lines = _pratt_lines(str(task.answer))
    out = []
    for q, (witness, factors) in lines.items():
        for candidate in range(min(q - 1, 200), 1, -1):
            if candidate != witness and _pratt_line_ok(q, candidate, factors):
                lines_text = str(task.answer).splitlines()
                changed = [
                    re.sub(r"a\s*=\s*\d+", f"a={candidate}", line)
                    if line.strip().startswith(f"{q}:")
                    else line
                    for line in lines_text
                ]
                out.append("\n".join(changed))
                break
    return out[:2]


def sympy_expr(text: str, names: list[str], evaluate: bool = True) -> Any:
    import sympy
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    if re.search(r"[^\w\s+\-*/^().,]", text) or "__" in text or len(text) > 5000:
        raise ValueError("not an expression we build")
    symbols = {n: sympy.Symbol(n) for n in names}
    transformations = (*standard_transformations, convert_xor, implicit_multiplication_application)
    return parse_expr(
        text, local_dict={**symbols, "e": sympy.E}, transformations=transformations, evaluate=evaluate
    )


@judge("inequality_certificate")
def _inequality_certificate(task: Task, text: str) -> bool | None:
    import sympy

    meta = task.metadata
    names = meta["variables"]
    if sympy.expand(sympy_expr(text, names) - sympy_expr(meta["p"], names)) != 0:
        return False
    orthant = meta["domain"] != "reals"
    written = sympy_expr(text, names, evaluate=False)  # the terms as written, not multiplied out
    return all(_nonnegative_term(term, orthant) for term in sympy.Add.make_args(written))


@others("inequality_certificate")
def _split_certificate(task: Task) -> list[str]:
    """The reference certificate with its first square split into two halves of its weight."""
    answer = " ".join(str(task.answer).split())
    terms = _top_level_terms(answer)
    match = re.fullmatch(r"(?:(\d+(?:/\d+)?)\*)?(\(.+\)\^2)", terms[0]) if terms else None
    if match is None:
        return []
    weight = Fraction(match.group(1) or 1) / 2
    split = f"{weight}*{match.group(2)} + {weight}*{match.group(2)}"
    return [" + ".join([split, *terms[1:]])]


def _top_level_terms(text: str) -> list[str]:
    """Split ``a + b*(c + d)^2 + e`` at the + signs outside parentheses."""
    terms, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "+" and depth == 0 and text[i - 1] == " ":
            terms.append(text[start:i].strip())
            start = i + 1
    terms.append(text[start:].strip())
    return terms


def _nonnegative_term(term: Any, orthant: bool) -> bool:
    import sympy

    for factor in sympy.Mul.make_args(term):
        if not factor.free_symbols:
            if sympy.nsimplify(factor) < 0:
                return False
        elif factor.is_Pow and factor.exp.is_Integer and factor.exp % 2 == 0:
            continue
        elif orthant and (factor.is_Symbol or (factor.is_Pow and factor.base.is_Symbol)):
            continue
        else:
            return False
    return True


@judge("symbolic_calculus")
def _symbolic_calculus(task: Task, text: str) -> bool | None:
    import sympy

    meta = task.metadata
    x = meta["variable"]
    names = [x, "C"]
    reference = sympy_expr(str(task.answer).replace("**", "^"), names)
    candidate = sympy_expr(text, names)
    var = sympy.Symbol(x)
    if meta["mode"] == "antiderivative":
        difference = sympy.diff(candidate - reference, var)
    else:
        difference = candidate - reference
    if (difference.free_symbols - {var}) and meta["mode"] != "antiderivative":
        return False
    return _is_zero(difference, var)


def _is_zero(expr: Any, var: Any) -> bool | None:
    import sympy

    points = [sympy.Rational(k, 7) for k in (3, 5, 8, 11, -2, -9)]
    others_ = sorted(expr.free_symbols - {var}, key=str)
    for point in points:
        subs = {var: point, **{s: sympy.Rational(13, 5) for s in others_}}
        value = expr.subs(subs).evalf(50)
        if value.is_real is False and value.is_finite:
            return False
        if value.is_number and abs(complex(value)) > 1e-25:
            return False
    simplified = sympy.simplify(expr)
    return True if simplified == 0 else None
