"""Multi-turn feedback: any family becomes a retry-until-solved environment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, SupportsFloat

from palaestra.core import Verdict
from palaestra.envs.task_env import TaskEnv

FEEDBACK_DETAILS = ("none", "binary", "reason")
REWARD_MODES = ("final", "per_turn")


class FeedbackEnv(TaskEnv):
    """A task the agent may answer several times, hearing the verifier after each wrong try.

    ## Description
    Wraps the single-turn :class:`TaskEnv` of any family. After a wrong answer the agent gets
    feedback and tries again, up to ``max_attempts`` answers.

    ## Observation
    ``reset``: the task prompt followed by a line stating the attempt budget. After a wrong
    answer with attempts left: the feedback, by ``feedback``:
    ``"none"`` -> ``"Try again (N attempts left)."``; ``"binary"`` -> ``"Incorrect. Try
    again (N attempts left)."``; ``"reason"`` -> ``"Incorrect: <verifier reason>. Try again
    (N attempts left)."``. After the last step: ``"correct"`` or the final feedback.

    ## Action
    A ``str``: the model's full response to the latest observation.

    ## Rewards
    ``reward="final"`` (default): 0 on every step except the last, which pays 1.0 if the task
    was solved on any attempt. ``reward="per_turn"``: attempt ``k`` (1-based) pays
    ``verdict.reward * discount ** (k - 1)``, so solving sooner pays more and partial-credit
    families pay on every turn.

    ## Episode end
    ``terminated=True`` when the answer is correct. ``truncated=True`` when the attempt budget
    is spent without a correct answer. Never both.

    ## Arguments
    ``family``, ``level``, ``knobs`` as for :class:`TaskEnv`; ``max_attempts`` (>= 1);
    ``feedback`` in ``("none", "binary", "reason")``; ``reward`` in ``("final", "per_turn")``;
    ``discount`` in (0, 1]. Reset options as for :class:`TaskEnv`.

    ``info`` carries the task fields, ``attempt`` (answers given so far), ``verdict`` of the
    latest answer and ``solved``.

    ## Version history
    * v0: initial version.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        family: str,
        *,
        max_attempts: int = 3,
        feedback: str = "reason",
        reward: str = "final",
        discount: float = 0.9,
        level: int | None = None,
        knobs: Mapping[str, Any] | None = None,
        max_response_chars: int = 1 << 20,
        render_mode: str | None = None,
    ):
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        if feedback not in FEEDBACK_DETAILS:
            raise ValueError(f"feedback must be one of {FEEDBACK_DETAILS}, got {feedback!r}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if not 0 < discount <= 1:
            raise ValueError(f"discount must be in (0, 1], got {discount}")
        super().__init__(
            family, level=level, knobs=knobs, max_response_chars=max_response_chars, render_mode=render_mode
        )
        self.max_attempts, self.feedback, self.reward_mode, self.discount = (
            max_attempts,
            feedback,
            reward,
            discount,
        )
        self.attempt = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        prompt, info = super().reset(seed=seed, options=options)
        self.attempt = 0
        budget = "one attempt" if self.max_attempts == 1 else f"{self.max_attempts} attempts"
        self._last_observation = f"{prompt}\n\nYou have {budget}."
        return self._last_observation, {**info, "attempt": 0, "solved": False}

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        verdict = self.grade(action)
        self.attempt += 1
        solved = verdict.correct
        out_of_budget = not solved and self.attempt >= self.max_attempts
        self._done = solved or out_of_budget
        reward = self._reward(verdict)
        observation = "correct" if solved else self._feedback(verdict)
        self._last_observation = observation
        info = {
            **self._task_info(),
            "verdict": verdict.to_dict(),
            "correct": solved,
            "attempt": self.attempt,
            "solved": solved,
        }
        return observation, reward, solved, out_of_budget, info

    def _reward(self, verdict: Verdict) -> float:
        if self.reward_mode == "per_turn":
            return float(verdict.reward) * self.discount ** (self.attempt - 1)
        return 1.0 if verdict.correct else 0.0

    def _feedback(self, verdict: Verdict) -> str:
        left = self.max_attempts - self.attempt
        if self.feedback == "reason":
            head = f"Incorrect: {verdict.reason}."
        elif self.feedback == "binary":
            head = "Incorrect."
        else:
            head = ""
        tail = f"Try again ({left} attempt{'s' if left != 1 else ''} left)." if left else "No attempts left."
        return f"{head} {tail}".strip()
