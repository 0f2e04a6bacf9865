"""Multi-agent turn-based text games and their single-agent views.

Each game module defines one :class:`TurnGame`; ``GAMES`` maps names to classes and every game
is registered with Gymnasium as ``palaestra/<Game>-v0`` (the agent against the level's
scripted opponent; ``options={"level": n}`` at reset sets the opponent's strength).
"""

from __future__ import annotations

from typing import Any

from palaestra.envs.games.base import (
    SelfPlay,
    TurnGame,
    VersusOpponent,
    level_opponent,
    minimax_opponent,
    random_opponent,
)
from palaestra.envs.games.connect_four import ConnectFour
from palaestra.envs.games.kuhn_poker import KuhnPoker
from palaestra.envs.games.negotiation import Negotiation
from palaestra.envs.games.nim import Nim
from palaestra.envs.games.tic_tac_toe import TicTacToe
from palaestra.envs.registration import register_games

GAMES: dict[str, type[TurnGame]] = {
    "connect_four": ConnectFour,
    "kuhn_poker": KuhnPoker,
    "negotiation": Negotiation,
    "nim": Nim,
    "tic_tac_toe": TicTacToe,
}


def make_game(name: str, **kwargs: Any) -> TurnGame:
    """A fresh game by name; ``ValueError`` naming the valid games if unknown."""
    try:
        cls = GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; valid games: {', '.join(sorted(GAMES))}") from None
    return cls(**kwargs)


def make_versus(game: str, level: int = 10, seat: int = 0, **kwargs: Any) -> VersusOpponent:
    """Gymnasium entry point: ``game`` against the level's scripted opponent."""
    game_kwargs = {k: kwargs.pop(k) for k in ("invalid_move_penalty", "max_invalid_moves") if k in kwargs}
    return VersusOpponent(make_game(game, **game_kwargs), level=level, seat=seat, **kwargs)


__all__ = [
    "GAMES",
    "ConnectFour",
    "KuhnPoker",
    "Negotiation",
    "Nim",
    "SelfPlay",
    "TicTacToe",
    "TurnGame",
    "VersusOpponent",
    "level_opponent",
    "make_game",
    "make_versus",
    "minimax_opponent",
    "random_opponent",
    "register_games",
]
