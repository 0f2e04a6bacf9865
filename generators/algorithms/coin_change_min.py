"""Coin change: the fewest coins (unlimited supply of each denomination) that make an amount.

Efficient algorithm: the DP over amounts, O(amount x coins). The test tries every combination of
coin counts on the small levels. Levels grow the amount and the number of denominations;
denominations are drawn so that greedy often fails.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily
from palaestra.registry import family


@dataclass(frozen=True)
class CoinChangeMinKnobs(Knobs):
    coins: int = knob(4, low=2, high=20, help="number of denominations")
    max_amount: int = knob(50, low=10, high=10**5, help="amounts are drawn up to this")


K = CoinChangeMinKnobs
LEVELS = {
    1: K(coins=2, max_amount=20),
    2: K(coins=3, max_amount=60),
    3: K(coins=3, max_amount=300),
    4: K(coins=4, max_amount=600),
    5: K(coins=4, max_amount=1000),
    6: K(coins=5, max_amount=1600),
    7: K(coins=5, max_amount=2500),
    8: K(coins=6, max_amount=3500),
    9: K(coins=7, max_amount=5000),
    10: K(coins=8, max_amount=7000),
}


def fewest_coins(coins: list[int], amount: int) -> tuple[int | None, int]:
    """Fewest coins summing to ``amount`` (None if impossible); and the DP steps."""
    best: list[int | None] = [0] + [None] * amount
    for value in range(1, amount + 1):
        options = [best[value - c] for c in coins if c <= value and best[value - c] is not None]
        best[value] = min(options) + 1 if options else None  # type: ignore[operator]
    return best[amount], amount * len(coins)


def greedy(coins: list[int], amount: int) -> int | None:
    """Largest coin first (the weak heuristic); None when it gets stuck."""
    count = 0
    for c in sorted(coins, reverse=True):
        count, amount = count + amount // c, amount % c
    return count if amount == 0 else None


@family(
    "coin_change_min",
    domain="algorithms",
    knobs=CoinChangeMinKnobs,
    levels=LEVELS,
    description="Coin change: the fewest coins of given denominations that make an amount.",
    verifier_kind="exact integer (the optimum)",
)
class CoinChangeMin(IntegerFamily):
    what = "the fewest number of coins"
    example = "6"

    def build(self, knobs: CoinChangeMinKnobs, rng: np.random.Generator) -> Instance:
        while True:
            top = max(knobs.coins + 2, knobs.max_amount // 15)
            coins = sorted({int(c) for c in rng.integers(2, top + 1, size=knobs.coins)})
            amount = int(rng.integers(knobs.max_amount // 10, knobs.max_amount + 1))
            best, work = fewest_coins(coins, amount)
            if best is not None and best >= 2 and len(coins) == knobs.coins:
                break
        question = (
            f"Coins come in the denominations {', '.join(map(str, coins))}, with as many of each as "
            f"needed. What is the fewest number of coins whose values sum to exactly {amount}?"
        )
        guess = greedy(coins, amount)
        return Instance(
            question,
            best,
            work=work,
            data={"coins": coins, "amount": amount},
            weak=guess,
            wrong=[best + 1, best - 1, guess if guess is not None else amount // max(coins) + 1],
        )
