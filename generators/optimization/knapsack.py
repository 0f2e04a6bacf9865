"""0/1 knapsack: choose items of greatest total value within a weight capacity.

Every optimal selection is accepted: the verifier recomputes the chosen items' weight (it must
not exceed the capacity) and value (it must equal the proven optimum, found by the exact
dynamic programme over capacities); a value stated in the response is never read. Repeated
items are wrong, numbers that name no item are format errors.

Difficulty: more items (4 to 30) with larger weights (up to 12 to 99), so the DP table
(items x capacity, the exact solver's effort) grows from ~50 to ~18,000 cells. From level 3 on,
instances that the greedy heuristic (take items by value per unit weight while they fit, the
weak solver) solves optimally are rejected, and values are drawn close to proportional to
weights so that density alone misleads.

Generation: ~2,000 tasks per CPU-second at level 5 and ~250 at level 10 (the DP in pure Python
and the greedy-rejection redraws).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.optimization._common import numbered, read_numbers
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class KnapsackKnobs(Knobs):
    items: int = knob(4, low=3, high=40, help="number of items")
    max_weight: int = knob(12, low=5, high=200, help="largest item weight (weights are 1..max_weight)")
    capacity_ratio: float = knob(0.5, low=0.2, high=0.8, help="capacity as a fraction of the total weight")
    reject_greedy: bool = knob(False, help="reject instances the value-density greedy solves optimally")


LEVELS = {
    1: KnapsackKnobs(items=4, max_weight=12),
    2: KnapsackKnobs(items=5, max_weight=15),
    3: KnapsackKnobs(items=6, max_weight=20, reject_greedy=True),
    4: KnapsackKnobs(items=8, max_weight=25, reject_greedy=True),
    5: KnapsackKnobs(items=10, max_weight=30, reject_greedy=True),
    6: KnapsackKnobs(items=12, max_weight=40, capacity_ratio=0.45, reject_greedy=True),
    7: KnapsackKnobs(items=15, max_weight=50, capacity_ratio=0.45, reject_greedy=True),
    8: KnapsackKnobs(items=18, max_weight=60, capacity_ratio=0.4, reject_greedy=True),
    9: KnapsackKnobs(items=24, max_weight=80, capacity_ratio=0.4, reject_greedy=True),
    10: KnapsackKnobs(items=30, max_weight=99, capacity_ratio=0.4, reject_greedy=True),
}


def optimum(weights: list[int], values: list[int], capacity: int) -> tuple[list[int], int, int]:
    """An optimal selection (0-based, ascending), its value, and the DP cells filled."""
    n = len(weights)
    best = [[0] * (capacity + 1) for _ in range(n + 1)]
    for i in range(n):
        row, nxt, w, v = best[i], best[i + 1], weights[i], values[i]
        for c in range(capacity + 1):
            nxt[c] = max(row[c], row[c - w] + v) if w <= c else row[c]
    chosen, c = [], capacity
    for i in range(n - 1, -1, -1):
        if best[i + 1][c] != best[i][c]:
            chosen.append(i)
            c -= weights[i]
    return sorted(chosen), best[n][capacity], n * (capacity + 1)


def greedy(weights: list[int], values: list[int], capacity: int) -> list[int]:
    """Take items by value per unit weight (ties: lighter first) while they fit."""
    order = sorted(range(len(weights)), key=lambda i: (-values[i] / weights[i], weights[i], i))
    chosen, room = [], capacity
    for i in order:
        if weights[i] <= room:
            chosen.append(i)
            room -= weights[i]
    return sorted(chosen)


PROMPT = """Choose items to put in a knapsack that holds a total weight of at most {capacity}. \
Each item can be taken at most once.
{items}

Maximise the total value of the chosen items without exceeding the capacity. Any selection \
with the greatest possible value is accepted. Answer with the numbers of the chosen items, \
separated by commas, for example <answer>1, 3</answer>."""


def _draw(knobs: KnapsackKnobs, rng: np.random.Generator) -> tuple[list[int], list[int], int]:
    weights = [int(w) for w in rng.integers(1, knobs.max_weight + 1, size=knobs.items)]
    # values near proportional to weight (density in [0.6, 1.6]) plus noise: greedy is misled
    values = [max(1, int(round(w * rng.uniform(0.6, 1.6) + rng.integers(0, 6)))) for w in weights]
    capacity = max(max(weights), int(round(sum(weights) * knobs.capacity_ratio)))
    return weights, values, capacity


@family(
    "knapsack",
    domain="optimization",
    knobs=KnapsackKnobs,
    levels=LEVELS,
    description="0/1 knapsack: pick items of greatest total value within a capacity (any optimum counts).",
    verifier_kind="feasibility check + value equals the DP-proven optimum",
)
class Knapsack(Family):
    def generate(self, knobs: KnapsackKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(1000):
            weights, values, capacity = _draw(knobs, rng)
            if sum(weights) <= capacity:
                continue  # everything fits: trivial
            chosen, best, cells = optimum(weights, values, capacity)
            greedy_value = sum(values[i] for i in greedy(weights, values, capacity))
            if knobs.reject_greedy and greedy_value == best:
                continue
            break
        else:
            raise RuntimeError(f"no suitable knapsack in 1000 draws for {knobs}")
        items = "\n".join(
            f"Item {i + 1}: weight {w}, value {v}"
            for i, (w, v) in enumerate(zip(weights, values, strict=True))
        )
        metadata = {
            "weights": weights,
            "values": values,
            "capacity": capacity,
            "optimum": best,
            "dp_cells": cells,
            "canonical_hash": content_hash([sorted(zip(weights, values, strict=True)), capacity]),
        }
        answer = ", ".join(str(i + 1) for i in chosen)
        return TaskDraft(PROMPT.format(capacity=capacity, items=items), answer, metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        chosen = read_numbers(response, labels=("items",))
        if isinstance(chosen, Verdict):
            return chosen
        weights, values = task.metadata["weights"], task.metadata["values"]
        if error := numbered(chosen, len(weights), "item"):
            return error
        if len(set(chosen)) != len(chosen):
            return Verdict.wrong(
                "an item is taken more than once (each item can be taken at most once)", parsed=chosen
            )
        weight = sum(weights[i - 1] for i in chosen)
        value = sum(values[i - 1] for i in chosen)
        if weight > task.metadata["capacity"]:
            return Verdict.wrong(
                f"total weight {weight} exceeds the capacity {task.metadata['capacity']}", parsed=chosen
            )
        if value != task.metadata["optimum"]:
            return Verdict.wrong(f"total value {value} is not the greatest possible", parsed=chosen)
        return Verdict.right(parsed=chosen)

    def solve_exact(self, task: Task) -> SolverRun:
        """The DP over (item, capacity) (effort = table cells filled)."""
        chosen, _, cells = optimum(
            task.metadata["weights"], task.metadata["values"], task.metadata["capacity"]
        )
        return SolverRun(f"<answer>{', '.join(str(i + 1) for i in chosen)}</answer>", float(cells))

    def solve_weak(self, task: Task) -> SolverRun:
        """Greedy by value density: no search, often one swap short of the optimum."""
        weights, values = task.metadata["weights"], task.metadata["values"]
        chosen = greedy(weights, values, task.metadata["capacity"])
        return SolverRun(f"<answer>{', '.join(str(i + 1) for i in chosen)}</answer>", float(len(weights)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        weights, values, capacity = (
            task.metadata["weights"],
            task.metadata["values"],
            task.metadata["capacity"],
        )
        chosen = [int(x) for x in task.answer.split(", ")]
        everything = list(range(1, len(weights) + 1))  # over capacity (the generator rejects all-fit)
        missing = chosen[1:]  # one item fewer: strictly less value (values are positive)
        twice = chosen + chosen[:1]  # an item repeated
        greedy_choice = [i + 1 for i in greedy(weights, values, capacity)]
        mutations = [everything, missing, twice]
        if sum(values[i - 1] for i in greedy_choice) != task.metadata["optimum"]:
            mutations.append(greedy_choice)
        return [f"<answer>{', '.join(map(str, m)) or 'none'}</answer>" for m in mutations]
