"""Exact linear algebra over the rationals: determinant, inverse, rank, null space basis.

Matrices are drawn with controlled structure: random integer entries for determinants, products
of small triangular factors (so the determinant, and hence the inverse's denominators, stay
small) for inverses, and low-rank products B*C for rank and null-space questions. Everything is
computed exactly with fractions. A null-space answer may be any basis of the null space: the
verifier checks the vector count, A*v = 0 for each vector and linear independence, exactly.
Answers are read by a small matrix parser (``[[1, 2], [3, 4]]``, ``[1 2; 3 4]``, LaTeX
``pmatrix``/``bmatrix``) whose entries go through ``parse_rational``; nothing is evaluated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.arithmetic._common import extract
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import format_rational, parse_rational

OPERATIONS = ("determinant", "inverse", "rank", "nullspace")
WEAK_BUDGET = 60  # elimination operations the weak solver does by hand before giving up
_LATEX_MATRIX = re.compile(r"^\\begin\{([pbvBV]?matrix)\}(?P<body>.*)\\end\{\1\}$", re.DOTALL)
_ROW = re.compile(r"[\[(]([^\[\]()]*)[\])]")

Matrix = list[list[Fraction]]


@dataclass(frozen=True)
class LinearAlgebraKnobs(Knobs):
    operation: str = knob("determinant", choices=(*OPERATIONS, "mixed"), help="what to compute")
    size: int = knob(2, low=2, high=7, help="rows and columns of the square matrix")
    entry_max: int = knob(9, low=1, high=99, help="largest absolute entry of the random factors")


LEVELS = {
    1: LinearAlgebraKnobs(operation="determinant", size=2, entry_max=9),
    2: LinearAlgebraKnobs(operation="determinant", size=3, entry_max=9),
    3: LinearAlgebraKnobs(operation="inverse", size=2, entry_max=20),
    4: LinearAlgebraKnobs(operation="rank", size=3, entry_max=3),
    5: LinearAlgebraKnobs(operation="mixed", size=3, entry_max=3),
    6: LinearAlgebraKnobs(operation="mixed", size=3, entry_max=9),
    7: LinearAlgebraKnobs(operation="mixed", size=4, entry_max=3),
    8: LinearAlgebraKnobs(operation="mixed", size=4, entry_max=9),
    9: LinearAlgebraKnobs(operation="mixed", size=5, entry_max=5),
    10: LinearAlgebraKnobs(operation="mixed", size=6, entry_max=5),
}


# --------------------------------------------------------------------------------------------
# Exact elimination
# --------------------------------------------------------------------------------------------


def rref(matrix: Matrix) -> tuple[Matrix, list[int], int]:
    """Reduced row echelon form, pivot columns, and the field operations spent."""
    rows = [list(row) for row in matrix]
    width = len(rows[0]) if rows else 0
    pivots: list[int] = []
    ops = 0
    r = 0
    for c in range(width):
        pivot = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if pivot is None:
            continue
        rows[r], rows[pivot] = rows[pivot], rows[r]
        head = rows[r][c]
        rows[r] = [x / head for x in rows[r]]
        ops += width
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                factor = rows[i][c]
                rows[i] = [x - factor * y for x, y in zip(rows[i], rows[r], strict=True)]
                ops += 2 * width
        pivots.append(c)
        r += 1
        if r == len(rows):
            break
    return rows, pivots, ops


def determinant(matrix: Matrix) -> tuple[Fraction, int]:
    rows = [list(row) for row in matrix]
    n, det, ops = len(rows), Fraction(1), 0
    for c in range(n):
        pivot = next((i for i in range(c, n) if rows[i][c] != 0), None)
        if pivot is None:
            return Fraction(0), ops
        if pivot != c:
            rows[c], rows[pivot] = rows[pivot], rows[c]
            det = -det
        det *= rows[c][c]
        for i in range(c + 1, n):
            if rows[i][c] != 0:
                factor = rows[i][c] / rows[c][c]
                rows[i] = [x - factor * y for x, y in zip(rows[i], rows[c], strict=True)]
                ops += 2 * (n - c)
    return det, ops


def inverse(matrix: Matrix) -> tuple[Matrix | None, int]:
    n = len(matrix)
    augmented = [list(row) + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(matrix)]
    rows, pivots, ops = rref(augmented)
    if pivots[:n] != list(range(n)):
        return None, ops
    return [row[n:] for row in rows], ops


def null_space(matrix: Matrix) -> tuple[Matrix, int]:
    """A basis of the null space, each vector scaled to coprime integers."""
    rows, pivots, ops = rref(matrix)
    width = len(matrix[0])
    basis = []
    for free in (c for c in range(width) if c not in pivots):
        vector = [Fraction(0)] * width
        vector[free] = Fraction(1)
        for i, c in enumerate(pivots):
            vector[c] = -rows[i][free]
        basis.append(_integral(vector))
    return basis, ops


def _integral(vector: list[Fraction]) -> list[Fraction]:
    from math import gcd, lcm

    scale = lcm(*(x.denominator for x in vector))
    ints = [int(x * scale) for x in vector]
    g = gcd(*ints) or 1
    return [Fraction(x // g) for x in ints]


def rank(matrix: Matrix) -> tuple[int, int]:
    _, pivots, ops = rref(matrix)
    return len(pivots), ops


# --------------------------------------------------------------------------------------------
# Reading and writing matrices
# --------------------------------------------------------------------------------------------


def format_matrix(matrix: Matrix) -> str:
    return "[" + ", ".join("[" + ", ".join(format_rational(x) for x in row) + "]" for row in matrix) + "]"


def _entries(row: str) -> list[Fraction] | None:
    parts = row.split(",") if "," in row else row.split()
    values = [parse_rational(p.strip()) for p in parts if p.strip()]
    return None if not values or any(v is None for v in values) else values  # type: ignore[return-value]


def parse_matrix(text: str) -> Matrix | None:
    """``[[1, 2], [3, 4]]``, ``[1 2; 3 4]``, ``\\begin{pmatrix}1 & 2\\\\3 & 4\\end{pmatrix}``; ``[]`` is empty."""
    text = text.strip().strip("$").strip()
    if len(text) > 20_000:
        return None
    if latex := _LATEX_MATRIX.match(text):
        rows = [r for r in latex["body"].split("\\\\") if r.strip()]
        parsed = [_entries(r.replace("&", ",")) for r in rows]
    elif text.replace(" ", "") in ("[]", "[[]]", "()", "{}"):
        return []
    elif text.startswith(("[[", "((", "[(")) or (text.startswith("[") and _ROW.search(text[1:])):
        inner = text[1:-1] if text[0] in "[(" and text[-1] in "])" else text
        groups = _ROW.findall(inner)
        if not groups or _ROW.sub("", inner).replace(",", "").strip():
            return None
        parsed = [_entries(g) for g in groups]
    else:
        body = text[1:-1] if text.startswith("[") and text.endswith("]") else text
        rows = [r for r in re.split(r"[;\n]", body) if r.strip()]
        parsed = [_entries(r) for r in rows]
    if not parsed or any(row is None for row in parsed):
        return None
    if len({len(row) for row in parsed if row is not None}) != 1:
        return None
    return parsed  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def _ints(rng: np.random.Generator, rows: int, cols: int, high: int) -> list[list[int]]:
    return [[int(x) for x in row] for row in rng.integers(-high, high + 1, size=(rows, cols))]


def _product(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def _invertible(rng: np.random.Generator, n: int, high: int) -> list[list[int]]:
    """P * L * U with small unit-ish diagonals: the determinant is a product of +-1s and +-2s."""
    lower = [
        [int(rng.integers(-high, high + 1)) if j < i else int(i == j) for j in range(n)] for i in range(n)
    ]
    diag = [int(rng.choice([1, -1, 2, -2, 1, -1])) for _ in range(n)]
    upper = [
        [int(rng.integers(-high, high + 1)) if j > i else (diag[i] if i == j else 0) for j in range(n)]
        for i in range(n)
    ]
    product = _product(lower, upper)
    order = rng.permutation(n)
    return [product[int(i)] for i in order]


def _trivial(matrix: list[list[int]]) -> bool:
    """Triangular or with a zero row/column: read off without elimination."""
    n = len(matrix)
    upper = all(matrix[i][j] == 0 for i in range(n) for j in range(i))
    lower = all(matrix[i][j] == 0 for i in range(n) for j in range(i + 1, n))
    zero_line = any(not any(row) for row in matrix) or any(not any(col) for col in zip(*matrix, strict=True))
    return upper or lower or zero_line


def draw(knobs: LinearAlgebraKnobs, rng: np.random.Generator) -> tuple[str, list[list[int]]]:
    op = knobs.operation if knobs.operation != "mixed" else OPERATIONS[int(rng.integers(len(OPERATIONS)))]
    n = knobs.size
    for _ in range(1000):
        if op == "determinant":
            matrix = _ints(rng, n, n, knobs.entry_max)
        elif op == "inverse" and n == 2:
            # 2x2 inverses are cheap whatever the determinant: plain random entries keep repeats rare
            matrix = _ints(rng, 2, 2, knobs.entry_max)
            if matrix[0][0] * matrix[1][1] == matrix[0][1] * matrix[1][0]:
                continue
        elif op == "inverse":
            matrix = _invertible(rng, n, knobs.entry_max)
        else:
            low_rank = op == "nullspace" or rng.random() < 0.7
            r = int(rng.integers(1, n)) if low_rank else n
            matrix = _product(_ints(rng, n, r, knobs.entry_max), _ints(rng, r, n, knobs.entry_max))
            if rank([[Fraction(x) for x in row] for row in matrix])[0] != r:
                continue
        if not _trivial(matrix):
            return op, matrix
    raise RuntimeError(f"could not draw a matrix for {knobs}")


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


QUESTIONS = {
    "determinant": "Compute the determinant of A exactly. Answer with a number, e.g. <answer>-42</answer>.",
    "rank": "Compute the rank of A. Answer with an integer, e.g. <answer>2</answer>.",
    "inverse": "Compute the inverse of A exactly (entries as integers or fractions). Answer with a "
    "list of rows, e.g. <answer>[[1, -1/2], [0, 3/4]]</answer>.",
    "nullspace": "Give a basis of the null space of A (all vectors x with A x = 0) over the rationals. "
    "Any basis is accepted. Answer with a list of basis vectors, e.g. "
    "<answer>[[1, -2, 0, 1], [0, 1/2, 1, 0]]</answer>.",
}

PROMPT = """Let A be the matrix (rows listed top to bottom):

{matrix}

{question}"""


def _show(matrix: list[list[int]]) -> str:
    width = max(len(str(x)) for row in matrix for x in row)
    return "\n".join("[ " + "  ".join(str(x).rjust(width) for x in row) + " ]" for row in matrix)


def _answer(op: str, matrix: Matrix) -> tuple[str, int]:
    if op == "determinant":
        value, ops = determinant(matrix)
        return format_rational(value), ops
    if op == "rank":
        value_rank, ops = rank(matrix)
        return str(value_rank), ops
    if op == "inverse":
        inv, ops = inverse(matrix)
        assert inv is not None
        return format_matrix(inv), ops
    basis, ops = null_space(matrix)
    return format_matrix(basis), ops


@family(
    "linear_algebra",
    domain="arithmetic",
    knobs=LinearAlgebraKnobs,
    levels=LEVELS,
    description="Exact linear algebra over Q: determinant, inverse, rank, null space basis (any basis).",
    verifier_kind="exact value / constraint check (null space)",
)
class LinearAlgebra(Family):
    def generate(self, knobs: LinearAlgebraKnobs, rng: np.random.Generator) -> TaskDraft:
        op, ints = draw(knobs, rng)
        matrix = [[Fraction(x) for x in row] for row in ints]
        answer, ops = _answer(op, matrix)
        metadata = {
            "operation": op,
            "matrix": ints,
            "rank": rank(matrix)[0],
            "elimination_ops": ops,
            "canonical_hash": content_hash([op, ints]),
        }
        prompt = PROMPT.format(matrix=_show(ints), question=QUESTIONS[op])
        return TaskDraft(prompt=prompt, answer=answer, metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = extract(response)
        if isinstance(text, Verdict):
            return text
        op = task.metadata["operation"]
        matrix = [[Fraction(x) for x in row] for row in task.metadata["matrix"]]
        if op in ("determinant", "rank"):
            value = parse_rational(text)
            if value is None:
                return Verdict.bad_format(f"could not read {text[:60]!r} as an exact number")
            if value == Fraction(task.answer):
                return Verdict.right(parsed=format_rational(value))
            return Verdict.wrong(f"{format_rational(value)} is not the {op}", parsed=format_rational(value))
        given = parse_matrix(text)
        if given is None:
            return Verdict.bad_format(f"could not read {text[:60]!r} as a list of rows")
        shown = format_matrix(given)
        if op == "inverse":
            return (
                Verdict.right(parsed=shown)
                if shown == task.answer
                else Verdict.wrong("not the inverse", parsed=shown)
            )
        return _check_basis(matrix, given, task.metadata["rank"], shown)

    def solve_exact(self, task: Task) -> SolverRun:
        matrix = [[Fraction(x) for x in row] for row in task.metadata["matrix"]]
        answer, ops = _answer(task.metadata["operation"], matrix)
        return SolverRun(response=f"<answer>{answer}</answer>", effort=float(ops))

    def solve_weak(self, task: Task) -> SolverRun:
        # by hand: exact while the elimination stays within a small budget, otherwise gives up
        ops = float(task.metadata["elimination_ops"])
        if ops > WEAK_BUDGET:
            return SolverRun(response=None, effort=float(WEAK_BUDGET))
        return SolverRun(response=f"<answer>{task.answer}</answer>", effort=ops)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        op = task.metadata["operation"]
        if op in ("determinant", "rank"):
            value = Fraction(task.answer)
            return [f"<answer>{format_rational(v)}</answer>" for v in (value + 1, -value - 1, value * 2 + 1)]
        given = parse_matrix(task.answer)
        assert given is not None
        bumped = [list(row) for row in given]
        bumped[0][0] += 1
        doubled = [[2 * x for x in row] for row in given]
        responses = [
            format_matrix(bumped),
            format_matrix(doubled) if op == "inverse" else format_matrix(given[:-1] or []),
        ]
        if op == "nullspace":
            responses.append(format_matrix([*given, given[0]]))  # dependent: one vector too many
            responses.append(format_matrix([[x + 1 for x in row] for row in given]))
        else:
            responses.append(
                format_matrix([list(row) for row in zip(*given, strict=True)])
                if given != [list(r) for r in zip(*given, strict=True)]
                else format_matrix([[-x for x in row] for row in given])
            )
        return [f"<answer>{r}</answer>" for r in responses]


def _check_basis(matrix: Matrix, vectors: Matrix, matrix_rank: int, shown: str) -> Verdict:
    width = len(matrix[0])
    nullity = width - matrix_rank
    if any(len(v) != width for v in vectors):
        return Verdict.wrong(f"basis vectors must have {width} entries", parsed=shown)
    if len(vectors) != nullity:
        return Verdict.wrong(
            f"the null space has dimension {nullity}, got {len(vectors)} vectors", parsed=shown
        )
    for v in vectors:
        if any(sum(a * x for a, x in zip(row, v, strict=True)) != 0 for row in matrix):
            return Verdict.wrong(f"A x != 0 for x = {format_matrix([v])[1:-1]}", parsed=shown)
    if rank(vectors)[0] != nullity:
        return Verdict.wrong("the vectors are linearly dependent", parsed=shown)
    return Verdict.right(parsed=shown)
