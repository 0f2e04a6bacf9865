"""prime-intellect verifiers: load_environment builds a SingleTurnEnv / MultiTurnEnv.

verifiers is not installed here (it pulls openai, mcp, prime-sandboxes and more). Stand-in: a
minimal `verifiers` module with the constructor signatures the library documents
(Rubric(funcs, weights), SingleTurnEnv/MultiTurnEnv(dataset, eval_dataset, system_prompt,
rubric, max_turns, ...)), whose rubric calls reward functions by argument name as verifiers
does (completion, answer, info, state, ...), and which drives MultiTurnEnv through
env_response/is_completed as its rollout loop does.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import types

import pytest

import palaestra

pytest.importorskip("datasets")


class Rubric:
    def __init__(self, funcs=(), weights=()):
        self.funcs, self.weights = list(funcs), list(weights)

    def score(self, **available):
        total = 0.0
        for func, weight in zip(self.funcs, self.weights, strict=True):
            names = inspect.signature(func).parameters
            kwargs = {k: v for k, v in available.items() if k in names or "kwargs" in names}
            total += weight * func(**kwargs)
        return total


class MultiTurnEnv:
    def __init__(
        self, dataset=None, eval_dataset=None, system_prompt=None, rubric=None, max_turns=10, **kwargs
    ):
        self.dataset, self.eval_dataset, self.system_prompt, self.rubric, self.max_turns = (
            dataset,
            eval_dataset,
            system_prompt,
            rubric,
            max_turns,
        )


class SingleTurnEnv(MultiTurnEnv):
    pass


@pytest.fixture
def vf(monkeypatch):
    module = types.ModuleType("verifiers")
    module.Rubric, module.MultiTurnEnv, module.SingleTurnEnv = Rubric, MultiTurnEnv, SingleTurnEnv
    monkeypatch.setitem(sys.modules, "verifiers", module)
    return module


def reference(info):
    task = palaestra.Task.from_json(info["task"])
    return palaestra.get(task.family).impl.reference_response(task)


def test_single_turn_environment(vf):
    from palaestra.integrations.verifiers import load_environment

    env = load_environment(families=["sudoku", "expression"], n=3, level=2, eval_n=2)
    assert isinstance(env, vf.SingleTurnEnv) and len(env.dataset) == 6 and len(env.eval_dataset) == 4
    row = env.dataset[0]
    assert set(row) == {"question", "answer", "task", "info"} and row["task"] == "sudoku"
    for row in env.dataset:
        right = [{"role": "assistant", "content": reference(row["info"])}]
        assert env.rubric.score(completion=right, answer=row["answer"], info=row["info"], state={}) == 1.0
        wrong = [{"role": "assistant", "content": "<answer>0</answer>"}]
        assert env.rubric.score(completion=wrong, answer=row["answer"], info=row["info"], state={}) == 0.0


def test_feedback_environment_rollout(vf):
    from palaestra.integrations.verifiers import load_environment

    env = load_environment(families=["expression"], n=1, level=3, multi_turn=True, max_attempts=2)
    assert isinstance(env, vf.MultiTurnEnv) and env.max_turns == 2
    row = env.dataset[0]

    async def rollout(answers):
        state, messages = {"info": row["info"]}, [{"role": "user", "content": row["question"]}]
        for answer in answers:
            messages.append({"role": "assistant", "content": answer})
            if await env.is_completed(messages, state):
                break
            reply, state = await env.env_response(messages, state)
            messages += reply
            if await env.is_completed(messages, state):
                break
        return messages, state

    messages, state = asyncio.run(rollout(["<answer>0.5</answer>", reference(row["info"])]))
    assert (
        state["palaestra_solved"]
        and "Wrong" in messages[2]["content"]
        and messages[-1]["content"] == "Correct."
    )
    _, state = asyncio.run(rollout(["a", "b", "c"]))
    assert not state["palaestra_solved"] and state["palaestra_attempts"] == 2
