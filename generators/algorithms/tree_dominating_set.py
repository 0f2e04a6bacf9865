"""Minimum dominating set of a tree: the fewest nodes such that every node is chosen or next to
a chosen one.

Many sets can be minimum: the verifier checks domination and the proven optimum size. Efficient
algorithm: the three-state tree DP (chosen / dominated by a child / waiting for its parent), O(n).
The test tries every node set on the small levels and checks networkx's is_dominating_set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.algorithms.shared import (
    adjacency,
    answer_text,
    edge_lines,
    random_tree,
    read_integers,
    tagged,
)
from palaestra.registry import Family, SolverRun, TaskDraft, family

BIG = 10**9


@dataclass(frozen=True)
class TreeDominatingSetKnobs(Knobs):
    nodes: int = knob(10, low=3, high=400, help="number of nodes")


K = TreeDominatingSetKnobs
LEVELS = {lv: K(nodes=n) for lv, n in enumerate((5, 7, 9, 12, 16, 21, 28, 37, 48, 62), start=1)}


def minimum_dominating(n: int, edges: list[list[int]]) -> tuple[list[int], int]:
    """A minimum dominating set of the tree (sorted); and the DP states computed.

    For each node v, over its subtree: cost[v][0] with v chosen; cost[v][1] with v not chosen but
    dominated by a chosen child; cost[v][2] with v not chosen and not yet dominated (its parent
    must be chosen)."""
    neighbours = adjacency(n, edges)
    parent, order, stack = [-1] * n, [], [0]
    while stack:
        v = stack.pop()
        order.append(v)
        for u in neighbours[v]:
            if u != parent[v]:
                parent[u] = v
                stack.append(u)
    children = [[u for u in neighbours[v] if u != parent[v]] for v in range(n)]
    cost = [[0, 0, 0] for _ in range(n)]
    for v in reversed(order):
        kids = children[v]
        chosen = 1 + sum(min(cost[u]) for u in kids)
        free = sum(min(cost[u][0], cost[u][1]) for u in kids)
        penalty = min((cost[u][0] - min(cost[u][0], cost[u][1]) for u in kids), default=BIG)
        cost[v] = [chosen, free + penalty, sum(cost[u][1] for u in kids)]
    picked: list[int] = []
    todo = [(0, 0 if cost[0][0] <= cost[0][1] else 1)]
    while todo:  # rebuild one optimal set from the root
        v, state = todo.pop()
        kids = children[v]
        if state == 0:
            picked.append(v)
            todo += [(u, min(range(3), key=lambda s, u=u: (cost[u][s], s))) for u in kids]
        elif state == 2:
            todo += [(u, 1) for u in kids]
        else:
            states = {u: 0 if cost[u][0] <= cost[u][1] else 1 for u in kids}
            if 0 not in states.values():  # some child must be chosen: the cheapest to switch
                states[min(kids, key=lambda u: (cost[u][0] - cost[u][1], u))] = 0
            todo += list(states.items())
    assert len(picked) == min(cost[0][0], cost[0][1])
    return sorted(picked), 3 * n


def greedy_dominating(n: int, edges: list[list[int]]) -> list[int]:
    """Take the node dominating the most undominated nodes, repeatedly (the weak heuristic)."""
    neighbours = adjacency(n, edges)
    undominated, chosen = set(range(n)), []
    while undominated:
        v = max(range(n), key=lambda x: (len(({x} | set(neighbours[x])) & undominated), -x))
        chosen.append(v)
        undominated -= {v} | set(neighbours[v])
    return sorted(chosen)


def dominates(n: int, edges: list[list[int]], nodes: set[int]) -> bool:
    neighbours = adjacency(n, edges)
    return all(v in nodes or nodes & set(neighbours[v]) for v in range(n))


PROMPT = """A tree has nodes 0 to {last} and these edges:
{edges}

Choose as few nodes as possible so that every node is chosen or joined by an edge to a chosen \
node (a minimum dominating set). Any set of that smallest size is accepted. Answer with the chosen \
nodes separated by commas, for example <answer>{example}</answer>."""


@family(
    "tree_dominating_set",
    domain="algorithms",
    knobs=TreeDominatingSetKnobs,
    levels=LEVELS,
    description="A minimum dominating set of a tree (any set of the proven optimum size is accepted).",
    verifier_kind="constraint check + proven optimum size",
)
class TreeDominatingSet(Family):
    def generate(self, knobs: TreeDominatingSetKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.nodes
        edges = [list(e) for e in random_tree(rng, n)]
        chosen, work = minimum_dominating(n, edges)
        assert dominates(n, edges, set(chosen))
        prompt = PROMPT.format(last=n - 1, edges=edge_lines(edges), example="1, 4")
        metadata = {
            "nodes": n,
            "edges": edges,
            "optimum": len(chosen),
            "work": work,
            "canonical_hash": content_hash([n, edges]),
        }
        return TaskDraft(prompt, ", ".join(map(str, chosen)), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, labels=("nodes", "set"))
        if isinstance(text, Verdict):
            return text
        nodes = read_integers(text)
        if nodes is None:
            return Verdict.bad_format("answer with node numbers separated by commas")
        n = task.metadata["nodes"]
        if len(set(nodes)) != len(nodes) or any(not 0 <= v < n for v in nodes):
            return Verdict.wrong("a node is listed twice or is not in the tree", parsed=nodes)
        if not dominates(n, task.metadata["edges"], set(nodes)):
            return Verdict.wrong("some node is neither chosen nor next to a chosen node", parsed=nodes)
        if len(nodes) != task.metadata["optimum"]:
            return Verdict.wrong(f"{len(nodes)} nodes; a smaller dominating set exists", parsed=nodes)
        return Verdict.right(parsed=nodes)

    def solve_exact(self, task: Task) -> SolverRun:
        """The three-state tree DP (effort: states computed)."""
        chosen, work = minimum_dominating(task.metadata["nodes"], task.metadata["edges"])
        return SolverRun(tagged(", ".join(map(str, chosen))), float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Greedy: the node covering the most undominated nodes first."""
        chosen = greedy_dominating(task.metadata["nodes"], task.metadata["edges"])
        return SolverRun(tagged(", ".join(map(str, chosen))), float(len(chosen)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, edges = task.metadata["nodes"], task.metadata["edges"]
        chosen = [int(v) for v in task.answer.split(", ")]
        outside = [v for v in range(n) if v not in chosen]
        wrong = [chosen[:-1], sorted(chosen + outside[:1]), chosen + chosen[:1], [n]]
        return [
            tagged(", ".join(map(str, w)))
            for w in wrong
            if w
            and not (
                dominates(n, edges, set(w)) and len(w) == len(chosen) and len(set(w)) == len(w) and max(w) < n
            )
        ]
