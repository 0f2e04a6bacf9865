"""Single-turn Gymnasium environment over any registered task family."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, SupportsFloat

import gymnasium

from palaestra.core import Task, Verdict
from palaestra.envs.spaces import AnyText
from palaestra.registry import get, make_task, verify

MAX_SEED = 2**63 - 1


class TaskEnv(gymnasium.Env[str, str]):
    """One task per episode: the agent reads a prompt and answers once.

    ## Description
    Each episode serves one task of a palaestra family (``palaestra/Sudoku-v0`` serves
    ``sudoku``). The task is drawn from ``self.np_random``, so ``reset(seed=s)`` always
    serves the same task.

    ## Observation
    A ``str``: the task prompt after ``reset``; after ``step``, the verifier's feedback
    (``"correct"`` or ``"incorrect: <reason>"``). Observations are deltas: the rollout
    driver owns the chat history.

    ## Action
    A ``str`` of at most ``max_response_chars`` characters: the model's full response. The
    answer is extracted from ``<answer>...</answer>``, ``\\boxed{...}`` or a family format.
    A non-string action raises ``TypeError``.

    ## Rewards
    The verdict's reward: 1.0 for a correct answer, 0.0 otherwise (no partial credit unless
    the family names it).

    ## Episode end
    ``terminated`` is ``True`` after the single answer; ``truncated`` is always ``False``.

    ## Arguments
    * ``family``: registered family name.
    * ``level``: default level (1..10) when reset passes neither ``level`` nor ``knobs``.
    * ``knobs``: default knob overrides.
    * ``max_response_chars``: longer responses are a format error, not an exception.

    ``reset(options=...)`` accepts ``{"level": int}``, ``{"knobs": {...}}`` (both may be
    combined) or ``{"task": Task}`` to serve a ready task.

    ``info`` carries ``task_id``, ``family``, ``level``, ``knobs``, ``seed`` and, after a
    step, ``verdict`` (a dict) and ``correct``.

    ## Version history
    * v0: initial version.
    """

    _done: bool  # the episode ended (terminated or truncated); step needs a reset first

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        family: str,
        *,
        level: int | None = None,
        knobs: Mapping[str, Any] | None = None,
        max_response_chars: int = 1 << 20,
        render_mode: str | None = None,
    ):
        self.spec_family = get(family)  # raises ValueError naming valid families
        self.family = family
        self.default_level = level
        self.default_knobs = dict(knobs or {})
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.max_response_chars = max_response_chars
        self.observation_space = AnyText(max_length=1 << 22)
        self.action_space = AnyText(max_length=max_response_chars)
        self.task: Task | None = None
        self._pregraded: tuple[str, Verdict] | None = None
        self._last_observation = ""
        self._done = True
        # fail fast on bad defaults rather than at the first reset
        if level is not None or knobs:
            make_task(family, seed=0, level=level, **self.default_knobs)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.task = self._next_task(options or {})
        self._pregraded = None
        self._done = False
        self._last_observation = self.task.prompt
        return self.task.prompt, self._task_info()

    def _next_task(self, options: Mapping[str, Any]) -> Task:
        unknown = set(options) - {"level", "knobs", "task"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; valid: level, knobs, task")
        if "task" in options:
            task = options["task"]
            if not isinstance(task, Task) or task.family != self.family:
                raise ValueError(f"options['task'] must be a Task of family {self.family!r}")
            return task
        level = options.get("level", self.default_level)
        knobs = {**self.default_knobs, **dict(options.get("knobs") or {})}
        task_seed = int(self.np_random.integers(0, MAX_SEED))
        return make_task(self.family, seed=task_seed, level=level, **knobs)

    def _task_info(self) -> dict[str, Any]:
        assert self.task is not None
        return {
            "task_id": self.task.id,
            "family": self.task.family,
            "level": self.task.level,
            "knobs": dict(self.task.knobs),
            "seed": self.task.seed,
        }

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        verdict = self.grade(action)
        self._done = True
        observation = "correct" if verdict.correct else f"incorrect: {verdict.reason}"
        self._last_observation = observation
        info = {**self._task_info(), "verdict": verdict.to_dict(), "correct": verdict.correct}
        return observation, float(verdict.reward), True, False, info

    def grade(self, action: str) -> Verdict:
        """Check the action type and episode state, then verify the action against the task."""
        if not isinstance(action, str):
            raise TypeError(f"action must be a str (the model's response), got {type(action).__name__}")
        if self.task is None or self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        if len(action) > self.max_response_chars:
            return Verdict.bad_format(f"response longer than {self.max_response_chars} characters")
        pregraded, self._pregraded = self._pregraded, None
        if pregraded is not None and pregraded[0] is action:
            return pregraded[1]
        return verify(self.task, action)

    def pregrade(self, action: str, verdict: Verdict) -> None:
        """Hand in the verdict of ``action`` for the current task, computed elsewhere (``EnvPool``
        verifies a whole batch with ``verify_many``); the next ``step(action)`` uses it."""
        self._pregraded = (action, verdict)

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._last_observation
        return None
