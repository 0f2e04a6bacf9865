"""Curriculum: the level follows the solve-rate band; UCB prefers families with learning signal."""

from __future__ import annotations

import numpy as np

from palaestra.agents.curriculum import TrainerCurriculum


def test_level_moves_to_keep_solve_rate_in_band():
    c = TrainerCurriculum(["a"], start_level=2, max_level=4, window=8)
    c.update("a", 2, [True] * 8, 0.0)
    assert c.level("a") == 3
    c.update("a", 3, [True] * 4 + [False] * 4, 0.5)  # inside the band: stay
    assert c.level("a") == 3
    c.update("a", 3, [False] * 8, 0.0)
    assert c.level("a") == 3  # window holds 4 right + 12 wrong -> trimmed to last 8: all wrong
    c.update("a", 3, [False] * 8, 0.0)
    assert c.level("a") == 2
    c.update("a", 3, [True] * 8, 0.0)  # stale results from the old level do not count
    assert c.level("a") == 2
    for _ in range(10):
        c.update("a", c.level("a"), [True] * 8, 0.0)
    assert c.level("a") == 4  # capped at max_level
    assert [e["to"] for e in c.events][:2] == [3, 2]


def test_ucb_prefers_learning_signal_and_explores():
    c = TrainerCurriculum(["flat", "rich"], ucb_c=1.0)
    rng = np.random.default_rng(0)
    first = c.sample(rng, 2)
    assert sorted(f for f, _ in first) == ["flat", "rich"]  # untried families first
    for _ in range(5):
        c.update("flat", 1, [True] * 4, 0.0)
        c.update("rich", 1, [True, False] * 2, 1.0)
    picks = [f for f, _ in c.sample(rng, 20)]
    assert picks.count("rich") > picks.count("flat") > 0


def test_state_round_trip():
    c = TrainerCurriculum(["a", "b"], window=4)
    c.sample(np.random.default_rng(1), 3)
    c.update("a", 1, [True] * 4, 0.3)
    d = TrainerCurriculum(["a", "b"], window=4)
    d.load_state_dict(c.state_dict())
    assert d.state_dict() == c.state_dict()
    rng1, rng2 = np.random.default_rng(5), np.random.default_rng(5)
    assert c.sample(rng1, 5) == d.sample(rng2, 5)
