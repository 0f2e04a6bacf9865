"""palaestra's envs in GEM (``pip install gem-llm``): ``gem.make("palaestra:Sudoku-v0")``.

    import gem
    from palaestra.integrations.gem import register_gem

    register_gem()                                  # every palaestra id, as palaestra:<Name>-v0
    env = gem.make("palaestra:Nim-v0")
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(env.sample_random_action())

    envs = gem.make_vec(["palaestra:Expression-v0"] * 4, seed=0)   # GEM's vector envs, sync or async

GEM's ``Env`` is Gymnasium's step/reset contract with text in and out, ``reset(seed=None)``
(no options) and ``sample_random_action()``; :class:`PalaestraGemEnv` wraps a palaestra
Gymnasium env into it (the level and the first seed go to the constructor, as GEM envs take
their settings). Tested against gem-llm 0.1.0 itself (``.ci/real-libs gem``).
"""

from __future__ import annotations

from typing import Any

import gymnasium

try:  # GEM's abstract base, where GEM is installed
    from gem.core import Env as _GemEnv
except ImportError:  # pragma: no cover - the class still works without GEM
    _GemEnv = object

NAMESPACE = "palaestra:"


class PalaestraGemEnv(_GemEnv):
    """A palaestra Gymnasium env (``palaestra_id``) behind GEM's ``Env`` API.

    GEM constructs every env with ``seed=`` (``gem.make_vec`` gives env ``i`` the seed
    ``seed + i``): it seeds the first ``reset``; later resets continue the env's own random
    stream unless they pass a seed. GEM's base ``reset`` seeds the global ``random`` and numpy
    state; this one never touches them (the palaestra env draws from its own generator).
    """

    def __init__(
        self, palaestra_id: str, level: int | None = None, seed: int | None = None, **env_kwargs: Any
    ) -> None:
        self.env = gymnasium.make(palaestra_id, **env_kwargs)
        self.palaestra_id, self.level, self._first_seed = palaestra_id, level, seed

    def reset(self, seed: int | None = None) -> tuple[str, dict[str, Any]]:
        if seed is None:
            seed, self._first_seed = self._first_seed, None
        options = {"level": self.level} if self.level is not None else None
        return self.env.reset(seed=seed, options=options)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        return observation, float(reward), bool(terminated), bool(truncated), info

    def sample_random_action(self) -> str:
        """A random legal move in games (the random baseline); random text elsewhere."""
        game = getattr(self.env.unwrapped, "game", None)
        if game is not None and game.agents and not game.done:
            moves = game.legal_moves()
            return moves[int(self.env.unwrapped.np_random.integers(len(moves)))]
        return self.env.action_space.sample()

    def close(self) -> None:
        self.env.close()


def gem_ids() -> list[str]:
    """The GEM ids of every registered palaestra env."""
    return [
        NAMESPACE + env_id.split("/", 1)[1]
        for env_id in gymnasium.registry
        if env_id.startswith("palaestra/")
    ]


def register_gem() -> list[str]:
    """Register every palaestra env with GEM; returns the ids (``palaestra:<Name>-v0``)."""
    from gem.envs.registration import register

    ids = gem_ids()
    for gem_id in ids:
        # GEM's register(env_id, entry_point, **kwargs) keeps the kwargs for the constructor
        register(gem_id, PalaestraGemEnv, palaestra_id="palaestra/" + gem_id[len(NAMESPACE) :])
    return ids
