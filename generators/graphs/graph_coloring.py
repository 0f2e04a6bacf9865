"""Graph colouring with k colours: any proper colouring counts.

The graph hides a planted k-colouring (so one exists) and, from level 3 on, is checked by an
exact DSatur search not to be colourable with k - 1 colours, so k is the chromatic number.
Instances that plain greedy colouring in node order solves are rejected above level 2. The
verifier checks the submitted colouring against the edges; it never compares with the
planted one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.numbers import fold_lookalikes, unwrap_math

_PAIR = re.compile(r"[\"']?([0-9]{1,6})[\"']?\s*(?::|=|->|→|-)\s*[\"']?([0-9]{1,6})[\"']?")
_ITEMS = re.compile(r"[,;\n]")  # parts are stripped: \s* around it is quadratic
_LIST = re.compile(r"[0-9\s,;]*")
MAX_SEARCH_NODES = 200_000


@dataclass(frozen=True)
class GraphColoringKnobs(Knobs):
    nodes: int = knob(6, low=3, high=60, help="number of nodes")
    colours: int = knob(2, low=2, high=6, help="colours available (k)")
    density: float = knob(
        0.5, low=0.05, high=1.0, help="probability of an edge between nodes of different planted classes"
    )
    exact_chromatic: bool = knob(False, help="require that k - 1 colours do not suffice (proven by search)")
    reject_greedy: bool = knob(False, help="reject graphs that greedy colouring in node order solves")


LEVELS = {
    1: GraphColoringKnobs(nodes=5, colours=2, density=0.5),
    2: GraphColoringKnobs(nodes=7, colours=3, density=0.5),
    3: GraphColoringKnobs(nodes=8, colours=3, density=0.5, exact_chromatic=True, reject_greedy=True),
    4: GraphColoringKnobs(nodes=10, colours=3, density=0.45, exact_chromatic=True, reject_greedy=True),
    5: GraphColoringKnobs(nodes=12, colours=3, density=0.4, exact_chromatic=True, reject_greedy=True),
    6: GraphColoringKnobs(nodes=14, colours=4, density=0.5, exact_chromatic=True, reject_greedy=True),
    7: GraphColoringKnobs(nodes=17, colours=4, density=0.45, exact_chromatic=True, reject_greedy=True),
    8: GraphColoringKnobs(nodes=20, colours=4, density=0.4, exact_chromatic=True, reject_greedy=True),
    9: GraphColoringKnobs(nodes=24, colours=5, density=0.45, exact_chromatic=True, reject_greedy=True),
    10: GraphColoringKnobs(nodes=28, colours=5, density=0.4, exact_chromatic=True, reject_greedy=True),
}


def _adjacency(nodes: int, edges: list[list[int]]) -> list[set[int]]:
    adjacent: list[set[int]] = [set() for _ in range(nodes)]
    for u, v in edges:
        adjacent[u].add(v)
        adjacent[v].add(u)
    return adjacent


def dsatur(
    nodes: int, edges: list[list[int]], k: int, budget: int = MAX_SEARCH_NODES
) -> tuple[list[int] | None, int]:
    """Exact backtracking colouring with k colours (most saturated node first).

    Returns (colouring or None, search nodes). Raises ``TimeoutError`` past ``budget`` nodes.
    """
    adjacent = _adjacency(nodes, edges)
    colour = [-1] * nodes
    work = 0

    def pick() -> int:
        best, key = -1, (-1, -1)
        for v in range(nodes):
            if colour[v] < 0:
                saturation = len({colour[u] for u in adjacent[v] if colour[u] >= 0})
                if (saturation, len(adjacent[v])) > key:
                    best, key = v, (saturation, len(adjacent[v]))
        return best

    def search(assigned: int) -> bool:
        nonlocal work
        work += 1
        if work > budget:
            raise TimeoutError
        if assigned == nodes:
            return True
        v = pick()
        used = {colour[u] for u in adjacent[v]}
        highest = max(colour) + 1  # symmetry: try at most one fresh colour
        for c in range(min(k, highest + 1)):
            if c not in used:
                colour[v] = c
                if search(assigned + 1):
                    return True
        colour[v] = -1
        return False

    found = search(0)
    return (colour if found else None), work


def greedy(nodes: int, edges: list[list[int]], order: list[int]) -> list[int]:
    """Smallest available colour for each node in ``order`` (may use more than k colours)."""
    adjacent = _adjacency(nodes, edges)
    colour = [-1] * nodes
    for v in order:
        used = {colour[u] for u in adjacent[v]}
        colour[v] = next(c for c in range(nodes) if c not in used)
    return colour


def _draw(knobs: GraphColoringKnobs, rng: np.random.Generator) -> list[list[int]]:
    planted = rng.integers(0, knobs.colours, size=knobs.nodes)
    planted[: knobs.colours] = np.arange(knobs.colours)  # every class is used
    planted = rng.permutation(planted)
    edges = [
        [u, v]
        for u in range(knobs.nodes)
        for v in range(u + 1, knobs.nodes)
        if planted[u] != planted[v] and rng.random() < knobs.density
    ]
    return edges


def parse_colouring(text: str, nodes: int) -> list[int] | None:
    """``"0:1, 1:2, ..."`` (node: colour, each node once) or ``"1 2 1 3"`` (colours in node order).

    Every character must be read: pairs separated by commas, semicolons or line breaks (JSON
    ``{"0": 1}`` too), or a plain list of colours; anything else is ``None``.
    """
    body = fold_lookalikes(unwrap_math(text)).strip()
    if body[:1] + body[-1:] in ("{}", "[]", "()"):
        body = body[1:-1].strip()
    if _LIST.fullmatch(body):
        parts = re.findall(r"[0-9]+", body)
        if len(parts) != nodes or any(len(p) > 6 for p in parts):
            return None
        return [int(p) for p in parts]
    colour: dict[int, int] = {}
    for item in (part.strip() for part in _ITEMS.split(body)):
        pair = _PAIR.fullmatch(item)
        if pair is None or int(pair.group(1)) in colour:
            return None
        colour[int(pair.group(1))] = int(pair.group(2))
    if sorted(colour) != list(range(nodes)):
        return None
    return [colour[v] for v in range(nodes)]


PROMPT = """Colour the nodes of this undirected graph with at most {k} colours, numbered 1 to {k}, \
so that no edge joins two nodes of the same colour. Nodes are 0 to {last}; edges:
{edges}

Any valid colouring is accepted. Answer with node:colour pairs, for example \
<answer>0:1, 1:2, 2:1</answer>."""


@family(
    "graph_coloring",
    domain="graphs",
    knobs=GraphColoringKnobs,
    levels=LEVELS,
    description="Colour a graph with k colours so that no edge is monochromatic (any valid colouring counts).",
    verifier_kind="constraint check (proper colouring with at most k colours)",
)
class GraphColoring(Family):
    def generate(self, knobs: GraphColoringKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(500):
            edges = _draw(knobs, rng)
            if (
                knobs.reject_greedy
                and max(greedy(knobs.nodes, edges, list(range(knobs.nodes)))) < knobs.colours
            ):
                continue
            try:
                solution, work = dsatur(knobs.nodes, edges, knobs.colours)
                if knobs.exact_chromatic and dsatur(knobs.nodes, edges, knobs.colours - 1)[0] is not None:
                    continue
            except TimeoutError:  # no proof within the budget: draw another graph
                continue
            if solution is not None:
                break
        else:
            raise RuntimeError(f"no suitable graph in 500 draws for {knobs}")
        answer = ", ".join(f"{v}:{c + 1}" for v, c in enumerate(solution))
        edge_text = ", ".join(f"{u}-{v}" for u, v in edges)
        metadata = {
            "nodes": knobs.nodes,
            "colours": knobs.colours,
            "edges": edges,
            "dsatur_nodes": work,
            "canonical_hash": content_hash([knobs.nodes, knobs.colours, sorted(edges)]),
        }
        return TaskDraft(
            PROMPT.format(k=knobs.colours, last=knobs.nodes - 1, edges=edge_text), answer, metadata
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, labels=("colouring", "coloring"), max_chars=5000)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        meta = task.metadata
        colouring = parse_colouring(extraction.text, meta["nodes"])
        if colouring is None:
            return Verdict.bad_format(f"give one colour for each node 0..{meta['nodes'] - 1}, e.g. 0:1, 1:2")
        if any(not 1 <= c <= meta["colours"] for c in colouring):
            return Verdict.wrong(f"colours must be between 1 and {meta['colours']}", parsed=colouring)
        for u, v in meta["edges"]:
            if colouring[u] == colouring[v]:
                return Verdict.wrong(
                    f"nodes {u} and {v} share an edge and colour {colouring[u]}", parsed=colouring
                )
        return Verdict.right(parsed=colouring)

    def solve_exact(self, task: Task) -> SolverRun:
        """DSatur backtracking search with k colours."""
        meta = task.metadata
        solution, work = dsatur(meta["nodes"], meta["edges"], meta["colours"])
        assert solution is not None
        return SolverRun(self._format(solution), float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Welsh-Powell: greedy colouring, highest degree first, no backtracking."""
        meta = task.metadata
        degree = [len(s) for s in _adjacency(meta["nodes"], meta["edges"])]
        order = sorted(range(meta["nodes"]), key=lambda v: (-degree[v], v))
        colouring = greedy(meta["nodes"], meta["edges"], order)
        return SolverRun(self._format(colouring), float(meta["nodes"]))

    @staticmethod
    def _format(colouring: list[int]) -> str:
        return "<answer>" + ", ".join(f"{v}:{c + 1}" for v, c in enumerate(colouring)) + "</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = task.metadata
        colours = [int(pair.split(":")[1]) for pair in task.answer.split(", ")]
        u, v = meta["edges"][int(rng.integers(len(meta["edges"])))]
        clash = colours.copy()
        clash[v] = clash[u]
        out_of_range = colours.copy()
        out_of_range[0] = meta["colours"] + 1
        one_colour = [1] * meta["nodes"]
        missing = ", ".join(f"{n}:{c}" for n, c in enumerate(colours[:-1]))
        return [self._format([c - 1 for c in x]) for x in (clash, out_of_range, one_colour)] + [
            f"<answer>{missing}</answer>"
        ]
