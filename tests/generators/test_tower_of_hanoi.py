"""Tests of tower_of_hanoi: BFS optimum against known formulas and an independent search."""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.puzzles import tower_of_hanoi as hanoi
from palaestra.generators.puzzles.tower_of_hanoi import PEG_NAMES, canonical_hash, successors
from palaestra.generators.shared.search import bfs_distance
from palaestra.registry import get, make_task, verify

FAMILY = get("tower_of_hanoi").impl


def _stacks_bfs(meta) -> int:
    """Independent optimum: BFS over explicit peg stacks (lists of disks, bottom first)."""
    pegs, allowed = meta["pegs"], {tuple(m) for m in meta["moves"]}

    def stacks(config):
        out = [[] for _ in range(pegs)]
        for disk in range(len(config) - 1, -1, -1):
            out[config[disk]].append(disk)
        return tuple(tuple(s) for s in out)

    start, goal = stacks(meta["start"]), stacks(meta["goal"])
    dist = {start: 0}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        if s == goal:
            return dist[s]
        for a, b in allowed:
            if s[a] and (not s[b] or s[b][-1] > s[a][-1]):
                nxt = [list(x) for x in s]
                nxt[b].append(nxt[a].pop())
                key = tuple(tuple(x) for x in nxt)
                if key not in dist:
                    dist[key] = dist[s] + 1
                    queue.append(key)
    raise AssertionError("unreachable goal")


@pytest.mark.parametrize(
    "disks,pegs,rule,expected",
    [(n, 3, "standard", 2**n - 1) for n in (1, 3, 5, 7)]
    + [(n, 3, "adjacent", 3**n - 1) for n in (1, 3, 5)]
    + [(n, 4, "standard", f) for n, f in zip(range(1, 9), (1, 3, 5, 9, 13, 17, 25, 33), strict=True)],
)
def test_classic_towers_match_formulas(disks, pegs, rule, expected):
    # 2^n - 1, 3^n - 1 (adjacent pegs) and the Frame-Stewart numbers (4 pegs, Bousch 2014)
    task = make_task("tower_of_hanoi", seed=0, disks=disks, pegs=pegs, rule=rule, start="tower")
    assert task.metadata["optimal_length"] == expected
    assert verify(task, FAMILY.reference_response(task)).correct


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    disks=st.integers(1, 5),
    pegs=st.integers(3, 4),
    rule=st.sampled_from(["standard", "adjacent", "cyclic", "random"]),
)
def test_random_instances_match_independent_bfs(seed, disks, pegs, rule):
    task = make_task("tower_of_hanoi", seed=seed, disks=disks, pegs=pegs, rule=rule, start="random")
    assert task.metadata["optimal_length"] == _stacks_bfs(task.metadata)
    assert verify(task, FAMILY.reference_response(task)).correct
    assert verify(task, FAMILY.solve_exact(task).response).correct


def _optimal_paths(meta, count=2):
    """Distinct optimal plans, found by walking down distance-to-goal values."""
    goal, start = tuple(meta["goal"]), tuple(meta["start"])
    reverse = [[b, a] for a, b in meta["moves"]]
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        for _, nxt in successors(s, reverse):
            if nxt not in dist:
                dist[nxt] = dist[s] + 1
                queue.append(nxt)
    plans = []
    for pick in (0, -1):
        s, plan = start, []
        while s != goal:
            options = [(m, n) for m, n in successors(s, meta["moves"]) if dist.get(n) == dist[s] - 1]
            move, s = options[pick]
            plan.append(move)
        plans.append(plan)
    return plans


def test_several_optimal_plans_pass():
    task = make_task("tower_of_hanoi", seed=0, disks=5, pegs=4, rule="standard", start="tower")
    plans = _optimal_paths(task.metadata)
    assert plans[0] != plans[1]
    for plan in plans:
        text = " ".join(f"{PEG_NAMES[a]}->{PEG_NAMES[b]}" for a, b in plan)
        assert verify(task, f"<answer>{text}</answer>").correct


def test_wrong_answers_fail_with_reasons():
    task = make_task("tower_of_hanoi", seed=4, level=4)
    wrong = FAMILY.mutated_responses(task, np.random.default_rng(0))
    assert len(set(wrong)) >= 3
    for response in wrong:
        verdict = verify(task, response)
        assert not verdict.correct and verdict.error is None
    meta = task.metadata
    forbidden = [
        [a, b]
        for a in range(meta["pegs"])
        for b in range(meta["pegs"])
        if a != b and [a, b] not in meta["moves"]
    ]
    classic = make_task("tower_of_hanoi", seed=0, level=1)
    assert "larger disk" in verify(classic, "<answer>A->C, A->C</answer>").reason
    assert "empty" in verify(classic, "<answer>B->C</answer>").reason
    if forbidden:
        a, b = forbidden[0]
        assert "not an allowed" in verify(task, f"<answer>{PEG_NAMES[a]}->{PEG_NAMES[b]}</answer>").reason


def test_format_variants_and_bad_formats():
    task = make_task("tower_of_hanoi", seed=0, level=1)
    plan = hanoi.solution(task)
    for sep, arrow in ((", ", "->"), (" ", " -> "), ("; ", "→"), ("\n", " to "), (" ", ">")):
        text = sep.join(f"{PEG_NAMES[a]}{arrow}{PEG_NAMES[b]}" for a, b in plan)
        assert verify(task, f"<answer>{text}</answer>").correct, text
    assert verify(task, f"\\boxed{{{task.answer.lower()}}}").correct
    assert verify(task, f"Answer: [{task.answer}]").correct
    for response in ("<answer>A->D</answer>", "<answer>move disk 1</answer>", "<answer>AC</answer>"):
        verdict = verify(task, response)
        assert not verdict.correct and not verdict.format_ok, response


def test_canonical_hash_ignores_peg_names():
    moves = [[0, 1], [1, 2], [2, 0]]
    renamed = [[1, 0], [0, 2], [2, 1]]  # swap pegs 0 and 1
    assert canonical_hash(3, moves, (0, 0, 2), (2, 1, 1)) == canonical_hash(3, renamed, (1, 1, 2), (2, 0, 0))
    assert canonical_hash(3, moves, (0, 0, 2), (2, 1, 1)) != canonical_hash(3, moves, (0, 0, 2), (2, 1, 0))


def test_weak_solver_falls_off_and_knob_checks():
    def rate(level):
        tasks = [make_task("tower_of_hanoi", seed=s, level=level) for s in range(10)]
        runs = [FAMILY.solve_weak(t) for t in tasks]
        return sum(
            r.response is not None and verify(t, r.response).correct for t, r in zip(tasks, runs, strict=True)
        )

    assert rate(1) > rate(6)
    with pytest.raises(ValueError):
        make_task("tower_of_hanoi", seed=0, disks=9, pegs=5)


@settings(max_examples=40, deadline=None)
@given(
    disks=st.integers(1, 6),
    pegs=st.integers(3, 4),
    rule=st.sampled_from(hanoi.RULES),
    seed=st.integers(0, 2**32 - 1),
    max_length=st.integers(1, 80),
)
def test_one_search_gives_an_optimal_plan_whatever_its_mode(disks, pegs, rule, seed, max_length) -> None:
    """The bidirectional search's plan is optimal (length of an independent tuple-state search,
    replayed to the goal), None past ``max_length``, and the numpy layers give exactly the plan
    and node count of the one-state-at-a-time search (the switch between them is speed only)."""
    rng = np.random.default_rng(seed)
    moves = hanoi.allowed_moves(rule, pegs, rng)
    backward = [[b, a] for a, b in moves]
    start = tuple(int(x) for x in rng.integers(0, pegs, disks))
    goal = tuple(int(x) for x in rng.integers(0, pegs, disks))
    args = (disks, pegs, moves, hanoi._encode(start, pegs), hanoi._encode(goal, pegs), max_length)
    plan, expanded = hanoi._search_states(*args)
    assert hanoi._search_layers(*args) == (plan, expanded)
    step = lambda s: hanoi.successors(s, moves)  # noqa: E731 - the tuple-state reference
    expected = bfs_distance(start, goal, step, lambda s: hanoi.successors(s, backward), max_length)
    assert (None if plan is None else len(plan)) == expected
    if plan is not None:
        assert hanoi.apply_plan(start, moves, plan) == (goal, "")


@pytest.mark.parametrize("pegs", [3, 4])
@pytest.mark.parametrize("disks", range(1, 8))
def test_closed_form_towers_are_optimal(disks, pegs) -> None:
    moves = hanoi.allowed_moves("standard", pegs)
    for source, target in [(0, pegs - 1), (2, 1)]:
        start, goal = (source,) * disks, (target,) * disks
        plan = hanoi.tower_plan(disks, pegs, source, target)
        assert hanoi.apply_plan(start, moves, plan) == (goal, "")
        assert len(plan) == _stacks_bfs({"pegs": pegs, "moves": moves, "start": start, "goal": goal})
    assert hanoi.tower_plan(disks, 5, 0, 4) is None  # Frame-Stewart is not proven optimal there


@settings(max_examples=60, deadline=None)
@given(
    pegs=st.integers(3, 5),
    start=st.lists(st.integers(0, 4), min_size=1, max_size=7),
    goal_seed=st.integers(0, 2**32 - 1),
)
def test_canonical_hash_shortcut_equals_the_search_over_renamings(pegs, start, goal_seed) -> None:
    start = tuple(p % pegs for p in start)
    goal = tuple(int(x) for x in np.random.default_rng(goal_seed).integers(0, pegs, len(start)))
    moves = hanoi.allowed_moves("standard", pegs)
    searched = min(
        hanoi._renamed_form(perm, moves, start, goal) for perm in itertools.permutations(range(pegs))
    )
    assert hanoi._form_any_move_allowed(pegs, start, goal) == searched


def _apply_plan_by_scanning(state, moves, plan):
    """apply_plan as it was (each move scans every disk), the oracle of the stack version."""
    allowed = {(a, b) for a, b in moves}
    for step, (a, b) in enumerate(plan, 1):
        name = f"{hanoi.PEG_NAMES[a]}->{hanoi.PEG_NAMES[b]}"
        if (a, b) not in allowed:
            return None, f"move {step} ({name}) is not an allowed direct move"
        disks_a = [d for d, p in enumerate(state) if p == a]
        if not disks_a:
            return None, f"move {step} ({name}): peg {hanoi.PEG_NAMES[a]} is empty"
        disks_b = [d for d, p in enumerate(state) if p == b]
        if disks_b and disks_b[0] < disks_a[0]:
            return None, f"move {step} ({name}) puts a larger disk on a smaller one"
        nxt = list(state)
        nxt[disks_a[0]] = b
        state = tuple(nxt)
    return state, ""


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_apply_plan_judges_every_plan_as_scanning_does(data) -> None:
    pegs = data.draw(st.integers(3, 5))
    disks = data.draw(st.integers(1, 7))
    rule = data.draw(st.sampled_from(["standard", "adjacent", "cyclic", "random"]))
    moves = hanoi.allowed_moves(rule, pegs, np.random.default_rng(data.draw(st.integers(0, 99))))
    start = tuple(data.draw(st.lists(st.integers(0, pegs - 1), min_size=disks, max_size=disks)))
    peg = st.integers(0, pegs - 1)
    plan = data.draw(st.lists(st.tuples(peg, peg), max_size=40))
    assert hanoi.apply_plan(start, moves, plan) == _apply_plan_by_scanning(start, moves, plan)
