"""SFT: constant rate after warm-up, extension = one longer run, only training-side problems, and
the convergence check that extends SFT or stops the run."""

from __future__ import annotations

import numpy as np
import pytest

from palaestra.agents.config import TrainConfig
from palaestra.agents.tasks import TaskSpace
from palaestra.agents.teacher import Teacher

SPACE = TaskSpace(("expression",), {"expression": {"operands": 3, "digits": 1}})


def _sft(tiny_path, **kw):
    import torch

    from palaestra.agents.policy import load_policy, load_tokenizer
    from palaestra.agents.rollout import ChatFormat
    from palaestra.agents.sft import SFT

    torch.manual_seed(0)
    model = load_policy(tiny_path, "cpu")
    chat = ChatFormat(load_tokenizer(tiny_path))
    args = dict(space=SPACE, teacher=Teacher({"sign": 0.6}), levels=[1], batch_size=4, learning_rate=1e-3)
    return SFT(model, chat, **{**args, "warmup_steps": 2, "seed": 0, "device": "cpu", **kw})


def test_extending_sft_equals_one_longer_run(tiny_path):
    import torch

    a, b = _sft(tiny_path), _sft(tiny_path)
    losses = a.train(3) + a.train(2)
    assert b.train(5) == pytest.approx(losses)
    for p, q in zip(a.model.parameters(), b.model.parameters(), strict=True):
        assert torch.equal(p, q)
    assert [a.lr(s) for s in range(4)] == [5e-4, 1e-3, 1e-3, 1e-3]  # warm-up, then constant
    state = a.state_dict()
    a.train(1)
    a.load_state_dict(state)
    assert a.step == 5


def test_loss_by_parts_is_the_one_batch_mean(tiny_path):
    """Self-play's proposer demonstrations are padded apart from the solver ones; the loss value
    is still the mean over every response token of the batch."""
    from palaestra.agents.sft import sft_examples, sft_loss, sft_loss_by_parts

    sft = _sft(tiny_path)
    short = sft_examples(sft.chat, SPACE, sft.teacher, [1], 3, np.random.default_rng(0))
    long = [(p * 4, r + r[:3]) for p, r in short[:2]]  # longer prompts, more response tokens
    whole = float(sft_loss(sft.model, short + long, "cpu", sft.pad))
    parts = float(sft_loss_by_parts(sft.model, [short, long, []], "cpu", sft.pad))
    assert parts == pytest.approx(whole, rel=1e-6)  # an unweighted mean of the parts is 4e-4 off


def test_demonstrations_come_from_the_training_side_only(tiny_path):
    from palaestra.agents.sft import sft_examples

    sft = _sft(tiny_path)
    pairs = sft_examples(sft.chat, SPACE, sft.teacher, [1], 300, np.random.default_rng(1))
    prompts = {tuple(p) for p, _ in pairs}
    held = {tuple(sft.chat.prompt_ids(t.prompt)) for t in SPACE.heldout_tasks("expression", 1, 600)}
    assert len(pairs) == 300 and 500 < len(held) < 650  # 2,916 problems, about a fifth held out
    assert not prompts & held


def test_convergence_check_extends_then_stops_the_run(tmp_path, tiny_path):
    from palaestra.agents.reporting import read_jsonl
    from palaestra.agents.run import SFTNotConverged, run_training

    config = TrainConfig(
        backend="transformers",
        knobs='{"expression": {"operands": 3, "digits": 1}}',
        sft_steps=4,
        sft_batch_size=4,
        sft_target_accuracy=1.0,  # out of reach in a few steps
        sft_max_steps=6,
        max_new_tokens=8,
        output_dir=str(tmp_path),
        run_subfolder=False,
        progress=False,
        plots=False,
    )
    with pytest.raises(SFTNotConverged, match="did not converge"):
        run_training(config, quiet=True)
    checks = [r for r in read_jsonl(tmp_path / "metrics.jsonl") if r["kind"] == "sft_check"]
    assert [r["sft/step"] for r in checks] == [4, 5, 6]  # extended by a quarter of sft_steps, twice
    assert not [r for r in read_jsonl(tmp_path / "metrics.jsonl") if r["kind"] == "step"]  # no RL ran
