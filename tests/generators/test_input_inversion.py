"""input_inversion: any input with the target output is right (checked by running it in the sandbox)."""

from __future__ import annotations

import numpy as np

import palaestra
from palaestra.generators.code._pipeline import apply, render
from palaestra.generators.code.literals import parse_literal


def _alternatives(task, rng: np.random.Generator, want: int) -> tuple[list[list[int]], list[list[int]]]:
    """Inputs near the reference that do / do not give the target (by our in-process interpreter)."""
    pipeline, target = task.metadata["pipeline"], task.metadata["target"]
    ref = parse_literal(task.answer)
    same, other = [], []
    for _ in range(400):
        xs = list(ref)
        i = int(rng.integers(len(xs)))
        if rng.random() < 0.5:
            xs[i] = int(rng.integers(-60, 61))
        else:
            j = int(rng.integers(len(xs)))
            xs[i], xs[j] = xs[j], xs[i]
        if xs == ref:
            continue
        (same if apply(pipeline, xs)[0] == target else other).append(xs)
        if len(same) >= want and len(other) >= want:
            break
    return same[:want], other[:want]


def test_rendered_source_agrees_with_interpreter() -> None:
    rng = np.random.default_rng(0)
    for seed in range(60):
        task = palaestra.make_task("input_inversion", seed=seed, level=1 + seed % 10)
        namespace: dict = {}
        exec(render(task.metadata["pipeline"]), namespace)  # noqa: S102 - our own generated code
        for _ in range(5):
            xs = [int(v) for v in rng.integers(-30, 31, size=int(rng.integers(0, 9)))]
            assert namespace["f"](xs) == apply(task.metadata["pipeline"], xs)[0]


def test_other_valid_inputs_pass_and_invalid_ones_fail() -> None:
    rng = np.random.default_rng(1)
    accepted = 0
    for seed in range(6):
        task = palaestra.make_task("input_inversion", seed=seed, level=4)
        same, other = _alternatives(task, rng, 2)
        for xs in same:
            assert palaestra.verify(task, f"<answer>{xs}</answer>").correct, (task.answer, xs)
            accepted += 1
        for xs in other:
            verdict = palaestra.verify(task, f"<answer>{xs}</answer>")
            assert not verdict.correct and verdict.format_ok
    assert accepted >= 2  # distinct valid answers besides the reference were found and accepted


def test_format_variants_and_bounds() -> None:
    task = palaestra.make_task("input_inversion", seed=5, level=3)
    ref = task.answer
    for ok in (
        f"Input: {ref}",
        f"\\boxed{{{ref}}}",
        f"<answer>{ref.replace(' ', '')}</answer>",
        f"<answer>({ref[1:-1]},)</answer>",
    ):
        assert palaestra.verify(task, ok).correct, ok
    for bad in ("[1, 2", "[1.5]", "['a']", "[True]", f"{[1] * 31}", "[20000]", "[" * 200, "f([1])"):
        verdict = palaestra.verify(task, f"<answer>{bad}</answer>")
        assert not verdict.correct and not verdict.format_ok, bad


def test_weak_solver_gets_worse_with_level() -> None:
    impl = palaestra.registry.get("input_inversion").impl
    rates = []
    for level in (1, 5, 10):
        tasks = [palaestra.make_task("input_inversion", seed=s, level=level) for s in range(40)]
        rates.append(sum(impl.solve_weak(t).response is not None for t in tasks))
    assert rates[0] > rates[1] >= rates[2]
