"""Write a SQL query for a described result over a generated sqlite database.

The visible database (schema and rows) is in the prompt; the query is graded by result-set
equality on it and on hidden variants (same schema, other rows), so a query that hard-codes the
visible answer fails. The hidden variants are built to expose wrong queries (``hidden_database``):
rows on and next to every constant the query compares against (so ``>=`` for ``>`` or a constant
off by one fails), in and out of the department or city it names (a dropped condition or AND for
OR fails), repeated rows (a DISTINCT that merges them fails), group sizes around a HAVING bound,
and a tie in the counts at a LIMIT cut (a missing tie-break fails). The prompt states what every
database promises: no NULLs, every employee's department exists, any integer salaries and ages.
Rows are compared as a multiset unless the description asks for an order. The submitted SQL runs in-process in sqlite3 on an in-memory copy under an
authorizer that allows reading and SELECT only (no ATTACH, PRAGMA, writes), ``query_only``, a
progress-handler step limit (so recursive CTEs and huge joins end), length limits and a row cap.

Weak solver: a keyword-driven single-table query writer (columns and WHERE filters read off the
request's phrases; no grouping, aggregation, join or ordering), so it solves the filter tiers and
fails from the GROUP BY tier on.

Generation: about 360 tasks/s at level 5 (CPU time, one core, loaded machine).
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family

from ._code_answer import SQL, extract_program

MAX_VM_STEPS = 2_000_000
MAX_ROWS = 2000
DEPTS = ("sales", "research", "support", "legal", "ops")
CITIES = ("Oslo", "Lima", "Pune", "Kyiv", "Cairo", "Quito")
NAMES = ("Ada", "Ben", "Cleo", "Dan", "Eva", "Finn", "Gus", "Hana", "Ivo", "Jin", "Kai", "Lea", "Mo", "Nia",
         "Oto", "Pia", "Quin", "Rui", "Sol", "Tao", "Uma", "Vic", "Wen", "Xia", "Yul", "Zoe")  # fmt: skip
_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}


@dataclass(frozen=True)
class SqlSynthesisKnobs(Knobs):
    tier: int = knob(
        1,
        low=1,
        high=6,
        help="query shape: 1 filter, 2 two filters, 3 group by, 4 having, 5 join, 6 join + group + order",
    )
    rows: int = knob(8, low=4, high=200, help="employees per database")
    variants: int = knob(3, low=1, high=10, help="hidden database variants the query is also graded on")


LEVELS = {
    1: SqlSynthesisKnobs(tier=1, rows=8),
    2: SqlSynthesisKnobs(tier=2, rows=10),
    3: SqlSynthesisKnobs(tier=2, rows=14),
    4: SqlSynthesisKnobs(tier=3, rows=16),
    5: SqlSynthesisKnobs(tier=3, rows=20),
    6: SqlSynthesisKnobs(tier=4, rows=24),
    7: SqlSynthesisKnobs(tier=4, rows=30),
    8: SqlSynthesisKnobs(tier=5, rows=30),
    9: SqlSynthesisKnobs(tier=5, rows=40),
    10: SqlSynthesisKnobs(tier=6, rows=40, variants=4),
}

SCHEMA = (
    "CREATE TABLE departments (name TEXT PRIMARY KEY, city TEXT, budget INTEGER);\n"
    "CREATE TABLE employees (id INTEGER PRIMARY KEY, name TEXT, dept TEXT, salary INTEGER, age INTEGER);"
)

PROMPT = """A sqlite database has this schema:

{schema}

Rows of departments:
{departments}

Rows of employees:
{employees}

Write one SQL SELECT query that returns: {request}

The query is also run on other databases with the same schema and different rows, and must \
return the right result on every one of them; any correct query is accepted. On every database no \
value is NULL, every employee's dept names a row of departments, and salaries and ages can be any \
integers. {order}Answer with one query (a different query in another code block is a format error), \
for example \
<answer>SELECT name FROM employees WHERE age > 30</answer>."""


def draw_database(rng: np.random.Generator, rows: int) -> dict[str, list[list[Any]]]:
    depts = [[d, CITIES[int(rng.integers(len(CITIES)))], int(rng.integers(1, 10)) * 1000] for d in DEPTS]
    employees = []
    for i in range(rows):
        name = NAMES[int(rng.integers(len(NAMES)))] + str(int(rng.integers(10, 99)))
        employees.append(
            [
                i + 1,
                name,
                DEPTS[int(rng.integers(len(DEPTS)))],
                int(rng.integers(20, 120)) * 100,
                int(rng.integers(20, 65)),
            ]
        )
    return {"departments": depts, "employees": employees}


@dataclass(frozen=True)
class Query:
    """A reference query, its English request, and the constants it compares against."""

    sql: str
    request: str
    ordered: bool
    dept: str
    salary: int
    age: int
    k: int
    city: str | None = None


def draw_query(tier: int, rng: np.random.Generator) -> Query:
    dept = DEPTS[int(rng.integers(len(DEPTS)))]
    salary = int(rng.integers(40, 100)) * 100
    age = int(rng.integers(28, 55))
    k = int(rng.integers(2, 4))

    def query(sql: str, request: str, ordered: bool = False, city: str | None = None) -> Query:
        return Query(sql, request, ordered, dept, salary, age, k, city)

    if tier == 1:
        return query(f"SELECT name FROM employees WHERE salary > {salary}",
                     f"the name of every employee whose salary is greater than {salary}.")  # fmt: skip
    if tier == 2:
        return query(f"SELECT name, age FROM employees WHERE dept = '{dept}' AND age <= {age}",
                     f"the name and age of every employee of department '{dept}' who is at most {age} years "
                     f"old.")  # fmt: skip
    if tier == 3:
        return query(f"SELECT dept, COUNT(*), MAX(salary) FROM employees WHERE age > {age} GROUP BY dept",
                     f"for each department that has employees older than {age}: the department, how many such "
                     f"employees it has, and the highest salary among them (one row per department).")  # fmt: skip
    if tier == 4:
        return query(f"SELECT dept, SUM(salary) FROM employees GROUP BY dept HAVING COUNT(*) >= {k}",
                     f"for each department with at least {k} employees: the department and the total salary "
                     f"of its employees.")  # fmt: skip
    if tier == 5:
        city = CITIES[int(rng.integers(len(CITIES)))]
        return query(f"SELECT e.name, d.city FROM employees e JOIN departments d ON e.dept = d.name "
                     f"WHERE d.city <> '{city}' AND e.salary >= {salary}",
                     f"the name of every employee earning at least {salary} whose department is not located "
                     f"in {city}, together with the city of that department.", city=city)  # fmt: skip
    return query(f"SELECT d.city, COUNT(*) AS n FROM employees e JOIN departments d ON e.dept = d.name "
                 f"WHERE e.age < {age} GROUP BY d.city ORDER BY n DESC, d.city ASC LIMIT {k}",
                 f"the {k} cities with the most employees younger than {age} (an employee belongs to the city "
                 f"of their department; cities without such employees are not listed), with that number; "
                 f"most employees first, ties by city name alphabetically; at most {k} rows.", True)  # fmt: skip


# ------------------------------------------------------------------ hidden databases


class _Employees:
    """Rows of a hidden database under construction (ids in order)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng, self.rows = rng, []

    def name(self) -> str:
        return NAMES[int(self.rng.integers(len(NAMES)))] + str(int(self.rng.integers(10, 99)))

    def salary(self) -> int:
        return int(self.rng.integers(2000, 12001))  # any integer, not only multiples of 100

    def age(self) -> int:
        return int(self.rng.integers(18, 71))

    def add(
        self, dept: str, salary: int | None = None, age: int | None = None, name: str | None = None
    ) -> None:
        salary = self.salary() if salary is None else salary
        age = self.age() if age is None else age
        self.rows.append([len(self.rows) + 1, name or self.name(), dept, salary, age])

    def repeat(self, index: int) -> None:
        """A second employee with the same name, department, salary and age as row ``index``."""
        _, name, dept, salary, age = self.rows[index]
        self.add(dept, salary, age, name)


def _departments(query: Query, rng: np.random.Generator) -> list[list[Any]]:
    """Every department; four distinct cities with two departments sharing one (so grouping by
    city and by department differ); for tier 5 the request's city holds one or two of them."""
    cities = [str(c) for c in rng.choice(CITIES, size=4, replace=False)]
    if query.city is not None and query.city not in cities:
        cities[int(rng.integers(4))] = query.city
    order = [int(i) for i in rng.permutation(len(DEPTS))]
    assigned = {DEPTS[order[0]]: cities[0], DEPTS[order[1]]: cities[0]}
    for j, i in enumerate(order[2:]):
        assigned[DEPTS[i]] = cities[1 + j % 3]
    return [[d, assigned[d], int(rng.integers(1, 10)) * 1000] for d in DEPTS]


def hidden_database(
    query: Query, tier: int, rows: int, rng: np.random.Generator
) -> dict[str, list[list[Any]]]:
    """A hidden variant built to expose wrong queries: random background rows (any integers),
    plus rows on and next to every constant the query compares against, in and out of the
    department or city it names, repeated rows (same name and values) where DISTINCT would
    wrongly merge them, group sizes around a HAVING bound, and ties at a LIMIT cut."""
    departments = _departments(query, rng)
    city_of = {d: c for d, c, _ in departments}
    others = [d for d in DEPTS if d != query.dept]
    pick = lambda pool: pool[int(rng.integers(len(pool)))]  # noqa: E731
    staff = _Employees(rng)
    s, a = query.salary, query.age
    if tier == 1:
        for v in (s - 1, s, s + 1, s + 2):
            staff.add(pick(DEPTS), salary=v)
        staff.repeat(len(staff.rows) - 1)
    elif tier == 2:
        for v in (a - 1, a, a + 1):
            staff.add(query.dept, age=v)
            staff.add(pick(others), age=v)
        staff.repeat(0)
    elif tier == 3:
        for v in (a - 1, a, a + 1):
            staff.add(query.dept, age=v)
            staff.add(pick(others), age=v)
        staff.add(query.dept, age=a + 2)  # a second employee above the bound, another salary
        staff.repeat(len(staff.rows) - 1)  # a repeated name within one department
    elif tier == 4:
        shuffled = [str(d) for d in rng.permutation(DEPTS)]
        for dept, size in zip(shuffled, (query.k - 1, query.k, query.k + 1), strict=False):
            for _ in range(size):
                staff.add(dept)
            if size > 1:
                staff.rows[-1][1] = staff.rows[-2][1]  # a repeated name: counting names is not counting rows
        others = shuffled[3:]  # the background fills only the other departments
    elif tier == 5:
        inside = [d for d in DEPTS if city_of[d] == query.city]
        outside = [d for d in DEPTS if city_of[d] != query.city]
        for v in (s - 1, s, s + 1):
            staff.add(pick(outside), salary=v)
            staff.add(pick(inside), salary=v)
        staff.repeat(2)  # the same name and city twice
    else:
        _plant_ties(staff, query, departments, rng)
    while len(staff.rows) < rows:
        if tier == 4:
            staff.add(pick(others))
        elif tier == 6:  # no more young employees: the planted counts and their tie stay
            staff.add(pick(DEPTS), age=int(rng.integers(query.age, 71)))
        else:
            staff.add(pick(DEPTS))
    order = rng.permutation(len(staff.rows))
    employees = [[i + 1, *staff.rows[int(j)][1:]] for i, j in enumerate(order)]
    return {"departments": departments, "employees": employees}


def _plant_ties(
    staff: _Employees, query: Query, departments: list[list[Any]], rng: np.random.Generator
) -> None:
    """Tier 6: young employees (age < a) in every city, with a tie in their number across the
    LIMIT cut (the k-th and (k+1)-th city), so the order and its tie-break decide the rows; and
    employees exactly at and above the age bound in the leading city."""
    # sorted before the shuffle: a set of strings iterates in a per-process hash order
    cities = sorted(sorted({c for _, c, _ in departments}), key=lambda c: rng.random())
    counts = sorted((int(v) for v in rng.integers(1, 6, size=len(cities))), reverse=True)
    counts[query.k] = counts[query.k - 1]
    young = query.age - 1
    for city, count in zip(cities, counts, strict=True):
        depts = [d for d, c, _ in departments if c == city]
        for i in range(count):
            staff.add(depts[i % len(depts)], age=young if i == 0 else int(rng.integers(18, young + 1)))
        if count > 1:
            staff.rows[-1][1] = staff.rows[-2][1]  # a repeated name: counting names is not counting rows
        staff.add(depts[0], age=int(rng.integers(query.age + 1, 71)))
    leader = [d for d, c, _ in departments if c == cities[0]][0]
    staff.add(leader, age=query.age)
    staff.add(leader, age=query.age + 1)


def _connect(db: dict[str, list[list[Any]]]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    conn.executemany("INSERT INTO departments VALUES (?, ?, ?)", db["departments"])
    conn.executemany("INSERT INTO employees VALUES (?, ?, ?, ?, ?)", db["employees"])
    conn.commit()
    return conn


def _deny_all_but_reads(action: int, *_: Any) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY


def run_query(db: dict[str, list[list[Any]]], sql: str) -> list[tuple[Any, ...]] | str:
    """Rows of ``sql`` on ``db`` (a fresh in-memory copy, read-only, step-limited) or an error."""
    conn = _connect(db)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 100_000)
        conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, 10_000)
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        conn.set_authorizer(_deny_all_but_reads)
        steps = [0]

        def progress() -> int:
            steps[0] += 1
            return 1 if steps[0] > MAX_VM_STEPS // 1000 else 0

        conn.set_progress_handler(progress, 1000)
        cursor = conn.execute(sql)
        rows = cursor.fetchmany(MAX_ROWS + 1)
        if len(rows) > MAX_ROWS:
            return f"more than {MAX_ROWS} rows"
        return [tuple(r) for r in rows]
    except sqlite3.OperationalError as exc:
        return "interrupted (step limit)" if "interrupt" in str(exc) else f"error: {str(exc)[:100]}"
    except (sqlite3.Error, sqlite3.Warning, ValueError, OverflowError, MemoryError) as exc:
        return f"error: {type(exc).__name__}: {str(exc)[:100]}"
    finally:
        conn.close()


def same_result(got: list[tuple[Any, ...]], want: list[list[Any]], ordered: bool) -> bool:
    expected = [tuple(r) for r in want]
    if ordered:
        return got == expected
    return Counter(got) == Counter(expected)


def extract_sql(response: str) -> tuple[str | None, str]:
    """(query, "") or (None, why not): one SELECT (or WITH) statement, taken by the code-answer
    rules (``_code_answer``: several different queries are a format error)."""
    text, reason = extract_program(response, SQL, max_chars=5000)
    if text is None:
        return None, reason
    text = text.strip().rstrip(";").strip()
    if "\x00" in text:
        return None, "NUL character in the query"
    if not text.isascii():
        try:
            text.encode("utf-8")  # sqlite3 takes UTF-8 only: a lone surrogate cannot be sent
        except UnicodeEncodeError:
            return None, "the query is not valid Unicode text (a lone surrogate)"
    if not sqlite3.complete_statement(text + ";") or not re.match(r"(?is)^\s*(select|with)\b", text):
        return None, "expected one SELECT query"
    return text, ""


# the weak writer's phrase book: English filter phrase -> WHERE condition on employees
_WEAK_FILTERS = (
    (r"salary is greater than (\d+)", "salary > {}"),
    (r"earning at least (\d+)", "salary >= {}"),
    (r"department '(\w+)'", "dept = '{}'"),
    (r"at most (\d+) years old", "age <= {}"),
    (r"older than (\d+)", "age > {}"),
    (r"younger than (\d+)", "age < {}"),
)
_WEAK_COLUMNS = (("name", "name"), ("age", "age"), ("department", "dept"), ("salary", "salary"))


def weak_query(prompt: str) -> tuple[str | None, int]:
    """(single-table SELECT ... FROM employees WHERE ..., phrases used) from the request text."""
    found = re.search(r"that returns: (.*?)\n\n", prompt, re.DOTALL)
    if not found:
        return None, 0
    request = found.group(1)
    # columns: named before "of every employee", else after the colon of "for each ...: ..."
    head = request.split(" of every employee")[0] if " of every employee" in request else request
    head = head.split(":", 1)[-1]
    columns = sorted(
        ((m.start(), col) for word, col in _WEAK_COLUMNS for m in re.finditer(rf"\b{word}\b", head)),
    )
    names = list(dict.fromkeys(col for _, col in columns))
    conditions = [
        template.format(m.group(1))
        for pattern, template in _WEAK_FILTERS
        for m in re.finditer(pattern, request)
    ]
    if not names:
        return None, len(conditions)
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    return f"SELECT {', '.join(names)} FROM employees{where}", len(names) + len(conditions)


def _rows(table: list[list[Any]]) -> str:
    return "\n".join("  " + ", ".join(repr(v) for v in row) for row in table)


@family(
    "sql_synthesis",
    domain="code",
    knobs=SqlSynthesisKnobs,
    levels=LEVELS,
    description="Write a SQL query for a described result; graded by result equality on hidden database variants.",
    verifier_kind="result-set equality (read-only, step-limited sqlite3)",
    version=2,
)
class SqlSynthesis(Family):
    def generate(self, knobs: SqlSynthesisKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(500):
            query = draw_query(knobs.tier, rng)
            sql = query.sql
            dbs = [draw_database(rng, knobs.rows)]
            dbs += [hidden_database(query, knobs.tier, knobs.rows, rng) for _ in range(knobs.variants)]
            results = [run_query(db, sql) for db in dbs]
            if any(isinstance(r, str) for r in results):
                continue
            # degenerate: an empty visible result, or the same result on every database
            if results[0] and len({tuple(sorted(map(repr, r))) for r in results}) > 1:
                break
        else:
            raise RuntimeError(f"could not draw a query for {knobs}")
        visible = dbs[0]
        return TaskDraft(
            prompt=PROMPT.format(
                schema=SCHEMA,
                departments=_rows(visible["departments"]),
                employees=_rows(visible["employees"]),
                request=query.request,
                order="Rows must come in the order asked for. "
                if query.ordered
                else "Row order does not matter. ",
            ),
            answer=sql,
            metadata={
                "databases": dbs,
                "expected": [[list(row) for row in r] for r in results],
                "ordered": query.ordered,
                "tier": knobs.tier,
                "cells": sum(len(db["employees"]) * 5 for db in dbs),
                "canonical_hash": content_hash([sql, visible]),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        sql, reason = extract_sql(response)
        if sql is None:
            return Verdict.bad_format(
                f"{reason}: answer with one SELECT query in <answer> tags or a ```sql block"
            )
        meta = task.metadata
        for i, (db, want) in enumerate(zip(meta["databases"], meta["expected"], strict=True)):
            got = run_query(db, sql)
            where = "the visible database" if i == 0 else f"hidden database {i}"
            if isinstance(got, str):
                if i == 0 and got.startswith("error"):
                    return Verdict.bad_format(f"the query failed: {got}")
                return Verdict.wrong(f"on {where}: {got}")
            if not same_result(got, want, meta["ordered"]):
                return Verdict.wrong(f"wrong result on {where}")
        return Verdict.right(parsed=sql[:200])

    def solve_exact(self, task: Task) -> SolverRun:
        # the generating query; effort = cells scanned times the query tier
        return SolverRun(
            f"<answer>{task.answer}</answer>", float(task.metadata["cells"] * task.metadata["tier"])
        )

    def solve_weak(self, task: Task) -> SolverRun:
        """A keyword-driven single-table query writer (``weak_query``): it reads the columns and
        row filters off the English request, but writes no grouping, aggregation, join or
        ordering; it gives up when it finds no column it knows."""
        sql, phrases = weak_query(task.prompt)
        return SolverRun(None if sql is None else f"<answer>{sql}</answer>", float(phrases))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        sql = task.answer
        visible = task.metadata["expected"][0]
        literal = ", ".join(repr(v) for v in visible[0])
        candidates = [
            re.sub(r"\d+", lambda m: str(int(m.group()) + 100), sql, count=1),  # a constant changed
            sql.replace(">=", ">").replace("<=", "<")
            if ("<=" in sql or ">=" in sql)
            else sql.replace(">", ">=").replace("<", "<="),
            "SELECT name FROM employees",
            f"SELECT {literal}",  # hard-coding a visible row
            " UNION ALL ".join(
                "SELECT " + ", ".join(repr(v) for v in row) for row in visible
            ),  # the visible answer
            f"SELECT * FROM ({sql}) LIMIT {len(visible) - 1}",  # one row short
        ]
        out = []
        for c in candidates:
            rows = [run_query(db, c) for db in task.metadata["databases"]]
            if any(isinstance(r, str) or not same_result(r, w, task.metadata["ordered"])
                   for r, w in zip(rows, task.metadata["expected"], strict=True)):  # fmt: skip
                out.append(f"<answer>{c}</answer>")
        return list(dict.fromkeys(out))
