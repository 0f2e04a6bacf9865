"""Regressions in how the envs are reached through Gymnasium: FeedbackEnv/ToolEnv had no ids,
game ids rejected render_mode, and make_vec(..., vectorization_mode="async") failed by default
(AsyncVectorEnv's shared memory had no support for text spaces)."""

from __future__ import annotations

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import palaestra  # noqa: F401  (registers the ids)
from palaestra.envs import FeedbackEnv, ToolEnv


@pytest.mark.parametrize(
    "env_id,cls", [("palaestra/Feedback-v0", FeedbackEnv), ("palaestra/Tool-v0", ToolEnv)]
)
def test_feedback_and_tool_envs_have_ids(env_id, cls):
    env = gymnasium.make(env_id, family="sudoku")
    assert isinstance(env.unwrapped, cls) and env.unwrapped.family == "sudoku"
    check_env(env.unwrapped, skip_render_check=True)
    prompt, _ = env.reset(seed=0)
    assert "sudoku" in prompt.lower()


@pytest.mark.parametrize("game", ["TicTacToe", "Nim", "KuhnPoker", "ConnectFour", "Negotiation"])
def test_game_ids_accept_render_mode(game):
    env = gymnasium.make(f"palaestra/{game}-v0", render_mode="ansi")
    env.reset(seed=0)
    assert isinstance(env.render(), str) and env.render()
    with pytest.raises(ValueError, match="render_mode"):
        gymnasium.make(f"palaestra/{game}-v0", render_mode="rgb_array")


@pytest.mark.slow
def test_async_make_vec_works_by_default_and_matches_sync():
    actions = ["<answer>0</answer>", "<answer>π中</answer>"]
    vec = gymnasium.make_vec("palaestra/Expression-v0", num_envs=2, vectorization_mode="async")
    prompts, _ = vec.reset(seed=7)
    observations, rewards, terminated, _, _ = vec.step(actions)
    later, _ = vec.reset(seed=8)
    vec.close()
    sync = gymnasium.make_vec("palaestra/Expression-v0", num_envs=2, vectorization_mode="sync")
    assert tuple(sync.reset(seed=7)[0]) == tuple(prompts)
    assert tuple(sync.step(actions)[0]) == tuple(observations)
    assert tuple(sync.reset(seed=8)[0]) == tuple(later) != tuple(prompts)  # never a stale buffer
    sync.close()
    assert all("expression" in p for p in prompts) and terminated.all()
