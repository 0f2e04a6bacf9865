"""Tower of Hanoi with rule variants and a BFS-proven optimal number of moves.

Variants: 3-5 pegs; a move rule (``standard``: any peg to any peg; ``adjacent``: only between
neighbouring pegs in a row; ``cyclic``: only one way round a ring, A->B->C->A; ``random``: a random
set of forbidden direct moves that keeps every peg reachable from every other); and a start/goal
that is either the classic whole tower from the first to the last peg or two random legal
configurations. The optimum is proven by breadth-first search over all ``pegs^disks``
configurations reachable from the start (the state space is small at every level), so any
optimal move sequence is accepted; the verifier replays it.

Speed (CPU time of one core, median, measured at load 16 on 2 cores): level 1 (a whole tower:
closed form) 0.06 ms, level 5 (7 disks, 3 pegs) 0.9 ms, level 10 (8 disks, 4 pegs: 65,536
configurations) 11 ms. A whole tower under the standard rule takes the closed form (2^n - 1;
Frame-Stewart on 4 pegs); every other instance one bidirectional search over integer states
that stops past the level's longest optimum and gives the plan from its parent links (on 3,000
configurations or more a whole layer at a time with numpy, with the same plan and node count).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.search import bfs, extract_plan_text, grade_length, greedy, tokenize
from palaestra.registry import Family, SolverRun, TaskDraft, family

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
                f"pegs={self.pegs} and disks={self.disks} make {self.pegs}^{self.disks} configurations, "
                "too many for the BFS proof (max 70000)"
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


# Generation needs the optimum and one optimal plan, nothing else. A whole tower under the
# standard rule has a closed form (3 pegs: the classic 2^n - 1 recursion; 4 pegs: Frame-Stewart,
# proven optimal by Bousch 2014). Every other instance is solved by one bidirectional breadth-first
# search over integer states (state[d] is digit d of the number in base ``pegs``) that stops where
# the two sides meet, or as soon as the optimum must be longer than the level allows; the plan is
# read from its parent links, so a kept instance costs no second search. Small spaces are searched
# one state at a time in plain Python, large ones a whole layer at a time with numpy; the two give
# the same plan and node count (tested), so the switch is a matter of speed only.


LAYERED_FROM_STATES = 3000  # numpy layers from this many configurations; one state at a time below


def tower_plan(disks: int, pegs: int, source: int, target: int) -> list[tuple[int, int]] | None:
    """The optimal plan moving a whole tower from ``source`` to ``target`` when any peg may
    move to any other: 2^n - 1 moves on 3 pegs, the Frame-Stewart plan on 4 pegs (optimal:
    Bousch 2014). ``None`` on 5 pegs, where Frame-Stewart is not proven optimal."""
    if pegs not in (3, 4):
        return None
    plan: list[tuple[int, int]] = []
    spares = [p for p in range(pegs) if p not in (source, target)]
    if pegs == 3:
        _three_pegs(disks, source, target, spares[0], plan)
    else:
        _frame_stewart(disks, source, target, spares[0], spares[1], plan)
    return plan


def _three_pegs(n: int, source: int, target: int, via: int, plan: list[tuple[int, int]]) -> None:
    if n:
        _three_pegs(n - 1, source, via, target, plan)
        plan.append((source, target))
        _three_pegs(n - 1, via, target, source, plan)


@functools.cache
def frame_stewart_split(n: int) -> tuple[int, int]:
    """(moves, k) of the 4-peg Frame-Stewart optimum for ``n`` disks: park the top ``k`` disks
    using 4 pegs, move the other ``n - k`` with 3, bring the ``k`` back (smallest such ``k``)."""
    if n <= 1:
        return n, 0
    return min((2 * frame_stewart_split(k)[0] + 2 ** (n - k) - 1, k) for k in range(1, n))


def _frame_stewart(n: int, source: int, target: int, a: int, b: int, plan: list[tuple[int, int]]) -> None:
    if n <= 1:
        if n:
            plan.append((source, target))
        return
    k = frame_stewart_split(n)[1]
    _frame_stewart(k, source, a, b, target, plan)
    _three_pegs(n - k, source, target, b, plan)
    _frame_stewart(k, a, target, b, source, plan)


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


def _encode(state: tuple[int, ...], pegs: int) -> int:
    return sum(peg * pegs**disk for disk, peg in enumerate(state))


def _move_between(before: int, after: int, pegs: int) -> tuple[int, int]:
    """The move ``(from, to)`` that turns integer state ``before`` into ``after``."""
    while before % pegs == after % pegs:  # the one digit (disk) that differs
        before, after = before // pegs, after // pegs
    return before % pegs, after % pegs


def _plan_through(
    parents: tuple[list[int], list[int]] | tuple[np.ndarray, np.ndarray], meet: int, pegs: int
) -> list[tuple[int, int]]:
    """The moves from the start to the goal through ``meet`` (a state both searches reached);
    a root is its own parent."""
    path = [meet]
    for side in (0, 1):
        while (parent := int(parents[side][path[-1]])) != path[-1]:
            path.append(parent)
        if side == 0:
            path.reverse()
    return [_move_between(a, b, pegs) for a, b in itertools.pairwise(path)]


def shortest_plan(
    disks: int, pegs: int, moves: list[list[int]], start: int, goal: int, max_length: int
) -> tuple[list[tuple[int, int]] | None, int]:
    """(an optimal plan, states expanded) from integer state ``start`` to ``goal``; the plan
    is ``None`` when the optimum is longer than ``max_length`` (or the goal is unreachable).

    Bidirectional breadth-first search: whole layers are expanded from the side with the
    smaller frontier until a new state of one side is already known to the other. Every earlier
    layer pair was disjoint, so that first meeting lies on an optimal path."""
    search = _search_layers if pegs**disks >= LAYERED_FROM_STATES else _search_states
    return search(disks, pegs, moves, start, goal, max_length)


def _search_states(
    disks: int, pegs: int, moves: list[list[int]], start: int, goal: int, max_length: int
) -> tuple[list[tuple[int, int]] | None, int]:
    """``shortest_plan`` one state at a time (plain Python: small spaces)."""
    if start == goal:
        return [], 0
    top = _top_disk_lists(disks, pegs)
    shifts = [[(b - a) * pegs**d for d in range(disks)] for a, b in moves]
    sides = ([(a, b, s) for (a, b), s in zip(moves, shifts, strict=True)],
             [(b, a, [-x for x in s]) for (a, b), s in zip(moves, shifts, strict=True)])  # fmt: skip
    parents: tuple[list[int], list[int]] = ([-1] * pegs**disks, [-1] * pegs**disks)
    parents[0][start], parents[1][goal] = start, goal
    frontiers, depth, expanded = [[start], [goal]], [0, 0], 0
    while frontiers[0] and frontiers[1]:
        if depth[0] + depth[1] >= max_length:
            return None, expanded
        grow = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
        mine, other, steps = parents[grow], parents[1 - grow], sides[grow]
        layer = []
        for state in frontiers[grow]:
            expanded += 1
            tops = top[state]
            for a, b, shift in steps:
                disk = tops[a]
                if disk < tops[b]:
                    nxt = state + shift[disk]
                    if mine[nxt] < 0:
                        mine[nxt] = state
                        if other[nxt] >= 0:
                            return _plan_through(parents, nxt, pegs), expanded
                        layer.append(nxt)
        frontiers[grow] = layer
        depth[grow] += 1
    return None, expanded


def _search_layers(
    disks: int, pegs: int, moves: list[list[int]], start: int, goal: int, max_length: int
) -> tuple[list[tuple[int, int]] | None, int]:
    """``shortest_plan`` a whole layer at a time with numpy (large spaces): a layer's
    successors are listed state by state, move by move, and each new state keeps its first
    appearance, exactly the order of ``_search_states``."""
    if start == goal:
        return [], 0
    top = _top_disks(disks, pegs)
    powers = np.array([pegs**d for d in range(disks)] + [0], dtype=np.int64)  # disk == disks: none
    src = np.array([a for a, _ in moves], dtype=np.int64)
    dst = np.array([b for _, b in moves], dtype=np.int64)
    shift = (dst - src)[:, None] * powers[None, :]
    sides = ((src, dst, shift), (dst, src, -shift))
    rows = np.arange(len(moves))[None, :]
    parents = (np.full(pegs**disks, -1, dtype=np.int64), np.full(pegs**disks, -1, dtype=np.int64))
    parents[0][start], parents[1][goal] = start, goal
    frontiers, depth, expanded = [np.array([start]), np.array([goal])], [0, 0], 0
    while frontiers[0].size and frontiers[1].size:
        if depth[0] + depth[1] >= max_length:
            return None, expanded
        grow = 0 if frontiers[0].size <= frontiers[1].size else 1
        frontier, (a, b, moved) = frontiers[grow], sides[grow]
        tops = top[frontier]
        disk = tops[:, a]
        candidates = (frontier[:, None] + moved[rows, disk]).ravel()
        fresh = (disk < tops[:, b]).ravel() & (parents[grow][candidates] < 0)
        positions = np.flatnonzero(fresh)
        _, first = np.unique(candidates[positions], return_index=True)
        order = positions[np.sort(first)]  # each new state's first appearance, in discovery order
        new = candidates[order]
        meets = np.flatnonzero(parents[1 - grow][new] >= 0)
        if meets.size:
            meet = order[meets[0]]
            parents[grow][candidates[meet]] = frontier[meet // len(moves)]
            expanded += int(meet // len(moves)) + 1
            return _plan_through(parents, int(candidates[meet]), pegs), expanded
        parents[grow][new] = frontier[order // len(moves)]
        expanded += frontier.size
        frontiers[grow] = new
        depth[grow] += 1
    return None, expanded


def apply_plan(
    state: tuple[int, ...], moves: list[list[int]], plan: list[tuple[int, int]]
) -> tuple[tuple[int, ...] | None, str]:
    """The state after ``plan`` (disk ``d`` on peg ``state[d]``, disk 0 the smallest), or
    ``None`` and the first illegal move. Each peg is kept as a stack, so a move costs O(1)."""
    allowed = {(a, b) for a, b in moves}
    stacks: dict[int, list[int]] = {}  # peg -> its disks, the largest first (the top is last)
    for disk in range(len(state) - 1, -1, -1):
        stacks.setdefault(state[disk], []).append(disk)
    position = list(state)
    for step, (a, b) in enumerate(plan, 1):
        if (a, b) not in allowed:
            return None, f"move {step} ({PEG_NAMES[a]}->{PEG_NAMES[b]}) is not an allowed direct move"
        source, target = stacks.get(a), stacks.setdefault(b, [])
        if not source:
            return None, f"move {step} ({PEG_NAMES[a]}->{PEG_NAMES[b]}): peg {PEG_NAMES[a]} is empty"
        if target and target[-1] < source[-1]:
            return None, f"move {step} ({PEG_NAMES[a]}->{PEG_NAMES[b]}) puts a larger disk on a smaller one"
        disk = source.pop()
        target.append(disk)
        position[disk] = b
    return tuple(position), ""


def canonical_hash(pegs: int, moves: list[list[int]], start: tuple[int, ...], goal: tuple[int, ...]) -> str:
    """Hash of the instance up to renaming the pegs: of the smallest (moves, start, goal) form
    under any renaming."""
    if len(moves) == pegs * (pegs - 1):
        form = _form_any_move_allowed(pegs, start, goal)
    else:
        form = min(_renamed_form(perm, moves, start, goal) for perm in itertools.permutations(range(pegs)))
    return content_hash({"pegs": pegs, "form": form})


def _renamed_form(
    perm: tuple[int, ...], moves: list[list[int]], start: tuple[int, ...], goal: tuple[int, ...]
):
    return (
        sorted([perm[a], perm[b]] for a, b in moves),
        [perm[p] for p in start],
        [perm[p] for p in goal],
    )


def _form_any_move_allowed(pegs: int, start: tuple[int, ...], goal: tuple[int, ...]):
    """The smallest form when every move is allowed (every renaming keeps the moves): pegs
    renamed in order of first appearance in start then goal, which minimises both lists."""
    names: dict[int, int] = {}
    for peg in (*start, *goal):
        names.setdefault(peg, len(names))
    identity = tuple(range(pegs))
    all_moves = [[a, b] for a in identity for b in identity if a != b]
    return (all_moves, [names[p] for p in start], [names[p] for p in goal])


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


def solution(task: Task) -> list[list[int]]:
    """The reference plan, read back from the task's answer (``[[from, to], ...]``)."""
    return [[PEG_NAMES.index(a), PEG_NAMES.index(b)] for a, b in _TOKEN.findall(task.answer)]


def _draft(
    n: int,
    pegs: int,
    rule: str,
    moves: list[list[int]],
    start: tuple[int, ...],
    goal: tuple[int, ...],
    plan: list[tuple[int, int]],
    expanded: int,
) -> TaskDraft:
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
            "search_nodes": expanded,
            "canonical_hash": canonical_hash(pegs, moves, start, goal),
        },
    )


@functools.lru_cache(maxsize=64)
def _whole_tower(n: int, pegs: int) -> tuple[str, str, dict]:
    """(prompt, answer, metadata) of the whole tower from the first peg to the last under the
    standard rule (3 or 4 pegs: the closed form, which writes each move once)."""
    plan = tower_plan(n, pegs, 0, pegs - 1)
    assert plan is not None
    moves = allowed_moves("standard", pegs)
    draft = _draft(n, pegs, "standard", moves, (0,) * n, (pegs - 1,) * n, plan, len(plan))
    return draft.prompt, draft.answer, draft.metadata


@family(
    "tower_of_hanoi",
    # v2: level 3 has 6 disks (5 disks repeated 2.1% of 2,000 tasks); v3: closed forms for whole
    # towers and one bidirectional search with its own plan (other optimal plans than v2's)
    version=3,
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
            if knobs.start == "tower" and rule == "standard" and pegs in (3, 4):
                # the closed form: the whole task depends on (disks, pegs) alone (and the
                # standard rule draws nothing, so skipping allowed_moves keeps the stream)
                prompt, answer, metadata = _whole_tower(n, pegs)
                if knobs.min_length <= metadata["optimal_length"] <= knobs.max_length:
                    return TaskDraft(prompt=prompt, answer=answer, metadata=dict(metadata))
                continue
            moves = allowed_moves(rule, pegs, rng)
            if knobs.start == "tower":
                start, goal = (0,) * n, (pegs - 1,) * n
            else:
                start = tuple(int(x) for x in rng.integers(0, pegs, n))
                goal = tuple(int(x) for x in rng.integers(0, pegs, n))
            start_id, goal_id = _encode(start, pegs), _encode(goal, pegs)
            found, expanded = shortest_plan(n, pegs, moves, start_id, goal_id, knobs.max_length)
            if found is None or not knobs.min_length <= len(found) <= knobs.max_length:
                continue
            return _draft(n, pegs, rule, moves, start, goal, found, expanded)
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
        plan = solution(task)
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
