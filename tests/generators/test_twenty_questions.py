"""twenty_questions: unique objects, answer formats, the reference player's questions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.interactive.twenty_questions import best_question


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=30, deadline=None)
def test_exactly_one_object_fits_and_objects_are_distinct(seed: int, level: int) -> None:
    task = palaestra.make_task("twenty_questions", seed=seed, level=level)
    meta = task.metadata
    fits = [
        o["name"]
        for o in meta["objects"]
        if all((o[c["attribute"]] == c["value"]) == c["answer"] for c in meta["clues"])
    ]
    assert fits == [task.answer]
    rows = {tuple(o[a] for a in meta["attributes"]) for o in meta["objects"]}
    assert len(rows) == len(meta["objects"]) == len({o["name"] for o in meta["objects"]})


def test_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("twenty_questions", seed=0, level=4)
    assert palaestra.verify(task, f"<answer>{task.answer.upper()}</answer>").correct
    assert palaestra.verify(task, f"Answer: {task.answer}.").correct
    other = next(o["name"] for o in task.metadata["objects"] if o["name"] != task.answer)
    assert not palaestra.verify(task, f"<answer>{other}</answer>").correct
    assert not palaestra.verify(task, "<answer>unicorn</answer>").format_ok


def test_best_question_always_splits() -> None:
    task = palaestra.make_task("twenty_questions", seed=1, level=6)
    objects, attributes = task.metadata["objects"], task.metadata["attributes"]
    while len(objects) > 1:
        attribute, value = best_question(objects, attributes)
        yes = [o for o in objects if o[attribute] == value]
        assert 0 < len(yes) < len(objects)
        objects = yes if len(yes) >= len(objects) / 2 else [o for o in objects if o[attribute] != value]
