"""How much work one message to a verify worker carries: the measured cost of its responses
bounds it (``CHUNK_MS``), so a worker slowed by other load never holds a large share of a heavy
batch while the other workers run dry; cheap responses still travel many to a message."""

from __future__ import annotations

import collections

import palaestra
from palaestra import batch
from palaestra.batch import CHUNK_MS, MAX_CHUNK, _chunk_size, _Item, _measured_cost


def _queue(family: str, n: int) -> collections.deque:
    task = palaestra.make_task(family, seed=0, level=1)
    call = batch._Call(n, 10.0)
    return collections.deque(_Item(call, i, task, "<answer>1</answer>") for i in range(n))


def _cost(family: str) -> float:
    cost = _measured_cost(palaestra.get(family))
    assert cost is not None, family
    return cost[0]


def test_heavy_responses_travel_a_few_at_a_time() -> None:
    heavy = max(("loop_invariant", "hoare_triple", "ranking_function"), key=_cost)
    per_chunk = _chunk_size(_queue(heavy, 256), share=MAX_CHUNK)
    assert per_chunk < MAX_CHUNK
    assert (per_chunk - 1) * _cost(heavy) < CHUNK_MS  # the last one took it to the bound


def test_cheap_responses_fill_the_share_and_every_chunk_has_one() -> None:
    cheap = min(("expression", "number_formats", "calendar"), key=_cost)
    assert _cost(cheap) * MAX_CHUNK < CHUNK_MS
    assert _chunk_size(_queue(cheap, 256), share=MAX_CHUNK) == MAX_CHUNK
    assert _chunk_size(_queue(cheap, 5), share=3) == 3
    assert _chunk_size(_queue(cheap, 1), share=1) == 1
