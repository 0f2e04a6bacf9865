"""Maximum flow with a minimum-cut certificate.

The answer is the maximum flow value from the source to the sink together with a cut: the set
of nodes on the source side. By max-flow/min-cut duality a cut whose capacity equals the
claimed value proves the value is optimal, so the verifier needs no reference: it checks the
cut separates source from sink and that its capacity equals both the claimed value and the
maximum flow (computed with networkx at generation time). Any minimum cut counts.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.numbers import read_integer, unwrap_math

# parts are stripped: \s* around a separator is quadratic. A comma separates the parts only
# where the other part's name follows it ("max flow = 7, cut = {0, 1, 2}"), since a cut's own
# nodes are separated by commas.
_PARTS = re.compile(r";|\n|,(?=[ \t]*(?:(?:min(?:imum)?|max(?:imum)?)[ \t]*)?(?:cut|flow)\b)", re.I)
_VALUE = re.compile(
    r"(?:max(?:imum)?\s*)?(?:flow(?:\s*value)?|value)\s*(?:is\s*)?[:=]?\s*(?P<value>\S.*)", re.I
)
_CUT = re.compile(r"(?:min(?:imum)?\s*)?cut\s*(?:is\s*)?[:=]?\s*[{\[(]?(?P<nodes>[0-9\s,]*)[}\])]?", re.I)
_NODE = re.compile(r"[0-9]{1,6}")


@dataclass(frozen=True)
class MaxFlowKnobs(Knobs):
    nodes: int = knob(5, low=3, high=60, help="number of nodes (source 0, sink nodes - 1)")
    degree: float = knob(1.5, low=0.5, high=6.0, help="average out-degree")
    capacity_high: int = knob(9, low=1, high=1000, help="largest edge capacity")
    min_paths: int = knob(1, low=1, high=20, help="the flow needs at least this many augmenting paths")
    reject_trivial_cut: bool = knob(
        False, help="reject networks whose minimum cut is {source} or all but the sink"
    )


LEVELS = {
    1: MaxFlowKnobs(nodes=4, degree=1.5, capacity_high=9, min_paths=1),
    2: MaxFlowKnobs(nodes=5, degree=1.6, capacity_high=9, min_paths=2),
    3: MaxFlowKnobs(nodes=6, degree=1.8, capacity_high=12, min_paths=2, reject_trivial_cut=True),
    4: MaxFlowKnobs(nodes=8, degree=2.0, capacity_high=15, min_paths=3, reject_trivial_cut=True),
    5: MaxFlowKnobs(nodes=10, degree=2.2, capacity_high=20, min_paths=3, reject_trivial_cut=True),
    6: MaxFlowKnobs(nodes=12, degree=2.4, capacity_high=25, min_paths=4, reject_trivial_cut=True),
    7: MaxFlowKnobs(nodes=15, degree=2.6, capacity_high=30, min_paths=4, reject_trivial_cut=True),
    8: MaxFlowKnobs(nodes=18, degree=2.8, capacity_high=40, min_paths=5, reject_trivial_cut=True),
    9: MaxFlowKnobs(nodes=22, degree=3.0, capacity_high=50, min_paths=5, reject_trivial_cut=True),
    10: MaxFlowKnobs(nodes=26, degree=3.2, capacity_high=60, min_paths=6, reject_trivial_cut=True),
}


def edmonds_karp(
    nodes: int, edges: list[list[int]], source: int, sink: int
) -> tuple[int, list[int], int, int]:
    """(max flow, source side of a min cut, augmenting paths, BFS work)."""
    residual: dict[int, dict[int, int]] = {v: {} for v in range(nodes)}
    for u, v, c in edges:
        residual[u][v] = residual[u].get(v, 0) + c
        residual[v].setdefault(u, 0)
    flow, paths, work = 0, 0, 0
    while True:
        parent = {source: source}
        queue = deque([source])
        while queue and sink not in parent:
            u = queue.popleft()
            for v, c in residual[u].items():
                work += 1
                if c > 0 and v not in parent:
                    parent[v] = u
                    queue.append(v)
        if sink not in parent:
            return flow, sorted(parent), paths, work
        bottleneck, v = float("inf"), sink
        while v != source:
            bottleneck = min(bottleneck, residual[parent[v]][v])
            v = parent[v]
        v = sink
        while v != source:
            residual[parent[v]][v] -= int(bottleneck)
            residual[v][parent[v]] += int(bottleneck)
            v = parent[v]
        flow += int(bottleneck)
        paths += 1


def greedy_flow(nodes: int, edges: list[list[int]], source: int, sink: int) -> tuple[int, list[int]]:
    """Augment along depth-first paths but never undo flow (no reverse residual edges).

    Returns the flow and the nodes still reachable from the source: a minimum cut only when
    the greedy flow happens to be maximum.
    """
    capacity: dict[int, dict[int, int]] = {v: {} for v in range(nodes)}
    for u, v, c in edges:
        capacity[u][v] = capacity[u].get(v, 0) + c
    flow = 0
    while True:
        parent, stack = {source: source}, [source]
        while stack and sink not in parent:
            u = stack.pop()
            for v, c in sorted(capacity[u].items()):
                if c > 0 and v not in parent:
                    parent[v] = u
                    stack.append(v)
        if sink not in parent:
            return flow, sorted(parent)
        path, v = [], sink
        while v != source:
            path.append((parent[v], v))
            v = parent[v]
        bottleneck = min(capacity[u][v] for u, v in path)
        for u, v in path:
            capacity[u][v] -= bottleneck
        flow += bottleneck


def cut_capacity(edges: list[list[int]], side: set[int]) -> int:
    return sum(c for u, v, c in edges if u in side and v not in side)


def _draw(knobs: MaxFlowKnobs, rng: np.random.Generator) -> list[list[int]]:
    sink = knobs.nodes - 1
    edges: dict[tuple[int, int], int] = {}
    for v in range(1, knobs.nodes):  # a spine of paths so the sink is reachable
        u = int(rng.integers(0, v))
        edges[(u, v)] = int(rng.integers(1, knobs.capacity_high + 1))
    for _ in range(int(knobs.degree * knobs.nodes)):
        u, v = (int(x) for x in rng.choice(knobs.nodes, size=2, replace=False))
        if u != sink and v != 0 and (u, v) not in edges and (v, u) not in edges:
            edges[(u, v)] = int(rng.integers(1, knobs.capacity_high + 1))
    return sorted([u, v, c] for (u, v), c in edges.items())


PROMPT = """Find the maximum flow from node 0 (the source) to node {sink} (the sink) in this directed \
network, and prove it with a minimum cut. Edges, written "u->v capacity":
{edges}

Give the flow value and a cut: the set of nodes on the source side (it must contain 0 and not \
{sink}); the capacities of edges leaving that set must add up to the flow value. Any minimum cut \
is accepted. Format: <answer>flow: 17; cut: 0, 2, 3</answer>"""


@family(
    "max_flow",
    domain="graphs",
    knobs=MaxFlowKnobs,
    levels=LEVELS,
    description="Maximum flow value with a minimum-cut certificate (any minimum cut counts).",
    verifier_kind="certificate check (cut capacity equals the maximum flow)",
)
class MaxFlow(Family):
    def generate(self, knobs: MaxFlowKnobs, rng: np.random.Generator) -> TaskDraft:
        sink = knobs.nodes - 1
        for _ in range(500):
            edges = _draw(knobs, rng)
            flow, side, paths, work = edmonds_karp(knobs.nodes, edges, 0, sink)
            trivial = flow in (cut_capacity(edges, {0}), cut_capacity(edges, set(range(sink))))
            if flow > 0 and paths >= knobs.min_paths and not (knobs.reject_trivial_cut and trivial):
                break
        else:
            raise RuntimeError(f"no network needing {knobs.min_paths} augmenting paths in 500 draws")
        prompt = PROMPT.format(sink=sink, edges="\n".join(f"{u}->{v} {c}" for u, v, c in edges))
        metadata = {
            "nodes": knobs.nodes,
            "edges": edges,
            "sink": sink,
            "max_flow": flow,
            "augmenting_paths": paths,
            "bfs_work": work,
            "canonical_hash": content_hash([knobs.nodes, edges]),
        }
        return TaskDraft(prompt, f"flow: {flow}; cut: {', '.join(map(str, side))}", metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=2000)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        parsed = parse_answer(extraction.text, task.metadata["nodes"])
        if parsed is None:
            return Verdict.bad_format("write the answer as flow: VALUE; cut: NODE, NODE, ...")
        value, side = parsed
        if isinstance(value, Verdict):
            return value  # a flow value that is not an integer
        meta = task.metadata
        if 0 not in side or meta["sink"] in side:
            return Verdict.wrong(
                f"the cut must contain node 0 and not node {meta['sink']}", parsed=[value, sorted(side)]
            )
        capacity = cut_capacity(meta["edges"], side)
        if capacity != value:
            return Verdict.wrong(
                f"the cut's capacity is {capacity}, not the claimed {value}", parsed=[value, sorted(side)]
            )
        if value != meta["max_flow"]:
            return Verdict.wrong(f"{value} is not the maximum flow", parsed=[value, sorted(side)])
        return Verdict.right(parsed=[value, sorted(side)])

    def solve_exact(self, task: Task) -> SolverRun:
        """Edmonds-Karp; the cut is the residual-reachable set."""
        meta = task.metadata
        flow, side, _, work = edmonds_karp(meta["nodes"], meta["edges"], 0, meta["sink"])
        return SolverRun(f"<answer>flow: {flow}; cut: {', '.join(map(str, side))}</answer>", float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Greedy augmentation without reverse edges, and the cut its residual leaves."""
        meta = task.metadata
        flow, side = greedy_flow(meta["nodes"], meta["edges"], 0, meta["sink"])
        return SolverRun(
            f"<answer>flow: {flow}; cut: {', '.join(map(str, side))}</answer>", float(len(meta["edges"]))
        )

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = task.metadata
        side = [int(v) for v in task.answer.split("cut: ")[1].split(", ")]
        flow = meta["max_flow"]
        cut = ", ".join(map(str, side))
        with_sink = ", ".join(map(str, side + [meta["sink"]]))
        return [
            f"<answer>flow: {flow + 1}; cut: {cut}</answer>",  # more than the cut allows
            f"<answer>flow: {flow - 1}; cut: {cut}</answer>",  # the cut's capacity disagrees
            f"<answer>flow: {flow}; cut: {with_sink}</answer>",  # not a source-sink cut
            f"<answer>flow: {flow}</answer>",  # no certificate
        ]


def parse_answer(text: str, nodes: int) -> tuple[int | Verdict, set[int]] | None:
    """``flow: 17; cut: 0, 2, 3`` -> (17, {0, 2, 3}); ``None`` unless every part is read.

    The answer is exactly one flow part and one cut part (either order), separated by ``;`` or
    a line break; any other text, a second flow or cut, or a repeated node is a format error.
    The flow value is read by the shared number reader (a non-integer comes back as a wrong
    verdict).
    """
    value: int | Verdict | None = None
    side: set[int] | None = None
    for part in (piece.strip() for piece in _PARTS.split(unwrap_math(text))):
        if not part:
            continue
        if (cut := _CUT.fullmatch(part)) and side is None:
            members = _NODE.findall(cut["nodes"])
            if not members or "".join(members) != re.sub(r"[\s,]", "", cut["nodes"]):
                return None
            side = {int(m) for m in members}
            if len(side) != len(members) or any(not 0 <= v < nodes for v in side):
                return None
        elif (flow := _VALUE.fullmatch(part)) and value is None:
            value = read_integer(flow["value"])
            if isinstance(value, Verdict) and not value.format_ok:
                return None
        else:
            return None
    if value is None or side is None:
        return None
    return value, side
