"""regex_synthesis: our NFA matcher agrees with Python's re on our own targets; graded up to max_len."""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.code.regex_synthesis import RegexError, parse_regex


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=25, deadline=None)
def test_language_matches_python_re_on_the_target(seed: int, level: int) -> None:
    task = palaestra.make_task("regex_synthesis", seed=seed, level=level)
    meta = task.metadata
    target = re.compile(task.answer)  # our own generated pattern, not model text
    strings = (
        "".join(p) for n in range(meta["max_len"] + 1) for p in itertools.product(meta["alphabet"], repeat=n)
    )
    assert {s for s in strings if target.fullmatch(s)} == set(meta["language"])
    assert all(s in meta["language"] for s in meta["positives"])
    assert not any(s in meta["language"] for s in meta["negatives"])


def test_distinct_valid_answers_and_wrong_ones() -> None:
    task = palaestra.make_task("regex_synthesis", seed=1, level=4)
    # the short strings of the language listed explicitly, then the target for the rest
    short = "|".join(f"({s})" for s in task.metadata["language"] if 0 < len(s) <= 2)
    listing = f"{short}|({task.answer})" if short else f"(({task.answer}))"
    for ok in (
        task.answer,
        f"({task.answer})",
        f"({task.answer})|({task.answer})",
        listing,
        f"/{task.answer}/",
    ):
        assert palaestra.verify(task, f"<answer>{ok}</answer>").correct, ok
    for bad in (
        ".*",
        "a*",
        f"({task.answer})a",
        f"({task.answer})|" + next(n for n in task.metadata["negatives"] if n),
        "b+",
    ):
        verdict = palaestra.verify(task, f"<answer>{bad}</answer>")
        assert not verdict.correct and verdict.format_ok, bad


def test_unsafe_or_unsupported_syntax_is_a_format_error() -> None:
    task = palaestra.make_task("regex_synthesis", seed=1, level=4)
    for bad in ("(a+)+$", "^a", "a{2}", "\\d", "(?=a)", "(a", "[a-", "(" * 100 + ")" * 100, "a" * 400, "[z]"):
        verdict = palaestra.verify(task, f"<answer>{bad}</answer>")
        assert not verdict.correct and not verdict.format_ok, bad
    try:
        parse_regex("((a|b)*)*c", "ab")
    except RegexError:
        pass
    else:
        raise AssertionError("c is not in the alphabet")


def test_catastrophic_backtracking_pattern_is_fast() -> None:
    task = palaestra.make_task("regex_synthesis", seed=2, level=8)
    # exponential for a backtracking engine, linear for the NFA simulation
    verdict = palaestra.verify(task, "<answer>" + "(a*)*" * 30 + "b</answer>")
    assert verdict.format_ok and verdict.error is None


def test_weak_solver_gets_worse_with_level() -> None:
    impl = palaestra.registry.get("regex_synthesis").impl
    rates = []
    for level in (1, 5, 10):
        tasks = [palaestra.make_task("regex_synthesis", seed=s, level=level) for s in range(30)]
        runs = [impl.solve_weak(t).response for t in tasks]
        rates.append(
            sum(r is not None and palaestra.verify(t, r).correct for t, r in zip(tasks, runs, strict=True))
        )
    assert rates[0] > rates[1] and rates[0] > rates[2]


def test_structured_levels_reject_two_atom_languages_and_spread() -> None:
    from palaestra.generators.code.regex_synthesis import language, tiny_regexes

    tasks = [palaestra.make_task("regex_synthesis", seed=s, level=3) for s in range(300)]
    meta = tasks[0].metadata
    tiny = {frozenset(language(c, meta["alphabet"], meta["max_len"])) for c in tiny_regexes(meta["alphabet"])}
    assert not any(frozenset(t.metadata["language"]) in tiny for t in tasks)
    # small random regexes kept drawing the same few languages; these must be (nearly) all distinct
    assert len({t.metadata["canonical_hash"] for t in tasks}) >= 297
