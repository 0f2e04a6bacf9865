"""Every multi-agent game: checker, reference players never lose, routing, invalid moves, semantics.

Runs over every game in ``palaestra.envs.games.GAMES``, so a new game is covered on registration.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import palaestra  # noqa: F401 - registers the game ids
from palaestra.envs.games import GAMES, SelfPlay, VersusOpponent, make_game
from palaestra.registry import env_id_for

GAME_NAMES = sorted(GAMES)
EPISODES = 20


def _play(env: VersusOpponent, seed: int, level: int, policy) -> float:
    env.reset(seed=seed, options={"level": level})
    total = 0.0
    while True:
        _, reward, terminated, truncated, _ = env.step(policy(env))
        total += float(reward)
        assert not (terminated and truncated)
        if terminated or truncated:
            return total


@pytest.mark.parametrize("name", GAME_NAMES)
def test_registered_views_pass_the_checker(name: str) -> None:
    env = gymnasium.make(env_id_for(name)).unwrapped
    assert isinstance(env, VersusOpponent)
    check_env(env, skip_render_check=True)
    check_env(SelfPlay(make_game(name)), skip_render_check=True)


@pytest.mark.parametrize("level", [1, 5, 10])
@pytest.mark.parametrize("name", GAME_NAMES)
def test_reference_player_never_loses(name: str, level: int) -> None:
    for seat in range(len(GAMES[name].possible_agents)):
        env = VersusOpponent(make_game(name), seat=seat, level=level)
        scores = [_play(env, seed, level, lambda e: e.game.reference_move()) for seed in range(EPISODES)]
        assert min(scores) >= 0.0, f"the reference player lost from seat {seat}: {scores}"
        if level == 1:
            assert np.mean(scores) > 0.5, "against a random opponent the reference player should mostly win"


@pytest.mark.parametrize("name", GAME_NAMES)
def test_random_player_rarely_wins_at_level_10(name: str) -> None:
    env = VersusOpponent(make_game(name), level=10)
    rng = np.random.default_rng(0)
    scores = [
        _play(env, seed, 10, lambda e: e.game.legal_moves()[int(rng.integers(len(e.game.legal_moves())))])
        for seed in range(EPISODES)
    ]
    assert sum(s > 0 for s in scores) <= EPISODES // 4


@pytest.mark.parametrize("name", GAME_NAMES)
def test_invalid_moves_cost_the_penalty_then_forfeit(name: str) -> None:
    env = VersusOpponent(make_game(name, invalid_move_penalty=0.25, max_invalid_moves=3), level=10)
    opening, _ = env.reset(seed=0)
    assert "costs 0.25" in opening and "3 invalid moves in a row forfeit" in opening
    for k, action in enumerate(["", "x" * 5000, "\x00\udcff garbage"], start=1):
        observation, reward, terminated, truncated, info = env.step(action)
        assert info["invalid"] and "Invalid move" in observation
        if k < 3:
            assert reward == -0.25 and not terminated and not truncated
    assert terminated and not truncated and reward == -1.0 and "forfeit" in observation
    with pytest.raises(RuntimeError, match="reset"):
        env.step("anything")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="must be a str"):
        env.step(7)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_self_play_routes_roles_and_rewards(name: str) -> None:
    env = SelfPlay(make_game(name))
    _, info = env.reset(seed=1)
    seats = [info["role"]]
    while True:
        move = env.game.reference_move()
        _, reward, terminated, truncated, info = env.step(move)
        assert info["acting"] == seats[-1] and reward == info["rewards"][info["acting"]]
        seats.append(info["role"])
        if terminated or truncated:
            break
    assert set(seats) == set(GAMES[name].possible_agents)
    assert sum(info["rewards"].values()) == pytest.approx(0.0)  # zero-sum games


@pytest.mark.parametrize("name", GAME_NAMES)
def test_turn_budget_truncates_and_reset_is_clean(name: str) -> None:
    env = VersusOpponent(make_game(name, max_invalid_moves=100), level=10, max_turns=2)
    first = env.reset(seed=5)
    env.step("nonsense")
    _, _, terminated, truncated, _ = env.step("nonsense")
    assert truncated and not terminated
    assert env.reset(seed=5) == first


def test_opponent_moves_are_routed_to_the_agent() -> None:
    env = VersusOpponent(make_game("tic_tac_toe"), opponent="minimax")
    env.reset(seed=0)
    observation, *_ = env.step("b2")
    assert observation.startswith("O played ")
    with pytest.raises(ValueError, match="opponent"):
        VersusOpponent(make_game("tic_tac_toe"), opponent="genius")
    with pytest.raises(ValueError, match="valid games"):
        make_game("chess")
