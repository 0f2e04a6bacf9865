"""The standalone curriculum: record(task, reward) / next_task(), the trainer's band rule."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.agents.curriculum import TrainerCurriculum
from palaestra.curriculum import Curriculum
from palaestra.rows import task_to_row


@settings(max_examples=60, deadline=None)
@given(outcomes=st.lists(st.booleans(), min_size=0, max_size=400), window=st.integers(1, 24))
def test_same_levels_and_events_as_the_trainer(outcomes, window):
    """One rule: the trainer's curriculum and the standalone one move the level identically."""
    trainer = TrainerCurriculum(["expression"], window=window, band=(0.3, 0.7))
    standalone = Curriculum(["expression"], window=window, band=(0.3, 0.7))
    for solved in outcomes:
        task = standalone.next_task()
        assert task.level == trainer.level("expression")
        trainer.update("expression", task.level, [solved], mean_abs_advantage=0.0)
        standalone.record(task, 1.0 if solved else 0.0)
    assert standalone.level("expression") == trainer.level("expression")
    assert standalone.events == trainer.events


def test_level_settles_where_the_solver_stops_succeeding():
    """A solver that solves every task up to level 4 and none above: the level climbs to the
    band's edge and oscillates around 4-5, never far from it."""
    curriculum = Curriculum(["expression", "long_arithmetic"], window=8)
    levels = []
    for _ in range(400):
        task = curriculum.next_task()
        curriculum.record(task, 1.0 if task.level <= 4 else 0.0)
        levels.append(curriculum.level("expression"))
    assert max(levels) == 5 and set(levels[-100:]) <= {4, 5}
    assert curriculum.level("long_arithmetic") in (4, 5)


def test_stale_results_partial_rewards_rows_and_state():
    curriculum = Curriculum(["expression"], window=2, seed=3)
    old = curriculum.next_task()
    for _ in range(2):
        curriculum.record(curriculum.next_task(), 1.0)
    assert curriculum.level("expression") == 2
    curriculum.record(old, 0.0)  # graded at level 1 after the move: not counted at level 2
    assert curriculum.state["expression"].outcomes == type(curriculum.state["expression"].outcomes)()
    task = curriculum.next_task()
    curriculum.record(task_to_row(task, "train"), 0.5)  # an export row; 0.5 < success=1.0
    assert list(curriculum.state["expression"].outcomes) == [False]
    again = Curriculum(["expression"], window=2, seed=3)
    again.load_state_dict(curriculum.state_dict())
    assert again.next_task() == curriculum.next_task()  # same stream after a restore


def test_bad_arguments_fail_fast():
    with pytest.raises(ValueError, match="unknown family"):
        Curriculum(["nope"])
    with pytest.raises(ValueError, match="band"):
        Curriculum(["expression"], band=(0.8, 0.2))
    with pytest.raises(ValueError, match="not in this curriculum"):
        Curriculum(["expression"]).record(Curriculum(["sudoku"]).next_task(), 1.0)
