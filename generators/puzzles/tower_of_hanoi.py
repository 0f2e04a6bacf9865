"""Tower of Hanoi with rule variants and a BFS-proven optimal number of moves.

Variants: 3-5 pegs; a move rule (``standard``: any peg to any peg; ``adjacent``: only between
neighbouring pegs in a row; ``cyclic``: only one way round a ring, A->B->C->A; ``random``: a random
set of forbidden direct moves that keeps every peg reachable from every other); and a start/goal
that is either the classic whole tower from the first to the last peg or two random legal
configurations. The optimum is proven by breadth-first search over all ``pegs^disks``
configurations reachable from the start (the state space is small at every level), so any
optimal move sequence is accepted; the verifier replays it.

Speed (CPU time of one core, measured under load): level 5 (7 disks, 3 pegs) ~330 tasks/s, level 10
(8 disks, 4 pegs: 65,536 configurations) ~40/s. A drawn instance whose optimum is out of the
level's range is rejected after a bidirectional search for the length alone; only a kept one pays
for the full BFS and its plan. Both searches run over integer states, on 3,000 configurations or
more a whole layer at a time with numpy, with the same results (length, plan, node count) as the
one-state-at-a-time searches of ``_search`` (8x faster at level 10, same tasks).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family

from ._search import bfs, bfs_distance, extract_plan_text, grade_length, greedy, tokenize

PEG_NAMES = "ABCDE"
RULES = ("standard", "adjacent", "cyclic", "random")


@dataclass(frozen=True)
class HanoiKnobs(Knobs):
    disks: int = knob(3, low=1, high=9, help="number of disks")
    pegs: int = knob(3, low=3, high=5, help="number of pegs")
    rule: str = knob(
        "standard", choices=(*RULES, "mixed"), help="which direct moves are allowed; mixed draws one"
    )
    start: str = knob(
        "tower", choices=("tower", "random"), help="classic tower A -> last peg, or random configurations"
    )
    min_length: int = knob(1, low=1, high=10_000, help="reject instances whose optimum is shorter")
    max_length: int = knob(10_000, low=1, high=10_000, help="reject instances whose optimum is longer")

    def validate(self) -> None:
        if self.min_length > self.max_length:
            raise ValueError(f"min_length={self.min_length} exceeds max_length={self.max_length}")
        if self.pegs**self.disks > 70_000:
            raise ValueError(
                f"{self.pegs}^{self.disks} configurations are too many for the BFS proof (max 70000)"
            )


LEVELS = {
    1: HanoiKnobs(disks=3, pegs=3, rule="standard", start="tower"),
    2: HanoiKnobs(disks=4, pegs=3, rule="mixed", start="random", min_length=4, max_length=40),
    3: HanoiKnobs(
        disks=6, pegs=3, rule="mixed", start="random", min_length=6, max_length=60
    ),  # v2: 5 disks: 2.1% dup
    4: HanoiKnobs(disks=6, pegs=3, rule="mixed", start="random", min_length=14, max_length=60),
    5: HanoiKnobs(disks=7, pegs=3, rule="mixed", start="random", min_length=30, max_length=120),
    6: HanoiKnobs(disks=5, pegs=5, rule="mixed", start="random", min_length=20, max_length=100),
    7: HanoiKnobs(disks=6, pegs=4, rule="mixed", start="random", min_length=50, max_length=120),
    8: HanoiKnobs(disks=7, pegs=4, rule="mixed", start="random", min_length=40, max_length=140),
    9: HanoiKnobs(disks=7, pegs=4, rule="mixed", start="random", min_length=70, max_length=160),
    10: HanoiKnobs(disks=8, pegs=4, rule="mixed", start="random", min_length=80, max_length=250),
}


# --------------------------------------------------------------------------------------------
# Rules and states: a state is a tuple, state[d] = peg of disk d (disk 0 is the smallest)
# --------------------------------------------------------------------------------------------


def allowed_moves(rule: str, pegs: int, rng: np.random.Generator | None = None) -> list[list[int]]:
    """The directed peg pairs ``[from, to]`` allowed by ``rule`` (sorted)."""
    pairs = [(a, b) for a in range(pegs) for b in range(pegs) if a != b]
    if rule == "standard":
        chosen = pairs
    elif rule == "adjacent":
        chosen = [(a, b) for a, b in pairs if abs(a - b) == 1]
    elif rule == "cyclic":
        chosen = [(a, (a + 1) % pegs) for a in range(pegs)]
    else:
        assert rng is not None
        while True:
            keep = rng.random(len(pairs)) < 0.6
            chosen = [p for p, k in zip(pairs, keep, strict=True) if k]
            if len(chosen) < len(pairs) and _strongly_connected(chosen, pegs):
                break
    return sorted([list(p) for p in chosen])


def _strongly_connected(pairs: list[tuple[int, int]], pegs: int) -> bool:
    for direction in (0, 1):
        seen, stack = {0}, [0]
        while stack:
            a = stack.pop()
            for p in pairs:
                if p[direction] == a and p[1 - direction] not in seen:
                    seen.add(p[1 - direction])
                    stack.append(p[1 - direction])
        if len(seen) < pegs:
            return False
    return True


def successors(
    state: tuple[int, ...], moves: list[list[int]]
) -> Iterator[tuple[tuple[int, int], tuple[int, ...]]]:
    """Legal moves ``(from, to)`` and the states they lead to."""
    top: dict[int, int] = {}
    for disk, peg in enumerate(state):
        top.setdefault(peg, disk)  # disks are visited smallest first
    for a, b in moves:
        disk = top.get(a)
        if disk is not None and top.get(b, len(state)) > disk:
            nxt = list(state)
            nxt[disk] = b
            yield (a, b), tuple(nxt)


# Generation searches over integer states (state[d] is digit d of the number in base ``pegs``),
# a whole BFS layer at a time with numpy: each state's top disks come from a table shared by
# every task of the same size, and a layer's successors are listed state by state, move by move,
# in the order ``successors`` yields them. Keeping each new state's first appearance in that order
# is exactly what the one-state-at-a-time searches of ``_search`` do, so the length, the plan and
# the node count are theirs (the same tasks, byte for byte), at a fraction of the cost.


LAYERED_FROM_STATES = 3000  # numpy layers from this many configurations; one state at a time below


@functools.lru_cache(maxsize=16)
def _top_disks(disks: int, pegs: int) -> np.ndarray:
    """``table[s, p]``: the smallest disk on peg ``p`` in integer state ``s`` (``disks``: empty)."""
    states = np.arange(pegs**disks, dtype=np.int64)
    top = np.full((states.size, pegs), disks, dtype=np.int64)
    for disk in range(disks - 1, -1, -1):  # smaller disks last: they end up on top
        top[states, (states // pegs**disk) % pegs] = disk
    return top


@functools.lru_cache(maxsize=16)
def _top_disk_lists(disks: int, pegs: int) -> list[list[int]]:
    return _top_disks(disks, pegs).tolist()


def _int_successors(disks: int, pegs: int, moves: list[list[int]]):  # -> Successors over ints
    """``successors`` over integer states, one state at a time (for ``_search`` on small spaces,
    where a numpy call per layer costs more than the layer)."""
    top = _top_disk_lists(disks, pegs)
    steps = [((a, b), a, b, [(b - a) * pegs**d for d in range(disks)]) for a, b in moves]

    def expand(state: int) -> list[tuple[tuple[int, int], int]]:
        tops = top[state]
        return [(move, state + shift[tops[a]]) for move, a, b, shift in steps if tops[a] < tops[b]]

    return expand


def _encode(state: tuple[int, ...], pegs: int) -> int:
    return sum(peg * pegs**disk for disk, peg in enumerate(state))


class _Layers:
    """Successor layers of integer states under one set of allowed moves."""

    def __init__(self, disks: int, pegs: int, moves: list[list[int]]) -> None:
        self.size = pegs**disks
        self.top = _top_disks(disks, pegs)
        self.moves = [(a, b) for a, b in moves]
        self.src = np.array([a for a, _ in moves], dtype=np.int64)
        self.dst = np.array([b for _, b in moves], dtype=np.int64)
        powers = np.array([pegs**d for d in range(disks)] + [0], dtype=np.int64)  # disk == disks: none
        self.shift = (self.dst - self.src)[:, None] * powers[None, :]  # moving disk d from a to b

    def successors(self, frontier: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All (state, move) successors in discovery order, flattened, and which are legal."""
        tops = self.top[frontier]
        disk = tops[:, self.src]
        legal = disk < tops[:, self.dst]
        nxt = frontier[:, None] + self.shift[np.arange(len(self.moves))[None, :], disk]
        return nxt.ravel(), legal.ravel()


def _new_in_order(candidates: np.ndarray, fresh: np.ndarray) -> np.ndarray:
    """Positions of the first appearance of each fresh candidate, in discovery order."""
    positions = np.flatnonzero(fresh)
    _, first = np.unique(candidates[positions], return_index=True)
    return positions[np.sort(first)]


def distance(layers: _Layers, back: _Layers, start: int, goal: int, max_distance: int) -> int | None:
    """``_search.bfs_distance`` over integer states, a layer at a time (the same answer: the
    first meeting in the same discovery order)."""
    if start == goal:
        return 0
    dist = [np.full(layers.size, -1, dtype=np.int64), np.full(layers.size, -1, dtype=np.int64)]
    dist[0][start], dist[1][goal] = 0, 0
    frontiers = [np.array([start], dtype=np.int64), np.array([goal], dtype=np.int64)]
    depth = [0, 0]
    sides = (layers, back)
    while frontiers[0].size and frontiers[1].size:
        if depth[0] + depth[1] >= max_distance:
            return None
        grow = 0 if frontiers[0].size <= frontiers[1].size else 1
        candidates, legal = sides[grow].successors(frontiers[grow])
        fresh = legal & (dist[grow][candidates] < 0)
        meets = np.flatnonzero(fresh & (dist[1 - grow][candidates] >= 0))
        if meets.size:
            return depth[grow] + 1 + int(dist[1 - grow][candidates[meets[0]]])
        new = candidates[_new_in_order(candidates, fresh)]
        depth[grow] += 1
        dist[grow][new] = depth[grow]
        frontiers[grow] = new
    return None


def plan_bfs(layers: _Layers, start: int, goal: int) -> tuple[list[tuple[int, int]] | None, int]:
    """``_search.bfs`` from ``start`` to ``goal`` over integer states, a layer at a time: the same
    plan (first discoverer of each state is its parent) and the same count of expanded states."""
    if start == goal:
        return [], 0
    parent = np.full(layers.size, -1, dtype=np.int64)
    move_of = np.zeros(layers.size, dtype=np.int64)
    seen = np.zeros(layers.size, dtype=bool)
    seen[start] = True
    frontier = np.array([start], dtype=np.int64)
    expanded = 0
    width = len(layers.moves)
    while frontier.size:
        candidates, legal = layers.successors(frontier)
        order = _new_in_order(candidates, legal & ~seen[candidates])
        new = candidates[order]
        parent[new], move_of[new], seen[new] = frontier[order // width], order % width, True
        hit = np.flatnonzero(new == goal)
        if hit.size:
            expanded += int(order[hit[0]] // width) + 1  # popped up to the goal's parent
            plan, state = [], goal
            while state != start:
                plan.append(layers.moves[int(move_of[state])])
                state = int(parent[state])
            return plan[::-1], expanded
        expanded += frontier.size
        frontier = new
    return None, expanded


def apply_plan(
    state: tuple[int, ...], moves: list[list[int]], plan: list[tuple[int, int]]
) -> tuple[tuple[int, ...] | None, str]:
    allowed = {(a, b) for a, b in moves}
    for step, (a, b) in enumerate(plan, 1):
        name = f"{PEG_NAMES[a]}->{PEG_NAMES[b]}"
        if (a, b) not in allowed:
            return None, f"move {step} ({name}) is not an allowed direct move"
        disks_a = [d for d, p in enumerate(state) if p == a]
        if not disks_a:
            return None, f"move {step} ({name}): peg {PEG_NAMES[a]} is empty"
        disks_b = [d for d, p in enumerate(state) if p == b]
        if disks_b and disks_b[0] < disks_a[0]:
            return None, f"move {step} ({name}) puts a larger disk on a smaller one"
        nxt = list(state)
        nxt[disks_a[0]] = b
        state = tuple(nxt)
    return state, ""


def canonical_hash(pegs: int, moves: list[list[int]], start: tuple[int, ...], goal: tuple[int, ...]) -> str:
    """Hash of the instance up to renaming the pegs."""
    best = None
    for perm in itertools.permutations(range(pegs)):
        form = (
            sorted([perm[a], perm[b]] for a, b in moves),
            [perm[p] for p in start],
            [perm[p] for p in goal],
        )
        if best is None or form < best:
            best = form
    return content_hash({"pegs": pegs, "form": best})


def _describe(state: tuple[int, ...], pegs: int) -> str:
    lines = []
    for peg in range(pegs):
        disks = [str(d + 1) for d in range(len(state) - 1, -1, -1) if state[d] == peg]
        lines.append(f"{PEG_NAMES[peg]}: " + (" ".join(disks) if disks else "(empty)"))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Tower of Hanoi with {disks} disks (1 is the smallest, {disks} the largest) on {pegs} pegs \
({peg_list}). Each line lists a peg's disks from bottom to top.

Start:
{start}

Goal:
{goal}

A move takes the top disk of one peg and puts it on another peg; a disk may never be placed on a \
smaller disk. {rule_text}

Reach the goal in the fewest possible moves. Write each move as FROM->TO (the pegs' letters), \
separated by spaces or commas. Format example (not the solution): <answer>A->B, A->C, B->C</answer>. \
Any shortest solution is accepted."""

_TOKEN = re.compile(r"([A-Ea-e])\s*(?:->|→|=>|>|-|to)\s*([A-Ea-e])")


def _rule_text(rule: str, moves: list[list[int]], pegs: int) -> str:
    if rule == "standard":
        return "A disk may move directly between any two pegs."
    listed = ", ".join(f"{PEG_NAMES[a]}->{PEG_NAMES[b]}" for a, b in moves)
    return f"Only these direct moves are allowed (direction matters): {listed}."


def _format(plan: list[tuple[int, int]] | list[list[int]]) -> str:
    return ", ".join(f"{PEG_NAMES[a]}->{PEG_NAMES[b]}" for a, b in plan)


@family(
    "tower_of_hanoi",
    version=2,  # v2: level 3 has 6 disks (5 disks repeated 2.1% of 2,000 tasks)
    domain="puzzles",
    knobs=HanoiKnobs,
    levels=LEVELS,
    description="Tower of Hanoi variants (pegs, forbidden moves, random start/goal) in the BFS-proven fewest moves.",
    verifier_kind="simulation + proven optimum",
)
class TowerOfHanoi(Family):
    def generate(self, knobs: HanoiKnobs, rng: np.random.Generator) -> TaskDraft:
        n, pegs = knobs.disks, knobs.pegs
        for _ in range(2000):
            rule = RULES[int(rng.integers(len(RULES)))] if knobs.rule == "mixed" else knobs.rule
            moves = allowed_moves(rule, pegs, rng)
            if knobs.start == "tower":
                start, goal = (0,) * n, (pegs - 1,) * n
            else:
                start = tuple(int(x) for x in rng.integers(0, pegs, n))
                goal = tuple(int(x) for x in rng.integers(0, pegs, n))
            # the optimum's length first (cheap), the plan only for an instance that is kept
            backward = [[b, a] for a, b in moves]  # undoing a move is the reverse move
            start_id, goal_id = _encode(start, pegs), _encode(goal, pegs)
            if pegs**n >= LAYERED_FROM_STATES:
                forward = _Layers(n, pegs, moves)
                # a longer optimum is rejected: the search stops there
                length = distance(forward, _Layers(n, pegs, backward), start_id, goal_id, knobs.max_length)
            else:
                step, back = _int_successors(n, pegs, moves), _int_successors(n, pegs, backward)
                length = bfs_distance(start_id, goal_id, step, back, max_distance=knobs.max_length)
            if length is None or not knobs.min_length <= length <= knobs.max_length:
                continue
            if pegs**n >= LAYERED_FROM_STATES:
                found, expanded = plan_bfs(forward, start_id, goal_id)
            else:
                result = bfs(start_id, lambda s, g=goal_id: s == g, step)
                found, expanded = result.plan, result.expanded
            plan = [list(m) for m in found]
            return TaskDraft(
                prompt=PROMPT.format(
                    disks=n,
                    pegs=pegs,
                    peg_list=", ".join(PEG_NAMES[:pegs]),
                    start=_describe(start, pegs),
                    goal=_describe(goal, pegs),
                    rule_text=_rule_text(rule, moves, pegs),
                ),
                answer=_format(plan),
                metadata={
                    "disks": n,
                    "pegs": pegs,
                    "rule": rule,
                    "moves": moves,
                    "start": list(start),
                    "goal": list(goal),
                    "optimal_length": len(plan),
                    "solution": plan,
                    "search_nodes": expanded,
                    "canonical_hash": canonical_hash(pegs, moves, start, goal),
                },
            )
        raise RuntimeError(f"could not draw a Tower of Hanoi instance for {knobs}")

    def verify(self, task: Task, response: str) -> Verdict:
        meta = task.metadata
        text, error = extract_plan_text(response)
        if text is None:
            return Verdict.bad_format(error or "no answer")
        matches = tokenize(text, _TOKEN)
        if not matches:
            return Verdict.bad_format(f"could not read {text[:60]!r} as moves like A->C")
        plan = [(PEG_NAMES.index(m[1].upper()), PEG_NAMES.index(m[2].upper())) for m in matches]
        if any(a >= meta["pegs"] or b >= meta["pegs"] for a, b in plan):
            return Verdict.bad_format(f"a move names a peg other than {PEG_NAMES[: meta['pegs']]}")
        parsed = _format(plan)
        final, reason = apply_plan(tuple(meta["start"]), meta["moves"], plan)
        if final is None:
            return Verdict.wrong(reason, parsed=parsed)
        if list(final) != meta["goal"]:
            return Verdict.wrong("the moves do not reach the goal configuration", parsed=parsed)
        return grade_length(len(plan), meta["optimal_length"], parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        meta = task.metadata
        goal, moves = tuple(meta["goal"]), meta["moves"]
        result = bfs(tuple(meta["start"]), lambda s: s == goal, lambda s: successors(s, moves))
        response = None if result.plan is None else f"<answer>{_format(result.plan)}</answer>"
        return SolverRun(response=response, effort=float(result.expanded))

    def effort(self, task: Task) -> float:
        return float(task.metadata["search_nodes"])  # the generator's own BFS

    def solve_weak(self, task: Task) -> SolverRun:
        # greedy best-first: misplaced disks weighted by size, 300 expansions
        meta = task.metadata
        goal, moves = tuple(meta["goal"]), meta["moves"]

        def h(s: tuple[int, ...]) -> int:
            return sum(1 << d for d in range(len(s)) if s[d] != goal[d])

        result = greedy(
            tuple(meta["start"]), lambda s: s == goal, lambda s: successors(s, moves), h, budget=300
        )
        response = None if result.plan is None else f"<answer>{_format(result.plan)}</answer>"
        return SolverRun(response=response, effort=float(result.expanded))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        plan = [list(m) for m in task.metadata["solution"]]
        a, b = plan[-1]
        candidates = [
            plan[:-1],  # stops one move short
            plan + [[b, a], [a, b]] if [b, a] in task.metadata["moves"] else plan + [[a, b]],
            [[b, a]] + plan[1:],  # first move reversed
            plan[1:],  # first move dropped
            plan + [plan[-1]],
        ]
        responses = [f"<answer>{_format(c)}</answer>" if c else "<answer>none</answer>" for c in candidates]
        return [r for r in dict.fromkeys(responses) if not self.verify(task, r).correct]
