"""verl 0.7.1 itself, for the pre-0.9 interaction protocol: the documented interaction YAML through
verl's interaction registry, driven by verl 0.7.1's own ToolAgentLoop with a scripted model.

verl 0.9 no longer ships ``verl.interactions``; 0.7.1 is the last release that does. It runs in its
own virtual environment (``bash .ci/real-libs verl-interactions``), where a missing verl is a
failure; in the main environment the module is skipped, counted.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import re
from pathlib import Path

import pytest

PINNED = "0.7.1"
if os.environ.get("PALAESTRA_REAL_LIB") == "verl-interactions":
    verl = importlib.import_module("verl")
else:
    verl = pytest.importorskip(
        "verl.interactions",
        reason=f"verl {PINNED} runs in its own venv: bash .ci/real-libs verl-interactions",
    )

from hydra import compose, initialize_config_dir  # noqa: E402

import palaestra  # noqa: E402
import palaestra.integrations.verl as adapter  # noqa: E402
from palaestra.integrations.trl import task_rows  # noqa: E402
from palaestra.rows import row_to_task  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
CONFIG_DIR = Path(importlib.import_module("verl").__file__).parent / "trainer" / "config"


def test_the_release_is_the_one_pinned() -> None:
    print("verl", importlib.metadata.version("verl"))
    assert importlib.metadata.version("verl") == PINNED


def documented_interaction_config(folder: Path) -> Path:
    section = DOCS.read_text().split("Multi-turn feedback, verl < 0.9", 1)[1]
    path = folder / "interaction_config.yaml"
    path.write_text(re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1))
    return path


class ScriptedServer:
    """verl's server manager, scripted turns standing in for the model."""

    def __init__(self, tokenizer, turns: list[str]) -> None:
        self.tokenizer, self.turns = tokenizer, list(turns)

    async def generate(self, *, request_id, prompt_ids, sampling_params, **_):
        from verl.workers.rollout.replica import TokenOutput

        ids = self.tokenizer.encode(self.turns.pop(0), add_special_tokens=False)
        return TokenOutput(token_ids=ids, log_probs=[-0.5] * len(ids))


def run_loop(config, tokenizer, row: dict, turns: list[str], server: ScriptedServer | None = None):
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap
    from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
    from verl.utils.dataset.rl_dataset import RLHFDataset

    loop = ToolAgentLoop(
        trainer_config=DictConfigWrap(config),
        server_manager=server or ScriptedServer(tokenizer, turns),
        tokenizer=tokenizer,
        processor=None,
        dataset_cls=RLHFDataset,
        data_config=DictConfigWrap(config.data),
    )
    run = loop.run({}, raw_prompt=row["prompt"], extra_info=row["extra_info"])
    return loop.loop.run_until_complete(run)


def test_verls_agent_loop_drives_the_documented_interaction(tmp_path: Path) -> None:
    """A wrong answer gets the verifier's reason as the next user turn (turn score 0), the right
    one ends the episode with turn score 1.0; three wrong answers use up the attempts."""
    from transformers import AutoTokenizer

    from palaestra.agents.tiny import build_tiny

    path = documented_interaction_config(tmp_path)
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base=None):
        config = compose(
            config_name="ppo_trainer",
            overrides=[
                "actor_rollout_ref.rollout.multi_turn.enable=true",
                f"actor_rollout_ref.rollout.multi_turn.interaction_config_path={path}",
                "data.max_prompt_length=2048",
                "data.max_response_length=2048",
            ],
        )
    tokenizer = AutoTokenizer.from_pretrained(build_tiny())
    for row in task_rows(["expression", "sudoku", "knights_knaves"], 2, level=2):
        row = adapter.with_interaction_kwargs(row)
        task = row_to_task(row)
        right = palaestra.get(task.family).impl.reference_response(task)
        output = run_loop(config, tokenizer, row, ["<answer>surely not</answer>", right])
        assert output.extra_fields["turn_scores"] == [0.0, 1.0], (task.family, output.extra_fields)
        output = run_loop(config, tokenizer, row, ["<answer>x</answer>"] * 3)
        assert output.extra_fields["turn_scores"] == [0.0, 0.0, 0.0]
        # two attempts: the episode ends after the second wrong answer, the third turn never runs
        server = ScriptedServer(tokenizer, ["<answer>x</answer>", "<answer>y</answer>", "never sent"])
        two = adapter.with_interaction_kwargs(task_rows([task.family], 1, level=2)[0], max_attempts=2)
        output = run_loop(config, tokenizer, two, [], server)
        assert output.extra_fields["turn_scores"] == [0.0, 0.0] and server.turns == ["never sent"]
