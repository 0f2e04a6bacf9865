"""Turn-based multi-agent text games, PettingZoo-AEC style, and their single-agent views.

A :class:`TurnGame` has ``possible_agents`` (``"player_0"``, ``"player_1"``, ...), an
``agent_selection`` whose turn it is, and per-player dicts ``rewards``, ``terminations``,
``truncations`` and ``infos``, as in PettingZoo's AEC API (the PettingZoo ``AECEnv`` itself,
which passes ``pettingzoo.test.api_test``, is :mod:`palaestra.integrations.pettingzoo`).
Observations are text and routed per player: ``observe(agent)`` shows that player's view (hidden
cards stay hidden) and the messages addressed to it since its last move; looking changes
nothing, so two calls in a row return the same text.

Two wrappers turn a game into a ``gymnasium.Env[str, str]``:

* :class:`VersusOpponent` - the agent holds one seat, a scripted opponent (random, minimax, or
  any callable) plays the others; the level sets the built-in opponent's strength.
* :class:`SelfPlay` - one policy plays every seat; ``info["role"]`` names the seat to move.

Invalid moves cost ``invalid_move_penalty`` (stated in the opening); after
``max_invalid_moves`` in a row the offender forfeits.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, SupportsFloat

import gymnasium
import numpy as np

from palaestra.core import check_level
from palaestra.envs.spaces import AnyText

Opponent = Callable[["TurnGame", np.random.Generator], str]


class TurnGame(ABC):
    """A finite, turn-based game with text moves. Subclasses implement the rules."""

    name: str
    possible_agents: list[str]
    zero_sum: bool = True  # rewards of all players add up to 0 at the end

    def __init__(self, *, invalid_move_penalty: float = 0.1, max_invalid_moves: int = 3):
        self.invalid_move_penalty, self.max_invalid_moves = invalid_move_penalty, max_invalid_moves
        self.agents: list[str] = []
        self.agent_selection = ""
        self.rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self._inbox: dict[str, list[str]] = {}
        self._invalid_streak = 0

    # ----------------------------------------------------------------- rules to implement

    @abstractmethod
    def new_game(self, rng: np.random.Generator, level: int) -> None:
        """Set up a fresh game state (deal cards, clear the board)."""

    @abstractmethod
    def rules(self, agent: str) -> str:
        """The opening text for ``agent``: rules, its seat, and the move format."""

    @abstractmethod
    def view(self, agent: str) -> str:
        """What ``agent`` can see of the state now (its own cards, the board)."""

    @abstractmethod
    def legal_moves(self) -> list[str]:
        """Moves the agent to act may make, in a canonical text form."""

    @abstractmethod
    def parse_move(self, text: str) -> str | None:
        """The canonical move ``text`` names, or ``None``."""

    @abstractmethod
    def apply(self, move: str) -> dict[str, float] | None:
        """Play a legal move for ``agent_selection``; return final rewards if the game ended."""

    @abstractmethod
    def describe(self, agent: str, move: str) -> str:
        """How ``agent``'s move is announced to the other players."""

    def reference_move(self) -> str:
        """The move of the scripted reference (perfect or strong) player."""
        return self.minimax_move()

    def value(self, agent: str) -> float | None:
        """Expected final reward of ``agent`` when everyone plays the reference strategy from the
        start of this game (``None`` if unknown). Tests hold the reference player to it."""
        return None

    def minimax_move(self) -> str:
        raise NotImplementedError(f"{self.name} has no minimax player")

    def next_agent(self) -> str:
        """Whose turn it is after ``agent_selection`` moved (two players alternate by default)."""
        i = self.possible_agents.index(self.agent_selection)
        return self.possible_agents[(i + 1) % len(self.possible_agents)]

    # ----------------------------------------------------------------- the AEC machinery

    def reset(self, rng: np.random.Generator, level: int = 1) -> None:
        self.agents = list(self.possible_agents)
        self.agent_selection = self.agents[0]
        self.rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._inbox = {a: [] for a in self.agents}
        self._invalid_streak = 0
        self.new_game(rng, check_level(level))

    def allowance(self) -> str:
        """The invalid-move rule, stated in every opening."""
        return (
            f"An invalid move costs {self.invalid_move_penalty:g} reward and you may try again; "
            f"{self.max_invalid_moves} invalid moves in a row forfeit the game."
        )

    @property
    def done(self) -> bool:
        return any(self.terminations.values()) or any(self.truncations.values())

    def observe(self, agent: str) -> str:
        """Messages for ``agent`` since its last move, then its current view (a pure read)."""
        return "\n".join([*self._inbox[agent], self.view(agent)])

    def step(self, action: str) -> None:
        """Play ``action`` for ``agent_selection`` (an invalid one costs the penalty)."""
        if not isinstance(action, str):
            raise TypeError(f"a move must be a str, got {type(action).__name__}")
        if self.done:
            raise RuntimeError("the game is over: reset it")
        actor = self.agent_selection
        self._inbox[actor] = []  # the mover has read its messages: the next ones start now
        self.rewards = {a: 0.0 for a in self.agents}
        move = self.parse_move(action[:2000])
        if move is None or move not in self.legal_moves():
            self._invalid(actor, action)
            return
        self._invalid_streak = 0
        final = self.apply(move)
        for other in self.agents:
            if other != actor:
                self._inbox[other].append(self.describe(actor, move))
        if final is not None:
            self.rewards = dict(final)
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.next_agent()

    def _invalid(self, actor: str, action: str) -> None:
        self._invalid_streak += 1
        self.rewards[actor] = -self.invalid_move_penalty
        legal = ", ".join(self.legal_moves()[:12])
        self._inbox[actor].append(f"Invalid move {action[:40]!r}. Legal moves: {legal}.")
        self.infos[actor] = {"invalid": True}
        if self._invalid_streak >= self.max_invalid_moves:  # forfeit: the others win
            others = [a for a in self.agents if a != actor]
            self.rewards = {a: (1.0 if a in others else -1.0) for a in self.agents}
            self.terminations = {a: True for a in self.agents}
            self._inbox[actor].append(f"{self.max_invalid_moves} invalid moves in a row: you forfeit.")


# --------------------------------------------------------------------------------------------
# Opponents
# --------------------------------------------------------------------------------------------


def random_opponent(game: TurnGame, rng: np.random.Generator) -> str:
    moves = game.legal_moves()
    return moves[int(rng.integers(len(moves)))]


def minimax_opponent(game: TurnGame, rng: np.random.Generator) -> str:
    return game.minimax_move()


def level_opponent(level: int) -> Opponent:
    """Plays the reference move with probability (level - 1) / 9, otherwise a random one."""
    strength = (check_level(level) - 1) / 9

    def play(game: TurnGame, rng: np.random.Generator) -> str:
        return game.reference_move() if rng.random() < strength else random_opponent(game, rng)

    return play


# --------------------------------------------------------------------------------------------
# Single-agent views
# --------------------------------------------------------------------------------------------


class _GameEnv(gymnasium.Env[str, str]):
    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        game: TurnGame,
        level: int,
        max_turns: int,
        max_response_chars: int,
        render_mode: str | None = None,
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.game, self.level, self.max_turns = game, check_level(level), max_turns
        self.observation_space = AnyText(max_length=1 << 20)
        self.action_space = AnyText(max_length=max_response_chars)
        self.turns = 0
        self._game_rng = np.random.default_rng(0)

    def _start(self, seed: int | None, options: dict[str, Any] | None) -> None:
        super().reset(seed=seed)
        level = check_level((options or {}).get("level", self.level))
        self._game_rng = np.random.Generator(np.random.PCG64(int(self.np_random.integers(0, 2**63 - 1))))
        self.game.reset(self._game_rng, level)
        self.turns = 0

    def render(self) -> str | None:
        """``"ansi"``: the board as the player to move sees it (hidden cards stay hidden)."""
        if self.render_mode != "ansi" or not self.game.agents:
            return None
        return self.game.view(self.game.agent_selection)

    def _check(self, action: Any) -> None:
        if not isinstance(action, str):
            raise TypeError(f"action must be a str (the model's move), got {type(action).__name__}")
        if self.game.done or not self.game.agents:
            raise RuntimeError("the episode is over: call reset() before step()")


class VersusOpponent(_GameEnv):
    """Play one seat of a game against a scripted opponent.

    ## Description
    The agent holds ``seat``; ``opponent`` plays every other seat (default: the level's
    opponent, random at level 1 and perfect/minimax at level 10).

    ## Observation / Action
    Text: the rules and board at reset; after each move, the opponent's reply and the board.
    Actions are moves in the format the rules state.

    ## Rewards
    The game's final reward for the agent (win 1, draw 0, loss -1 unless the game says
    otherwise) and ``-invalid_move_penalty`` for an invalid move.

    ## Episode end
    ``terminated`` when the game ends (including a forfeit); ``truncated`` after
    ``max_turns`` agent moves. Never both.

    ## Version history
    * v0: initial version.
    """

    def __init__(
        self,
        game: TurnGame,
        opponent: Opponent | str | None = None,
        *,
        seat: int = 0,
        level: int = 10,
        max_turns: int = 100,
        max_response_chars: int = 4096,
        render_mode: str | None = None,
    ):
        super().__init__(game, level, max_turns, max_response_chars, render_mode)
        if not 0 <= seat < len(game.possible_agents):
            raise ValueError(f"seat must be in 0..{len(game.possible_agents) - 1}, got {seat}")
        self.agent = game.possible_agents[seat]
        if opponent == "random":
            opponent = random_opponent
        elif opponent == "minimax":
            opponent = minimax_opponent
        elif isinstance(opponent, str):
            raise ValueError(f"opponent must be 'random', 'minimax', a callable or None, got {opponent!r}")
        self.fixed_opponent = opponent

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        self._start(seed, options)
        self.opponent = self.fixed_opponent or level_opponent(
            check_level((options or {}).get("level", self.level))
        )
        self._opponents_move()
        opening = "\n".join(
            [self.game.rules(self.agent), self.game.allowance(), self.game.observe(self.agent)]
        )
        return opening, {"role": self.agent, "turn": 0}

    def _opponents_move(self) -> None:
        while not self.game.done and self.game.agent_selection != self.agent:
            self.game.step(self.opponent(self.game, self._game_rng))

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        self._check(action)
        self.turns += 1
        self.game.step(action)
        reward = self.game.rewards[self.agent]
        invalid = bool(self.game.infos[self.agent].pop("invalid", False))
        if not self.game.done:
            self._opponents_move()
            if self.game.done:
                reward = self.game.rewards[self.agent]
        terminated = self.game.done
        truncated = not terminated and self.turns >= self.max_turns
        if truncated:
            self.game.truncations = {a: True for a in self.game.agents}
        info = {"role": self.agent, "turn": self.turns, "invalid": invalid}
        return self.game.observe(self.agent), float(reward), terminated, truncated, info


class SelfPlay(_GameEnv):
    """One policy plays every seat of a game.

    ## Description
    Each ``step`` plays the move of the seat whose turn it is; ``info["role"]`` names the seat
    the next observation is for, ``info["acting"]`` the seat that just moved.

    ## Rewards
    The reward of the seat that just moved (final game rewards when the game ends; the
    invalid-move penalty otherwise); ``info["rewards"]`` has every seat's.

    ## Episode end
    ``terminated`` when the game ends; ``truncated`` after ``max_turns`` moves in total.

    ## Version history
    * v0: initial version.
    """

    def __init__(
        self,
        game: TurnGame,
        *,
        level: int = 1,
        max_turns: int = 200,
        max_response_chars: int = 4096,
        render_mode: str | None = None,
    ):
        super().__init__(game, level, max_turns, max_response_chars, render_mode)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        self._start(seed, options)
        agent = self.game.agent_selection
        opening = "\n".join([self.game.rules(agent), self.game.allowance(), self.game.observe(agent)])
        return opening, {"role": agent, "turn": 0}

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        self._check(action)
        acting = self.game.agent_selection
        self.turns += 1
        self.game.step(action)
        terminated = self.game.done
        truncated = not terminated and self.turns >= self.max_turns
        following = self.game.agent_selection
        info = {
            "role": following,
            "acting": acting,
            "turn": self.turns,
            "rewards": dict(self.game.rewards),
            "invalid": bool(self.game.infos[acting].pop("invalid", False)),
        }
        return self.game.observe(following), float(self.game.rewards[acting]), terminated, truncated, info
