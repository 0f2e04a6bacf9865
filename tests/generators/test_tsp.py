"""tsp: every shortest tour is accepted in any rotation and direction, and nothing else."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

SEEDS = st.integers(0, 2**63 - 1)


def _answer(tour) -> str:
    return "<answer>" + ", ".join(str(c + 1) for c in tour) + "</answer>"


def _length(dist, tour) -> int:
    return sum(dist[tour[i]][tour[(i + 1) % len(tour)]] for i in range(len(tour)))


@given(seed=SEEDS, level=st.integers(1, 6))
@settings(max_examples=20, deadline=None)
def test_brute_force_optimum_and_every_tour_judged_by_its_length(seed: int, level: int) -> None:
    task = palaestra.make_task("tsp", seed=seed, level=level)
    dist = task.metadata["distances"]
    n = len(dist)
    tours = [(0, *rest) for rest in permutations(range(1, n))]
    best = min(_length(dist, t) for t in tours)
    assert task.metadata["optimum"] == best
    for tour in tours[:200]:
        assert palaestra.verify(task, _answer(tour)).correct == (_length(dist, tour) == best)
    optimal = [t for t in tours if _length(dist, t) == best]
    for tour in optimal[:4]:
        shift = seed % n
        rotated = tour[shift:] + tour[:shift]
        assert palaestra.verify(task, _answer(rotated)).correct
        assert palaestra.verify(task, _answer(rotated[::-1])).correct
        assert palaestra.verify(task, _answer(rotated + rotated[:1])).correct  # return written out


@given(seed=SEEDS)
@settings(max_examples=4, deadline=None)
def test_brute_force_optimum_at_level_eight(seed: int) -> None:
    task = palaestra.make_task("tsp", seed=seed, level=8)
    dist = task.metadata["distances"]
    best = min(_length(dist, (0, *rest)) for rest in permutations(range(1, len(dist))))
    assert task.metadata["optimum"] == best


def test_nearest_neighbour_is_never_optimal_from_level_three() -> None:
    impl = palaestra.get("tsp").impl
    for seed in range(20):
        task = palaestra.make_task("tsp", seed=seed, level=3 + seed % 8)
        assert not palaestra.verify(task, impl.solve_weak(task).response).correct


def test_infeasible_tours_are_refused() -> None:
    task = palaestra.make_task("tsp", seed=3, level=5)
    tour = [int(c) for c in task.answer.split(", ")]
    n = len(tour)
    assert palaestra.verify(task, "<answer>" + " -> ".join(map(str, tour)) + "</answer>").correct
    repeated = tour[:-1] + tour[:1]
    assert (
        "exactly once"
        in palaestra.verify(task, "<answer>" + ", ".join(map(str, repeated)) + "</answer>").reason
    )
    assert not palaestra.verify(task, "<answer>" + ", ".join(map(str, tour[:-1])) + "</answer>").correct
    assert not palaestra.verify(
        task, "<answer>" + ", ".join(map(str, tour + tour[1:2])) + "</answer>"
    ).correct
    assert not palaestra.verify(
        task, "<answer>" + ", ".join(map(str, [*tour, n + 1])) + "</answer>"
    ).format_ok
    stated = "<answer>" + ", ".join(map(str, tour)) + f" (length {task.metadata['optimum']})</answer>"
    assert not palaestra.verify(task, stated).format_ok
