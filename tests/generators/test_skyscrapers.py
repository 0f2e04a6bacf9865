"""Tests of the skyscrapers family: visibility, uniqueness (brute force and z3), verifier."""

from __future__ import annotations

import itertools

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import skyscrapers as K
from palaestra.registry import get

IMPL = get("skyscrapers").impl


def _latin_squares_4x4() -> list[tuple[tuple[int, ...], ...]]:
    rows = list(itertools.permutations(range(1, 5)))
    squares = []
    for a in rows:
        for b in rows:
            if any(x == y for x, y in zip(a, b, strict=True)):
                continue
            for c in rows:
                if any(x in (y, z) for x, y, z in zip(c, a, b, strict=True)):
                    continue
                d = tuple(10 - x - y - z for x, y, z in zip(a, b, c, strict=True))
                squares.append((a, b, c, d))
    return squares


LATIN_4X4 = _latin_squares_4x4()


def _brute_force_4x4(clues, givens) -> list[list[int]]:
    """Every 4x4 Latin square that meets the clues: an independent enumeration."""
    assert len(LATIN_4X4) == 576
    found = []
    for grid in LATIN_4X4:
        flat = [v for row in grid for v in row]
        if any(g and g != v for g, v in zip(givens, flat, strict=True)):
            continue
        cols = [[grid[r][c] for r in range(4)] for c in range(4)]
        views = {
            "top": [K.visible(col) for col in cols],
            "bottom": [K.visible(col[::-1]) for col in cols],
            "left": [K.visible(row) for row in grid],
            "right": [K.visible(row[::-1]) for row in grid],
        }
        if all(not c or c == views[s][i] for s in K.SIDES for i, c in enumerate(clues[s])):
            found.append(flat)
    return found


def _z3_count(task: Task, limit: int = 2) -> int:
    n, clues, givens = K._unpack(task)
    x = [[z3.Int(f"x{r}_{c}") for c in range(n)] for r in range(n)]
    s = z3.Solver()
    for r in range(n):
        s.add(z3.Distinct(x[r]))
        s.add(z3.Distinct([x[k][r] for k in range(n)]))
        for c in range(n):
            s.add(z3.And(1 <= x[r][c], x[r][c] <= n))
            if givens[r * n + c]:
                s.add(x[r][c] == givens[r * n + c])

    def seen(line):
        return z3.Sum([z3.If(z3.And([line[j] < line[i] for j in range(i)]), 1, 0) for i in range(n)])

    cols = [[x[r][c] for r in range(n)] for c in range(n)]
    lines = {"top": cols, "bottom": [c[::-1] for c in cols], "left": x, "right": [row[::-1] for row in x]}
    for side in K.SIDES:
        for i, clue in enumerate(clues[side]):
            if clue:
                s.add(seen(lines[side][i]) == clue)
    found = 0
    flat = [v for row in x for v in row]
    while found < limit and s.check() == z3.sat:
        model = s.model()
        found += 1
        s.add(z3.Or([v != model.eval(v) for v in flat]))
    return found


def test_visible() -> None:
    assert K.visible([1, 2, 3, 4]) == 4
    assert K.visible([4, 3, 2, 1]) == 1
    assert K.visible([2, 1, 4, 3]) == 2
    assert K.visible([3, 1, 2, 5, 4]) == 2


def test_4x4_uniqueness_by_brute_force() -> None:
    for knobs in ({"level": 1}, {"level": 2}, {"size": 4, "allow_easy": False}):
        for seed in range(4):
            task = palaestra.make_task("skyscrapers", seed=seed, **knobs)
            n, clues, givens = K._unpack(task)
            found = _brute_force_4x4(clues, givens)
            assert len(found) == 1
            assert "".join(map(str, found[0])) == task.answer.replace("\n", "")


def test_uniqueness_cross_checked_with_z3() -> None:
    for level, seed in ((3, 0), (5, 1)):
        task = palaestra.make_task("skyscrapers", seed=seed, level=level)
        assert _z3_count(task) == 1


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.sampled_from([1, 2, 3, 4, 5]))
def test_generated_puzzles_are_unique_and_clues_true(seed: int, level: int) -> None:
    task = palaestra.make_task("skyscrapers", seed=seed, level=level)
    n, clues, givens = K._unpack(task)
    solution = [int(ch) for ch in task.answer.replace("\n", "")]
    full = K.all_clues(solution, n)
    for side in K.SIDES:
        assert all(c == 0 or c == full[side][i] for i, c in enumerate(clues[side]))
    assert K.solve(n, clues, givens).count == 1
    assert task.metadata["num_clues"] >= task.knobs["min_clues"] or task.knobs["min_clues"] > 4 * n
    if not task.knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None
    assert task.metadata["num_givens"] <= task.knobs["max_givens"]


def test_clues_are_minimal_when_dug_fully() -> None:
    task = palaestra.make_task("skyscrapers", seed=2, level=5)
    n, clues, givens = K._unpack(task)
    for side in K.SIDES:
        for i, c in enumerate(clues[side]):
            if c:
                fewer = {k: list(v) for k, v in clues.items()}
                fewer[side][i] = 0
                assert K.solve(n, fewer, givens).count == 2


def test_verifier_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("skyscrapers", seed=9, level=4)
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
    verdict = IMPL.verify(task, "<answer>" + "\n".join(r[::-1] for r in rows) + "</answer>")
    assert not verdict.correct and verdict.format_ok  # mirrored: still Latin, clues break


def test_verifier_checks_clues_not_string_equality() -> None:
    # only two clues: many Latin squares satisfy them, all must pass
    clues = {"top": [4, 0, 0, 0], "bottom": [0, 0, 0, 0], "left": [0, 0, 0, 0], "right": [1, 0, 0, 0]}
    task = Task(
        family="skyscrapers",
        family_version=1,
        difficulty=Difficulty(level=None, knobs=K.SkyscrapersKnobs().to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={"size": 4, "clues": clues, "givens": [[0] * 4 for _ in range(4)]},
    )
    valid = _brute_force_4x4(clues, [0] * 16)
    assert len(valid) >= 2
    for grid in valid[:3]:
        text = "\n".join("".join(map(str, grid[r * 4 : r * 4 + 4])) for r in range(4))
        assert IMPL.verify(task, f"<answer>{text}</answer>").correct
    verdict = IMPL.verify(task, "<answer>4321\n3214\n2143\n1432</answer>")
    assert not verdict.correct and "clue" in verdict.reason


def test_few_duplicates_at_level_3() -> None:
    hashes = [
        palaestra.make_task("skyscrapers", seed=s, level=3).metadata["canonical_hash"] for s in range(150)
    ]
    assert len(set(hashes)) >= 149


def test_knob_validation_and_hash() -> None:
    import pytest

    with pytest.raises(ValueError, match="min_clues"):
        palaestra.make_task("skyscrapers", seed=0, size=4, min_clues=20)
    hashes = {
        palaestra.make_task("skyscrapers", seed=s, level=4).metadata["canonical_hash"] for s in range(30)
    }
    assert len(hashes) == 30
    task = palaestra.make_task("skyscrapers", seed=3, level=4)
    n, clues, givens = K._unpack(task)
    mirrored = {
        "top": clues["top"][::-1],
        "bottom": clues["bottom"][::-1],
        "left": clues["right"],
        "right": clues["left"],
    }
    g = [givens[r * n + (n - 1 - c)] for r in range(n) for c in range(n)]
    assert K.canonical_hash(n, mirrored, g) == task.metadata["canonical_hash"]
