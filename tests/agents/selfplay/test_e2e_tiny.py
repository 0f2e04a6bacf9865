"""End to end on the built-in tiny model (needs torch + transformers; skipped without them):
one self-play step through the real GRPOTrainer, update and weight sync included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def test_tiny_selfplay_step(tmp_path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    from palaestra.agents.config import preset
    from palaestra.agents.selfplay import SelfPlayConfig
    from palaestra.agents.selfplay.cli import run_selfplay

    config = preset(
        "tiny",
        steps=1,
        sft_steps=0,
        eval_tasks=2,
        max_new_tokens=16,
        backend="transformers",
        output_dir=str(tmp_path),
        progress=False,
        plots=False,
    )
    # the untrained model's proposals are all refused; the catalog mix still gives the solver data
    sp = SelfPlayConfig(
        proposals_per_type=2, catalog_fraction=1.0, catalog_families=("expression",), catalog_level=1
    )
    summary = run_selfplay(config, sp, "arith", quiet=True)
    assert summary["steps"] == 1
    rows = [
        json.loads(line) for line in (Path(summary["run_dir"]) / "metrics.jsonl").read_text().splitlines()
    ]
    assert [r["kind"] for r in rows] == ["eval_sft", "selfplay", "eval", "sft", "control", "eval_control"]
    step = rows[1]
    assert sum(step["rejections"].values()) == 2  # every proposal is graded, valid or not
    assert step["solver_samples"] >= 8
    assert summary["last_solver_samples"] == step["solver_samples"]


def test_arith_dsl_warm_start_runs_with_catalog_replay(tmp_path) -> None:
    """``--selfplay-language arith --selfplay-warm-start-steps N``: the DSL warm start mixes in the
    catalog teacher's demonstrations; it used to call ``sft_examples`` with the wrong arguments and
    raise TypeError on its first step."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from palaestra.agents.config import preset
    from palaestra.agents.selfplay import SelfPlayConfig
    from palaestra.agents.selfplay.cli import run_selfplay

    config = preset(
        "tiny",
        steps=1,
        sft_steps=0,
        eval_tasks=2,
        max_new_tokens=8,
        control=False,
        backend="transformers",
        output_dir=str(tmp_path),
        progress=False,
        plots=False,
    )
    sp = SelfPlayConfig(proposals_per_type=2, catalog_fraction=1.0, catalog_families=("expression",))
    summary = run_selfplay(config, sp, "arith", warm_start_steps=2, quiet=True)
    rows = [
        json.loads(line) for line in (Path(summary["run_dir"]) / "metrics.jsonl").read_text().splitlines()
    ]
    warm = [r for r in rows if r["kind"] == "selfplay_warm_start"]
    assert len(warm) == 1 and warm[0]["loss"] > 0


def test_python_proposer_prompt_too_long_for_the_model_fails_at_start(tmp_path) -> None:
    """The python proposer prompt is ~581 tokens without examples: with max_model_len 512 the run
    refuses to start and names the flag (vLLM raised mid-run before)."""
    pytest.importorskip("torch")
    from palaestra.agents.config import preset
    from palaestra.agents.selfplay import SelfPlayConfig
    from palaestra.agents.selfplay.cli import run_selfplay

    config = preset(
        "tiny", steps=1, sft_steps=0, backend="transformers", output_dir=str(tmp_path), progress=False
    )
    with pytest.raises(ValueError, match="raise --max-model-len to at least"):
        run_selfplay(config, SelfPlayConfig(proposals_per_type=1), "python", quiet=True)
