"""River crossing (wolf-goat-cabbage generalised) with a BFS-proven optimal number of crossings.

Some individuals can row (the humans), the others cannot. The boat crosses only with at least one
rower aboard and carries a total weight of at most ``capacity`` (every individual weighs 1 unless
``max_weight`` > 1). Some pairs may never be together on a bank where no rower is present.
Everyone starts on the left bank and must reach the right bank (``classic``), or starts on random
banks and must reach a random far-away arrangement (``random``: the goal is drawn among the states
at BFS distance >= ``min_length`` from the start). The state is (boat bank, set on the right bank),
at most ``2^(items+1)`` states, so BFS proves the fewest crossings exactly. Any legal plan with
that many crossings is accepted; the verifier replays it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import networkx as nx
import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.search import (
    MAX_PLAN_STEPS,
    bfs,
    bfs_layers,
    extract_plan_text,
    grade_length,
    greedy,
    path_to,
)
from palaestra.registry import Family, SolverRun, TaskDraft, family

ROWERS = ("farmer", "boy", "girl", "miller", "knight", "monk")
OTHERS = (
    "wolf", "goat", "cabbage", "dog", "cat", "mouse", "cheese", "fox", "chicken", "grain",
    "lion", "sheep", "hay", "snake", "frog", "owl", "rabbit", "carrot",
)  # fmt: skip
LEFT, RIGHT = 0, 1


@dataclass(frozen=True)
class RiverKnobs(Knobs):
    items: int = knob(4, low=2, high=10, help="number of individuals, rowers included")
    rowers: int = knob(1, low=1, high=4, help="how many of them can row (humans)")
    conflicts: int = knob(2, low=0, high=20, help="pairs that may not share a bank without a rower")
    capacity: int = knob(2, low=1, high=4, help="total weight the boat carries (rowers included)")
    max_weight: int = knob(1, low=1, high=3, help="weights are drawn from 1..max_weight")
    layout: str = knob("classic", choices=("classic", "random"), help="everyone left -> right, or random")
    min_length: int = knob(1, low=1, high=200, help="reject instances with fewer optimal crossings")

    def validate(self) -> None:
        if self.rowers >= self.items:
            raise ValueError("at least one individual must be unable to row")
        others = self.items - self.rowers
        if self.conflicts > others * (others - 1) // 2:
            raise ValueError(f"{others} non-rowers have at most {others * (others - 1) // 2} pairs")
        if self.max_weight > self.capacity:
            raise ValueError("max_weight may not exceed the boat capacity")


LEVELS = {
    1: RiverKnobs(items=4, rowers=1, conflicts=2, capacity=2, layout="classic", min_length=5),
    2: RiverKnobs(items=5, rowers=1, conflicts=2, capacity=2, layout="classic", min_length=5),
    3: RiverKnobs(items=8, rowers=3, conflicts=4, capacity=3, max_weight=2, layout="random", min_length=6),
    4: RiverKnobs(items=9, rowers=3, conflicts=5, capacity=3, max_weight=2, layout="random", min_length=7),
    5: RiverKnobs(items=9, rowers=3, conflicts=5, capacity=3, max_weight=2, layout="random", min_length=8),
    6: RiverKnobs(items=10, rowers=3, conflicts=5, capacity=3, max_weight=2, layout="random", min_length=8),
    7: RiverKnobs(items=10, rowers=3, conflicts=6, capacity=3, max_weight=2, layout="random", min_length=9),
    8: RiverKnobs(items=10, rowers=3, conflicts=7, capacity=3, max_weight=2, layout="random", min_length=10),
    9: RiverKnobs(items=10, rowers=3, conflicts=7, capacity=3, max_weight=2, layout="random", min_length=11),
    10: RiverKnobs(items=10, rowers=3, conflicts=8, capacity=3, max_weight=2, layout="random", min_length=12),
}


# --------------------------------------------------------------------------------------------
# States: (farmer bank, bitmask of items on the right bank)
# --------------------------------------------------------------------------------------------


class Rules:
    """The move rules, with every legal boat load and every safe arrangement tabulated once."""

    def __init__(
        self, items: int, capacity: int, weights: tuple[int, ...], rower_mask: int, conflicts: tuple[int, ...]
    ):
        self.items, self.capacity, self.weights, self.rower_mask = items, capacity, weights, rower_mask
        self.full = (1 << items) - 1
        bank_ok = [bool(m & rower_mask) or not any(m & c == c for c in conflicts) for m in range(1 << items)]
        self.safe_table = [bank_ok[m] and bank_ok[self.full & ~m] for m in range(1 << items)]
        self.loads = [
            load
            for load in range(1, 1 << items)
            if load & rower_mask and sum(weights[i] for i in range(items) if load >> i & 1) <= capacity
        ]

    def safe(self, right: int) -> bool:
        """No forbidden pair shares a bank that has no rower on it."""
        return self.safe_table[right]

    def successors(self, state: tuple[int, int]) -> list[tuple[int, tuple[int, int]]]:
        boat, right = state
        here = right if boat == RIGHT else self.full & ~right
        table, nxt_boat = self.safe_table, 1 - boat
        return [
            (load, (nxt_boat, right ^ load))
            for load in self.loads
            if not load & ~here and table[right ^ load]
        ]


def _rules(meta: dict) -> Rules:
    masks = tuple((1 << a) | (1 << b) for a, b in meta["conflicts"])
    rower_mask = sum(1 << i for i in range(meta["rowers"]))
    return Rules(meta["items"], meta["capacity"], tuple(meta["weights"]), rower_mask, masks)


def _mask(banks: list[int]) -> int:
    return sum(1 << i for i, bank in enumerate(banks) if bank == RIGHT)


def canonical_hash(meta: dict) -> str:
    """An isomorphism-invariant hash (Weisfeiler-Lehman over the conflict graph with node labels)."""
    graph = nx.Graph()
    for i in range(meta["items"]):
        label = f"{int(i < meta['rowers'])}{meta['weights'][i]}{meta['start'][i]}{meta['goal'][i]}"
        graph.add_node(i, label=label)
    graph.add_edges_from((a, b) for a, b in meta["conflicts"])
    wl = nx.weisfeiler_lehman_graph_hash(graph, node_attr="label", iterations=3)
    return content_hash({"wl": wl, "boat": meta["boat"], "capacity": meta["capacity"], "n": meta["items"]})


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """River crossing. Individuals: {items}. Rowers: {rower_names}; nobody else can row, so every crossing \
needs at least one rower in the boat. The boat carries a total weight of at most {capacity}{weight_text}.
These pairs must never be together on a bank where no rower is present: {conflicts}.

Start: boat on the {boat_start} bank; left bank: {start_left}; right bank: {start_right}.
Goal: boat on the {boat_goal} bank; left bank: {goal_left}; right bank: {goal_right}.

Use the fewest possible crossings. List the crossings in order, separated by semicolons; for each, \
name everyone in the boat joined with "+" (the boat alternates direction, starting from its \
bank). Format example (not the solution): <answer>farmer+goat; farmer; farmer+wolf</answer>. \
Any plan with the fewest crossings is accepted."""

_TRIP_SPLIT = re.compile(r";|\n|\|")  # parts are stripped: \s* around a separator is quadratic
_ITEM_SPLIT = re.compile(r"\+|&|,|\band\b", re.IGNORECASE)


def _bank_text(names: list[str], banks: list[int], side: int) -> str:
    chosen = [names[i] for i in range(len(names)) if banks[i] == side]
    return ", ".join(chosen) if chosen else "empty"


def _trip_text(names: list[str], load: int) -> str:
    return "+".join(names[i] for i in range(len(names)) if load >> i & 1)


def _parse(text: str, names: list[str]) -> tuple[list[int] | None, str | None]:
    index = {name: i for i, name in enumerate(names)}
    trips = [t.strip() for t in _TRIP_SPLIT.split(text.strip()) if t.strip() != ""]
    if not trips or len(trips) > MAX_PLAN_STEPS:
        return None, "no crossings found (separate crossings with semicolons)"
    loads = []
    for k, trip in enumerate(trips, 1):
        load = 0
        for word in (w.lower().strip().strip(" .") for w in _ITEM_SPLIT.split(trip)):
            if word not in index:
                return None, f"crossing {k}: {word[:30]!r} is not one of the individuals"
            if load >> index[word] & 1:
                return None, f"crossing {k} names {word} twice"
            load |= 1 << index[word]
        loads.append(load)
    return loads, None


def _answer(meta: dict, plan: list[int]) -> str:
    return "; ".join(_trip_text(meta["names"], load) for load in plan)


@family(
    "river_crossing",
    domain="puzzles",
    knobs=RiverKnobs,
    levels=LEVELS,
    description="River crossing with rowers, weights, conflict pairs and boat capacity in the BFS-proven fewest crossings.",
    verifier_kind="simulation + proven optimum",
)
class RiverCrossing(Family):
    def generate(self, knobs: RiverKnobs, rng: np.random.Generator) -> TaskDraft:
        n, r = knobs.items, knobs.rowers
        pairs = [[a, b] for a in range(r, n) for b in range(a + 1, n)]  # conflicts among non-rowers
        for _ in range(5000):
            picked = rng.choice(len(pairs), size=knobs.conflicts, replace=False) if knobs.conflicts else []
            # rowers weigh 1..max_weight; everyone else must fit beside the lightest rower
            weights = [int(w) for w in rng.integers(1, knobs.max_weight + 1, r)]
            heaviest = max(1, min(knobs.max_weight, knobs.capacity - min(weights)))
            weights += [int(w) for w in rng.integers(1, heaviest + 1, n - r)]
            meta = {
                "items": n,
                "rowers": r,
                "capacity": knobs.capacity,
                "weights": weights,
                "conflicts": sorted(pairs[int(k)] for k in picked),
            }
            rules = _rules(meta)
            if knobs.layout == "classic":
                begin, end = (LEFT, 0), (RIGHT, (1 << n) - 1)
            else:
                begin = (int(rng.integers(0, 2)), int(rng.integers(0, 1 << n)))
                if not rules.safe(begin[1]):
                    continue
            # one full BFS from the start: the distance of every reachable state
            dist, parents = bfs_layers(begin, rules.successors)
            if knobs.layout == "random":
                # the goal: a random reachable state at least min_length crossings away
                far = [state for state, d in dist.items() if d >= knobs.min_length]
                if not far:
                    continue
                end = far[int(rng.integers(len(far)))]
            if dist.get(end, -1) < knobs.min_length:
                continue
            plan = path_to(parents, end)
            # what a goal-directed BFS must expand before it meets the goal: every closer state
            expanded = sum(1 for d in dist.values() if d < len(plan))
            rower_names = [ROWERS[int(i)] for i in rng.permutation(len(ROWERS))[:r]]
            other_names = [OTHERS[int(i)] for i in rng.permutation(len(OTHERS))[: n - r]]
            meta.update(
                names=rower_names + other_names,
                start=[begin[1] >> i & 1 for i in range(n)],
                goal=[end[1] >> i & 1 for i in range(n)],
                boat=[begin[0], end[0]],
            )
            meta.update(
                optimal_length=len(plan),
                solution=_answer(meta, plan),
                search_nodes=expanded,
                canonical_hash=canonical_hash(meta),
            )
            return TaskDraft(
                prompt=self._prompt(meta, knobs.max_weight), answer=meta["solution"], metadata=meta
            )
        raise RuntimeError(f"could not draw a river-crossing instance for {knobs}")

    @staticmethod
    def _prompt(meta: dict, max_weight: int) -> str:
        names, sides = meta["names"], ("left", "right")
        if max_weight > 1:
            items = ", ".join(f"{name} (weight {w})" for name, w in zip(names, meta["weights"], strict=True))
            weight_text = ""
        else:
            items = ", ".join(names)
            weight_text = " (everyone weighs 1, so that is the number of seats)"
        rowers = names[: meta["rowers"]]
        return PROMPT.format(
            items=items,
            rower_names=" and ".join(rowers)
            if len(rowers) <= 2
            else ", ".join(rowers[:-1]) + " and " + rowers[-1],
            capacity=meta["capacity"],
            weight_text=weight_text,
            conflicts="; ".join(f"{names[a]} and {names[b]}" for a, b in meta["conflicts"]) or "none",
            boat_start=sides[meta["boat"][0]],
            boat_goal=sides[meta["boat"][1]],
            start_left=_bank_text(names, meta["start"], LEFT),
            start_right=_bank_text(names, meta["start"], RIGHT),
            goal_left=_bank_text(names, meta["goal"], LEFT),
            goal_right=_bank_text(names, meta["goal"], RIGHT),
        )

    def verify(self, task: Task, response: str) -> Verdict:
        meta = task.metadata
        text, error = extract_plan_text(response)
        if text is None:
            return Verdict.bad_format(error or "no answer")
        loads, error = _parse(text, meta["names"])
        if loads is None:
            return Verdict.bad_format(error or "unreadable")
        parsed = _answer(meta, loads)
        rules = _rules(meta)
        boat, right = meta["boat"][0], _mask(meta["start"])
        for k, load in enumerate(loads, 1):
            here = right if boat == RIGHT else ((1 << rules.items) - 1) & ~right
            if load & ~here:
                return Verdict.wrong(f"crossing {k}: someone named is not on the boat's bank", parsed=parsed)
            if not load & rules.rower_mask:
                return Verdict.wrong(f"crossing {k}: nobody in the boat can row", parsed=parsed)
            weight = sum(rules.weights[i] for i in range(rules.items) if load >> i & 1)
            if weight > rules.capacity:
                return Verdict.wrong(
                    f"crossing {k}: weight {weight} exceeds the capacity {rules.capacity}", parsed=parsed
                )
            boat, right = 1 - boat, right ^ load
            if not rules.safe(right):
                return Verdict.wrong(
                    f"crossing {k} leaves a forbidden pair together without a rower", parsed=parsed
                )
        if (boat, right) != (meta["boat"][1], _mask(meta["goal"])):
            return Verdict.wrong("the crossings do not reach the goal", parsed=parsed)
        return grade_length(len(loads), meta["optimal_length"], parsed, unit="crossings")

    def _search(self, task: Task, weak: bool) -> SolverRun:
        meta = task.metadata
        rules = _rules(meta)
        start, end = (meta["boat"][0], _mask(meta["start"])), (meta["boat"][1], _mask(meta["goal"]))
        if weak:
            # greedy best-first on the number of misplaced individuals, 15 expansions
            result = greedy(
                start, lambda s: s == end, rules.successors, lambda s: (s[1] ^ end[1]).bit_count(), 15
            )
        else:
            result = bfs(start, lambda s: s == end, rules.successors)
        response = None if result.plan is None else f"<answer>{_answer(meta, result.plan)}</answer>"
        return SolverRun(response=response, effort=float(result.expanded))

    def solve_exact(self, task: Task) -> SolverRun:
        return self._search(task, weak=False)

    def solve_weak(self, task: Task) -> SolverRun:
        return self._search(task, weak=True)

    def effort(self, task: Task) -> float:
        return float(task.metadata["search_nodes"])  # states closer than the goal: BFS must expand them

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        plan = task.metadata["solution"].split("; ")
        rower, names = task.metadata["names"][0], task.metadata["names"]
        candidates = [
            plan[:-1],
            plan[1:],
            plan + [plan[-1], plan[-1]],  # the last crossing undone and redone: two too many
            plan[::-1],
            [names[-1]] + plan[1:],  # a crossing without a rower (or from the wrong bank)
            plan[:-1] + [plan[-1] + "+" + rower] if rower not in plan[-1].split("+") else plan[:-1],
        ]
        responses = ["<answer>" + "; ".join(c) + "</answer>" for c in candidates if c]
        responses.append("<answer>" + "; ".join(plan) + "; dragon</answer>")
        return [x for x in dict.fromkeys(responses) if not self.verify(task, x).correct]
