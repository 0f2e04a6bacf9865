"""Optimisation families: feasibility and objective recomputed here from the task's data, against
the proven optimum the task states (any optimal answer is valid)."""

from __future__ import annotations

import json
import re

from palaestra.core import Task

from ._registry import judge


def _numbers(text: str) -> list[int]:
    if not re.fullmatch(r"\s*\d{1,4}(\s*,\s*\d{1,4})*\s*", text):
        raise ValueError("not a list of numbers")
    return [int(x) for x in text.split(",")]


def _meta(task: Task, key: str):
    value = task.metadata[key]
    return json.loads(value) if isinstance(value, str) else value


@judge("knapsack")
def _knapsack(task: Task, text: str) -> bool:
    items = _numbers(text)
    weights, values = _meta(task, "weights"), _meta(task, "values")
    if len(set(items)) != len(items) or not all(1 <= i <= len(weights) for i in items):
        return False
    weight = sum(weights[i - 1] for i in items)
    return weight <= _meta(task, "capacity") and sum(values[i - 1] for i in items) == _meta(task, "optimum")


@judge("tsp")
def _tsp(task: Task, text: str) -> bool:
    tour = _numbers(text)
    distances = _meta(task, "distances")
    if len(tour) == len(distances) + 1 and tour[0] == tour[-1]:
        tour = tour[:-1]  # the return to the start, written out
    if sorted(tour) != list(range(1, len(distances) + 1)):
        return False
    length = sum(distances[a - 1][b - 1] for a, b in zip(tour, tour[1:] + tour[:1], strict=True))
    return length == _meta(task, "optimum")


@judge("set_cover")
def _set_cover(task: Task, text: str) -> bool:
    chosen = _numbers(text)
    sets = _meta(task, "sets")
    if len(set(chosen)) != len(chosen) or not all(1 <= i <= len(sets) for i in chosen):
        return False
    covered = set().union(*(sets[i - 1] for i in chosen))
    return covered >= set(range(1, _meta(task, "elements") + 1)) and len(chosen) == _meta(task, "optimum")


@judge("job_scheduling")
def _job_scheduling(task: Task, text: str) -> bool:
    assignment = _numbers(text)
    durations, machines = _meta(task, "durations"), _meta(task, "machines")
    if len(assignment) != len(durations) or not all(1 <= m <= machines for m in assignment):
        return False
    loads = [0] * machines
    for job, machine in enumerate(assignment):
        loads[machine - 1] += durations[job]
    return max(loads) == _meta(task, "optimum")
