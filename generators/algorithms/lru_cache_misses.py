"""LRU cache: how many misses a least-recently-used cache of a given capacity has on a request sequence.

Efficient algorithm: an ordered dictionary, O(1) per request. The test replays the requests on
a plain list kept in recency order on every level. Levels grow the sequence, the pages and the cache.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, int_list
from palaestra.registry import family


@dataclass(frozen=True)
class LruCacheMissesKnobs(Knobs):
    requests: int = knob(20, low=4, high=2000, help="length of the request sequence")
    pages: int = knob(8, low=2, high=200, help="number of distinct pages requested")
    capacity: int = knob(3, low=1, high=50, help="largest cache capacity (drawn from 1 up)")


K = LruCacheMissesKnobs
LEVELS = {
    1: K(requests=6, pages=4, capacity=2),
    2: K(requests=10, pages=5, capacity=2),
    3: K(requests=16, pages=7, capacity=3),
    4: K(requests=24, pages=9, capacity=4),
    5: K(requests=34, pages=12, capacity=5),
    6: K(requests=46, pages=15, capacity=6),
    7: K(requests=62, pages=19, capacity=7),
    8: K(requests=82, pages=24, capacity=9),
    9: K(requests=106, pages=30, capacity=11),
    10: K(requests=136, pages=38, capacity=14),
}


def lru_misses(requests: list[int], capacity: int) -> int:
    cache: OrderedDict[int, None] = OrderedDict()
    misses = 0
    for page in requests:
        if page in cache:
            cache.move_to_end(page)
            continue
        misses += 1
        cache[page] = None
        if len(cache) > capacity:
            cache.popitem(last=False)
    return misses


def fifo_misses(requests: list[int], capacity: int) -> int:
    """First in, first out (the weak solver confuses the policies)."""
    cache: list[int] = []
    misses = 0
    for page in requests:
        if page not in cache:
            misses += 1
            cache.append(page)
            if len(cache) > capacity:
                cache.pop(0)
    return misses


@family(
    "lru_cache_misses",
    domain="algorithms",
    knobs=LruCacheMissesKnobs,
    levels=LEVELS,
    description="Simulate a least-recently-used cache: count the misses on a request sequence.",
    verifier_kind="exact integer",
)
class LruCacheMisses(IntegerFamily):
    what = "the number of misses"
    example = "9"

    def build(self, knobs: LruCacheMissesKnobs, rng: np.random.Generator) -> Instance:
        capacity = int(rng.integers(1, knobs.capacity + 1))
        # a skewed popularity (some pages hot) so that recency matters
        weights = rng.random(knobs.pages) ** 2 + 0.05
        requests = [
            int(p) + 1 for p in rng.choice(knobs.pages, size=knobs.requests, p=weights / weights.sum())
        ]
        misses = lru_misses(requests, capacity)
        question = (
            f"A cache holds at most {capacity} page{'s' if capacity > 1 else ''} and starts empty. Pages are "
            f"requested in this order: {' '.join(map(str, requests))}\n\nA request for a page in the cache is a "
            "hit (the page becomes the most recently used); otherwise it is a miss: the page is loaded, and if "
            "the cache is then over capacity the least recently used page is evicted. How many misses are there?"
        )
        fifo = fifo_misses(requests, capacity)
        return Instance(
            question,
            misses,
            work=len(requests),
            data={"requests": int_list(requests), "capacity": capacity},
            weak=fifo,
            wrong=[fifo, len(set(requests)), misses + 1],
        )
