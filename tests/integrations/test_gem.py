"""GEM: palaestra envs behind GEM's Env API, registered as palaestra:<Name>-v0.

gem-llm is not installed: gem-llm 0.1.0 pins reasoning-gym==0.1.23, and the dev extra needs
reasoning-gym >= 0.1.25 (the peer that benchmarks/generation.py times side by side). Stand-in: a minimal
`gem` package with GEM's abstract `gem.core.Env` (abstract step/reset(seed), sample_random_action)
and `gem.envs.registration.register/make` keyed by id with constructor kwargs, as GEM's
registry works.
"""

from __future__ import annotations

import abc
import importlib
import sys
import types

import pytest


class Env(abc.ABC):
    @abc.abstractmethod
    def step(self, action): ...

    @abc.abstractmethod
    def reset(self, seed=None): ...

    def sample_random_action(self):
        raise NotImplementedError


@pytest.fixture
def gem(monkeypatch):
    registry = {}
    core = types.ModuleType("gem.core")
    core.Env = Env
    registration = types.ModuleType("gem.envs.registration")

    def register(id, entry_point, **kwargs):  # GEM's signature: the id comes first, as `id`
        registry[id] = (entry_point, kwargs)

    registration.register = register
    package = types.ModuleType("gem")
    package.make = lambda env_id: registry[env_id][0](**registry[env_id][1])
    for name, module in {
        "gem": package,
        "gem.core": core,
        "gem.envs": types.ModuleType("gem.envs"),
        "gem.envs.registration": registration,
    }.items():
        monkeypatch.setitem(sys.modules, name, module)
    import palaestra.integrations.gem as adapter

    importlib.reload(adapter)  # picks up gem.core.Env as its base class
    yield package, adapter
    monkeypatch.undo()
    importlib.reload(adapter)


def test_registered_ids_play_through_gems_api(gem):
    package, adapter = gem
    ids = adapter.register_gem()
    assert "palaestra:Sudoku-v0" in ids and "palaestra:Nim-v0" in ids
    env = package.make("palaestra:Nim-v0")
    assert isinstance(env, Env)
    observation, info = env.reset(seed=0)
    assert "Nim" in observation
    done, steps = False, 0
    while not done and steps < 100:
        observation, reward, terminated, truncated, info = env.step(env.sample_random_action())
        assert isinstance(reward, float) and not info.get("invalid")  # random moves are legal moves
        done, steps = terminated or truncated, steps + 1
    assert done


def test_single_turn_task_and_level(gem):
    _, adapter = gem
    env = adapter.PalaestraGemEnv("palaestra/Expression-v0", level=4)
    prompt, _ = env.reset(seed=3)
    task = env.env.unwrapped.task
    assert task.level == 4 and prompt.startswith(task.prompt[:20])
    assert env.step(f"<answer>{task.answer}</answer>")[1:3] == (1.0, True)
