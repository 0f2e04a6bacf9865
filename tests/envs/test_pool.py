"""EnvPool: subsets, seeds from one SeedSequence, autoreset keeping final data, async, rollouts."""

from __future__ import annotations

import dataclasses
import threading
import time

import gymnasium
import pytest

from palaestra.envs import EnvPool, FeedbackEnv, TaskEnv, episode_seed, tokenize_rollout


def _answer(pool: EnvPool, i: int) -> str:
    return f"<answer>{pool.envs[i].unwrapped.task.answer}</answer>"


def test_reset_is_reproducible_and_envs_get_different_tasks() -> None:
    with (
        EnvPool("palaestra/Expression-v0", num_envs=6, seed=3) as a,
        EnvPool("palaestra/Expression-v0", num_envs=6, seed=3) as b,
    ):
        first, second = a.reset(), b.reset()
        assert first == second
        assert len({obs for obs, _ in first.values()}) > 1
    assert episode_seed(3, 0, 0) != episode_seed(3, 1, 0) != episode_seed(3, 0, 1)


def test_step_any_subset_and_autoreset_keeps_the_final_observation() -> None:
    with EnvPool("palaestra/Expression-v0", num_envs=4, seed=0) as pool:
        start = pool.reset()
        results = pool.step({1: _answer(pool, 1), 3: "<answer>nope</answer>"})
        assert set(results) == {1, 3}
        solved = results[1]
        assert solved.reward == 1.0 and solved.terminated and not solved.truncated
        assert solved.final_observation == "correct" and solved.final_info["correct"]
        assert solved.observation != start[1][0]  # a new episode already started
        assert solved.rollout.messages[0] == {"role": "user", "content": start[1][0]}
        assert solved.rollout.rewards == [1.0]
        assert results[3].rollout.rewards == [0.0] and not results[3].final_info["correct"]


def test_without_autoreset_a_finished_env_must_be_reset() -> None:
    with EnvPool("palaestra/Expression-v0", num_envs=2, autoreset=False) as pool:
        pool.reset()
        result = pool.step({0: "<answer>1</answer>"})[0]
        assert result.final_observation is None and result.terminated
        with pytest.raises(RuntimeError, match="reset"):
            pool.step({0: "<answer>1</answer>"})
        pool.reset([0])
        pool.step({0: "<answer>1</answer>"})


def test_multi_turn_rollout_records_every_turn() -> None:
    pool = EnvPool(
        [lambda: FeedbackEnv("expression", max_attempts=3) for _ in range(2)],
        seed=1,
        system_prompt="Be exact.",
    )
    pool.reset()
    pool.step({0: "<answer>123456789</answer>"})
    result = pool.step({0: _answer(pool, 0)})[0]
    rollout = result.rollout
    assert [m["role"] for m in rollout.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert rollout.rewards == [0.0, 1.0] and rollout.terminated and rollout.total_reward == 1.0
    pool.close()


class _SlowEnv(gymnasium.Env):
    """Sleeps in step, like a verifier waiting on the sandbox; counts how many step at once."""

    lock = threading.Lock()
    stepping = 0
    most_at_once = 0

    def __init__(self, delay: float):
        self.inner = TaskEnv("expression")
        self.observation_space, self.action_space = self.inner.observation_space, self.inner.action_space
        self.delay = delay

    def reset(self, *, seed=None, options=None):
        return self.inner.reset(seed=seed, options=options)

    def step(self, action):
        with _SlowEnv.lock:
            _SlowEnv.stepping += 1
            _SlowEnv.most_at_once = max(_SlowEnv.most_at_once, _SlowEnv.stepping)
        time.sleep(self.delay)
        with _SlowEnv.lock:
            _SlowEnv.stepping -= 1
        return self.inner.step(action)


def test_slow_envs_step_concurrently() -> None:
    pool = EnvPool([lambda: _SlowEnv(0.5) for _ in range(8)], max_workers=8)
    pool.reset()
    _SlowEnv.most_at_once = 0
    pool.step({i: "<answer>0</answer>" for i in range(8)})
    # eight 0.5 s sleeps in eight worker threads overlap (one after another: 1 at a time)
    assert _SlowEnv.most_at_once > 1
    pool.close()


def test_async_collects_fast_envs_first() -> None:
    pool = EnvPool([lambda: _SlowEnv(0.0), lambda: _SlowEnv(1.5)], max_workers=2)
    pool.reset()
    pool.step_async({0: "<answer>0</answer>", 1: "<answer>0</answer>"})
    deadline = time.perf_counter() + 1.0
    while 0 not in pool.ready() and time.perf_counter() < deadline:
        time.sleep(0.01)
    assert 0 in pool.ready() and 1 not in pool.ready()
    assert set(pool.step_wait([0])) == {0}
    assert set(pool.step_wait()) == {1}
    pool.close()


def test_bad_indices_and_double_steps() -> None:
    pool = EnvPool("palaestra/Expression-v0", num_envs=2)
    pool.reset()
    with pytest.raises(ValueError, match="0..1"):
        pool.step({5: "x"})
    gate = threading.Event()
    pool.envs[0] = _Blocking(gate)
    pool._needs_reset[0] = False
    pool.step_async({0: "x"})
    with pytest.raises(RuntimeError, match="already being stepped"):
        pool.step_async({0: "x"})
    gate.set()
    pool.step_wait()
    pool.close()
    with pytest.raises(ValueError, match="num_envs"):
        EnvPool("palaestra/Expression-v0", num_envs=0)


class _Blocking(_SlowEnv):
    def __init__(self, gate: threading.Event):
        super().__init__(0.0)
        self.gate = gate
        self.inner.reset(seed=0)

    def step(self, action):
        self.gate.wait(5)
        return self.inner.step(action)


class _ToyTokenizer:
    """A chat template of the usual shape: <role> content </s>, one id per character."""

    def apply_chat_template(self, messages, tokenize=True, add_generation_prompt=False):
        text = "".join(f"<{m['role']}>{m['content']}</s>" for m in messages)
        if add_generation_prompt:
            text += "<assistant>"
        return [ord(c) for c in text]


def test_tokenized_rollout_masks_exactly_the_model_tokens() -> None:
    pool = EnvPool([lambda: FeedbackEnv("expression", max_attempts=2)], seed=0)
    pool.reset()
    pool.step({0: "<answer>123456789</answer>"})
    rollout = pool.step({0: "<answer>42</answer>"})[0].rollout
    tokenize_rollout(rollout, _ToyTokenizer())
    model_text = "".join(chr(t) for t, m in zip(rollout.token_ids, rollout.action_mask, strict=True) if m)
    assert model_text == "<answer>123456789</answer></s><answer>42</answer></s>"
    assert len(rollout.token_ids) == len(rollout.action_mask)


def test_one_step_verifies_its_answers_in_one_verify_many_batch(monkeypatch) -> None:
    import palaestra.batch

    calls = []
    real = palaestra.batch.verify_many

    def counting(tasks, responses, **kwargs):
        calls.append(len(tasks))  # and marks its verdicts, to see that the envs use them
        return [
            dataclasses.replace(v, reason=v.reason + " [batch]") for v in real(tasks, responses, **kwargs)
        ]

    monkeypatch.setattr(palaestra.batch, "verify_many", counting)
    factories = [lambda: TaskEnv("expression", level=2)] * 3 + [
        lambda: FeedbackEnv("expression", max_attempts=2)
    ]
    results = {}
    for workers in (1, 0):
        with EnvPool(factories, seed=5, autoreset=False, verify_workers=workers) as pool:
            pool.reset()
            actions = {i: _answer(pool, i) if i % 2 else "<answer>-1</answer>" for i in range(4)}
            results[workers] = {i: (s.observation, s.reward) for i, s in pool.step(actions).items()}
    assert calls == [4]  # one batch for the step; verify_workers=0 leaves each env to itself
    assert [results[w][i][1] for w in (1, 0) for i in range(4)] == [0.0, 1.0, 0.0, 1.0] * 2
    assert results[1][0][0] == results[0][0][0] + " [batch]"  # the batch's verdict was used
    assert results[1][2][0].endswith(" [batch]") and results[1][1] == results[0][1]
