"""Shared search and answer-parsing helpers for the planning puzzles (hanoi, river crossing, ...).

Every planning family proves its optimum with one of these searches and grades a submitted plan
by simulating it. States are hashable values built from ints and tuples only (never strings in
sets), so iteration order and therefore every result is identical in every process.
"""

from __future__ import annotations

import heapq
import re
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from palaestra.core import Verdict
from palaestra.verifiers.extract import extract_answer

MAX_PLAN_STEPS = 5000  # a plan longer than this is rejected unread (bounded verifier time)

Successors = Callable[[Any], Iterable[tuple[Any, Any]]]  # state -> (move, next state) pairs


@dataclass(frozen=True)
class SearchResult:
    """A plan (list of moves, ``None`` if none found) and the number of expanded nodes."""

    plan: list[Any] | None
    expanded: int


def _walk_back(parents: dict[Hashable, tuple[Hashable, Any] | None], state: Hashable) -> list[Any]:
    plan = []
    while parents[state] is not None:
        state, move = parents[state]  # type: ignore[misc]
        plan.append(move)
    plan.reverse()
    return plan


def bfs(start: Hashable, is_goal: Callable[[Any], bool], successors: Successors) -> SearchResult:
    """Breadth-first search: the returned plan has the fewest moves (unit costs)."""
    parents: dict[Hashable, tuple[Hashable, Any] | None] = {start: None}
    if is_goal(start):
        return SearchResult([], 0)
    queue = deque([start])
    expanded = 0
    while queue:
        state = queue.popleft()
        expanded += 1
        for move, nxt in successors(state):
            if nxt in parents:
                continue
            parents[nxt] = (state, move)
            if is_goal(nxt):
                return SearchResult(_walk_back(parents, nxt), expanded)
            queue.append(nxt)
    return SearchResult(None, expanded)


def bfs_distance(
    start: Hashable,
    goal: Hashable,
    successors: Successors,
    predecessors: Successors,
    max_distance: int | None = None,
) -> int | None:
    """The fewest moves from ``start`` to ``goal`` (``None`` if unreachable, or longer than
    ``max_distance``), by bidirectional breadth-first search: whole layers are expanded from the
    smaller side until the two searches meet. Far fewer states than ``bfs`` when only the length
    is needed (e.g. to reject an instance whose optimum is out of range before paying for the plan)."""
    if start == goal:
        return 0
    sides = [({start: 0}, [start], successors), ({goal: 0}, [goal], predecessors)]
    depth = [0, 0]
    while sides[0][1] and sides[1][1]:
        # Not met yet: every state within depth[0] of the start and depth[1] of the goal is
        # seen, so a path of length <= depth[0] + depth[1] would have a state on both sides.
        if max_distance is not None and depth[0] + depth[1] >= max_distance:
            return None
        grow = 0 if len(sides[0][1]) <= len(sides[1][1]) else 1
        seen, frontier, step = sides[grow]
        other = sides[1 - grow][0]
        layer = []
        for state in frontier:
            for _, nxt in step(state):
                if nxt in seen:
                    continue
                if nxt in other:  # the first meeting: every layer before was disjoint, so optimal
                    return depth[grow] + 1 + other[nxt]
                seen[nxt] = depth[grow] + 1
                layer.append(nxt)
        depth[grow] += 1
        sides[grow] = (seen, layer, step)
    return None


def bfs_layers(
    start: Hashable, successors: Successors
) -> tuple[dict[Hashable, int], dict[Hashable, tuple[Hashable, Any] | None]]:
    """Full breadth-first search from ``start``: the distance and BFS parent of every reachable state."""
    parents: dict[Hashable, tuple[Hashable, Any] | None] = {start: None}
    dist = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        for move, nxt in successors(state):
            if nxt not in dist:
                dist[nxt] = dist[state] + 1
                parents[nxt] = (state, move)
                queue.append(nxt)
    return dist, parents


def path_to(parents: dict[Hashable, tuple[Hashable, Any] | None], state: Hashable) -> list[Any]:
    """The moves from the search root to ``state`` in a parents map."""
    return _walk_back(parents, state)


def astar(
    start: Hashable,
    is_goal: Callable[[Any], bool],
    successors: Successors,
    heuristic: Callable[[Any], int],
    budget: int | None = None,
    max_cost: int | None = None,
) -> SearchResult:
    """A* with unit move costs; optimal when ``heuristic`` is consistent.

    With ``budget`` it gives up (plan ``None``) after that many expansions. With ``max_cost``
    it stops (plan ``None``) at the first state whose cost bound ``g + h`` exceeds it: with a
    consistent heuristic the bounds come off the heap in rising order, so no plan of at most
    ``max_cost`` moves exists (a plan within it is found exactly as without the limit).
    """
    best_g: dict[Hashable, int] = {start: 0}
    parents: dict[Hashable, tuple[Hashable, Any] | None] = {start: None}
    counter = 0  # FIFO tie-break keeps the order deterministic without comparing states
    heap: list[tuple[int, int, int, Any]] = [(heuristic(start), 0, counter, start)]
    closed: set[Hashable] = set()
    expanded = 0
    while heap:
        f, negative_g, _, state = heapq.heappop(heap)
        if state in closed:
            continue
        if max_cost is not None and f > max_cost:
            return SearchResult(None, expanded)
        if is_goal(state):
            return SearchResult(_walk_back(parents, state), expanded)
        closed.add(state)
        expanded += 1
        if budget is not None and expanded > budget:
            return SearchResult(None, expanded)
        g = best_g[state] + 1
        for move, nxt in successors(state):
            if nxt in closed or best_g.get(nxt, g + 1) <= g:
                continue
            best_g[nxt] = g
            parents[nxt] = (state, move)
            counter += 1
            # ties on f go to the deeper node: fewer expansions, still optimal
            heapq.heappush(heap, (g + heuristic(nxt), -g, counter, nxt))
    return SearchResult(None, expanded)


def greedy(
    start: Hashable,
    is_goal: Callable[[Any], bool],
    successors: Successors,
    heuristic: Callable[[Any], int],
    budget: int,
) -> SearchResult:
    """Greedy best-first search on ``heuristic`` alone: fast, not optimal, gives up after ``budget``."""
    parents: dict[Hashable, tuple[Hashable, Any] | None] = {start: None}
    counter = 0
    heap: list[tuple[int, int, Any]] = [(heuristic(start), counter, start)]
    expanded = 0
    while heap and expanded < budget:
        _, _, state = heapq.heappop(heap)
        if is_goal(state):
            return SearchResult(_walk_back(parents, state), expanded)
        expanded += 1
        for move, nxt in successors(state):
            if nxt in parents:
                continue
            parents[nxt] = (state, move)
            counter += 1
            heapq.heappush(heap, (heuristic(nxt), counter, nxt))
    return SearchResult(None, expanded)


# --------------------------------------------------------------------------------------------
# Answers
# --------------------------------------------------------------------------------------------


def extract_plan_text(response: str) -> tuple[str | None, str | None]:
    """The answer text of a plan response, or (None, why) when no answer can be taken."""
    extraction = extract_answer(response, allow_bare=True)
    if not extraction.ok or extraction.text is None:
        return None, extraction.error or "no answer"
    text = extraction.text.strip()
    # a list written as [ ... ] or ( ... ) around the whole plan is still the plan
    if len(text) >= 2 and text[0] + text[-1] in ("[]", "{}"):
        text = text[1:-1].strip()
    return text, None


def tokenize(text: str, token: re.Pattern[str], separators: str = r"[\s,;]+") -> list[re.Match[str]] | None:
    """Split ``text`` into ``token`` matches separated by ``separators``; None if anything else is left.

    Linear time: one left-to-right scan with anchored matches, no backtracking over the whole text.
    """
    sep = re.compile(separators)
    matches = []
    pos = 0
    if m := sep.match(text, pos):
        pos = m.end()
    while pos < len(text):
        m = token.match(text, pos)
        if m is None or m.end() == pos:
            return None
        matches.append(m)
        if len(matches) > MAX_PLAN_STEPS:
            return None
        pos = m.end()
        if pos < len(text):
            s = sep.match(text, pos)
            if s is None or s.end() == pos:
                return None
            pos = s.end()
    return matches


def grade_length(length: int, optimum: int, parsed: Any, unit: str = "moves") -> Verdict:
    """The verdict for a legal plan that reaches the goal in ``length`` steps."""
    if length == optimum:
        return Verdict.right(parsed=parsed)
    if length > optimum:
        return Verdict.wrong(
            f"the plan is legal but uses {length} {unit}; the proven optimum is {optimum}", parsed=parsed
        )
    # a legal plan shorter than the proven optimum means the generator's proof is wrong
    return Verdict.failure(f"a legal plan of {length} {unit} beats the recorded optimum {optimum}")
