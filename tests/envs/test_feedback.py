"""FeedbackEnv: retries with feedback, attempt budget, reward modes, strict end semantics."""

from __future__ import annotations

import pytest
from gymnasium.utils.env_checker import check_env

import palaestra
from palaestra.envs import FeedbackEnv

WRONG = "<answer>definitely wrong</answer>"


def _right(env: FeedbackEnv) -> str:
    return f"<answer>{env.task.answer}</answer>"


@pytest.mark.parametrize("family", palaestra.families())
def test_env_checker_passes_for_every_family(family: str) -> None:
    check_env(FeedbackEnv(family, max_attempts=2), skip_render_check=True)


def test_solving_on_a_later_attempt_terminates() -> None:
    env = FeedbackEnv("expression", max_attempts=3, feedback="reason")
    prompt, info = env.reset(seed=0)
    assert prompt.endswith("You have 3 attempts.") and info["attempt"] == 0
    obs, reward, terminated, truncated, info = env.step("<answer>123456789</answer>")
    assert obs.startswith("Incorrect: 123456789 is not the value") and obs.endswith("(2 attempts left).")
    assert (reward, terminated, truncated, info["attempt"]) == (0.0, False, False, 1)
    obs, reward, terminated, truncated, info = env.step(_right(env))
    assert (obs, reward, terminated, truncated, info["solved"]) == ("correct", 1.0, True, False, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(_right(env))


def test_spending_the_budget_truncates_and_never_both() -> None:
    env = FeedbackEnv("expression", max_attempts=2, feedback="binary")
    env.reset(seed=0)
    assert env.step(WRONG)[1:4] == (0.0, False, False)
    obs, reward, terminated, truncated, _ = env.step(WRONG)
    assert obs == "No attempts left." or obs.startswith("Incorrect.")
    assert (reward, terminated, truncated) == (0.0, False, True)


@pytest.mark.parametrize("detail,expected", [("none", "Try again"), ("binary", "Incorrect. Try again")])
def test_feedback_detail_hides_the_reason(detail: str, expected: str) -> None:
    env = FeedbackEnv("expression", max_attempts=3, feedback=detail)
    env.reset(seed=0)
    obs = env.step("<answer>123456789</answer>")[0]
    assert obs.startswith(expected) and "123456789" not in obs


def test_per_turn_reward_is_discounted_by_attempt() -> None:
    env = FeedbackEnv("expression", max_attempts=3, reward="per_turn", discount=0.5)
    env.reset(seed=0)
    env.step(WRONG)
    env.step(WRONG)
    assert env.step(_right(env))[1] == pytest.approx(0.25)


def test_bad_arguments_and_bad_actions() -> None:
    for kwargs, message in [
        ({"max_attempts": 0}, "max_attempts"),
        ({"feedback": "loud"}, "feedback"),
        ({"reward": "dense"}, "reward"),
        ({"discount": 0}, "discount"),
    ]:
        with pytest.raises(ValueError, match=message):
            FeedbackEnv("expression", **kwargs)
    env = FeedbackEnv("expression", max_attempts=3, max_response_chars=1000)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="must be a str"):
        env.step(None)  # type: ignore[arg-type]
    for action in ["", "x" * 5000]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert reward == 0.0 and not info["verdict"]["format_ok"] and obs.startswith("Incorrect")


def test_reset_hygiene() -> None:
    env = FeedbackEnv("expression", max_attempts=3)
    first = env.reset(seed=4)
    env.step(WRONG)
    env.reset(seed=5)
    env.step(_right(env))
    assert env.reset(seed=4) == first and env.attempt == 0
