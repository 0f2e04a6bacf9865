"""sql_synthesis: result-set equality on visible and hidden databases, read-only and step-limited."""

from __future__ import annotations

import re
from collections import Counter

import pytest

import palaestra

ALTERNATIVES = {
    1: "SELECT e.name FROM employees AS e WHERE NOT (e.salary <= {salary})",
    4: "SELECT dept, total FROM (SELECT dept, SUM(salary) AS total, COUNT(id) AS n FROM employees GROUP BY dept) WHERE n > {k_minus_1}",
}


def _task(level: int, seed: int = 0):
    return palaestra.make_task("sql_synthesis", seed=seed, level=level)


def test_tier1_expected_rows_match_a_python_filter() -> None:
    for seed in range(20):
        task = _task(1, seed)
        salary = int(task.answer.rsplit(">", 1)[1])
        for db, rows in zip(task.metadata["databases"], task.metadata["expected"], strict=True):
            want = Counter((e[1],) for e in db["employees"] if e[3] > salary)
            assert Counter(tuple(r) for r in rows) == want


@pytest.mark.parametrize("level", [1, 6])
def test_distinct_correct_queries_pass(level: int) -> None:
    task = _task(level, 3)
    numbers = [int(t) for t in task.answer.replace(">=", " ").replace(">", " ").split() if t.isdigit()]
    alternative = ALTERNATIVES[task.metadata["tier"]].format(salary=numbers[-1], k_minus_1=numbers[-1] - 1)
    for response in (
        f"<answer>{task.answer}</answer>",
        f"```sql\n{alternative};\n```",
        f"<answer>{alternative.lower()}</answer>",
    ):
        assert palaestra.verify(task, response).correct, response


def test_wrong_hardcoded_and_hostile_queries() -> None:
    task = _task(5, 1)
    visible = task.metadata["expected"][0]
    union = " UNION ALL ".join("SELECT " + ", ".join(repr(v) for v in row) for row in visible)
    wrong = [
        union,
        "SELECT dept, COUNT(*), MIN(salary) FROM employees GROUP BY dept",
        "SELECT name FROM employees",
    ]
    for sql in wrong:
        verdict = palaestra.verify(task, f"<answer>{sql}</answer>")
        assert not verdict.correct, sql
    assert (
        "hidden" in palaestra.verify(task, f"<answer>{union}</answer>").reason
    )  # right on the visible one only
    hostile = [
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c",
        "SELECT count(*) FROM employees a, employees b, employees c, employees d, employees e",
        "SELECT 1; DELETE FROM employees",
        "DELETE FROM employees",
        "SELECT randomblob(1000000000)",
    ]
    for sql in hostile:
        verdict = palaestra.verify(task, f"<answer>{sql}</answer>")
        assert not verdict.correct and verdict.error is None, sql
    assert palaestra.verify(task, f"<answer>{task.answer}</answer>").correct  # data untouched


def test_text_sqlite_cannot_take_is_a_format_error() -> None:
    task = _task(1)
    for text in ("\u202e\ud800", "SELECT '\ud800'", "SELECT name FROM employees WHERE name = '\udfff'"):
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert verdict.status == "unparseable", (text, verdict)


_BOUNDARY_FLIPS = {">": ">=", ">=": ">", "<": "<=", "<=": "<"}


def _boundary_mutants(sql: str) -> list[str]:
    """Each comparison made inclusive/exclusive, each integer constant moved by one: on integer
    columns every one of them returns other rows on some database."""
    out = []
    for m in re.finditer(r">=|<=|<>|[<>]|\b\d+\b", sql):
        token = m.group()
        if token in _BOUNDARY_FLIPS:
            news = [_BOUNDARY_FLIPS[token]]
        elif token.isdigit():
            news = [str(int(token) + 1), str(int(token) - 1)]
        else:
            news = []
        out += [sql[: m.start()] + new + sql[m.end() :] for new in news]
    return out


@pytest.mark.parametrize("level", range(1, 11))
def test_boundary_mutants_are_refused_on_every_level(level: int) -> None:
    # the hidden databases hold rows on and next to every constant the query compares against:
    # `>=` where the request says "greater than", or a bound off by one, never passes
    for seed in range(3):
        task = _task(level, seed)
        mutants = _boundary_mutants(task.answer)
        assert len(mutants) >= 3, task.answer
        for sql in mutants:
            verdict = palaestra.verify(task, f"<answer>{sql}</answer>")
            assert verdict.status == "wrong", (seed, sql, verdict)
