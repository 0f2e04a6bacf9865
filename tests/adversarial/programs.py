"""Differential judges for program answers (``f(xs)`` functions and SQL queries).

A mutated program is *known wrong* when it behaves differently from the reference on an input
built here: random lists and values planted on and next to every constant of the reference
(Python), or copies of the task's databases with rows moved onto and next to every constant of
the reference query (SQL). The family's hidden tests are not used to decide, so a mutant they
miss still counts as wrong. A mutant that agrees everywhere we look is left undecided (``None``).

Mutants are our own edits of the reference program, not model output; they still run in a child
process with a time and memory limit, since an edited loop bound can run for ever.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
import subprocess
import sys
import tokenize
from collections import Counter
from functools import lru_cache
from typing import Any

import numpy as np

from palaestra.core import Task

_RUNNER = r"""
import json, resource, signal, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
job = json.loads(sys.stdin.read())

def alarm(signum, frame):
    raise TimeoutError()

signal.signal(signal.SIGALRM, alarm)
out = []
for source in job["programs"]:
    results = []
    try:
        namespace = {}
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        exec(compile(source, "<program>", "exec"), namespace)
        signal.setitimer(signal.ITIMER_REAL, 0)
        fn = namespace[job["function"]]
    except BaseException as exc:
        signal.setitimer(signal.ITIMER_REAL, 0)
        out.append("!" + type(exc).__name__)
        continue
    deadline_hit = False
    for arg in job["inputs"]:
        if deadline_hit:
            results.append("!skipped")
            continue
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.2)
            value = fn(list(arg))
            signal.setitimer(signal.ITIMER_REAL, 0)
            results.append(repr(value))
        except TimeoutError:
            deadline_hit = True
            results.append("!TimeoutError")
        except BaseException as exc:
            signal.setitimer(signal.ITIMER_REAL, 0)
            results.append("!" + type(exc).__name__)
    out.append(results)
print(json.dumps(out))
"""


def _constants(source: str) -> list[int]:
    """The integer literals of a Python program (code tokens only, not its docstring)."""
    values = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NUMBER and re.fullmatch(r"\d+", token.string):
            values.append(int(token.string))
    return values


@lru_cache(maxsize=64)
def _list_inputs(reference: str, seed: int) -> tuple[tuple[int, ...], ...]:
    """Random lists plus lists made of values on and next to the reference's constants."""
    rng = np.random.default_rng([seed, 16])
    constants = sorted({c for v in _constants(reference) for c in (v, -v)})
    planted = sorted({c + d for c in constants for d in (-2, -1, 0, 1, 2)})
    spread = max([30, *(2 * abs(c) for c in constants)])
    inputs: list[tuple[int, ...]] = [(), (0,), (1,), (-1,), tuple(planted), tuple(reversed(planted))]
    inputs += [(v,) for v in planted]
    inputs += [(v, v, v) for v in planted[::3]]
    for _ in range(150):
        length = int(rng.integers(0, 12))
        pool = planted if rng.random() < 0.5 and planted else None
        values = rng.choice(pool, size=length) if pool else rng.integers(-spread, spread + 1, size=length)
        inputs.append(tuple(int(v) for v in values))
    return tuple(inputs)


def run_functions(programs: list[str], function: str, inputs: list[Any]) -> list[Any]:
    """Each program's results on every input (``repr`` of the value or ``!ExceptionName``)."""
    job = json.dumps({"programs": programs, "function": function, "inputs": inputs})
    proc = subprocess.run(
        [sys.executable, "-c", _RUNNER], input=job, capture_output=True, text=True, timeout=120, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the differential runner failed: {proc.stderr[-500:]}")
    return json.loads(proc.stdout)


def python_judge(task: Task, text: str) -> bool | None:
    """False when ``text`` (a program defining f(xs)) differs from the reference somewhere."""
    return python_judge_many(task, [text])[0]


def python_judge_many(task: Task, texts: list[str]) -> list[bool | None]:
    reference = str(task.answer)
    if "def f(xs)" not in reference:  # algorithmic_coding's solve(data): no input generator here
        return [None] * len(texts)
    inputs = [list(xs) for xs in _list_inputs(reference, task.seed)]
    results = run_functions([reference, *texts], "f", inputs)
    want = results[0]
    if not isinstance(want, list) or any(str(w).startswith("!") for w in want):
        raise RuntimeError("the reference program failed on our inputs")
    return [None if got == want else False for got in results[1:]]


# --------------------------------------------------------------------------------------------
# SQL
# --------------------------------------------------------------------------------------------


def _schema(task: Task) -> list[str]:
    return re.findall(r"CREATE TABLE [^;]+;", task.prompt)


def _columns(statement: str) -> tuple[str, list[tuple[str, str, bool]]]:
    name, body = re.fullmatch(r"CREATE TABLE (\w+) \((.*)\);", statement).groups()
    columns = []
    for part in body.split(","):
        words = part.split()
        columns.append((words[0], words[1], "PRIMARY" in words))
    return name, columns


def _query_constants(query: str) -> tuple[list[int], list[str]]:
    strings = re.findall(r"'([^']*)'", query)
    bare = re.sub(r"'[^']*'", "", query)
    numbers = [int(n) for n in re.findall(r"(?<![\w.])\d+(?![\w.])", bare)]
    return numbers, strings


def _planted_databases(task: Task) -> list[dict[str, list[list[Any]]]]:
    """The task's databases and copies with values moved onto/next to the query's constants."""
    numbers, strings = _query_constants(str(task.answer))
    tables = dict(_columns(s) for s in _schema(task))
    out = [db for db in task.metadata["databases"]]
    numeric_targets = [n + d for n in numbers for d in (-1, 0, 1)] or [0]
    for k, base in enumerate(task.metadata["databases"]):
        for shift in range(3):
            db: dict[str, list[list[Any]]] = {}
            for table, rows in base.items():
                columns = tables[table]
                new_rows = []
                for i, row in enumerate(rows):
                    row = list(row)
                    for j, (_, kind, primary) in enumerate(columns):
                        if primary or (i + j + shift + k) % 3:
                            continue
                        if kind == "INTEGER":
                            row[j] = numeric_targets[(i + shift) % len(numeric_targets)]
                        elif kind == "TEXT" and strings and (i + shift) % 2 == 0:
                            row[j] = strings[(i + j) % len(strings)]
                    new_rows.append(row)
                db[table] = new_rows
            out.append(db)
    return out


def _run_query(task: Task, db: dict[str, list[list[Any]]], query: str) -> Any:
    conn = sqlite3.connect(":memory:")
    try:
        for statement in _schema(task):
            conn.execute(statement)
        for table, rows in db.items():
            for row in rows:
                placeholders = ", ".join("?" * len(row))
                try:
                    conn.execute(f"INSERT INTO {table} VALUES ({placeholders})", row)
                except sqlite3.IntegrityError:
                    return "!integrity"  # a planted value broke a key: skip this database
        steps = [0]

        def budget() -> int:
            steps[0] += 1
            return 1 if steps[0] > 2000 else 0

        conn.set_progress_handler(budget, 1000)
        try:
            rows = conn.execute(query).fetchall()
        except sqlite3.Error as exc:
            return f"!{type(exc).__name__}"
        return rows if task.metadata.get("ordered") else sorted(Counter(map(repr, rows)).items())
    finally:
        conn.close()


def sql_judge(task: Task, text: str) -> bool | None:
    """False when the query's result differs from the reference's on one of our databases."""
    for db in _planted_databases(task):
        want = _run_query(task, db, str(task.answer))
        if want == "!integrity" or (isinstance(want, str) and want.startswith("!")):
            continue
        if _run_query(task, db, text) != want:
            return False
    return None
