"""set_cover: every minimum cover is accepted and nothing else (optimum by brute force here)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

SEEDS = st.integers(0, 2**63 - 1)


def _answer(choice) -> str:
    return "<answer>" + ", ".join(str(i + 1) for i in choice) + "</answer>"


def _covers(sets, elements: int, choice) -> bool:
    return set().union(*(sets[i] for i in choice)) == set(range(1, elements + 1))


@given(seed=SEEDS, level=st.integers(1, 8))
@settings(max_examples=20, deadline=None)
def test_brute_force_minimum_and_all_minimum_covers_accepted(seed: int, level: int) -> None:
    task = palaestra.make_task("set_cover", seed=seed, level=level)
    sets, elements = task.metadata["sets"], task.metadata["elements"]
    best = next(
        size
        for size in range(1, len(sets) + 1)
        if any(_covers(sets, elements, c) for c in combinations(range(len(sets)), size))
    )
    assert task.metadata["optimum"] == best
    for size in (best - 1, best, best + 1):
        for k, choice in enumerate(combinations(range(len(sets)), size)):
            if k == 300:
                break
            verdict = palaestra.verify(task, _answer(choice[::-1]))
            assert verdict.correct == (size == best and _covers(sets, elements, choice)), (choice, verdict)


def test_greedy_is_never_optimal_from_level_three() -> None:
    impl = palaestra.get("set_cover").impl
    for seed in range(30):
        task = palaestra.make_task("set_cover", seed=seed, level=3 + seed % 8)
        run = impl.solve_weak(task)
        verdict = palaestra.verify(task, run.response)
        assert verdict.format_ok and not verdict.correct and "fewer suffice" in verdict.reason


def test_infeasible_and_malformed_answers() -> None:
    task = palaestra.make_task("set_cover", seed=5, level=5)
    chosen = task.answer.split(", ")
    assert palaestra.verify(task, "<answer>{" + ", ".join(chosen[::-1]) + "}</answer>").correct
    assert "do not cover" in palaestra.verify(task, "<answer>" + ", ".join(chosen[1:]) + "</answer>").reason
    twice = palaestra.verify(task, "<answer>" + ", ".join(chosen + chosen[:1]) + "</answer>")
    assert twice.format_ok and "more than once" in twice.reason
    too_many = len(task.metadata["sets"]) + 1
    assert not palaestra.verify(task, f"<answer>{task.answer}, {too_many}</answer>").format_ok
    assert not palaestra.verify(task, f"<answer>Set {task.answer}</answer>").format_ok
    assert not palaestra.verify(task, "<answer>none</answer>").correct
