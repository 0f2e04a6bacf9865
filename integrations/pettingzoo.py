"""palaestra's games as PettingZoo AEC environments (``pip install 'palaestra[pettingzoo]'``).

    from palaestra.integrations.pettingzoo import GAMES, env

    game = env("kuhn_poker", level=3)
    game.reset(seed=0)
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, info = game.last()
        move = None if terminated or truncated else game.action_space(agent).sample()  # a random legal move
        game.step(move)

Observations and actions are text. ``observation_space(agent)`` holds any string;
``action_space(agent)`` holds any string too, and its ``sample()`` draws a uniformly random
*legal* move when it is that agent's turn (the random baseline); ``info["legal_moves"]`` lists
them for the agent to move. An invalid move costs the game's penalty and the agent moves
again; after ``max_invalid_moves`` in a row it forfeits. Every game passes
``pettingzoo.test.api_test``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from palaestra.core import check_level
from palaestra.envs.games import GAMES as _GAME_CLASSES
from palaestra.envs.games import TurnGame, make_game
from palaestra.envs.spaces import AnyText

GAMES: tuple[str, ...] = tuple(sorted(_GAME_CLASSES))  # the names env() accepts


class TextObservation(str):
    """A ``str`` that carries the observation space's dtype.

    ``pettingzoo.test.api_test`` compares ``observation_space.dtype == observation.dtype``, which
    a plain ``str`` lacks; this is the same text with that one attribute.
    """

    dtype = AnyText().dtype


class MoveSpace(AnyText):
    """Any text up to ``max_length``; ``sample()`` is a random legal move of its agent when it
    is that agent's turn (random text otherwise), so random play plays the game."""

    def __init__(self, aec: PalaestraAEC, agent: str, max_length: int):
        super().__init__(max_length=max_length)
        self._aec, self._agent = aec, agent

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        game = self._aec.game
        if game.agents and not game.done and game.agent_selection == self._agent:
            moves = game.legal_moves()
            return moves[int(self.np_random.integers(len(moves)))]
        return super().sample(mask, probability)


class PalaestraAEC(AECEnv):
    """A palaestra :class:`~palaestra.envs.games.TurnGame` as a PettingZoo ``AECEnv``.

    ## Arguments
    * ``game``: a game name from :data:`GAMES` or a ``TurnGame`` instance.
    * ``level``: 1..10, the game's size/variant (``reset(options={"level": n})`` changes it).
    * ``max_turns``: moves in total before every agent is truncated.
    * ``render_mode``: ``"ansi"`` (``render()`` returns the board as the player to move sees it)
      or ``"human"`` (prints it).

    ## Version history
    * v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "palaestra_game_v0", "is_parallelizable": False}

    def __init__(
        self,
        game: str | TurnGame,
        *,
        level: int = 1,
        max_turns: int = 200,
        max_response_chars: int = 4096,
        render_mode: str | None = None,
        **game_kwargs: Any,
    ):
        super().__init__()
        self.game = make_game(game, **game_kwargs) if isinstance(game, str) else game
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        self.metadata = {**self.metadata, "name": f"palaestra_{self.game.name}_v0"}
        self.render_mode = render_mode
        self.level, self.max_turns = check_level(level), max_turns
        self.possible_agents = list(self.game.possible_agents)
        self._observation_spaces = {a: AnyText(max_length=1 << 20) for a in self.possible_agents}
        self._action_spaces = {a: MoveSpace(self, a, max_response_chars) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.agents: list[str] = []
        self.turns = 0

    def observation_space(self, agent: str) -> AnyText:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> MoveSpace:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``options={"level": n}`` sets its level (other keys are ignored)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for i, agent in enumerate(self.possible_agents):
                self._action_spaces[agent].seed(int(np.random.SeedSequence([seed, i]).generate_state(1)[0]))
        level = check_level((options or {}).get("level", self.level))
        self.game.reset(np.random.default_rng(self._rng.integers(2**63)), level)
        self.agents = list(self.game.agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._moved = {a: False for a in self.agents}
        self.turns = 0
        self.agent_selection = self.game.agent_selection
        self._mark_legal_moves()

    def observe(self, agent: str) -> TextObservation:
        """The agent's messages since its last move and its view; the rules before its first move."""
        text = self.game.observe(agent)
        if not self._moved.get(agent, True):
            text = "\n".join([self.game.rules(agent), self.game.allowance(), text])
        return TextObservation(text)

    def step(self, action: str | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._moved[agent] = True
        self.turns += 1
        self.game.step(action)
        invalid = bool(self.game.infos.get(agent, {}).pop("invalid", False))
        self.rewards = {a: float(self.game.rewards[a]) for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.infos[agent]["invalid"] = invalid
        if self.game.done:
            self.terminations = {a: True for a in self.agents}
        elif self.turns >= self.max_turns:
            self.truncations = {a: True for a in self.agents}
        self.agent_selection = self.game.agent_selection
        self._accumulate_rewards()
        self._mark_legal_moves()

    def _mark_legal_moves(self) -> None:
        agent = self.agent_selection
        if agent in self.infos and not (self.terminations[agent] or self.truncations[agent]):
            self.infos[agent]["legal_moves"] = self.game.legal_moves()

    def render(self) -> str | None:
        if self.render_mode is None or not self.agents:
            return None
        text = self.game.view(self.agent_selection)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: games are plain Python objects."""


def env(game: str, **kwargs: Any) -> PalaestraAEC:
    """The AEC env of ``game`` (one of :data:`GAMES`), as PettingZoo's ``env()`` convention."""
    return PalaestraAEC(game, **kwargs)


raw_env = env
