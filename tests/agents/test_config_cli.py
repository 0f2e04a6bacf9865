"""Config validation, CLI flags generated from the config, and fail-fast input checks."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from palaestra.agents.config import PRESETS, TrainConfig, preset


def test_every_field_has_help_and_round_trips():
    for f in dataclasses.fields(TrainConfig):
        assert f.metadata.get("help"), f.name
    config = preset("tiny", seed=3)
    assert TrainConfig.from_dict(json.loads(config.to_json())) == config
    with pytest.raises(ValueError, match="unknown config"):
        TrainConfig.from_dict({"nope": 1})


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"group_size": 1}, "group_size"),
        ({"loss_aggregation": "mean"}, "loss_aggregation"),
        ({"band_low": 0.9, "band_high": 0.5}, "band"),
        ({"start_level": 5, "max_level": 3}, "level"),
        ({"temperature": 0.0}, "temperature"),
        ({"eval_levels": "1,11"}, "eval_levels"),
        ({"eval_levels": "one"}, "eval_levels"),
        ({"families": " , "}, "families"),
    ],
)
def test_bad_config_values_fail(bad, match):
    with pytest.raises(ValueError, match=match):
        TrainConfig(**bad)


def test_cli_flags_come_from_config_fields(monkeypatch):
    import argparse

    from palaestra.agents.cli import add_cli, config_from_args

    parser = argparse.ArgumentParser()
    add_cli(parser.add_subparsers())
    args = parser.parse_args(
        ["train", "--preset", "tiny", "--group-size", "4", "--no-plots", "--loss-aggregation", "sum"]
    )
    config = config_from_args(args)
    assert config.group_size == 4 and config.plots is False and config.loss_aggregation == "sum"
    assert config.sft_steps == PRESETS["tiny"]["sft_steps"]
    help_text = parser._subparsers._group_actions[0].choices["train"].format_help()
    for f in dataclasses.fields(TrainConfig):
        assert "--" + f.name.replace("_", "-") in help_text


def test_help_shows_each_presets_own_defaults():
    """``--preset tiny --help`` showed only the config defaults (60 steps, lr 2e-4, 0 SFT steps),
    not what the preset runs with."""
    import argparse
    import re

    from palaestra.agents.cli import add_cli

    parser = argparse.ArgumentParser()
    add_cli(parser.add_subparsers())
    help_text = parser._subparsers._group_actions[0].choices["train"].format_help()
    flat = re.sub(r"\s+", " ", help_text)
    tiny = PRESETS["tiny"]
    for name in ("steps", "learning_rate", "sft_steps"):
        assert f"preset tiny: {tiny[name]!r}" in flat, name
    assert "preset tiny self-play: 32" in flat  # micro_batch_size in the tiny self-play mode


def test_cli_reports_unknown_family_as_one_line(capsys):
    from palaestra.cli import main

    assert main(["train", "--families", "no_such_family", "--steps", "1"]) == 2
    err = capsys.readouterr().err
    assert "unknown task family" in err and err.count("\n") == 1
    assert main(["train", "--families", "expresion", "--steps", "1"]) == 2
    assert "did you mean 'expression'" in capsys.readouterr().err


def test_missing_model_path_fails_fast(tmp_path):
    pytest.importorskip("transformers")
    from palaestra.agents.policy import preflight

    with pytest.raises(ValueError, match="does not exist"):
        preflight(TrainConfig(model=str(tmp_path / "nowhere")))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="config.json"):
        preflight(TrainConfig(model=str(tmp_path / "empty")))


def test_not_a_causal_lm_fails_fast(tmp_path):
    pytest.importorskip("transformers")
    from palaestra.agents.policy import preflight

    folder = tmp_path / "classifier"
    folder.mkdir()
    (folder / "config.json").write_text(
        json.dumps({"model_type": "bert", "architectures": ["BertForSequenceClassification"]})
    )
    with pytest.raises(ValueError, match="not a causal language model"):
        preflight(TrainConfig(model=str(folder)))
    (folder / "config.json").write_text(json.dumps({"model_type": "vit"}))
    with pytest.raises(ValueError, match="not a causal language model"):
        preflight(TrainConfig(model=str(folder)))


def test_tokenizer_without_chat_template_fails_fast(tmp_path, tiny_path):
    from palaestra.agents.policy import preflight

    copy = tmp_path / "no_template"
    shutil.copytree(tiny_path, copy)
    (copy / "chat_template.jinja").unlink(missing_ok=True)
    cfg = json.loads((copy / "tokenizer_config.json").read_text())
    cfg.pop("chat_template", None)
    (copy / "tokenizer_config.json").write_text(json.dumps(cfg))
    with pytest.raises(ValueError, match="no chat template"):
        preflight(TrainConfig(model=str(copy)))


def test_config_that_cannot_fit_memory_fails_fast(tiny_path):
    from palaestra.agents.policy import preflight

    with pytest.raises(ValueError, match="GiB"):
        preflight(TrainConfig(memory_limit_gb=0.01))
    with pytest.raises(ValueError, match="GiB"):
        preflight(TrainConfig(micro_batch_size=10**7))


def test_palaestra_train_end_to_end_writes_reports(tmp_path, tiny_path, capsys):
    """`palaestra train --preset tiny --no-selfplay` (plain GRPO, shrunk): the plan line first, a
    progress bar per stage, no third-party log lines, JSONL metrics, the summary plot and table, a
    new run folder per run, loadable checkpoints for every arm. The preset's default self-play run:
    tests/agents/selfplay/test_preset.py."""
    pytest.importorskip("matplotlib")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from palaestra.agents.reporting import read_jsonl
    from palaestra.cli import main

    out = tmp_path / "runs"
    argv = ["train", "--preset", "tiny", "--no-selfplay", "--backend", "transformers", "--steps", "2"]
    argv += ["--sft-steps", "2", "--sft-target-accuracy", "0", "--prompts-per-step", "2", "--group-size", "2"]
    argv += ["--eval-tasks", "3", "--eval-samples", "2", "--output-dir", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    err = [line for line in captured.err.splitlines() if line.strip()]
    assert err[0].startswith(
        "palaestra train: SFT warm start (2 steps of 32) -> held-out eval -> GRPO (2 steps of 2 x 2) -> "
        "eval -> control: SFT continued for the same 8 sequences, eval; about "
    )
    assert "CPU-min at 1 thread" in err[0] and str(out) in err[0]
    stages = ("sft [", "rl [", "control [", "eval SFT-only, 3 problems [", "eval after RL, 3 problems [")
    for stage in (*stages, "eval control, 3 problems [", "/9 completions"):  # 3 greedy + 2 x 3 sampled
        assert stage in captured.err, stage
    assert (
        "control: SFT continued for 8 sequences (1 step of at most 32 at learning rate 0.001" in captured.err
    )
    noise = [line for line in err[1:] if not any(s in line for s in ("[", "SFT check", "control: SFT"))]
    assert noise == []  # no vLLM/torch/transformers log lines without --verbose
    assert "held-out accuracy, after GRPO" in captured.out and "gain over the control" in captured.out
    (run,) = out.iterdir()
    assert run.name.startswith("run-")
    kinds = [r["kind"] for r in read_jsonl(run / "metrics.jsonl")]
    assert kinds.count("step") == 2 and "sft" in kinds and "eval_sft" in kinds
    assert kinds[-2:] == ["control", "eval_control"] and "eval" in kinds
    assert (run / "plots" / "summary.png").stat().st_size > 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] == 2 and 0 <= summary["accuracy_after"] <= 1
    assert summary["control_sequences"] == 2 * 2 * 2  # exactly the RL run's sequences
    for arm in ("sft", "final", "control"):  # each a model folder: palaestra eval --model takes it
        folder = run / "checkpoints" / arm
        AutoModelForCausalLM.from_pretrained(folder)
        assert AutoTokenizer.from_pretrained(folder).chat_template
    assert len((run / "heldout.jsonl").read_text().splitlines()) == summary["heldout_problems"] == 3
    assert main(argv) == 0  # a second run gets its own folder
    assert len(list(out.iterdir())) == 2


def test_heldout_evaluation_covers_the_levels_the_curriculum_climbs_to():
    """The held-out evaluation used only the starting level while the curriculum climbed to 10."""
    climbing = TrainConfig(start_level=1, max_level=10)
    assert climbing.eval_level_list() == [1, 5, 10]
    assert TrainConfig(start_level=2, max_level=2).eval_level_list() == [2]
    assert TrainConfig(max_level=10, adaptive_level=False).eval_level_list() == [1]
    assert TrainConfig(eval_levels="3, 7,3").eval_level_list() == [3, 7]
    assert preset("tiny").eval_level_list() == [1]  # the tiny preset stays at its one level


def test_a_real_model_on_the_tiny_defaults_gets_a_note():
    """Real models inherited the tiny model's lr 2e-4, 24 new tokens and 512 context silently."""
    import argparse

    from palaestra.agents.cli import add_cli, config_from_args, tiny_defaults_note

    parser = argparse.ArgumentParser()
    add_cli(parser.add_subparsers())

    def note(argv):
        args = parser.parse_args(["train", *argv])
        return tiny_defaults_note(args, config_from_args(args))

    text = note(["--model", "./Qwen2.5-0.5B-Instruct", "--max-new-tokens", "512"])
    assert "learning_rate=0.0002" in text and "max_model_len=512" in text and "max_new_tokens" not in text
    assert "--config configs/" in text
    assert note(["--preset", "tiny"]) is None
    assert (
        note(["--model", "./m", "--learning-rate", "1e-6", "--max-new-tokens", "9", "--max-model-len", "99"])
        is None
    )
