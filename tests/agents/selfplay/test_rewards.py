"""Reward values at the pass rates the issue names, the forms, and the probe guards."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from palaestra.agents.selfplay.rewards import (
    REWARD_ALWAYS_SOLVED,
    REWARD_INVALID,
    REWARD_NEVER_SOLVED,
    Baselines,
    learnability,
    pass_rate,
    proposer_reward,
)


def probes(solved: int, n: int = 8) -> list[float]:
    return [1.0] * solved + [0.0] * (n - solved)


@pytest.mark.parametrize(
    ("solved", "azr", "rzero", "stp"),
    [
        (0, REWARD_NEVER_SOLVED, 0.0, 0.0),
        (1, 7 / 8, 1 / 8, 1.0),
        (4, 1 / 2, 1 / 2, 0.0),
        (8, REWARD_ALWAYS_SOLVED, 0.0, 0.0),
    ],
)
def test_reward_values(solved: int, azr: float, rzero: float, stp: float) -> None:
    p = pass_rate(probes(solved), temperature=1.0)
    assert p == solved / 8
    assert proposer_reward(p) == pytest.approx(azr)
    assert proposer_reward(p, form="rzero") == pytest.approx(rzero)
    assert proposer_reward(p, form="stp") == pytest.approx(stp)


def test_named_constants() -> None:
    assert (REWARD_NEVER_SOLVED, REWARD_ALWAYS_SOLVED, REWARD_INVALID) == (0.0, 0.0, -1.0)
    for form in ("azr", "rzero", "stp"):
        assert proposer_reward(None, form=form) == REWARD_INVALID
    # invalid is strictly worse than any valid proposal, however trivial or impossible
    assert REWARD_INVALID < min(learnability(p, f) for p in (0.0, 1.0) for f in ("azr", "rzero", "stp"))


def test_near_duplicate_penalty() -> None:
    assert proposer_reward(0.5, near_share=0.5, penalty=0.4) == pytest.approx(0.5 * 0.8)
    assert proposer_reward(0.5, near_share=1.0, penalty=1.0) == 0.0
    with pytest.raises(ValueError):
        proposer_reward(0.5, near_share=2.0)


@given(
    solved=st.integers(1, 7),
    share=st.floats(0.0, 1.0),
    penalty=st.floats(0.0, 1.0),
    form=st.sampled_from(["azr", "rzero", "stp"]),
)
def test_penalty_never_makes_a_valid_proposal_score_like_an_invalid_one(
    solved: int, share: float, penalty: float, form: str
) -> None:
    p = solved / 8
    reward = proposer_reward(p, form=form, near_share=share, penalty=penalty)
    assert reward > REWARD_INVALID
    # scaled, never shifted: a learnable proposal keeps at least (1 - penalty) of its learnability
    assert learnability(p, form) * (1 - penalty) - 1e-12 <= reward <= learnability(p, form) + 1e-12
    # and never ranks below an unlearnable valid proposal (p = 0 or 1 scores 0)
    assert reward >= max(REWARD_NEVER_SOLVED, REWARD_ALWAYS_SOLVED)


def test_probe_guards() -> None:
    with pytest.raises(ValueError, match="temperature"):
        pass_rate(probes(4), temperature=0.0)
    with pytest.raises(ValueError, match="at least 8"):
        pass_rate(probes(2, n=4), temperature=1.0)
    with pytest.raises(ValueError):
        learnability(1.5)
    with pytest.raises(ValueError):
        learnability(0.5, form="nope")


def test_baselines_are_per_role_and_task_type() -> None:
    base = Baselines(momentum=0.5)
    assert base.advantages("proposer", "deduction", [1.0, 0.0]) == [0.5, -0.5]
    assert base.values["proposer/deduction"] == 0.5
    assert base.advantages("proposer", "deduction", [1.0]) == [0.5]  # against the running mean
    assert base.advantages("solver", "deduction", [0.0, 0.0]) == [0.0, 0.0]  # its own baseline
    assert base.values["proposer/deduction"] == 0.75
    assert Baselines.from_state(base.state_dict()).values == base.values
