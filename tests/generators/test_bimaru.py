"""Tests of the bimaru family: ship shapes, uniqueness (brute force and z3), verifier."""

from __future__ import annotations

import itertools

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import bimaru as B
from palaestra.registry import get

IMPL = get("bimaru").impl


def _valid(n: int, fleet, occ: int) -> bool:
    """Independent check of a ship grid: straight ships, fleet, no diagonal contact."""
    ships = B.ships_of(n, occ)
    if ships is None or sorted(ships) != sorted(fleet):
        return False
    for r in range(n - 1):
        for c in range(n):
            for dc in (-1, 1):
                if 0 <= c + dc < n and occ >> (r * n + c) & 1 and occ >> ((r + 1) * n + c + dc) & 1:
                    return False
    return True


def _brute_force(n, fleet, rows, cols, ship, water, limit: int = 2) -> list[int]:
    """Rows chosen from itertools.combinations (row counts, reveals, column counts so far),
    then the whole grid checked naively."""
    row_mask = [sum(1 << (r * n + c) for c in range(n)) for r in range(n)]
    options = []
    for r in range(n):
        opts = []
        for bits in itertools.combinations(range(n), rows[r]):
            mask = sum(1 << (r * n + c) for c in bits)
            if not mask & water and not (ship & row_mask[r]) & ~mask:
                opts.append((mask, bits))
        options.append(opts)
    found: list[int] = []

    def rec(r: int, occ: int, used: list[int]) -> None:
        if len(found) >= limit:
            return
        if r == n:
            if used == list(cols) and _valid(n, fleet, occ):
                found.append(occ)
            return
        for mask, bits in options[r]:
            if any(used[c] >= cols[c] for c in bits):
                continue
            for c in bits:
                used[c] += 1
            rec(r + 1, occ | mask, used)
            for c in bits:
                used[c] -= 1

    rec(0, 0, [0] * n)
    return found


def _z3_count(n, fleet, rows, cols, ship, water, limit: int = 2) -> int:
    x = [z3.Bool(f"x{i}") for i in range(n * n)]
    s = z3.Solver()
    for r in range(n):
        s.add(z3.PbEq([(x[r * n + c], 1) for c in range(n)], rows[r]))
    for c in range(n):
        s.add(z3.PbEq([(x[r * n + c], 1) for r in range(n)], cols[c]))
    for i in range(n * n):
        if ship >> i & 1:
            s.add(x[i])
        if water >> i & 1:
            s.add(z3.Not(x[i]))
    for r in range(n - 1):  # no diagonal contact (this also rules out bent ships)
        for c in range(n):
            for dc in (-1, 1):
                if 0 <= c + dc < n:
                    s.add(z3.Not(z3.And(x[r * n + c], x[(r + 1) * n + c + dc])))
    found = 0
    while found < limit and s.check() == z3.sat:
        m = s.model()
        occ = sum(1 << i for i in range(n * n) if z3.is_true(m.eval(x[i], model_completion=True)))
        s.add(z3.Or([x[i] != bool(occ >> i & 1) for i in range(n * n)]))
        if _valid(n, fleet, occ):  # z3 enumerates count-consistent grids; the fleet is checked here
            found += 1
    return found


def test_ships_of() -> None:
    occ = 0b000011_000000_100000  # a ship of 2 (row 2) and a single cell (row 3)
    assert sorted(B.ships_of(6, occ)) == [1, 2]
    bent = (1 << 0) | (1 << 1) | (1 << 7)
    assert B.ships_of(6, bent) is None


def test_small_uniqueness_by_brute_force() -> None:
    for level in (1, 3):
        for seed in range(3):
            task = palaestra.make_task("bimaru", seed=seed, level=level)
            n, fleet, rows, cols, ship, water = B._unpack(task)
            found = _brute_force(n, fleet, rows, cols, ship, water)
            assert len(found) == 1
            assert B.grid_text(n, found[0]) == task.answer


def test_uniqueness_cross_checked_with_z3() -> None:
    for level, seed in ((4, 0), (5, 1)):
        task = palaestra.make_task("bimaru", seed=seed, level=level)
        assert _z3_count(*B._unpack(task)) == 1


def test_solver_counts_mirror_images() -> None:
    # one ship of length 1 on a 2x2 grid, row counts [1, 0], column counts [1, 0]: one way;
    # counts [1, 1] / [1, 1] with two singles would touch diagonally: no solution
    assert B.solve(2, (1,), [1, 0], [1, 0], 0, 0).count == 1
    assert B.solve(2, (1, 1), [1, 1], [1, 1], 0, 0).count == 0
    # a 3x3 grid, one ship of 2, no counts pinned to one line: several placements
    solver = B.solve(3, (2,), [1, 1, 0], [1, 1, 0], 0, 0, limit=5)
    assert solver.count == len(_brute_force(3, (2,), [1, 1, 0], [1, 1, 0], 0, 0, limit=5)) == 0
    assert B.solve(3, (2,), [2, 0, 0], [1, 1, 0], 0, 0).count == 1


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.sampled_from([1, 2, 3, 4, 5]))
def test_generated_puzzles_are_unique(seed: int, level: int) -> None:
    task = palaestra.make_task("bimaru", seed=seed, level=level)
    n, fleet, rows, cols, ship, water = B._unpack(task)
    assert task.metadata["num_reveals"] >= task.knobs["min_reveals"]
    assert B.solve(n, fleet, rows, cols, ship, water).count == 1
    assert IMPL.verify(task, IMPL.reference_response(task)).correct
    if not task.knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None


def _plain_search(n, fleet, rows, cols, ship, water, limit: int = 2) -> tuple[int, list[int]]:
    """The exact solver's search without its shortcuts: every line checked at every step, every
    placement tried. (nodes, solutions) must match the solver's: its pruning only skips
    placements that would fail this check, so the node counts in task metadata are unchanged."""
    fleet = sorted(fleet, reverse=True)
    row_masks, col_masks = B.line_masks(n)
    lines = list(zip(row_masks, rows, strict=True)) + list(zip(col_masks, cols, strict=True))
    nodes, found = 0, []

    def feasible(occ: int, blocked: int) -> bool:
        free = ~(occ | blocked | water)
        if any(
            (occ & m).bit_count() > need or (occ & m).bit_count() + (free & m).bit_count() < need
            for m, need in lines
        ):
            return False
        return not ship & ~occ & ~free

    def rec(k: int, occ: int, blocked: int, last: int) -> bool:
        nonlocal nodes
        nodes += 1
        if k == len(fleet):
            if all((occ & m).bit_count() == need for m, need in lines) and not ship & ~occ:
                found.append(occ)
                return len(found) >= limit
            return False
        opts = [(m, h) for m, h in B.ship_placements(n, fleet[k]) if not m & water]
        start = last + 1 if k and fleet[k - 1] == fleet[k] else 0
        for i in range(start, len(opts)):
            mask, halo = opts[i]
            if mask & (occ | blocked) or not feasible(occ | mask, blocked | (halo & ~mask)):
                continue
            if rec(k + 1, occ | mask, blocked | (halo & ~mask), i):
                return True
        return False

    if feasible(0, 0):
        rec(0, 0, 0, -1)
    else:
        nodes = 1
    return nodes, found


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    n=st.sampled_from([6, 7]),
    reveal_share=st.floats(0, 0.4),
    wrong_counts=st.booleans(),
)
def test_solver_pruning_finds_the_plain_searchs_solutions_in_its_order(
    seed: int, n: int, reveal_share: float, wrong_counts: bool
) -> None:
    rng = make_rng("bimaru-plain", seed, 0)
    fleet = B.FLEETS[n]
    occ = B.random_fleet(n, fleet, rng)
    if occ is None:
        return
    rows = [(occ & m).bit_count() for m in B.line_masks(n)[0]]
    cols = [(occ & m).bit_count() for m in B.line_masks(n)[1]]
    if wrong_counts:  # infeasible or different puzzles must agree too
        rows[int(rng.integers(n))] += 1
    reveal = [i for i in range(n * n) if rng.random() < reveal_share]
    ship = sum(1 << i for i in reveal if occ >> i & 1)
    water = sum(1 << i for i in reveal if not occ >> i & 1)
    fast = B.solve(n, fleet, rows, cols, ship, water, limit=3)
    plain_nodes, plain_solutions = _plain_search(n, fleet, rows, cols, ship, water, limit=3)
    # the usable-cell pruning only cuts branches without a solution: same solutions, same order
    # (the generator's reveals follow the second solution found), never more nodes
    assert fast.solutions == plain_solutions
    assert fast.nodes <= plain_nodes


def test_node_budget_redraws_the_same_way_in_every_run(monkeypatch) -> None:
    # a small budget forces redraws: the task is still unique, and the same seed gives the same bytes
    plain = palaestra.make_task("bimaru", seed=3, level=10)
    monkeypatch.setattr(B, "ATTEMPT_NODES", 2_000)
    spent = []
    attempt = B.Bimaru._attempt

    def counting(self, knobs, rng, budget):
        spent.append(budget)
        return attempt(self, knobs, rng, budget)

    monkeypatch.setattr(B.Bimaru, "_attempt", counting)
    first = palaestra.make_task("bimaru", seed=3, level=10)
    assert len(spent) > 1 and spent[0].left == 0  # the first attempt ran out and was redrawn
    assert palaestra.make_task("bimaru", seed=3, level=10).id == first.id != plain.id
    n, fleet, rows, cols, ship, water = B._unpack(first)
    assert B.solve(n, fleet, rows, cols, ship, water).count == 1
    assert first.metadata["nodes"] <= 2_000


def test_weak_solver_is_sound() -> None:
    for seed in range(10):
        task = palaestra.make_task("bimaru", seed=seed, level=1)
        run = IMPL.solve_weak(task)
        if run.response is not None:
            assert IMPL.verify(task, run.response).correct


def test_verifier_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("bimaru", seed=9, level=3)
    rows = task.answer.split("\n")
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in rows) + "</answer>",
        "<answer>\n" + "\n".join(r.replace("#", "1").replace("~", "0") for r in rows) + "\n</answer>",
        "<answer>\n" + "\n".join(r.replace("~", ".") for r in rows) + "\n</answer>",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not IMPL.verify(task, response).correct
    assert not IMPL.verify(task, "<answer>" + task.answer.replace("~", "?") + "</answer>").format_ok


def test_verifier_checks_rules_not_string_equality() -> None:
    # a ship of 2 and a ship of 1 on 4x4 with loose counts: several fleets fit, all pass
    task = Task(
        family="bimaru",
        family_version=1,
        difficulty=Difficulty(level=None, knobs=B.BimaruKnobs().to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={
            "size": 4,
            "fleet": [1, 1],
            "rows": [1, 0, 1, 0],
            "cols": [1, 0, 1, 0],
            "revealed": "....\n" * 3 + "....",
        },
    )
    valid = _brute_force(4, (1, 1), [1, 0, 1, 0], [1, 0, 1, 0], 0, 0, limit=5)
    assert len(valid) == 2 == B.solve(4, (1, 1), [1, 0, 1, 0], [1, 0, 1, 0], 0, 0, limit=5).count
    for occ in valid:
        assert IMPL.verify(task, f"<answer>{B.grid_text(4, occ)}</answer>").correct
    # a ship of 2 and a ship of 1 meeting the same counts breaks the fleet
    task2 = Task(
        family="bimaru",
        family_version=1,
        difficulty=Difficulty(level=None, knobs=B.BimaruKnobs().to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={
            "size": 4,
            "fleet": [1, 1, 1],
            "rows": [2, 0, 1, 0],
            "cols": [1, 1, 0, 1],
            "revealed": "....\n" * 3 + "....",
        },
    )
    verdict = IMPL.verify(task2, "<answer>##~~\n~~~~\n~~~#\n~~~~</answer>")
    assert not verdict.correct and "fleet" in verdict.reason
    assert IMPL.verify(task2, "<answer>#~~#\n~~~~\n~#~~\n~~~~</answer>").correct
    verdict = IMPL.verify(task2, "<answer>#~~#\n~~~~\n~~#~\n~~~~</answer>")
    assert not verdict.correct and "column" in verdict.reason


def test_canonical_hash() -> None:
    task = palaestra.make_task("bimaru", seed=3, level=4)
    n, fleet, rows, cols, ship, water = B._unpack(task)

    def mirror(mask: int) -> int:
        return sum(1 << (r * n + (n - 1 - c)) for r in range(n) for c in range(n) if mask >> (r * n + c) & 1)

    assert (
        B.canonical_hash(n, rows, cols[::-1], mirror(ship), mirror(water)) == task.metadata["canonical_hash"]
    )
    hashes = {palaestra.make_task("bimaru", seed=s, level=3).metadata["canonical_hash"] for s in range(30)}
    assert len(hashes) >= 29
