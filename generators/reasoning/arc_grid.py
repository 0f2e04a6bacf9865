"""ARC-style grid transformations: infer a hidden transformation from examples, apply it.

A hidden program of one or two steps from a small DSL (rotations and flips, swapping two
colours, gravity towards a side, translation with zero fill, cropping to the coloured cells,
scaling by 2 or 3) is shown on 2 to 4 input/output pairs of random digit grids (0 is the
background), and the answer is the program's output on a test grid. The generator enumerates
every program of the DSL up to the hidden program's length and keeps the task only when all
those consistent with the examples give the same test output (so the answer is unique even
though several programs may explain the examples) and, for two-step programs, no single step
is consistent with the examples (the task really needs two). The tests re-apply the
transformations with their own code and enumerate the programs again.

Difficulty: larger grids, more kinds of steps, two-step programs from level 5. The exact
solver's effort is the grid cells its enumeration computes. The weak solver takes the first
single step consistent with the first example and applies it to the test grid (it cannot find
two-step programs).

Generation: ~1,500 tasks per CPU-second at level 1, ~90 at level 5 and ~40 at level 10
(under 50/s from level 7: the uniqueness proof applies all ~3,300 two-step programs of the
DSL to the examples).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.constraints import read_grid
from palaestra.verifiers.extract import extract_answer

MAX_SIDE = 24  # a step whose output would be larger than this is inapplicable
MAX_ANSWER_CHARS = 4000
Grid = np.ndarray
Step = tuple[str, Callable[[Grid], Grid | None]]


def _gravity(grid: Grid, axis: int, towards_end: bool) -> Grid:
    key = (grid != 0) if towards_end else (grid == 0)
    order = np.argsort(key, axis=axis, kind="stable")
    return np.take_along_axis(grid, order, axis=axis)


def _shift(grid: Grid, dr: int, dc: int) -> Grid:
    out = np.zeros_like(grid)
    rows, cols = grid.shape
    out[max(dr, 0) : rows + min(dr, 0), max(dc, 0) : cols + min(dc, 0)] = grid[
        max(-dr, 0) : rows - max(dr, 0), max(-dc, 0) : cols - max(dc, 0)
    ]
    return out


def _crop(grid: Grid) -> Grid | None:
    rows, cols = np.nonzero(grid)
    if rows.size == 0:
        return None
    return grid[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1]


def _scale(grid: Grid, k: int) -> Grid | None:
    if max(grid.shape) * k > MAX_SIDE:
        return None
    return np.kron(grid, np.ones((k, k), dtype=grid.dtype))


def _swap(grid: Grid, a: int, b: int) -> Grid:
    out = grid.copy()
    out[grid == a], out[grid == b] = b, a
    return out


def step_groups() -> list[list[Step]]:
    """The DSL's steps in groups, in the order the ``kinds`` knob adds them."""
    dihedral: list[Step] = [
        ("rotate 90 clockwise", lambda g: np.rot90(g, -1)),
        ("rotate 180", lambda g: np.rot90(g, 2)),
        ("rotate 90 counter-clockwise", lambda g: np.rot90(g, 1)),
        ("flip left-right", np.fliplr),
        ("flip top-bottom", np.flipud),
        ("transpose", lambda g: g.T),
        ("anti-transpose", lambda g: np.rot90(g, 2).T),
    ]
    swaps: list[Step] = [
        (f"swap colours {a} and {b}", lambda g, a=a, b=b: _swap(g, a, b))
        for a in range(1, 10)
        for b in range(a + 1, 10)
    ]
    gravity: list[Step] = [
        ("gravity down", lambda g: _gravity(g, 0, True)),
        ("gravity up", lambda g: _gravity(g, 0, False)),
        ("gravity right", lambda g: _gravity(g, 1, True)),
        ("gravity left", lambda g: _gravity(g, 1, False)),
    ]
    moves: list[Step] = [
        (f"shift {name} by {k}", lambda g, dr=dr * k, dc=dc * k: _shift(g, dr, dc))
        for name, dr, dc in (("down", 1, 0), ("up", -1, 0), ("right", 0, 1), ("left", 0, -1))
        for k in (1, 2)
    ]
    resize: list[Step] = [
        ("crop to the coloured cells", _crop),
        ("scale by 2", lambda g: _scale(g, 2)),
        ("scale by 3", lambda g: _scale(g, 3)),
    ]
    return [dihedral, swaps, gravity, moves, resize]


GROUPS = step_groups()


@dataclass(frozen=True)
class ArcGridKnobs(Knobs):
    side: int = knob(3, low=3, high=10, help="largest side of the random grids")
    kinds: int = knob(
        1, low=1, high=len(GROUPS), help="step groups: dihedral, +swaps, +gravity, +shifts, +resizing"
    )
    depth: int = knob(1, low=1, high=2, help="steps in the hidden program")
    examples: int = knob(2, low=2, high=4, help="example pairs shown")
    colours: int = knob(3, low=2, high=9, help="colours used in the grids")
    density: float = knob(0.5, low=0.1, high=0.9, help="share of coloured cells")


LEVELS = {
    1: ArcGridKnobs(side=3, kinds=1, depth=1, examples=2, colours=3),
    2: ArcGridKnobs(side=4, kinds=2, depth=1, examples=2, colours=3),
    3: ArcGridKnobs(side=5, kinds=3, depth=1, examples=3, colours=4, density=0.4),
    4: ArcGridKnobs(side=6, kinds=5, depth=1, examples=3, colours=4, density=0.4),
    5: ArcGridKnobs(side=4, kinds=2, depth=2, examples=3, colours=4),
    6: ArcGridKnobs(side=5, kinds=3, depth=2, examples=3, colours=4, density=0.4),
    7: ArcGridKnobs(side=5, kinds=5, depth=2, examples=3, colours=5, density=0.4),
    8: ArcGridKnobs(side=6, kinds=5, depth=2, examples=3, colours=5, density=0.4),
    9: ArcGridKnobs(side=7, kinds=5, depth=2, examples=3, colours=6, density=0.35),
    10: ArcGridKnobs(side=8, kinds=5, depth=2, examples=2, colours=6, density=0.3),
}


def steps_for(kinds: int) -> list[Step]:
    return [step for group in GROUPS[:kinds] for step in group]


def run(program: list[Step], grid: Grid) -> Grid | None:
    for _, fn in program:
        grid = fn(grid)
        if grid is None:
            return None
    return grid


def consistent_outputs(
    steps: list[Step], depth: int, pairs: list[tuple[Grid, Grid]], test: Grid
) -> tuple[dict[bytes, Grid], list[str], int]:
    """Test outputs of every program of exactly ``depth`` steps consistent with the examples
    (keyed by their bytes and shape), the first such program's step names, and the cells computed."""
    found: dict[bytes, Grid] = {}
    first: list[str] = []
    cells = 0

    def extend(prefix: list[Step], images: list[Grid]) -> None:
        nonlocal first, cells
        for step in steps:
            outs = []
            for (_, target), image in zip(pairs, images, strict=True):
                out = step[1](image)
                cells += image.size
                if out is None or (len(prefix) + 1 == depth and not _same(out, target)):
                    break
                outs.append(out)
            else:
                program = [*prefix, step]
                if len(program) < depth:
                    extend(program, outs)
                    continue
                result = run(program, test)
                if result is not None:
                    found.setdefault(_key(result), result)
                    first = first or [name for name, _ in program]

    extend([], [source for source, _ in pairs])
    return found, first, cells


def _same(a: Grid, b: Grid) -> bool:
    return a.shape == b.shape and bool((a == b).all())


def _key(grid: Grid) -> bytes:
    return bytes(str(grid.shape), "ascii") + grid.tobytes()


def render(grid: Grid) -> str:
    return "\n".join(" ".join(str(int(v)) for v in row) for row in grid)


def random_grid(knobs: ArcGridKnobs, rng: np.random.Generator, palette: list[int]) -> Grid:
    rows, cols = (int(x) for x in rng.integers(max(2, knobs.side - 2), knobs.side + 1, size=2))
    colours = rng.choice(palette, size=(rows, cols))
    mask = rng.random((rows, cols)) < knobs.density
    return np.where(mask, colours, 0).astype(np.int8)


PROMPT = """Each example below shows an input grid and its output grid (digits are colours, 0 is \
the background). The same hidden transformation turns every input into its output; it is made \
of one or two steps such as rotating or flipping the grid, swapping two colours, letting the \
coloured cells fall to one side, shifting the grid (cells shifted out are lost, 0 fills in), \
cropping to the coloured cells, or scaling the grid up.

{examples}

Test input:
{test}

Apply the same transformation to the test input. Answer with the output grid, one row per \
line, digits separated by spaces, inside <answer></answer>."""


@family(
    "arc_grid",
    domain="reasoning",
    knobs=ArcGridKnobs,
    levels=LEVELS,
    description="ARC-style: infer a hidden grid transformation (rotations, flips, colour swaps, gravity, shifts, crop, scale) from examples and apply it.",
    verifier_kind="exact grid (unique: every DSL program consistent with the examples agrees on the test)",
)
class ArcGrid(Family):
    def generate(self, knobs: ArcGridKnobs, rng: np.random.Generator) -> TaskDraft:
        steps = steps_for(knobs.kinds)
        for _ in range(300):
            program = [steps[int(rng.integers(len(steps)))] for _ in range(knobs.depth)]
            palette = sorted(int(c) for c in rng.choice(np.arange(1, 10), size=knobs.colours, replace=False))
            inputs = [random_grid(knobs, rng, palette) for _ in range(knobs.examples + 1)]
            outputs = [run(program, grid) for grid in inputs]
            if any(o is None or _same(o, i) or not o.any() for i, o in zip(inputs, outputs, strict=True)):
                continue  # a step inapplicable, or the program does nothing visible on a grid
            pairs = list(zip(inputs[:-1], outputs[:-1], strict=True))
            test, answer = inputs[-1], outputs[-1]
            if knobs.depth == 2 and consistent_outputs(steps, 1, pairs, test)[0]:
                continue  # one step explains the examples: not a two-step task
            found, _, cells = consistent_outputs(steps, knobs.depth, pairs, test)
            if list(found) == [_key(answer)]:
                break
        else:  # pragma: no cover - most draws are identifiable
            raise RuntimeError(f"no identifiable transformation for {knobs}")
        weak, _, weak_cells = consistent_outputs(steps, 1, pairs[:1], test)
        examples = "\n\n".join(
            f"Example {i + 1} input:\n{render(a)}\nExample {i + 1} output:\n{render(b)}"
            for i, (a, b) in enumerate(pairs)
        )
        metadata = {
            "program": [name for name, _ in program],
            "shape": list(answer.shape),
            "cells": cells + (weak_cells if knobs.depth == 2 else 0),
            "weak": render(next(iter(weak.values()))) if weak else render(test),
            "canonical_hash": content_hash([[render(a), render(b)] for a, b in pairs] + [render(test)]),
        }
        prompt = PROMPT.format(examples=examples, test=render(test))
        return TaskDraft(prompt=prompt, answer=render(answer), metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True, max_chars=MAX_ANSWER_CHARS)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        rows, cols = task.metadata["shape"]
        grid, reason = read_grid(extraction.text, rows, cols, cells="0123456789")
        if grid is None:
            shape = _digit_grid_shape(extraction.text)
            if shape is not None and shape != (rows, cols):
                return Verdict.wrong(f"the grid is {shape[0]}x{shape[1]}, the output is not", parsed=shape)
            return Verdict.bad_format(reason)
        shown = "\n".join(" ".join(row) for row in grid)
        if shown == task.answer:
            return Verdict.right(parsed=shown)
        return Verdict.wrong("the grid differs from the transformed test input", parsed=shown)

    def solve_exact(self, task: Task) -> SolverRun:
        """Enumerates every program up to the hidden length (effort = grid cells computed)."""
        return SolverRun(f"<answer>\n{task.answer}\n</answer>", float(task.metadata["cells"]))

    def solve_weak(self, task: Task) -> SolverRun:
        """The first single step consistent with the first example, applied to the test grid."""
        return SolverRun(f"<answer>\n{task.metadata['weak']}\n</answer>", 1.0)

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        grid = np.array([[int(v) for v in line.split()] for line in task.answer.splitlines()])
        flipped = grid.copy()
        r, c = int(rng.integers(grid.shape[0])), int(rng.integers(grid.shape[1]))
        flipped[r, c] = (flipped[r, c] + 1) % 10
        wrong = [
            render(flipped),
            render(np.fliplr(grid)),
            render(np.flipud(grid)),
            render(grid.T),
            render(grid[:, :-1]),
        ]
        return [f"<answer>\n{w}\n</answer>" for w in dict.fromkeys(wrong) if w != task.answer]


def _digit_grid_shape(text: str) -> tuple[int, int] | None:
    """The shape of a well-formed grid of digits of any size (rows of equal length), else None."""
    lines = [line.split() for line in text.strip().splitlines() if line.strip()]
    if not lines or len(lines) > 100 or any(len(row) != len(lines[0]) for row in lines):
        return None
    if not all(re.fullmatch(r"\d", cell) for row in lines for cell in row):
        return None
    return len(lines), len(lines[0])
