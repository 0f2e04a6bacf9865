"""type_inference: algorithm W on textbook terms; answers compared up to renaming."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.code.type_inference import TypeErrorHM, canonical, infer_type, parse_type


def _v(name):
    return ["var", name]


def _fun(x, body):
    return ["fun", x, body]


def _app(f, *args):
    for a in args:
        f = ["app", f, a]
    return f


KNOWN = [
    (
        _fun("f", _fun("g", _fun("x", _app(_v("f"), _app(_v("g"), _v("x")))))),
        "('a -> 'b) -> ('c -> 'a) -> 'c -> 'b",
    ),
    (_fun("f", _fun("x", _fun("y", _app(_v("f"), _v("y"), _v("x"))))), "('a -> 'b -> 'c) -> 'b -> 'a -> 'c"),
    (_fun("f", _fun("x", _app(_v("f"), _app(_v("f"), _v("x"))))), "('a -> 'a) -> 'a -> 'a"),
    (
        ["let", "i", _fun("x", _v("x")), ["pair", _app(_v("i"), ["int", 1]), _app(_v("i"), ["bool", True])]],
        "int * bool",
    ),
    (_fun("p", ["pair", _app(_v("snd"), _v("p")), _app(_v("fst"), _v("p"))]), "'a * 'b -> 'b * 'a"),
    (
        _fun(
            "x", ["if", _app(_v("eq"), _v("x"), ["int", 0]), ["int", 1], _app(_v("add"), _v("x"), ["int", 1])]
        ),
        "int -> int",
    ),
]


@pytest.mark.parametrize("term,expected", KNOWN)
def test_textbook_types(term, expected) -> None:
    assert canonical(infer_type(term)[0]) == expected


def test_ill_typed_terms_are_rejected() -> None:
    for term in (
        _fun("x", _app(_v("x"), _v("x"))),  # occurs check
        _fun(
            "f", ["pair", _app(_v("f"), ["int", 1]), _app(_v("f"), ["bool", True])]
        ),  # lambda-bound: monomorphic
        ["if", ["int", 1], ["int", 2], ["int", 3]],
    ):
        with pytest.raises(TypeErrorHM):
            infer_type(term)


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_renamed_answers_pass_and_wrong_ones_fail(seed: int, level: int) -> None:
    task = palaestra.make_task("type_inference", seed=seed, level=level)
    answer = task.answer
    renamed = re.sub(r"'([a-z])", lambda m: f"'t{ord(m.group(1)) - 96}", answer)
    assert palaestra.verify(task, f"<answer>{renamed}</answer>").correct
    assert palaestra.verify(task, f"Type: <answer>({answer})</answer>").correct
    assert canonical(parse_type(answer)) == answer
    wrong = [f"{answer} -> int", f"({answer}) * bool", "'a", "'a -> 'a"]
    for w in wrong:
        if canonical(parse_type(w)) != answer:
            assert not palaestra.verify(task, f"<answer>{w}</answer>").correct


def test_less_general_and_malformed_answers() -> None:
    task = next(
        t for s in range(100) if "'a" in (t := palaestra.make_task("type_inference", seed=s, level=3)).answer
    )
    assert not palaestra.verify(task, f"<answer>{task.answer.replace(chr(39) + 'a', 'int')}</answer>").correct
    for bad in ("a -> b", "'a ->", "('a", "int int", "list 'a", "'a" + " -> 'a" * 600):
        verdict = palaestra.verify(task, f"<answer>{bad}</answer>")
        assert not verdict.correct and not verdict.format_ok, bad


def test_level_3_rarely_repeats_a_task() -> None:
    # level 3 once drew 6-node terms: a quarter of 2,000 tasks repeated; 400 seeds must be distinct
    keys = {
        palaestra.make_task("type_inference", seed=s, level=3).metadata["canonical_hash"] for s in range(400)
    }
    assert len(keys) == 400
