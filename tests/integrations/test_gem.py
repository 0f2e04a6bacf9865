"""GEM (gem-llm 0.1.0, the PyPI release): palaestra envs through GEM's own make, make_vec and wrappers.

gem-llm pins reasoning-gym 0.1.23 while the dev extra needs >= 0.1.25, so GEM lives in its own
virtual environment: ``.ci/real-libs gem-llm`` builds it (cached), installs palaestra into it and
runs this module there with PALAESTRA_REAL_LIB=gem-llm, where a missing GEM is a failure. In the main
environment the module is skipped, counted, with that reason.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import random

import numpy as np
import pytest

PINNED = "0.1.0"
if os.environ.get("PALAESTRA_REAL_LIB") == "gem-llm":  # its own venv: missing GEM is an error
    gem = importlib.import_module("gem")
else:
    gem = pytest.importorskip(
        "gem", reason=f"gem-llm {PINNED} runs in its own venv: bash .ci/real-libs gem-llm"
    )

from gem.envs.registration import make, make_vec  # noqa: E402
from gem.wrappers.wrapper_factory import get_wrapper_fns  # noqa: E402

from palaestra.integrations.gem import PalaestraGemEnv, register_gem  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def registered() -> list[str]:
    return register_gem()


def test_the_release_is_the_one_pinned() -> None:
    print("gem-llm", importlib.metadata.version("gem-llm"))
    assert importlib.metadata.version("gem-llm") == PINNED


def test_documented_snippet_plays_a_game(registered: list[str]) -> None:
    assert "palaestra:Sudoku-v0" in registered and "palaestra:Nim-v0" in registered
    env = gem.make("palaestra:Nim-v0")
    assert isinstance(env, gem.core.Env) and env.env_id == "palaestra:Nim-v0"
    observation, info = env.reset(seed=0)
    assert "Nim" in observation
    done, steps = False, 0
    while not done and steps < 100:
        observation, reward, terminated, truncated, info = env.step(env.sample_random_action())
        assert isinstance(reward, float) and not info.get("invalid")  # random moves are legal moves
        done, steps = terminated or truncated, steps + 1
    assert done


def test_single_turn_task_with_a_level() -> None:
    env = make("palaestra:Expression-v0", level=4)
    prompt, _ = env.reset(seed=3)
    task = env.env.unwrapped.task
    assert task.level == 4 and prompt.startswith(task.prompt[:20])
    assert env.step(f"<answer>{task.answer}</answer>")[1:3] == (1.0, True)


def test_constructor_seed_seeds_the_first_reset_only() -> None:
    """gem.make_vec passes seed= to every constructor: env i gets seed + i."""
    a, b = make("palaestra:Expression-v0", seed=7), make("palaestra:Expression-v0", seed=7)
    first = [a.reset()[0], b.reset()[0]]
    assert first[0] == first[1] == PalaestraGemEnv("palaestra/Expression-v0").reset(seed=7)[0]
    assert a.reset()[0] == b.reset()[0] != first[0]  # the env's own stream goes on


@pytest.mark.parametrize("async_mode", [False, True])
def test_vector_envs_sync_and_async(async_mode: bool) -> None:
    envs = make_vec(["palaestra:Expression-v0"] * 3, seed=10, async_mode=async_mode)  # (GEM has no close)
    observations, _ = envs.reset()
    assert len(observations) == 3 and len(set(observations)) == 3  # seeds 10, 11, 12
    expected = [PalaestraGemEnv("palaestra/Expression-v0").reset(seed=10 + i)[0] for i in range(3)]
    assert list(observations) == expected
    _, rewards, terminated, truncated, _ = envs.step(["<answer>0</answer>"] * 3)
    assert len(rewards) == 3 and all(terminated) and not any(truncated)


def test_gems_wrappers_wrap_palaestra_envs() -> None:
    env = make("palaestra:Expression-v0")
    for wrapper in get_wrapper_fns("concat,episode_tracking"):
        env = wrapper(env)
    observation, info = env.reset(seed=1)
    task = env.unwrapped.env.unwrapped.task
    assert task.prompt[:20] in observation and info["step_counter"] == 0
    _, reward, terminated, _, info = env.step(f"<answer>{task.answer}</answer>")
    assert reward == 1.0 and terminated and info["cumulative_rewards"] == 1.0


def test_no_global_random_state_is_touched() -> None:
    """GEM's base reset seeds random and numpy globally; palaestra's envs draw from their own."""
    python_state, numpy_state = random.getstate(), np.random.get_state()  # read, never set
    env = make("palaestra:Sudoku-v0")
    env.reset(seed=5)
    env.step("<answer>1</answer>")
    assert random.getstate() == python_state
    after = np.random.get_state()
    assert after[0] == numpy_state[0] and (after[1] == numpy_state[1]).all() and after[2:] == numpy_state[2:]


def test_the_docs_snippet_runs_as_written(tmp_path) -> None:
    """docs/integrations.md's GEM block, executed in this (GEM's own) environment."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "integrations.md").read_text()
    section = page.split("## GEM", 1)[1]
    snippet = re.search(r"```py\n(.*?)```", section, re.DOTALL).group(1)
    assert "make_vec" in snippet and "register_gem()" in snippet
    script = tmp_path / "snippet.py"
    script.write_text(snippet)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
