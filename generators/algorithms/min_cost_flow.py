"""Minimum-cost flow: the cheapest way to send a given amount of flow from a source to a sink.

Efficient algorithm: successive shortest paths with Bellman-Ford on the residual graph. The test
compares with networkx's network simplex on every level. Levels grow the network and the flow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, tagged
from palaestra.registry import SolverRun, family


@dataclass(frozen=True)
class MinCostFlowKnobs(Knobs):
    nodes: int = knob(6, low=3, high=60, help="number of nodes")
    out_degree: float = knob(2.0, low=1.0, high=5.0, help="mean number of arcs leaving a node")


K = MinCostFlowKnobs
LEVELS = {
    1: K(nodes=4, out_degree=1.5),
    2: K(nodes=5, out_degree=1.8),
    3: K(nodes=6, out_degree=2.0),
    4: K(nodes=7, out_degree=2.2),
    5: K(nodes=9, out_degree=2.4),
    6: K(nodes=11, out_degree=2.6),
    7: K(nodes=13, out_degree=2.8),
    8: K(nodes=16, out_degree=3.0),
    9: K(nodes=19, out_degree=3.0),
    10: K(nodes=23, out_degree=3.2),
}


def successive_shortest_paths(
    n: int, arcs: list[list[int]], source: int, sink: int, amount: int | None
) -> tuple[int, int, int]:
    """Send ``amount`` (None: as much as possible) at least cost; (flow sent, cost, relaxations)."""
    graph: list[list[int]] = [[] for _ in range(n)]
    to, cap, cost = [], [], []
    for a, b, c, w in arcs:
        for u, v, cc, ww in ((a, b, c, w), (b, a, 0, -w)):
            graph[u].append(len(to))
            to.append(v)
            cap.append(cc)
            cost.append(ww)
    sent = total = work = 0
    while amount is None or sent < amount:
        dist = [None] * n
        dist[source] = 0
        via = [-1] * n
        for _ in range(n - 1):  # Bellman-Ford (residual costs may be negative)
            changed = False
            for u in range(n):
                if dist[u] is None:
                    continue
                for e in graph[u]:
                    work += 1
                    if cap[e] > 0 and (dist[to[e]] is None or dist[u] + cost[e] < dist[to[e]]):
                        dist[to[e]], via[to[e]], changed = dist[u] + cost[e], e, True
            if not changed:
                break
        if dist[sink] is None:
            break
        push, v = (amount - sent) if amount is not None else 10**9, sink
        while v != source:
            push, v = min(push, cap[via[v]]), to[via[v] ^ 1]
        v = sink
        while v != source:
            cap[via[v]] -= push
            cap[via[v] ^ 1] += push
            v = to[via[v] ^ 1]
        sent += push
        total += push * dist[sink]
    return sent, total, work


@family(
    "min_cost_flow",
    domain="algorithms",
    knobs=MinCostFlowKnobs,
    levels=LEVELS,
    description="Minimum-cost flow: the cheapest way to send a fixed amount from source to sink.",
    verifier_kind="exact integer (the optimum)",
)
class MinCostFlow(IntegerFamily):
    what = "the smallest total cost"

    def build(self, knobs: MinCostFlowKnobs, rng: np.random.Generator) -> Instance:
        n = knobs.nodes
        while True:
            pairs = {
                (int(a), int(b))
                for a, b in rng.integers(0, n, size=(round(knobs.out_degree * n), 2))
                if a != b
            }
            arcs = sorted(
                [a, b, int(rng.integers(1, 10)), int(rng.integers(1, 20))]
                for a, b in pairs
                if (b, a) not in pairs or a < b
            )
            most, _, _ = successive_shortest_paths(n, arcs, 0, n - 1, None)
            if most >= 2:
                break
        amount = int(rng.integers(max(1, most // 2), most + 1))
        _, best, work = successive_shortest_paths(n, arcs, 0, n - 1, amount)
        listing = "\n".join(f"{a} -> {b}: capacity {c}, cost {w} per unit" for a, b, c, w in arcs)
        question = (
            f"A network has nodes 0 to {n - 1} and these arcs:\n{listing}\n\nSend exactly {amount} units of flow "
            f"from node 0 to node {n - 1}: the flow on an arc is a whole number at most its capacity, and every "
            "other node passes on what it receives. Sending f units along an arc costs f times its cost. What is "
            "the smallest total cost?"
        )
        return Instance(
            question,
            best,
            work=work,
            data={"nodes": n, "arcs": arcs, "amount": amount},
            weak=None,  # solve_weak routes the flow by hand (below)
            wrong=[best + 1, best - 1, best * 2],
        )

    def solve_weak(self, task: Task) -> SolverRun:
        """Sends everything along one cheapest path, ignoring capacities: right only when that
        path can carry the whole amount."""
        meta = task.metadata
        n = meta["nodes"]
        unlimited = [[a, b, 10**9, w] for a, b, _, w in meta["arcs"]]
        _, cost, work = successive_shortest_paths(n, unlimited, 0, n - 1, meta["amount"])
        return SolverRun(tagged(cost), float(work))
