"""arc_grid: grids re-read from the prompt; the DSL re-implemented here on tuples of tuples
(no numpy) and every program up to two steps enumerated again: all programs consistent with
the examples must give the answer on the test grid."""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "arc_grid"
SPEC = palaestra.get(FAMILY)
IMPL = SPEC.impl
G = tuple[tuple[int, ...], ...]


def rot_cw(g: G) -> G:
    return tuple(zip(*g[::-1], strict=True))


def transpose(g: G) -> G:
    return tuple(zip(*g, strict=True))


def fall(g: G, towards_end: bool) -> G:  # along columns
    cols = []
    for col in transpose(g):
        coloured, empty = [v for v in col if v], [0] * sum(1 for v in col if not v)
        cols.append(tuple(empty + coloured if towards_end else coloured + empty))
    return transpose(tuple(cols))


def shift(g: G, dr: int, dc: int) -> G:
    rows, cols = len(g), len(g[0])
    return tuple(
        tuple(g[r - dr][c - dc] if 0 <= r - dr < rows and 0 <= c - dc < cols else 0 for c in range(cols))
        for r in range(rows)
    )


def crop(g: G) -> G | None:
    cells = [(r, c) for r, row in enumerate(g) for c, v in enumerate(row) if v]
    if not cells:
        return None
    rs, cs = [r for r, _ in cells], [c for _, c in cells]
    return tuple(row[min(cs) : max(cs) + 1] for row in g[min(rs) : max(rs) + 1])


def scale(g: G, k: int) -> G | None:
    if max(len(g), len(g[0])) * k > 24:
        return None
    return tuple(tuple(v for v in row for _ in range(k)) for row in g for _ in range(k))


def swap(g: G, a: int, b: int) -> G:
    return tuple(tuple(b if v == a else a if v == b else v for v in row) for row in g)


def groups() -> list[list]:
    flips = [
        rot_cw,
        lambda g: rot_cw(rot_cw(g)),
        lambda g: rot_cw(rot_cw(rot_cw(g))),
        lambda g: tuple(row[::-1] for row in g),
        lambda g: g[::-1],
        transpose,
        lambda g: transpose(rot_cw(rot_cw(g))),
    ]
    swaps = [lambda g, a=a, b=b: swap(g, a, b) for a in range(1, 10) for b in range(a + 1, 10)]
    gravity = [
        lambda g: fall(g, True),
        lambda g: fall(g, False),
        lambda g: transpose(fall(transpose(g), True)),
        lambda g: transpose(fall(transpose(g), False)),
    ]
    moves = [
        lambda g, d=d: shift(g, *d)
        for d in ((1, 0), (2, 0), (-1, 0), (-2, 0), (0, 1), (0, 2), (0, -1), (0, -2))
    ]
    return [flips, swaps, gravity, moves, [crop, lambda g: scale(g, 2), lambda g: scale(g, 3)]]


GROUPS = groups()


def parse(block: str) -> G:
    return tuple(tuple(int(v) for v in line.split()) for line in block.strip().splitlines())


def read_task(prompt: str) -> tuple[list[tuple[G, G]], G]:
    inputs = re.findall(r"Example \d+ input:\n([\d \n]+?)\nExample \d+ output:", prompt)
    outputs = re.findall(r"Example \d+ output:\n([\d \n]+?)\n\n", prompt)
    test = re.search(r"Test input:\n([\d \n]+?)\n\n", prompt)[1]
    return [(parse(a), parse(b)) for a, b in zip(inputs, outputs, strict=True)], parse(test)


def programs_outputs(steps: list, depth: int, pairs: list[tuple[G, G]], test: G) -> set[G]:
    results = set()
    sequences = [[s] for s in steps] if depth == 1 else [[s, t] for s in steps for t in steps]
    for program in sequences:

        def run(g: G | None, program: list = program) -> G | None:
            for fn in program:
                g = fn(g) if g is not None else None
            return g

        if all(run(a) == b for a, b in pairs):
            out = run(test)
            if out is not None:
                results.add(out)
    return results


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
def test_every_consistent_program_gives_the_answer(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    knobs = SPEC.levels[level]
    steps = [fn for group in GROUPS[: knobs.kinds] for fn in group]
    pairs, test = read_task(task.prompt)
    assert len(pairs) == knobs.examples
    assert programs_outputs(steps, knobs.depth, pairs, test) == {parse(task.answer)}
    if knobs.depth == 2:
        assert not programs_outputs(steps, 1, pairs, test), "no single step explains the examples"


def test_right_and_wrong_grids() -> None:
    task = palaestra.make_task(FAMILY, seed=3, level=6)
    grid = parse(task.answer)
    spaced = "\n".join(" ".join(map(str, row)) for row in grid)
    packed = "\n".join("".join(map(str, row)) for row in grid)
    for text in (
        f"<answer>\n{spaced}\n</answer>",
        f"<answer>\n{packed}\n</answer>",
        f"Output:\n\n<answer>{spaced}</answer>",
    ):
        assert palaestra.verify(task, text).correct, text
    changed = [list(row) for row in grid]
    changed[0][0] = (changed[0][0] + 1) % 10
    assert (
        palaestra.verify(
            task, "<answer>" + "\n".join(" ".join(map(str, r)) for r in changed) + "</answer>"
        ).status
        == "wrong"
    )
    bigger = spaced + "\n" + " ".join("0" * len(grid[0]))
    assert palaestra.verify(task, f"<answer>{bigger}</answer>").status == "wrong"
    for text in ("", "a b c", spaced.replace("0", "x", 1)):
        assert palaestra.verify(task, f"<answer>{text}</answer>").status == "unparseable", text


def test_weak_solver_fails_on_two_step_programs() -> None:
    def rate(level: int) -> float:
        tasks = [palaestra.make_task(FAMILY, seed=s, level=level) for s in range(20)]
        return sum(palaestra.verify(t, IMPL.solve_weak(t).response).correct for t in tasks) / 20

    assert rate(1) >= 0.8 and rate(10) <= 0.1


def test_hostile_answers_are_quick_format_errors() -> None:
    task = palaestra.make_task(FAMILY, seed=1, level=4)
    for text in ("1 " * 50_000, "1\n" * 30_000, "9" * 100_000):
        started = time.process_time()
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.05
