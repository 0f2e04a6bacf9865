"""SelfPlayLoop over a stand-in trainer (character tokens, scripted backend): completions become
trainer episodes with their self-play advantages; the CLI flags build the config."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

import pytest

from palaestra.agents.backends import Completion
from palaestra.agents.selfplay import SelfPlay, SelfPlayConfig, make_language
from palaestra.agents.selfplay.cli import add_selfplay_arguments, selfplay_config_from_args
from palaestra.agents.selfplay.trainer import SelfPlayLoop


class CharChat:
    stop_token_ids = (0,)

    def prompt_ids(self, prompt: str) -> list[int]:
        return [ord(c) for c in prompt]

    def decode(self, ids) -> str:
        return "".join(chr(i) for i in ids if i)


class ScriptedBackend:
    """Proposer prompts get a fixed task; solver prompts get the right answer in 2 of n."""

    def __init__(self) -> None:
        self.temperatures: list[float] = []

    def close(self) -> None:
        pass

    def generate(self, prompt_ids, n, sampling):
        self.temperatures.append(sampling.temperature)
        groups = []
        for ids in prompt_ids:
            prompt = "".join(map(chr, ids))
            if prompt.startswith("Invent"):
                texts = ["<task>6*7</task>"] * n
            else:
                texts = ["<answer>42</answer>"] * 2 + ["<answer>41</answer>"] * (n - 2)
            groups.append(
                [Completion([ord(c) for c in t] + [0], [-0.5] * (len(t) + 1), "stop") for t in texts]
            )
        return groups


@dataclass
class Config:
    max_new_tokens: int = 32


class FakeTrainer:
    def __init__(self) -> None:
        self.config = Config()
        self.chat = CharChat()
        self.backend = ScriptedBackend()
        self.updates: list[tuple[list, list]] = []
        self.syncs = 0

    def update(self, episodes, advantages):
        self.updates.append((episodes, advantages))
        return {"train/loss": 0.0}

    def sync(self) -> None:
        self.syncs += 1


def test_selfplay_loop_trains_on_proposals_and_probes() -> None:
    trainer = FakeTrainer()
    play = SelfPlay(make_language("arith"), SelfPlayConfig(proposals_per_type=2, temperature=0.9))
    loop = SelfPlayLoop(trainer, play)
    result, metrics = loop.step()
    assert set(trainer.backend.temperatures) == {0.9}
    # proposal 1 valid (p = 2/8), proposal 2 a duplicate of it: the two get different rewards
    assert [s.reward for s in result.proposer] == pytest.approx([0.75, -1.0])
    episodes, advantages = trainer.updates[0]
    assert trainer.syncs == 1 and metrics["train/episodes"] == len(episodes)
    by_role = {}
    for e in episodes:
        by_role.setdefault(e.family, []).append(e)
    assert len(by_role["selfplay/proposer/arith"]) == 2
    assert len(by_role["selfplay/solver/arith"]) == 8  # every probe attempt is trained on
    assert all(
        e.completion_ids[-1] == 0 and len(e.rollout_logprobs) == len(e.completion_ids) for e in episodes
    )
    samples = [s for s in result.proposer + result.solver if s.advantage != 0.0]
    assert sorted(zip([e.text for e in episodes], advantages, strict=True)) == sorted(
        (s.completion, s.advantage) for s in samples
    )
    lengths = [len(e.prompt_ids) + len(e.completion_ids) for e in episodes]
    assert lengths == sorted(lengths)  # shortest first: micro-batches of similar length


def test_cli_flags_build_the_config() -> None:
    parser = argparse.ArgumentParser()
    add_selfplay_arguments(parser)
    args = parser.parse_args(["--selfplay", "--selfplay-reward", "rzero", "--selfplay-probes", "16"])

    @dataclass
    class Train:
        temperature: float = 0.8
        seed: int = 3

        def family_list(self):
            return ["expression"]

    config = selfplay_config_from_args(args, Train())
    assert (args.selfplay, args.selfplay_language) == (True, "arith")
    assert (config.reward_form, config.probes, config.temperature, config.seed) == ("rzero", 16, 0.8, 3)
    with pytest.raises(SystemExit):
        parser.parse_args(["--selfplay-language", "cobol"])


def test_run_selfplay_orchestration_and_resume(tmp_path, monkeypatch) -> None:
    """run_selfplay with a stand-in trainer and checkpoint functions: it evaluates the starting
    point, steps, checkpoints weights + self-play state together, and resumes from them."""
    pytest.importorskip("torch")
    import palaestra
    import palaestra.agents.checkpoint as checkpoint
    import palaestra.agents.run  # noqa: F401  imported before the patch: its GRPOTrainer stays the real one
    import palaestra.agents.trainer as trainer_module
    from palaestra.agents.config import preset
    from palaestra.agents.heldout_eval import EvalResult
    from palaestra.agents.reporting import read_jsonl
    from palaestra.agents.selfplay.cli import run_selfplay
    from palaestra.agents.tasks import TaskSpace
    from palaestra.agents.teacher import Teacher

    saved: dict[int, dict] = {}

    class Trainer(FakeTrainer):
        def __init__(self, config, backend=None):
            super().__init__()
            self.config, self.step_count, self.evals = config, 0, 0
            self.space, self.teacher = TaskSpace.from_config(config), Teacher.from_config(config)

        def snapshot_reference(self):
            pass

        def eval_tasks(self):
            return [palaestra.make_task("expression", seed=s, level=1) for s in range(2)]

        def evaluate_full(self, progress=None):
            self.evals += 1
            metrics = {"eval/accuracy": 0.5, "eval/accuracy_se": 0.5, "eval/problems": 2.0}
            return EvalResult(metrics, {"a": 1.0, "b": 0.0})

    def save(trainer, extra=None, name=None):
        saved[trainer.step_count] = json.loads(json.dumps(extra))
        return tmp_path / f"step_{trainer.step_count}"

    def load(trainer, path):
        trainer.step_count = max(saved)
        return saved[max(saved)]

    monkeypatch.setattr(trainer_module, "GRPOTrainer", Trainer)
    monkeypatch.setattr(checkpoint, "save_checkpoint", save)
    monkeypatch.setattr(checkpoint, "load_checkpoint", load)
    monkeypatch.setattr(checkpoint, "latest_checkpoint", lambda out: tmp_path if saved else None)
    common = dict(
        sft_steps=0, control=False, output_dir=str(tmp_path / "run"), run_subfolder=False, progress=False
    )
    config = preset("tiny", steps=2, checkpoint_every=1, **common)
    summary = run_selfplay(config, SelfPlayConfig(proposals_per_type=2), "arith", quiet=True)
    assert summary["steps"] == 2 and summary["accuracy_sft_only"] == 0.5 and "control" not in summary["arms"]
    kinds = [r["kind"] for r in read_jsonl(tmp_path / "run" / "metrics.jsonl")]
    assert kinds == ["eval_sft", "selfplay", "selfplay", "eval"]
    assert (tmp_path / "run" / "plots" / "selfplay.png").exists() or not _has_matplotlib()
    assert sorted(saved) == [1, 2] and saved[2]["selfplay"]["step"] == 2
    resumed = run_selfplay(
        preset("tiny", steps=3, resume=True, **common),
        SelfPlayConfig(proposals_per_type=2),
        "arith",
        quiet=True,
    )
    assert resumed["steps"] == 3 and "accuracy_sft_only" not in resumed
    assert (
        saved[3]["selfplay"]["buffers"]["arith"]["entries"][0]
        == saved[2]["selfplay"]["buffers"]["arith"]["entries"][0]
    )


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


class CountingBackend(ScriptedBackend):
    """Distinct valid proposals (``<task>k*7</task>``); counts engine calls and their prompts."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []
        self.proposed = 0

    def generate(self, prompt_ids, n, sampling):
        self.calls.append(len(prompt_ids))
        groups = super().generate(prompt_ids, n, sampling)
        for k, ids in enumerate(prompt_ids):
            if "".join(map(chr, ids)).startswith("Invent"):
                self.proposed += 1
                text = f"<task>{self.proposed}*7</task>"
                groups[k] = [Completion([ord(c) for c in text] + [0], [-0.5] * (len(text) + 1), "stop")] * n
        return groups


def test_a_steps_probes_go_to_the_engine_in_one_call() -> None:
    """Probes were generated one proposal at a time (up to 48 calls of 8 samples per step)."""
    trainer = FakeTrainer()
    trainer.backend = CountingBackend()
    play = SelfPlay(make_language("arith"), SelfPlayConfig(proposals_per_type=5, temperature=0.9))
    result, metrics = SelfPlayLoop(trainer, play).step()
    assert metrics["rejections"]["ok"] == 5
    assert trainer.backend.calls == [5, 5]  # the proposals, then every proposal's probes at once
    assert len([s for s in result.solver if s.source == "probe"]) == 5 * play.config.probes
