"""Greedy evaluation on held-out tasks.

Held-out seeds start at ``EVAL_SEED_BASE`` (2**40); training draws seeds below 2**31, so the two
sets are disjoint by construction, for every family and level.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from palaestra.agents.backends import Backend, Sampling
from palaestra.agents.rollout import ChatFormat, SingleTurnRollout

EVAL_SEED_BASE = 2**40


def eval_tasks(families: Sequence[str], levels: Sequence[int], n: int) -> list[Any]:
    import palaestra

    return [
        palaestra.make_task(f, seed=EVAL_SEED_BASE + i, level=lvl)
        for f in families
        for lvl in levels
        for i in range(n)
    ]


def evaluate(
    backend: Backend,
    chat: ChatFormat,
    families: Sequence[str],
    levels: Sequence[int],
    n: int,
    max_tokens: int,
) -> dict[str, float]:
    """Greedy accuracy overall, per family and per (family, level): ``eval/...`` metrics."""
    tasks = eval_tasks(families, levels, n)
    sampling = Sampling(max_tokens=max_tokens, temperature=0.0, stop_token_ids=chat.stop_token_ids)
    episodes = SingleTurnRollout(chat).collect(backend, tasks, 1, sampling)
    out: dict[str, float] = {"eval/accuracy": sum(e.correct for e in episodes) / len(episodes)}
    out["eval/format_rate"] = sum(e.format_ok for e in episodes) / len(episodes)
    for f in families:
        mine = [e for e in episodes if e.family == f]
        out[f"eval/{f}/accuracy"] = sum(e.correct for e in mine) / len(mine)
        for lvl in levels:
            at = [e for e in mine if e.level == lvl]
            out[f"eval/{f}/L{lvl}/accuracy"] = sum(e.correct for e in at) / len(at)
    return out
