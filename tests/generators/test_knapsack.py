"""knapsack: every optimal selection is accepted, and only those (optimum checked independently)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

SEEDS = st.integers(0, 2**63 - 1)


def _answer(items) -> str:
    return "<answer>" + ", ".join(str(i + 1) for i in items) + "</answer>"


def _all_subsets(n: int):
    for size in range(n + 1):
        yield from combinations(range(n), size)


def _min_weight_by_value(weights: list[int], values: list[int]) -> int:
    """The optimum by a different DP (least weight for each total value)."""
    total = sum(values)
    least = [0] + [10**9] * total
    for w, v in zip(weights, values, strict=True):
        for value in range(total, v - 1, -1):
            least[value] = min(least[value], least[value - v] + w)
    return least


@given(seed=SEEDS, level=st.integers(1, 5))
@settings(max_examples=25, deadline=None)
def test_brute_force_optima_are_all_accepted_and_nothing_else(seed: int, level: int) -> None:
    task = palaestra.make_task("knapsack", seed=seed, level=level)
    w, v, cap = task.metadata["weights"], task.metadata["values"], task.metadata["capacity"]
    feasible = [s for s in _all_subsets(len(w)) if sum(w[i] for i in s) <= cap]
    best = max(sum(v[i] for i in s) for s in feasible)
    assert task.metadata["optimum"] == best
    for subset in _all_subsets(len(w)):
        value, weight = sum(v[i] for i in subset), sum(w[i] for i in subset)
        verdict = palaestra.verify(task, _answer(subset[::-1]))  # any order of the items
        assert verdict.correct == (weight <= cap and value == best), (subset, verdict)


@given(seed=SEEDS, level=st.integers(6, 10))
@settings(max_examples=10, deadline=None)
def test_optimum_matches_an_independent_dp(seed: int, level: int) -> None:
    task = palaestra.make_task("knapsack", seed=seed, level=level)
    w, v, cap = task.metadata["weights"], task.metadata["values"], task.metadata["capacity"]
    least = _min_weight_by_value(w, v)
    assert task.metadata["optimum"] == max(value for value, weight in enumerate(least) if weight <= cap)
    assert palaestra.verify(task, palaestra.get("knapsack").impl.solve_exact(task).response).correct


def test_greedy_is_never_optimal_from_level_three() -> None:
    impl = palaestra.get("knapsack").impl
    for seed in range(30):
        task = palaestra.make_task("knapsack", seed=seed, level=3 + seed % 8)
        assert not palaestra.verify(task, impl.solve_weak(task).response).correct


def test_infeasible_and_malformed_answers() -> None:
    task = palaestra.make_task("knapsack", seed=4, level=5)
    n, chosen = len(task.metadata["weights"]), task.answer
    assert palaestra.verify(task, f"<answer>[{chosen}]</answer>").correct
    assert palaestra.verify(task, f"Answer: {chosen.replace(', ', ' ')}").correct
    everything = ", ".join(str(i) for i in range(1, n + 1))
    assert "exceeds the capacity" in palaestra.verify(task, f"<answer>{everything}</answer>").reason
    first = chosen.split(", ")[0]
    twice = palaestra.verify(task, f"<answer>{chosen}, {first}</answer>")
    assert twice.format_ok and not twice.correct and "more than once" in twice.reason
    # a stated value is never trusted: only the item list counts
    assert not palaestra.verify(
        task, f"<answer>{chosen}, value {task.metadata['optimum']}</answer>"
    ).format_ok
    assert not palaestra.verify(task, f"<answer>{chosen}, {n + 1}</answer>").format_ok
    assert not palaestra.verify(task, "<answer>1, 2.5</answer>").format_ok
    assert not palaestra.verify(task, "<answer>-1, 2</answer>").format_ok
    assert not palaestra.verify(task, "<answer>none</answer>").correct
