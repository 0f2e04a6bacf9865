"""Logistics planning: deliver packages with trucks on a road map in the A*-proven fewest actions.

Locations L1..Ln are joined by roads (a random connected graph); trucks T1..Tk start at given
locations and packages P1..Pm wait at a location and must reach another. Actions: ``drive T A
B`` (truck T at A moves along the road A-B, carrying what it holds), ``load P T`` (P and T at
the same location: P goes into T) and ``unload P T`` (P in T: P is put down where T is). A
truck holds any number of packages; trucks may end anywhere.

What is proven: the fewest actions, by A* with a consistent heuristic: (loads and unloads
still needed: 2 for a package away from its goal, 1 for one in a truck) + (the largest, over
packages, of the drives that package still needs: the nearest truck's distance to it plus its
distance to its goal, or the carrying truck's distance to the goal). A load or unload changes
the first term by one and leaves the second unchanged (the carrying/picking truck is where the
package is); a drive changes the second by at most one. Any legal plan reaching the goal with
the optimal number of actions is accepted; the verifier replays every action.

Difficulty: more locations, trucks and packages, longer optimal plans; from level 4 an instance
is kept only when a greedy best-first planner on the same heuristic (the weak solver) does not
find an optimal plan, so the packages must be routed jointly (one truck collecting several on
one trip, a hand-over between trucks). The exact solver's effort is A*'s expansions.

Generation (CPU time, measured under load): about 2,200 tasks per second at level 1, 350 at
level 5 and 7 at level 10 (mean 140 ms, median 55 ms: each candidate is solved by A* and, from
level 4, by the greedy planner; candidates out of the length range or solved optimally by
greedy are drawn again).
Level 10 trades locations (6) for a third truck, which multiplies the branching.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

import networkx as nx
import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.search import astar, extract_plan_text, grade_length, greedy, tokenize
from palaestra.registry import Family, SolverRun, TaskDraft, family

MAX_LOCATIONS = 9
MAX_TRUCKS = 3
MAX_PACKAGES = 6
GREEDY_BUDGET = 400  # expansions the weak planner may spend
SEARCH_BUDGET = 200_000  # A* expansions before a candidate is drawn again (never hit at the levels)

State = tuple[int, ...]  # truck locations, then package positions (location i, or n + t: in truck t)
Move = tuple[str, int, int, int]  # ("drive", truck, from, to) | ("load"/"unload", package, truck, 0)


@dataclass(frozen=True)
class LogisticsKnobs(Knobs):
    locations: int = knob(4, low=3, high=MAX_LOCATIONS, help="locations on the road map")
    extra_roads: int = knob(1, low=0, high=8, help="roads added to a random spanning tree")
    trucks: int = knob(1, low=1, high=MAX_TRUCKS, help="number of trucks")
    packages: int = knob(1, low=1, high=MAX_PACKAGES, help="number of packages to deliver")
    # 20 at most: with 9 locations, 6 packages and 3 trucks a 20-step optimum took 7 s to draw and
    # 24 ran past 30 s (issue 27)
    min_length: int = knob(3, low=1, high=20, help="reject instances with a shorter optimal plan")
    max_length: int = knob(60, low=1, high=60, help="reject instances with a longer optimal plan")
    beat_greedy: bool = knob(False, help="reject instances where greedy best-first finds an optimal plan")

    def validate(self) -> None:
        if self.min_length > self.max_length:
            raise ValueError(f"min_length={self.min_length} exceeds max_length={self.max_length}")
        if self.extra_roads > self.locations * (self.locations - 1) // 2 - (self.locations - 1):
            raise ValueError(f"{self.locations} locations have no room for {self.extra_roads} extra roads")


LEVELS = {
    1: LogisticsKnobs(locations=3, extra_roads=0, trucks=1, packages=1, min_length=3, max_length=5),
    2: LogisticsKnobs(locations=4, extra_roads=1, trucks=1, packages=2, min_length=5, max_length=8),
    3: LogisticsKnobs(locations=6, extra_roads=1, trucks=2, packages=3, min_length=8, max_length=11),
    4: LogisticsKnobs(locations=6, extra_roads=1, trucks=2, packages=3, min_length=9, max_length=12, beat_greedy=True),
    5: LogisticsKnobs(locations=6, extra_roads=2, trucks=2, packages=3, min_length=10, max_length=13, beat_greedy=True),
    6: LogisticsKnobs(locations=6, extra_roads=2, trucks=2, packages=4, min_length=12, max_length=15, beat_greedy=True),
    7: LogisticsKnobs(locations=7, extra_roads=3, trucks=2, packages=4, min_length=13, max_length=16, beat_greedy=True),
    8: LogisticsKnobs(locations=7, extra_roads=3, trucks=2, packages=5, min_length=15, max_length=19, beat_greedy=True),
    9: LogisticsKnobs(locations=8, extra_roads=4, trucks=2, packages=5, min_length=16, max_length=20, beat_greedy=True),
    # three trucks multiply the branching: fewer locations keep level 10 at ~10 tasks/s
    10: LogisticsKnobs(locations=6, extra_roads=3, trucks=3, packages=5, min_length=14, max_length=18, beat_greedy=True),
}  # fmt: skip


# --------------------------------------------------------------------------------------------
# The domain
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class World:
    """The static part of an instance: roads, shortest distances, package goals."""

    n: int
    trucks: int
    roads: tuple[tuple[int, int], ...]
    goals: tuple[int, ...]

    @property
    def neighbours(self) -> list[list[int]]:
        adj: list[list[int]] = [[] for _ in range(self.n)]
        for a, b in self.roads:
            adj[a].append(b)
            adj[b].append(a)
        return [sorted(x) for x in adj]


def distances(n: int, roads: tuple[tuple[int, int], ...]) -> list[list[int]]:
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in roads:
        adj[a].append(b)
        adj[b].append(a)
    table = []
    for source in range(n):
        dist = [-1] * n
        dist[source] = 0
        queue = deque([source])
        while queue:
            x = queue.popleft()
            for y in adj[x]:
                if dist[y] < 0:
                    dist[y] = dist[x] + 1
                    queue.append(y)
        table.append(dist)
    return table


class Domain:
    """Successors and the consistent heuristic of one instance."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.adj = world.neighbours
        self.dist = distances(world.n, world.roads)

    def is_goal(self, state: State) -> bool:
        return state[self.world.trucks :] == self.world.goals

    def successors(self, state: State) -> list[tuple[Move, State]]:
        n, k = self.world.n, self.world.trucks
        out: list[tuple[Move, State]] = []
        for t in range(k):
            here = state[t]
            for there in self.adj[here]:
                out.append((("drive", t, here, there), state[:t] + (there,) + state[t + 1 :]))
        for p in range(len(self.world.goals)):
            pos = state[k + p]
            i = k + p
            if pos >= n:
                out.append((("unload", p, pos - n, 0), state[:i] + (state[pos - n],) + state[i + 1 :]))
            else:
                for t in range(k):
                    if state[t] == pos:
                        out.append((("load", p, t, 0), state[:i] + (n + t,) + state[i + 1 :]))
        return out

    def heuristic(self, state: State) -> int:
        n, k, dist = self.world.n, self.world.trucks, self.dist
        handling, drives = 0, 0
        for p, goal in enumerate(self.world.goals):
            pos = state[k + p]
            if pos >= n:
                handling += 1
                drives = max(drives, dist[state[pos - n]][goal])
            elif pos != goal:
                handling += 2
                drives = max(drives, min(dist[state[t]][pos] for t in range(k)) + dist[pos][goal])
        return handling + drives

    def solve(self, start: State, budget: int | None = SEARCH_BUDGET):
        return astar(start, self.is_goal, self.successors, self.heuristic, budget)

    def solve_greedy(self, start: State):
        return greedy(start, self.is_goal, self.successors, self.heuristic, GREEDY_BUDGET)


def random_roads(n: int, extra: int, rng: np.random.Generator) -> tuple[tuple[int, int], ...]:
    """A random spanning tree (each new location joins an earlier one) plus ``extra`` roads."""
    order = [int(x) for x in rng.permutation(n)]
    roads = {tuple(sorted((order[i], order[int(rng.integers(i))]))) for i in range(1, n)}
    missing = [(a, b) for a in range(n) for b in range(a + 1, n) if (a, b) not in roads]
    for j in rng.choice(len(missing), size=extra, replace=False):
        roads.add(missing[int(j)])
    return tuple(sorted(roads))  # type: ignore[arg-type]


def canonical_hash(world: World, start: State) -> str:
    """A hash invariant under renaming locations, trucks and packages (Weisfeiler-Lehman)."""
    graph = nx.Graph()
    k = world.trucks
    for x in range(world.n):
        graph.add_node(("L", x), label="location")
    for a, b in world.roads:
        graph.add_edge(("L", a), ("L", b))
    for t in range(k):
        graph.add_node(("T", t), label="truck")
        graph.add_edge(("T", t), ("L", start[t]))
    for p, goal in enumerate(world.goals):
        graph.add_node(("P", p), label="package")
        graph.add_node(("from", p), label="from")
        graph.add_node(("to", p), label="to")
        graph.add_edges_from([(("P", p), ("from", p)), (("from", p), ("L", start[k + p]))])
        graph.add_edges_from([(("P", p), ("to", p)), (("to", p), ("L", goal))])
    digest = nx.weisfeiler_lehman_graph_hash(graph, node_attr="label", iterations=5)
    return content_hash({"n": world.n, "trucks": k, "packages": len(world.goals), "wl": digest})


def format_plan(plan: list[Move] | list[list]) -> str:
    words = []
    for kind, a, b, c in plan:
        if kind == "drive":
            words.append(f"drive T{a + 1} L{b + 1} L{c + 1}")
        else:
            words.append(f"{kind} P{a + 1} T{b + 1}")
    return ", ".join(words)


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Logistics planning. There are {n} locations ({locations}) joined by these roads \
(each road can be driven both ways):
{roads}

Trucks:
{trucks}

Packages (where each is now -> where it must be delivered):
{packages}

Actions (each counts as one action):
- drive T A B: truck T, at location A, drives along the road A-B to B (with everything it holds).
- load P T: package P, lying at the location where truck T is, goes into truck T.
- unload P T: package P, in truck T, is put down at truck T's location.
A truck holds any number of packages; the trucks may end anywhere. Deliver every package with the \
fewest possible actions. Write the actions in order, separated by commas. Format example (not \
the solution): <answer>drive T1 L1 L2, load P1 T1, drive T1 L2 L3, unload P1 T1</answer>. Any \
plan with the fewest actions is accepted."""

# numbers are capped at two digits so a hostile "P999...9" is refused, not converted
_TOKEN = re.compile(
    r"(?:(drive)\s+T(\d{1,2})\s+L(\d{1,2})\s+L(\d{1,2})|(load|unload)\s+P(\d{1,2})\s+T(\d{1,2}))\b",
    re.IGNORECASE,
)


def _world(meta: dict) -> World:
    return World(
        n=meta["locations"],
        trucks=len(meta["trucks"]),
        roads=tuple(tuple(r) for r in meta["roads"]),  # type: ignore[misc]
        goals=tuple(meta["goals"]),
    )


def _start(meta: dict) -> State:
    return tuple(meta["trucks"]) + tuple(meta["starts"])


def _read_plan(text: str, world: World) -> list[Move] | str:
    """The moves written in ``text`` (0-based), or why they cannot be read."""
    matches = tokenize(text, _TOKEN)
    if not matches:
        return f"could not read {text[:60]!r} as actions like 'drive T1 L1 L2', 'load P1 T1'"
    plan: list[Move] = []
    n, k, m = world.n, world.trucks, len(world.goals)
    for match in matches:
        if match[1]:
            t, a, b = (int(match[i]) - 1 for i in (2, 3, 4))
            if not (0 <= t < k and 0 <= a < n and 0 <= b < n):
                return f"no such truck or location in {match[0]!r}"
            plan.append(("drive", t, a, b))
        else:
            p, t = int(match[6]) - 1, int(match[7]) - 1
            if not (0 <= p < m and 0 <= t < k):
                return f"no such package or truck in {match[0]!r}"
            plan.append((match[5].lower(), p, t, 0))
    return plan


def simulate(world: World, start: State, plan: list[Move]) -> tuple[State | None, str]:
    """Replay ``plan``: the final state, or (None, the first illegal action and why)."""
    n, k = world.n, world.trucks
    roads = set(world.roads)
    state = list(start)
    for step, move in enumerate(plan, 1):
        kind, a, b, c = move
        name = f"action {step} ({format_plan([move])})"
        if kind == "drive":
            if state[a] != b:
                return None, f"{name}: T{a + 1} is at L{state[a] + 1}, not L{b + 1}"
            if (min(b, c), max(b, c)) not in roads:
                return None, f"{name}: no road joins L{b + 1} and L{c + 1}"
            state[a] = c
        elif kind == "load":
            if state[k + a] != state[b]:
                return None, f"{name}: P{a + 1} is not lying where T{b + 1} is"
            state[k + a] = n + b
        else:
            if state[k + a] != n + b:
                return None, f"{name}: P{a + 1} is not in T{b + 1}"
            state[k + a] = state[b]
    return tuple(state), ""


@family(
    "logistics",
    domain="reasoning",
    knobs=LogisticsKnobs,
    levels=LEVELS,
    description="Truck-and-package logistics planning on a road map in the A*-proven fewest actions.",
    verifier_kind="simulation + proven optimum",
)
class Logistics(Family):
    def generate(self, knobs: LogisticsKnobs, rng: np.random.Generator) -> TaskDraft:
        n, k, m = knobs.locations, knobs.trucks, knobs.packages
        for _ in range(3000):
            roads = random_roads(n, knobs.extra_roads, rng)
            trucks = tuple(int(x) for x in rng.integers(n, size=k))
            starts = tuple(int(x) for x in rng.integers(n, size=m))
            goals = tuple(int((s + 1 + rng.integers(n - 1)) % n) for s in starts)  # never the start
            world = World(n=n, trucks=k, roads=roads, goals=goals)
            domain = Domain(world)
            start = trucks + starts
            if domain.heuristic(start) > knobs.max_length:  # a cheap bound rejects long ones early
                continue
            result = domain.solve(start)
            if result.plan is None or not knobs.min_length <= len(result.plan) <= knobs.max_length:
                continue
            if knobs.beat_greedy:
                quick = domain.solve_greedy(start).plan
                if quick is not None and len(quick) == len(result.plan):
                    continue
            return self._draft(world, start, result.plan, result.expanded)
        raise RuntimeError(f"could not draw a logistics instance for {knobs}")

    def _draft(self, world: World, start: State, plan: list[Move], expanded: int) -> TaskDraft:
        n, k = world.n, world.trucks
        meta = {
            "locations": n,
            "roads": [list(r) for r in world.roads],
            "trucks": list(start[:k]),
            "starts": list(start[k:]),
            "goals": list(world.goals),
            "optimal_length": len(plan),
            "solution": [list(mv) for mv in plan],
            "search_nodes": expanded,
            "canonical_hash": canonical_hash(world, start),
        }
        prompt = PROMPT.format(
            n=n,
            locations=", ".join(f"L{x + 1}" for x in range(n)),
            roads="\n".join(f"  L{a + 1} - L{b + 1}" for a, b in world.roads),
            trucks="\n".join(f"  T{t + 1} is at L{start[t] + 1}" for t in range(k)),
            packages="\n".join(
                f"  P{p + 1}: L{start[k + p] + 1} -> L{g + 1}" for p, g in enumerate(world.goals)
            ),
        )
        return TaskDraft(prompt=prompt, answer=format_plan(plan), metadata=meta)

    def verify(self, task: Task, response: str) -> Verdict:
        meta = task.metadata
        text, error = extract_plan_text(response)
        if text is None:
            return Verdict.bad_format(error or "no answer")
        world = _world(meta)
        plan = _read_plan(text, world)
        if isinstance(plan, str):
            return Verdict.bad_format(plan)
        parsed = format_plan(plan)
        final, why = simulate(world, _start(meta), plan)
        if final is None:
            return Verdict.wrong(why, parsed=parsed)
        k = world.trucks
        undelivered = [f"P{p + 1}" for p, g in enumerate(world.goals) if final[k + p] != g]
        if undelivered:
            return Verdict.wrong(f"not delivered: {', '.join(undelivered)}", parsed=parsed)
        return grade_length(len(plan), meta["optimal_length"], parsed, unit="actions")

    def solve_exact(self, task: Task) -> SolverRun:
        meta = task.metadata
        result = Domain(_world(meta)).solve(_start(meta), budget=None)
        response = None if result.plan is None else f"<answer>{format_plan(result.plan)}</answer>"
        return SolverRun(response=response, effort=float(result.expanded))

    def solve_weak(self, task: Task) -> SolverRun:
        # greedy best-first on the A* heuristic: no cost-so-far, so it finds a plan fast but
        # often not the shortest (it serves packages one by one rather than jointly)
        meta = task.metadata
        result = Domain(_world(meta)).solve_greedy(_start(meta))
        response = None if result.plan is None else f"<answer>{format_plan(result.plan)}</answer>"
        return SolverRun(response=response, effort=float(result.expanded))

    def effort(self, task: Task) -> float:
        return float(task.metadata["search_nodes"])

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        plan = [tuple(mv) for mv in task.metadata["solution"]]
        last = plan[-1]
        detour = []
        drives = [mv for mv in plan if mv[0] == "drive"]
        if drives:  # drive there and back before the plan: legal, delivered, two actions too many
            _, t, a, b = drives[0]
            detour = [("drive", t, a, b), ("drive", t, b, a)] + plan
        candidates = [plan[:-1], plan[1:], plan[::-1], detour, plan + [last]]
        responses = [f"<answer>{format_plan(c)}</answer>" for c in candidates if c]
        responses.append("<answer>load P9 T1</answer>")
        return [r for r in dict.fromkeys(responses) if not self.verify(task, r).correct]
