"""Write a SQL query for a described result over a generated sqlite database.

The visible database (schema and rows) is in the prompt; the query is graded by result-set
equality on it and on hidden variants (same schema, other rows), so a query that hard-codes the
visible answer fails. Every tier draws one of several query templates with its parameters per
task (output columns, compared column, comparison, constants, named departments and cities,
aggregates, order direction, LIMIT), so no fixed query solves more than a small share of tasks:

1. one filter: a comparison, a BETWEEN range, a department named or excluded, an IN list;
2. two filters joined by AND or OR;
3. GROUP BY department with a filter: COUNT, SUM, MIN/MAX, ROUND(AVG), COUNT(DISTINCT);
4. HAVING on the group size, on an aggregate, on a filtered count or on a COUNT(DISTINCT);
5. a JOIN filtered on the department's city (= / <> / IN) or budget, or a LEFT JOIN listing the
   departments without a matching employee (departments without any employees included);
6. JOIN + GROUP BY + ORDER BY + LIMIT: cities or departments ranked by a count, a total, an
   extreme or a rounded average, ties broken by name, LEFT JOIN counts that include zeros.

The hidden variants are built to expose wrong queries (``hidden_database``): for every filter,
rows on and next to every constant it compares against and in and out of every named department
or city, each with the other filters held true (AND) or false (OR), so ``>=`` for ``>``, a
constant off by one, a dropped condition or AND for OR fails; repeated rows where DISTINCT would
merge them; one-row groups that exist only if their row passes the filter; group sizes and
aggregate values on and next to a HAVING bound; groups whose average ends in .5 (rounding);
ranked groups with a tie at the LIMIT cut, a leader that is not first by name and (one per
variant) a row on a filter constant that moves the leader's value; departments without
employees where a LEFT JOIN matters. The prompt states what every database promises: no NULLs,
every employee's department exists, a department may have no employees, any integer values.
Rows are compared as a multiset unless the description asks for an order. The submitted SQL
runs in-process in sqlite3 on an in-memory copy under an authorizer that allows reading and
SELECT only (no ATTACH, PRAGMA, writes), ``query_only``, a progress-handler step limit (so
recursive CTEs and huge joins end), length limits and a row cap.

Weak solver: a keyword-driven single-table query writer (columns and WHERE filters read off the
request's phrases; no grouping, aggregation, join or ordering), so it solves the filter tiers and
fails from the GROUP BY tier on.

Generation: about 410 tasks per CPU-second at level 5 and 240 at level 10 (benchmarks/generation.py,
one core, loaded machine).
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Callable
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
# hidden databases may hold other departments and cities (any text): groups of their own
MORE_DEPTS = ("hr", "it", "audit", "design", "admin", "press", "labs", "fleet", "data", "risk", "tax",
              "web", "film", "food", "art", "law", "mail")  # fmt: skip
MORE_CITIES = ("Rome", "Baku", "Doha", "Lyon", "Riga", "Bern", "Faro", "Graz", "Hue", "Ica")
NUMERIC = {"salary": (2000, 12000), "age": (18, 70), "budget": (1000, 9000)}  # hidden-database ranges
UNIT = {"salary": 100, "age": 1, "budget": 100}
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
value is NULL, every employee's dept names a row of departments, a department may have no \
employees, and salaries, ages and budgets can be any integers. Columns come in the order asked \
for. {order}Answer with one query (a different query in another code block is a format error), \
for example \
<answer>SELECT name FROM employees WHERE age > 30</answer>."""


def draw_database(rng: np.random.Generator, rows: int) -> dict[str, list[list[Any]]]:
    """The visible database: the five departments (sometimes one without employees), random staff."""
    depts = [[d, CITIES[int(rng.integers(len(CITIES)))], int(rng.integers(1, 10)) * 1000] for d in DEPTS]
    staffed = list(DEPTS)
    if rng.random() < 0.3:
        staffed.pop(int(rng.integers(len(staffed))))
    employees = []
    for i in range(rows):
        name = NAMES[int(rng.integers(len(NAMES)))] + str(int(rng.integers(10, 99)))
        employees.append(
            [
                i + 1,
                name,
                staffed[int(rng.integers(len(staffed)))],
                int(rng.integers(20, 120)) * 100,
                int(rng.integers(20, 65)),
            ]
        )
    return {"departments": depts, "employees": employees}


# ------------------------------------------------------------------ conditions and queries

_OP_WORDS = {">": "greater than", ">=": "at least", "<": "less than", "<=": "at most"}
_COUNT_WORDS = {">": "more than", ">=": "at least", "<": "fewer than", "<=": "at most"}
_SUBJECT = {"salary": "whose salary is", "age": "whose age is", "budget": "whose department's budget is"}
_POOLS = {"dept": DEPTS + MORE_DEPTS, "city": CITIES + MORE_CITIES}


def _quote(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class Cond:
    """One comparison: a column (salary, age, dept of an employee; city, budget of their
    department, or an aggregate such as ``COUNT(*)`` in a HAVING) against constants."""

    column: str
    op: str  # > >= < <= = <> between in "not in"
    value: Any  # int, (low, high), str or a tuple of str

    def sql(self, joined: bool = False) -> str:
        name = self.column
        if joined:
            name = ("d." if name in ("city", "budget") else "e.") + name
        v = self.value
        if self.op == "between":
            return f"{name} BETWEEN {v[0]} AND {v[1]}"
        if self.op in ("in", "not in"):
            return f"{name} {self.op.upper()} ({', '.join(_quote(x) for x in v)})"
        return f"{name} {self.op} {_quote(v)}"

    def english(self) -> str:
        v = self.value
        if self.column in _SUBJECT:
            if self.op == "between":
                return f"{_SUBJECT[self.column]} between {v[0]} and {v[1]} (both included)"
            return f"{_SUBJECT[self.column]} {_OP_WORDS[self.op]} {v}"
        listed = ", ".join(f"'{x}'" for x in v) if isinstance(v, tuple) else f"'{v}'"
        if self.column == "dept":
            return {
                "=": f"who works in department {listed}",
                "<>": f"who does not work in department {listed}",
                "in": f"who works in one of the departments {listed}",
                "not in": f"who works in none of the departments {listed}",
            }[self.op]
        return {
            "=": f"whose department is located in {listed}",
            "<>": f"whose department is not located in {listed}",
            "in": f"whose department is located in one of the cities {listed}",
            "not in": f"whose department is located in none of the cities {listed}",
        }[self.op]

    def holds(self, x: Any) -> bool:
        op, v = self.op, self.value
        if op == "between":
            return bool(v[0] <= x <= v[1])
        if op in ("in", "not in"):
            return (x in v) == (op == "in")
        if op == "=":
            return bool(x == v)
        if op == "<>":
            return bool(x != v)
        return bool({">": x > v, ">=": x >= v, "<": x < v, "<=": x <= v}[op])

    def edges(self, rng: np.random.Generator) -> list[Any]:
        """Values on and next to every constant, or each named value and one not named."""
        v = self.value
        if self.column in NUMERIC:
            points = v if self.op == "between" else (v,)
            return sorted({p + d for p in points for d in (-1, 0, 1)})
        named = list(v) if isinstance(v, tuple) else [v]
        outside = [x for x in _POOLS[self.column] if x not in named]
        return named + [outside[int(rng.integers(len(outside)))]]

    def pick(self, rng: np.random.Generator, want: bool) -> Any:
        """A random value for which the condition holds (``want``) or does not."""
        if self.column in NUMERIC:
            low, high = NUMERIC[self.column]
            for _ in range(200):
                x = int(rng.integers(low, high + 1))
                if self.holds(x) == want:
                    return x
            raise RuntimeError(f"no value with {self} == {want}")
        pool = [x for x in _POOLS[self.column] if self.holds(x) == want]
        return pool[int(rng.integers(len(pool)))]


Aggregate = tuple[str, str]  # (function, column): count/"", sum, max, min, avg (rounded), distinct


def aggregate_sql(aggregate: Aggregate, prefix: str = "") -> str:
    fn, column = aggregate
    if fn == "count":
        return "COUNT(*)"
    if fn == "distinct":
        return f"COUNT(DISTINCT {prefix}{column})"
    if fn == "avg":
        return f"ROUND(AVG({prefix}{column}))"
    return f"{fn.upper()}({prefix}{column})"


_PLURAL = {"name": "names", "age": "ages", "salary": "salaries"}
_ROUNDING = "rounded to the nearest integer (halves away from zero, as ROUND does)"


def aggregate_words(aggregate: Aggregate, them: str) -> str:
    fn, column = aggregate
    return {
        "count": f"the number of {them}",
        "sum": f"the total {column} of {them}",
        "max": f"the highest {column} among {them}",
        "min": f"the lowest {column} among {them}",
        "avg": f"the average {column} of {them} {_ROUNDING}",
        "distinct": f"the number of different {_PLURAL.get(column, column)} among {them}",
    }[fn]


@dataclass(frozen=True)
class Query:
    """A reference query, its English request, and what the hidden databases must test."""

    kind: str  # the template
    sql: str
    request: str
    conds: tuple[Cond, ...] = ()  # row filters (WHERE, or the ON of a LEFT JOIN)
    connector: str = "AND"
    ordered: bool = False
    aggregates: tuple[Aggregate, ...] = ()  # aggregate output columns
    having: Cond | None = None  # the HAVING bound, its column an aggregate
    k: int = 0  # LIMIT
    descending: bool = True
    group: str = ""  # "dept" or "city" for the ranking tier


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


# ------------------------------------------------------------------ templates, per tier

_COLUMN_WORDS = {"id": "id", "name": "name", "salary": "salary", "age": "age", "dept": "department",
                 "city": "department's city", "budget": "department's budget"}  # fmt: skip
_EMPLOYEE_OUTPUTS = (("name",), ("name", "salary"), ("name", "age"), ("name", "dept"), ("id", "name"),
                     ("name", "salary", "age"))  # fmt: skip
_JOIN_OUTPUTS = (("name", "city"), ("name", "salary", "city"), ("name", "budget"), ("name", "dept", "city"),
                 ("id", "name", "city"), ("name", "age", "budget"))  # fmt: skip


def _pick(rng: np.random.Generator, pool: tuple[Any, ...] | list[Any]) -> Any:
    return pool[int(rng.integers(len(pool)))]


def _constant(column: str, rng: np.random.Generator) -> int:
    if column == "age":
        return int(rng.integers(25, 61))
    return int(rng.integers(40, 100) if column == "salary" else rng.integers(20, 81)) * 100


def _compare(rng: np.random.Generator, column: str | None = None) -> Cond:
    column = column or _pick(rng, ("salary", "age"))
    return Cond(column, _pick(rng, (">", ">=", "<", "<=")), _constant(column, rng))


def _between(rng: np.random.Generator, column: str | None = None) -> Cond:
    column = column or _pick(rng, ("salary", "age"))
    if column == "age":
        low = int(rng.integers(22, 51))
        return Cond("age", "between", (low, low + int(rng.integers(4, 16))))
    low = int(rng.integers(30, 80)) * 100
    return Cond("salary", "between", (low, low + int(rng.integers(10, 41)) * 100))


def _named(rng: np.random.Generator, column: str, listed: bool) -> Cond:
    pool = DEPTS if column == "dept" else CITIES
    if not listed:
        return Cond(column, _pick(rng, ("=", "<>")), _pick(rng, pool))
    chosen = rng.choice(len(pool), size=int(rng.integers(2, 4)), replace=False)
    return Cond(column, _pick(rng, ("in", "not in")), tuple(sorted(pool[int(i)] for i in chosen)))


def _rows_query(kind: str, rng: np.random.Generator, conds: list[Cond], connector: str = "AND") -> Query:
    """SELECT columns of the employees who pass the filters (joined with their department when a
    filter or a column needs it)."""
    joined = kind.startswith("join")
    columns = _pick(rng, _JOIN_OUTPUTS if joined else _EMPLOYEE_OUTPUTS)
    if joined:
        select = ", ".join(("d." if c in ("city", "budget") else "e.") + c for c in columns)
        source = "employees e JOIN departments d ON e.dept = d.name"
    else:
        select, source = ", ".join(columns), "employees"
    where = f" {connector} ".join(c.sql(joined) for c in conds)
    clauses = f" {connector.lower()} ".join(c.english() for c in conds)
    either = " (either or both)" if connector == "OR" else ""
    words = _join([_COLUMN_WORDS[c] for c in columns])
    request = f"the {words} of every employee {clauses}{either}."
    return Query(kind, f"SELECT {select} FROM {source} WHERE {where}", request, tuple(conds), connector)


def _tier1(kind: str, rng: np.random.Generator) -> Query:
    cond = {
        "compare": lambda: _compare(rng),
        "between": lambda: _between(rng),
        "dept": lambda: _named(rng, "dept", listed=False),
        "dept_list": lambda: _named(rng, "dept", listed=True),
    }[kind]()
    return _rows_query(kind, rng, [cond])


def _tier2(kind: str, rng: np.random.Generator) -> Query:
    first = _pick(rng, ("salary", "age"))
    second = "age" if first == "salary" else "salary"
    if kind == "two_numbers":
        return _rows_query(kind, rng, [_compare(rng, first), _compare(rng, second)])
    if kind == "number_dept":
        return _rows_query(kind, rng, [_named(rng, "dept", listed=False), _compare(rng, first)])
    if kind == "between_list":
        return _rows_query(kind, rng, [_between(rng, first), _named(rng, "dept", listed=True)])
    other = _compare(rng, second) if rng.random() < 0.7 else _named(rng, "dept", listed=False)
    return _rows_query(kind, rng, [_compare(rng, first), other], connector="OR")


def _tier3(kind: str, rng: np.random.Generator) -> Query:
    cond = _between(rng) if rng.random() < 0.3 else _compare(rng)
    column = _pick(rng, ("salary", "age"))
    aggregates: tuple[Aggregate, ...] = {
        "group_count": (("count", ""), (_pick(rng, ("max", "min")), column)),
        "group_sum": (("sum", column),),
        "group_avg": (("avg", column),),
        "group_range": (("min", column), ("max", column)),
        "group_distinct": (("distinct", _pick(rng, ("name", "age"))), ("count", "")),
    }[kind]
    select = ", ".join(aggregate_sql(a) for a in aggregates)
    words = _join(["the department"] + [aggregate_words(a, "those employees") for a in aggregates])
    return Query(
        kind,
        f"SELECT dept, {select} FROM employees WHERE {cond.sql()} GROUP BY dept",
        f"for each department that has employees {cond.english()}: {words} (one row per department; "
        f"only those employees count, and departments without such employees are not listed).",
        (cond,),
        aggregates=aggregates,
    )


def _count_bound(rng: np.random.Generator, column: str = "COUNT(*)") -> Cond:
    return Cond(column, _pick(rng, (">", ">=", "<", "<=")), int(rng.integers(2, 6)))


def _tier4(kind: str, rng: np.random.Generator) -> Query:
    not_listed = "departments without employees are not listed"
    if kind == "having_count":
        bound = _count_bound(rng)
        aggregate = (_pick(rng, ("sum", "max", "min", "avg")), _pick(rng, ("salary", "age")))
        return Query(
            kind,
            f"SELECT dept, {aggregate_sql(aggregate)} FROM employees GROUP BY dept HAVING {bound.sql()}",
            f"for each department with {_COUNT_WORDS[bound.op]} {bound.value} employees: the department "
            f"and {aggregate_words(aggregate, 'its employees')} (one row per department; {not_listed}).",
            aggregates=(aggregate,),
            having=bound,
        )
    if kind == "where_having":
        cond, bound = _compare(rng) if rng.random() < 0.7 else _between(rng), _count_bound(rng)
        return Query(
            kind,
            f"SELECT dept, COUNT(*) FROM employees WHERE {cond.sql()} GROUP BY dept HAVING {bound.sql()}",
            f"for each department with {_COUNT_WORDS[bound.op]} {bound.value} employees {cond.english()}: "
            f"the department and the number of those employees (only those employees count; departments "
            f"without such employees are not listed).",
            (cond,),
            having=bound,
        )
    if kind == "having_distinct":
        column = _pick(rng, ("age", "salary"))
        bound = _count_bound(rng, f"COUNT(DISTINCT {column})")
        return Query(
            kind,
            f"SELECT dept, COUNT(*) FROM employees GROUP BY dept HAVING {bound.sql()}",
            f"for each department whose employees have {_COUNT_WORDS[bound.op]} {bound.value} different "
            f"{_PLURAL[column]}: the department and its number of employees, all of them counted (one row "
            f"per department; {not_listed}).",
            having=bound,
        )
    fn, column = _pick(rng, (("max", "salary"), ("max", "age"), ("min", "salary"), ("min", "age"),
                             ("sum", "salary"), ("avg", "salary"), ("avg", "age")))  # fmt: skip
    value = int(rng.integers(100, 300)) * 100 if fn == "sum" else _constant(column, rng)
    bound = Cond(f"{fn.upper()}({column})", _pick(rng, (">", ">=", "<", "<=")), value)
    subject = {"max": f"highest {column}", "min": f"lowest {column}", "sum": f"total {column}",
               "avg": f"average {column} (exact, not rounded)"}[fn]  # fmt: skip
    return Query(
        kind,
        f"SELECT dept, COUNT(*) FROM employees GROUP BY dept HAVING {bound.sql()}",
        f"for each department whose {subject} is {_OP_WORDS[bound.op]} {value}: the department and its "
        f"number of employees (one row per department; {not_listed}).",
        having=bound,
    )


def _tier5(kind: str, rng: np.random.Generator) -> Query:
    number = _compare(rng) if rng.random() < 0.75 else _between(rng)
    if kind == "join_city":
        return _rows_query(kind, rng, [_named(rng, "city", listed=False), number])
    if kind == "join_cities":
        return _rows_query(kind, rng, [_named(rng, "city", listed=True), number])
    if kind == "join_budget":
        return _rows_query(kind, rng, [_compare(rng, "budget"), number])
    cond = _compare(rng)
    return Query(
        kind,
        f"SELECT d.name, d.city FROM departments d LEFT JOIN employees e ON e.dept = d.name AND "
        f"{cond.sql(True)} WHERE e.id IS NULL",
        f"the name and city of every department that has no employee {cond.english()} (a department "
        f"without any employees is listed too).",
        (cond,),
    )


def _tier6(kind: str, rng: np.random.Generator) -> Query:
    cond = _compare(rng)
    other = "age" if cond.column == "salary" else "salary"
    k = int(rng.integers(2, 5))
    descending = bool(rng.random() < 0.5)
    way, most = ("DESC", "largest") if descending else ("ASC", "smallest")
    at_most = f"at most {k} rows."
    if kind == "rank_count":
        most = "most" if descending else "fewest"
        return Query(
            kind,
            f"SELECT d.city, COUNT(*) AS n FROM employees e JOIN departments d ON e.dept = d.name WHERE "
            f"{cond.sql(True)} GROUP BY d.city ORDER BY n {way}, d.city ASC LIMIT {k}",
            f"the {k} cities with the {most} employees {cond.english()} (an employee belongs to the city of "
            f"their department; cities without such employees are not listed), with that number; {most} "
            f"first, ties broken by city name alphabetically; {at_most}",
            (cond,), ordered=True, aggregates=(("count", ""),), k=k, descending=descending, group="city",
        )  # fmt: skip
    if kind == "rank_left":
        return Query(
            kind,
            f"SELECT d.name, COUNT(e.id) AS n FROM departments d LEFT JOIN employees e ON e.dept = d.name "
            f"AND {cond.sql(True)} GROUP BY d.name ORDER BY n ASC, d.name ASC LIMIT {k}",
            f"for each department, the number of its employees {cond.english()} (a department with none "
            f"counts 0 and is listed too): the {k} departments with the fewest, with that number; fewest "
            f"first, ties broken by department name alphabetically; {at_most}",
            (cond,), ordered=True, aggregates=(("count", ""),), k=k, descending=False, group="dept",
        )  # fmt: skip
    if kind == "rank_aggregate":
        aggregate = (_pick(rng, ("sum", "max", "min")), other)
        return Query(
            kind,
            f"SELECT d.city, {aggregate_sql(aggregate, 'e.')} AS v FROM employees e JOIN departments d ON "
            f"e.dept = d.name WHERE {cond.sql(True)} GROUP BY d.city ORDER BY v {way}, d.city ASC LIMIT {k}",
            f"for each city, {aggregate_words(aggregate, 'its employees ' + cond.english())} (an employee "
            f"belongs to the city of their department; cities without such employees are not listed): the "
            f"{k} cities where that value is {most}, with the value; {most} first, ties broken by city name "
            f"alphabetically; {at_most}",
            (cond,), ordered=True, aggregates=(aggregate,), k=k, descending=descending, group="city",
        )  # fmt: skip
    aggregate = ("avg", other)
    return Query(
        kind,
        f"SELECT d.name, d.city, ROUND(AVG(e.{other})) AS v FROM employees e JOIN departments d ON "
        f"e.dept = d.name WHERE {cond.sql(True)} GROUP BY d.name ORDER BY v {way}, d.name ASC LIMIT {k}",
        f"for each department, the average {other} of its employees {cond.english()}, {_ROUNDING}; "
        f"departments without such employees are not listed: the {k} departments where that rounded value "
        f"is {most}, each with the department's name, its city and the value; {most} first, ties broken by "
        f"department name alphabetically; {at_most}",
        (cond,), ordered=True, aggregates=(aggregate,), k=k, descending=descending, group="dept",
    )  # fmt: skip


TEMPLATES: dict[int, tuple[str, ...]] = {
    1: ("compare", "between", "dept", "dept_list"),
    2: ("two_numbers", "number_dept", "between_list", "either"),
    3: ("group_count", "group_sum", "group_avg", "group_range", "group_distinct"),
    4: ("having_count", "having_aggregate", "where_having", "having_distinct"),
    5: ("join_city", "join_cities", "join_budget", "anti_join"),
    6: ("rank_count", "rank_left", "rank_aggregate", "rank_average"),
}
_DRAW: dict[int, Callable[[str, np.random.Generator], Query]] = {
    1: _tier1, 2: _tier2, 3: _tier3, 4: _tier4, 5: _tier5, 6: _tier6,
}  # fmt: skip


def draw_query(tier: int, rng: np.random.Generator, kind: str | None = None) -> Query:
    """One query of the tier: a template (``kind``, drawn unless given) with drawn parameters."""
    kind = kind or _pick(rng, TEMPLATES[tier])
    return _DRAW[tier](kind, rng)


# ------------------------------------------------------------------ hidden databases


class _Database:
    """A hidden database under construction: departments on demand, employees in order."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.departments: dict[str, list[Any]] = {}  # name -> [city, budget]
        self.rows: list[list[Any]] = []
        self.spare = [str(d) for d in rng.permutation(np.array(DEPTS + MORE_DEPTS))]

    def name(self) -> str:
        return _pick(self.rng, NAMES) + str(int(self.rng.integers(10, 99)))

    def new_department(self, city: str | None = None, budget: int | None = None) -> str:
        name = self.spare.pop() if self.spare else f"unit{len(self.departments)}"
        city = city or _pick(self.rng, CITIES)
        budget = int(self.rng.integers(1, 10)) * 1000 if budget is None else budget
        self.departments[name] = [city, budget]
        return name

    def department(self, values: dict[str, Any]) -> str:
        """The department named in ``values``, else one with its city/budget (made if needed)."""
        if "dept" in values:
            name = values["dept"]
            if name not in self.departments:
                self.departments[name] = [_pick(self.rng, CITIES), int(self.rng.integers(1, 10)) * 1000]
                if name in self.spare:
                    self.spare.remove(name)
            return str(name)
        city, budget = values.get("city"), values.get("budget")
        matches = [
            d
            for d, (c, b) in self.departments.items()
            if (city is None or c == city) and (budget is None or b == budget)
        ]
        if matches and self.rng.random() < 0.7:
            return str(_pick(self.rng, matches))
        return self.new_department(city, budget)

    def add(
        self, dept: str, salary: int | None = None, age: int | None = None, name: str | None = None
    ) -> int:
        low, high = NUMERIC["salary"]
        salary = int(self.rng.integers(low, high + 1)) if salary is None else int(salary)
        age = int(self.rng.integers(*NUMERIC["age"])) if age is None else int(age)
        self.rows.append([len(self.rows) + 1, name or self.name(), dept, salary, age])
        return len(self.rows) - 1

    def employee(self, values: dict[str, Any]) -> int:
        return self.add(self.department(values), values.get("salary"), values.get("age"))

    def values(self, row: list[Any]) -> dict[str, Any]:
        city, budget = self.departments[row[2]]
        return {"id": row[0], "name": row[1], "dept": row[2], "salary": row[3], "age": row[4],
                "city": city, "budget": budget}  # fmt: skip

    def passes(self, query: Query, row: list[Any]) -> bool:
        values = self.values(row)
        held = [c.holds(values[c.column]) for c in query.conds]
        return all(held) if query.connector == "AND" else any(held)

    def repeat(self, index: int) -> None:
        """A second employee with the same name, department, salary and age as row ``index``."""
        _, name, dept, salary, age = self.rows[index]
        self.add(dept, salary, age, name)

    def same_name(self, first: int, second: int) -> None:
        self.rows[second][1] = self.rows[first][1]

    def tables(self) -> dict[str, list[list[Any]]]:
        order = self.rng.permutation(len(self.rows))
        employees = [[i + 1, *self.rows[int(j)][1:]] for i, j in enumerate(order)]
        names = list(self.departments)
        departments = [
            [names[int(i)], *self.departments[names[int(i)]]] for i in self.rng.permutation(len(names))
        ]
        return {"departments": departments, "employees": employees}


def _passing(cond: Cond, rng: np.random.Generator, want: bool = True) -> dict[str, Any]:
    return {cond.column: cond.pick(rng, want)}


def _plant_filters(db: _Database, query: Query) -> None:
    """For each filter, rows on and next to its constants (in and out of its names), each with
    the other filters true (AND) or false (OR), so that the row's fate hangs on that filter
    alone; then a passing row repeated (a DISTINCT would merge the two)."""
    for i, cond in enumerate(query.conds):
        for edge in cond.edges(db.rng):
            values = {cond.column: edge}
            for j, other in enumerate(query.conds):
                if j != i:
                    values[other.column] = other.pick(db.rng, query.connector == "AND")
            db.employee(values)
    passing = [i for i, row in enumerate(db.rows) if db.passes(query, row)]
    if passing:
        db.repeat(_pick(db.rng, passing))


def _odd_pair(cond: Cond, column: str, rng: np.random.Generator) -> tuple[int, int]:
    """Two values of ``column`` passing ``cond`` (when it is on that column) with an odd sum: their
    average ends in .5, so rounding, truncation and the exact average all differ."""
    if column != cond.column:
        low, high = NUMERIC[column]
        v = int(rng.integers(low, high - 20))
        return v, v + 2 * int(rng.integers(0, 10)) + 1
    v = int(cond.pick(rng, True))
    return (v, v + 1) if cond.holds(v + 1) else (v, v - 1)


def _round_up_average(db: _Database, rows: list[int], column: str) -> None:
    """Nudge the last row so the average of ``column`` has a fraction of at least .5."""
    index = 3 if column == "salary" else 4
    n = len(rows)
    remainder = sum(db.rows[r][index] for r in rows) % n
    if n > 1 and 2 * remainder < n:
        db.rows[rows[-1]][index] += (n + 1) // 2 - remainder


def _plant_groups(db: _Database, query: Query) -> None:
    """Tier 3: each filter edge alone in a department (the group exists only if it passes) and
    beside a passing row (its group's values change only if it passes); a group of four passing
    rows with 2 names, 3 ages and 4 salaries, and failing rows with extreme values beside them;
    a pair whose averages end in .5; a department whose rows all fail."""
    cond, rng = query.conds[0], db.rng
    for edge in cond.edges(rng):
        db.employee({"dept": db.new_department(), cond.column: edge})
        # and beside a passing row: the edge row changes the group's count and aggregates
        dept = db.new_department()
        db.employee({"dept": dept, **_passing(cond, rng)})
        db.employee({"dept": dept, cond.column: edge})
    rich = db.new_department()
    first = [db.employee({"dept": rich, **_passing(cond, rng)}) for _ in range(4)]
    # 2 names, 3 ages, 4 salaries: COUNT(DISTINCT x) tells the columns and COUNT(*) apart
    db.same_name(first[0], first[1])
    db.same_name(first[0], first[3])
    db.rows[first[2]][4] = db.rows[first[0]][4]
    for column in ("salary", "age"):
        if column != cond.column:
            index = 3 if column == "salary" else 4
            values = [db.rows[r][index] for r in first]
            db.employee({"dept": rich, **_passing(cond, rng, False), column: max(values) + 7})
            db.employee({"dept": rich, **_passing(cond, rng, False), column: min(values) - 7})
    pair = db.new_department()
    salaries, ages = _odd_pair(cond, "salary", rng), _odd_pair(cond, "age", rng)
    for s, a in zip(salaries, ages, strict=True):
        db.add(pair, s, a)
    failing = db.new_department()
    for _ in range(2):
        db.employee({"dept": failing, **_passing(cond, rng, False)})


def _sized_group(db: _Database, size: int, extra: dict[str, Any] | None = None) -> list[int]:
    dept = db.new_department()
    rows = [db.employee({"dept": dept, **(extra or {})}) for _ in range(size)]
    if size > 1:
        db.same_name(rows[0], rows[1])  # counting names is not counting rows
    return rows


def _aggregate_rows(fn: str, column: str, target: int, rng: np.random.Generator) -> list[int]:
    """Values of ``column`` whose aggregate ``fn`` is exactly ``target`` (several rows)."""
    unit = UNIT[column]
    if fn == "max":
        return [target] + [target - j * unit - int(rng.integers(0, unit)) for j in (1, 2)]
    if fn == "min":
        return [target] + [target + j * unit + int(rng.integers(0, unit)) for j in (1, 2)]
    if fn == "sum":
        n = int(rng.integers(2, 4))
        parts = [target // n] * n
        parts[-1] += target - sum(parts)
        for i in range(n - 1):
            shift = int(rng.integers(-(target // (4 * n)), target // (4 * n) + 1))
            parts[i] += shift
            parts[-1] -= shift
        return parts
    return [target - 1, target + 1]  # avg


def _plant_having(db: _Database, query: Query) -> None:
    """Tier 4: groups on and next to the HAVING bound (sizes, distinct counts, aggregate values,
    filtered counts), repeated names, and averages ending in .5."""
    rng, bound = db.rng, query.having
    assert bound is not None
    column = "salary" if "salary" in bound.column else "age"
    if query.kind == "having_count":
        fn, agg_column = query.aggregates[0]
        for size in (1, bound.value - 1, bound.value, bound.value + 1):
            rows = _sized_group(db, size)
            if fn == "avg":
                _round_up_average(db, rows, agg_column)
    elif query.kind == "having_distinct":
        index = 3 if column == "salary" else 4
        for distinct in (bound.value - 1, bound.value, bound.value + 1):
            rows = _sized_group(db, distinct + 1)
            values = [int(v) for v in rng.choice(np.arange(*NUMERIC[column]), size=distinct, replace=False)]
            for r, v in zip(rows, values + [values[0]], strict=True):
                db.rows[r][index] = v  # one value twice: COUNT(*) is one more than COUNT(DISTINCT)
    elif query.kind == "where_having":
        cond = query.conds[0]
        for size in (bound.value - 1, bound.value, bound.value + 1):
            rows = _sized_group(db, size, _passing(cond, rng))
            for r in rows:
                db.rows[r][3 if cond.column == "salary" else 4] = cond.pick(rng, True)
            db.employee({"dept": db.rows[rows[0]][2], **_passing(cond, rng, False)})
        base = next(b for b in (bound.value - 1, bound.value) if bound.holds(b) != bound.holds(b + 1))
        for edge in cond.edges(rng):  # the edge row decides whether its group passes the bound
            rows = [db.employee({"dept": db.new_department(), **_passing(cond, rng)})]
            rows += [
                db.employee({"dept": db.rows[rows[0]][2], **_passing(cond, rng)}) for _ in range(base - 1)
            ]
            db.employee({"dept": db.rows[rows[0]][2], cond.column: edge})
    else:  # an aggregate against a constant
        fn = bound.column.split("(")[0].lower()
        targets = [bound.value + d for d in (-1, 0, 1)]
        groups = [_aggregate_rows(fn, column, target, rng) for target in targets]
        if fn == "avg":  # averages half a unit either side of the bound
            groups += [[bound.value - 1, bound.value], [bound.value, bound.value + 1]]
        for values in groups:
            dept = db.new_department()
            rows = [db.employee({"dept": dept, column: v}) for v in values]
            db.same_name(rows[0], rows[1])  # counting names is not counting rows


def _plant_anti_join(db: _Database, query: Query) -> None:
    """Tier 5 LEFT JOIN: a department without employees, each filter edge alone in a department,
    one with failing rows only (a repeated name), one with a passing and a failing row, one with
    passing rows only."""
    cond, rng = query.conds[0], db.rng
    db.new_department()
    for edge in cond.edges(rng):
        db.employee({"dept": db.new_department(), cond.column: edge})
    for pattern in ((False, False), (True, False), (True, True)):
        dept = db.new_department()
        rows = [db.employee({"dept": dept, **_passing(cond, rng, want)}) for want in pattern]
        db.same_name(rows[0], rows[1])


def _rank_targets(query: Query, unit: int, base: int, rng: np.random.Generator) -> list[int]:
    """The aggregate value of each ranked group, best first: strict steps except a tie between
    the k-th and (k+1)-th group (the LIMIT cut), and a margin after the leader."""
    m = query.k + 2
    low_step = 2 if query.aggregates[0][0] == "count" else 3
    steps = [int(rng.integers(low_step, low_step + 2)) for _ in range(m - 1)]
    steps[query.k - 1] = 0
    offsets = [sum(steps[:i]) for i in range(m)]
    if query.descending:
        return [base + (offsets[-1] - o) * unit for o in offsets]
    return [base + o * unit for o in offsets]


def _plant_ranking(db: _Database, query: Query, variant: int) -> None:
    """Tier 6: ranked groups (cities or departments) whose aggregate values are set exactly, with
    a tie at the LIMIT cut and a leader that is not first by name; in each variant one row on
    (or next to) the filter's constant goes to the leader and moves its value if it passes."""
    rng, cond = db.rng, query.conds[0]
    fn, column = query.aggregates[0]
    other = "age" if cond.column == "salary" else "salary"
    column = column or other
    unit = 1 if fn == "count" else UNIT[column]
    if fn == "count":
        base = 0 if query.kind == "rank_left" else 1
    elif fn == "sum":
        base = int(rng.integers(80, 120)) * unit
    else:
        base = int(rng.integers(40, 60)) * unit if column == "salary" else int(rng.integers(25, 35))
    targets = _rank_targets(query, unit, base, rng)
    m = len(targets)
    if query.group == "city":
        names = sorted(str(c) for c in rng.choice(np.array(CITIES + MORE_CITIES), size=m, replace=False))
        groups = [[db.new_department(city=c) for _ in range(2 if i == 0 else 1)] for i, c in enumerate(names)]
    else:
        groups = [[db.new_department()] for _ in range(m)]
        names = [g[0] for g in groups]
        order = sorted(range(m), key=lambda i: names[i])
        groups, names = [groups[i] for i in order], [names[i] for i in order]
    rank = [int(i) for i in rng.permutation(m)]  # rank[r] = the group holding the r-th target
    if rank[0] == 0:  # the leader is not first by name: a query ordered by name alone fails
        rank[0], rank[1] = rank[1], rank[0]
    for r, target in enumerate(targets):
        depts = groups[rank[r]]
        if fn == "count":
            values = [None] * target
        elif fn == "avg":
            values = [target, target + 1] * (2 if r == 0 else 1)  # averages end in .5
        else:
            values = _aggregate_rows(fn, column, target, rng)
        rows = [
            db.employee({"dept": depts[i % len(depts)], **_passing(cond, rng), column: v})
            for i, v in enumerate(values)
        ]
        if len(rows) > 1:
            db.same_name(rows[0], rows[1])
    edges = cond.edges(rng)
    leader = targets[0]
    nudge = {"count": None, "sum": unit, "max": leader + unit, "min": leader - unit,
             "avg": leader + 5 * unit + 3}[fn]  # fmt: skip
    db.employee({"dept": groups[rank[0]][0], cond.column: edges[(variant - 1) % len(edges)], column: nudge})


def hidden_database(
    query: Query, rows: int, rng: np.random.Generator, variant: int = 1
) -> dict[str, list[list[Any]]]:
    """A hidden variant built to expose wrong queries (see the module docstring), filled up to
    ``rows`` employees with background rows that leave the planted groups' results alone."""
    db = _Database(rng)
    tier = next(t for t, kinds in TEMPLATES.items() if query.kind in kinds)
    background: Callable[[], None]
    if tier in (1, 2) or query.kind.startswith("join"):
        _plant_filters(db, query)
        background = lambda: db.employee({})  # noqa: E731
    elif tier == 6:
        _plant_ranking(db, query, variant)
        cond, depts = query.conds[0], list(db.departments)
        background = lambda: db.employee({"dept": _pick(rng, depts), **_passing(cond, rng, False)})  # noqa: E731
    else:
        {3: _plant_groups, 4: _plant_having}.get(tier, _plant_anti_join)(db, query)
        spare = [db.new_department(), db.new_department()]  # the planted groups stay as planted
        background = lambda: db.employee({"dept": _pick(rng, spare)})  # noqa: E731
    while len(db.rows) < rows:
        background()
    return db.tables()


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
    (r"whose (salary|age) is greater than (\d+)", "{} > {}"),
    (r"whose (salary|age) is at least (\d+)", "{} >= {}"),
    (r"whose (salary|age) is less than (\d+)", "{} < {}"),
    (r"whose (salary|age) is at most (\d+)", "{} <= {}"),
    (r"whose (salary|age) is between (\d+) and (\d+)", "{} BETWEEN {} AND {}"),
    (r"who works in department '(\w+)'", "dept = '{}'"),
    (r"who does not work in department '(\w+)'", "dept <> '{}'"),
    (r"who works in one of the departments ('\w+'(?:, '\w+')*)", "dept IN ({})"),
    (r"who works in none of the departments ('\w+'(?:, '\w+')*)", "dept NOT IN ({})"),
)
_WEAK_COLUMNS = (("id", "id"), ("name", "name"), ("age", "age"), ("department", "dept"), ("salary", "salary"))


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
        template.format(*m.groups())
        for pattern, template in _WEAK_FILTERS
        for m in re.finditer(pattern, request)
    ]
    if not names:
        return None, len(conditions)
    connector = " OR " if "(either or both)" in request else " AND "
    where = f" WHERE {connector.join(conditions)}" if conditions else ""
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
    version=3,
)
class SqlSynthesis(Family):
    def generate(self, knobs: SqlSynthesisKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(500):
            query = draw_query(knobs.tier, rng)
            sql = query.sql
            dbs = [draw_database(rng, knobs.rows)]
            dbs += [hidden_database(query, knobs.rows, rng, v + 1) for v in range(knobs.variants)]
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
                "template": query.kind,
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
            sql.replace(" LEFT JOIN ", " JOIN ")
            if " LEFT JOIN " in sql
            else sql.replace(" JOIN ", " LEFT JOIN "),
        ]
        out = []
        for c in candidates:
            rows = [run_query(db, c) for db in task.metadata["databases"]]
            if any(isinstance(r, str) or not same_result(r, w, task.metadata["ordered"])
                   for r, w in zip(rows, task.metadata["expected"], strict=True)):  # fmt: skip
                out.append(f"<answer>{c}</answer>")
        return list(dict.fromkeys(out))
