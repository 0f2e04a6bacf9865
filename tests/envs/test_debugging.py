"""Interactive debugging: run experiments in the sandbox, then submit a fix graded by hidden tests."""

from __future__ import annotations

import gymnasium
from gymnasium.utils.env_checker import check_env

import palaestra  # noqa: F401 - registers the env id
from palaestra.envs.debugging import ENV_ID, make_debugging_env


def test_experiment_then_fix() -> None:
    env = gymnasium.make(ENV_ID, level=3, tool_timeout_s=1.0).unwrapped
    prompt, info = env.reset(seed=0)
    assert "python" in prompt and info["family"] == "bug_repair"
    buggy = env.task.metadata["buggy"]
    probe = env.task.metadata["hidden"][0]
    observation, reward, terminated, truncated, info = env.step(
        f'<tool name="python">{buggy}\nprint(f({probe}))</tool>'
    )
    assert observation.startswith("[python] ") and info["role"] == "tool" and not terminated
    observation, *_ = env.step('<tool name="python">import time\ntime.sleep(10)</tool>')
    assert "timeout" in observation  # the sandbox stopped it at its limit
    observation, reward, terminated, truncated, info = env.step(f"<answer>\n{buggy}</answer>")
    assert terminated and reward == 0.0  # the unrepaired program fails the hidden tests
    env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(f"<answer>\n{env.task.answer}</answer>")
    assert (reward, terminated, truncated) == (1.0, True, False)
    env.close()


def test_env_checker() -> None:
    env = make_debugging_env(level=1)
    check_env(env, skip_render_check=True)
    env.close()
