"""Every interactive family, as a live game: reference agents win, random agents mostly lose.

Runs over every family whose ``new_episode`` is implemented, at levels 1, 5 and 10.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import palaestra
from palaestra.envs.interactive import InteractiveEnv

INTERACTIVE = [f for f in palaestra.families() if palaestra.get(f).impl.interactive]
EPISODES = 12


def _play(env: InteractiveEnv, seed: int, level: int, policy) -> dict:
    env.reset(seed=seed, options={"level": level})
    while True:
        _, _, terminated, truncated, info = env.step(policy(env))
        assert not (terminated and truncated)
        if terminated or truncated:
            return info


def test_there_are_interactive_families() -> None:
    assert "mastermind" in INTERACTIVE


@pytest.mark.parametrize("family", INTERACTIVE)
def test_registered_id_is_interactive_and_passes_the_checker(family: str) -> None:
    env = gymnasium.make(palaestra.get(family).env_id).unwrapped
    assert isinstance(env, InteractiveEnv)
    check_env(env, skip_render_check=True)


@pytest.mark.parametrize("level", [1, 5, 10])
@pytest.mark.parametrize("family", INTERACTIVE)
def test_reference_agent_solves_within_budget(family: str, level: int) -> None:
    env = InteractiveEnv(family)
    outcomes = [
        _play(env, seed, level, lambda e: e.episode.reference_action())["outcome"] for seed in range(EPISODES)
    ]
    assert outcomes.count("solved") == EPISODES, outcomes


@pytest.mark.parametrize("family", INTERACTIVE)
def test_random_agent_mostly_fails_at_high_levels(family: str) -> None:
    env = InteractiveEnv(family)
    rng = np.random.default_rng(0)

    def random_move(e: InteractiveEnv) -> str:
        return e.episode.random_action(rng)

    wins = sum(_play(env, seed, 10, random_move)["outcome"] == "solved" for seed in range(EPISODES))
    assert wins <= EPISODES // 4


@pytest.mark.parametrize("family", INTERACTIVE)
def test_invalid_actions_explain_cost_and_never_raise(family: str) -> None:
    env = InteractiveEnv(family, invalid_action_penalty=0.5, max_response_chars=1000)
    opening, _ = env.reset(seed=0, options={"level": 5})
    assert "costs 0.5" in opening
    for action in ["", "x" * 2000, "\x00\udcff\u202e", '{"tool": "x"}', "<answer></answer>"]:
        _, reward, terminated, truncated, info = env.step(action)
        assert info.get("invalid") and reward == -0.5 and not terminated
        if truncated:
            break
    with pytest.raises(TypeError, match="must be a str"):
        env.step(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("family", INTERACTIVE)
def test_turn_budget_truncates_and_reset_is_clean(family: str) -> None:
    env = InteractiveEnv(family, max_turns=2)
    first = env.reset(seed=3, options={"level": 5})
    env.step("not a move")
    _, _, terminated, truncated, info = env.step("still not a move")
    assert truncated and not terminated and info["turn"] == 2
    assert env.reset(seed=3, options={"level": 5}) == first


def test_non_interactive_family_is_refused() -> None:
    with pytest.raises(ValueError, match="not interactive"):
        InteractiveEnv("expression")
