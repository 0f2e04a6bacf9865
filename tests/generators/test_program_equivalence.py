"""program_equivalence: z3's verdict cross-checked by exhaustive evaluation; any counterexample counts."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.code.program_equivalence import evaluate, parse_answer


def _differing(task) -> list[dict[str, int]]:
    meta = task.metadata
    mask = (1 << meta["width"]) - 1
    out = []
    for values in itertools.product(range(mask + 1), repeat=len(meta["names"])):
        env = dict(zip(meta["names"], values, strict=True))
        if evaluate(meta["f"], env, mask) != evaluate(meta["g"], env, mask):
            out.append(env)
    return out


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 4))
@settings(max_examples=12, deadline=None)
def test_truth_matches_exhaustive_evaluation(seed: int, level: int) -> None:
    task = palaestra.make_task("program_equivalence", seed=seed, level=level)
    differing = _differing(task)
    assert task.metadata["equivalent"] == (not differing)
    for env in differing[:2] + differing[-1:]:  # several distinct counterexamples are all accepted
        text = ", ".join(f"{k}={v}" for k, v in env.items())
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct


def _task(equivalent: bool, level: int = 4):
    return next(
        t
        for s in range(200)
        if (t := palaestra.make_task("program_equivalence", seed=s, level=level)).metadata["equivalent"]
        == equivalent
    )


def test_wrong_answers_fail() -> None:
    task = _task(False)
    differing = _differing(task)
    agreeing = [
        {"x": x, "y": y} for x in range(256) for y in range(0, 256, 17) if {"x": x, "y": y} not in differing
    ][:3]
    assert len(agreeing) == 3
    for env in agreeing:
        assert not palaestra.verify(task, f"<answer>x={env['x']}, y={env['y']}</answer>").correct
    assert not palaestra.verify(task, "<answer>equivalent</answer>").correct
    same = _task(True)
    for text in ("x=1, y=2", "x=0, y=0", "x=255, y=255"):
        verdict = palaestra.verify(same, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.format_ok


def test_answer_formats() -> None:
    names = ["x", "y"]
    assert parse_answer("x=3, y=0x1f", names, 8) == {"x": 3, "y": 31}
    assert parse_answer("(y = 4 and x = 7)", names, 8) == {"x": 7, "y": 4}
    assert parse_answer("Equivalent.", names, 8) == "equivalent"
    for bad in ("x=3", "x=3, y=256", "x=1, y=2, z=3", "x=1, x=2", "x=-1, y=2", "x=1, y=2 because", "no"):
        assert parse_answer(bad, names, 8) is None, bad


def test_weak_random_testing_gets_worse_with_level() -> None:
    impl = palaestra.registry.get("program_equivalence").impl
    rates = []
    for level in (1, 7):
        tasks = [palaestra.make_task("program_equivalence", seed=s, level=level) for s in range(20)]
        rates.append(sum(palaestra.verify(t, impl.solve_weak(t).response).correct for t in tasks))
    assert rates[0] > rates[1]
