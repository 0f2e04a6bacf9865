"""sql_synthesis: result-set equality on visible and hidden databases, read-only and step-limited."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.code import sql_synthesis as sql

TIER_LEVEL = {1: 1, 2: 2, 3: 4, 4: 6, 5: 8, 6: 10}


def _task(level: int, seed: int = 0):
    return palaestra.make_task("sql_synthesis", seed=seed, level=level)


@cache
def _task_of(kind: str, nth: int = 0):
    """The ``nth`` task (by seed) whose query uses template ``kind``."""
    tier = next(t for t, kinds in sql.TEMPLATES.items() if kind in kinds)
    found = 0
    for seed in range(200):
        task = _task(TIER_LEVEL[tier], seed)
        if task.metadata["template"] == kind:
            if found == nth:
                return task
            found += 1
    raise AssertionError(f"template {kind} not drawn in 200 seeds")


def _paid(task, query: str) -> bool:
    return palaestra.verify(task, f"<answer>{query}</answer>").correct


@pytest.mark.parametrize("tier", sorted(sql.TEMPLATES))
def test_every_template_is_reachable(tier: int) -> None:
    seen = {_task(TIER_LEVEL[tier], seed).metadata["template"] for seed in range(40)}
    assert seen == set(sql.TEMPLATES[tier])


def test_tier1_expected_rows_match_a_python_filter() -> None:
    # an independent reading of the simple comparison queries: columns, operator, constant
    index = {"id": 0, "name": 1, "dept": 2, "salary": 3, "age": 4}
    checked = 0
    for seed in range(60):
        task = _task(1, seed)
        pattern = r"SELECT ([\w, ]+) FROM employees WHERE (salary|age) (>=|<=|>|<) (\d+)"
        found = re.fullmatch(pattern, task.answer)
        if not found:
            continue
        columns = [index[c] for c in found.group(1).split(", ")]
        op, bound = found.group(3), int(found.group(4))
        passes = {">": bound.__lt__, ">=": bound.__le__, "<": bound.__gt__, "<=": bound.__ge__}[op]
        for db, rows in zip(task.metadata["databases"], task.metadata["expected"], strict=True):
            want = Counter(
                tuple(e[c] for c in columns) for e in db["employees"] if passes(e[index[found.group(2)]])
            )
            assert Counter(tuple(r) for r in rows) == want
        checked += 1
    assert checked >= 3


def _integer_rewrite(query: str) -> str:
    """The same query with each integer comparison written the other way (``> c`` as ``>= c+1``,
    BETWEEN as two comparisons): equal on integer columns, but not on averages."""
    query = re.sub(r"(\S+) BETWEEN (\d+) AND (\d+)", r"(\1 >= \2 AND \1 <= \3)", query)
    shift = {">": (">=", 1), ">=": (">", -1), "<": ("<=", -1), "<=": ("<", 1)}

    def rewrite(m: re.Match[str]) -> str:
        if m.group(1).startswith("AVG"):
            return m.group(0)
        op, delta = shift[m.group(2)]
        return f"{m.group(1)} {op} {int(m.group(3)) + delta}"

    return re.sub(r"(\S+) (>=|<=|>|<) (\d+)", rewrite, query)


def _equivalent(task) -> list[str]:
    """Other correct queries for the task, written here."""
    ref, kind = task.answer, task.metadata["template"]
    out = [_integer_rewrite(ref), f"SELECT * FROM ({ref})" if not task.metadata["ordered"] else ref.lower()]
    if kind == "anti_join":
        cond = re.search(r"AND (.*) WHERE e.id IS NULL", ref).group(1)
        out.append(
            "SELECT name, city FROM departments d WHERE NOT EXISTS "
            f"(SELECT 1 FROM employees e WHERE e.dept = d.name AND {cond})"
        )
    if kind == "rank_left":
        cond, k = re.search(r"AND (.*) GROUP BY", ref).group(1), ref.rsplit(" ", 1)[1]
        out.append(
            "SELECT d.name, (SELECT COUNT(*) FROM employees e WHERE e.dept = d.name AND "
            f"{cond}) AS c FROM departments d ORDER BY c, d.name LIMIT {k}"
        )
    if "ROUND(AVG(" in ref:
        out.append(re.sub(r"ROUND\(AVG\(([\w.]+)\)\)", r"CAST(AVG(\1) + 0.5 AS INTEGER)", ref))
    return out


@pytest.mark.parametrize("kind", [k for kinds in sql.TEMPLATES.values() for k in kinds])
def test_other_correct_queries_are_paid(kind: str) -> None:
    task = _task_of(kind)
    for query in _equivalent(task):
        assert _paid(task, query), query
    assert palaestra.verify(task, f"```sql\n{task.answer};\n```").correct


# classic wrong queries, as rewrites of the reference: (name, pattern, replacement, templates)
ALL = frozenset(k for kinds in sql.TEMPLATES.values() for k in kinds)
FILTERS = frozenset(sql.TEMPLATES[1] + sql.TEMPLATES[2] + ("join_city", "join_cities", "join_budget"))
GROUPED = frozenset(sql.TEMPLATES[3] + sql.TEMPLATES[4] + sql.TEMPLATES[6])
WRONG = [
    ("AND for OR", r" OR ", " AND ", ALL),
    ("OR for AND", r"( WHERE .*?) AND (?!\d)", r"\1 OR ", FILTERS),
    ("first filter dropped", r" WHERE (?:\S+ BETWEEN \d+ AND \d+|[^()]*?\([^)]*\)|\S+ \S+ \S+) (AND|OR) ", " WHERE ", FILTERS),
    ("last filter dropped", r" (AND|OR) (?:\S+ BETWEEN \d+ AND \d+|\S+ (NOT )?IN \([^)]*\)|\S+ \S+ \S+)$", "", FILTERS),
    ("WHERE dropped", r" WHERE [^G]*?(?= GROUP BY)", "", GROUPED),
    ("DISTINCT added", r"^SELECT (?!(e\.)?id)", "SELECT DISTINCT ", FILTERS),
    ("BETWEEN negated", r" BETWEEN ", " NOT BETWEEN ", ALL),
    ("IN negated", r" IN \(", " NOT IN (", ALL),
    ("max for min", r"MIN\(", "MAX(", ALL),
    ("min for max", r"MAX\(", "MIN(", ALL),
    ("average for sum", r"SUM\(", "AVG(", ALL),
    ("rows for distinct values", r"COUNT\(DISTINCT ", "COUNT(", ALL),
    ("distinct names for rows", r"COUNT\(\*\)", "COUNT(DISTINCT name)", ALL - {"rank_count"}),
    ("distinct names for rows (joined)", r"COUNT\(\*\)", "COUNT(DISTINCT e.name)", {"rank_count"}),
    ("no rounding", r"ROUND\((AVG\([^)]*\))\)", r"\1", ALL),
    ("truncation for rounding", r"ROUND\((AVG\([^)]*\))\)", r"CAST(\1 AS INTEGER)", ALL),
    ("HAVING dropped", r" HAVING .*$", "", ALL),
    ("JOIN for LEFT JOIN", r" LEFT JOIN ", " JOIN ", ALL),
    ("COUNT(*) for COUNT(e.id)", r"COUNT\(e\.id\)", "COUNT(*)", ALL),
    ("ON term moved to WHERE", r" AND (e\.\w+ \S+ \d+)( WHERE e.id IS NULL)", r" WHERE \1 AND e.id IS NULL", ALL),
    ("ON term moved to WHERE (grouped)", r" AND (e\.\w+ \S+ \d+) GROUP BY", r" WHERE \1 GROUP BY", ALL),
    ("tie-break reversed", r"(ORDER BY \w+ \w+, [\w.]+) ASC", r"\1 DESC", ALL),
    ("direction reversed", r"ORDER BY (\w+) (ASC|DESC)", r"ORDER BY \1 XX", ALL),
    ("ranking dropped", r"ORDER BY \w+ \w+, ", "ORDER BY ", ALL),
    ("LIMIT dropped", r" LIMIT \d+$", "", ALL),
    ("grouped by department, not city", r"GROUP BY d\.city", "GROUP BY d.name", ALL),
    ("department instead of city", r"e\.dept = d\.name WHERE d\.city (=|<>) ('\w+')", r"e.dept = d.name WHERE e.dept \1 \2", ALL),
]  # fmt: skip


@pytest.mark.parametrize("kind", sorted(ALL))
def test_hidden_databases_refuse_the_classic_wrong_queries(kind: str) -> None:
    for nth in range(2):
        task = _task_of(kind, nth)
        applied = 0
        for name, pattern, replacement, kinds in WRONG:
            if kind not in kinds:
                continue
            wrong = re.sub(pattern, replacement, task.answer, count=1)
            if "XX" in wrong:
                wrong = wrong.replace(
                    "XX", "ASC" if " DESC" in task.answer.split("ORDER BY")[1][:12] else "DESC"
                )
            if wrong == task.answer:
                continue
            applied += 1
            assert palaestra.verify(task, f"<answer>{wrong}</answer>").status in ("wrong", "unparseable"), (
                name,
                wrong,
            )
        assert applied >= 1 or kind in sql.TEMPLATES[1], kind  # tier 1: the boundary test covers it
    for nth in range(4 if kind == "anti_join" else 0):
        task = _task_of(kind, nth)
        cond = re.search(r"AND (.*) WHERE e.id IS NULL", task.answer).group(1)
        some_fail = (
            "SELECT DISTINCT d.name, d.city FROM departments d JOIN employees e ON e.dept = d.name "
            f"WHERE NOT ({cond})"
        )
        # right for every department with employees: only one without employees exposes it
        no_empty = (
            "SELECT d.name, d.city FROM departments d JOIN employees e ON e.dept = d.name "
            f"GROUP BY d.name HAVING SUM({cond}) = 0"
        )
        assert not _paid(task, some_fail)
        assert not _paid(task, no_empty)


@pytest.mark.parametrize("tier", sorted(sql.TEMPLATES))
def test_a_reference_fails_the_other_tasks_of_its_tier(tier: int) -> None:
    tasks = [_task(TIER_LEVEL[tier], seed) for seed in range(30)]
    for reference in {t.answer for t in tasks[:3]}:
        paid = sum(_paid(t, reference) for t in tasks if t.answer != reference)
        assert paid <= 2, (reference, paid)


def test_the_weak_writer_solves_the_filter_tiers_only() -> None:
    family = palaestra.get("sql_synthesis").impl
    for tier, level in TIER_LEVEL.items():
        solved = 0
        for seed in range(20):
            task = _task(level, seed)
            response = family.solve_weak(task).response
            solved += response is not None and palaestra.verify(task, response).correct
        assert solved == (20 if tier <= 2 else 0), (tier, solved)


def _schema_holds(db) -> bool:
    """The prompt's promises: no NULLs, every employee's dept names a department."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(sql.SCHEMA)
    conn.executemany("INSERT INTO departments VALUES (?, ?, ?)", db["departments"])
    conn.executemany("INSERT INTO employees VALUES (?, ?, ?, ?, ?)", db["employees"])
    nulls = (
        conn.execute(
            "SELECT COUNT(*) FROM employees WHERE name IS NULL OR dept IS NULL OR salary IS NULL OR age IS NULL"
        ).fetchone()[0]
        + conn.execute("SELECT COUNT(*) FROM departments WHERE city IS NULL OR budget IS NULL").fetchone()[0]
    )
    orphans = conn.execute(
        "SELECT COUNT(*) FROM employees WHERE dept NOT IN (SELECT name FROM departments)"
    ).fetchone()[0]
    types = conn.execute(
        "SELECT COUNT(*) FROM employees WHERE typeof(salary) <> 'integer' OR typeof(age) <> 'integer'"
    ).fetchone()[0]
    conn.close()
    return nulls == orphans == types == 0


@settings(max_examples=40, deadline=None)
@given(level=st.integers(1, 10), seed=st.integers(0, 2**32))
def test_reference_paid_promises_kept_and_boundaries_refused(level: int, seed: int) -> None:
    task = _task(level, seed)
    assert palaestra.verify(task, f"<answer>{task.answer}</answer>").correct
    assert all(_schema_holds(db) for db in task.metadata["databases"])
    assert task.metadata["ordered"] == (" ORDER BY " in task.answer)
    request = task.prompt.split("that returns: ")[1].split("\n\n")[0]
    for constant in re.findall(r"\b\d+\b|'\w+'", task.answer):
        assert constant in request, (constant, request)
    for mutant in _boundary_mutants(task.answer):
        assert palaestra.verify(task, f"<answer>{mutant}</answer>").status == "wrong", mutant


def test_wrong_hardcoded_and_hostile_queries() -> None:
    task = _task(5, 1)
    visible = task.metadata["expected"][0]
    union = " UNION ALL ".join("SELECT " + ", ".join(repr(v) for v in row) for row in visible)
    wrong = [
        union,
        "SELECT dept, COUNT(*), MIN(salary) FROM employees GROUP BY dept",
        "SELECT name FROM employees",
    ]
    for query in wrong:
        verdict = palaestra.verify(task, f"<answer>{query}</answer>")
        assert not verdict.correct, query
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
    for query in hostile:
        verdict = palaestra.verify(task, f"<answer>{query}</answer>")
        assert not verdict.correct and verdict.error is None, query
    assert palaestra.verify(task, f"<answer>{task.answer}</answer>").correct  # data untouched


def test_text_sqlite_cannot_take_is_a_format_error() -> None:
    task = _task(1)
    for text in ("\u202e\ud800", "SELECT '\ud800'", "SELECT name FROM employees WHERE name = '\udfff'"):
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert verdict.status == "unparseable", (text, verdict)


_BOUNDARY_FLIPS = {">": ">=", ">=": ">", "<": "<=", "<=": "<"}


def _boundary_mutants(query: str) -> list[str]:
    """Each comparison made inclusive/exclusive, each integer constant moved by one: on integer
    columns every one of them returns other rows on some database."""
    out = []
    for m in re.finditer(r">=|<=|<>|[<>]|\b\d+\b", query):
        token = m.group()
        if token in _BOUNDARY_FLIPS:
            news = [_BOUNDARY_FLIPS[token]]
        elif token.isdigit():
            news = [str(int(token) + 1), str(int(token) - 1)]
        else:
            news = []
        out += [query[: m.start()] + new + query[m.end() :] for new in news]
    return out


@pytest.mark.parametrize("level", range(1, 11))
def test_boundary_mutants_are_refused_on_every_level(level: int) -> None:
    # the hidden databases hold rows on and next to every constant the query compares against:
    # `>=` where the request says "greater than", or a bound off by one, never passes
    for seed in range(3):
        task = _task(level, seed)
        mutants = _boundary_mutants(task.answer)
        assert mutants or not re.search(r"\d", task.answer), task.answer
        for query in mutants:
            verdict = palaestra.verify(task, f"<answer>{query}</answer>")
            assert verdict.status == "wrong", (seed, query, verdict)


def test_a_query_in_a_box_is_read_and_two_different_ones_refused() -> None:
    """The README promises ``\\boxed{}`` wherever the answer fits on one line (issue 26)."""
    import palaestra

    task = palaestra.make_task("sql_synthesis", seed=0, level=3)
    query = task.answer
    assert palaestra.verify(task, f"The query is \\boxed{{{query}}}.").correct
    other = "SELECT id FROM employees"
    assert palaestra.verify(task, f"\\boxed{{{query}}}\n```sql\n{other}\n```").status == "unparseable"
    assert palaestra.verify(task, f"\\boxed{{{query}}} \\boxed{{{other}}}").status == "unparseable"
    assert not palaestra.verify(task, f"\\boxed{{{other}}}").correct
