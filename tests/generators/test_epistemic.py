"""epistemic: the announcements re-simulated independently single out the answer; formats."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.registry import get, make_task, verify

FAMILY = "epistemic"
IMPL = get(FAMILY).impl
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]  # fmt: skip


def survivors(task: Task) -> list[set[tuple[int, int]]]:
    """Public-announcement semantics written again with sets: the open dates after each statement."""
    open_ = {tuple(d) for d in task.metadata["dates"]}
    rounds = []
    for speaker, kind in task.metadata["script"]:
        other = 1 - speaker

        def knows(agent: int, w: tuple[int, int], worlds: set = open_) -> bool:
            return sum(1 for v in worlds if v[agent] == w[agent]) == 1

        def true_at(
            w: tuple[int, int], worlds: set = open_, sp: int = speaker, ot: int = other, k: str = kind
        ) -> bool:
            considered = {v for v in worlds if v[sp] == w[sp]}
            other_knows = {knows(ot, v, worlds) for v in considered}
            return {
                "dont_know": not knows(sp, w, worlds),
                "know": knows(sp, w, worlds),
                "other_doesnt": other_knows == {False},
                "dont_know_other_doesnt": len(considered) > 1 and other_knows == {False},
                "other_knows": other_knows == {True},
                "unsure_other": other_knows == {True, False},
            }[k]

        after = {w for w in open_ if true_at(w)}
        assert after and after != open_, "every statement is informative"
        rounds.append(after)
        open_ = after
    return rounds


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_answer_follows_from_the_announcements(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    rounds = survivors(task)
    assert rounds[-1] == {tuple(task.metadata["solution"])}
    assert all(len(r) > 1 for r in rounds[:-1])
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutated = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(mutated) >= 3
    for response in mutated:
        assert not verify(task, response).correct, response
    for date in task.metadata["dates"]:  # every other candidate is wrong
        if date != task.metadata["solution"]:
            assert not verify(task, f"<answer>{MONTHS[date[0]]} {date[1]}</answer>").correct


def test_answer_formats() -> None:
    task = make_task(FAMILY, seed=4, level=3)
    month, day = MONTHS[task.metadata["solution"][0]], task.metadata["solution"][1]
    for text in (
        f"<answer>{month} {day}</answer>",
        f"<answer>{day} {month}</answer>",
        f"<answer>{month.lower()} {day}th</answer>",
        f"<answer>the {day}th of {month}</answer>",
        f"<answer>{month[:3]} {day}</answer>",
        f"\\boxed{{{month} {day}}}",
        f"So it must be...\nAnswer: {month} {day}",
        f"<answer>Cheryl's birthday is {month.upper()} {day}.</answer>",
    ):
        assert verify(task, text).correct, text
    other = MONTHS[(task.metadata["solution"][0] + 1) % 12]
    for text in (
        f"<answer>{month} {day} or {other} {day}</answer>",
        f"<answer>{month} {day} or {month} {day + 1}</answer>",
        f"<answer>{month}</answer>",
        f"<answer>{day}</answer>",
        f"<answer>{month[:2]} {day}</answer>",
    ):
        verdict = verify(task, text)
        assert not verdict.correct and not verdict.format_ok, text


def _ordinal(day: int) -> str:
    words = dict(enumerate(["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
        "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
        "seventeenth", "eighteenth", "nineteenth", "twentieth"], start=1))  # fmt: skip
    if day <= 20:
        return words[day]
    return ("twenty-" if day < 30 else "thirty-") + words[day % 10] if day % 10 else "thirtieth"


def test_days_written_as_words_are_read_exactly() -> None:
    task = make_task(FAMILY, seed=4, level=3)
    month, day = MONTHS[task.metadata["solution"][0]], task.metadata["solution"][1]
    assert verify(task, f"<answer>{month} {_ordinal(day)}</answer>").correct
    assert verify(task, f"<answer>the {_ordinal(day)} of {month}</answer>").correct
    wrong = verify(task, f"<answer>{month} {_ordinal(day % 28 + 1)}</answer>")
    assert wrong.format_ok and not wrong.correct


def test_text_after_the_date_is_refused() -> None:
    # issue 16: "July 14, or maybe the fifteenth" was read as July 14 (the words were not read)
    task = make_task(FAMILY, seed=4, level=3)
    month, day = MONTHS[task.metadata["solution"][0]], task.metadata["solution"][1]
    other = _ordinal(day % 28 + 1)
    for text in (
        f"{month} {day}, or maybe the {other}",
        f"{month} {day} (or {month} {other})",
        f"{month} {day} not {month} {other}",
        f"{month} {day}th and {other}",
        f"{month} {day} ≠ {month} {day + 1}",
    ):
        verdict = verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and not verdict.format_ok, text


@pytest.mark.parametrize("response", ["", "\x00" * 500, "May 1 " * 200_000, "ж" * 5000])
def test_bad_input(response: str) -> None:
    verdict = verify(make_task(FAMILY, seed=1, level=2), response)
    assert not verdict.correct and not verdict.format_ok and verdict.error is None


def test_calibration_trend() -> None:
    effort, weak = {}, {}
    for level in (1, 5, 10):
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(20)]
        effort[level] = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        weak[level] = np.mean([verify(t, IMPL.solve_weak(t).response).correct for t in tasks])
    assert effort[1] < effort[5] < effort[10]
    assert weak[1] > weak[10]


def test_knobs() -> None:
    task = make_task(FAMILY, seed=2, dates=9, months=3, statements=2, kinds="dont_know,know")
    assert len(task.metadata["dates"]) == 9 and len({d[0] for d in task.metadata["dates"]}) == 3
    assert {k for _, k in task.metadata["script"]} <= {"dont_know", "know"}
    assert len(survivors(task)[-1]) == 1
    with pytest.raises(ValueError):
        make_task(FAMILY, seed=1, kinds="know,guess")
