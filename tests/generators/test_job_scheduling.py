"""job_scheduling: every assignment with the optimal makespan is accepted, nothing else."""

from __future__ import annotations

from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

SEEDS = st.integers(0, 2**63 - 1)


def _answer(assignment) -> str:
    return "<answer>" + ", ".join(str(m + 1) for m in assignment) + "</answer>"


def _makespan(durations, machines: int, assignment) -> int:
    return max(sum(d for d, m in zip(durations, assignment, strict=True) if m == k) for k in range(machines))


@given(seed=SEEDS, level=st.integers(1, 6))
@settings(max_examples=15, deadline=None)
def test_brute_force_optimum_and_assignments_judged_by_makespan(seed: int, level: int) -> None:
    task = palaestra.make_task("job_scheduling", seed=seed, level=level)
    durations, machines = task.metadata["durations"], task.metadata["machines"]
    spans = {a: _makespan(durations, machines, a) for a in product(range(machines), repeat=len(durations))}
    best = min(spans.values())
    assert task.metadata["optimum"] == best
    optimal = [a for a, span in spans.items() if span == best]
    others = [a for a, span in spans.items() if span != best]
    for assignment in optimal[:100] + others[:100]:
        assert palaestra.verify(task, _answer(assignment)).correct == (spans[assignment] == best)
    # relabelling the machines of an optimal schedule keeps it optimal
    swap = [machines - 1 - m for m in optimal[0]]
    assert palaestra.verify(task, _answer(swap)).correct


def test_lpt_is_never_optimal_from_level_three() -> None:
    impl = palaestra.get("job_scheduling").impl
    for seed in range(30):
        task = palaestra.make_task("job_scheduling", seed=seed, level=3 + seed % 8)
        verdict = palaestra.verify(task, impl.solve_weak(task).response)
        assert verdict.format_ok and not verdict.correct


def test_infeasible_and_malformed_assignments() -> None:
    task = palaestra.make_task("job_scheduling", seed=7, level=5)
    answer, machines = task.answer, task.metadata["machines"]
    assert palaestra.verify(task, f"<answer>[{answer}]</answer>").correct
    assert "jobs" in palaestra.verify(task, f"<answer>{answer}, 1</answer>").reason
    assert not palaestra.verify(task, f"<answer>{answer.rsplit(', ', 1)[0]}</answer>").correct
    assert not palaestra.verify(
        task, f"<answer>{answer.rsplit(', ', 1)[0]}, {machines + 1}</answer>"
    ).format_ok
    assert not palaestra.verify(task, f"<answer>{answer.rsplit(', ', 1)[0]}, 0</answer>").format_ok
    stated = f"<answer>{answer} (makespan {task.metadata['optimum']})</answer>"
    assert not palaestra.verify(task, stated).format_ok
