"""Held-out evaluation: greedy and sampled accuracy, subsets, standard errors, paired gains."""

from __future__ import annotations

import math

import pytest

import palaestra
from palaestra.agents.backends import Backend, Completion, Sampling
from palaestra.agents.heldout_eval import evaluate, mean_se, paired_gain


class Tokenizer:
    """Characters as token ids; a chat template that is the prompt itself."""

    chat_template = "plain"
    eos_token_id = 0
    pad_token_id = 0

    def apply_chat_template(self, messages, add_generation_prompt, tokenize):
        return messages[-1]["content"]

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [ord(c) for c in text]}

    def decode(self, ids, skip_special_tokens=True):
        return "".join(chr(i) for i in ids if i)


class Scripted(Backend):
    """Greedy: the right answer on tasks whose answer is positive; sampled: right on every
    second sample."""

    def __init__(self, answers):
        self.answers, self.calls = answers, []

    def generate(self, prompt_ids, n, sampling: Sampling):
        self.calls.append((len(prompt_ids), n, sampling.temperature, sampling.seed))
        out = []
        for ids in prompt_ids:
            answer = self.answers["".join(map(chr, ids))]
            group = []
            for k in range(n):
                right = int(answer) > 0 if sampling.temperature == 0 else k % 2 == 0
                text = f"<answer>{answer if right else int(answer) + 1}</answer>"
                group.append(Completion([ord(c) for c in text], [0.0] * len(text), "stop"))
            out.append(group)
        return out

    def sync_weights(self, state_dict):
        pass


def test_greedy_sampled_subsets_and_standard_errors():
    from palaestra.agents.rollout import ChatFormat

    tasks = [palaestra.make_task("expression", seed=s, level=1) for s in range(90)]
    tasks = list({t.prompt: t for t in tasks}.values())
    backend = Scripted({t.prompt: t.answer for t in tasks})
    seen = []
    result = evaluate(
        backend,
        ChatFormat(Tokenizer()),
        tasks,
        max_tokens=8,
        samples=4,
        subset=lambda t: "negative" if int(t.answer) < 0 else "other",
        progress=lambda done, total: seen.append((done, total)),
    )
    m = result.metrics
    positive = [int(t.answer) > 0 for t in tasks]
    assert m["eval/problems"] == len(tasks)
    assert m["eval/accuracy"] == pytest.approx(sum(positive) / len(tasks))
    assert m["eval/accuracy_se"] == pytest.approx(mean_se([float(p) for p in positive])[1])
    assert m["eval/sampled_accuracy"] == pytest.approx(0.5) and m["eval/sampled_accuracy_se"] == 0.0
    assert m["eval/subset/negative/accuracy"] == 0.0
    assert m["eval/subset/negative/problems"] == sum(int(t.answer) < 0 for t in tasks)
    assert m["eval/expression/L1/accuracy"] == m["eval/accuracy"]
    assert seen[-1] == (5 * len(tasks), 5 * len(tasks))  # completions: 1 greedy + 4 sampled each
    # sampled completions use fixed seeds: every checkpoint is compared on the same random numbers
    assert all(seed is not None for _, n, temperature, seed in backend.calls if temperature > 0)


def test_paired_gain_uses_per_problem_differences():
    from palaestra.agents.heldout_eval import EvalResult

    before = EvalResult({}, {"a": 0.0, "b": 0.0, "c": 1.0, "d": 1.0})
    after = EvalResult({}, {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0, "e": 1.0})
    gain, se = paired_gain(after, before)
    assert gain == pytest.approx(50.0)
    assert se == pytest.approx(100 * math.sqrt(1 / 3) / 2)
    assert mean_se([1.0]) == (1.0, mean_se([1.0])[1]) and math.isnan(mean_se([1.0])[1])
