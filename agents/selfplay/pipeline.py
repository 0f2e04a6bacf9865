"""Pipelining: proposals are verified on CPU workers while the next batch is being generated.

``pipelined(batches, verify, workers)`` pulls batches from a (lazy) generator on the calling
thread — the one that talks to the GPU/vLLM — and hands each item to a thread pool at once, so a
slow batch of sandboxed programs never stalls generation. The sandbox's own fork-server workers
do the CPU work (threads only wait on them); in-process verifiers (``arith``) are short.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def pipelined(batches: Iterable[list[T]], verify: Callable[[T], R], workers: int = 2) -> list[list[R]]:
    """Verify every item of every batch in a pool of ``workers`` threads while the next batch
    is produced; results keep the order of batches and items. Exceptions from ``verify``
    propagate (after the pool is drained)."""
    if workers < 1:
        raise ValueError("workers must be >= 1")
    futures: list[list[Future[R]]] = []
    with ThreadPoolExecutor(workers, thread_name_prefix="palaestra-selfplay-verify") as pool:
        for batch in batches:  # generation of batch i+1 runs while the pool verifies batch i
            futures.append([pool.submit(verify, item) for item in batch])
        return [[f.result() for f in batch] for batch in futures]
