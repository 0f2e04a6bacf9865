"""Mutation benchmark: the fraction of wrong solutions that the code/SQL verifiers refuse.

For every code family and a fixed seed range per level, the reference solution of each task is
mutated (operator swaps, comparison boundary flips, constants off by one, dropped statements,
conditions and clauses, swapped arguments and statements; for SQL: dropped WHERE terms, ``>=``
for ``>``, AND/OR swaps, dropped or added DISTINCT/ORDER BY/LIMIT/HAVING, swapped aggregates
and columns; for answer-valued families: the answer value mutated the same way). An
independent differential test decides which mutants behave differently from the reference:
hundreds of random and boundary inputs or databases drawn here (never the verifier's own hidden
tests), with constants planted from both programs, or the exhaustive domain where the task
defines one. Every mutant is then submitted to the family's verifier. The kill rate is the
fraction of differing mutants the verifier refuses (target: 100%); mutants with no behavioural
difference found are reported apart as equivalent (and an equivalent mutant the verifier
refuses is counted too: a false negative, or a difference the differential test missed).

    python benchmarks/mutation.py                                    # every family, levels 1..10
    python benchmarks/mutation.py --families sql_synthesis --seeds 5 --no-write

Mutants run in this process (they are mutants of our own generated programs, never model text);
the verifier runs them as it runs any response (the sandbox for the program-writing families).
Results: ``benchmarks/results/mutation.json``. ``tests/generators/test_code_mutation.py`` runs
the same machinery on a small sample and fails when a family's kill rate drops below 100%.
"""

from __future__ import annotations

import argparse
import ast
import copy
import itertools
import json
import re
import signal
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import palaestra
from palaestra.core import Task

OUT = Path(__file__).resolve().parent / "results" / "mutation.json"
LEVELS = tuple(range(1, 11))
# seeds per level: fewer where a task has hundreds of mutants or a slow hidden suite
SEEDS = {
    "algorithmic_coding": 4,
    "bug_repair": 10,
    "function_induction": 10,
    "input_inversion": 10,
    "isa_trace": 10,
    "output_prediction": 10,
    "regex_synthesis": 10,
    "sql_synthesis": 20,
    "type_inference": 10,
}
FAMILIES = tuple(SEEDS)  # program_equivalence (a verdict with a certificate) is measured elsewhere
MUTANT_BUDGET_S = 6.0  # CPU seconds of one mutant on the whole differential input set


@dataclass(frozen=True)
class Mutant:
    """A mutated solution: ``operator`` names the mutation, ``response`` is what is submitted."""

    operator: str
    solution: Any
    response: str


# ============================================================== Python programs (AST mutants)

_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
_NON_COMMUTATIVE = (ast.Sub, ast.FloorDiv, ast.Mod)
_COMPARE_FLIPS: dict[type, tuple[type, ...]] = {
    ast.Lt: (ast.LtE, ast.GtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.Gt, ast.GtE),
    ast.Gt: (ast.GtE, ast.LtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.Lt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}

Site = tuple[ast.AST, ast.AST | None, str | None, int | None]


def _sites(
    node: ast.AST, parent: ast.AST | None = None, name: str | None = None, index: int | None = None
) -> Iterator[Site]:
    """Every node with where it hangs (parent, field, list index), depth first, deterministic."""
    yield node, parent, name, index
    for field_name, value in ast.iter_fields(node):
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield from _sites(item, node, field_name, i)
        elif isinstance(value, ast.AST):
            yield from _sites(value, node, field_name, None)


def _put(parent: Any, name: str, index: int | None, new: Any) -> None:
    if index is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[index] = new


def _off_by_one(expr: ast.expr, delta: int) -> ast.expr:
    op = ast.Add() if delta > 0 else ast.Sub()
    return ast.BinOp(left=expr, op=op, right=ast.Constant(1))


def _is_docstring(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _variants(site: Site) -> list[tuple[str, Callable[[], None]]]:
    """The mutations applicable at ``site``: (operator name, a function applying it in place)."""
    node, parent, name, index = site
    out: list[tuple[str, Callable[[], None]]] = []
    put = lambda new: _put(parent, name, index, new)  # noqa: E731

    def setter(obj: Any, attr: str, value: Any) -> Callable[[], None]:
        return lambda: setattr(obj, attr, value)

    if isinstance(node, ast.Constant) and type(node.value) is int:
        out += [
            ("constant+1", setter(node, "value", node.value + 1)),
            ("constant-1", setter(node, "value", node.value - 1)),
        ]
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        out.append(("boolean flipped", setter(node, "value", not node.value)))
    elif isinstance(node, ast.BinOp) and isinstance(node.op, _ARITH):
        out += [
            (f"operator {type(node.op).__name__}->{op.__name__}", setter(node, "op", op()))
            for op in _ARITH
            if not isinstance(node.op, op)
        ]
        if isinstance(node.op, _NON_COMMUTATIVE):
            out.append(
                (
                    "swapped operands",
                    lambda: (setattr(node, "left", node.right), setattr(node, "right", node.left)),
                )
            )
    elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE_FLIPS:
        for op in _COMPARE_FLIPS[type(node.ops[0])]:
            out.append(
                (f"comparison {type(node.ops[0]).__name__}->{op.__name__}", setter(node, "ops", [op()]))
            )
    elif isinstance(node, ast.BoolOp):
        out.append(
            ("and/or swapped", setter(node, "op", ast.Or() if isinstance(node.op, ast.And) else ast.And()))
        )
        for k in range(len(node.values)):
            rest = node.values[:k] + node.values[k + 1 :]
            out.append(
                (
                    "dropped condition",
                    (lambda r=rest: put(r[0] if len(r) == 1 else ast.BoolOp(op=node.op, values=r))),
                )
            )
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
        out.append(("dropped unary operator", lambda: put(node.operand)))
    elif isinstance(node, ast.Call):
        out += _call_variants(node, put)
    elif isinstance(node, ast.Slice):
        for bound in ("lower", "upper", "step"):
            value = getattr(node, bound)
            if value is not None:
                out.append((f"dropped slice {bound}", setter(node, bound, None)))
                if not isinstance(value, ast.Constant):
                    out += [
                        (f"slice {bound} off by one", setter(node, bound, _off_by_one(value, d)))
                        for d in (1, -1)
                    ]
    elif isinstance(node, ast.comprehension):
        for k in range(len(node.ifs)):
            out.append(("dropped filter", setter(node, "ifs", node.ifs[:k] + node.ifs[k + 1 :])))
    elif isinstance(node, ast.IfExp):
        out += [
            ("conditional: always then", lambda: put(node.body)),
            ("conditional: always else", lambda: put(node.orelse)),
        ]
    elif isinstance(node, ast.Tuple) and isinstance(node.ctx, ast.Load) and len(node.elts) >= 2:
        for k in range(len(node.elts) - 1):
            swapped = list(node.elts)
            swapped[k], swapped[k + 1] = swapped[k + 1], swapped[k]
            out.append(("swapped tuple items", setter(node, "elts", swapped)))
    if isinstance(node, ast.stmt) and index is not None and name in ("body", "orelse"):
        out += _statement_variants(node, parent, name, index)
    return out


def _call_variants(node: ast.Call, put: Callable[[ast.AST], None]) -> list[tuple[str, Callable[[], None]]]:
    out: list[tuple[str, Callable[[], None]]] = []
    func = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
    if func in ("min", "max"):
        out.append(("min/max swapped", lambda: setattr(node.func, "id", "max" if func == "min" else "min")))
    if func == "abs" and len(node.args) == 1:
        out.append(("dropped abs", lambda: put(node.args[0])))
    if func in ("sorted", "sort"):
        names = [k.arg for k in node.keywords]
        for k, keyword in enumerate(node.keywords):
            out.append(
                (
                    f"dropped {keyword.arg}=",
                    lambda k=k: setattr(node, "keywords", node.keywords[:k] + node.keywords[k + 1 :]),
                )
            )
        if "reverse" not in names:
            out.append(
                (
                    "added reverse=True",
                    lambda: node.keywords.append(ast.keyword(arg="reverse", value=ast.Constant(True))),
                )
            )
    if func == "range":
        for k, arg in enumerate(node.args):
            if not isinstance(arg, ast.Constant):
                for d in (1, -1):
                    out.append(
                        (
                            "range bound off by one",
                            lambda k=k, d=d, a=arg: node.args.__setitem__(k, _off_by_one(a, d)),
                        )
                    )
    if len(node.args) >= 2 and func not in ("min", "max", "range"):
        out.append(
            ("swapped arguments", lambda: node.args.__setitem__(slice(0, 2), [node.args[1], node.args[0]]))
        )
    return out


def _statement_variants(
    node: ast.stmt, parent: Any, name: str, index: int
) -> list[tuple[str, Callable[[], None]]]:
    body = getattr(parent, name)
    if isinstance(node, (ast.FunctionDef, ast.Return)) or _is_docstring(node):
        return []
    out: list[tuple[str, Callable[[], None]]] = [
        ("dropped statement", lambda: body.__setitem__(index, ast.Pass()))
    ]
    if isinstance(node, ast.If):
        out.append(("dropped if condition", lambda: body.__setitem__(slice(index, index + 1), node.body)))
        if node.orelse:
            out.append(("dropped else", lambda: setattr(node, "orelse", [])))
    following = body[index + 1] if index + 1 < len(body) else None
    if following is not None and not isinstance(following, (ast.FunctionDef, ast.Return)):
        out.append(
            ("swapped statements", lambda: body.__setitem__(slice(index, index + 2), [following, node]))
        )
    return out


def python_mutants(source: str) -> list[tuple[str, str]]:
    """Every distinct (operator, source) mutant of ``source`` that still compiles."""
    reference = ast.unparse(ast.parse(source))
    plan = [
        (i, j, op)
        for i, site in enumerate(_sites(ast.parse(source)))
        for j, (op, _) in enumerate(_variants(site))
    ]
    out: dict[str, str] = {}
    for i, j, op in plan:
        tree = ast.parse(source)
        site = next(itertools.islice(_sites(tree), i, None))
        _variants(site)[j][1]()
        try:
            text = ast.unparse(ast.fix_missing_locations(tree))
            compile(text, "<mutant>", "exec")
        except (SyntaxError, ValueError, TypeError, AttributeError):
            continue
        if text != reference and text not in out:
            out[text] = op
    return [(op, text) for text, op in out.items()]


class _OutOfTime(Exception):
    pass


def _alarm(_signum: int, _frame: Any) -> None:
    raise _OutOfTime


def run_python(source: str, function: str, inputs: list[Any], budget_s: float = MUTANT_BUDGET_S) -> list[str]:
    """``repr`` of ``function``'s result (or the exception it raised) on each input, run in this
    process under a CPU-time budget (a loaded machine must not turn a slow run into a behavioural
    difference); a program out of time gets "timeout" for the rest."""
    namespace: dict[str, Any] = {}
    results: list[str] = []
    previous = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, budget_s)
    try:
        exec(compile(source, "<mutant>", "exec"), namespace)  # noqa: S102 - mutants of our own programs
        call = namespace[function]
        for value in inputs:
            try:
                results.append(repr(call(copy.deepcopy(value))))
            except _OutOfTime:
                raise
            except BaseException as exc:  # noqa: BLE001 - any failure is behaviour to compare
                results.append(f"raised {type(exc).__name__}")
    except _OutOfTime:
        results += ["timeout"] * (len(inputs) - len(results))
    except BaseException as exc:  # noqa: BLE001 - a mutant that fails to define its function
        results = [f"raised {type(exc).__name__}"] * len(inputs)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    return results


def _int_constants(*sources: str) -> set[int]:
    found: set[int] = {0}
    for source in sources:
        found |= {int(t) for t in re.findall(r"\d+", source)}
    return found


def list_inputs(sources: list[str], spread: int, rng: np.random.Generator) -> list[list[int]]:
    """The differential input set of the list-function families: edge cases, values on and next
    to every integer constant of the programs (both signs), random lists over a wide range, and
    dense runs of consecutive values (so values after maps still cross every threshold)."""
    near = sorted({s * c + d for c in _int_constants(*sources) for s in (1, -1) for d in range(-3, 4)})
    wide = 4 * spread + 10
    out: list[list[int]] = [[], *([v] for v in near), *([v, v] for v in near[::2])]
    out += [[v, v, v, -v] for v in near[::3]]
    for _ in range(300):
        out.append([int(v) for v in rng.integers(-wide, wide + 1, size=int(rng.integers(0, 16)))])
    for _ in range(300):
        out.append([int(near[int(i)]) for i in rng.integers(len(near), size=int(rng.integers(1, 14)))])
    for _ in range(150):
        pool = near + [int(v) for v in rng.integers(-wide, wide + 1, size=8)]
        out.append([int(pool[int(i)]) for i in rng.integers(len(pool), size=int(rng.integers(2, 30)))])
    run = list(range(-wide, wide + 1))
    out += [run, run[::-1], [int(v) for v in rng.permutation(run)]]
    return out


class ProgramFamily:
    """A family whose answer is a program: mutants of the reference program, differential test
    by running reference and mutant on the same inputs in this process."""

    function = "f"

    def reference(self, task: Task) -> str:
        return task.answer

    def inputs(self, task: Task, mutants: list[str], rng: np.random.Generator) -> list[Any]:
        raise NotImplementedError

    def normalise(self, outputs: list[str]) -> list[str]:
        return outputs

    def mutants(self, task: Task) -> list[Mutant]:
        return [
            Mutant(op, text, f"<answer>\n{text}\n</answer>")
            for op, text in python_mutants(self.reference(task))
        ]

    def differing(self, task: Task, mutants: list[Mutant], rng: np.random.Generator) -> list[bool]:
        reference = self.reference(task)
        inputs = self.inputs(task, [reference] + [m.solution for m in mutants], rng)
        want = self.normalise(run_python(reference, self.function, inputs))
        return [self.normalise(run_python(m.solution, self.function, inputs)) != want for m in mutants]


class ListFunctionFamily(ProgramFamily):
    """function_induction and bug_repair: ``f(xs)`` over lists of integers."""

    def __init__(self, spread: Callable[[Task], int]) -> None:
        self.spread = spread

    def inputs(self, task: Task, sources: list[str], rng: np.random.Generator) -> list[Any]:
        return list_inputs(sources, self.spread(task), rng)


# ------------------------------------------------------------ algorithmic_coding's own inputs


def _algorithmic_inputs(kind: str, rng: np.random.Generator, count: int) -> list[str]:
    """Small valid inputs of each problem kind, drawn independently of the family's suites."""
    ints = lambda lo, hi, n: [int(v) for v in rng.integers(lo, hi + 1, size=n)]  # noqa: E731
    out: list[str] = []
    for k in range(count):
        n = int(rng.integers(0, 9)) if k % 4 else int(rng.integers(0, 3))
        if kind == "sort_pairs":
            spread = int(rng.choice([1, 3, 50]))
            pairs = list(zip(ints(-spread, spread, n), ints(-spread, spread, n), strict=True))
            out.append(f"{n}\n" + "".join(f"{a} {b}\n" for a, b in pairs))
        elif kind == "interval_scheduling":
            span = int(rng.choice([3, 10, 40]))
            starts = ints(-span, span, n)
            spans = [(s, s + int(rng.integers(1, span + 1))) for s in starts]
            out.append(f"{n}\n" + "".join(f"{a} {b}\n" for a, b in spans))
        elif kind == "shortest_path":
            nodes = int(rng.integers(1, 7))
            m = int(rng.integers(0, 12))
            edges = list(
                zip(
                    ints(0, nodes - 1, m),
                    ints(0, nodes - 1, m),
                    ints(0, int(rng.choice([0, 2, 9, 50])), m),
                    strict=True,
                )
            )
            out.append(f"{nodes} {m}\n" + "".join(f"{u} {v} {w}\n" for u, v, w in edges))
        elif kind == "edit_distance":
            letters = int(rng.integers(1, 4))
            a, b = (
                "".join(chr(97 + c) for c in rng.integers(0, letters, size=int(rng.integers(0, 8))))
                for _ in "ab"
            )
            out.append(f"{a}\n{b}")
        else:
            parts = sorted({int(v) for v in rng.integers(1, 8, size=int(rng.integers(1, 5)))})
            total, p = int(rng.integers(0, 25)), int(rng.choice([1, 2, 7, 1000, 10007]))
            out.append(f"{total} {p} {len(parts)}\n" + " ".join(map(str, parts)) + "\n")
    return out


class AlgorithmicFamily(ProgramFamily):
    function = "solve"

    def inputs(self, task: Task, sources: list[str], rng: np.random.Generator) -> list[Any]:
        return _algorithmic_inputs(task.metadata["kind"], rng, 400)

    def normalise(self, outputs: list[str]) -> list[str]:
        # the statement ignores trailing whitespace: compare the text with lines right-stripped
        out = []
        for text in outputs:
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                out.append(text)
                continue
            out.append(
                "\n".join(line.rstrip() for line in value.strip().split("\n"))
                if isinstance(value, str)
                else text
            )
        return out


# ============================================================== SQL

_SQL_TOKEN = re.compile(r"'[^']*'|\d+|>=|<=|<>|!=|[=<>]|[A-Za-z_][\w.]*|\S")
_CLAUSE_END = r"(?= GROUP BY| HAVING| ORDER BY| LIMIT|$)"


def sql_mutants(sql: str, depts: tuple[str, ...], cities: tuple[str, ...]) -> list[tuple[str, str]]:
    """Distinct (operator, query) mutants of a reference query."""
    out: dict[str, str] = {}

    def add(op: str, text: str) -> None:
        if text != sql and text not in out:
            out[text] = op

    tokens = [(m.start(), m.end(), m.group()) for m in _SQL_TOKEN.finditer(sql)]
    flips = {
        ">": (">=", "<"),
        ">=": (">", "<="),
        "<": ("<=", ">"),
        "<=": ("<", ">="),
        "=": ("<>",),
        "<>": ("=",),
    }
    for start, end, token in tokens:
        swap = lambda new, s=start, e=end: sql[:s] + new + sql[e:]  # noqa: E731
        if token in flips:
            for new in flips[token]:
                add(f"comparison {token}->{new}", swap(new))
        elif token.isdigit():
            for delta in (1, -1, 100, -100):
                if int(token) + delta >= 0:
                    add(
                        "constant off by one" if abs(delta) == 1 else "constant off by 100",
                        swap(str(int(token) + delta)),
                    )
        elif token.upper() in ("AND", "OR"):
            add("and/or swapped", swap("OR" if token.upper() == "AND" else "AND"))
        elif token.upper() in ("MAX", "MIN"):
            add("aggregate swapped", swap("MIN" if token.upper() == "MAX" else "MAX"))
        elif token.upper() == "SUM":
            add("aggregate swapped", swap("MAX"))
            add("aggregate swapped", swap("AVG"))
        elif token.upper() == "AVG":
            add("aggregate swapped", swap("SUM"))
            add("aggregate swapped", swap("MAX"))
        elif token.upper() == "COUNT":
            add("aggregate swapped", swap("SUM"))
        elif token.upper() in ("ASC", "DESC"):
            add("order direction flipped", swap("DESC" if token.upper() == "ASC" else "ASC"))
        elif token.startswith("'"):
            pool = depts if token[1:-1] in depts else cities
            other = pool[(pool.index(token[1:-1]) + 1) % len(pool)] if token[1:-1] in pool else None
            if other:
                add("string constant changed", swap(f"'{other}'"))
        elif re.fullmatch(r"(e\.)?(salary|age)", token):
            prefix = "e." if token.startswith("e.") else ""
            add("column swapped", swap(prefix + ("age" if token.endswith("salary") else "salary")))
    where = re.search(r" WHERE (.*?)" + _CLAUSE_END, sql)
    if where:
        terms = where.group(1).split(" AND ")
        for k in range(len(terms)):
            rest = terms[:k] + terms[k + 1 :]
            replacement = f" WHERE {' AND '.join(rest)}" if rest else ""
            add("dropped WHERE term", sql[: where.start()] + replacement + sql[where.end() :])
    for clause in ("HAVING", "ORDER BY", "LIMIT", "GROUP BY"):
        found = re.search(f" {clause} .*?" + _CLAUSE_END, sql)
        if found:
            add(f"dropped {clause}", sql[: found.start()] + sql[found.end() :])
    order = re.search(r" ORDER BY (.*?)(?= LIMIT|$)", sql)
    if order and "," in order.group(1):
        keys = [k.strip() for k in order.group(1).split(",")]
        for k in range(len(keys)):
            rest = ", ".join(keys[:k] + keys[k + 1 :])
            add("dropped ORDER BY key", sql[: order.start(1)] + rest + sql[order.end(1) :])
    add("added DISTINCT", re.sub(r"^SELECT ", "SELECT DISTINCT ", sql))
    add(
        "COUNT(*) counts distinct names",
        sql.replace("COUNT(*)", "COUNT(DISTINCT e.name)" if " e " in sql else "COUNT(DISTINCT name)"),
    )
    if " LEFT JOIN " in sql:
        add("JOIN for LEFT JOIN", sql.replace(" LEFT JOIN ", " JOIN "))
        add("COUNT(*) for COUNT(column)", re.sub(r"COUNT\(e\.\w+\)", "COUNT(*)", sql))
        on = re.search(r" ON (\S+ = \S+) AND (.*?)(?= WHERE | GROUP BY |$)", sql)
        if on:  # the right table's condition moved from ON to WHERE
            tail = sql[on.end() :]
            if tail.startswith(" WHERE "):
                tail = f" WHERE {on.group(2)} AND {tail[len(' WHERE ') :]}"
            else:
                tail = f" WHERE {on.group(2)}{tail}"
            add("ON term moved to WHERE", f"{sql[: on.start()]} ON {on.group(1)}{tail}")
    else:
        add("LEFT JOIN for JOIN", sql.replace(" JOIN ", " LEFT JOIN "))
    add("IS NULL negated", sql.replace(" IS NULL", " IS NOT NULL"))
    add("ROUND dropped", re.sub(r"ROUND\((AVG\([^)]*\))\)", r"\1", sql))
    add("CAST for ROUND", re.sub(r"ROUND\((AVG\([^)]*\))\)", r"CAST(\1 AS INTEGER)", sql))
    add("DISTINCT dropped", sql.replace("COUNT(DISTINCT ", "COUNT("))
    add(
        "IN negated",
        re.sub(r" NOT IN \(| IN \(", lambda m: " IN (" if "NOT" in m.group() else " NOT IN (", sql),
    )
    add("BETWEEN negated", sql.replace(" BETWEEN ", " NOT BETWEEN "))
    for listed in re.finditer(r"\((\'[^)]*)\)", sql):
        items = listed.group(1).split(", ")
        for k in range(len(items)):
            if len(items) > 1:
                rest = ", ".join(items[:k] + items[k + 1 :])
                add("IN list item dropped", sql[: listed.start(1)] + rest + sql[listed.end(1) :])
    return [(op, text) for text, op in out.items()]


def random_database(
    rng: np.random.Generator,
    constants: list[int],
    depts: tuple[str, ...],
    cities: tuple[str, ...],
    names: tuple[str, ...],
) -> dict[str, list[list[Any]]]:
    """A database meeting the prompt's promises (no NULLs, every employee's department exists),
    drawn here: any number of departments and employees (none included), cities shared by
    several departments, repeated names, salaries/ages/budgets on, next to and far from every
    constant of the queries, and sometimes one department's staff copied into another (ties)."""
    chosen = sorted(rng.choice(len(depts), size=int(rng.integers(1, len(depts) + 1)), replace=False))
    departments = [[depts[int(i)], cities[int(rng.integers(len(cities)))], 0] for i in chosen]
    people: list[str] = []
    employees = []

    def value(lo: int, hi: int) -> int:
        if constants and rng.random() < 0.6:
            c = constants[int(rng.integers(len(constants)))]
            return int(c + rng.choice([-100, -2, -1, -1, 0, 0, 0, 1, 1, 2, 100]))
        return int(rng.integers(lo, hi + 1))

    for i in range(int(rng.choice([0, 1, 3, 8, 15, 30]))):
        if employees and rng.random() < 0.15:  # the same person twice (another id)
            employees.append([i + 1, *employees[int(rng.integers(len(employees)))][1:]])
            continue
        if people and rng.random() < 0.25:
            name = people[int(rng.integers(len(people)))]
        else:
            name = names[int(rng.integers(len(names)))] + str(int(rng.integers(10, 99)))
        people.append(name)
        dept = departments[int(rng.integers(len(departments)))][0]
        employees.append([i + 1, name, dept, value(0, 15000), value(16, 80)])
    for department in departments:
        department[2] = value(0, 10000)
    if len(departments) > 1 and rng.random() < 0.3:  # a department's staff copied into another: ties
        source, target = (departments[int(i)][0] for i in rng.choice(len(departments), 2, replace=False))
        copies = [
            [0, name, target, salary, age] for _, name, dept, salary, age in employees if dept == source
        ]
        employees = [[i + 1, *row[1:]] for i, row in enumerate(employees + copies)]
    return {"departments": departments, "employees": employees}


class SqlFamily:
    def __init__(self) -> None:
        from palaestra.generators.code import sql_synthesis

        self.module = sql_synthesis

    def mutants(self, task: Task) -> list[Mutant]:
        m = self.module
        return [
            Mutant(op, text, f"<answer>{text}</answer>")
            for op, text in sql_mutants(task.answer, m.DEPTS, m.CITIES)
        ]

    def differing(self, task: Task, mutants: list[Mutant], rng: np.random.Generator) -> list[bool]:
        m = self.module
        queries = [task.answer] + [mu.solution for mu in mutants]
        constants = sorted(_int_constants(*queries) - {0})
        # the prompt's departments and cities, and a few more (enough groups for any LIMIT)
        depts, cities = m.DEPTS + m.MORE_DEPTS[:5], m.CITIES + m.MORE_CITIES[:4]
        dbs = [random_database(rng, constants, depts, cities, m.NAMES) for _ in range(300)]
        results: list[list[Any]] = [[] for _ in queries]
        for db in dbs:
            conn = sqlite3.connect(":memory:")
            conn.executescript(m.SCHEMA)
            conn.executemany("INSERT INTO departments VALUES (?, ?, ?)", db["departments"])
            conn.executemany("INSERT INTO employees VALUES (?, ?, ?, ?, ?)", db["employees"])
            for k, query in enumerate(queries):
                try:
                    rows = [tuple(r) for r in conn.execute(query).fetchall()]
                    results[k].append(rows if task.metadata["ordered"] else Counter(rows))
                except sqlite3.Error as exc:
                    results[k].append(f"error {exc}")
            conn.close()
        return [results[k] != results[0] for k in range(1, len(queries))]


# ============================================================== answer-valued families


class RegexFamily:
    def mutants(self, task: Task) -> list[Mutant]:
        from palaestra.generators.code.regex_synthesis import parse_regex, render

        alphabet = task.metadata["alphabet"]
        out: dict[str, str] = {}
        base = parse_regex(task.answer, alphabet)
        for op, tree in _regex_variants(base, alphabet):
            text = render(tree, alphabet)
            if text != task.answer:
                out.setdefault(text, op)
        return [Mutant(op, text, f"<answer>{text}</answer>") for text, op in out.items()]

    def differing(self, task: Task, mutants: list[Mutant], rng: np.random.Generator) -> list[bool]:
        # the task defines the domain: every string over the alphabet up to max_len; Python's re
        # (on our own mutant patterns) is the independent matcher
        alphabet, max_len = task.metadata["alphabet"], task.metadata["max_len"]
        strings = ["".join(p) for n in range(max_len + 1) for p in itertools.product(alphabet, repeat=n)]
        want = [re.fullmatch(task.answer, s) is not None for s in strings]
        return [[re.fullmatch(m.solution, s) is not None for s in strings] != want for m in mutants]


def _regex_variants(node: list[Any], alphabet: str) -> Iterator[tuple[str, list[Any]]]:
    """Every one-edit mutant of a regex AST (nested lists), as fresh trees."""
    tag = node[0]
    if tag == "chars":
        for letter in alphabet:
            if node[1] != letter:
                yield "letter/class changed", ["chars", letter]
        if node[1] != alphabet:
            yield "class widened", ["chars", alphabet]
        if len(node[1]) > 1:
            for letter in node[1]:
                yield "class narrowed", ["chars", node[1].replace(letter, "")]
    if tag in ("star", "plus", "opt"):
        yield "dropped quantifier", node[1]
        for other in ("star", "plus", "opt"):
            if other != tag:
                yield "quantifier changed", [other, node[1]]
    elif tag != "eps":
        yield "added ?", ["opt", node]
        yield "added *", ["star", node]
    if tag in ("cat", "alt"):
        yield f"dropped {tag} part", node[1]
        yield f"dropped {tag} part", node[2]
        if tag == "cat":
            yield "swapped concatenation", ["cat", node[2], node[1]]
        else:
            yield "alternation became concatenation", ["cat", node[1], node[2]]
    for k, child in enumerate(node[1:], start=1):
        if isinstance(child, list):
            for op, new in _regex_variants(child, alphabet):
                yield op, node[:k] + [new] + node[k + 1 :]


class OutputFamily:
    """output_prediction: the answer is the printed value; mutants are other Python values
    (integers off by one, bool for int, list for tuple, dropped/swapped/added items, a string,
    a float), and reformatted spellings of the same value (equivalent)."""

    def mutants(self, task: Task) -> list[Mutant]:
        value = ast.literal_eval(task.answer)  # our own repr of the program's result
        texts: dict[str, str] = {}
        for op, new in _value_variants(value):
            texts.setdefault(_render_value(new), op)
        texts.setdefault(task.answer.replace(", ", ","), "spacing (equivalent)")
        texts.setdefault(f"  {task.answer}\n", "surrounding blanks (equivalent)")
        texts.pop(task.answer, None)
        return [Mutant(op, text, f"<answer>{text}</answer>") for text, op in texts.items()]

    def differing(self, task: Task, mutants: list[Mutant], rng: np.random.Generator) -> list[bool]:
        # what print() would show: repr of the value the text denotes (our own texts)
        return [repr(ast.literal_eval(m.solution.strip())) != task.answer for m in mutants]


class _Float(float):
    """A float leaf standing for an integer written as ``3.0``."""


def _render_value(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_render_value(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(_render_value(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_render_value(k)}: {_render_value(v)}" for k, v in value.items()) + "}"
    return repr(float(value)) if isinstance(value, _Float) else repr(value)


def _value_variants(value: Any) -> Iterator[tuple[str, Any]]:
    if type(value) is bool:
        yield "bool as int", int(value)
        yield "bool negated", not value
    elif type(value) is int:
        yield "integer +1", value + 1
        yield "integer -1", value - 1
        yield "integer as float", _Float(value)
        yield "integer as string", str(value)
        if value in (0, 1):
            yield "int as bool", bool(value)
    elif value is None:
        yield "None as 0", 0
    elif isinstance(value, (list, tuple)):
        kind = type(value)
        yield "list/tuple swapped", (tuple if kind is list else list)(value)
        yield "added item", kind([*value, 0])
        if value:
            yield "dropped last item", kind(value[:-1])
        if len(value) >= 2 and value[0] != value[1]:
            yield "swapped items", kind([value[1], value[0], *value[2:]])
        for k, item in enumerate(value):
            for op, new in _value_variants(item):
                yield op, kind([*value[:k], new, *value[k + 1 :]])
    elif isinstance(value, dict):
        items = list(value.items())
        if items:
            yield "dropped entry", dict(items[:-1])
        yield "added entry", {**value, max([k for k in value if type(k) is int] or [0]) + 1: 0}
        for k, (key, item) in enumerate(items):
            for op, new in _value_variants(item):
                yield f"dict value: {op}", dict(items[:k] + [(key, new)] + items[k + 1 :])
            if type(key) is int and key + 1 not in value:
                yield "dict key +1", dict(items[:k] + [(key + 1, item)] + items[k + 1 :])


class IsaFamily:
    def mutants(self, task: Task) -> list[Mutant]:
        from palaestra.generators.code.isa_trace import format_state

        regs, stack = task.metadata["final_registers"], task.metadata["final_stack"]
        states: list[tuple[str, list[int], list[int]]] = []
        for i in range(len(regs)):
            for delta in (1, -1, 256):
                states.append((f"register {delta:+d}", regs[:i] + [regs[i] + delta] + regs[i + 1 :], stack))
        for i, j in itertools.combinations(range(len(regs)), 2):
            swapped = list(regs)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            states.append(("registers swapped", swapped, stack))
        for i in range(len(stack)):
            states.append(("stack entry dropped", regs, stack[:i] + stack[i + 1 :]))
            states.append(("stack entry +1", regs, stack[:i] + [stack[i] + 1] + stack[i + 1 :]))
        states += [("stack entry added", regs, stack + [0]), ("stack reversed", regs, stack[::-1])]
        out = [Mutant(op, (r, s), f"<answer>{format_state(r, s)}</answer>") for op, r, s in states]
        # the same state written differently (equivalent): registers listed backwards
        listing = ", ".join(f"r{i}={v}" for i, v in reversed(list(enumerate(regs))))
        out.append(
            Mutant(
                "registers listed backwards (equivalent)",
                (regs, stack),
                f"<answer>{listing}; stack=[{', '.join(map(str, stack))}]</answer>",
            )
        )
        return out

    def differing(self, task: Task, mutants: list[Mutant], rng: np.random.Generator) -> list[bool]:
        want = (task.metadata["final_registers"], task.metadata["final_stack"])
        return [(list(m.solution[0]), list(m.solution[1])) != want for m in mutants]


class InversionFamily:
    def mutants(self, task: Task) -> list[Mutant]:
        xs = ast.literal_eval(task.answer)
        cands: list[tuple[str, list[int]]] = []
        for i in range(len(xs)):
            cands += [
                ("item +1", xs[:i] + [xs[i] + 1] + xs[i + 1 :]),
                ("item -1", xs[:i] + [xs[i] - 1] + xs[i + 1 :]),
            ]
            cands.append(("item dropped", xs[:i] + xs[i + 1 :]))
            if i + 1 < len(xs):
                cands.append(("items swapped", xs[:i] + [xs[i + 1], xs[i]] + xs[i + 2 :]))
        cands += [
            ("item appended", xs + [xs[-1] if xs else 0]),
            ("item prepended", [0] + xs),
            ("reversed", xs[::-1]),
        ]
        unique = {repr(c): (op, c) for op, c in reversed(cands) if c != xs}
        return [Mutant(op, c, f"<answer>{c!r}</answer>") for op, c in unique.values()]

    def differing(self, task: Task, mutants: list[Mutant], rng: np.random.Generator) -> list[bool]:
        source = task.metadata["source"]
        got = run_python(source, "f", [m.solution for m in mutants])
        return [g != repr(task.metadata["target"]) for g in got]


# ------------------------------------------------------------ types (own parser and matcher)

_TYPE_TOKEN = re.compile(r"\s*(->|\*|\(|\)|'\w+|int|bool)")


def parse_type_text(text: str) -> Any:
    """('fun', a, b) | ('pair', a, b) | ('var', name) | ('con', name); our own small parser."""
    tokens = _TYPE_TOKEN.findall(text)
    pos = 0

    def arrow() -> Any:
        nonlocal pos
        left = product()
        if pos < len(tokens) and tokens[pos] == "->":
            pos += 1
            return ("fun", left, arrow())
        return left

    def product() -> Any:
        nonlocal pos
        left = atom()
        while pos < len(tokens) and tokens[pos] == "*":
            pos += 1
            left = ("pair", left, atom())
        return left

    def atom() -> Any:
        nonlocal pos
        token = tokens[pos]
        pos += 1
        if token == "(":
            inner = arrow()
            pos += 1
            return inner
        return ("var", token) if token.startswith("'") else ("con", token)

    return arrow()


def render_type(t: Any) -> str:
    """Fully parenthesised text (any reader must accept redundant parentheses)."""
    if t[0] in ("var", "con"):
        return t[1]
    return f"({render_type(t[1])} {'->' if t[0] == 'fun' else '*'} {render_type(t[2])})"


def alpha_equal(a: Any, b: Any) -> bool:
    """Equal up to a one-to-one renaming of type variables."""
    forward: dict[str, str] = {}
    backward: dict[str, str] = {}

    def walk(x: Any, y: Any) -> bool:
        if x[0] != y[0]:
            return False
        if x[0] == "var":
            return forward.setdefault(x[1], y[1]) == y[1] and backward.setdefault(y[1], x[1]) == x[1]
        if x[0] == "con":
            return x[1] == y[1]
        return walk(x[1], y[1]) and walk(x[2], y[2])

    return walk(a, b)


def _type_variants(t: Any, names: list[str]) -> Iterator[tuple[str, Any]]:
    tag = t[0]
    if tag == "var":
        yield "variable as int", ("con", "int")
        yield "variable as bool", ("con", "bool")
        yield "variable split off", ("var", "'fresh")
        for other in names:
            if other != t[1]:
                yield "variables merged", ("var", other)
    elif tag == "con":
        yield "base type changed", ("con", "bool" if t[1] == "int" else "int")
        yield "base type generalised", ("var", "'fresh")
    else:
        yield "swapped sides", (tag, t[2], t[1])
        yield "arrow/pair swapped", ("pair" if tag == "fun" else "fun", t[1], t[2])
        if tag == "fun" and t[1][0] == "fun":
            yield "arrows re-associated", ("fun", t[1][1], ("fun", t[1][2], t[2]))
        if tag == "fun" and t[2][0] == "fun":
            yield "arrows re-associated", ("fun", ("fun", t[1], t[2][1]), t[2][2])
        for op, new in _type_variants(t[1], names):
            yield op, (tag, new, t[2])
        for op, new in _type_variants(t[2], names):
            yield op, (tag, t[1], new)


def _rename(t: Any, mapping: dict[str, str]) -> Any:
    if t[0] == "var":
        return ("var", mapping.get(t[1], t[1]))
    if t[0] == "con":
        return t
    return (t[0], _rename(t[1], mapping), _rename(t[2], mapping))


class TypeFamily:
    def mutants(self, task: Task) -> list[Mutant]:
        t = parse_type_text(task.answer)
        names = sorted(set(re.findall(r"'\w+", task.answer)))
        out: dict[str, tuple[str, Any]] = {}
        for op, new in _type_variants(t, names):
            out.setdefault(render_type(new), (op, new))
        renamed = _rename(t, {n: f"'t{k}" for k, n in enumerate(reversed(names))})
        out.setdefault(render_type(renamed), ("variables renamed (equivalent)", renamed))
        return [Mutant(op, new, f"<answer>{text}</answer>") for text, (op, new) in out.items()]

    def differing(self, task: Task, mutants: list[Mutant], rng: np.random.Generator) -> list[bool]:
        want = parse_type_text(task.answer)
        return [not alpha_equal(m.solution, want) for m in mutants]


# ============================================================== the measurement


def _bug_spread(task: Task) -> int:
    from palaestra.generators.code.bug_repair import SPREAD

    return 2 * SPREAD


CASES: dict[str, Any] = {
    "algorithmic_coding": AlgorithmicFamily(),
    "bug_repair": ListFunctionFamily(_bug_spread),
    "function_induction": ListFunctionFamily(lambda task: task.metadata["spread"]),
    "input_inversion": InversionFamily(),
    "isa_trace": IsaFamily(),
    "output_prediction": OutputFamily(),
    "regex_synthesis": RegexFamily(),
    "sql_synthesis": SqlFamily(),
    "type_inference": TypeFamily(),
}


@dataclass
class Tally:
    mutants: int = 0
    differing: int = 0
    killed: int = 0
    equivalent: int = 0
    equivalent_refused: int = 0
    statuses: Counter = field(default_factory=Counter)
    survivors: list[dict[str, Any]] = field(default_factory=list)
    operators: Counter = field(default_factory=Counter)
    equivalent_operators: Counter = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        self.mutants += other.mutants
        self.differing += other.differing
        self.killed += other.killed
        self.equivalent += other.equivalent
        self.equivalent_refused += other.equivalent_refused
        self.statuses.update(other.statuses)
        self.survivors += other.survivors
        self.operators.update(other.operators)
        self.equivalent_operators.update(other.equivalent_operators)

    def row(self, survivors: int = 0) -> dict[str, Any]:
        row: dict[str, Any] = {
            "mutants": self.mutants,
            "differing": self.differing,
            "killed": self.killed,
            "survived": self.differing - self.killed,
            "kill_rate": round(self.killed / self.differing, 4) if self.differing else None,
            "equivalent": self.equivalent,
            "equivalent_refused": self.equivalent_refused,
        }
        if survivors:
            row["verdicts_of_differing"] = dict(sorted(self.statuses.items()))
            row["differing_by_operator"] = dict(sorted(self.operators.items()))
            row["equivalent_by_operator"] = dict(sorted(self.equivalent_operators.items()))
            row["survivor_examples"] = self.survivors[:survivors]
        return row


def _change(reference: str, mutant: str) -> str:
    """The mutant's lines that differ from the reference (its whole text when it is one line)."""
    old = (
        [line.strip() for line in ast.unparse(ast.parse(reference)).split("\n")]
        if "def " in reference
        else []
    )
    if not old:
        return mutant[:300]
    new = [line.strip() for line in mutant.split("\n")]
    changed = [f"{a} => {b}" for a, b in zip(old, new, strict=True) if a != b] if len(old) == len(new) else []
    return (
        "; ".join(changed)[:300]
        or f"{len(old) - len(new)} line(s) fewer: "
        + " | ".join(line for line in old if line not in new)[:300]
    )


def measure_task(family: str, task: Task, mutant_cap: int | None = None) -> Tally:
    """Mutate ``task``'s reference, run the differential test, submit each mutant."""
    case = CASES[family]
    mutants = case.mutants(task)
    if mutant_cap is not None and len(mutants) > mutant_cap:
        pick = np.random.default_rng(task.seed).choice(len(mutants), size=mutant_cap, replace=False)
        mutants = [mutants[int(i)] for i in sorted(pick)]
    differs = case.differing(task, mutants, np.random.default_rng([task.seed, task.difficulty.level or 0, 7]))
    tally = Tally(mutants=len(mutants))
    for mutant, differ in zip(mutants, differs, strict=True):
        verdict = palaestra.verify(task, mutant.response)
        if differ:
            tally.differing += 1
            tally.operators[mutant.operator] += 1
            tally.statuses[verdict.status] += 1
            if verdict.correct:
                tally.survivors.append(
                    {
                        "level": task.difficulty.level,
                        "seed": task.seed,
                        "operator": mutant.operator,
                        "change": _change(task.answer, str(mutant.solution)),
                    }
                )
            else:
                tally.killed += 1
        else:
            tally.equivalent += 1
            tally.equivalent_operators[mutant.operator] += 1
            tally.equivalent_refused += 0 if verdict.correct else 1
    return tally


def measure_family(
    family: str, levels: tuple[int, ...], seeds: int, mutant_cap: int | None = None
) -> dict[str, Any]:
    started, cpu = time.perf_counter(), time.process_time()
    total = Tally()
    per_level = {}
    for level in levels:
        tally = Tally()
        for seed in range(seeds):
            tally.add(measure_task(family, palaestra.make_task(family, seed=seed, level=level), mutant_cap))
        per_level[str(level)] = tally.row()
        total.add(tally)
    return {
        "version": palaestra.get(family).version,
        "seeds_per_level": seeds,
        **total.row(survivors=10),
        "levels": per_level,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--families", nargs="*", default=list(FAMILIES))
    parser.add_argument("--levels", nargs="*", type=int, default=list(LEVELS))
    parser.add_argument("--seeds", type=int, default=None, help="seeds per level (default: per family)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    measured = {}
    for family in args.families:
        row = measure_family(family, tuple(args.levels), args.seeds or SEEDS[family])
        measured[family] = row
        print(
            family,
            {
                k: row[k]
                for k in (
                    "mutants",
                    "differing",
                    "killed",
                    "survived",
                    "kill_rate",
                    "equivalent",
                    "equivalent_refused",
                    "seconds",
                )
            },
            flush=True,
        )
        for example in row.get("survivor_examples", [])[:3]:
            print("   survivor:", example)
    # read the file only now: runs of other families may have written it meanwhile
    results = json.loads(OUT.read_text()) if OUT.exists() else {}
    results.setdefault("families", {}).update(measured)
    rows = results["families"].values()
    differing = sum(r["differing"] for r in rows)
    killed = sum(r["killed"] for r in rows)
    results["overall"] = {
        "differing": differing,
        "killed": killed,
        "kill_rate": round(killed / differing, 4) if differing else None,
    }
    results["levels"] = list(args.levels)
    print("overall", results["overall"])
    if not args.no_write:
        OUT.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
