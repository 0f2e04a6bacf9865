"""calendar: every answer checked against Python's datetime (the proleptic Gregorian calendar),
reading the question from the prompt alone."""

from __future__ import annotations

import calendar as pycalendar
import datetime as dt
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.math.calendar import civil_from_days, days_from_civil

FAMILY = "calendar"
IMPL = palaestra.get(FAMILY).impl
WEEKDAYS = list(pycalendar.day_name)  # Monday first, as date.weekday()
MONTHS = list(pycalendar.month_name)


def iso_dates(text: str) -> list[dt.date]:
    return [dt.date.fromisoformat(d) for d in re.findall(r"\d{4}-\d{2}-\d{2}", text)]


def check_reference(question: str) -> None:
    if match := re.search(r"(\d{4}-\d{2}-\d{2}) is a (\w+day)\.", question):
        assert WEEKDAYS[dt.date.fromisoformat(match[1]).weekday()] == match[2]


def datetime_answer(task: palaestra.Task) -> str:
    question = task.prompt.split("\n\n")[0]
    check_reference(question)
    kind = task.metadata["kind"]
    dates = iso_dates(re.sub(r"\d{4}-\d{2}-\d{2} is a \w+day\.", "", question))  # without the reference
    if kind == "weekday":
        return WEEKDAYS[dates[-1].weekday()]
    if kind == "difference":
        return str((dates[1] - dates[0]).days)
    if kind == "add_days":
        n, way = re.search(r"what date is (\d+) days (after|before)", question).groups()
        offset = dt.timedelta(days=int(n))
        return (dates[-1] + offset if way == "after" else dates[-1] - offset).isoformat()
    if kind == "day_of_year":
        return str(dates[-1].timetuple().tm_yday)
    if kind == "leap_count":
        y1, y2 = (int(y) for y in re.search(r"from the year (\d+) to the year (\d+)", question).groups())
        return str(sum(pycalendar.isleap(y) for y in range(y1, y2 + 1)))
    if kind == "nth_weekday":
        which, day, month, year = re.search(r"the (\w+) (\w+day) of (\w+) (\d{4})\?", question).groups()
        month_days = [
            dt.date(int(year), MONTHS.index(month), d)
            for d in range(1, pycalendar.monthrange(int(year), MONTHS.index(month))[1] + 1)
        ]
        matching = [d for d in month_days if WEEKDAYS[d.weekday()] == day]
        index = ["first", "second", "third", "fourth", "last"].index(which)
        return (matching[-1] if which == "last" else matching[index]).isoformat()
    if kind == "weekday_count":
        day = re.search(r"How many (\w+day)s", question)[1]
        first, last = dates[-2], dates[-1]
        return str(
            sum(
                WEEKDAYS[(first + dt.timedelta(days=i)).weekday()] == day
                for i in range((last - first).days + 1)
            )
        )
    raise AssertionError(kind)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
def test_answers_agree_with_datetime(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert task.answer == datetime_answer(task), task.prompt


@pytest.mark.parametrize(
    "kind", ["weekday", "difference", "add_days", "day_of_year", "leap_count", "nth_weekday", "weekday_count"]
)
def test_every_kind_agrees_with_datetime(kind: str) -> None:
    found = 0
    for seed in range(300):
        task = palaestra.make_task(FAMILY, seed=seed, level=8)
        if task.metadata["kind"] == kind:
            assert task.answer == datetime_answer(task), task.prompt
            found += 1
        if found == 4:
            return
    raise AssertionError(f"fewer than 4 {kind} tasks")


@settings(max_examples=300, deadline=None)
@given(days=st.integers(dt.date(1, 1, 1).toordinal(), dt.date(9999, 12, 31).toordinal()))
def test_day_count_matches_datetime_ordinals(days: int) -> None:
    date = dt.date.fromordinal(days)
    count = days_from_civil(date.year, date.month, date.day)
    assert count == days - dt.date(1970, 1, 1).toordinal()
    assert civil_from_days(count) == (date.year, date.month, date.day)


def _task_of(kind: str, level: int = 6) -> palaestra.Task:
    for seed in range(300):
        task = palaestra.make_task(FAMILY, seed=seed, level=level)
        if task.metadata["kind"] == kind:
            return task
    raise AssertionError(kind)


def test_answer_forms() -> None:
    task = _task_of("weekday")
    day = task.answer
    for text in (day, day.lower(), day.upper(), day[:3], f"{day}.", f"**{day}**"):
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    other = WEEKDAYS[(WEEKDAYS.index(day) + 1) % 7]
    for text in (other, f"{day} or {other}", f"{day}, {other}", day[:2], "day"):
        assert not palaestra.verify(task, f"<answer>{text}</answer>").correct, text

    task = _task_of("add_days")
    date = dt.date.fromisoformat(task.answer)
    written = (
        f"{MONTHS[date.month]} {date.day}, {date.year}",
        f"{date.day} {MONTHS[date.month]} {date.year}",
    )
    for text in (task.answer, *written, f"{date.year}-{date.month}-{date.day}"):
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    for text in (
        date.strftime("%m/%d/%Y"),
        (date + dt.timedelta(days=1)).isoformat(),
        f"{task.answer} or so",
    ):
        assert not palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    assert not palaestra.verify(task, "<answer>2023-02-29</answer>").format_ok  # no such date

    task = _task_of("difference")
    for text in (task.answer, f"{task.answer} days", f"{int(task.answer):,}", f"{task.answer}.0"):
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    for text in (f"{task.answer} weeks", f"{int(task.answer) + 1} days", f"-{task.answer}"):
        assert not palaestra.verify(task, f"<answer>{text}</answer>").correct, text


def test_weak_solver_is_right_only_without_a_leap_day() -> None:
    task = _task_of("difference", level=2)
    first, last = iso_dates(task.prompt)[:2]  # then the prompt's own example
    crosses = any(
        (first + dt.timedelta(days=i)).month == 2 and (first + dt.timedelta(days=i)).day == 29
        for i in range(1, (last - first).days + 1)
    )
    assert palaestra.verify(task, IMPL.solve_weak(task).response).correct == (not crosses)
    wrong = sum(
        not palaestra.verify(t, IMPL.solve_weak(t).response).correct
        for t in (palaestra.make_task(FAMILY, seed=s, level=10) for s in range(60))
    )
    assert wrong >= 40


def test_hostile_answers_are_quick_format_errors() -> None:
    task = _task_of("weekday_count")
    for text in ("1" * 100_000, "Monday" * 10_000, "9999-99-99", "\u0661\u0662", " days" * 5000):
        started = time.process_time()
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.05
