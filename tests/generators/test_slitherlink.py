"""Tests of slitherlink: uniqueness cross-checked with z3, the search against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.puzzles import slitherlink as S
from palaestra.registry import get

IMPL = get("slitherlink").impl

Edge = tuple[tuple[int, int], tuple[int, int]]  # two grid points (row, column), the smaller first


def _cell_sides(r: int, c: int) -> list[Edge]:
    return [
        ((r, c), (r, c + 1)),
        ((r + 1, c), (r + 1, c + 1)),
        ((r, c), (r + 1, c)),
        ((r, c + 1), (r + 1, c + 1)),
    ]


def _all_edges(n: int) -> list[Edge]:
    return sorted({side for r in range(n) for c in range(n) for side in _cell_sides(r, c)})


def _prompt_clues(prompt: str, n: int) -> list[list[int | None]]:
    rows = [line.split() for line in prompt.splitlines()]
    rows = [row for row in rows if len(row) == n and all(x in "0123." for x in row)]
    return [[None if x == "." else int(x) for x in row] for row in rows[:n]]


def _components(edges: set[Edge]) -> list[set[Edge]]:
    left, parts = set(edges), []
    while left:
        part, stack = set(), [left.pop()]
        while stack:
            edge = stack.pop()
            part.add(edge)
            touching = {f for f in left if set(f) & set(edge)}
            left -= touching
            stack.extend(touching)
        parts.append(part)
    return parts


def _z3_loops(n: int, clues: list[list[int | None]], limit: int = 2) -> list[set[Edge]]:
    """Up to ``limit`` single loops satisfying the clues: degrees and counts in z3, sub-loops cut lazily."""
    edges = _all_edges(n)
    var = {e: z3.Bool(f"e{i}") for i, e in enumerate(edges)}
    solver = z3.Solver()
    for point in {p for e in edges for p in e}:
        degree = z3.Sum([z3.If(var[e], 1, 0) for e in edges if point in e])
        solver.add(z3.Or(degree == 0, degree == 2))
    for r, c in itertools.product(range(n), repeat=2):
        if clues[r][c] is not None:
            solver.add(z3.Sum([z3.If(var[e], 1, 0) for e in _cell_sides(r, c)]) == clues[r][c])
    solver.add(z3.Or(list(var.values())))
    loops: list[set[Edge]] = []
    while len(loops) < limit and solver.check() == z3.sat:
        model = solver.model()
        on = {e for e in edges if z3.is_true(model[var[e]])}
        parts = _components(on)
        if len(parts) == 1:
            loops.append(on)
            solver.add(z3.Or([var[e] != (e in on) for e in edges]))
        else:  # all of one sub-loop on forces every other edge off
            for part in parts:
                solver.add(
                    z3.Implies(
                        z3.And([var[e] for e in part]),
                        z3.And([z3.Not(var[e]) for e in edges if e not in part]),
                    )
                )
    return loops


def _region(n: int, loop: set[Edge]) -> str:
    """Cells inside the loop: scan each row from the left, crossing a vertical side flips the state."""
    rows = []
    for r in range(n):
        inside, row = False, ""
        for c in range(n):
            inside ^= ((r, c), (r + 1, c)) in loop
            row += "#" if inside else "."
        rows.append(row)
    return "\n".join(rows)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**40), level=st.integers(1, 10))
def test_unique_loop_against_z3(seed: int, level: int) -> None:
    task = palaestra.make_task("slitherlink", seed=seed, level=level)
    n = task.metadata["size"]
    clues = _prompt_clues(task.prompt, n)
    assert clues == task.metadata["clues"]
    loops = _z3_loops(n, clues)
    assert len(loops) == 1
    assert _region(n, loops[0]) == task.answer
    assert IMPL.verify(task, f"<answer>\n{_region(n, loops[0])}\n</answer>").correct


def test_repair_shows_clues_until_the_loop_is_unique() -> None:
    rng = np.random.default_rng(11)
    for _ in range(6):
        n = 4
        loop = S.region_edges(n, S.random_region(n, 0.5, rng))
        full = S.clue_counts(n, loop)
        assert S.make_unique(n, list(full), loop, rng) == full  # already unique: nothing added
        clues = S.make_unique(n, [None] * (n * n), loop, rng)
        assert all(x is None or x == full[i] for i, x in enumerate(clues))
        grid = [clues[r * n : (r + 1) * n] for r in range(n)]
        found = _z3_loops(n, grid)
        assert len(found) == 1 and _region(n, found[0]) == S.region_text(S.region_of(n, loop))


def test_search_finds_every_loop_of_a_3x3_grid() -> None:
    # every simple loop of a 3x3 grid is the boundary of one of the 2^9 regions: brute force
    n = 3
    loops = []
    for bits in itertools.product((0, 1), repeat=9):
        inside = [list(bits[i : i + 3]) for i in (0, 3, 6)]
        on = {side for r in range(n) for c in range(n) if inside[r][c] for side in _cell_sides(r, c)}
        on = {
            side
            for side in on
            if sum(side in _cell_sides(r, c) for r in range(n) for c in range(n) if inside[r][c]) == 1
        }
        degree_ok = all(sum(p in e for e in on) in (0, 2) for p in itertools.product(range(4), repeat=2))
        if on and degree_ok and len(_components(on)) == 1:
            loops.append(on)
    rng = np.random.default_rng(5)
    for _ in range(40):
        loop = loops[int(rng.integers(len(loops)))]
        full = [[sum(side in loop for side in _cell_sides(r, c)) for c in range(n)] for r in range(n)]
        clues = [[x if rng.random() < 0.5 else None for x in row] for row in full]
        expected = sorted(
            _region(n, lp)
            for lp in loops
            if all(
                clues[r][c] is None or sum(side in lp for side in _cell_sides(r, c)) == clues[r][c]
                for r in range(n)
                for c in range(n)
            )
        )
        found, _ = S.search(n, [x for row in clues for x in row], limit=1000)
        assert sorted(S.region_text(S.region_of(n, on)) for on in found) == expected


def test_weak_rate_falls_and_effort_rises() -> None:
    rates, efforts = [], []
    for level in (1, 5, 9):
        tasks = [palaestra.make_task("slitherlink", seed=s, level=level) for s in range(16)]
        rates.append(sum(IMPL.verify(t, IMPL.solve_weak(t).response or "x").correct for t in tasks))
        efforts.append(np.mean([IMPL.effort(t) for t in tasks]))
    assert rates[0] > rates[2] == 0
    assert efforts[0] < efforts[1] < efforts[2]


def test_answer_forms_and_near_misses() -> None:
    task = palaestra.make_task("slitherlink", seed=1, level=4)
    n = task.metadata["size"]
    lines = task.answer.split("\n")
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>\n" + "\n".join(line.replace("#", "1").replace(".", "0") for line in lines) + "\n</answer>",
        "<answer>\n" + "\n".join(" ".join(line) for line in lines) + "\n</answer>",
        "<answer>\n" + "\n".join(f"Row {i + 1}: {line}" for i, line in enumerate(lines)) + "\n</answer>",
    ):
        assert IMPL.verify(task, response).correct, response
    grid = [list(line) for line in lines]
    inverted = ["".join("." if ch == "#" else "#" for ch in line) for line in lines]
    holed = ["#" * n] * n  # the whole grid inside: one loop along the border, clues broken
    holed = [
        row if i != n // 2 else "#" * (n // 2) + "." + "#" * (n - n // 2 - 1) for i, row in enumerate(holed)
    ]
    diagonal = ["#" + "." * (n - 1), ".#" + "." * (n - 2)] + ["." * n] * (n - 2)
    for cells, reason in ((holed, "more than one loop"), (diagonal, "touches or crosses")):
        verdict = IMPL.verify(task, "<answer>\n" + "\n".join(cells) + "\n</answer>")
        assert not verdict.correct and verdict.format_ok and reason in verdict.reason, verdict
    for r, c in itertools.product(range(n), repeat=2):
        flipped = [list(row) for row in grid]
        flipped[r][c] = "#" if flipped[r][c] == "." else "."
        verdict = IMPL.verify(task, "<answer>\n" + "\n".join("".join(row) for row in flipped) + "\n</answer>")
        assert not verdict.correct and verdict.format_ok
    for response, format_ok in (
        ("<answer>\n" + "\n".join(inverted) + "\n</answer>", True),
        ("<answer>\n" + "\n".join(lines[:-1]) + "\n</answer>", False),
        ("<answer>\n" + "\n".join(line.replace(".", "o") for line in lines) + "\n</answer>", False),
        (f"<answer>\n{task.answer}\n</answer>\nAnswer: {lines[0]}", False),
        ("<answer>" + "#" * 100_000 + "</answer>", False),
    ):
        verdict = IMPL.verify(task, response)
        assert not verdict.correct and verdict.format_ok == format_ok, (response[:60], verdict)
    mutations = IMPL.mutated_responses(task, np.random.default_rng(0))
    assert len(set(mutations)) >= 3 and not any(IMPL.verify(task, m).correct for m in mutations)


def test_canonical_hash_folds_symmetries() -> None:
    task = palaestra.make_task("slitherlink", seed=2, level=5)
    n = task.metadata["size"]
    grid = np.array([[-1 if x is None else x for x in row] for row in task.metadata["clues"]])
    for form in (np.rot90(grid), np.fliplr(grid), grid.T):
        clues = [None if x < 0 else int(x) for x in form.ravel()]
        assert S.canonical_hash(n, clues) == task.metadata["canonical_hash"]
    hashes = {
        palaestra.make_task("slitherlink", seed=s, level=3).metadata["canonical_hash"] for s in range(30)
    }
    assert len(hashes) == 30
