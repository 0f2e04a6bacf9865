"""OpenRLHF 0.11.2 itself: its agent loader, its multi-turn executor, its reward-function loader and
its command-line flags, with palaestra's adapter and a scripted model.

OpenRLHF's release needs CUDA packages (DeepSpeed, flash-attn, vLLM); the parts that load and run
an adapter do not, so ``.ci/real-libs openrlhf`` installs the wheel with ``--no-deps`` beside the
few packages those parts import (torch CPU, transformers 5.15, aiohttp, pylatexenc) and runs this
module there (PALAESTRA_REAL_LIB=openrlhf). Ray and vLLM, which OpenRLHF's engine module imports at
the top, are absent there: the loader test replaces just those two modules, as OpenRLHF's own tests
do. Scripted outputs stand in only for the LLM.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import importlib.metadata
import logging
import os
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest

PINNED = "0.11.2"
if os.environ.get("PALAESTRA_REAL_LIB") == "openrlhf":  # its own venv: missing OpenRLHF is an error
    agent = importlib.import_module("openrlhf.utils.agent")
else:
    agent = pytest.importorskip(
        "openrlhf.utils.agent", reason=f"openrlhf {PINNED} runs in its own venv: bash .ci/real-libs openrlhf"
    )

import palaestra  # noqa: E402
import palaestra.integrations.openrlhf as adapter  # noqa: E402
from palaestra.integrations.trl import task_rows  # noqa: E402
from palaestra.rows import row_to_task  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"


def test_the_release_is_the_one_pinned() -> None:
    print("openrlhf", importlib.metadata.version("openrlhf"))
    assert importlib.metadata.version("openrlhf") == PINNED


def reference(row: dict) -> str:
    task = row_to_task(row)
    return palaestra.get(task.family).impl.reference_response(task)


class CharTokenizer:
    """One token per character: the tokenizer side of the scripted model."""

    def __call__(self, text: str, add_special_tokens: bool = False, return_tensors: str | None = None):
        import torch

        return {"input_ids": torch.tensor([[ord(c) for c in text]])}

    def decode(self, ids, skip_special_tokens: bool = False) -> str:
        return "".join(chr(i) for i in ids)


class ScriptedEngine:
    """Answers with the next scripted text, whatever the prompt (vLLM's generate, as OpenRLHF calls it)."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = list(answers)

    async def generate(self, prompt_tokens, sampling_params, multi_modal_data=None):
        text = self.answers.pop(0)
        output = SimpleNamespace(
            token_ids=[ord(c) for c in text], text=text, finish_reason="stop", logprobs=None
        )
        return SimpleNamespace(outputs=[output])


def load_agent_executor():
    """OpenRLHF's own ``_load_agent_executor`` (vllm_engine imports ray and vllm at its top)."""
    with mock.patch.dict(sys.modules, {"ray": mock.MagicMock(), "vllm": mock.MagicMock()}):
        sys.modules["ray.util.placement_group"] = mock.MagicMock()
        sys.modules["ray.util.scheduling_strategies"] = mock.MagicMock()
        sys.modules["vllm.inputs"] = mock.MagicMock()
        sys.modules["vllm.utils"] = mock.MagicMock()
        engine = importlib.import_module("openrlhf.trainer.ray.vllm_engine")
        return engine._load_agent_executor(adapter.__file__)


def test_openrlhf_loads_and_runs_the_multi_turn_agent() -> None:
    executor = load_agent_executor()
    assert isinstance(executor, agent.MultiTurnAgentExecutor)
    row = task_rows(["expression"], 1, level=3)[0]
    prompt = row["prompt"][-1]["content"]
    engine = ScriptedEngine(["<answer>0.5</answer>", reference(row)])
    sampling = SimpleNamespace(max_tokens=64, logprobs=None)
    result = asyncio.run(executor.execute(prompt, row["extra_info"], sampling, 4096, CharTokenizer(), engine))
    assert float(result["reward"]) == 1.0 and not engine.answers  # wrong, feedback, then right
    observation = CharTokenizer().decode(result["observation_tokens"])
    assert "Wrong:" in observation and "Try again" in observation


def test_openrlhf_loads_the_reward_function_and_grades_with_it() -> None:
    executor = agent.SingleTurnAgentExecutor(remote_rm_url=adapter.__file__)
    rows = task_rows(["sudoku", "countdown"], 1, level=2)
    prompts = [f"<|user|>{r['prompt'][-1]['content']}<|assistant|>" for r in rows]
    queries = [prompts[0] + reference(rows[0]), prompts[1] + "<answer>0</answer>"]
    labels = [r["extra_info"] for r in rows]
    results = asyncio.run(executor._fetch_rewards_via_func(queries, prompts, labels))  # one call per sample
    assert [float(r["rewards"][0]) for r in results] == [1.0, 0.0]


def test_an_ungradable_label_is_an_explicit_zero_not_a_swallowed_none(caplog) -> None:
    """OpenRLHF logs a raising reward at INFO and leaves the reward None: palaestra pays 0.0,
    warns and counts instead."""
    executor = agent.SingleTurnAgentExecutor(remote_rm_url=adapter.__file__)
    before = sum(adapter.GRADING_ERRORS.values())
    with caplog.at_level(logging.WARNING, logger=adapter.__name__):
        results = asyncio.run(executor._fetch_rewards_via_func(["q answer"], ["q "], [{"split": "train"}]))
    assert float(results[0]["rewards"][0]) == 0.0
    assert float(results[0]["extra_logs"]["palaestra_grading_errors"][0]) == 1.0
    assert sum(adapter.GRADING_ERRORS.values()) == before + 1
    assert any("could not grade" in r.getMessage() for r in caplog.records)


def openrlhf_flags() -> set[str]:
    """Every flag train_ppo_ray's own parser declares (read from the installed module's source)."""
    source = Path(importlib.util.find_spec("openrlhf.cli.train_ppo_ray").origin).read_text()
    flags = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
            flags |= {
                a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("--")
            }
    return flags


def test_every_documented_flag_is_one_openrlhf_declares() -> None:
    section = DOCS.read_text().split("## OpenRLHF", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)```", section, re.DOTALL) + [adapter.__doc__]
    documented = {flag for text in commands for flag in re.findall(r"(--[a-z_]+(?:\.[a-z_]+)*)", text)}
    assert {"--reward.remote_url", "--train.agent_func_path", "--data.label_key"} <= documented
    assert documented <= openrlhf_flags(), documented - openrlhf_flags()


def test_openrlhfs_remote_reward_grades_through_palaestra_serve(loopback) -> None:
    """OpenRLHF's HTTP remote reward (``--reward.remote_url http://.../openrlhf/reward``) against
    palaestra serve on loopback: OpenRLHF's own client posts {query, prompts, labels}."""
    from palaestra.server import create_app

    rows = task_rows(["sudoku", "countdown"], 1, level=2)
    prompts = [f"<|user|>{r['prompt'][-1]['content']}<|assistant|>" for r in rows]
    queries = [prompts[0] + reference(rows[0]), prompts[1] + "<answer>0</answer>"]
    labels = [r["extra_info"] for r in rows]
    with loopback(create_app(workers=1)) as url:
        executor = agent.SingleTurnAgentExecutor(remote_rm_url=url + "/openrlhf/reward")
        results = asyncio.run(executor._fetch_rewards_via_http(queries, prompts, labels))
        bad = asyncio.run(executor._fetch_rewards_via_http(["q a"], ["q "], [{"split": "train"}]))
    assert [r for result in results for r in result["rewards"]] == [1.0, 0.0]
    assert bad[0]["rewards"] == [0.0] and bad[0]["extra_logs"]["palaestra_grading_errors"] == [1.0]
