"""function_induction: the submitted f is run on hidden inputs in the sandbox."""

from __future__ import annotations

import json

import numpy as np

import palaestra
from palaestra.generators.code._pipeline import apply, render, rich_steps


def _task(level: int = 5, seed: int = 3):
    return palaestra.make_task("function_induction", seed=seed, level=level)


def test_hidden_expected_outputs_come_from_the_rendered_source() -> None:
    for seed in range(40):
        task = _task(1 + seed % 10, seed)
        namespace: dict = {}
        exec(task.answer, namespace)  # noqa: S102 - our own generated reference program
        hidden = task.metadata["hidden"]
        assert [namespace["f"](xs) for xs in hidden] == task.metadata["expected"]
        assert [] in hidden  # edge cases are among the hidden tests


def test_distinct_correct_programs_pass() -> None:
    task = _task()
    helper = render(task.metadata["pipeline"], name="_helper")
    variants = [
        f"<answer>\n{task.answer}</answer>",
        f"```python\n{helper}\ndef f(xs):\n    return list(_helper(tuple(xs)))\n```",
        f"<answer>\n```python\nimport sys\n{task.answer}```\n</answer>",
    ]
    for response in variants:
        verdict = palaestra.verify(task, response)
        assert verdict.correct, (response, verdict)


def test_wrong_programs_fail() -> None:
    task = _task()
    pipeline = task.metadata["pipeline"]
    shown = task.metadata["shown"]
    table = {str(xs): apply(pipeline, xs)[0] for xs in shown}
    wrong = [
        "<answer>\ndef f(xs):\n    return xs\n</answer>",
        f"<answer>\n{render(pipeline[:-1])}</answer>",
        f"<answer>\ndef f(xs):\n    return {table!r}[str(xs)]\n</answer>",  # memorised examples only
        "<answer>\ndef f(xs):\n    return tuple(sorted(xs))\n</answer>",
        "<answer>\ndef f(xs):\n    return [float(x) for x in xs]\n</answer>",
    ]
    for response in wrong:
        verdict = palaestra.verify(task, response)
        assert not verdict.correct and verdict.format_ok, (response, verdict)


def test_non_programs_are_format_errors_without_running() -> None:
    task = _task()
    for response in (
        "<answer>def f(xs) return xs</answer>",
        "<answer>def g(xs):\n    return xs\n</answer>",
        "def f(xs):\n    return xs",
        "<answer>[1, 2]</answer>",
    ):
        verdict = palaestra.verify(task, response)
        assert not verdict.correct and not verdict.format_ok, response


def test_pathological_programs_end_in_bounded_time() -> None:
    task = _task()
    loop = palaestra.verify(task, "<answer>\ndef f(xs):\n    while True:\n        pass\n</answer>")
    assert loop.status == "wrong" and "timeout" in loop.reason and loop.error is None
    bomb = "<answer>\nimport os\ndef f(xs):\n    while True:\n        os.fork()\n</answer>"
    assert not palaestra.verify(task, bomb).correct
    flood = "<answer>\ndef f(xs):\n    print('x' * 10**7)\n    return xs\n</answer>"
    assert not palaestra.verify(task, flood).correct
    forged = (
        "<answer>\nimport os, sys\ndef f(xs):\n    sys.stdout.write('\\n@@palaestra-results@@\\n[]')\n"
        "    sys.stdout.flush()\n    os._exit(0)\n</answer>"
    )
    assert not palaestra.verify(task, forged).correct


def test_weak_solver_gets_worse_with_level() -> None:
    impl = palaestra.registry.get("function_induction").impl
    rng = np.random.default_rng(0)
    rates = []
    for level in (1, 5, 10):
        seeds = rng.integers(0, 2**32, size=30)
        rates.append(sum(impl.solve_weak(_task(level, int(s))).response is not None for s in seeds))
    assert rates[0] > rates[1] >= rates[2]


def test_every_step_of_the_space_is_a_distinct_function() -> None:
    # the canonical hash is the hidden pipeline: a step field that changed nothing would let two
    # copies of one hidden function pass as different tasks
    rng = np.random.default_rng(1)
    probes = [[int(v) for v in rng.integers(-40, 41, size=int(rng.integers(0, 12)))] for _ in range(60)]
    for spread in (9, 15):
        steps = [step for group in rich_steps(spread).values() for step in group]
        behaviours = {json.dumps([apply([step], xs)[0] for xs in probes]) for step in steps}
        assert len(behaviours) == len(steps), spread


def test_few_step_levels_rarely_repeat_a_hidden_function() -> None:
    # level 3 (two steps) repeated its hidden function in about half of 2,000 seeds before the
    # step space was widened; now about 0.5% (measured/duplicates.json, 2,000 seeds):
    # 400 seeds may hold one or two chance repeats, never more
    keys = {_task(3, seed).metadata["canonical_hash"] for seed in range(400)}
    assert len(keys) >= 398
