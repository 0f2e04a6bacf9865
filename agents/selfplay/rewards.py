"""Proposer and solver rewards, and per-(role, task type) baselines.

Solver reward: exact, 1.0 or 0.0 from the language's executor/verifier.

Proposer reward (learnability) from the solver's pass rate ``p`` over ``n >= MIN_PROBES``
attempts sampled at the training temperature (> 0: at temperature 0 all attempts agree and p
carries no signal):

- ``azr`` (default, Absolute Zero): ``1 - p`` for ``0 < p < 1``; ``REWARD_ALWAYS_SOLVED`` at
  p = 1, ``REWARD_NEVER_SOLVED`` at p = 0;
- ``rzero`` (R-Zero's uncertainty reward, in the min form): ``min(p, 1 - p)``;
- ``stp`` (STP's "barely solvable"): ``1`` when ``0 < p <= threshold``, else ``0``;

and ``REWARD_INVALID`` for any proposal the gate refused (in every form).

Near-duplicates: a valid proposal whose AST shape is shared by a fraction ``share`` of the buffered
tasks of its type keeps ``learnability * (1 - NEAR_DUPLICATE_PENALTY * share)``. The penalty scales
the learnability down and never takes it below 0, so a valid proposal always scores above an
invalid one and a learnable one never below an unlearnable one. (It used to subtract 0.25 per
look-alike down to ``REWARD_INVALID``: on the tiny model 41 of 60 steps then scored every valid
proposal like an invalid one, and 25 steps trained nothing.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

MIN_PROBES = 8
REWARD_NEVER_SOLVED = 0.0  # p = 0: too hard (or wrong) for the current solver
REWARD_ALWAYS_SOLVED = 0.0  # p = 1: trivial
REWARD_INVALID = -1.0  # refused by the gate: unparsable, unsafe, non-deterministic, duplicate
STP_THRESHOLD = 0.25
NEAR_DUPLICATE_PENALTY = 0.5  # learnability x (1 - this x share of the buffer with the same AST shape)
FORMS = ("azr", "rzero", "stp")


def pass_rate(rewards: Sequence[float], temperature: float, min_probes: int = MIN_PROBES) -> float:
    """The solver's pass rate over its probe attempts; refuses greedy or too few probes."""
    if not temperature > 0:
        raise ValueError(f"difficulty probes must be sampled at temperature > 0, got {temperature}")
    if len(rewards) < min_probes:
        raise ValueError(f"need at least {min_probes} probe attempts, got {len(rewards)}")
    return float(sum(1.0 for r in rewards if r >= 1.0)) / len(rewards)


def learnability(p: float, form: str = "azr", threshold: float = STP_THRESHOLD) -> float:
    """The proposer's reward for a valid task whose pass rate is ``p``."""
    if not 0.0 <= p <= 1.0 or math.isnan(p):
        raise ValueError(f"pass rate must lie in [0, 1], got {p}")
    if form == "azr":
        if p == 0.0:
            return REWARD_NEVER_SOLVED
        if p == 1.0:
            return REWARD_ALWAYS_SOLVED
        return 1.0 - p
    if form == "rzero":
        return min(p, 1.0 - p)
    if form == "stp":
        return 1.0 if 0.0 < p <= threshold else 0.0
    raise ValueError(f"unknown learnability form {form!r}; choose from {FORMS}")


def proposer_reward(
    p: float | None, *, form: str = "azr", near_share: float = 0.0, penalty: float = NEAR_DUPLICATE_PENALTY
) -> float:
    """``REWARD_INVALID`` when ``p`` is None (refused), else the learnability scaled down by the
    near-duplicate penalty: ``learnability * (1 - penalty * near_share)``, where ``near_share`` is
    the share of buffered tasks with the proposal's AST shape. Never below 0 for a valid proposal."""
    if p is None:
        return REWARD_INVALID
    if not 0.0 <= near_share <= 1.0 or not 0.0 <= penalty <= 1.0:
        raise ValueError(f"near_share and penalty must lie in [0, 1], got {near_share}, {penalty}")
    return learnability(p, form) * (1.0 - penalty * near_share)


@dataclass
class Baselines:
    """Running mean reward per (role, task type) (AZR's TRR++): advantage = r - baseline."""

    momentum: float = 0.9
    values: dict[str, float] = field(default_factory=dict)

    @staticmethod
    def key(role: str, task_type: str) -> str:
        return f"{role}/{task_type}"

    def advantages(self, role: str, task_type: str, rewards: Sequence[float]) -> list[float]:
        """Advantages against the baseline before this batch, then fold the batch in."""
        key = self.key(role, task_type)
        if not rewards:
            return []
        base = self.values.get(key, sum(rewards) / len(rewards))
        out = [r - base for r in rewards]
        mean = sum(rewards) / len(rewards)
        self.values[key] = self.momentum * base + (1 - self.momentum) * mean
        return out

    def state_dict(self) -> dict[str, Any]:
        return {"momentum": self.momentum, "values": dict(self.values)}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Baselines:
        return cls(momentum=state["momentum"], values=dict(state["values"]))
