"""Tests of the hitori family: solver against brute force and z3, generation, verifier."""

from __future__ import annotations

import time

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import hitori as H
from palaestra.registry import get

IMPL = get("hitori").impl


def _sides(n: int, cell: int) -> list[int]:
    r, c = divmod(cell, n)
    return [
        (r + dr) * n + c + dc
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < n and 0 <= c + dc < n
    ]


def _line_mates(n: int, cell: int) -> list[int]:
    r, c = divmod(cell, n)
    return [q for q in range(n * n) if q != cell and (q // n == r or q % n == c)]


def _valid(n: int, digits: list[int], black: set[int]) -> bool:
    """The four rules, written out here (independent of the family's check)."""
    if any(q in black for b in black for q in _sides(n, b)):
        return False
    for cell in range(n * n):
        if cell in black:
            if not any(q not in black and digits[q] == digits[cell] for q in _line_mates(n, cell)):
                return False
        elif any(q not in black and digits[q] == digits[cell] for q in _line_mates(n, cell)):
            return False
    whites = [c for c in range(n * n) if c not in black]
    seen, todo = {whites[0]}, [whites[0]]
    while todo:
        for q in _sides(n, todo.pop()):
            if q not in black and q not in seen:
                seen.add(q)
                todo.append(q)
    return len(seen) == len(whites)


def _brute_force(n: int, digits: list[int]) -> list[set[int]]:
    """Every valid shading: each cell that repeats a digit of its line is tried shaded or not
    (no two shaded cells touching), the full rules checked at the end."""
    candidates = [c for c in range(n * n) if any(digits[q] == digits[c] for q in _line_mates(n, c))]
    found: list[set[int]] = []

    def rec(i: int, black: set[int]) -> None:
        if i == len(candidates):
            if _valid(n, digits, black):
                found.append(set(black))
            return
        cell = candidates[i]
        rec(i + 1, black)
        if not any(q in black for q in _sides(n, cell)):
            rec(i + 1, black | {cell})

    rec(0, set())
    return found


def _z3_count(n: int, digits: list[int], limit: int = 2) -> int:
    """Shadings counted by z3: rules as clauses, connectivity by cutting off each enclosed group."""
    black = [z3.Bool(f"b{c}") for c in range(n * n)]
    s = z3.Solver()
    for cell in range(n * n):
        for q in _sides(n, cell):
            s.add(z3.Not(z3.And(black[cell], black[q])))
        mates = [q for q in _line_mates(n, cell) if digits[q] == digits[cell]]
        for q in mates:
            s.add(z3.Or(black[cell], black[q]))
        s.add(
            z3.Implies(black[cell], z3.Or([z3.Not(black[q]) for q in mates]) if mates else z3.BoolVal(False))
        )
    found = 0
    while found < limit and s.check() == z3.sat:
        model = s.model()
        shaded = {c for c in range(n * n) if z3.is_true(model.eval(black[c], model_completion=True))}
        whites = [c for c in range(n * n) if c not in shaded]
        group, todo = {whites[0]}, [whites[0]]
        while todo:
            for q in _sides(n, todo.pop()):
                if q not in shaded and q not in group:
                    group.add(q)
                    todo.append(q)
        if len(group) < len(whites):  # no shading may enclose this group with a white cell outside
            rim = {q for c in group for q in _sides(n, c) if q in shaded}
            outside = next(c for c in whites if c not in group)
            s.add(z3.Or([z3.Not(black[b]) for b in rim] + [black[c] for c in group] + [black[outside]]))
            continue
        found += 1
        s.add(z3.Or([black[c] != (c in shaded) for c in range(n * n)]))
    return found


def _task(n: int, digits: list[int]) -> Task:
    return Task(
        family="hitori",
        family_version=IMPL.version,
        difficulty=Difficulty(level=None, knobs=H.HitoriKnobs(size=max(n, 4)).to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={"size": n, "digits": [digits[r * n : (r + 1) * n] for r in range(n)]},
    )


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([3, 4, 5]), share=st.floats(0.1, 0.4))
def test_solver_counts_like_brute_force(seed: int, n: int, share: float) -> None:
    # random shadings whose copied digits often leave several valid shadings
    digits, _ = H.random_puzzle(n, share, make_rng("hitori-test", seed, 0))
    found = _brute_force(n, digits)
    result = H.solve(n, digits, limit=10**6)
    assert sorted(tuple(i for i, v in enumerate(s) if v) for s in result.solutions) == sorted(
        tuple(sorted(f)) for f in found
    )
    weak, _ = H.HitoriSolver(n, digits).weak()
    if weak is not None:  # the weak solver only answers when the answer is the unique one
        assert len(found) == 1 and {i for i, v in enumerate(weak) if v} == found[0]


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.sampled_from([1, 2, 4]))
def test_generated_puzzles_are_unique_by_z3(seed: int, level: int) -> None:
    task = palaestra.make_task("hitori", seed=seed, level=level)
    n, digits = H._unpack(task)
    assert _z3_count(n, digits) == 1
    assert IMPL.verify(task, IMPL.reference_response(task)).correct
    black = {i for i, ch in enumerate(task.answer.replace("\n", "")) if ch == "#"}
    assert _valid(n, digits, black)
    if not task.knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None
    assert task.metadata["nodes"] >= task.knobs["min_nodes"]


def test_largest_level_is_unique_by_z3() -> None:
    task = palaestra.make_task("hitori", seed=1, level=10)
    n, digits = H._unpack(task)
    assert n == 9 and _z3_count(n, digits) == 1
    assert IMPL.solve_weak(task).response is None


def test_weak_rate_falls_and_effort_rises() -> None:
    rates, efforts = [], []
    for level in (1, 3, 8):
        tasks = [palaestra.make_task("hitori", seed=s, level=level) for s in range(8)]
        rates.append(sum(IMPL.solve_weak(t).response is not None for t in tasks))
        efforts.append(sum(IMPL.effort(t) for t in tasks))
    assert rates[0] > rates[1] >= rates[2]
    assert efforts[0] < efforts[1] < efforts[2]


def test_verifier_accepts_every_valid_shading_and_names_the_broken_rule() -> None:
    # a 4x4 grid with two valid shadings: both are paid
    digits = [1, 1, 3, 2, 4, 2, 1, 2, 1, 2, 4, 1, 3, 3, 2, 1]
    task = _task(4, digits)
    valid = _brute_force(4, digits)
    assert len(valid) == 2
    for black in valid:
        answer = H.shading_text(4, [int(c in black) for c in range(16)])
        assert IMPL.verify(task, f"<answer>{answer}</answer>").correct, answer
    twice = IMPL.verify(task, "<answer>\n....\n....\n....\n....\n</answer>")
    assert not twice.correct and twice.format_ok and "unshaded twice" in twice.reason
    touch = IMPL.verify(task, "<answer>\n##..\n....\n....\n....\n</answer>")
    assert not touch.correct and "touch" in touch.reason
    cut = IMPL.verify(task, "<answer>\n#..#\n.#..\n#..#\n.#..\n</answer>")
    assert not cut.correct and "connected" in cut.reason
    wrong_digit = IMPL.verify(task, "<answer>\n#12#\n4#12\n1241\n3#21\n</answer>")
    assert not wrong_digit.correct and "holds 3, not 2" in wrong_digit.reason
    # a Latin square needs no shading: shading a corner breaks only the shade-only-repeats rule
    latin = _task(3, [1, 2, 3, 2, 3, 1, 3, 1, 2])
    assert IMPL.verify(latin, "<answer>\n...\n...\n...\n</answer>").correct
    needless = IMPL.verify(latin, "<answer>\n#..\n...\n...\n</answer>")
    assert not needless.correct and "not left unshaded elsewhere" in needless.reason


def test_verifier_formats_and_near_misses() -> None:
    task = palaestra.make_task("hitori", seed=9, level=3)
    n, digits = H._unpack(task)
    rows = task.answer.split("\n")
    with_digits = "\n".join(
        "".join(ch if ch == "#" else str(digits[r * n + c]) for c, ch in enumerate(row))
        for r, row in enumerate(rows)
    )
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        f"<answer>\n{with_digits}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in rows) + "</answer>",
        "<answer>\n" + "\n".join(f"Row {i + 1}: {r}" for i, r in enumerate(rows)) + "\n</answer>",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 3
    for response in mutations:
        verdict = IMPL.verify(task, response)
        assert verdict.format_ok and not verdict.correct
    assert not IMPL.verify(task, "<answer>" + task.answer.replace("#", "X") + "</answer>").format_ok
    assert not IMPL.verify(task, "<answer>" + task.answer[:-1] + "</answer>").format_ok


def test_hostile_input_is_rejected_quickly() -> None:
    task = palaestra.make_task("hitori", seed=2, level=5)
    for response in (
        "<answer>" + "#" * 200_000 + "</answer>",
        "# " * 100_000,
        "\n" * 100_000 + "#",
        "9" * 100_000,
    ):
        started = time.process_time()
        verdict = palaestra.verify(task, response)
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.5


def test_canonical_hash_sees_symmetries_and_renamed_digits() -> None:
    task = palaestra.make_task("hitori", seed=3, level=5)
    n, digits = H._unpack(task)
    turned = [digits[(n - 1 - c) * n + r] for r in range(n) for c in range(n)]  # a quarter turn
    assert turned != digits
    assert H.canonical_hash(n, turned) == task.metadata["canonical_hash"]
    renamed = [n + 1 - v for v in digits[::-1]]  # a half turn with every digit renamed
    assert H.canonical_hash(n, renamed) == task.metadata["canonical_hash"]
    hashes = {palaestra.make_task("hitori", seed=s, level=2).metadata["canonical_hash"] for s in range(30)}
    assert len(hashes) == 30


def _connected_by_search(n: int, white: list[bool]) -> bool:
    cells = [c for c in range(n * n) if white[c]]
    if not cells:
        return True
    seen, stack = {cells[0]}, [cells[0]]
    while stack:
        r, c = divmod(stack.pop(), n)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            q = rr * n + cc
            if 0 <= rr < n and 0 <= cc < n and white[q] and q not in seen:
                seen.add(q)
                stack.append(q)
    return len(seen) == len(cells)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 10), data=st.data())
def test_bitmask_flood_fill_matches_a_plain_search(n: int, data: st.DataObject) -> None:
    # the shifts must never wrap a row's last cell onto the next row's first
    white = data.draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))
    assert H.connected(n, white) == _connected_by_search(n, white)
