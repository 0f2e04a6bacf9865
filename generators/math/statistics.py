"""Exact descriptive statistics of a generated data set: mean, median, mode, range, population
and sample variance, and the mean of a frequency table.

A data set (a list of integers or one-decimal numbers, or a table of values with their counts)
is given and one statistic is asked; the prompt names the convention where there is a choice
(population variance divides by n, sample variance by n - 1; the median of an even count is the
mean of the two middle values). Mode questions are drawn only for data whose most frequent value
is unique. The answer is an exact rational computed with fractions, so it is unique; any exact
notation is accepted (``23/4``, ``5.75``, ``5 3/4``), never a rounded decimal. The tests check
every answer against Python's ``statistics`` module on the data read back from the prompt.

Difficulty: more values, wider ranges with negatives, one-decimal values, unsorted lists, then
frequency tables, and more statistics drawn from (in the order mean, median, population
variance, range, mode, sample variance, table mean). The exact solver's effort counts the
arithmetic on the values (sums, squares, a sort). The weak solver takes shortcuts: it reads the
median and range off the list as written (as if sorted), takes the first repeated value as the
mode, always divides by n, averages a table's values without their counts, and works on a
calculator (8 significant digits, fractions recognised up to denominator 12); that is right on
sorted lists and on population variances of a few values only.

Generation: ~5,000 tasks per CPU-second at level 5 and ~2,500 at level 10.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.math._common import calculator, number_near_misses, tagged, verify_number
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import format_rational

STATISTICS = ("mean", "median", "population_variance", "range", "mode", "sample_variance", "table_mean")
ASK = {
    "mean": "What is the mean (arithmetic average) of the data?",
    "median": "What is the median of the data? (With an even number of values it is the mean of the two middle values.)",
    "range": "What is the range of the data (largest value minus smallest value)?",
    "mode": "What is the mode of the data (the value that occurs most often; it is unique here)?",
    "population_variance": "What is the population variance of the data (the mean squared deviation from the mean, dividing by n)?",
    "sample_variance": "What is the sample variance of the data (the sum of squared deviations from the mean divided by n - 1)?",
    "table_mean": "What is the mean of all the observations in the table (each value counted as often as it occurs)?",
}


@dataclass(frozen=True)
class StatisticsKnobs(Knobs):
    count: int = knob(5, low=3, high=60, help="number of values (or observations in a table)")
    spread: int = knob(20, low=5, high=10_000, help="values are drawn from [low, low + spread]")
    negatives: bool = knob(False, help="allow negative values")
    decimals: bool = knob(False, help="values with one decimal place")
    sorted_data: bool = knob(True, help="list the values in increasing order")
    statistics: int = knob(
        2, low=1, high=len(STATISTICS), help=f"how many statistics are drawn from, in order {STATISTICS}"
    )


LEVELS = {
    1: StatisticsKnobs(count=5, spread=20, statistics=2),
    2: StatisticsKnobs(count=7, spread=30, statistics=3),
    3: StatisticsKnobs(count=9, spread=60, sorted_data=False, statistics=4),
    4: StatisticsKnobs(count=11, spread=100, sorted_data=False, statistics=5),
    5: StatisticsKnobs(count=13, spread=100, negatives=True, sorted_data=False, statistics=6),
    6: StatisticsKnobs(count=14, spread=200, negatives=True, sorted_data=False, statistics=7),
    7: StatisticsKnobs(count=16, spread=400, negatives=True, decimals=True, sorted_data=False, statistics=7),
    8: StatisticsKnobs(
        count=20, spread=1_000, negatives=True, decimals=True, sorted_data=False, statistics=7
    ),
    9: StatisticsKnobs(
        count=25, spread=2_000, negatives=True, decimals=True, sorted_data=False, statistics=7
    ),
    10: StatisticsKnobs(
        count=30, spread=5_000, negatives=True, decimals=True, sorted_data=False, statistics=7
    ),
}


# --------------------------------------------------------------------------------------------
# Exact statistics (fractions)
# --------------------------------------------------------------------------------------------


def mean(values: list[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values)


def median(values: list[Fraction]) -> Fraction:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def unique_mode(values: list[Fraction]) -> Fraction | None:
    counts = Counter(values).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return None
    return counts[0][0]


def variance(values: list[Fraction], ddof: int) -> Fraction:
    mu = mean(values)
    return sum(((v - mu) ** 2 for v in values), Fraction(0)) / (len(values) - ddof)


def statistic(name: str, values: list[Fraction]) -> Fraction | None:
    if name in ("mean", "table_mean"):
        return mean(values)
    if name == "median":
        return median(values)
    if name == "range":
        return max(values) - min(values)
    if name == "mode":
        return unique_mode(values)
    return variance(values, 0 if name == "population_variance" else 1)


def shortcut(name: str, values: list[Fraction]) -> Fraction:
    """The weak solver's answer: the list read as written, always dividing by n, and a table's
    distinct values averaged without their counts."""
    if name == "mean":
        return mean(values)
    if name == "table_mean":
        return mean(sorted(set(values)))
    if name == "median":
        middle = len(values) // 2
        return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2
    if name == "range":
        return values[-1] - values[0]
    if name == "mode":
        seen: set[Fraction] = set()
        for v in values:
            if v in seen:
                return v
            seen.add(v)
        return values[0]
    return variance(values, 0)


def effort_of(name: str, values: list[Fraction], digits: int) -> int:
    n = len(values)
    sort = n * max(1, n.bit_length())
    work = {
        "mean": n,
        "table_mean": 2 * n,
        "median": sort,
        "range": sort,
        "mode": sort + n,
        "population_variance": 3 * n,
        "sample_variance": 3 * n,
    }[name]
    return work * digits


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def draw_values(knobs: StatisticsKnobs, rng: np.random.Generator, for_mode: bool) -> list[Fraction]:
    scale = 10 if knobs.decimals else 1
    low = -(knobs.spread // 2) if knobs.negatives else int(rng.integers(0, knobs.spread // 2 + 1))
    units = knobs.spread * scale
    raw = [int(v) for v in rng.integers(0, units + 1, size=knobs.count)]
    if for_mode:  # repeat a few values so that a mode exists
        pool = raw[: max(2, knobs.count // 3)]
        raw = [pool[int(rng.integers(len(pool)))] if rng.random() < 0.5 else v for v in raw]
    values = [Fraction(low) + Fraction(v, scale) for v in raw]
    return sorted(values) if knobs.sorted_data else values


def show(value: Fraction, decimals: bool) -> str:
    return f"{float(value):.1f}" if decimals else str(value)


def table_text(values: list[Fraction], decimals: bool) -> str:
    counts = sorted(Counter(values).items())
    rows = "\n".join(f"| {show(v, decimals)} | {c} |" for v, c in counts)
    return f"| value | count |\n|---|---|\n{rows}"


PROMPT = """{data}

{ask}

Give the exact value as an integer, a fraction or an exact decimal; no rounding. Put the final answer in <answer>...</answer>."""


@family(
    "statistics",
    domain="math",
    knobs=StatisticsKnobs,
    levels=LEVELS,
    description="Exact mean, median, unique mode, range, population and sample variance of a generated data set or frequency table.",
    verifier_kind="exact value",
)
class Statistics(Family):
    def generate(self, knobs: StatisticsKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(1000):
            name = STATISTICS[int(rng.integers(knobs.statistics))]
            values = draw_values(knobs, rng, for_mode=name in ("mode", "table_mean"))
            value = statistic(name, values)
            if value is not None and (name != "table_mean" or len(set(values)) < len(values)):
                break
        else:  # pragma: no cover - unique modes are common after planting repeats
            raise RuntimeError(f"could not draw a data set for {knobs}")
        if name == "table_mean":
            data = f"A frequency table of {len(values)} observations:\n\n{table_text(values, knobs.decimals)}"
        else:
            data = f"Data ({len(values)} values): " + ", ".join(show(v, knobs.decimals) for v in values)
        digits = len(str(knobs.spread)) + knobs.decimals
        metadata = {
            "statistic": name,
            "values": [format_rational(v) for v in values],
            "shortcut": format_rational(calculator(shortcut(name, values))),
            "effort": effort_of(name, values, digits),
            "canonical_hash": content_hash([name, sorted(format_rational(v) for v in values)]),
        }
        return TaskDraft(
            prompt=PROMPT.format(data=data, ask=ASK[name]), answer=format_rational(value), metadata=metadata
        )

    def verify(self, task: Task, response: str) -> Verdict:
        return verify_number(
            response, Fraction(task.answer), f"the {task.metadata['statistic'].replace('_', ' ')}"
        )

    def solve_exact(self, task: Task) -> SolverRun:
        # exact fraction arithmetic; effort = operations on the values (sums, squares, a sort)
        return SolverRun(response=tagged(task.answer), effort=float(task.metadata["effort"]))

    def solve_weak(self, task: Task) -> SolverRun:
        # shortcuts: the list as written, dividing by n, a table without its counts; a calculator
        return SolverRun(
            response=tagged(task.metadata["shortcut"]), effort=float(len(task.metadata["values"]))
        )

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value = Fraction(task.answer)
        values = [Fraction(v) for v in task.metadata["values"]]
        wrong = [Fraction(task.metadata["shortcut"]), mean(values), median(values)]
        if task.metadata["statistic"].endswith("variance"):
            wrong += [variance(values, 0), variance(values, 1)]
        wrong += number_near_misses(value)
        return [tagged(format_rational(w)) for w in dict.fromkeys(wrong) if w != value]
