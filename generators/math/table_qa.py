"""Aggregate questions over a generated table: count, sum, mean, max, min, and the row with the
largest or smallest value, under filters.

A markdown table of records (employees, products or sales, with categorical, integer and
two-decimal columns) is shown with one question such as "What is the mean salary of the
employees in Sales who are older than 40?". The answer is computed exactly with fractions; it is
a number (any exact notation of it is accepted, never a rounded decimal) or, for "which row"
questions, the row's name (any letter case). Names are unique, filters always select at least
one row (two for a mean), and "which row" questions whose extreme value is shared by two
selected rows are redrawn, so every answer is unique. The tests recompute every answer from
the markdown table read back from the prompt with an independent implementation.

Difficulty: more rows, more filters (equalities, comparisons with numbers, "is not"), and
harder aggregates (in the order count, sum, max, min, mean, which-row-max, which-row-min,
difference of two group sums); the share of questions with several filters grows from 0 to 1,
and from level 3 on the later filters must change the answer.
The exact solver's effort is the cells it reads (rows times the columns involved). The weak
solver applies only the first filter, which is exact only when there is at most one.

Generation: ~2,000 tasks per CPU-second at level 5 and ~500 at level 10 (questions the first
filter alone answers are redrawn there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.math._common import answer_text, judge_number, read_number, tagged
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import format_rational, unwrap_math

_TEXT = re.compile(r"^\\(?:text|textbf|mathrm|mbox)\s*\{([^{}]*)\}$")

AGGREGATES = ("count", "sum", "max", "min", "mean", "argmax", "argmin", "difference")
FIRST_NAMES = (
    "Ada", "Ben", "Cara", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea", "Max", "Nia", "Oto",
    "Pia", "Quin", "Rae", "Sam", "Tess", "Uma", "Vic", "Wes", "Xia", "Yuri", "Zoe", "Abe", "Bea", "Cy", "Dina",
    "Emil", "Flo", "Gil", "Hugo", "Iris", "Jade", "Kofi", "Lina", "Milo", "Nell",
)  # fmt: skip
PRODUCT_WORDS = (
    "Apex", "Bolt", "Cedar", "Delta", "Ember", "Flux", "Glide", "Halo", "Ion", "Jade", "Kite", "Lumen", "Mesa",
    "Nova", "Orbit", "Pulse", "Quartz", "Ridge", "Sol", "Tide", "Umber", "Vale", "Wisp", "Xeno", "Yarrow", "Zen",
)  # fmt: skip


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # "category", "int" or "money"
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0
    unit: str = ""  # how a value reads in a filter ("older than 40" uses the phrase below)


SCHEMAS = {
    "employees": (
        "employee",
        (
            Column("department", "category", ("Sales", "Research", "Support", "Finance", "Legal", "Design")),
            Column("city", "category", ("Oslo", "Lima", "Pune", "Kyoto", "Quito", "Turin")),
            Column("age", "int", low=21, high=64),
            Column("salary", "int", low=28_000, high=140_000),
            Column("years", "int", low=0, high=35),
        ),
    ),
    "products": (
        "product",
        (
            Column("category", "category", ("tools", "garden", "kitchen", "toys", "office", "sports")),
            Column("supplier", "category", ("Acme", "Borealis", "Cobalt", "Dynamo", "Evergreen")),
            Column("price", "money", low=199, high=49_999),
            Column("stock", "int", low=0, high=500),
            Column("rating", "int", low=1, high=5),
        ),
    ),
    "sales": (
        "order",
        (
            Column("region", "category", ("north", "south", "east", "west", "central")),
            Column("channel", "category", ("online", "store", "phone", "partner")),
            Column("units", "int", low=1, high=250),
            Column("unit_price", "money", low=99, high=9_999),
            Column("month", "int", low=1, high=12),
        ),
    ),
}


@dataclass(frozen=True)
class TableQAKnobs(Knobs):
    rows: int = knob(6, low=3, high=60, help="rows of the table")
    filters: int = knob(1, low=0, high=4, help="the most filters in a question")
    multi_share: float = knob(0.0, low=0.0, high=1.0, help="share of questions with two or more filters")
    aggregates: int = knob(
        2, low=1, high=len(AGGREGATES), help=f"how many aggregates are drawn from, in order {AGGREGATES}"
    )
    negations: bool = knob(False, help="allow 'is not' filters")
    filters_matter: bool = knob(
        False, help="redraw questions whose answer is the same with only the first filter"
    )


LEVELS = {
    1: TableQAKnobs(rows=6, filters=1, aggregates=2),
    2: TableQAKnobs(rows=8, filters=1, aggregates=3),
    3: TableQAKnobs(rows=10, filters=2, multi_share=0.3, aggregates=4, filters_matter=True),
    4: TableQAKnobs(rows=12, filters=2, multi_share=0.45, aggregates=5, filters_matter=True),
    5: TableQAKnobs(rows=15, filters=3, multi_share=0.6, aggregates=6, negations=True, filters_matter=True),
    6: TableQAKnobs(rows=18, filters=3, multi_share=0.75, aggregates=7, negations=True, filters_matter=True),
    7: TableQAKnobs(rows=22, filters=3, multi_share=0.9, aggregates=8, negations=True, filters_matter=True),
    8: TableQAKnobs(rows=27, filters=3, multi_share=1.0, aggregates=8, negations=True, filters_matter=True),
    9: TableQAKnobs(rows=33, filters=4, multi_share=1.0, aggregates=8, negations=True, filters_matter=True),
    10: TableQAKnobs(rows=40, filters=4, multi_share=1.0, aggregates=8, negations=True, filters_matter=True),
}


# --------------------------------------------------------------------------------------------
# Tables and filters
# --------------------------------------------------------------------------------------------

Row = dict[str, object]


def value_text(column: Column, value: object) -> str:
    if column.kind == "money":
        return f"{value / 100:.2f}"  # type: ignore[operator]
    return str(value)


def exact(column: Column, value: object) -> Fraction:
    return Fraction(value, 100) if column.kind == "money" else Fraction(value)  # type: ignore[arg-type]


def draw_table(rng: np.random.Generator, schema: str, rows: int) -> list[Row]:
    _, columns = SCHEMAS[schema]
    pool = FIRST_NAMES if schema == "employees" else PRODUCT_WORDS
    names = _unique_names(rng, pool, rows, schema)
    table = []
    for name in names:
        row: Row = {"name": name}
        for column in columns:
            if column.kind == "category":
                row[column.name] = column.choices[int(rng.integers(len(column.choices)))]
            else:
                row[column.name] = int(rng.integers(column.low, column.high + 1))
        table.append(row)
    return table


def _unique_names(rng: np.random.Generator, pool: tuple[str, ...], count: int, schema: str) -> list[str]:
    if schema == "sales":
        numbers = rng.choice(9000, size=count, replace=False) + 1000
        return [f"#{int(n)}" for n in numbers]
    if count <= len(pool):
        return [pool[int(i)] for i in rng.choice(len(pool), size=count, replace=False)]
    picks = rng.choice(len(pool) * 9, size=count, replace=False)
    return [f"{pool[int(i) % len(pool)]} {int(i) // len(pool) + 1}" for i in picks]


@dataclass(frozen=True)
class Filter:
    column: str
    op: str  # "=", "!=", ">", "<", ">=", "<="
    value: object

    def holds(self, row: Row) -> bool:
        cell = row[self.column]
        return {
            "=": cell == self.value,
            "!=": cell != self.value,
            ">": cell > self.value,  # type: ignore[operator]
            "<": cell < self.value,  # type: ignore[operator]
            ">=": cell >= self.value,  # type: ignore[operator]
            "<=": cell <= self.value,  # type: ignore[operator]
        }[self.op]

    def text(self, columns: dict[str, Column]) -> str:
        column = columns[self.column]
        label = self.column.replace("_", " ")
        shown = value_text(column, self.value)
        words = {
            "=": "is",
            "!=": "is not",
            ">": "is more than",
            "<": "is less than",
            ">=": "is at least",
            "<=": "is at most",
        }
        return f"the {label} {words[self.op]} {shown}"


def draw_filter(
    rng: np.random.Generator, table: list[Row], columns: tuple[Column, ...], negations: bool
) -> Filter:
    column = columns[int(rng.integers(len(columns)))]
    cell = table[int(rng.integers(len(table)))][column.name]  # a value that occurs: filters select something
    if column.kind == "category":
        op = "!=" if negations and rng.random() < 0.3 else "="
    else:
        op = str(rng.choice([">", "<", ">=", "<="]))
    return Filter(column.name, op, cell)


# --------------------------------------------------------------------------------------------
# Questions
# --------------------------------------------------------------------------------------------


@dataclass
class Question:
    text: str
    answer: Fraction | str
    weak: Fraction | str
    cells: int


def aggregate(kind: str, rows: list[Row], column: Column | None) -> Fraction | str | None:
    """The aggregate over ``rows`` (None when undefined or, for which-row questions, tied)."""
    if kind == "count":
        return Fraction(len(rows)) if rows else None
    assert column is not None
    values = [exact(column, r[column.name]) for r in rows]
    if not values or (kind == "mean" and len(values) < 2):
        return None
    if kind == "sum":
        return sum(values, Fraction(0))
    if kind == "mean":
        return sum(values, Fraction(0)) / len(values)
    if kind in ("max", "min"):
        return max(values) if kind == "max" else min(values)
    best = max(values) if kind == "argmax" else min(values)
    holders = [r["name"] for r, v in zip(rows, values, strict=True) if v == best]
    return str(holders[0]) if len(holders) == 1 and len(values) > 1 else None


ASK = {
    "count": "How many {noun}s are there",
    "sum": "What is the total {col} of the {noun}s",
    "max": "What is the largest {col} among the {noun}s",
    "min": "What is the smallest {col} among the {noun}s",
    "mean": "What is the mean {col} of the {noun}s",
    "argmax": "Which {noun} has the largest {col} among the {noun}s",
    "argmin": "Which {noun} has the smallest {col} among the {noun}s",
}


def draw_question(
    knobs: TableQAKnobs, rng: np.random.Generator, table: list[Row], schema: str
) -> Question | None:
    noun, columns = SCHEMAS[schema]
    by_name = {c.name: c for c in columns}
    kind = AGGREGATES[int(rng.integers(knobs.aggregates))]
    numeric = [c for c in columns if c.kind != "category"]
    column = numeric[int(rng.integers(len(numeric)))] if kind != "count" else None
    several = knobs.filters >= 2 and rng.random() < knobs.multi_share
    count = int(rng.integers(2, knobs.filters + 1)) if several else min(1, knobs.filters)
    filters = [draw_filter(rng, table, columns, knobs.negations) for _ in range(count)]
    if len({f.column for f in filters}) < len(filters):
        return None  # one filter per column keeps the questions readable
    cells = len(table) * (len(filters) + (column is not None))
    if kind == "difference":
        return _difference(knobs, rng, table, schema, filters, cells)
    selected = [r for r in table if all(f.holds(r) for f in filters)]
    answer = aggregate(kind, selected, column)
    if answer is None:
        return None
    weak_rows = [r for r in table if all(f.holds(r) for f in filters[:1])]
    weak = aggregate(kind, weak_rows, column)
    if knobs.filters_matter and len(filters) > 1 and weak == answer:
        return None
    where = " and ".join(f.text(by_name) for f in filters)
    ask = ASK[kind].format(noun=noun, col=column.name.replace("_", " ") if column else "")
    text = ask + (f" for which {where}" if where else " in the table") + "?"
    return Question(text, answer, weak if weak is not None else "none", cells)


def _difference(
    knobs: TableQAKnobs,
    rng: np.random.Generator,
    table: list[Row],
    schema: str,
    filters: list[Filter],
    cells: int,
) -> Question | None:
    """The total of a column in one category minus its total in another, within the filters."""
    noun, columns = SCHEMAS[schema]
    by_name = {c.name: c for c in columns}
    categories = [c for c in columns if c.kind == "category" and c.name not in {f.column for f in filters}]
    numeric = [c for c in columns if c.kind != "category"]
    if not categories:
        return None
    group, column = categories[int(rng.integers(len(categories)))], numeric[int(rng.integers(len(numeric)))]
    a, b = (str(v) for v in rng.choice(group.choices, size=2, replace=False))

    def total(rows: list[Row], value: str) -> Fraction:
        return sum((exact(column, r[column.name]) for r in rows if r[group.name] == value), Fraction(0))

    selected = [r for r in table if all(f.holds(r) for f in filters)]
    if not any(r[group.name] == a for r in selected) or not any(r[group.name] == b for r in selected):
        return None
    answer = total(selected, a) - total(selected, b)
    weak_rows = [r for r in table if all(f.holds(r) for f in filters[:1])]
    weak = total(weak_rows, a) - total(weak_rows, b)
    if knobs.filters_matter and len(filters) > 1 and weak == answer:
        return None
    label, col = group.name.replace("_", " "), column.name.replace("_", " ")
    where = " and ".join(f.text(by_name) for f in filters)
    scope = f" among the {noun}s for which {where}" if where else ""
    text = (
        f"What is the total {col} of the {noun}s whose {label} is {a} minus the total {col} of the {noun}s "
        f"whose {label} is {b}{scope}?"
    )
    return Question(text, answer, weak, cells + len(table))


def markdown(table: list[Row], schema: str) -> str:
    noun, columns = SCHEMAS[schema]
    header = "| " + " | ".join([noun] + [c.name for c in columns]) + " |"
    rule = "|" + "---|" * (len(columns) + 1)
    lines = [
        "| " + " | ".join([str(r["name"])] + [value_text(c, r[c.name]) for c in columns]) + " |"
        for r in table
    ]
    return "\n".join([header, rule, *lines])


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """{table}

{question}

{how} Put the final answer in <answer>...</answer>."""
HOW_NUMBER = "Give the exact number (an integer, a fraction or an exact decimal; no rounding)."
HOW_NAME = "Answer with the {noun}'s name exactly as it appears in the first column."


@family(
    "table_qa",
    domain="math",
    knobs=TableQAKnobs,
    levels=LEVELS,
    description="Aggregate questions (count, sum, mean, max, min, arg-max, group differences) with filters over a generated table; unique answers.",
    verifier_kind="exact value",
)
class TableQA(Family):
    def generate(self, knobs: TableQAKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(1000):
            schema = str(rng.choice(list(SCHEMAS)))
            table = draw_table(rng, schema, knobs.rows)
            question = draw_question(knobs, rng, table, schema)
            if question is not None:
                break
        else:  # pragma: no cover - a defined, unique answer comes within a few draws
            raise RuntimeError(f"could not draw a table question for {knobs}")
        is_name = isinstance(question.answer, str)
        how = HOW_NAME.format(noun=SCHEMAS[schema][0]) if is_name else HOW_NUMBER
        answer = question.answer if is_name else format_rational(question.answer)  # type: ignore[arg-type]
        weak = question.weak if isinstance(question.weak, str) else format_rational(question.weak)
        text = markdown(table, schema)
        metadata = {
            "schema": schema,
            "answer_type": "name" if is_name else "number",
            "names": [str(r["name"]) for r in table],
            "weak": weak,
            "cells": question.cells,
            "canonical_hash": content_hash([text, question.text]),
        }
        prompt = PROMPT.format(table=text, question=question.text, how=how)
        return TaskDraft(prompt=prompt, answer=answer, metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response)
        if isinstance(text, Verdict):
            return text
        if task.metadata["answer_type"] == "name":
            # $Sol$, \(Sol\), \text{Sol}: notation around a name, as around a number
            name = _TEXT.sub(r"\1", unwrap_math(text)).strip().strip("*`\"'").strip().rstrip(".").strip()
            known = {n.casefold(): n for n in task.metadata["names"]}
            if name.casefold() not in known:
                return Verdict.bad_format(f"{name[:40]!r} is not a name in the table")
            chosen = known[name.casefold()]
            if chosen == task.answer:
                return Verdict.right(parsed=chosen)
            return Verdict.wrong(f"{chosen} is not the answer", parsed=chosen)
        value = read_number(text)
        if isinstance(value, Verdict):
            return value
        return judge_number(value, Fraction(task.answer), "the answer")

    def solve_exact(self, task: Task) -> SolverRun:
        # a scan of the table; effort = the cells read
        return SolverRun(response=tagged(task.answer), effort=float(task.metadata["cells"]))

    def solve_weak(self, task: Task) -> SolverRun:
        # applies only the first filter
        return SolverRun(response=tagged(task.metadata["weak"]), effort=float(len(task.metadata["names"])))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        if task.metadata["answer_type"] == "name":
            others = [n for n in task.metadata["names"] if n != task.answer]
            picks = rng.choice(len(others), size=min(3, len(others)), replace=False)
            return [tagged(others[int(i)]) for i in picks]
        value = Fraction(task.answer)
        wrong = [value + 1, value - 1, value * 2 + 1, -value - 1]
        if task.metadata["weak"] not in ("none", task.answer):
            wrong.append(Fraction(task.metadata["weak"]))
        return [tagged(format_rational(w)) for w in dict.fromkeys(wrong) if w != value]
