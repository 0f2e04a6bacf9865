"""--log-to tensorboard,wandb: every logged row mirrored as scalars, read back from the files."""

from __future__ import annotations

import json

import pytest

from palaestra.agents.tracking import parse_trackers, scalars


def test_scalars_keep_finite_numbers_named_by_row_kind():
    row = {"kind": "step", "step": 3, "train/loss": 0.5, "ok": True, "nan": float("nan"), "d": {"a": 1}}
    assert scalars(row) == {"step/train/loss": 0.5}
    with pytest.raises(ValueError, match="unknown trackers"):
        parse_trackers("tensorboard,mlflow")


def test_a_run_logs_to_tensorboard_and_wandb(tmp_path, tiny_path, monkeypatch):
    pytest.importorskip("tensorboard")
    pytest.importorskip("wandb")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from palaestra.agents.config import TrainConfig
    from palaestra.agents.run import run_training

    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    config = TrainConfig(
        backend="transformers", steps=2, prompts_per_step=2, group_size=2, max_new_tokens=4, eval_tasks=2,
        control=False, output_dir=str(tmp_path), run_subfolder=False, progress=False, plots=False,
        drop_zero_variance=False, log_to="tensorboard,wandb",
    )  # fmt: skip
    run_training(config, quiet=True)
    events = EventAccumulator(str(tmp_path / "tensorboard"))
    events.Reload()
    losses = [e.value for e in events.Scalars("step/train/loss")]
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert losses == pytest.approx([r["train/loss"] for r in rows if r["kind"] == "step"])
    assert [e.step for e in events.Scalars("step/train/loss")] == [1, 2]
    offline = list((tmp_path / "wandb").glob("offline-run-*/run-*.wandb"))
    assert len(offline) == 1 and offline[0].stat().st_size > 0
