"""Tests of the light_up family: solver against enumeration and z3, digging, verifier."""

from __future__ import annotations

import time

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import light_up as L
from palaestra.registry import get

IMPL = get("light_up").impl
STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _white(board: list[int], n: int, r: int, c: int) -> bool:
    return 0 <= r < n and 0 <= c < n and board[r * n + c] == L.WHITE


def _seen(board: list[int], n: int, cell: int) -> list[int]:
    """The white cells a bulb at ``cell`` lights besides its own, walked ray by ray."""
    r0, c0 = divmod(cell, n)
    out = []
    for dr, dc in STEPS:
        r, c = r0 + dr, c0 + dc
        while _white(board, n, r, c):
            out.append(r * n + c)
            r, c = r + dr, c + dc
    return out


def _valid(n: int, board: list[int], bulbs: set[int]) -> bool:
    """The rules, written out ray by ray (independent of the family's runs)."""
    if any(board[b] != L.WHITE for b in bulbs):
        return False
    if any(q in bulbs for b in bulbs for q in _seen(board, n, b)):
        return False
    for cell in range(n * n):
        if (
            board[cell] == L.WHITE
            and cell not in bulbs
            and not any(q in bulbs for q in _seen(board, n, cell))
        ):
            return False
        if 0 <= board[cell] <= 4:
            r, c = divmod(cell, n)
            near = sum(
                (r + dr) * n + c + dc in bulbs for dr, dc in STEPS if 0 <= r + dr < n and 0 <= c + dc < n
            )
            if near != board[cell]:
                return False
    return True


def _enumerate(n: int, board: list[int], limit: int = 10**6) -> list[set[int]]:
    """Every valid bulb layout: white cells in reading order, a bulb only where no earlier bulb
    sees it; a cell whose every possible light is decided dark, or a number whose every
    neighbour is decided with the wrong count, cuts the branch; the full rules checked at the end."""
    whites = [c for c in range(n * n) if board[c] == L.WHITE]
    order = {c: i for i, c in enumerate(whites)}
    due: list[list[tuple[str, int, list[int]]]] = [[] for _ in whites]  # checks once i is decided
    for c in whites:
        lights = [c] + _seen(board, n, c)
        due[max(order[q] for q in lights)].append(("lit", c, lights))
    for cell in range(n * n):
        if 0 <= board[cell] <= 4:
            r, c = divmod(cell, n)
            near = [(r + dr) * n + c + dc for dr, dc in STEPS if _white(board, n, r + dr, c + dc)]
            if near:
                due[max(order[q] for q in near)].append(("number", cell, near))
    found: list[set[int]] = []

    def holds(chosen: set[int], kind: str, cell: int, cells: list[int]) -> bool:
        if kind == "lit":
            return any(q in chosen for q in cells)
        return sum(q in chosen for q in cells) == board[cell]

    def rec(i: int, chosen: set[int]) -> None:
        if len(found) >= limit:
            return
        if i > 0 and not all(holds(chosen, *check) for check in due[i - 1]):
            return
        if i == len(whites):
            if _valid(n, board, chosen):
                found.append(set(chosen))
            return
        cell = whites[i]
        if not any(q in chosen for q in _seen(board, n, cell)):
            rec(i + 1, chosen | {cell})
        rec(i + 1, chosen)

    rec(0, set())
    return found


def _z3_count(n: int, board: list[int], limit: int = 2) -> int:
    bulb = {c: z3.Bool(f"b{c}") for c in range(n * n) if board[c] == L.WHITE}
    s = z3.Solver()
    for c, v in bulb.items():
        seen = _seen(board, n, c)
        s.add(z3.Or([v] + [bulb[q] for q in seen]))  # lit
        s.add(z3.Implies(v, z3.And([z3.Not(bulb[q]) for q in seen])) if seen else z3.BoolVal(True))
    for cell in range(n * n):
        if 0 <= board[cell] <= 4:
            r, c = divmod(cell, n)
            near = [bulb[(r + dr) * n + c + dc] for dr, dc in STEPS if _white(board, n, r + dr, c + dc)]
            s.add(z3.PbEq([(v, 1) for v in near], board[cell]) if near else z3.BoolVal(board[cell] == 0))
    found = 0
    while found < limit and s.check() == z3.sat:
        model = s.model()
        found += 1
        s.add(z3.Or([v != model.eval(v, model_completion=True) for v in bulb.values()]))
    return found


def _task(n: int, board: list[int]) -> Task:
    return Task(
        family="light_up",
        family_version=IMPL.version,
        difficulty=Difficulty(level=None, knobs=L.LightUpKnobs(size=max(n, 4)).to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={"size": n, "board": [board[r * n : (r + 1) * n] for r in range(n)]},
    )


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([3, 4, 5]), hide=st.floats(0.0, 1.0))
def test_solver_counts_like_enumeration(seed: int, n: int, hide: float) -> None:
    # a random board numbered from random bulbs, then some numbers hidden: often several layouts
    rng = make_rng("light-up-test", seed, 0)
    board, _ = L.random_board(n, 0.25, rng)
    board = [L.WALL if v != L.WHITE and rng.random() < hide else v for v in board]
    found = _enumerate(n, board)
    result = L.solve(n, board, limit=10**6)
    assert sorted(tuple(i for i, v in enumerate(s) if v) for s in result.solutions) == sorted(
        tuple(sorted(f)) for f in found
    )


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.sampled_from([1, 2, 3]))
def test_generated_puzzles_are_unique_by_enumeration(seed: int, level: int) -> None:
    task = palaestra.make_task("light_up", seed=seed, level=level)
    n, board = L._unpack(task)
    found = _enumerate(n, board, limit=2)
    assert len(found) == 1
    assert L.board_text(n, board, [int(c in found[0]) for c in range(n * n)]) == task.answer
    if not task.knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None


def test_larger_puzzles_are_unique_by_z3() -> None:
    for level, seed in ((5, 0), (8, 1), (10, 2)):
        task = palaestra.make_task("light_up", seed=seed, level=level)
        n, board = L._unpack(task)
        assert _z3_count(n, board) == 1
        assert IMPL.solve_weak(task).response is None


def test_digging_leaves_every_number_needed() -> None:
    # each number left (below min_numbers) is needed: without it a second layout appears
    task = palaestra.make_task("light_up", seed=4, level=3)
    n, board = L._unpack(task)
    numbered = [c for c in range(n * n) if 0 <= board[c] <= 4]
    assert numbered
    for cell in numbered:
        fewer = list(board)
        fewer[cell] = L.WALL
        assert len(_enumerate(n, fewer, limit=2)) == 2


def test_weak_rate_falls_and_effort_rises() -> None:
    rates, efforts = [], []
    for level in (1, 5, 9):
        tasks = [palaestra.make_task("light_up", seed=s, level=level) for s in range(6)]
        rates.append(sum(IMPL.solve_weak(t).response is not None for t in tasks))
        efforts.append(sum(IMPL.effort(t) for t in tasks))
    assert rates[0] > rates[1] >= rates[2]
    assert efforts[0] < efforts[1] < efforts[2]


def test_verifier_accepts_every_valid_layout_and_names_the_broken_rule() -> None:
    # a 4x4 board with one plain wall and one numbered wall: several layouts, each is paid
    W, X = L.WHITE, L.WALL
    board = [W, W, W, W, W, X, W, W, W, W, 1, W, W, W, W, W]
    task = _task(4, board)
    valid = _enumerate(4, board)
    assert len(valid) > 2
    for bulbs in valid:
        answer = L.board_text(4, board, [int(c in bulbs) for c in range(16)])
        assert IMPL.verify(task, f"<answer>{answer}</answer>").correct, answer
    seeing = IMPL.verify(task, "<answer>\nL..L\n.#..\n..1.\n....\n</answer>")
    assert not seeing.correct and seeing.format_ok and "light each other" in seeing.reason
    dark = IMPL.verify(task, "<answer>\nL...\n.#..\n..1.\n....\n</answer>")
    assert not dark.correct and "not lit" in dark.reason
    counted = IMPL.verify(task, "<answer>\nL...\n.#.L\n.L1.\n..L.\n</answer>")
    assert not counted.correct and "has 2 bulbs" in counted.reason
    moved_wall = IMPL.verify(task, "<answer>\nL#..\n...L\n.L1.\n....\n</answer>")
    assert not moved_wall.correct and "copy the walls" in moved_wall.reason


def test_verifier_formats_and_near_misses() -> None:
    task = palaestra.make_task("light_up", seed=9, level=4)
    rows = task.answer.split("\n")
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in rows) + "</answer>",
        "<answer>\n" + "\n".join(f"Row {i + 1}: {r}" for i, r in enumerate(rows)) + "\n</answer>",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 3
    for response in mutations:
        verdict = IMPL.verify(task, response)
        assert verdict.format_ok and not verdict.correct
    assert not IMPL.verify(task, "<answer>" + task.answer.replace("L", "B") + "</answer>").format_ok
    assert not IMPL.verify(task, "<answer>" + task.answer[:-1] + "</answer>").format_ok


def test_hostile_input_is_rejected_quickly() -> None:
    task = palaestra.make_task("light_up", seed=2, level=5)
    for response in ("<answer>" + "L" * 200_000 + "</answer>", "L " * 100_000, "\n" * 100_000 + "#"):
        started = time.process_time()
        verdict = palaestra.verify(task, response)
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.5


def test_canonical_hash_sees_symmetries() -> None:
    task = palaestra.make_task("light_up", seed=3, level=5)
    n, board = L._unpack(task)
    turned = [board[(n - 1 - c) * n + r] for r in range(n) for c in range(n)]  # a quarter turn
    assert turned != board
    assert L.canonical_hash(n, turned) == task.metadata["canonical_hash"]
    mirrored = [board[r * n + n - 1 - c] for r in range(n) for c in range(n)]
    assert L.canonical_hash(n, mirrored) == task.metadata["canonical_hash"]
    hashes = {palaestra.make_task("light_up", seed=s, level=3).metadata["canonical_hash"] for s in range(40)}
    assert len(hashes) == 40


def test_a_wall_number_copied_wrong_is_refused() -> None:
    """Red-team: a wall's number changed (3 -> 1) or dropped (2 -> #) in the answer was paid."""
    task = palaestra.make_task("light_up", seed=0, level=10)
    reference = palaestra.get("light_up").impl.reference_response(task)
    assert palaestra.verify(task, reference).correct
    at = next(i for i, ch in enumerate(reference) if ch in "1234")
    for replacement in {"#", str(int(reference[at]) % 4 + 1)}:
        changed = reference[:at] + replacement + reference[at + 1 :]
        assert palaestra.verify(task, changed).status == "wrong", replacement
