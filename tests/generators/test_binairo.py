"""Tests of the binairo family: solver, uniqueness (brute force and z3), verifier."""

from __future__ import annotations

import itertools

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import binairo as B
from palaestra.registry import get

IMPL = get("binairo").impl


def _brute_force(n: int, givens: list[int], limit: int = 2) -> list[list[int]]:
    """Every valid grid matching the givens: rows from itertools.product, checked naively."""
    rows = [r for r in itertools.product((0, 1), repeat=n) if not B.line_ok(list(r))]
    found: list[list[int]] = []

    def rec(prefix: list[tuple[int, ...]]) -> None:
        if len(found) >= limit:
            return
        k = len(prefix)
        if k == n:
            cols = [tuple(prefix[r][c] for r in range(n)) for c in range(n)]
            if all(not B.line_ok(list(c)) for c in cols) and len(set(cols)) == n:
                found.append([v for r in prefix for v in r])
            return
        for row in rows:
            if row in prefix:
                continue
            if any(givens[k * n + c] >= 0 and givens[k * n + c] != row[c] for c in range(n)):
                continue
            rec(prefix + [row])

    rec([])
    return found


def _z3_count(n: int, givens: list[int], limit: int = 2) -> int:
    x = [[z3.Int(f"x{r}_{c}") for c in range(n)] for r in range(n)]
    s = z3.Solver()
    lines = x + [[x[r][c] for r in range(n)] for c in range(n)]
    for r in range(n):
        for c in range(n):
            s.add(z3.Or(x[r][c] == 0, x[r][c] == 1))
            if givens[r * n + c] >= 0:
                s.add(x[r][c] == givens[r * n + c])
    for line in lines:
        s.add(z3.Sum(line) == n // 2)
        for i in range(n - 2):
            s.add(z3.And(1 <= line[i] + line[i + 1] + line[i + 2], line[i] + line[i + 1] + line[i + 2] <= 2))
    for group in (lines[:n], lines[n:]):
        for a, b in itertools.combinations(group, 2):
            s.add(z3.Or([p != q for p, q in zip(a, b, strict=True)]))
    found = 0
    flat = [v for row in x for v in row]
    while found < limit and s.check() == z3.sat:
        model = s.model()
        found += 1
        s.add(z3.Or([v != model.eval(v) for v in flat]))
    return found


def test_valid_lines() -> None:
    assert len(B.valid_lines(6)) == 14
    assert len(B.valid_lines(8)) == 34
    assert B.line_ok([0, 1, 1, 0, 0, 1]) == ""
    assert "three" in B.line_ok([0, 0, 0, 1, 1, 1])
    assert "ones" in B.line_ok([0, 1, 1, 0, 1, 1])


def test_6x6_uniqueness_by_brute_force() -> None:
    for level in (1, 2):
        for seed in range(3):
            task = palaestra.make_task("binairo", seed=seed, level=level)
            n, givens = B._unpack(task)
            found = _brute_force(n, givens)
            assert len(found) == 1
            assert B._text(found[0], n) == task.answer


def test_uniqueness_cross_checked_with_z3() -> None:
    for level, seed in ((4, 0), (5, 1), (7, 2)):
        task = palaestra.make_task("binairo", seed=seed, level=level)
        n, givens = B._unpack(task)
        assert _z3_count(n, givens) == 1


def test_solver_counts_several_solutions() -> None:
    # an empty 6x6 grid has many solutions; one given less than a puzzle gives two or more
    assert B.solve(6, [-1] * 36).count == 2
    task = palaestra.make_task("binairo", seed=5, level=2)
    n, givens = B._unpack(task)
    for i, v in enumerate(givens):
        if v >= 0:
            fewer = list(givens)
            fewer[i] = -1
            assert B.solve(n, fewer).count == len(_brute_force(n, fewer))


class _PlainSolver(B._Solver):
    """The exact solver without its shortcut: every dirty line is filtered and scanned again."""

    def propagate(self, ones, zeros, cands, distinct, processed=None) -> bool:
        return super().propagate(ones, zeros, cands, distinct, None)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([6, 8, 10]), blank_share=st.floats(0.3, 1.0))
def test_solver_shortcut_keeps_nodes_work_and_solutions(seed: int, n: int, blank_share: float) -> None:
    rng = make_rng("binairo-plain", seed, 0)
    grid = B.solve(n, [-1] * (n * n), limit=1, rng=rng).solutions[0]
    givens = [-1 if rng.random() < blank_share else v for v in grid]
    fast = B.solve(n, givens, limit=3)
    plain = _PlainSolver(n, givens).search(3)
    assert (fast.nodes, fast.work, fast.solutions) == (plain.nodes, plain.work, plain.solutions)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.sampled_from([1, 2, 3, 4, 5]))
def test_generated_puzzles_are_unique_and_tiers_hold(seed: int, level: int) -> None:
    task = palaestra.make_task("binairo", seed=seed, level=level)
    n, givens = B._unpack(task)
    solution = [int(ch) for ch in task.answer.replace("\n", "")]
    assert all(g < 0 or g == v for g, v in zip(givens, solution, strict=True))
    assert B.solve(n, givens).count == 1
    knobs = task.knobs
    assert task.metadata["num_givens"] >= knobs["min_givens"]
    if knobs["tier"] in ("basic", "line"):
        assert B.tier_solves(knobs["tier"], n, givens)
    if not knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None


def test_weak_solver_rate_falls_and_effort_rises() -> None:
    rates, efforts = [], []
    for level in (2, 5, 7):
        tasks = [palaestra.make_task("binairo", seed=s, level=level) for s in range(6)]
        rates.append(sum(IMPL.solve_weak(t).response is not None for t in tasks))
        efforts.append(sum(IMPL.effort(t) for t in tasks))
    assert rates[0] > rates[1] >= rates[2]
    assert efforts[0] < efforts[1] < efforts[2]


def test_verifier_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("binairo", seed=9, level=3)
    rows = task.answer.split("\n")
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in rows) + "</answer>",
        f"\\boxed{{{''.join(rows)}}}",
        "<answer>\n" + "\n".join(f"[{', '.join(r)}]" for r in rows) + "\n</answer>",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not IMPL.verify(task, response).correct
    assert not IMPL.verify(task, "<answer>" + task.answer.replace("0", "2") + "</answer>").correct


def test_verifier_checks_rules_not_string_equality() -> None:
    givens = [-1] * 36
    givens[0] = 0
    task = Task(
        family="binairo",
        family_version=1,
        difficulty=Difficulty(level=None, knobs=B.BinairoKnobs().to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={"size": 6, "givens": [givens[r * 6 : r * 6 + 6] for r in range(6)]},
    )
    valid = _brute_force(6, givens, limit=3)
    assert len(valid) == 3
    for grid in valid:
        assert IMPL.verify(task, f"<answer>{B._text(grid, 6)}</answer>").correct
    # balanced rows without triples, but two identical rows
    bad = "011001\n100110\n011001\n100110\n010101\n101010"
    verdict = IMPL.verify(task, f"<answer>{bad}</answer>")
    assert not verdict.correct and verdict.format_ok


def test_canonical_hash_and_knobs() -> None:
    task = palaestra.make_task("binairo", seed=3, level=4)
    n, givens = B._unpack(task)
    mirrored = [givens[r * n + (n - 1 - c)] for r in range(n) for c in range(n)]
    swapped = [v if v < 0 else 1 - v for v in givens]
    assert B.canonical_hash(n, mirrored) == task.metadata["canonical_hash"]
    assert B.canonical_hash(n, swapped) == task.metadata["canonical_hash"]
    hashes = {palaestra.make_task("binairo", seed=s, level=3).metadata["canonical_hash"] for s in range(30)}
    assert len(hashes) == 30
    with pytest.raises(ValueError, match="allow_easy"):
        palaestra.make_task("binairo", seed=0, tier="basic", allow_easy=False)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    n=st.sampled_from([6, 8]),
    group_size=st.integers(1, 8),
    dug=st.booleans(),
)
def test_flip_check_agrees_with_counting_solutions(seed: int, n: int, group_size: int, dug: bool) -> None:
    # a unique puzzle (the whole grid, or the search tier's own dig), then some givens emptied
    rng = make_rng("binairo-flip", seed, 0)
    solution = B.solve(n, [-1] * (n * n), limit=1, rng=rng).solutions[0]
    givens = list(solution)
    uncapped = B._Budget(10**12)
    if dug:
        knobs = B.BinairoKnobs(size=n, tier="search", min_givens=n)
        givens = B.Binairo._dig(n, givens, knobs, rng, uncapped)
    assert B.solve(n, givens).count == 1
    shown = [c for c in range(n * n) if givens[c] >= 0]
    group = [shown[int(i)] for i in rng.permutation(len(shown))[:group_size]]
    values = [givens[c] for c in group]
    for c in group:
        givens[c] = -1
    saved, B.FLIP_WORK = B.FLIP_WORK, 0  # no per-flip cap: the check must be exact
    try:
        unique = B.Binairo._still_unique("search", n, list(givens), group, values, uncapped)
    finally:
        B.FLIP_WORK = saved
    assert unique == (B.solve(n, givens).count == 1)


def test_work_caps_keep_puzzles_unique_and_reproducible(monkeypatch: pytest.MonkeyPatch) -> None:
    # a flip check past its cap keeps its cells (never a wrong removal); an attempt past its
    # budget is redrawn; either way the puzzle stays unique and the same seed gives the same bytes
    plain = palaestra.make_task("binairo", seed=4, level=10)
    monkeypatch.setattr(B, "FLIP_WORK", 2_000)
    capped = palaestra.make_task("binairo", seed=4, level=10)
    assert capped.metadata["num_givens"] > plain.metadata["num_givens"]
    monkeypatch.undo()
    attempts: list[B._Budget] = []

    class Counted(B._Budget):
        def __init__(self, work: int) -> None:
            super().__init__(work)
            attempts.append(self)

    monkeypatch.setattr(B, "_Budget", Counted)
    first = palaestra.make_task("binairo", seed=83, level=10)  # a grid whose proofs cost much
    spent = B.ATTEMPT_WORK - attempts[0].left
    attempts.clear()
    monkeypatch.setattr(B, "ATTEMPT_WORK", spent - 1)
    redrawn = palaestra.make_task("binairo", seed=83, level=10)
    assert len(attempts) > 1 and attempts[0].left <= 0  # the first grid ran out and was redrawn
    assert palaestra.make_task("binairo", seed=83, level=10).id == redrawn.id != first.id
    for task in (capped, redrawn):
        n = task.metadata["size"]
        givens = [v for row in task.metadata["givens"] for v in row]
        assert B.solve(n, givens).count == 1
