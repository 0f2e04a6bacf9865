"""program_equivalence: z3's verdict cross-checked by exhaustive evaluation; any counterexample counts."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.code.program_equivalence import (
    evaluate,
    mutate,
    parse_answer,
    parse_program,
    render,
    rewrite,
)

FAMILY = "program_equivalence"


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


def _task(equivalent: bool, level: int = 4, start: int = 0):
    return next(
        t
        for s in range(start, start + 200)
        if (t := palaestra.make_task(FAMILY, seed=s, level=level)).metadata["equivalent"] == equivalent
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
    assert palaestra.verify(same, f"<answer>{same.answer}</answer>").correct
    for text in ("x=1, y=2", "x=0, y=0", "x=255, y=255"):
        verdict = palaestra.verify(same, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.format_ok


def test_answer_formats() -> None:
    names = ["x", "y"]
    assert parse_answer("x=3, y=0x1f", names, 8) == {"x": 3, "y": 31}
    assert parse_answer("(y = 4 and x = 7)", names, 8) == {"x": 7, "y": 4}
    assert parse_answer("Equivalent.\n(x + y)\n(y + x)", names, 8) == [
        ["+", ["var", "x"], ["var", "y"]]
    ] * 0 + [
        ["+", ["var", "x"], ["var", "y"]],
        ["+", ["var", "y"], ["var", "x"]],
    ]
    for bad in ("x=3", "x=3, y=256", "x=1, y=2, z=3", "x=1, x=2", "x=-1, y=2", "x=1, y=2 because", "no"):
        assert isinstance(parse_answer(bad, names, 8), str), bad
    assert isinstance(parse_answer("x=" + "9" * 5000 + ", y=1", names, 8), str)
    assert isinstance(parse_answer("equivalent", names, 8), str)  # a bare verdict is a format error


def test_program_parser_follows_c_precedence_and_refuses_the_rest() -> None:
    names = ["x", "y"]
    read = lambda text: parse_program(text, names)  # noqa: E731
    assert read("x + y << 1") == ["shl", ["+", ["var", "x"], ["var", "y"]], 1]
    assert read("~x & y | 3") == ["|", ["&", ["not", ["var", "x"]], ["var", "y"]], ["const", 3]]
    assert read("x - y - 1") == ["-", ["-", ["var", "x"], ["var", "y"]], ["const", 1]]
    assert read("((x ^ y))") == ["^", ["var", "x"], ["var", "y"]]
    for bad in (
        "x * y",
        "(x + y",
        "x + y)",
        "x << y",
        "z + 1",
        "x +",
        "",
        "1" * 30,
        "x" + " + x" * 700,
        "x; y",
    ):
        assert read(bad) is None, bad
    assert read("(" * 5000 + "x" + ")" * 5000) is None  # too deep: refused, never a RecursionError


def _detour(chain: list, rng: np.random.Generator) -> list:
    """A longer valid chain: somewhere, one rewrite forward and the same identity back."""
    k = int(rng.integers(len(chain)))
    there = rewrite(chain[k], rng)
    return chain[: k + 1] + [there, chain[k]] + chain[k + 1 :]


@given(seed=st.integers(0, 10_000), level=st.integers(1, 8), detours=st.integers(0, 3))
@settings(max_examples=15, deadline=None)
def test_any_valid_chain_passes_and_a_broken_one_fails(seed: int, level: int, detours: int) -> None:
    task = _task(True, level, start=seed % 50)
    meta = task.metadata
    chain = parse_answer(task.answer, meta["names"], meta["width"])
    rng = np.random.default_rng(seed)
    for _ in range(detours):
        chain = _detour(chain, rng)
    for candidate in (chain, chain[::-1]):  # either direction
        text = "equivalent\n" + "\n".join(render(e) for e in candidate)
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct
    mask = (1 << meta["width"]) - 1
    for before, after in zip(chain, chain[1:], strict=False):  # every accepted step keeps the meaning
        for _ in range(20):
            env = {n: int(rng.integers(0, mask + 1)) for n in meta["names"]}
            assert evaluate(before, env, mask) == evaluate(after, env, mask)
    k = int(rng.integers(len(chain)))
    broken = chain[:k] + [mutate(chain[k], rng)] + chain[k + 1 :]
    text = "equivalent\n" + "\n".join(render(e) for e in broken)
    verdict = palaestra.verify(task, f"<answer>{text}</answer>")
    assert verdict.format_ok and not verdict.correct


def test_equivalence_needs_a_chain() -> None:
    task = _task(True)
    meta = task.metadata
    for text in ("equivalent", "Equivalent.", "yes, equivalent", "equal"):
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")  # scored 47% as a constant
        assert not verdict.correct and not verdict.format_ok, text
    f, g = render(meta["f"]), render(meta["g"])
    for text in (f"equivalent\n{f}\n{g}", f"equivalent\n{f}", f"equivalent\n{f}\n{f}\n{g}"):
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert verdict.format_ok and not verdict.correct, text
    names = ", ".join(meta["names"])
    labelled = "equivalent\n" + "\n".join(
        f"{'f' if k == 0 else 'g' if k == len(lines) - 1 else ''}({names}) = {line}"
        if k in (0, len(lines) - 1)
        else f"= {line}"
        for lines in [task.answer.splitlines()[1:]]
        for k, line in enumerate(lines)
    )
    assert palaestra.verify(task, f"<answer>{labelled}</answer>").correct, labelled
    assert palaestra.verify(task, palaestra.registry.get(FAMILY).impl.solve_exact(task).response).correct
    differing = _task(False)
    fake = f"equivalent\n{render(differing.metadata['f'])}\n{render(differing.metadata['g'])}"
    assert not palaestra.verify(differing, f"<answer>{fake}</answer>").correct


def test_weak_random_testing_gets_worse_with_level() -> None:
    impl = palaestra.registry.get("program_equivalence").impl
    rates = []
    for level in (1, 7):
        tasks = [palaestra.make_task("program_equivalence", seed=s, level=level) for s in range(20)]
        rates.append(sum(palaestra.verify(t, impl.solve_weak(t).response).correct for t in tasks))
    assert rates[0] > rates[1]
