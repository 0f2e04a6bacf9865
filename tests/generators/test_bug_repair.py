"""bug_repair: injected bugs are each observable; any program passing the hidden suite is right."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.code._pipeline import render, rich_steps
from palaestra.generators.code.bug_repair import SPREAD, describe, run_source


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=30, deadline=None)
def test_bugs_are_observable_and_reverting_them_repairs(seed: int, level: int) -> None:
    task = palaestra.make_task("bug_repair", seed=seed, level=level)
    meta = task.metadata
    lines = meta["buggy"].split("\n")
    assert len(meta["bugs"]) == task.knobs["bugs"]
    assert run_source(meta["buggy"], meta["hidden"]) != meta["expected"]
    for bug in meta["bugs"]:
        # undoing every bug except this one still fails: each bug matters on its own
        partial = list(lines)
        for other in meta["bugs"]:
            if other is not bug:
                partial[other["line"]] = other["correct"]
        assert run_source("\n".join(partial), meta["hidden"]) != meta["expected"]
        lines[bug["line"]] = bug["correct"]
    assert run_source("\n".join(lines), meta["hidden"]) == meta["expected"]


def test_distinct_repairs_pass_and_wrong_ones_fail() -> None:
    task = palaestra.make_task("bug_repair", seed=4, level=5)
    meta = task.metadata
    plain = render(meta["pipeline"])
    helper = render(meta["pipeline"], name="_fixed")
    for good in (
        f"<answer>\n{task.answer}</answer>",
        f"```python\n{plain}```",
        f"<answer>\n{helper}\ndef f(xs):\n    return _fixed(xs)\n</answer>",
    ):
        assert palaestra.verify(task, good).correct, good
    lines = meta["buggy"].split("\n")
    first = meta["bugs"][0]
    lines[first["line"]] = first["correct"]  # only one of two bugs fixed
    for bad in (
        meta["buggy"],
        "\n".join(lines),
        "def f(xs):\n    return xs\n",
        "def f(xs):\n    return []\n",
    ):
        verdict = palaestra.verify(task, f"<answer>\n{bad}</answer>")
        assert not verdict.correct and verdict.format_ok, bad


def test_pathological_and_malformed_submissions() -> None:
    task = palaestra.make_task("bug_repair", seed=4, level=5)
    loop = palaestra.verify(task, "<answer>\ndef f(xs):\n    while True:\n        xs.append(1)\n</answer>")
    assert loop.status == "wrong" and "timeout" in loop.reason
    for text in ("<answer>def f(xs:</answer>", "<answer>print(1)</answer>", "no code at all"):
        verdict = palaestra.verify(task, text)
        assert not verdict.correct and not verdict.format_ok


def test_weak_one_edit_repair_gets_worse_with_level() -> None:
    impl = palaestra.registry.get("bug_repair").impl
    rates = []
    for level in (1, 5, 10):
        tasks = [palaestra.make_task("bug_repair", seed=s, level=level) for s in range(30)]
        rates.append(sum(impl.solve_weak(t).response is not None for t in tasks))
    assert rates[0] > rates[1] and rates[0] > rates[2]


def test_every_step_of_the_space_has_its_own_docstring_line() -> None:
    steps = [step for group in rich_steps(SPREAD).values() for step in group]
    lines = {describe(step) for step in steps}
    assert len(lines) == len(steps)  # the docstring pins down the intended step exactly


def test_level_3_rarely_repeats_a_task() -> None:
    # level 3 repeated 1.7% of 2,000 tasks with the small step space; 150 seeds must be distinct
    keys = {
        palaestra.make_task("bug_repair", seed=seed, level=3).metadata["canonical_hash"]
        for seed in range(150)
    }
    assert len(keys) == 150
