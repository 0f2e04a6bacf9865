"""Tests of blocks_world: A* optimum cross-checked by plain BFS over stack lists."""

from __future__ import annotations

from collections import deque

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import make_rng
from palaestra.generators.puzzles.blocks_world import (
    NAMES,
    TABLE,
    canonical_hash,
    misplaced,
    random_state,
    solve,
    successors,
    to_supports,
)
from palaestra.registry import get, make_task, verify

FAMILY = get("blocks_world").impl


def _stacks(meta, key):
    return frozenset(tuple(NAMES.index(c) for c in s) for s in meta[key])


def _bfs_optimum(meta) -> int:
    """Independent optimum: BFS over sets of stacks."""
    start, goal = _stacks(meta, "start"), _stacks(meta, "goal")
    dist = {start: 0}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        if s == goal:
            return dist[s]
        stacks = list(s)
        for i, src in enumerate(stacks):
            rest = stacks[:i] + stacks[i + 1 :]
            top, remain = src[-1], src[:-1]
            options = []
            if remain:
                options.append(rest + [remain, (top,)])
            for j, dst in enumerate(rest):
                moved = rest[:j] + [dst + (top,)] + rest[j + 1 :]
                options.append(moved + ([remain] if remain else []))
            for option in options:
                key = frozenset(option)
                if key not in dist:
                    dist[key] = dist[s] + 1
                    queue.append(key)
    raise AssertionError("unreachable")


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**9), blocks=st.integers(2, 6))
def test_optimum_matches_bfs(seed, blocks):
    task = make_task("blocks_world", seed=seed, blocks=blocks, min_length=1, max_length=12)
    assert task.metadata["optimal_length"] == _bfs_optimum(task.metadata)
    assert verify(task, FAMILY.reference_response(task)).correct
    assert verify(task, FAMILY.solve_exact(task).response).correct


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10**9), level=st.integers(3, 4))
def test_level_instances_match_bfs(seed, level):
    task = make_task("blocks_world", seed=seed, level=level)
    assert task.metadata["optimal_length"] == _bfs_optimum(task.metadata)
    assert task.knobs["min_length"] <= task.metadata["optimal_length"] <= task.knobs["max_length"]


def _optimal_plans(meta):
    n = meta["blocks"]
    start = to_supports(tuple(sorted(_stacks(meta, "start"))), n)
    goal = to_supports(tuple(sorted(_stacks(meta, "goal"))), n)
    dist = {goal: 0}  # moves are reversible: BFS from the goal gives distance-to-goal
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        for _, nxt in successors(s):
            if nxt not in dist:
                dist[nxt] = dist[s] + 1
                queue.append(nxt)
    plans = []
    for pick in (0, -1):
        s, plan = start, []
        while s != goal:
            move, s = [(m, x) for m, x in successors(s) if dist[x] == dist[s] - 1][pick]
            plan.append(f"{NAMES[move[0]]}->{'table' if move[1] < 0 else NAMES[move[1]]}")
        plans.append(plan)
    return plans


def test_several_optimal_plans_pass():
    found = 0
    for seed in range(10):
        task = make_task("blocks_world", seed=seed, level=3)
        first, last = _optimal_plans(task.metadata)
        if first != last:
            for plan in (first, last):
                assert verify(task, "<answer>" + ", ".join(plan) + "</answer>").correct
            found += 1
    assert found >= 2


def test_wrong_answers_fail_with_reasons():
    task = make_task("blocks_world", seed=3, level=4)
    wrong = FAMILY.mutated_responses(task, np.random.default_rng(0))
    assert len(set(wrong)) >= 3
    for response in wrong:
        verdict = verify(task, response)
        assert not verdict.correct and verdict.error is None
    meta = task.metadata
    plan = task.answer.split(", ")
    assert (
        "optimum"
        in verify(
            task,
            "<answer>" + ", ".join(plan + [plan[-1].split("->")[0] + "->table"] + [plan[-1]]) + "</answer>",
        ).reason
    )
    bottom = [s for s in meta["start"] if len(s) > 1][0][0]
    assert "on top" in verify(task, f"<answer>{bottom}->table</answer>").reason
    single = [s for s in meta["start"] if len(s) == 1]
    if single:
        assert "already on the table" in verify(task, f"<answer>{single[0]}->table</answer>").reason


def test_format_variants_and_bad_formats():
    task = make_task("blocks_world", seed=1, level=2)
    plan = task.answer.split(", ")
    for response in (
        f"\\boxed{{{task.answer}}}",
        f"Final answer: {task.answer}",
        "<answer>" + "\n".join(p.replace("->", " onto ") for p in plan) + "</answer>",
        "<answer>"
        + "; ".join(p.replace("->", " -> ").replace("table", "Table").lower() for p in plan)
        + "</answer>",
        "<answer>[" + ", ".join(p.replace("->", " to ") for p in plan) + "]</answer>",
    ):
        assert verify(task, response).correct, response
    for response in ("<answer>A B</answer>", "<answer>A->Z</answer>", "<answer>pick up A</answer>"):
        verdict = verify(task, response)
        assert not verdict.correct and not verdict.format_ok, response


def test_canonical_hash_is_invariant_under_renaming():
    task = make_task("blocks_world", seed=4, level=3)
    meta = task.metadata
    n = meta["blocks"]
    perm = list(np.random.default_rng(1).permutation(n))

    def renamed(key):
        stacks = [tuple(int(perm[NAMES.index(c)]) for c in s) for s in meta[key]]
        return to_supports(tuple(sorted(stacks)), n)

    assert canonical_hash(renamed("start"), renamed("goal")) == meta["canonical_hash"]
    other = make_task("blocks_world", seed=5, level=3).metadata["canonical_hash"]
    assert other != meta["canonical_hash"]


def test_weak_solver_falls_off():
    def rate(level):
        tasks = [make_task("blocks_world", seed=s, level=level) for s in range(12)]
        runs = [FAMILY.solve_weak(t) for t in tasks]
        return sum(
            r.response is not None and verify(t, r.response).correct for t, r in zip(tasks, runs, strict=True)
        )

    assert rate(1) > rate(7)


def _misplaced_by_definition(state, goal) -> int:
    """A block is well placed when on its goal support and that support is well placed."""

    def well(b: int) -> bool:
        return state[b] == goal[b] and (state[b] == TABLE or well(state[b]))

    return sum(not well(b) for b in range(len(state)))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), blocks=st.integers(1, 12))
def test_misplaced_matches_its_definition(seed, blocks):
    rng = make_rng("blocks-misplaced", seed, 0)
    start, goal = random_state(blocks, rng), random_state(blocks, rng)
    for state in [start, goal] + [s for _, s in successors(start)]:
        assert misplaced(state, goal) == _misplaced_by_definition(state, goal)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), blocks=st.integers(3, 8), limit=st.integers(0, 10))
def test_a_cost_limit_finds_the_same_plan_or_proves_none_fits(seed, blocks, limit):
    # A* stopping at the first bound above the limit must not change a plan within the limit
    rng = make_rng("blocks-limit", seed, 0)
    start, goal = random_state(blocks, rng), random_state(blocks, rng)
    full = solve(start, goal)
    limited = solve(start, goal, max_length=limit)
    if len(full.plan) <= limit:
        assert (limited.plan, limited.expanded) == (full.plan, full.expanded)
    else:
        assert limited.plan is None and limited.expanded <= full.expanded


def test_expansion_budget_redraws_and_keeps_the_optimum(monkeypatch):
    import palaestra.generators.puzzles.blocks_world as bw

    plain = make_task("blocks_world", seed=34, level=10)  # its draw needs ~8,500 expansions
    monkeypatch.setattr(bw, "EXPANSIONS", 2_000)
    task = make_task("blocks_world", seed=34, level=10)
    assert make_task("blocks_world", seed=34, level=10).id == task.id != plain.id
    assert task.metadata["search_nodes"] <= 2_000
    start, goal = bw._state(task.metadata, "start"), bw._state(task.metadata, "goal")
    assert len(solve(start, goal).plan) == task.metadata["optimal_length"]
