"""Negotiation: split a pool of items under private valuations (Deal or No Deal style).

Each player values every item type privately; the values of the whole pool add up to 10 for
both. Players alternate: propose what they would keep ("propose books=2 hats=0 balls=1") or
"accept" the last proposal. A deal pays each player the value of its share divided by 10; no
deal by the last round pays both 0. Payoffs are exact and checkable from the logged deal and
valuations, and the game is not zero-sum.
"""

from __future__ import annotations

import itertools
import re

import numpy as np

from palaestra.envs.games.base import TurnGame

ITEMS = ["books", "hats", "balls", "pens", "mugs"]
TOTAL_VALUE = 10
# level -> (item types, most copies of one type, rounds)
LEVEL_SETUPS = {1: (2, 2, 6), 2: (2, 3, 6), 3: (3, 2, 6), 4: (3, 3, 6), 5: (3, 3, 5),
                6: (4, 2, 5), 7: (4, 3, 5), 8: (4, 3, 4), 9: (5, 2, 4), 10: (5, 3, 4)}  # fmt: skip
_PAIR = re.compile(r"(?i)\b([a-z]+)\s*=\s*(\d+)")
ACCEPT_AT = 5  # the reference player accepts any share worth at least half of everything


def _payable(pool: list[int]) -> bool:
    """Whether some non-negative integer values make ``pool`` worth exactly ``TOTAL_VALUE``."""
    reachable = {0}
    for count in pool:
        reachable = {r + count * v for r in reachable for v in range((TOTAL_VALUE - r) // count + 1)}
    return TOTAL_VALUE in reachable


class Negotiation(TurnGame):
    """Alternating offers over a pool of items; rewards are each side's value of its share / 10."""

    name = "negotiation"
    possible_agents = ["player_0", "player_1"]
    zero_sum = False

    def new_game(self, rng: np.random.Generator, level: int) -> None:
        kinds, most, self.rounds = LEVEL_SETUPS[level]
        self.items = ITEMS[:kinds]
        self.pool = [int(x) for x in rng.integers(1, most + 1, size=kinds)]
        while not _payable(self.pool):  # e.g. three of every item: no valuation sums to 10
            self.pool = [int(x) for x in rng.integers(1, most + 1, size=kinds)]
        self.values = {a: self._valuation(rng) for a in self.possible_agents}
        self.offer: tuple[str, list[int]] | None = None  # (proposer, what the proposer keeps)
        self.moves_made = 0

    def _valuation(self, rng: np.random.Generator) -> list[int]:
        """Non-negative integer values per item with sum(count * value) == TOTAL_VALUE.

        Values are drawn one item at a time within what the remaining budget allows; the last
        item must use up the rest exactly, so draws that cannot are retried.
        """
        while True:
            values, budget = [], TOTAL_VALUE
            for count in self.pool[:-1]:
                value = int(rng.integers(0, budget // count + 1))
                values.append(value)
                budget -= value * count
            if budget % self.pool[-1] == 0:
                return values + [budget // self.pool[-1]]

    def _worth(self, agent: str, share: list[int]) -> int:
        return sum(s * v for s, v in zip(share, self.values[agent], strict=True))

    def rules(self, agent: str) -> str:
        pool = ", ".join(f"{c} {name}" for c, name in zip(self.pool, self.items, strict=True))
        worth = ", ".join(f"{name} {v}" for name, v in zip(self.items, self.values[agent], strict=True))
        example = " ".join(f"{name}=0" for name in self.items)
        return (
            f"Negotiation over {pool}. Your private values per item: {worth} (everything is worth {TOTAL_VALUE} "
            f"to you; your partner's values differ and are hidden). Take turns: propose what YOU keep, e.g. "
            f"'propose {example}', or 'accept' your partner's last proposal. A deal pays you your share's value / "
            f"{TOTAL_VALUE}; with no deal after {self.rounds} moves in total both get 0. "
            f"You move {'first' if agent == 'player_0' else 'second'}."
        )

    def view(self, agent: str) -> str:
        left = self.rounds - self.moves_made
        if self.offer is None:
            return f"No proposal yet. {left} moves left."
        proposer, keeps = self.offer
        yours = [p - k for p, k in zip(self.pool, keeps, strict=True)] if proposer != agent else keeps
        shown = ", ".join(f"{n} {name}" for n, name in zip(yours, self.items, strict=True))
        whose = "Your partner proposes that you get" if proposer != agent else "Your proposal keeps"
        return f"{whose}: {shown} (worth {self._worth(agent, yours)} to you). {left} moves left."

    def legal_moves(self) -> list[str]:
        shares = itertools.product(*(range(c + 1) for c in self.pool))
        moves = [
            "propose " + " ".join(f"{n}={k}" for n, k in zip(self.items, share, strict=True))
            for share in shares
        ]
        can_accept = self.offer is not None and self.offer[0] != self.agent_selection
        return (["accept"] if can_accept else []) + moves

    def parse_move(self, text: str) -> str | None:
        if re.search(r"(?i)\baccept\b", text) and not _PAIR.search(text):
            return "accept"
        pairs = {name.lower(): int(n) for name, n in _PAIR.findall(text)}
        if sorted(pairs) != sorted(self.items):
            return None
        return "propose " + " ".join(f"{name}={pairs[name]}" for name in self.items)

    def apply(self, move: str) -> dict[str, float] | None:
        self.moves_made += 1
        if move == "accept":
            assert self.offer is not None
            proposer, keeps = self.offer
            rest = [p - k for p, k in zip(self.pool, keeps, strict=True)]
            shares = {a: (keeps if a == proposer else rest) for a in self.agents}
            self.infos = {a: {"deal": shares[a]} for a in self.agents}
            return {a: self._worth(a, shares[a]) / TOTAL_VALUE for a in self.agents}
        keeps = [int(pair.split("=")[1]) for pair in move.split()[1:]]
        self.offer = (self.agent_selection, keeps)
        if self.moves_made >= self.rounds:
            return {a: 0.0 for a in self.agents}
        return None

    def describe(self, agent: str, move: str) -> str:
        return "Your partner accepted." if move == "accept" else "Your partner made a proposal."

    def reference_move(self) -> str:
        """Accept a share worth >= half; otherwise keep the best-value items up to 6, give the rest."""
        me = self.agent_selection
        if self.offer is not None and self.offer[0] != me:
            proposer, keeps = self.offer
            mine = [p - k for p, k in zip(self.pool, keeps, strict=True)]
            last_chance = self.moves_made == self.rounds - 1
            if self._worth(me, mine) >= ACCEPT_AT or (last_chance and self._worth(me, mine) > 0):
                return "accept"
        keep = [0] * len(self.items)
        for i in sorted(range(len(self.items)), key=lambda j: -self.values[me][j]):
            while keep[i] < self.pool[i] and self._worth(me, keep) < ACCEPT_AT + 1 and self.values[me][i] > 0:
                keep[i] += 1
        return "propose " + " ".join(f"{n}={k}" for n, k in zip(self.items, keep, strict=True))

    def value(self, agent: str) -> float | None:
        return None  # general-sum with private values: no single game value
