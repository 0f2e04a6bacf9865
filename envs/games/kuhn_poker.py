"""Kuhn poker: three cards, one betting round, hidden information.

Each player antes 1 chip and gets one of J < Q < K; the other card is unseen. Player 0 checks
or bets 1; facing a bet a player calls or folds; after a check player 1 may check or bet. The
reference player follows a Nash equilibrium (Kuhn 1950, with alpha = 1/6 for player 0); the
game is worth -1/18 to player 0 under equilibrium play.
"""

from __future__ import annotations

import re

import numpy as np

from palaestra.envs.games.base import TurnGame

CARDS = "JQK"
ALPHA = 1 / 6
_MOVE = re.compile(r"(?i)\b(check|bet|call|fold)\b")


class KuhnPoker(TurnGame):
    """One hand of Kuhn poker; moves are check, bet, call or fold."""

    name = "kuhn_poker"
    possible_agents = ["player_0", "player_1"]

    def new_game(self, rng: np.random.Generator, level: int) -> None:
        self.rng = rng
        deal = rng.permutation(3)
        self.cards = {"player_0": CARDS[int(deal[0])], "player_1": CARDS[int(deal[1])]}
        self.history: list[str] = []

    def rules(self, agent: str) -> str:
        return (
            "Kuhn poker. The deck is J < Q < K; each player antes 1 chip and holds one card. "
            f"You are {'player 0 and act first' if agent == 'player_0' else 'player 1 and act second'}. "
            "Without a bet you may 'check' or 'bet' (1 chip); facing a bet you may 'call' or 'fold'. "
            "If nobody folds, the higher card wins the pot. Your reward is the chips you win or lose."
        )

    def view(self, agent: str) -> str:
        actions = " ".join(self.history) or "none yet"
        return f"Your card: {self.cards[agent]}. Actions so far: {actions}."

    def legal_moves(self) -> list[str]:
        return ["call", "fold"] if self.history and self.history[-1] == "bet" else ["check", "bet"]

    def parse_move(self, text: str) -> str | None:
        found = {m.lower() for m in _MOVE.findall(text)}
        return found.pop() if len(found) == 1 else None

    def apply(self, move: str) -> dict[str, float] | None:
        self.history.append(move)
        me, other = self.agent_selection, self.next_agent()
        if move == "fold":  # the folder loses only its ante
            return {me: -1.0, other: 1.0}
        if self.history in (["check", "check"], ["bet", "call"], ["check", "bet", "call"]):
            stake = 2.0 if "call" in self.history else 1.0
            high = max(self.agents, key=lambda a: CARDS.index(self.cards[a]))
            return {a: stake if a == high else -stake for a in self.agents}
        return None

    def describe(self, agent: str, move: str) -> str:
        return f"Your opponent chose to {move}."

    def reference_move(self) -> str:
        """A Nash-equilibrium move (mixed where the equilibrium mixes)."""
        card = self.cards[self.agent_selection]
        history = tuple(self.history)
        bet_probability = {
            # player 0, first action
            (): {"J": ALPHA, "Q": 0.0, "K": 3 * ALPHA},
            # player 1 after a check
            ("check",): {"J": 1 / 3, "Q": 0.0, "K": 1.0},
        }
        call_probability = {
            # player 1 facing a bet
            ("bet",): {"J": 0.0, "Q": 1 / 3, "K": 1.0},
            # player 0 facing a bet after checking
            ("check", "bet"): {"J": 0.0, "Q": ALPHA + 1 / 3, "K": 1.0},
        }
        if history in bet_probability:
            return "bet" if self.rng.random() < bet_probability[history][card] else "check"
        return "call" if self.rng.random() < call_probability[history][card] else "fold"

    def value(self, agent: str) -> float | None:
        return -1 / 18 if agent == "player_0" else 1 / 18
