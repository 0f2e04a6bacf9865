"""Judges for countdown, linear Diophantine equations, null spaces, rank certificates and hidden
polynomials."""

from __future__ import annotations

import ast
import itertools
import math
import re
from collections import Counter
from fractions import Fraction
from functools import lru_cache

from palaestra.core import Task

from ._registry import judge, others


def _eval_countdown(text: str, numbers: list[int]) -> Fraction | None:
    """Value of an expression over the numbers with every intermediate a positive integer."""
    tree = ast.parse(text.replace("×", "*").replace("÷", "/"), mode="eval").body
    used: list[int] = []

    def value(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            used.append(node.value)
            return Fraction(node.value)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            a, b = value(node.left), value(node.right)
            result = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}.get(type(node.op))
            if result is None:
                result = a / b
            if result.denominator != 1 or result <= 0:
                raise ValueError("not a positive integer")
            return result
        raise ValueError("not allowed")

    result = value(tree)
    return result if not Counter(used) - Counter(numbers) else None


@lru_cache(maxsize=256)
def _countdown_best(numbers: tuple[int, ...], target: int) -> tuple[int, tuple[str, ...]]:
    """Our own exhaustive search: best distance and a few expressions reaching it."""
    exprs: dict[int, dict[int, str]] = {}
    n = len(numbers)
    for i, x in enumerate(numbers):
        exprs.setdefault(1 << i, {})[x] = str(x)
    for mask in range(1, 1 << n):
        if mask & (mask - 1) == 0:
            continue
        table = exprs.setdefault(mask, {})
        sub = (mask - 1) & mask
        while sub:
            rest = mask ^ sub
            if sub < rest:
                for a, ea in exprs.get(sub, {}).items():
                    for b, eb in exprs.get(rest, {}).items():
                        for v, e in _combine(a, ea, b, eb):
                            table.setdefault(v, e)
            sub = (sub - 1) & mask
    best, found = None, []
    for table in exprs.values():
        for v, e in table.items():
            d = abs(v - target)
            if best is None or d < best:
                best, found = d, []
            if d == best and len(found) < 6:
                found.append(e)
    return best, tuple(found)


def _combine(a: int, ea: str, b: int, eb: str) -> list[tuple[int, str]]:
    out = [(a + b, f"({ea} + {eb})"), (a * b, f"({ea} * {eb})")]
    if a > b:
        out.append((a - b, f"({ea} - {eb})"))
    if b > a:
        out.append((b - a, f"({eb} - {ea})"))
    if b and a % b == 0:
        out.append((a // b, f"({ea} / {eb})"))
    if a and b % a == 0:
        out.append((b // a, f"({eb} / {ea})"))
    return out


@judge("countdown")
def _countdown(task: Task, text: str) -> bool | None:
    meta = task.metadata
    if len(meta["numbers"]) > 7:
        return None
    value = _eval_countdown(text, meta["numbers"])
    if value is None:
        return False
    best, _ = _countdown_best(tuple(meta["numbers"]), meta["target"])
    return abs(value - meta["target"]) == best


@others("countdown")
def _other_expressions(task: Task) -> list[str]:
    meta = task.metadata
    if len(meta["numbers"]) > 7:
        return []
    return list(_countdown_best(tuple(meta["numbers"]), meta["target"])[1])


def _linear_in_t(text: str) -> tuple[int, int]:
    """``4 + 9t`` -> (4, 9): constant and coefficient of t (our own reader)."""
    compact = text.replace(" ", "").replace("*", "").replace("·", "")
    if not compact or not re.fullmatch(r"[+-]?(\d*t?)([+-]\d*t?)*", compact):
        raise ValueError(text)
    constant = coefficient = 0
    for sign, digits, t in re.findall(r"([+-]?)(\d*)(t?)", compact):
        if not digits and not t:
            continue
        value = int(digits) if digits else 1
        value = -value if sign == "-" else value
        if t:
            coefficient += value
        else:
            constant += value
    return constant, coefficient


@judge("linear_diophantine")
def _linear_diophantine(task: Task, text: str) -> bool | None:
    meta = task.metadata
    a, b, c = meta["a"], meta["b"], meta["c"]
    if text.strip().lower() == "no solution":
        return not meta["solvable"]
    # each value carries its name, so "y = ..., x = ..." is the same answer
    match = re.fullmatch(r"\s*([xy])\s*=\s*(.+?)\s*,\s*([xy])\s*=\s*(.+?)\s*", text)
    if not match or match.group(1) == match.group(3):
        return False
    values = {match.group(1): match.group(2), match.group(3): match.group(4)}
    x0, dx = _linear_in_t(values["x"])
    y0, dy = _linear_in_t(values["y"])
    if a * x0 + b * y0 != c:
        return False
    if meta["mode"] == "general":
        g = math.gcd(a, b)
        return a * dx + b * dy == 0 and abs(dx) == abs(b) // g and dx != 0
    if dx or dy:
        return False
    if meta["mode"] == "positive":  # the positive solution with the smallest x
        g = math.gcd(a, b)
        smaller = (x0 - abs(b) // g, y0 + (1 if b > 0 else -1) * a // g)
        return x0 > 0 and y0 > 0 and not (smaller[0] > 0 and smaller[1] > 0)
    return True


@others("linear_diophantine")
def _other_solutions(task: Task) -> list[str]:
    meta = task.metadata
    if not meta["solvable"] or meta["mode"] == "positive":
        return []
    a, b = meta["a"], meta["b"]
    g = math.gcd(a, b)
    x0, y0 = _reference_point(task)
    step_x, step_y = b // g, -a // g
    if meta["mode"] == "general":
        x1, y1 = x0 + step_x, y0 + step_y
        return [f"x = {x1} + {-step_x}t, y = {y1} + {-step_y}t".replace("+ -", "- ")]
    return [f"x = {x0 + k * step_x}, y = {y0 + k * step_y}" for k in (1, -2)]


def _reference_point(task: Task) -> tuple[int, int]:
    match = re.fullmatch(r"\s*x\s*=\s*(.+?)\s*,\s*y\s*=\s*(.+?)\s*", str(task.answer))
    return _linear_in_t(match.group(1))[0], _linear_in_t(match.group(2))[0]


def _nullspace_vectors(text: str) -> list[list[Fraction]]:
    tree = ast.parse(text, mode="eval").body
    if not isinstance(tree, ast.List):
        raise ValueError(text)

    def number(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return Fraction(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -number(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return number(node.left) / number(node.right)
        raise ValueError("not a rational")

    return [[number(x) for x in row.elts] for row in tree.elts if isinstance(row, ast.List)]


@judge("linear_algebra")
def _linear_algebra(task: Task, text: str) -> bool | None:
    meta = task.metadata
    if meta["operation"] == "rank":
        return _rank_certificate_holds(meta["matrix"], text)
    if meta["operation"] != "nullspace":
        return None  # a unique value: the profile covers it
    import sympy

    matrix = sympy.Matrix(meta["matrix"])
    vectors = _nullspace_vectors(text)
    if not vectors:
        return False
    basis = sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in v] for v in vectors]).T
    if basis.rows != matrix.cols or any(x != 0 for x in matrix * basis):
        return False
    return basis.rank() == len(vectors) == matrix.cols - matrix.rank()


_RANK_FIELD = re.compile(r"\s*(rank|rows|columns|determinant|kernel):?\s+(\S.*?)\s*", re.DOTALL)


def _rank_certificate_holds(rows_of_a: list[list[int]], text: str) -> bool:
    """``rank r; rows ..; columns ..; determinant d; kernel [[..]]`` (fields separated by
    semicolons or lines, any order): the r x r minor at those rows and columns (in A's order) is
    d != 0, and the kernel holds n - r independent vectors with A x = 0 (sympy throughout)."""
    import sympy

    fields: dict[str, str] = {}
    for part in filter(str.strip, re.split(r"[;\n]", text)):
        match = _RANK_FIELD.fullmatch(part)
        if match is None or match[1] in fields:
            return False
        fields[match[1]] = match[2]
    if len(fields) != 5:
        return False
    matrix = sympy.Matrix(rows_of_a)
    r = int(fields["rank"])
    rows = [int(i) - 1 for i in fields["rows"].split(",")] if r else []
    columns = [int(j) - 1 for j in fields["columns"].split(",")] if r else []
    if not (len(rows) == len(set(rows)) == len(columns) == len(set(columns)) == r):
        return False
    if not all(0 <= i < matrix.rows for i in rows) or not all(0 <= j < matrix.cols for j in columns):
        return False
    claimed = Fraction(fields["determinant"])
    minor = matrix.extract(sorted(rows), sorted(columns)).det() if r else 1
    if minor == 0 or minor != sympy.Rational(claimed.numerator, claimed.denominator):
        return False
    listed = ast.parse(fields["kernel"], mode="eval").body
    if not isinstance(listed, ast.List) or not all(isinstance(v, ast.List) for v in listed.elts):
        return False
    kernel = _nullspace_vectors(fields["kernel"])
    if len(kernel) != matrix.cols - r:
        return False
    if not kernel:
        return True
    basis = sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in v] for v in kernel]).T
    return basis.rows == matrix.cols and all(x == 0 for x in matrix * basis) and basis.rank() == len(kernel)


@others("linear_algebra")
def _other_bases(task: Task) -> list[str]:
    """Another null space basis: the reference vectors with the first one added to the others,
    and scaled; another rank certificate: another nonsingular minor and sympy's kernel basis."""
    if task.metadata["operation"] == "rank":
        return _other_rank_certificates(task.metadata["matrix"])
    if task.metadata["operation"] != "nullspace":
        return []
    vectors = _nullspace_vectors(str(task.answer))
    mixed = [vectors[0]] + [[a + b for a, b in zip(v, vectors[0], strict=True)] for v in vectors[1:]]
    scaled = [[-2 * x for x in v] for v in vectors]
    return [_render_rows(mixed), _render_rows(scaled)]


def _other_rank_certificates(rows_of_a: list[list[int]]) -> list[str]:
    """The last nonsingular minor in sympy's order (rows listed backwards), with sympy's kernel
    basis halved and mixed; and the first minor with the basis tripled, fields one per line."""
    import sympy

    matrix = sympy.Matrix(rows_of_a)
    r, n = matrix.rank(), matrix.cols
    minors = [
        (rows, columns)
        for rows in itertools.combinations(range(matrix.rows), r)
        for columns in itertools.combinations(range(n), r)
        if matrix.extract(list(rows), list(columns)).det() != 0
    ]
    basis = [[Fraction(int(x.p), int(x.q)) for x in v] for v in matrix.nullspace()]
    halved = [
        [x / 2 + (y if i else 0) for x, y in zip(v, basis[0], strict=True)] for i, v in enumerate(basis)
    ]
    out = []
    for (rows, columns), kernel, separator, order in (
        (minors[-1], halved, "; ", reversed),
        (minors[0], [[3 * x for x in v] for v in basis], "\n", list),
    ):
        value = matrix.extract(list(rows), list(columns)).det()
        fields = [
            f"rank {r}",
            f"rows {', '.join(str(i + 1) for i in order(rows))}",
            f"columns {', '.join(str(j + 1) for j in columns)}",
            f"determinant {value}",
            f"kernel {_render_rows(kernel)}",
        ]
        out.append(separator.join(fields))
    return out


def _render_rows(rows: list[list[Fraction]]) -> str:
    return "[" + ", ".join("[" + ", ".join(str(x) for x in row) + "]" for row in rows) + "]"


@judge("hidden_function")
def _hidden_function(task: Task, text: str) -> bool:
    body = re.sub(r"^\s*f\s*(\([^)]*\))?\s*=", "", text)
    if "table" in task.metadata:  # a boolean function given by its truth table
        names = sorted(set(re.findall(r"[a-z]", str(task.answer))) | set("abcde"))[: _table_inputs(task)]
        rows = itertools.product((0, 1), repeat=len(names))
        return all(
            _bool_value(ast.parse(body, mode="eval").body, dict(zip(names, row, strict=True))) == want
            for row, want in zip(rows, task.metadata["table"], strict=True)
        )
    return _polynomial(body) == _polynomial(str(task.answer))


def _polynomial(text: str) -> dict[int, int]:
    """``-8x^2 + 3x - 1`` -> {2: -8, 1: 3, 0: -1} (zero terms dropped); ValueError otherwise."""
    compact = text.replace(" ", "").replace("*", "")
    terms = re.findall(r"([+-]?)(\d*)(x(?:\^(\d+))?)?", compact)
    if "".join(sign + digits + var for sign, digits, var, _ in terms) != compact:
        raise ValueError("not a polynomial in x")
    out: dict[int, int] = {}
    written = [t for t in terms if t[1] or t[2] or t[0]]
    if any(not sign for sign, _, _, _ in written[1:]):
        raise ValueError("terms must be joined by + or -")
    for sign, digits, var, power in written:
        if not digits and not var:
            raise ValueError("a sign without a term")
        coefficient = int(digits) if digits else 1
        degree = (int(power) if power else 1) if var else 0
        out[degree] = out.get(degree, 0) + (-coefficient if sign == "-" else coefficient)
    return {k: v for k, v in out.items() if v}


def _table_inputs(task: Task) -> int:
    return len(task.metadata["table"]).bit_length() - 1


def _bool_value(node: ast.AST, env: dict[str, int]) -> int:
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.Constant) and node.value in (0, 1):
        return int(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return 1 - _bool_value(node.operand, env)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        a, b = _bool_value(node.left, env), _bool_value(node.right, env)
        return {ast.BitAnd: a & b, ast.BitOr: a | b, ast.BitXor: a ^ b}[type(node.op)]
    raise ValueError("not a boolean formula")
