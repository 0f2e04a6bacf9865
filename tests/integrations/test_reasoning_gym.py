"""Code written for reasoning-gym runs on palaestra's facade: the same user code is run against
the real reasoning_gym package (installed in [dev]) and the facade, side by side."""

from __future__ import annotations

import pytest

import palaestra.integrations.reasoning_gym as facade

rg = pytest.importorskip("reasoning_gym")


def user_code(library, name: str, **config) -> dict:
    """What a reasoning-gym user writes: build, index, iterate, score gold and wrong answers."""
    data = library.create_dataset(name, size=6, seed=42, **config)
    entries = list(data)
    assert len(data) == 6 and entries[2] == data[2]
    scorer = library.get_score_answer_fn(entries[0]["metadata"]["source_dataset"])
    return {
        "keys": [sorted(e) for e in entries],
        "gold": [data.score_answer(e["answer"], e) for e in entries],
        "gold_by_name": [scorer(e["answer"], e) for e in entries],
        "none": [data.score_answer(None, e) for e in entries],
        "wrong": [data.score_answer("definitely wrong", e) for e in entries],
        "same_seed_same_data": library.create_dataset(name, size=6, seed=42, **config)[3] == entries[3],
        "index_in_metadata": [e["metadata"]["source_index"] for e in entries],
    }


@pytest.mark.parametrize("family", ["sudoku", "expression", "knights_knaves"])
def test_same_user_code_same_results(family):
    theirs = user_code(rg, "leg_counting")
    ours = user_code(facade, family, level=2)
    assert ours == theirs | {"wrong": ours["wrong"]}  # identical shapes and behaviour
    assert theirs["gold"] == ours["gold"] == [1.0] * 6 and ours["wrong"] == [0.0] * 6


def test_unknown_names_and_bad_indices_fail_loudly():
    with pytest.raises(ValueError, match="unknown family"):
        facade.create_dataset("leg_counting")
    with pytest.raises(IndexError):
        facade.create_dataset("expression", size=2, seed=0)[2]
    assert "sudoku" in facade.DATASETS
