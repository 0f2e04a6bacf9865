"""Interactive families as multi-turn Gymnasium environments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, SupportsFloat

import numpy as np

from palaestra.envs.task_env import TaskEnv
from palaestra.registry import Episode, Turn


class InteractiveEnv(TaskEnv):
    """A live game over one task of an interactive family (Mastermind, minesweeper, ...).

    ## Description
    The task's hidden state (a secret code, a mine field, a hidden function) stays with the
    environment; the agent acts turn by turn and reads the game's feedback. Interactive
    families register this class as their Gymnasium id.

    ## Observation
    ``reset``: the game's opening (rules, budget, action format). After each action: the
    game's feedback for that action only (a delta; the driver keeps the history).

    ## Action
    A ``str`` in the format the opening states. An invalid action gets an explanation and
    costs ``invalid_action_penalty`` (stated in the opening when non-zero); it never raises,
    except for a non-string action (``TypeError``).

    ## Rewards
    As the family's game defines them (typically 1.0 when solved, 0 otherwise), minus the
    invalid-action penalty.

    ## Episode end
    ``terminated=True`` when the game ends by its rules (solved or failed);
    ``truncated=True`` when ``max_turns`` actions were taken without an end. Never both.

    ## Arguments
    ``family``, ``level``, ``knobs``, ``max_response_chars`` as for :class:`TaskEnv`;
    ``max_turns``: turn budget (default: the game's own); ``invalid_action_penalty``.

    ``info`` carries the task fields, ``turn``, ``outcome`` and the game's own fields.

    ## Version history
    * v0: initial version.
    """

    def __init__(
        self,
        family: str,
        *,
        max_turns: int | None = None,
        invalid_action_penalty: float = 0.0,
        level: int | None = None,
        knobs: Mapping[str, Any] | None = None,
        max_response_chars: int = 1 << 16,
        render_mode: str | None = None,
    ):
        super().__init__(
            family, level=level, knobs=knobs, max_response_chars=max_response_chars, render_mode=render_mode
        )
        if not self.spec_family.impl.interactive:
            raise ValueError(f"family {family!r} is not interactive; use TaskEnv or FeedbackEnv")
        if max_turns is not None and max_turns < 1:
            raise ValueError(f"max_turns must be positive, got {max_turns}")
        self.max_turns_override = max_turns
        self.invalid_action_penalty = invalid_action_penalty
        self.episode: Episode | None = None
        self.turn = 0

    @property
    def max_turns(self) -> int:
        assert self.episode is not None
        return self.max_turns_override or self.episode.max_turns

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        _, info = super().reset(seed=seed, options=options)
        assert self.task is not None
        game_rng = np.random.Generator(np.random.PCG64(int(self.np_random.integers(0, 2**63 - 1))))
        self.episode = self.spec_family.impl.new_episode(self.task, game_rng)
        self.turn = 0
        opening = self.episode.opening()
        if self.invalid_action_penalty:
            opening += f"\nAn invalid action costs {self.invalid_action_penalty:g} reward."
        self._last_observation = opening
        return opening, {**info, "turn": 0, "outcome": None}

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        if not isinstance(action, str):
            raise TypeError(f"action must be a str (the model's message), got {type(action).__name__}")
        if self.episode is None or self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        if len(action) > self.max_response_chars:
            turn = Turn(
                f"invalid action: longer than {self.max_response_chars} characters", info={"invalid": True}
            )
        else:
            turn = self.episode.act(action)
        self.turn += 1
        terminated = turn.outcome is not None
        truncated = not terminated and self.turn >= self.max_turns
        self._done = terminated or truncated
        penalty = self.invalid_action_penalty if turn.info.get("invalid") else 0.0
        self._last_observation = turn.observation
        info = {**self._task_info(), **dict(turn.info), "turn": self.turn, "outcome": turn.outcome}
        return turn.observation, float(turn.reward) - penalty + 0.0, terminated, truncated, info
