"""game_2048: the replay verifier against an independent simulator and exhaustive search."""

from __future__ import annotations

from itertools import product

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

SEEDS = st.integers(0, 2**63 - 1)
ROTATIONS = {"L": 0, "U": 1, "R": 2, "D": 3}  # quarter turns (anticlockwise) that make it a left move


def _left(grid: np.ndarray) -> np.ndarray:
    out = np.zeros_like(grid)
    for r, row in enumerate(grid):
        tiles, merged, skip = [v for v in row if v], [], False
        for i, v in enumerate(tiles):
            if skip:
                skip = False
            elif i + 1 < len(tiles) and tiles[i + 1] == v:
                merged.append(2 * v)
                skip = True
            else:
                merged.append(v)
        out[r, : len(merged)] = merged
    return out


def _simulate(board, spawns, moves: str) -> int | None:
    """Largest tile after the moves, or None when a move changes nothing (independent code)."""
    grid = np.array(board)
    for k, move in enumerate(moves):
        turns = ROTATIONS[move]
        moved = np.rot90(_left(np.rot90(grid, turns)), -turns)
        if np.array_equal(moved, grid):
            return None
        empty = np.argwhere(moved.reshape(-1) == 0).reshape(-1)
        choice, value = spawns[k]
        flat = moved.reshape(-1).copy()
        flat[empty[choice % len(empty)]] = value
        grid = flat.reshape(grid.shape)
    return int(grid.max())


@given(seed=SEEDS, level=st.integers(1, 8))
@settings(max_examples=15, deadline=None)
def test_every_sequence_judged_by_an_independent_replay(seed: int, level: int) -> None:
    task = palaestra.make_task("game_2048", seed=seed, level=level)
    meta = task.metadata
    board, spawns, target, budget = meta["board"], meta["spawns"], meta["target"], meta["budget"]
    winners = 0
    for length in range(1, budget + 1):
        for moves in product("LRUD", repeat=length):
            top = _simulate(board, spawns, "".join(moves))
            wins = top is not None and top >= target
            assert length == budget or not wins, "the budget is not tight"
            winners += wins
            if length == budget:
                verdict = palaestra.verify(task, "<answer>" + " ".join(moves) + "</answer>")
                assert verdict.correct == wins
                assert (top is None) == ("changes nothing" in verdict.reason), (moves, verdict.reason)
    assert winners >= 1


def test_episode_reference_player_wins_and_stuck_moves_are_refused() -> None:
    for seed in range(6):
        task = palaestra.make_task("game_2048", seed=seed, level=6)
        game = palaestra.get("game_2048").impl.new_episode(task, np.random.default_rng(0))
        assert "Build" in game.opening()
        assert game.act("jump").info["invalid"]
        for _ in range(task.metadata["budget"]):
            turn = game.act(game.reference_action())
            if turn.outcome:
                break
        assert turn.outcome == "solved" and turn.reward == 1.0


def test_malformed_and_over_budget_answers() -> None:
    task = palaestra.make_task("game_2048", seed=3, level=5)
    moves = task.answer.split()
    assert palaestra.verify(task, "<answer>" + ", ".join(m.lower() for m in moves) + "</answer>").correct
    words = {"L": "left", "R": "right", "U": "up", "D": "down"}
    assert palaestra.verify(task, "<answer>" + " ".join(words[m] for m in moves) + "</answer>").correct
    assert palaestra.verify(task, "<answer>" + "".join(moves) + "</answer>").correct
    over = moves + ["L"] * (task.metadata["budget"] + 1 - len(moves))
    assert "at most" in palaestra.verify(task, "<answer>" + " ".join(over) + "</answer>").reason
    assert not palaestra.verify(task, "<answer>" + " ".join(moves) + " X</answer>").format_ok
    assert not palaestra.verify(
        task, f"<answer>{task.answer} (tile {task.metadata['target']})</answer>"
    ).format_ok
