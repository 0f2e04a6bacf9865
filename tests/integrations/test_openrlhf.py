"""OpenRLHF: reward_func and AgentInstance on palaestra rows, in the main environment.

OpenRLHF's own loaders and executors drive the adapter in tests/integrations/
test_openrlhf_library.py (its own venv: bash .ci/real-libs openrlhf). Here the test calls
reward_func(queries, prompts, labels) as OpenRLHF's remote reward does (queries = prompt text
followed by the response, labels = the rows' label_key column), and drives AgentInstance with
OpenRLHF's agent state dicts (reset({"observation"}), step({"observation_text", "action_text",
"label", "sampling_params"})) reading rewards/environment_feedback/done back.
"""

from __future__ import annotations

import asyncio

import pytest

import palaestra
from palaestra.integrations.openrlhf import GRADING_ERRORS, AgentInstance, reward_func
from palaestra.integrations.trl import task_rows
from palaestra.rows import row_to_task


def reference(row):
    task = row_to_task(row)
    return palaestra.get(task.family).impl.reference_response(task)


def as_list(values):
    return [float(v) for v in values]


def test_reward_func_grades_the_response_part_of_each_query():
    rows = task_rows(["sudoku", "countdown"], 2, level=2)
    prompts = [f"<|user|>{r['prompt'][-1]['content']}<|assistant|>" for r in rows]
    responses = [reference(rows[0]), "<answer>0</answer>", reference(rows[2]), reference(rows[3])]
    out = reward_func(
        [p + r for p, r in zip(prompts, responses, strict=True)], prompts, [r["extra_info"] for r in rows]
    )
    assert as_list(out["rewards"]) == [1.0, 0.0, 1.0, 1.0]
    padded = ["<pad><pad>" + p + r for p, r in zip(prompts, responses, strict=True)]  # left padding kept
    labels = [r["extra_info"] for r in rows]
    assert as_list(reward_func(padded, prompts, labels)["rewards"]) == [1.0, 0.0, 1.0, 1.0]
    # a query whose prompt was decoded differently is paid 0.0 and counted, never graded prompt
    # and all; so is a label without the task record (OpenRLHF would swallow a raise: reward None)
    before = dict(GRADING_ERRORS)
    out = reward_func([responses[0]], [prompts[0]], [rows[0]["extra_info"]])
    assert as_list(out["rewards"]) == [0.0] and as_list(out["extra_logs"]["palaestra_grading_errors"]) == [
        1.0
    ]
    out = reward_func(prompts, prompts, [{"split": "train"}] * len(prompts))
    assert as_list(out["rewards"]) == [0.0] * len(prompts)
    assert GRADING_ERRORS["bad query"] == before.get("bad query", 0) + 1
    assert GRADING_ERRORS["bad label"] == before.get("bad label", 0) + len(prompts)
    with pytest.raises(ValueError, match="1 queries, 2 prompts"):
        reward_func(prompts[:1], prompts[:2], labels[:2])


def test_agent_instance_retries_with_feedback():
    row = task_rows(["expression"], 1, level=3)[0]

    async def episode(actions):
        agent = AgentInstance()
        await agent.reset({"observation": row["prompt"][-1]["content"]})
        out = []
        for action in actions:
            result = await agent.step(
                {
                    "observation_text": "",
                    "action_text": action,
                    "label": row["extra_info"],
                    "sampling_params": None,
                }
            )
            out.append((float(result["rewards"]), result["done"], result["environment_feedback"]))
            if result["done"]:
                break
        return out

    out = asyncio.run(episode(["<answer>0.5</answer>", reference(row)]))
    assert [(r, d) for r, d, _ in out] == [(0.0, False), (1.0, True)] and "Wrong" in out[0][2]
    out = asyncio.run(episode(["a", "b", "c", "d"]))
    assert [d for _, d, _ in out] == [False, False, True]  # three attempts, then done
