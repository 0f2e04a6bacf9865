"""Data-parallel training (agents/distributed.py) under ``torchrun`` with 2 CPU processes (gloo):
the same numbers as one process training on the whole batch, and a checkpoint of the 2-process run
that resumes in one process. The tests launch real processes: slow."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

DRIVER = Path(__file__).parent / "drivers" / "update_driver.py"
TRAIN = [
    "train", "--preset", "tiny", "--no-selfplay", "--backend", "vllm", "--steps", "2", "--sft-steps", "0",
    "--prompts-per-step", "4", "--group-size", "4", "--max-new-tokens", "8", "--eval-tasks", "4",
    "--no-control", "--checkpoint-every", "1", "--no-run-subfolder", "--no-progress", "--no-plots",
    # the untrained model earns no reward: the entropy bonus gives every step a gradient to compare
    "--no-drop-zero-variance", "--entropy-coef", "0.01", "--vllm-kv-cache-mb", "64",
]  # fmt: skip
ENV = {"VLLM_ENABLE_V1_MULTIPROCESSING": "0", "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}


def run(argv: list[str], processes: int, timeout: int = 900) -> str:
    if processes > 1:
        launcher = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(processes)]
        argv = [*launcher, *argv]
    else:
        argv = [sys.executable, *argv]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    done = subprocess.run(argv, capture_output=True, text=True, env={**env, **ENV}, timeout=timeout)
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def palaestra_cli() -> str:
    return str(Path(sys.executable).with_name("palaestra"))


def steps(run_dir: Path) -> dict[int, dict]:
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    out = {}
    for row in rows:
        if row["kind"] == "step":
            assert row["step"] not in out, "a step logged twice: only the first process writes"
            out[row["step"]] = row
    return out


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-4 * max(abs(a), abs(b), 1e-12)


def test_two_process_update_equals_one_process_on_a_rewarded_batch(tmp_path, tiny_path):
    """Mixed rewards, a KL reference, the entropy bonus and two PPO epochs over micro-batches of 4:
    the 2-process update (each trains on half the batch) gives the 1-process loss and gradient norm."""
    one = json.loads(run([str(DRIVER), str(tmp_path / "one")], 1).strip().splitlines()[-1])
    two = json.loads(run([str(DRIVER), str(tmp_path / "two")], 2).strip().splitlines()[-1])
    assert (one["world"], two["world"]) == (1, 2)
    assert one["train/grad_norm"] > 1e-3  # a real gradient, not a zero compared with a zero
    for key in ("train/loss", "train/grad_norm", "train/entropy", "train/kl", "train/clip_frac"):
        assert close(one[key], two[key]), (key, one[key], two[key])
    assert one["train/sequences"] == two["train/sequences"] == 24


def test_two_process_run_matches_one_process_and_resumes_in_one(tmp_path, tiny_path):
    cli = palaestra_cli()
    run([cli, *TRAIN, "--output-dir", str(tmp_path / "one")], 1)
    run([cli, *TRAIN, "--output-dir", str(tmp_path / "two")], 2)
    one, two = steps(tmp_path / "one"), steps(tmp_path / "two")
    assert sorted(one) == sorted(two) == [1, 2]
    for step in (1, 2):
        for key in ("train/loss", "train/grad_norm"):
            assert close(one[step][key], two[step][key]), (step, key, one[step][key], two[step][key])
        assert one[step]["train/tokens"] == two[step]["train/tokens"]
    # the 2-process checkpoint of step 1, resumed by one process: the same step 2
    resumed = tmp_path / "resumed"
    shutil.copytree(tmp_path / "two", resumed)
    for name in ("step_000002", "final"):
        shutil.rmtree(resumed / "checkpoints" / name)
    run([cli, *TRAIN, "--output-dir", str(resumed), "--resume"], 1)
    after = steps(resumed)
    for key in ("train/loss", "train/grad_norm"):
        assert close(after[2][key], two[2][key]), (key, after[2][key], two[2][key])


def test_two_process_self_play_runs(tmp_path, tiny_path):
    argv = [palaestra_cli(), "train", "--preset", "tiny", "--steps", "1", "--sft-steps", "0", "--eval-tasks", "2",
            "--max-new-tokens", "8", "--no-control", "--no-run-subfolder", "--no-progress", "--no-plots",
            "--backend", "vllm", "--vllm-kv-cache-mb", "64", "--selfplay-proposals", "2",
            "--output-dir", str(tmp_path / "sp")]  # fmt: skip
    run(argv, 2)
    rows = [json.loads(line) for line in (tmp_path / "sp" / "metrics.jsonl").read_text().splitlines()]
    assert [r["kind"] for r in rows].count("selfplay") == 1
    assert (tmp_path / "sp" / "checkpoints" / "final" / "model.safetensors").exists()


@pytest.mark.parametrize("shape", ["even", "uneven"])
def test_fsdp_sharded_update_equals_one_process(tmp_path, tiny_path, shape):
    """sharding=fsdp (torch FSDP2, parameters, gradients and optimizer state sharded over 2
    processes): the same update as one unsharded process on the whole batch, also when one
    process has more micro-batches than the other (it would deadlock the gathers otherwise)."""
    one = json.loads(run([str(DRIVER), str(tmp_path / "one"), "fsdp", shape], 1).strip().splitlines()[-1])
    two = json.loads(run([str(DRIVER), str(tmp_path / "two"), "fsdp", shape], 2).strip().splitlines()[-1])
    assert (one["sharded"], two["sharded"]) == (False, True)
    assert one["train/grad_norm"] > 1e-3
    for key in ("train/loss", "train/grad_norm", "train/entropy", "train/clip_frac"):
        assert close(one[key], two[key]), (key, one[key], two[key])


def test_fsdp_run_matches_one_process_and_its_checkpoint_resumes_in_one(tmp_path, tiny_path):
    cli = palaestra_cli()
    run([cli, *TRAIN, "--output-dir", str(tmp_path / "one")], 1)
    run([cli, *TRAIN, "--sharding", "fsdp", "--output-dir", str(tmp_path / "sharded")], 2)
    one, sharded = steps(tmp_path / "one"), steps(tmp_path / "sharded")
    for step in (1, 2):
        for key in ("train/loss", "train/grad_norm"):
            assert close(one[step][key], sharded[step][key]), (step, key)
    resumed = tmp_path / "resumed"
    shutil.copytree(tmp_path / "sharded", resumed)
    for name in ("step_000002", "final"):
        shutil.rmtree(resumed / "checkpoints" / name)
    assert (resumed / "checkpoints" / "step_000001" / "optimizer_full.pt").exists()
    run([cli, *TRAIN, "--output-dir", str(resumed), "--resume"], 1)
    after = steps(resumed)
    for key in ("train/loss", "train/grad_norm"):
        assert close(after[2][key], sharded[2][key]), (key, after[2][key], sharded[2][key])


def test_what_sharding_does_not_support_is_refused_by_name(tmp_path, tiny_path):
    from palaestra.agents.config import TrainConfig
    from palaestra.agents.trainer import check_sharding

    for bad, match in (({"lora_rank": 8}, "lora_rank"), ({"kl_coef": 0.1}, "kl_coef"), ({}, "backend=vllm")):
        config = TrainConfig(backend="transformers", sharding="fsdp", **bad)
        with pytest.raises(ValueError, match=match):
            check_sharding(config, None)
