"""Tests of river_crossing: BFS optimum cross-checked by an independent set-based search."""

from __future__ import annotations

from collections import deque
from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.puzzles.river_crossing import _rules, canonical_hash
from palaestra.registry import get, make_task, verify

FAMILY = get("river_crossing").impl


def _independent_optimum(meta) -> int:
    """BFS over explicit banks (frozensets of names), written without the family's bitmasks."""
    names, rowers = meta["names"], set(meta["names"][: meta["rowers"]])
    weight = dict(zip(names, meta["weights"], strict=True))
    pairs = [(names[a], names[b]) for a, b in meta["conflicts"]]

    def ok(bank):
        return bool(bank & rowers) or not any(a in bank and b in bank for a, b in pairs)

    def state(banks, boat):
        return frozenset(n for n, side in zip(names, banks, strict=True) if side == 1), boat

    start, goal = state(meta["start"], meta["boat"][0]), state(meta["goal"], meta["boat"][1])
    everyone = frozenset(names)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        right, boat = queue.popleft()
        if (right, boat) == goal:
            return dist[(right, boat)]
        here = sorted(right if boat == 1 else everyone - right)
        for k in range(1, meta["capacity"] + 1):
            for group in combinations(here, k):
                group = frozenset(group)
                if not group & rowers or sum(weight[n] for n in group) > meta["capacity"]:
                    continue
                new_right = right - group if boat == 1 else right | group
                if ok(new_right) and ok(everyone - new_right) and (new_right, 1 - boat) not in dist:
                    dist[(new_right, 1 - boat)] = dist[(right, boat)] + 1
                    queue.append((new_right, 1 - boat))
    raise AssertionError("goal unreachable")


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**9), level=st.integers(1, 6))
def test_optimum_matches_independent_search(seed, level):
    task = make_task("river_crossing", seed=seed, level=level)
    assert task.metadata["optimal_length"] == _independent_optimum(task.metadata)
    assert task.metadata["optimal_length"] >= task.knobs["min_length"]
    assert verify(task, FAMILY.reference_response(task)).correct
    assert verify(task, FAMILY.solve_exact(task).response).correct


def test_classic_wolf_goat_cabbage():
    # one rower, 3 items, a path of two conflicts, one seat besides the rower: 7 crossings
    task = make_task("river_crossing", seed=0, items=4, rowers=1, conflicts=2, capacity=2, layout="classic")
    meta = task.metadata
    if meta["conflicts"] in ([[1, 2], [1, 3]], [[1, 2], [2, 3]], [[1, 3], [2, 3]]):
        assert meta["optimal_length"] == 7
    assert meta["optimal_length"] == _independent_optimum(meta)


def _distinct_optimal_plans(meta):
    rules = _rules(meta)
    start = (meta["boat"][0], sum(1 << i for i, b in enumerate(meta["start"]) if b))
    goal = (meta["boat"][1], sum(1 << i for i, b in enumerate(meta["goal"]) if b))
    dist = {goal: 0}  # crossings are reversible, so BFS from the goal gives distance-to-goal
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        for _, nxt in rules.successors(s):
            if nxt not in dist:
                dist[nxt] = dist[s] + 1
                queue.append(nxt)
    plans = []
    for pick in (0, -1):
        s, plan = start, []
        while s != goal:
            options = [(load, n) for load, n in rules.successors(s) if dist.get(n) == dist[s] - 1]
            load, s = options[pick]
            plan.append("+".join(meta["names"][i] for i in range(meta["items"]) if load >> i & 1))
        plans.append(plan)
    return plans


def test_several_optimal_plans_pass():
    found = 0
    for seed in range(10):
        task = make_task("river_crossing", seed=seed, level=4)
        first, last = _distinct_optimal_plans(task.metadata)
        if first != last:
            for plan in (first, last):
                assert verify(task, "<answer>" + "; ".join(plan) + "</answer>").correct
            found += 1
    assert found >= 2


def test_wrong_answers_fail_with_reasons():
    task = make_task("river_crossing", seed=1, level=3)
    wrong = FAMILY.mutated_responses(task, np.random.default_rng(0))
    assert len(set(wrong)) >= 3
    for response in wrong:
        verdict = verify(task, response)
        assert not verdict.correct and verdict.error is None
    meta = task.metadata
    plan = meta["solution"].split("; ")
    rower = meta["names"][0]
    non_rowers = meta["names"][meta["rowers"] :]
    too_long = verify(task, "<answer>" + "; ".join(plan + [plan[-1], plan[-1]]) + "</answer>")
    assert not too_long.correct and "optimum" in too_long.reason
    assert "not one of" in verify(task, "<answer>dragon</answer>").reason
    assert not verify(task, f"<answer>{rower}+{rower}</answer>").format_ok
    # a non-rower alone in the boat: either not on the boat's bank or nobody rows
    alone = verify(task, f"<answer>{non_rowers[0]}</answer>")
    assert not alone.correct and ("row" in alone.reason or "bank" in alone.reason)


def test_format_variants():
    task = make_task("river_crossing", seed=2, level=1)
    plan = task.metadata["solution"].split("; ")
    for response in (
        f"\\boxed{{{task.answer}}}",
        f"Answer: {task.answer}",
        "<answer>" + "\n".join(plan) + "</answer>",
        "<answer>" + " | ".join(p.replace("+", " and ") for p in plan) + "</answer>",
        "<answer>" + "; ".join("+".join(reversed(p.split("+"))).upper() for p in plan) + "</answer>",
        "<answer>" + "; ".join(p.replace("+", ", ") for p in plan) + ".</answer>",
    ):
        assert verify(task, response).correct, response


def test_weak_solver_falls_off():
    def rate(level):
        tasks = [make_task("river_crossing", seed=s, level=level) for s in range(12)]
        runs = [FAMILY.solve_weak(t) for t in tasks]
        return sum(
            r.response is not None and verify(t, r.response).correct for t, r in zip(tasks, runs, strict=True)
        )

    assert rate(1) > rate(8)


def test_canonical_hash_ignores_names():
    a = make_task("river_crossing", seed=5, level=3)
    b = make_task("river_crossing", seed=6, level=3)
    assert a.metadata["canonical_hash"] != b.metadata["canonical_hash"]
    meta = dict(a.metadata)
    n, r = meta["items"], meta["rowers"]
    perm = list(range(r)) + list(range(r, n))[::-1]  # rename the non-rowers in reverse order
    where = {old: new for new, old in enumerate(perm)}
    renamed = {
        **meta,
        "weights": [meta["weights"][old] for old in perm],
        "start": [meta["start"][old] for old in perm],
        "goal": [meta["goal"][old] for old in perm],
        "conflicts": sorted(sorted([where[x], where[y]]) for x, y in meta["conflicts"]),
    }
    assert canonical_hash(renamed) == meta["canonical_hash"]
    renamed["names"] = [meta["names"][old] for old in perm]
    assert _independent_optimum(renamed) == meta["optimal_length"]
