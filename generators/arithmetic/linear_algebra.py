"""Exact linear algebra over the rationals: determinant, inverse, rank, null space basis.

Matrices are drawn with controlled structure: random integer entries for determinants, products
of small triangular factors (so the determinant, and hence the inverse's denominators, stay
small) for inverses, and low-rank products B*C for rank and null-space questions. Everything is
computed exactly with fractions. A null-space answer may be any basis of the null space: the
verifier checks the vector count, A*v = 0 for each vector and linear independence, exactly.

A rank answer carries a certificate (v2; a bare 3x3 rank is 1, 2 or 3, and the constant "2"
scored 0.40 at level 4): ``rank 2; rows 1, 3; columns 2, 3; determinant -7; kernel [[1, -2,
1]]``. The r x r submatrix at the given rows and columns must have the stated, nonzero
determinant (so rank >= r) and the kernel must hold n - r linearly independent vectors with
A x = 0 (so rank <= r). Both halves carry numbers of the task (even "rank n; rows 1..n; ..."
needs det A), so a constant answer is paid only on a task it happens to fit: the best scores
0.02 at every level >= 2 over 50 seeds, i.e. one task's own reference. Any valid certificate is accepted:
any nonsingular r x r submatrix, any kernel basis, in any scaling. A bare rank is a format error.

Answers are read by small parsers (``[[1, 2], [3, 4]]``, ``[1 2; 3 4]``, LaTeX
``pmatrix``/``bmatrix``; the certificate's fields) whose numbers go through ``parse_rational``;
nothing is evaluated, and text a parser did not consume is a format error. Difficulty grows with
the operation (determinant, 2x2 inverse, rank certificate, then all four mixed) and with the size
(2 to 6) and entry range. Generation: about 3,400 tasks per CPU-second at level 5 (760 at level
10; measured/generation.json).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import combinations

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


@dataclass
class Elimination:
    """What Gauss-Jordan elimination leaves: the reduced rows, the pivot columns, for each pivot
    the original row it came from (those rows are linearly independent), the pivots' values
    before scaling, and the field operations spent."""

    rows: Matrix
    pivots: list[int]
    origins: list[int]
    heads: list[Fraction]
    ops: int


def eliminate(matrix: Matrix) -> Elimination:
    """Gauss-Jordan elimination that remembers which original row each pivot row came from."""
    rows = [list(row) for row in matrix]
    origin = list(range(len(rows)))
    width = len(rows[0]) if rows else 0
    pivots: list[int] = []
    heads: list[Fraction] = []
    ops = 0
    r = 0
    for c in range(width):
        pivot = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if pivot is None:
            continue
        rows[r], rows[pivot] = rows[pivot], rows[r]
        origin[r], origin[pivot] = origin[pivot], origin[r]
        head = rows[r][c]
        rows[r] = [x / head for x in rows[r]]
        ops += width
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                factor = rows[i][c]
                rows[i] = [x - factor * y for x, y in zip(rows[i], rows[r], strict=True)]
                ops += 2 * width
        pivots.append(c)
        heads.append(head)
        r += 1
        if r == len(rows):
            break
    return Elimination(rows, pivots, origin[:r], heads, ops)


def rref(matrix: Matrix) -> tuple[Matrix, list[int], int]:
    """Reduced row echelon form, pivot columns, and the field operations spent."""
    done = eliminate(matrix)
    return done.rows, done.pivots, done.ops


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
    return _kernel_basis(rows, pivots, len(matrix[0])), ops


def _kernel_basis(rows: Matrix, pivots: list[int], width: int) -> Matrix:
    """The null space basis read off a reduced row echelon form (one vector per free column)."""
    basis = []
    for free in (c for c in range(width) if c not in pivots):
        vector = [Fraction(0)] * width
        vector[free] = Fraction(1)
        for i, c in enumerate(pivots):
            vector[c] = -rows[i][free]
        basis.append(_integral(vector))
    return basis


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
# Rank certificates
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankCertificate:
    """A claimed rank ``r`` with its proof: an r x r submatrix (rows and columns numbered from 1,
    kept in A's order) whose determinant ``determinant`` is nonzero, so rank >= r; and ``kernel``,
    n - r linearly independent vectors x with A x = 0, so rank <= n - (n - r) = r."""

    rank: int
    rows: tuple[int, ...]
    columns: tuple[int, ...]
    determinant: Fraction
    kernel: tuple[tuple[Fraction, ...], ...]


def rank_certificate(matrix: Matrix) -> tuple[RankCertificate, int]:
    """The certificate read off one elimination, and the field operations it took.

    The pivot rows' origins are independent rows and the pivot columns independent columns, so
    their submatrix is invertible; elimination turns it into the identity by row swaps, row
    subtractions (which keep the determinant) and division by each pivot, so its determinant is
    the product of the pivots times the sign of the permutation that puts its rows in A's order.
    """
    done = eliminate(matrix)
    value = Fraction(1)
    for head in done.heads:
        value *= head
    inversions = sum(a > b for i, a in enumerate(done.origins) for b in done.origins[i + 1 :])
    certificate = RankCertificate(
        rank=len(done.pivots),
        rows=tuple(sorted(o + 1 for o in done.origins)),
        columns=tuple(c + 1 for c in done.pivots),
        determinant=-value if inversions % 2 else value,
        kernel=tuple(map(tuple, _kernel_basis(done.rows, done.pivots, len(matrix[0])))),
    )
    return certificate, done.ops


def format_certificate(certificate: RankCertificate) -> str:
    return "; ".join(
        (
            f"rank {certificate.rank}",
            f"rows {', '.join(map(str, certificate.rows))}",
            f"columns {', '.join(map(str, certificate.columns))}",
            f"determinant {format_rational(certificate.determinant)}",
            f"kernel {format_matrix([list(v) for v in certificate.kernel])}",
        )
    )


_FIELD = re.compile(
    r"(rank|rows?|columns?|cols|determinant|det|kernel|null\s?space)\b\s*[:=]?\s*(.*)", re.I | re.S
)
_FIELD_NAMES = {"row": "rows", "column": "columns", "cols": "columns", "det": "determinant"}
_NONE = ("none", "[]", "{}", "()")
CERTIFICATE_FIELDS = ("rank", "rows", "columns", "determinant", "kernel")


def _split_fields(text: str) -> list[str] | None:
    """``text`` cut at semicolons and line breaks outside brackets and LaTeX environments."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[({" or (ch == "\\" and text.startswith("\\begin{", i)):
            depth += 1
        elif ch in "])}" or (ch == "\\" and text.startswith("\\end{", i)):
            depth -= 1
            if depth < 0:
                return None
        elif ch in ";\n" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return None if depth else [p.strip() for p in parts if p.strip()]


def _indices(text: str) -> list[int] | None:
    """``1, 3``, ``[1, 3]``, ``1 3`` or ``none``: whole numbers (the shared number reader's)."""
    text = text.strip().rstrip(".").strip()
    if text[:1] + text[-1:] in ("[]", "()", "{}"):
        text = text[1:-1].strip()
    if text.lower() in (*_NONE, ""):
        return []
    values = [parse_rational(part) for part in re.split(r"\s*,\s*|\s+", text)]
    if any(v is None or v.denominator != 1 for v in values):
        return None
    return [int(v) for v in values]  # type: ignore[union-attr]


def parse_certificate(text: str) -> RankCertificate | str:
    """Read ``rank 2; rows 1, 3; columns 2, 3; determinant -7; kernel [[1, -2, 1]]`` (fields in
    any order, one per line or separated by semicolons, a colon after the name optional), or say
    why the text is not one. Every character must belong to a field."""
    if len(text) > 20_000:
        return "the certificate is too long"
    if parse_rational(text) is not None:
        return (
            "a bare rank is not accepted: give rank, rows, columns, determinant and kernel, "
            "e.g. rank 2; rows 1, 3; columns 2, 3; determinant -7; kernel [[1, -2, 1]]"
        )
    parts = _split_fields(text)
    if parts is None:
        return "unbalanced brackets"
    values: dict[str, str] = {}
    for part in parts:
        match = _FIELD.fullmatch(part)
        if match is None:
            return f"could not read {part[:60]!r} as one of the fields {', '.join(CERTIFICATE_FIELDS)}"
        name = match[1].lower()
        name = "kernel" if name.startswith("null") else _FIELD_NAMES.get(name, name)
        if name in values:
            return f"the field {name!r} is given twice"
        if not match[2].strip():
            return f"the field {name!r} is empty"
        values[name] = match[2].strip()
    missing = [name for name in CERTIFICATE_FIELDS if name not in values]
    if missing:
        return f"the certificate lacks {', '.join(missing)}"
    rank_value = parse_rational(values["rank"])
    rows, columns = _indices(values["rows"]), _indices(values["columns"])
    value = parse_rational(values["determinant"])
    kernel = [] if values["kernel"].lower() in _NONE else parse_matrix(values["kernel"])
    for name, parsed in (("rank", rank_value), ("rows", rows), ("columns", columns), ("determinant", value)):
        if parsed is None:
            return f"could not read the {name} {values[name][:60]!r}"
    if kernel is None:
        return f"could not read the kernel {values['kernel'][:60]!r} as a list of vectors"
    if rank_value.denominator != 1:  # type: ignore[union-attr]
        return f"the rank {values['rank'][:20]!r} is not a whole number"
    return RankCertificate(
        rank=int(rank_value),  # type: ignore[arg-type]
        rows=tuple(rows),  # type: ignore[arg-type]
        columns=tuple(columns),  # type: ignore[arg-type]
        determinant=value,  # type: ignore[arg-type]
        kernel=tuple(map(tuple, kernel)),
    )


def check_certificate(matrix: Matrix, certificate: RankCertificate) -> str | None:
    """Why ``certificate`` does not prove the rank of ``matrix``, or None when it does."""
    n_rows, n_cols = len(matrix), len(matrix[0])
    r = certificate.rank
    if not 0 <= r <= min(n_rows, n_cols):
        return f"a {n_rows}x{n_cols} matrix cannot have rank {r}"
    for name, indices, top in (("rows", certificate.rows, n_rows), ("columns", certificate.columns, n_cols)):
        if len(indices) != r:
            return f"rank {r} needs {r} {name}, got {len(indices)}"
        if len(set(indices)) != r or not all(1 <= i <= top for i in indices):
            return f"the {name} must be {r} different numbers from 1 to {top}"
    rows, columns = sorted(certificate.rows), sorted(certificate.columns)
    minor = [[matrix[i - 1][j - 1] for j in columns] for i in rows]
    value = determinant(minor)[0] if minor else Fraction(1)
    if value == 0:
        return f"the submatrix at rows {rows} and columns {columns} is singular: it does not show rank >= {r}"
    if value != certificate.determinant:
        shown = format_rational(certificate.determinant)
        return f"the submatrix at rows {rows} and columns {columns} does not have determinant {shown}"
    kernel = [list(v) for v in certificate.kernel]
    if len(kernel) != n_cols - r:
        return f"rank {r} needs {n_cols - r} kernel vectors (n - r), got {len(kernel)}"
    for v in kernel:
        if len(v) != n_cols:
            return f"kernel vectors must have {n_cols} entries"
        if any(sum(a * x for a, x in zip(row, v, strict=True)) != 0 for row in matrix):
            return f"A x != 0 for x = {format_matrix([v])[1:-1]}"
    if kernel and rank(kernel)[0] != len(kernel):
        return "the kernel vectors are linearly dependent"
    return None


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
    "rank": "Compute the rank r of A and prove it with a certificate of five fields:\n"
    "- rank: r;\n"
    "- rows and columns: r row numbers and r column numbers of A (counting from 1) whose r x r "
    "submatrix (rows and columns kept in A's order) has a nonzero determinant, which shows "
    "rank >= r;\n"
    "- determinant: the exact determinant of that submatrix;\n"
    "- kernel: n - r linearly independent vectors x with A x = 0 (n = the number of columns), "
    "which shows rank <= r; write [] when r = n.\n"
    "Any valid certificate is accepted (any such rows and columns, any basis of the kernel). "
    "Give the fields on one line separated by semicolons (or one per line); a bare rank is not "
    "accepted. For example, for a 4x4 matrix of rank 2:\n"
    "<answer>rank 2; rows 1, 3; columns 2, 4; determinant -7; kernel [[1, -2, 0, 1], [0, 1/2, 1, 0]]</answer>",
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
        certificate, ops = rank_certificate(matrix)
        return format_certificate(certificate), ops
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
    description="Exact linear algebra over Q: determinant, inverse, rank with a certificate (a nonzero "
    "minor and a kernel basis), null space basis (any basis).",
    verifier_kind="exact value / constraint check (null space, rank certificate)",
    version=2,  # v2: a rank answer carries a certificate (a bare 3x3 rank "2" scored 0.40)
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
        if op == "rank":
            return _verify_rank(matrix, text)
        if op == "determinant":
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
        if op == "rank":
            return [f"<answer>{r}</answer>" for r in _rank_near_misses(task)]
        if op == "determinant":
            value = Fraction(task.answer)
            # distinct and all different from the value (value + 1 and -value - 1 meet at -1/2
            # and -1 gives 0 twice): the first three of these that differ from it
            others = dict.fromkeys(
                v for v in (value + 1, value - 1, -value, value + 2, 2 * value) if v != value
            )
            return [f"<answer>{format_rational(v)}</answer>" for v in list(others)[:3]]
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
            responses.append(format_matrix([[0] * len(given[0]), *given[1:]]))  # a zero vector
        else:
            responses.append(
                format_matrix([list(row) for row in zip(*given, strict=True)])
                if given != [list(r) for r in zip(*given, strict=True)]
                else format_matrix([[-x for x in row] for row in given])
            )
        # a shifted basis can still span the null space (x + 1 may lie in it): only wrong ones
        out = [f"<answer>{r}</answer>" for r in dict.fromkeys(responses)]
        return [r for r in out if not self.verify(task, r).correct]


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


def _verify_rank(matrix: Matrix, text: str) -> Verdict:
    certificate = parse_certificate(text)
    if isinstance(certificate, str):
        return Verdict.bad_format(certificate)
    shown = format_certificate(certificate)
    problem = check_certificate(matrix, certificate)
    return Verdict.right(parsed=shown) if problem is None else Verdict.wrong(problem, parsed=shown)


def _rank_near_misses(task: Task) -> list[str]:
    """Certificates that look right and are not: a wrong rank with a certificate fitted to it, a
    singular submatrix, a wrong determinant, a vector outside the kernel, a dependent kernel."""
    matrix = [[Fraction(x) for x in row] for row in task.metadata["matrix"]]
    good, _ = rank_certificate(matrix)
    n, r = len(matrix[0]), good.rank
    kernel = [list(v) for v in good.kernel]
    out = [str(r)]  # a bare rank: a format error
    if r < n:  # one more row and column (their submatrix is singular), one kernel vector fewer
        rows = sorted({*good.rows, next(i for i in range(1, n + 1) if i not in good.rows)})
        columns = sorted({*good.columns, next(j for j in range(1, n + 1) if j not in good.columns)})
        value = determinant([[matrix[i - 1][j - 1] for j in columns] for i in rows])[0]
        out.append(
            format_certificate(RankCertificate(r + 1, tuple(rows), tuple(columns), value, good.kernel[1:]))
        )
    else:  # one row and column fewer, and a row of A offered as a kernel vector
        rows, columns = good.rows[:-1], good.columns[:-1]
        value = (
            determinant([[matrix[i - 1][j - 1] for j in columns] for i in rows])[0] if rows else Fraction(1)
        )
        out.append(format_certificate(RankCertificate(r - 1, rows, columns, value, (tuple(matrix[0]),))))
    out.append(format_certificate(replace(good, determinant=good.determinant + 1)))
    if kernel:
        bumped = [list(v) for v in kernel]
        bumped[0][0] += 1  # A e_1 is A's first column, never zero: no longer in the kernel
        out.append(format_certificate(replace(good, kernel=tuple(map(tuple, bumped)))))
        dependent = [*kernel[:-1], [2 * x for x in kernel[0]]] if len(kernel) > 1 else [[Fraction(0)] * n]
        out.append(format_certificate(replace(good, kernel=tuple(map(tuple, dependent)))))
    if singular := _singular_minor(matrix, r):
        out.append(format_certificate(replace(good, rows=singular[0], columns=singular[1])))
    return out


def _singular_minor(matrix: Matrix, size: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The first rows and columns (numbered from 1) whose size x size submatrix is singular."""
    n_rows, n_cols = len(matrix), len(matrix[0])
    for rows in combinations(range(1, n_rows + 1), size):
        for columns in combinations(range(1, n_cols + 1), size):
            if determinant([[matrix[i - 1][j - 1] for j in columns] for i in rows])[0] == 0:
                return rows, columns
    return None
