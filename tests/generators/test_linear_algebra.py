"""Tests for the linear_algebra family."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.generators.arithmetic.linear_algebra import parse_matrix
from palaestra.registry import get, make_task, verify

FAMILY = "linear_algebra"
IMPL = get(FAMILY).impl


@pytest.mark.parametrize("level", range(1, 11))
def test_reference_exact_and_mutations(level: int) -> None:
    for seed in range(8):
        task = make_task(FAMILY, seed=seed, level=level)
        assert verify(task, IMPL.reference_response(task)).correct
        assert verify(task, IMPL.solve_exact(task).response).correct
        mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
        assert len(set(mutations)) >= 3
        for response in mutations:
            assert not verify(task, response).correct, response
        assert Task.from_json(task.to_json()) == task
        assert make_task(FAMILY, seed=seed, level=level) == task


def _sympy_rational(text: str) -> sympy.Rational:
    value = Fraction(text)
    return sympy.Rational(value.numerator, value.denominator)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_answers_match_sympy(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    matrix = sympy.Matrix(task.metadata["matrix"])
    op = task.metadata["operation"]
    if op == "determinant":
        assert _sympy_rational(task.answer) == matrix.det()
    elif op == "rank":
        assert _sympy_certificate_problem(matrix, task.answer) is None
        assert int(re.match(r"rank (\d+);", task.answer)[1]) == matrix.rank()
    elif op == "inverse":
        given_matrix = parse_matrix(task.answer)
        assert given_matrix is not None
        ours = sympy.Matrix(
            [[sympy.Rational(x.numerator, x.denominator) for x in row] for row in given_matrix]
        )
        assert ours == matrix.inv()
    else:
        # sympy's own basis must pass our verifier, and ours must span sympy's space
        basis = matrix.nullspace()
        text = "[" + ", ".join("[" + ", ".join(str(x) for x in v) + "]" for v in basis) + "]"
        assert verify(task, f"<answer>{text}</answer>").correct
        vectors = parse_matrix(task.answer)
        assert vectors is not None and len(vectors) == len(basis)
        stacked = sympy.Matrix(
            [list(v) for v in basis]
            + [[sympy.Rational(x.numerator, x.denominator) for x in v] for v in vectors]
        )
        assert stacked.rank() == len(basis)


def test_nullspace_accepts_any_basis() -> None:
    task = next(
        t
        for s in range(200)
        if (t := make_task(FAMILY, seed=s, level=7)).metadata["operation"] == "nullspace"
        and 4 - t.metadata["rank"] >= 2
    )
    vectors = parse_matrix(task.answer)
    assert vectors is not None
    a, b = vectors[0], vectors[1]
    mixed = [
        [x + y for x, y in zip(a, b, strict=True)],
        [x - 2 * y for x, y in zip(a, b, strict=True)],
        *vectors[2:],
    ]
    halves = [[x / 2 for x in v] for v in vectors]
    for other in (mixed, halves, list(reversed(vectors))):
        text = "[" + ", ".join("[" + ", ".join(str(x) for x in v) + "]" for v in other) + "]"
        assert verify(task, f"<answer>{text}</answer>").correct, text
    dependent = [a, [2 * x for x in a], *vectors[2:]]
    text = "[" + ", ".join("[" + ", ".join(str(x) for x in v) + "]" for v in dependent) + "]"
    assert not verify(task, f"<answer>{text}</answer>").correct


def test_matrix_formats() -> None:
    expected = [[Fraction(1), Fraction(-1, 2)], [Fraction(0), Fraction(3)]]
    for text in (
        "[[1, -1/2], [0, 3]]",
        "[[1,-0.5],[0,3]]",
        "[1 -1/2; 0 3]",
        "\\begin{pmatrix} 1 & -\\frac{1}{2} \\\\ 0 & 3 \\end{pmatrix}",
        "\\begin{bmatrix}1&-1/2\\\\0&3\\end{bmatrix}",
        "((1, -1/2), (0, 3))",
    ):
        assert parse_matrix(text) == expected, text
    for bad in ("[[1, 2], [3]]", "[[1, x], [0, 3]]", "[[1, 2]] + [[3, 4]]", "__import__('os')"):
        assert parse_matrix(bad) is None, bad


def test_determinant_and_rank_formats() -> None:
    task = make_task(FAMILY, seed=0, level=1)
    value = task.answer
    for text in (value, f"\\boxed{{{value}}}", f"Answer: {value}", f"{value}.0"):
        assert verify(task, text).correct, text
    assert not verify(task, f"{int(value) + 1}").correct
    assert not verify(task, "det = nan").correct


def test_weak_solver_falls_and_effort_grows() -> None:
    def rates(level: int) -> tuple[float, float]:
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(30)]
        weak = np.mean([verify(t, IMPL.solve_weak(t).response or "").correct for t in tasks])
        effort = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        return float(weak), float(effort)

    (weak1, effort1), (weak5, effort5), (weak10, effort10) = rates(1), rates(5), rates(10)
    assert weak1 >= weak5 >= weak10 and weak1 == 1.0 and weak10 < 0.2
    assert effort1 < effort5 < effort10


# --------------------------------------------------------------------------------------------
# Rank certificates, checked here with sympy on a reader written for the test
# --------------------------------------------------------------------------------------------


def _rank_task(seed: int, size: int) -> Task:
    return make_task(FAMILY, seed=seed, operation="rank", size=size, entry_max=3)


def _read_certificate(text: str) -> dict[str, str]:
    """The fields of ``rank r; rows ..; columns ..; determinant d; kernel [[..]]`` as strings."""
    fields = dict(part.strip().split(" ", 1) for part in text.split(";"))
    assert sorted(fields) == sorted(("rank", "rows", "columns", "determinant", "kernel")), text
    return fields


def _rational(text: str) -> sympy.Rational:
    value = Fraction(text.strip())
    return sympy.Rational(value.numerator, value.denominator)


def _sympy_certificate_problem(matrix: sympy.Matrix, text: str) -> str | None:
    """Independent check of a certificate in the reference format (sympy's rank, det, nullspace)."""
    fields = _read_certificate(text)
    r = int(fields["rank"])
    rows = sorted(int(i) - 1 for i in fields["rows"].split(","))
    columns = sorted(int(j) - 1 for j in fields["columns"].split(","))
    kernel = [
        [_rational(x) for x in vector.split(",")]
        for vector in re.findall(r"\[([^\[\]]+)\]", fields["kernel"])
    ]
    if len(rows) != r or len(columns) != r or len(set(rows)) != r or len(set(columns)) != r:
        return "counts"
    minor = matrix.extract(rows, columns)
    if minor.det() == 0 or minor.det() != _rational(fields["determinant"]):
        return "minor"
    if len(kernel) != matrix.cols - r:
        return "kernel size"
    if kernel and (
        any(v != 0 for v in matrix * sympy.Matrix(kernel).T) or sympy.Matrix(kernel).rank() != len(kernel)
    ):
        return "kernel"
    return None


def _show_vector(vector: list) -> str:
    return "[" + ", ".join(str(x) for x in vector) + "]"


@st.composite
def _other_certificate(draw: st.DrawFn) -> tuple[Task, str]:
    """Another valid certificate, built with sympy: any nonsingular r x r submatrix (rows and
    columns listed in any order), any kernel basis (random combinations, random scalings)."""
    task = _rank_task(draw(st.integers(0, 10**6)), draw(st.integers(2, 5)))
    matrix = sympy.Matrix(task.metadata["matrix"])
    n, r = matrix.cols, matrix.rank()
    minors = [
        (rows, columns)
        for rows in itertools.combinations(range(n), r)
        for columns in itertools.combinations(range(n), r)
        if matrix.extract(list(rows), list(columns)).det() != 0
    ]
    rows, columns = draw(st.sampled_from(minors))
    value = matrix.extract(list(rows), list(columns)).det()
    basis = matrix.nullspace()
    kernel = []
    nonzero = st.fractions(-5, 5, max_denominator=4).filter(bool)
    for i in range(len(basis)):  # a triangular recombination with a nonzero diagonal: still a basis
        vector = draw(nonzero) * basis[i]
        for j in range(i + 1, len(basis)):
            vector += draw(st.fractions(-3, 3, max_denominator=3)) * basis[j]
        kernel.append([sympy.nsimplify(x) for x in vector])
    listed_rows = draw(st.permutations([i + 1 for i in rows]))
    listed_columns = draw(st.permutations([j + 1 for j in columns]))
    text = (
        f"rank {r}; rows {', '.join(map(str, listed_rows))}; "
        f"columns {', '.join(map(str, listed_columns))}; determinant {value}; "
        f"kernel [{', '.join(_show_vector(v) for v in draw(st.permutations(kernel)))}]"
    )
    return task, text


@settings(max_examples=60, deadline=None)
@given(case=_other_certificate())
def test_any_valid_rank_certificate_is_accepted(case: tuple[Task, str]) -> None:
    task, text = case
    assert _sympy_certificate_problem(sympy.Matrix(task.metadata["matrix"]), text) is None
    verdict = verify(task, f"<answer>{text}</answer>")
    assert verdict.correct, (text, verdict.reason)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(2, 5), data=st.data())
def test_a_wrong_rank_is_refused_whatever_its_certificate(seed: int, size: int, data: st.DataObject) -> None:
    """Claim r' != rank: rows/columns drawn at random with their true determinant, and a kernel
    of n - r' vectors (the true basis, cut or padded with other vectors): never paid."""
    task = _rank_task(seed, size)
    matrix = sympy.Matrix(task.metadata["matrix"])
    n, r = matrix.cols, matrix.rank()
    claimed = data.draw(st.integers(1, n).filter(lambda k: k != r))
    rows = sorted(data.draw(st.permutations(range(n)))[:claimed])
    columns = sorted(data.draw(st.permutations(range(n)))[:claimed])
    value = matrix.extract(rows, columns).det()
    vectors = [list(v) for v in matrix.nullspace()]
    vectors += [list(matrix.row(i)) for i in range(n)] + [[int(i == j) for j in range(n)] for i in range(n)]
    kernel = vectors[: n - claimed]
    text = (
        f"rank {claimed}; rows {', '.join(str(i + 1) for i in rows)}; "
        f"columns {', '.join(str(j + 1) for j in columns)}; determinant {value}; "
        f"kernel [{', '.join(_show_vector(v) for v in kernel)}]"
    )
    verdict = verify(task, f"<answer>{text}</answer>")
    assert not verdict.correct and verdict.status == "wrong" and verdict.reason, (text, verdict)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(2, 5))
def test_rank_near_misses_are_refused_with_a_reason(seed: int, size: int) -> None:
    task = _rank_task(seed, size)
    matrix = sympy.Matrix(task.metadata["matrix"])
    mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(set(mutations)) >= 3
    for response in mutations:
        text = response.removeprefix("<answer>").removesuffix("</answer>")
        verdict = verify(task, response)
        assert not verdict.correct and verdict.reason, response
        if re.fullmatch(r"\d+", text):  # the bare rank
            assert verdict.status == "unparseable" and "bare rank" in verdict.reason
        else:
            assert verdict.status == "wrong", (response, verdict.reason)
            assert _sympy_certificate_problem(matrix, text) is not None, response


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(2, 5))
def test_a_bare_rank_is_a_format_error(seed: int, size: int) -> None:
    task = _rank_task(seed, size)
    r = sympy.Matrix(task.metadata["matrix"]).rank()
    for response in (
        f"<answer>{r}</answer>",
        f"\\boxed{{{r}}}",
        f"Answer: {r}",
        f"<answer>rank {r}</answer>",
    ):
        verdict = verify(task, response)
        assert verdict.status == "unparseable", (response, verdict)


def test_rank_certificate_formats() -> None:
    task = next(t for s in range(100) if (t := _rank_task(s, 3)).metadata["rank"] == 2)
    fields = _read_certificate(task.answer)
    rows, columns, value, kernel = fields["rows"], fields["columns"], fields["determinant"], fields["kernel"]
    vector = kernel[2:-2].split(", ")
    accepted = (
        task.answer,
        f"rank: 2\nrows: [{rows}]\ncolumns: ({columns})\ndet = {value}\nnull space: {kernel}",
        f"kernel {kernel}; determinant {value}; columns {columns}; rows {rows}; rank 2",
        f"Rank 2; Rows {rows.replace(',', '')}; Columns {columns}; Determinant {value}.0; Kernel {kernel}",
        f"rank 2; rows {rows}; columns {columns}; determinant {value}; "
        f"kernel \\begin{{pmatrix}} {' & '.join(vector)} \\end{{pmatrix}}",
        f"rank 2; rows {rows}; columns {columns}; determinant {value}; kernel [{' '.join(vector)}]",
    )
    for text in accepted:
        verdict = verify(task, f"<answer>{text}</answer>")
        assert verdict.correct, (text, verdict.reason)
    refused = {
        f"{task.answer}; rank 2": "twice",
        f"{task.answer}; because": "could not read",
        f"{task.answer} (checked)": "could not read",
        task.answer.replace(f"; determinant {value}", ""): "lacks determinant",
        task.answer.replace("rank 2", "rank two"): "could not read the rank",
        task.answer.replace(f"rows {rows}", "rows 1 and 2"): "could not read the rows",
        task.answer.replace(kernel, kernel[:-1]): "unbalanced",
        task.answer.replace(kernel, "x = " + kernel): "could not read the kernel",
        task.answer.replace(f"rows {rows}", "rows"): "is empty",
    }
    for text, why in refused.items():
        verdict = verify(task, f"<answer>{text}</answer>")
        assert verdict.status == "unparseable" and why in verdict.reason, (text, verdict.reason)
    full = next(t for s in range(100) if (t := _rank_task(s, 3)).metadata["rank"] == 3)
    for empty in ("[]", "none"):
        assert verify(full, f"<answer>{full.answer.replace('kernel []', f'kernel {empty}')}</answer>").correct


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(2, 5))
def test_every_part_of_a_true_rank_certificate_is_needed(seed: int, size: int) -> None:
    """The true rank with too few kernel vectors, too few rows and columns, or a row number
    outside 1..n (0 must not mean the last row): each half alone proves only a bound."""
    task = _rank_task(seed, size)
    matrix = sympy.Matrix(task.metadata["matrix"])
    fields = _read_certificate(task.answer)
    n, r = matrix.cols, matrix.rank()
    rows = [int(i) for i in fields["rows"].split(",")]
    columns = [int(j) for j in fields["columns"].split(",")]

    def certificate(rows: list[int], columns: list[int], kernel: str) -> str:
        value = matrix.extract([i - 1 for i in rows], [j - 1 for j in columns]).det() if rows else 1
        return (
            f"rank {r}; rows {', '.join(map(str, rows))}; columns {', '.join(map(str, columns))}; "
            f"determinant {value}; kernel {kernel}"
        )

    kernel = [list(v) for v in matrix.nullspace()]
    broken = [certificate(rows[:-1], columns[:-1], fields["kernel"])] if r > 1 else []
    if kernel:
        broken.append(certificate(rows, columns, "[" + ", ".join(map(_show_vector, kernel[1:])) + "]"))
    last = n  # row 0 read as Python's index -1 would be the last row
    if last not in rows:
        outside = [0 if i == rows[-1] else i for i in rows]
        value = matrix.extract(sorted(i - 1 for i in outside), [j - 1 for j in columns]).det()
        if value != 0:
            broken.append(
                task.answer.replace(f"rows {fields['rows']}", f"rows {', '.join(map(str, outside))}")
            )
    broken.append(task.answer.replace(f"rows {fields['rows']}", f"rows {fields['rows']}, {n + 1}"))
    for text in broken:
        verdict = verify(task, f"<answer>{text}</answer>")
        assert verdict.status == "wrong", (text, verdict)
