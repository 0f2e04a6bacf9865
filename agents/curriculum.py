"""The trainer's curriculum (:class:`TrainerCurriculum`): a per-family adaptive level and UCB sampling across families.

Level: each family keeps the outcomes of its recent attempts at its current level; once the
window is full, a solve rate above the band raises the level and one below it lowers it (then
the window restarts). That rule is :func:`palaestra.curriculum.band_step`, the one the
standalone :class:`palaestra.curriculum.Curriculum` uses for other trainers and the server.
Families: each prompt slot goes to the family with the highest
``signal + c * sqrt(ln N / n)``, where the signal is the family's recent mean absolute GRPO
advantage (a family that is all-solved or all-failed teaches nothing), in the spirit of DUMP.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from palaestra.curriculum import band_step


@dataclass
class FamilyState:
    level: int
    outcomes: deque = field(default_factory=deque)
    pulls: int = 0
    signals: deque = field(default_factory=deque)
    attempts: int = 0
    solved: int = 0


class TrainerCurriculum:
    """Chooses (family, level) for every prompt of a step and learns from the results."""

    def __init__(
        self,
        families: Sequence[str],
        *,
        start_level: int = 1,
        max_level: int = 10,
        band: tuple[float, float] = (0.2, 0.8),
        window: int = 64,
        ucb_c: float = 0.5,
        adaptive: bool = True,
    ) -> None:
        if not families:
            raise ValueError("curriculum needs at least one family")
        self.families = list(families)
        self.max_level = max_level
        self.band = band
        self.window = window
        self.ucb_c = ucb_c
        self.adaptive = adaptive
        self.state = {f: FamilyState(level=start_level) for f in self.families}
        self.events: list[dict[str, Any]] = []

    def level(self, family: str) -> int:
        return self.state[family].level

    def scores(self) -> dict[str, float]:
        """UCB score of each family (inf for a family never tried)."""
        total = sum(s.pulls for s in self.state.values())
        out = {}
        for name, s in self.state.items():
            if s.pulls == 0:
                out[name] = math.inf
                continue
            signal = float(np.mean(s.signals)) if s.signals else 0.0
            out[name] = signal + self.ucb_c * math.sqrt(math.log(max(total, 1)) / s.pulls)
        return out

    def sample(self, rng: np.random.Generator, k: int) -> list[tuple[str, int]]:
        """``k`` (family, level) slots; pulls are counted as slots are handed out."""
        picks = []
        for _ in range(k):
            scores = self.scores()
            best = max(scores.values())
            tied = [f for f in self.families if scores[f] == best]
            name = tied[int(rng.integers(len(tied)))]
            self.state[name].pulls += 1
            picks.append((name, self.state[name].level))
        return picks

    def update(self, family: str, level: int, correct: Sequence[bool], mean_abs_advantage: float) -> None:
        """Record one group's outcomes (at ``level``) and its learning signal."""
        s = self.state[family]
        s.attempts += len(correct)
        s.solved += sum(bool(c) for c in correct)
        s.signals.append(float(mean_abs_advantage))
        while len(s.signals) > 16:
            s.signals.popleft()
        if level != s.level:  # a result from before the last level change: do not mix levels
            return
        # The solve-rate band rule is palaestra.curriculum.band_step, shared with the standalone
        # Curriculum that other trainers and the server use.
        new, rate = band_step(
            s.outcomes,
            s.level,
            correct,
            band=self.band,
            window=self.window,
            max_level=self.max_level,
            adaptive=self.adaptive,
        )
        if rate is not None:
            self.events.append({"family": family, "from": s.level, "to": new, "solve_rate": rate})
            s.level = new

    def metrics(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for name, score in self.scores().items():
            s = self.state[name]
            out[f"curriculum/{name}/level"] = s.level
            out[f"curriculum/{name}/recent_solve_rate"] = (
                sum(s.outcomes) / len(s.outcomes) if s.outcomes else float("nan")
            )
            out[f"curriculum/{name}/ucb"] = score if math.isfinite(score) else -1.0
        return out

    def state_dict(self) -> dict[str, Any]:
        return {
            name: {
                "level": s.level,
                "outcomes": list(s.outcomes),
                "pulls": s.pulls,
                "signals": list(s.signals),
                "attempts": s.attempts,
                "solved": s.solved,
            }
            for name, s in self.state.items()
        } | {"__events__": list(self.events)}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        self.events = list(data.get("__events__", []))
        for name, d in data.items():
            if name == "__events__":
                continue
            if name not in self.state:
                raise ValueError(f"checkpoint curriculum has family {name!r} that this run does not train")
            self.state[name] = FamilyState(
                level=d["level"],
                outcomes=deque(d["outcomes"]),
                pulls=d["pulls"],
                signals=deque(d["signals"]),
                attempts=d["attempts"],
                solved=d["solved"],
            )
