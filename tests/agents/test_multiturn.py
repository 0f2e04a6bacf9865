"""Multi-turn rollouts over palaestra envs: token bookkeeping, masks, rewards, and a GRPO step."""

from __future__ import annotations

import pytest

import palaestra
from palaestra.agents.backends import Completion, Sampling, TransformersBackend
from palaestra.agents.config import TrainConfig


def _chat(tokenizer):
    from palaestra.agents.rollout import ChatFormat

    return ChatFormat(tokenizer)


class ScriptedBackend:
    """Answers every turn with the next scripted text (as tokens ending in the stop token)."""

    def __init__(self, chat, script):
        self.chat, self.script, self.contexts = chat, list(script), []

    def generate(self, prompt_ids, n, sampling):
        self.contexts.append([list(p) for p in prompt_ids])
        text = self.script.pop(0)
        ids = self.chat.response_ids(text)
        return [[Completion(ids, [-0.5] * len(ids), "stop")] for _ in prompt_ids]


def test_feedback_episode_masks_observations_and_pays_the_final_reward(tokenizer):
    from palaestra.agents.multiturn import MultiTurnRollout, default_env

    chat = _chat(tokenizer)
    task = palaestra.make_task("expression", seed=4, level=1)
    wrong, right = f"<answer>{int(task.answer) + 1}</answer>", f"<answer>{task.answer}</answer>"
    backend = ScriptedBackend(chat, [wrong, right])
    rollout = MultiTurnRollout(
        chat, lambda f: default_env(f, feedback_attempts=3), max_turns=4, max_context=4096
    )
    (episode,) = rollout.collect(backend, [task], 1, Sampling(max_tokens=16, temperature=1.0, seed=1))

    assert episode.reward == 1.0 and episode.correct and episode.info["turns"] == 2
    n = len(episode.completion_ids)
    assert len(episode.loss_mask) == len(episode.rollout_logprobs) == n
    first, second = chat.response_ids(wrong), chat.response_ids(right)
    # the two answers are exactly the masked-in tokens, in order; everything between is masked out
    assert [t for t, m in zip(episode.completion_ids, episode.loss_mask, strict=True) if m] == first + second
    assert episode.loss_mask[: len(first)] == [1] * len(first) and episode.loss_mask[-len(second) :] == [
        1
    ] * len(second)
    assert 0 in episode.loss_mask
    between = chat.decode(episode.completion_ids[len(first) : n - len(second)])
    assert "Incorrect" in between and "attempts left" in between
    # the second turn continued exactly the sequence the episode records
    assert backend.contexts[1][0] == episode.prompt_ids + episode.completion_ids[: n - len(second)]
    # and the whole sequence is what the chat template renders for the same conversation
    env = default_env("expression", feedback_attempts=3)
    opening, _ = env.reset(options={"task": task})
    feedback = env.step(wrong)[0]
    conversation = [
        *chat.messages(opening),
        {"role": "assistant", "content": wrong},
        {"role": "user", "content": feedback},
        {"role": "assistant", "content": right},
    ]
    rendered = tokenizer.apply_chat_template(conversation, tokenize=False)
    ours = tokenizer.decode(episode.prompt_ids + episode.completion_ids, skip_special_tokens=False)
    assert rendered.startswith(ours) and rendered[len(ours) :].strip() == "", (ours, rendered)


def test_unsolved_feedback_episode_is_truncated_with_zero_reward(tokenizer):
    from palaestra.agents.multiturn import MultiTurnRollout, default_env

    chat = _chat(tokenizer)
    task = palaestra.make_task("expression", seed=5, level=1)
    wrong = [f"<answer>{int(task.answer) + k}</answer>" for k in (1, 2)]
    rollout = MultiTurnRollout(
        chat, lambda f: default_env(f, feedback_attempts=2), max_turns=5, max_context=4096
    )
    (episode,) = rollout.collect(ScriptedBackend(chat, wrong), [task], 1, Sampling(max_tokens=16))
    assert episode.reward == 0.0 and not episode.correct and episode.finish_reason == "truncated"
    assert episode.info["turns"] == 2


def test_rollout_logprobs_match_the_policy_on_the_whole_context(tiny_path, tokenizer):
    """Sampled multi-turn episodes from the transformers backend: the trainer's teacher-forced
    logprobs of every policy token equal the rollout's, so observations were inserted exactly
    where the generating context had them."""
    import torch

    from palaestra.agents.multiturn import MultiTurnRollout

    chat = _chat(tokenizer)
    hf = TransformersBackend.from_pretrained(tiny_path)
    tasks = [palaestra.make_task("mastermind", seed=s, level=1) for s in range(2)]
    rollout = MultiTurnRollout(chat, max_turns=3, max_context=512)
    sampling = Sampling(max_tokens=12, temperature=1.0, seed=7, stop_token_ids=chat.stop_token_ids)
    episodes = rollout.collect(hf, tasks, 2, sampling)
    assert len(episodes) == 4 and [e.group for e in episodes] == [0, 0, 1, 1]
    assert any(e.info["turns"] > 1 for e in episodes)
    worst = 0.0
    for e in episodes:
        ids = torch.tensor([e.prompt_ids + e.completion_ids])
        with torch.no_grad():
            logits = hf.model(input_ids=ids).logits[0, len(e.prompt_ids) - 1 : -1]
        lp = torch.log_softmax(logits, -1).gather(-1, torch.tensor(e.completion_ids)[:, None])[:, 0]
        mask = torch.tensor(e.loss_mask, dtype=torch.bool)
        worst = max(worst, float((lp[mask] - torch.tensor(e.rollout_logprobs)[mask]).abs().max()))
    assert worst < 1e-4, worst


def test_trainer_picks_multi_turn_rollouts_and_steps(tiny_path, tmp_path):
    from palaestra.agents.multiturn import MultiTurnRollout
    from palaestra.agents.rollout import SingleTurnRollout
    from palaestra.agents.trainer import GRPOTrainer, make_rollout

    base = dict(
        backend="transformers",
        prompts_per_step=2,
        group_size=2,
        max_new_tokens=8,
        steps=1,
        eval_tasks=2,
        output_dir=str(tmp_path / "run"),
        progress=False,
        plots=False,
        max_turns=2,
    )
    trainer = GRPOTrainer(TrainConfig(families="mastermind", **base))
    assert isinstance(trainer.rollout, MultiTurnRollout)
    metrics = trainer.step()
    assert metrics["step"] == 1 and 0.0 <= metrics["rollout/reward"] <= 1.0
    assert isinstance(
        make_rollout(TrainConfig(families="expression", **base), trainer.chat), SingleTurnRollout
    )
    multi = make_rollout(TrainConfig(families="expression", feedback_attempts=2, **base), trainer.chat)
    assert isinstance(multi, MultiTurnRollout)
    with pytest.raises(ValueError, match="feedback_attempts must be >= 1"):
        TrainConfig(feedback_attempts=0, **base)
