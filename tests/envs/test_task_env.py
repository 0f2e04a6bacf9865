"""The single-turn TaskEnv: reset options, strict episode semantics, reset hygiene."""

from __future__ import annotations

import gymnasium
import pytest

import palaestra
from palaestra.envs import AnyText, TaskEnv


def test_gymnasium_make_by_id_and_by_helper() -> None:
    env = gymnasium.make("palaestra/Expression-v0")
    prompt, info = env.reset(seed=1)
    assert "Compute the exact value" in prompt and info["family"] == "expression"
    assert isinstance(palaestra.make("expression").unwrapped, TaskEnv)


def test_same_seed_same_task_and_correct_answer_rewarded() -> None:
    env = TaskEnv("expression")
    p1, i1 = env.reset(seed=5, options={"level": 4})
    p2, i2 = env.reset(seed=5, options={"level": 4})
    assert (p1, i1) == (p2, i2)
    task = env.task
    obs, reward, terminated, truncated, info = env.step(f"<answer>{task.answer}</answer>")
    assert (obs, reward, terminated, truncated) == ("correct", 1.0, True, False)
    assert info["correct"] and info["verdict"]["correct"] and info["task_id"] == task.id


def test_reset_options_level_knobs_and_task() -> None:
    env = TaskEnv("expression", level=2)
    _, info = env.reset(seed=0)
    assert info["level"] == 2
    _, info = env.reset(seed=0, options={"level": 6, "knobs": {"digits": 1}})
    assert info["level"] == 6 and info["knobs"]["digits"] == 1
    _, info = env.reset(seed=0, options={"knobs": {"operands": 3}})
    assert info["knobs"]["operands"] == 3
    ready = palaestra.make_task("expression", seed=123, level=3)
    prompt, info = env.reset(options={"task": ready})
    assert prompt == ready.prompt and info["task_id"] == ready.id
    with pytest.raises(ValueError, match="valid: level, knobs, task"):
        env.reset(options={"lvl": 3})
    with pytest.raises(ValueError, match="Task of family"):
        env.reset(options={"task": "not a task"})
    with pytest.raises(ValueError, match="level"):
        TaskEnv("expression", level=11)


def test_step_contract_errors() -> None:
    env = TaskEnv("expression")
    with pytest.raises(RuntimeError, match="reset"):
        env.step("<answer>1</answer>")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="must be a str"):
        env.step(42)  # type: ignore[arg-type]
    obs, reward, terminated, truncated, info = env.step("")
    assert terminated and not truncated and reward == 0.0 and not info["verdict"]["format_ok"]
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step("<answer>1</answer>")


def test_too_long_response_is_a_format_error_not_an_exception() -> None:
    env = TaskEnv("expression", max_response_chars=100)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step("1" * 101)
    assert reward == 0.0 and terminated and "longer than 100" in info["verdict"]["reason"]


def test_reset_hygiene_nothing_leaks_from_the_previous_episode() -> None:
    env = TaskEnv("expression")
    first = env.reset(seed=9)
    env.step("<answer>0</answer>")
    env.reset(seed=1)
    env.step("<answer>1</answer>")
    again = env.reset(seed=9)
    assert again == first and "verdict" not in again[1]


def test_render_ansi_shows_the_last_observation() -> None:
    env = TaskEnv("expression", render_mode="ansi")
    prompt, _ = env.reset(seed=0)
    assert env.render() == prompt
    with pytest.raises(ValueError, match="render_mode"):
        TaskEnv("expression", render_mode="human")


def test_any_text_space() -> None:
    space = AnyText(max_length=10, seed=0)
    assert space.contains("a b\n!é") and not space.contains("x" * 11) and not space.contains(3)
    assert all(space.contains(space.sample()) for _ in range(100))
