"""The run's CPU settings, its plan line and the numbers it reports."""

from __future__ import annotations

import os

import pytest

from palaestra.agents.config import TrainConfig


@pytest.fixture
def torch_threads(monkeypatch):
    """torch with its intra-op threads (and the thread environment) restored after the test."""
    torch = pytest.importorskip("torch")
    for name in ("OMP_NUM_THREADS", "VLLM_ENABLE_V1_MULTIPROCESSING", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(name, raising=False)  # restored as they were after the test
    # an in-process vLLM engine built earlier in this process makes set_num_threads a no-op
    monkeypatch.setattr(torch, "set_num_threads", torch._C.set_num_threads)
    before = torch.get_num_threads()
    yield torch
    torch._C.set_num_threads(before)


def test_cpu_runs_use_one_thread_unless_asked(torch_threads, monkeypatch):
    """Regression: nothing set torch's threads, so a run took torch's default (one per core), which
    on a busy 2-core machine cost ~10x the CPU per step. One thread unless --threads or
    OMP_NUM_THREADS asks for more."""
    from palaestra.agents.run import cpu_defaults

    torch = torch_threads
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    torch.set_num_threads(2)
    cpu_defaults(TrainConfig(device="cpu"))
    assert torch.get_num_threads() == 1 and os.environ["OMP_NUM_THREADS"] == "1"
    cpu_defaults(TrainConfig(device="cpu", threads=2))
    assert torch.get_num_threads() == 2 and os.environ["OMP_NUM_THREADS"] == "2"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    cpu_defaults(TrainConfig(device="cpu"))
    assert torch.get_num_threads() == 3


def test_threads_flag(monkeypatch):
    import argparse

    from palaestra.agents.cli import add_cli, config_from_args

    parser = argparse.ArgumentParser()
    add_cli(parser.add_subparsers())
    assert config_from_args(parser.parse_args(["train", "--preset", "tiny", "--threads", "4"])).threads == 4
    with pytest.raises(ValueError, match="threads"):
        TrainConfig(threads=-1)


def _summary(control: float) -> dict:
    return {
        "mode": "self-play",
        "heldout_problems": 500,
        "accuracy_sft_only": 0.478,
        "accuracy_se_sft_only": 0.02,
        "accuracy_control": control,
        "accuracy_se_control": 0.02,
        "accuracy_after": 0.9,
        "accuracy_se_after": 0.01,
        "control_below_start": control < 0.478,
        "control_steps": 131,
        "control_sequences": 4192,
        "control_learning_rate": 1e-3,
        "wall_seconds": 600.0,
        "cpu_seconds": 420.0,
        "threads": 1,
        "run_dir": "runs/x",
        "checkpoints": {},
    }


def test_a_control_below_its_start_is_reported_with_its_steps_and_rate():
    """Regression: a control that ended below SFT-only (0.352 < 0.478) was reported as if it were a
    fair baseline, flattering the gain over it."""
    from palaestra.agents.run import render_summary

    text = render_summary(_summary(0.352))
    assert (
        "the control ended below its start (0.352 < 0.478) after 131 more SFT steps (4192 sequences) "
        "at learning rate 0.001"
    ) in text
    assert "below its start" not in render_summary(_summary(0.5))
    assert "CPU minutes" in text and "7.0 (1 thread)" in text


def test_plan_line_says_cpu_time_from_per_step_costs():
    from palaestra.agents import run
    from palaestra.agents.config import preset

    config = preset("tiny", device="cpu", threads=1)
    line = run.plan_line(config, "GRPO", "40 steps of 16 x 8", config.rl_sequences())
    seconds = run.estimate_cpu_seconds(config, config.rl_sequences())
    assert f"about {seconds / 60:.0f} CPU-min at 1 thread" in line
    assert "control: SFT continued for the same 5120 sequences" in line
    longer = run.estimate_cpu_seconds(preset("tiny", sft_steps=1600), config.rl_sequences())
    extra = 800 * 32 * run.CPU_SECONDS_PER_SFT_SEQUENCE
    assert longer - seconds == pytest.approx(extra)


def _step_rows(steps: int, *, kl: bool, level_moves: bool, families: int) -> list[dict]:
    rows = []
    for s in range(1, steps + 1):
        reward = 0.1 * s
        row = {"kind": "step", "step": s, "rollout/reward": reward, "train/entropy": 1.0 / s}
        row["train/kl"] = 0.01 * s if kl else 0.0
        row["curriculum/expression/level"] = 1 + (s // 2 if level_moves else 0)
        for f in range(families):
            row[f"solve/f{f}"] = reward if families == 1 else reward / (f + 1)
        rows.append(row)
    return rows


def test_training_plot_leaves_out_flat_and_duplicate_panels():
    """Regression: the GRPO training.png showed a flat curriculum-level panel, a flat KL panel and a
    solve-rate panel repeating the reward."""
    from palaestra.agents.reporting import informative_panels, updates_before

    flat = [t for t, _, _ in informative_panels(_step_rows(5, kl=False, level_moves=False, families=1))]
    assert flat == ["reward", "entropy"]
    moving = [t for t, _, _ in informative_panels(_step_rows(5, kl=True, level_moves=True, families=2))]
    assert moving == [
        "reward",
        "solve rate per family / level",
        "curriculum level",
        "KL to reference",
        "entropy",
    ]
    assert updates_before({"kind": "step", "step": 1}) == 0  # step 1's rollouts: the policy at 0 updates
    assert updates_before({"kind": "selfplay", "step": 0}) == 0


def test_plots_start_at_step_0_with_labelled_axes(tmp_path, monkeypatch):
    """Regression: summary.png's held-out curve had no step-0 point; training panels no y labels."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from palaestra.agents.heldout_eval import EvalResult
    from palaestra.agents.reporting import plot_metrics, plot_summary

    rows = _step_rows(4, kl=True, level_moves=True, families=2)
    rows += [
        {"kind": "eval_sft", "step": 0, "eval/accuracy": 0.4},
        {"kind": "eval", "step": 2, "eval/accuracy": 0.6},
        {"kind": "eval", "step": 4, "eval/accuracy": 0.8},
    ]
    arms = {
        a: EvalResult({"eval/accuracy": v, "eval/accuracy_se": 0.01, "eval/problems": 10})
        for a, v in (("sft", 0.4), ("control", 0.0), ("trained", 0.8))
    }
    captured = {}
    real_savefig = plt.Figure.savefig

    def keep(fig, path, *args, **kwargs):
        captured[str(path)] = fig
        return real_savefig(fig, path, *args, **kwargs)

    monkeypatch.setattr(plt.Figure, "savefig", keep)
    plot_summary(rows, arms, tmp_path / "summary.png", "step", "rollout/reward", "GRPO")
    plot_metrics(rows, tmp_path)
    left, right = captured[str(tmp_path / "summary.png")].axes[:2]
    curve = next(line for line in left.lines if line.get_label() == "held-out accuracy during training")
    assert list(curve.get_xdata()) == [0, 2, 4]
    reward = next(line for line in left.lines if line.get_label() == "training reward")
    assert list(reward.get_xdata())[0] == 0
    assert "0.00" in [t.get_text() for t in right.texts]  # the control's zero bar is labelled
    training = captured[str(tmp_path / "training.png")]
    assert all(ax.get_ylabel() and ax.get_xlabel() for ax in training.axes)
