"""ToolEnv: both call formats, enforced per-call time limits, clear errors, budget semantics."""

from __future__ import annotations

import json

import pytest
from gymnasium.utils.env_checker import check_env

from palaestra.envs import EnvPool
from palaestra.envs.tool_env import ToolEnv
from palaestra.envs.tools import ToolCallError, parse_tool_calls


@pytest.fixture(scope="module")
def env():
    environment = ToolEnv("expression", tool_timeout_s=1.0, max_tool_calls=20, invalid_call_penalty=0.1)
    yield environment
    environment.close()


def _call(name: str, **arguments: str) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def test_env_checker() -> None:
    environment = ToolEnv("expression", tools=("calculator", "z3"))
    check_env(environment, skip_render_check=True)
    environment.close()


def test_python_in_both_formats_and_tool_role(env: ToolEnv) -> None:
    prompt, _ = env.reset(seed=0)
    assert "<tool_call>" in prompt and '<tool name="python">' in prompt and "costs 0.1" in prompt
    for action in [_call("python", code="print(2**70)"), '<tool name="python">print(2**70)</tool>']:
        obs, reward, terminated, truncated, info = env.step(action)
        assert obs == "[python] 1180591620717411303424\n" and reward == 0.0
        assert not terminated and not truncated and info["role"] == "tool"
    openai_style = json.dumps(
        {"type": "function", "function": {"name": "python", "arguments": json.dumps({"code": "print(1)"})}}
    )
    assert env.step(openai_style)[0] == "[python] 1\n"


def test_sleep_past_the_limit_returns_a_timeout_within_it(env: ToolEnv) -> None:
    env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(
        '<tool name="python">import time\ntime.sleep(10)</tool>'
    )
    # the sandbox reports the timeout it enforced (a 10 s sleep that ran out would print nothing)
    assert obs.startswith("[python] timeout") and info["tool_results"][0]["status"] == "timeout"
    assert not terminated and not truncated


def test_calculator_and_z3(env: ToolEnv) -> None:
    env.reset(seed=2)
    assert env.step(_call("calculator", expression="(3/4 + 2)^2"))[0] == "[calculator] 121/16 (= 7.5625)"
    assert env.step('<tool name="calculator">__import__("os")</tool>')[0].startswith("[calculator] error")
    sat = env.step('<tool name="z3">(declare-const x Int)(assert (= (* 3 x) 12))</tool>')[0]
    assert sat.startswith("[z3] sat") and "x = 4" in sat
    assert env.step('<tool name="z3">(declare-const x Int)(assert (> x x))</tool>')[0] == "[z3] unsat"
    assert env.step('<tool name="z3">(assert (</tool>')[0].startswith("[z3] error")


@pytest.mark.parametrize(
    "action,message",
    [
        ("<tool_call>{not json</tool_call>", "not valid JSON"),
        ('<tool_call>{"arguments": {}}</tool_call>', '"name" string'),
        ('<tool_call>{"name": "python", "arguments": "[1"}</tool_call>', "not valid JSON"),
        ('<tool_call>{"name": "python", "arguments": [1]}</tool_call>', "JSON object"),
        ("<tool_call>{}", "unclosed"),
        ('<tool name="python">print(1)', "malformed tool tag"),
        (_call("rm", path="/"), "unknown tool 'rm'"),
        (_call("python"), 'missing string argument "code"'),
    ],
)
def test_bad_calls_give_a_clear_observation_and_the_penalty(env: ToolEnv, action: str, message: str) -> None:
    env.reset(seed=3)
    obs, reward, terminated, truncated, _ = env.step(action)
    assert message in obs and reward == pytest.approx(-0.1) and not terminated and not truncated


def test_final_answer_and_non_string_actions(env: ToolEnv) -> None:
    env.reset(seed=4)
    with pytest.raises(TypeError, match="must be a str"):
        env.step(3.5)  # type: ignore[arg-type]
    for action in ["", "\x00\udcff garbage"]:
        env.reset(seed=4)
        obs, reward, terminated, truncated, info = env.step(action)
        assert terminated and not truncated and reward == 0.0 and not info["verdict"]["format_ok"]
    env.reset(seed=4)
    obs, reward, terminated, truncated, _ = env.step(f"<answer>{env.task.answer}</answer>")
    assert (obs, reward, terminated, truncated) == ("correct", 1.0, True, False)


def test_budget_exhaustion_truncates() -> None:
    environment = ToolEnv("expression", tools=("calculator",), max_tool_calls=1)
    environment.reset(seed=0)
    environment.step(_call("calculator", expression="1+1"))
    obs, reward, terminated, truncated, _ = environment.step(_call("calculator", expression="2+2"))
    assert "budget exhausted" in obs and truncated and not terminated
    environment.close()


def test_tool_observations_are_recorded_with_the_tool_role() -> None:
    pool = EnvPool([lambda: ToolEnv("expression", tools=("z3",))], seed=0)
    pool.reset()
    pool.step({0: '<tool name="z3">(declare-const x Int)(assert (= x 2))</tool>'})
    rollout = pool.step({0: "<answer>0</answer>"})[0].rollout
    assert [m["role"] for m in rollout.messages] == ["user", "assistant", "tool", "assistant"]
    pool.close()


def test_parser_without_calls_and_format_restrictions() -> None:
    assert parse_tool_calls("just an answer <answer>3</answer>") == []
    assert parse_tool_calls('<tool name="z3">x</tool>', "json") == []
    with pytest.raises(ToolCallError):
        parse_tool_calls("<tool_call>nope</tool_call>", "json")
    with pytest.raises(ValueError, match="call_format"):
        ToolEnv("expression", call_format="xml")
