"""Tests of the core contract: seeds, knobs, tasks and verdicts."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import (
    Difficulty,
    Knobs,
    Task,
    Verdict,
    _name_to_int,
    canonical_json,
    check_seed,
    content_hash,
    knob,
    make_rng,
    seed_sequence,
)


@dataclass(frozen=True)
class DemoKnobs(Knobs):
    size: int = knob(3, low=1, high=9, help="size")
    mode: str = knob("a", choices=("a", "b"), help="mode")
    ratio: float = knob(0.5, low=0.0, high=1.0, help="ratio")
    flag: bool = knob(False, help="flag")


def test_knobs_validate_types_ranges_and_choices() -> None:
    assert DemoKnobs(size="4", flag="yes", ratio=1).to_dict() == {
        "size": 4,
        "mode": "a",
        "ratio": 1.0,
        "flag": True,
    }
    with pytest.raises(ValueError, match=r"out of range \[1, 9\]"):
        DemoKnobs(size=10)
    with pytest.raises(ValueError, match=r"choose one of \['a', 'b'\]"):
        DemoKnobs(mode="c")
    with pytest.raises(ValueError, match="must be int"):
        DemoKnobs(size=2.5)
    with pytest.raises(ValueError, match="must be int"):
        DemoKnobs(size=True)
    with pytest.raises(ValueError, match="valid knobs"):
        DemoKnobs.build({"sizes": 3})
    assert [s.name for s in DemoKnobs.specs()] == ["size", "mode", "ratio", "flag"]
    assert "one of 'a', 'b'" in DemoKnobs.specs()[1].describe()


@given(seed=st.integers(0, 2**64))
@settings(max_examples=50)
def test_neighbouring_seeds_give_unrelated_streams(seed: int) -> None:
    a = make_rng("fam", 1, seed).integers(0, 2**32, size=8)
    b = make_rng("fam", 1, seed + 1).integers(0, 2**32, size=8)
    c = make_rng("other", 1, seed).integers(0, 2**32, size=8)
    assert not np.array_equal(a, b) and not np.array_equal(a, c)
    # no shifted copies either: the second stream does not start inside the first
    assert not set(a.tolist()) & set(b.tolist())


@given(
    seed=st.one_of(st.integers(0, 2**40), st.sampled_from([0, 2**32 - 1, 2**32, 2**64 + 3])),
    stream=st.lists(st.one_of(st.integers(0, 2**70), st.text(max_size=5)), max_size=2),
)
@settings(max_examples=60)
def test_seed_words_give_numpys_own_seed_sequence(seed: int, stream: list) -> None:
    # seed_sequence hands numpy the 32-bit words it would cut the integers into itself
    words = [_name_to_int("fam"), 3, seed] + [_name_to_int(s) if isinstance(s, str) else s for s in stream]
    expected = np.random.SeedSequence(words).generate_state(8).tolist()
    assert seed_sequence("fam", 3, seed, *stream).generate_state(8).tolist() == expected


@given(
    family=st.text(min_size=1, max_size=12),
    version=st.integers(0, 2**40),
    seed=st.one_of(st.integers(0, 2**70), st.sampled_from([0, 1, 2**32 - 1, 2**32, 2**64 + 3])),
    stream=st.lists(st.one_of(st.integers(0, 2**70), st.text(max_size=5)), max_size=2),
)
@settings(max_examples=200)
def test_make_rng_is_numpys_pcg64_of_the_seed_sequence(
    family: str, version: int, seed: int, stream: list
) -> None:
    # make_rng mixes the seed into a per-family pool itself: the state must be numpy's own
    expected = np.random.PCG64(seed_sequence(family, version, seed, *stream)).state
    assert make_rng(family, version, seed, *stream).bit_generator.state == expected


def test_make_rng_with_fewer_than_four_family_words_takes_numpys_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a family digest with leading zero words leaves the seed among the pool's first four words
    import palaestra.core as core

    monkeypatch.setattr(core, "_name_to_int", lambda name: 7)  # one digest word
    core._family_words.cache_clear()
    core._family_pool.cache_clear()
    try:
        expected = np.random.PCG64(np.random.SeedSequence([7, 3, 12])).state
        assert core.make_rng("short", 3, 12).bit_generator.state == expected
    finally:
        core._family_words.cache_clear()
        core._family_pool.cache_clear()


def test_seed_derivation_is_stable_across_versions_of_this_code() -> None:
    # Pinned values: changing them silently would change every published dataset.
    assert seed_sequence("sudoku", 1, 0).generate_state(2).tolist() == [3284442155, 1202115909]
    assert int(make_rng("expression", 1, 42).integers(0, 10**9)) == 351819131


@pytest.mark.parametrize("bad", [-1, 1.5, "3", None, True])
def test_bad_seeds_are_rejected(bad: object) -> None:
    with pytest.raises(ValueError, match="seed"):
        check_seed(bad)


def _task(**changes: object) -> Task:
    fields = dict(
        family="demo",
        family_version=1,
        difficulty=Difficulty(level=3, knobs={"size": 3}),
        seed=5,
        prompt="What is 1+1?",
        answer="2",
        metadata={"grid": [[1, 2], [3, 4]], "note": (1, 2)},
    )
    fields.update(changes)
    return Task(**fields)  # type: ignore[arg-type]


def test_task_is_frozen_json_round_trips_and_hashes_its_content() -> None:
    task = _task()
    assert task.metadata["note"] == [1, 2]  # normalised through JSON
    assert Task.from_json(task.to_json()) == task
    with pytest.raises(AttributeError):
        task.prompt = "x"  # type: ignore[misc]
    assert _task(seed=6).id == task.id  # same content, same id
    assert _task(prompt="What is 1+2?").id != task.id
    with pytest.raises(ValueError, match="does not match"):
        _task(id="0" * 16)
    with pytest.raises(ValueError, match="plain JSON"):
        _task(answer=object())
    with pytest.raises(ValueError):
        _task(answer=float("nan"))


@pytest.mark.parametrize(
    "metadata",
    [{2: "a", 10: "b"}, {"x": [{3: 1, 20: [2, {1.5: 0, 10.5: 1}]}]}, {"k": (1, 2), "a": {"z": 1, "b": 2}}],
)
def test_task_id_is_the_hash_of_its_normalised_content(metadata: dict) -> None:
    # non-string keys read back as strings that may sort differently: the id must hash the
    # normalised value's own canonical text
    task = _task(metadata=metadata, answer=[1, (2, 3)])
    normalised = json.loads(canonical_json(metadata))
    assert task.metadata == normalised and task.answer == [1, [2, 3]]
    expected = content_hash(
        {"family": "demo", "version": 1, "prompt": task.prompt, "answer": [1, [2, 3]], "metadata": normalised}
    )
    assert task.id == expected == task.compute_id()


def test_verdict_invariants() -> None:
    assert Verdict.right().reward == 1.0
    assert not Verdict.bad_format("x").format_ok
    with pytest.raises(ValueError):
        Verdict(reward=1.0, correct=True, format_ok=True, error="timeout")
    with pytest.raises(ValueError):
        Verdict(reward=1.0, correct=True, format_ok=False)
    assert Verdict.failure("boom").to_dict()["error"] == "boom"
    assert Verdict.right(parsed=object()).to_dict()["parsed"].startswith("<object")


def test_verdict_status_tells_whose_failure_it_is() -> None:
    assert Verdict.right().status == "correct"
    assert Verdict.wrong("no").status == "wrong"
    assert Verdict.bad_format("no tag").status == "unparseable"
    assert Verdict.failure("boom").status == "verifier_error"
    timed = Verdict.timed_out("ran past 1 s")
    assert timed.status == "timeout" and timed.error == "timeout" and timed.verifier_failed
    assert not Verdict.wrong("no").verifier_failed and Verdict.failure("boom").verifier_failed
    assert Verdict.wrong("no").to_dict()["status"] == "wrong"
    # a given status must agree with the other fields
    for fields, status in [
        ({"reward": 0.0, "correct": False, "format_ok": True}, "correct"),
        ({"reward": 0.0, "correct": False, "format_ok": True}, "unparseable"),
        ({"reward": 0.0, "correct": False, "format_ok": False}, "wrong"),
        ({"reward": 0.0, "correct": False, "format_ok": True}, "timeout"),
        ({"reward": 1.0, "correct": True, "format_ok": True}, "wrong"),
        ({"reward": 0.0, "correct": False, "format_ok": False}, "lost"),
    ]:
        with pytest.raises(ValueError, match="status"):
            Verdict(**fields, status=status)


def test_trusted_json_reads_back_exactly_the_checked_task() -> None:
    # what palaestra's own worker pipes carry: the text of to_json, read without re-checking
    import palaestra

    for family in ("expression", "sudoku", "knights_knaves", "tower_of_hanoi", "graph_coloring"):
        for seed in range(3):
            task = palaestra.make_task(family, seed=seed, level=4)
            text = task.to_json()
            trusted = Task.from_trusted_json(text)
            assert trusted == Task.from_json(text) == task
            assert trusted.to_json() == text and trusted.id == task.id
            assert type(trusted.difficulty.knobs) is dict
    # with knobs set directly (level None) and metadata of every JSON kind
    task = Task(
        family="f",
        family_version=2,
        difficulty=Difficulty(level=None, knobs={"n": 3, "p": 0.5, "s": "x", "b": True}),
        seed=7,
        prompt="p",
        answer=[1, [2, 3], {"a": None}],
        metadata={"grid": [[0, 1]], "f": 1.25, "nested": {"z": 1, "a": [True, "ü"]}},
    )
    assert Task.from_trusted_json(task.to_json()) == task
