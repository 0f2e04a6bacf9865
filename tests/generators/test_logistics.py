"""Tests of logistics: the A* optimum cross-checked by an independent BFS over the prompt's facts."""

from __future__ import annotations

import re
from collections import deque

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.registry import get, make_task, verify

FAMILY = get("logistics").impl


def _read_prompt(prompt: str):
    """Roads, truck locations, package (start, goal) read back from the prompt text (1-based)."""
    roads = {frozenset(map(int, m)) for m in re.findall(r"^\s+L(\d+) - L(\d+)$", prompt, re.M)}
    trucks = tuple(int(x) for x in re.findall(r"^\s+T\d+ is at L(\d+)$", prompt, re.M))
    packages = [tuple(map(int, m)) for m in re.findall(r"^\s+P\d+: L(\d+) -> L(\d+)$", prompt, re.M)]
    return roads, trucks, packages


def _moves(state, roads, k):
    """Every action from ``state`` = (truck locations, package places: ('at', L) or ('in', T))."""
    trucks, packages = state
    for t, here in enumerate(trucks):
        for road in roads:
            if here in road:
                (there,) = road - {here}
                yield f"drive T{t + 1} L{here} L{there}", (trucks[:t] + (there,) + trucks[t + 1 :], packages)
    for p, (kind, where) in enumerate(packages):
        if kind == "in":
            moved = packages[:p] + (("at", trucks[where]),) + packages[p + 1 :]
            yield f"unload P{p + 1} T{where + 1}", (trucks, moved)
        else:
            for t in range(k):
                if trucks[t] == where:
                    moved = packages[:p] + (("in", t),) + packages[p + 1 :]
                    yield f"load P{p + 1} T{t + 1}", (trucks, moved)


def _bfs(prompt: str) -> tuple[int, dict, tuple]:
    """Independent optimum: plain BFS over the state graph (no heuristic), plus the parents map."""
    roads, trucks, packages = _read_prompt(prompt)
    start = (trucks, tuple(("at", s) for s, _ in packages))
    goal = tuple(("at", g) for _, g in packages)
    parents = {start: None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if state[1] == goal:
            return _depth(parents, state), parents, state
        for move, nxt in _moves(state, roads, len(trucks)):
            if nxt not in parents:
                parents[nxt] = (state, move)
                queue.append(nxt)
    raise AssertionError("goal unreachable")


def _depth(parents, state) -> int:
    depth = 0
    while parents[state] is not None:
        state = parents[state][0]
        depth += 1
    return depth


def _plan(parents, state) -> list[str]:
    plan = []
    while parents[state] is not None:
        state, move = parents[state]
        plan.append(move)
    return plan[::-1]


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    locations=st.integers(3, 5),
    trucks=st.integers(1, 2),
    packages=st.integers(1, 3),
)
def test_optimum_matches_bfs(seed, locations, trucks, packages):
    task = make_task(
        "logistics",
        seed=seed,
        locations=locations,
        extra_roads=1,
        trucks=trucks,
        packages=packages,
        min_length=1,
    )
    optimum, parents, goal = _bfs(task.prompt)
    assert task.metadata["optimal_length"] == optimum
    # the independent BFS's own plan (built without the family's code) is accepted
    assert verify(task, "<answer>" + ", ".join(_plan(parents, goal)) + "</answer>").correct
    assert verify(task, FAMILY.reference_response(task)).correct
    assert verify(task, FAMILY.solve_exact(task).response).correct


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10**9), level=st.integers(3, 5))
def test_level_instances_match_bfs(seed, level):
    task = make_task("logistics", seed=seed, level=level)
    optimum, parents, goal = _bfs(task.prompt)
    assert task.metadata["optimal_length"] == optimum
    assert task.knobs["min_length"] <= optimum <= task.knobs["max_length"]
    assert verify(task, "<answer>" + ", ".join(_plan(parents, goal)) + "</answer>").correct


def test_other_optimal_plans_pass_and_greedy_is_beaten():
    distinct = 0
    for seed in range(6):
        task = make_task("logistics", seed=seed, level=4)
        _, parents, goal = _bfs(task.prompt)
        ours = ", ".join(_plan(parents, goal))
        assert verify(task, f"<answer>{ours}</answer>").correct
        distinct += ours != task.answer
        # level 4 keeps only instances where the weak greedy planner misses the optimum
        weak = FAMILY.solve_weak(task).response
        assert weak is None or not verify(task, weak).correct
    assert distinct >= 1


def test_wrong_answers_fail_with_reasons():
    task = make_task("logistics", seed=3, level=5)
    wrong = FAMILY.mutated_responses(task, np.random.default_rng(0))
    assert len(set(wrong)) >= 3
    for response in wrong:
        verdict = verify(task, response)
        assert not verdict.correct and verdict.error is None
    plan = task.answer.split(", ")
    roads, trucks, _ = _read_prompt(task.prompt)
    there = next(iter(next(r for r in roads if trucks[0] in r) - {trucks[0]}))
    detour = [f"drive T1 L{trucks[0]} L{there}", f"drive T1 L{there} L{trucks[0]}"]
    longer = verify(task, "<answer>" + ", ".join(detour + plan) + "</answer>")
    assert not longer.correct and "optimum" in longer.reason
    assert "not delivered" in verify(task, "<answer>" + ", ".join(plan[:-1]) + "</answer>").reason


def test_illegal_actions_are_refused():
    task = make_task("logistics", seed=1, level=3)
    roads, trucks, packages = _read_prompt(task.prompt)
    start, _ = packages[0]
    far = next(x for x in range(1, task.metadata["locations"] + 1) if frozenset((trucks[0], x)) not in roads)
    cases = {
        f"drive T1 L{trucks[0]} L{far}": "no road",  # no such road (or a drive to itself)
        f"drive T1 L{far} L{trucks[0]}": "is at",  # the truck is elsewhere
        "unload P1 T1": "not in",
    }
    if trucks[0] != start:
        cases["load P1 T1"] = "not lying"
    for answer, why in cases.items():
        verdict = verify(task, f"<answer>{answer}</answer>")
        assert not verdict.correct and why in verdict.reason, (answer, verdict.reason)


def test_format_edges():
    task = make_task("logistics", seed=2, level=2)
    plan = task.answer.split(", ")
    assert verify(task, "<answer>" + "\n".join(p.upper() for p in plan) + "</answer>").correct
    assert verify(task, "<answer>[" + "; ".join(plan) + "]</answer>").correct
    for bad in ("", "drive", "load P1", "load P1 T1 extra", "load P99 T1", "drive T1 L1 L999999999999"):
        verdict = verify(task, f"<answer>{bad}</answer>")
        assert verdict.format_ok is False, (bad, verdict)
    assert verify(task, "<answer>" + ", ".join(plan) + " and done</answer>").format_ok is False
