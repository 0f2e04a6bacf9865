"""Calendar arithmetic in the proleptic Gregorian calendar: weekdays, date differences, leap years.

Seven kinds of question: the weekday of a date (from a stated reference date and its
weekday), the number of days between two dates, the date a number of days after or before
another, the day number of a date within its year, the number of leap years in a range, the
date of the n-th (or last) given weekday of a month, and the number of times a weekday occurs
between two dates. Every question states the calendar rule (leap years are divisible by 4,
except century years not divisible by 400) and, where a weekday is needed, a reference date
with its weekday, so it is self-contained. The generator computes with its own day count
(days from a civil date, Hinnant's algorithm); the tests check every answer against Python's
``datetime`` (the same proleptic Gregorian calendar). Each answer is a function of the givens,
so it is unique.

Answers: a weekday name (full or three-letter, any case), an integer (``the word days`` or the
counted noun may follow: ``45 days``, ``3 leap years``, ``52 Fridays``), or a date written
``YYYY-MM-DD`` (also ``March 5, 2024`` or ``5 March 2024``; never a numeric form such as
``03/05/2024``, which is ambiguous).

Difficulty: the span between the dates grows from days to centuries (crossing month ends,
leap days, then the century rule), and more kinds are drawn from. The exact solver's effort
counts the month and year boundaries its day count crosses. The weak solver counts days as if
no year had a February 29 (and, counting leap years, takes every fourth year), which is exact
only while no leap day lies in the range.

Generation: ~11,500 tasks per CPU-second at every level (integer day counts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.math._common import answer_text, tagged
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import parse_rational

KINDS = ("weekday", "difference", "add_days", "day_of_year", "leap_count", "nth_weekday", "weekday_count")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
ORDINALS = ("first", "second", "third", "fourth", "last")
MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
RULE = (
    "proleptic Gregorian calendar (a leap year is divisible by 4, except century years not divisible by 400)"
)
Date = tuple[int, int, int]


@dataclass(frozen=True)
class CalendarKnobs(Knobs):
    span_days: int = knob(
        25, low=1, high=200_000, help="the largest distance in days between the dates of a question"
    )
    kinds: int = knob(2, low=1, high=len(KINDS), help=f"how many kinds are drawn from, in order {KINDS}")


LEVELS = {
    1: CalendarKnobs(span_days=25, kinds=2),
    2: CalendarKnobs(span_days=120, kinds=3),
    3: CalendarKnobs(span_days=400, kinds=4),
    4: CalendarKnobs(span_days=1_200, kinds=5),
    5: CalendarKnobs(span_days=4_000, kinds=6),
    6: CalendarKnobs(span_days=15_000, kinds=7),
    7: CalendarKnobs(span_days=40_000, kinds=7),
    8: CalendarKnobs(span_days=80_000, kinds=7),
    9: CalendarKnobs(span_days=150_000, kinds=7),
    10: CalendarKnobs(span_days=200_000, kinds=7),
}


# --------------------------------------------------------------------------------------------
# The generator's own calendar: days from 0000-03-01-based civil dates (Hinnant)
# --------------------------------------------------------------------------------------------


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def month_length(year: int, month: int) -> int:
    return 29 if month == 2 and is_leap(year) else MONTH_DAYS[month - 1]


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def civil_from_days(days: int) -> Date:
    """The inverse of :func:`days_from_civil`."""
    days += 719468
    era = days // 146097
    day_of_era = days - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    mp = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return year_of_era + era * 400 + (month <= 2), month, day


def weekday_of(days: int) -> int:
    """0 = Monday for a day count from 1970-01-01 (a Thursday)."""
    return (days + 3) % 7


def leap_years(first: int, last: int) -> int:
    def upto(y: int) -> int:  # leap years in 1..y
        return y // 4 - y // 100 + y // 400

    return upto(last) - upto(first - 1)


def show(date: Date) -> str:
    return f"{date[0]:04d}-{date[1]:02d}-{date[2]:02d}"


# --------------------------------------------------------------------------------------------
# The weak solver's calendar: no year has a February 29
# --------------------------------------------------------------------------------------------


def noleap_days(year: int, month: int, day: int) -> int:
    return 365 * year + sum(MONTH_DAYS[: month - 1]) + day


def noleap_date(days: int) -> Date:
    year, rest = divmod(days - 1, 365)
    month = 1
    while rest >= MONTH_DAYS[month - 1]:
        rest -= MONTH_DAYS[month - 1]
        month += 1
    return year, month, rest + 1


# --------------------------------------------------------------------------------------------
# Questions
# --------------------------------------------------------------------------------------------


@dataclass
class Question:
    kind: str
    text: str
    answer: str  # weekday name, integer or ISO date
    weak: str  # the no-leap-day calendar's answer
    params: dict
    crossings: int  # month and year boundaries the exact count crosses


def _crossings(a: int, b: int) -> int:
    (y1, m1, _), (y2, m2, _) = civil_from_days(min(a, b)), civil_from_days(max(a, b))
    return 1 + (y2 - y1) * 12 + (m2 - m1) + (y2 - y1)


def _noleap(days: int) -> int:
    return noleap_days(*civil_from_days(days))


def _reference(rng: np.random.Generator, around: int, span: int) -> tuple[int, str]:
    ref = around + int(rng.integers(-span, span + 1))
    return ref, f"In the {RULE}, {show(civil_from_days(ref))} is a {WEEKDAYS[weekday_of(ref)]}."


def draw_question(kind: str, rng: np.random.Generator, span: int) -> Question | None:
    anchor = days_from_civil(1900, 1, 1) + int(rng.integers(0, 146097 * 2))  # 1900 to 2700
    other = anchor + int(rng.integers(1, span + 1)) * (1 if rng.random() < 0.5 else -1)
    first, last = min(anchor, other), max(anchor, other)
    d1, d2 = show(civil_from_days(first)), show(civil_from_days(last))
    if kind == "weekday":
        ref_text = f"In the {RULE}, {show(civil_from_days(other))} is a {WEEKDAYS[weekday_of(other)]}."
        answer = WEEKDAYS[weekday_of(anchor)]
        weak = WEEKDAYS[(weekday_of(other) + _noleap(anchor) - _noleap(other)) % 7]
        text = f"{ref_text} What day of the week is {show(civil_from_days(anchor))}?"
        return Question(kind, text, answer, weak, {"ref": other, "date": anchor}, _crossings(anchor, other))
    if kind == "difference":
        text = f"In the {RULE}, how many days are there from {d1} to {d2}? (From 2024-03-01 to 2024-03-02 is 1 day.)"
        weak = str(_noleap(last) - _noleap(first))
        return Question(
            kind, text, str(last - first), weak, {"from": first, "to": last}, _crossings(first, last)
        )
    if kind == "add_days":
        n = other - anchor
        way = "after" if n > 0 else "before"
        text = f"In the {RULE}, what date is {abs(n)} days {way} {show(civil_from_days(anchor))}? Answer as YYYY-MM-DD."
        weak = show(noleap_date(_noleap(anchor) + n))
        return Question(
            kind,
            text,
            show(civil_from_days(other)),
            weak,
            {"date": anchor, "n": n},
            _crossings(anchor, other),
        )
    if kind == "day_of_year":
        year, month, day = civil_from_days(anchor)
        number = anchor - days_from_civil(year, 1, 1) + 1
        text = f"In the {RULE}, what is the day number of {show((year, month, day))} within its year (January 1 is day 1)?"
        weak = str(noleap_days(year, month, day) - noleap_days(year, 1, 1) + 1)
        return Question(kind, text, str(number), weak, {"date": anchor}, month + 1)
    if kind == "leap_count":
        y1, y2 = civil_from_days(first)[0], civil_from_days(last)[0]
        if y2 - y1 < 3:
            return None
        text = f"In the {RULE}, how many leap years are there from the year {y1} to the year {y2}, both included?"
        weak = str(y2 // 4 - (y1 - 1) // 4)  # every fourth year
        return Question(kind, text, str(leap_years(y1, y2)), weak, {"from": y1, "to": y2}, 1 + (y2 - y1) // 4)
    if kind == "nth_weekday":
        year, month, _ = civil_from_days(anchor)
        target, which = int(rng.integers(7)), int(rng.integers(len(ORDINALS)))
        start = days_from_civil(year, month, 1)
        if which < 4:
            day = start + (target - weekday_of(start)) % 7 + 7 * which
        else:
            end = start + month_length(year, month) - 1
            day = end - (weekday_of(end) - target) % 7
        ref, ref_text = _reference(rng, start, span)
        text = f"{ref_text} What is the date of the {ORDINALS[which]} {WEEKDAYS[target]} of {MONTHS[month - 1]} {year}? Answer as YYYY-MM-DD."
        weak_start = (weekday_of(ref) + _noleap(start) - _noleap(ref)) % 7
        if which < 4:
            weak_day = 1 + (target - weak_start) % 7 + 7 * which
        else:
            weak_end = (weak_start + MONTH_DAYS[month - 1] - 1) % 7
            weak_day = MONTH_DAYS[month - 1] - (weak_end - target) % 7
        params = {"year": year, "month": month, "weekday": target, "which": which, "ref": ref}
        return Question(
            kind,
            text,
            show(civil_from_days(day)),
            show((year, month, weak_day)),
            params,
            _crossings(start, ref) + 2,
        )
    # weekday_count
    target = int(rng.integers(7))
    ref, ref_text = _reference(rng, first, span // 2)
    full_weeks, rest = divmod(last - first + 1, 7)
    count = full_weeks + sum((weekday_of(first) + i) % 7 == target for i in range(rest))
    weak_first = (weekday_of(ref) + _noleap(first) - _noleap(ref)) % 7
    weak_weeks, weak_rest = divmod(_noleap(last) - _noleap(first) + 1, 7)
    weak = weak_weeks + sum((weak_first + i) % 7 == target for i in range(weak_rest))
    text = f"{ref_text} How many {WEEKDAYS[target]}s are there from {d1} to {d2}, both dates included?"
    params = {"from": first, "to": last, "weekday": target, "ref": ref}
    return Question(
        kind, text, str(count), str(weak), params, _crossings(first, last) + _crossings(first, ref)
    )


# --------------------------------------------------------------------------------------------
# Reading answers
# --------------------------------------------------------------------------------------------

_WEEKDAY_NAMES = {name.lower(): i for i, name in enumerate(WEEKDAYS)} | {
    name[:3].lower(): i for i, name in enumerate(WEEKDAYS)
}
_MONTH_NAMES = {name.lower(): i + 1 for i, name in enumerate(MONTHS)}
_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_MONTH_FIRST = re.compile(r"([A-Za-z]+)\s+(\d{1,2}),?\s+(\d{4})")
_DAY_FIRST = re.compile(r"(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})")
_COUNT = re.compile(r"(.{1,40}?)(?:\s+([A-Za-z]+(?:\s+[A-Za-z]+)?))?")
MAX_CHARS = 60


def _strip(text: str) -> str:
    """Without a final full stop and emphasis or quotes around the whole (``**Tuesday**``)."""
    text = text.strip()
    for _ in range(3):
        if text.endswith("."):
            text = text[:-1].rstrip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "*_`\"'":
            text = text[1:-1].strip()
    return text


def read_weekday(text: str) -> int | None:
    return _WEEKDAY_NAMES.get(_strip(text).lower())


def read_date(text: str) -> Date | None:
    """An ISO date or a written one (``March 5, 2024``, ``5 March 2024``) that exists."""
    text = _strip(text)
    if match := _ISO.fullmatch(text):
        year, month, day = (int(g) for g in match.groups())
    elif match := _MONTH_FIRST.fullmatch(text):
        month, day, year = _MONTH_NAMES.get(match[1].lower(), 0), int(match[2]), int(match[3])
    elif match := _DAY_FIRST.fullmatch(text):
        day, month, year = int(match[1]), _MONTH_NAMES.get(match[2].lower(), 0), int(match[3])
    else:
        return None
    if not (1 <= month <= 12 and 1 <= day <= month_length(year, month)):
        return None
    return year, month, day


def read_count(text: str, nouns: tuple[str, ...]) -> int | None:
    """An integer, optionally followed by one of ``nouns`` (``45 days``)."""
    text = _strip(text)
    words = text.rsplit(None, 2)
    for cut in (2, 1):
        if len(words) > cut and " ".join(words[-cut:]).lower() in nouns:
            text = " ".join(words[:-cut])
            break
    value = parse_rational(text)
    if value is None or value.denominator != 1:
        return None
    return int(value)


NOUNS = {
    "difference": ("day", "days"),
    "day_of_year": ("day", "days"),
    "leap_count": ("leap year", "leap years", "years"),
}


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

HOW = {
    "weekday": "Answer with the weekday's name (for example Tuesday).",
    "nth_weekday": "Answer with the date as YYYY-MM-DD.",
    "add_days": "Answer with the date as YYYY-MM-DD.",
}
PROMPT = """{question}

{how} Put the final answer in <answer>...</answer>."""


@family(
    "calendar",
    domain="math",
    knobs=CalendarKnobs,
    levels=LEVELS,
    description="Proleptic Gregorian calendar arithmetic: weekdays, day differences, date offsets, leap years.",
    verifier_kind="exact value",
)
class Calendar(Family):
    def generate(self, knobs: CalendarKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(1000):
            kind = KINDS[int(rng.integers(knobs.kinds))]
            question = draw_question(kind, rng, knobs.span_days)
            if question is not None:
                break
        else:  # pragma: no cover - only leap_count on very short spans is redrawn
            raise RuntimeError(f"could not draw a calendar question for {knobs}")
        how = HOW.get(kind, "Answer with an integer (the counted word, such as days, may follow it).")
        metadata = {
            "kind": kind,
            "params": question.params,
            "weak": question.weak,
            "crossings": question.crossings,
            "canonical_hash": content_hash([kind, question.text]),
        }
        return TaskDraft(
            prompt=PROMPT.format(question=question.text, how=how), answer=question.answer, metadata=metadata
        )

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response)
        if isinstance(text, Verdict):
            return text
        if len(text) > MAX_CHARS:
            return Verdict.bad_format(f"the answer is longer than {MAX_CHARS} characters")
        kind = task.metadata["kind"]
        if kind == "weekday":
            day = read_weekday(text)
            if day is None:
                return Verdict.bad_format(f"could not read {text[:40]!r} as a weekday")
            return (
                Verdict.right(parsed=WEEKDAYS[day])
                if WEEKDAYS[day] == task.answer
                else Verdict.wrong(f"{WEEKDAYS[day]} is not the weekday", parsed=WEEKDAYS[day])
            )
        if kind in ("add_days", "nth_weekday"):
            date = read_date(text)
            if date is None:
                return Verdict.bad_format(f"could not read {text[:40]!r} as a date (YYYY-MM-DD)")
            shown = show(date)
            return (
                Verdict.right(parsed=shown)
                if shown == task.answer
                else Verdict.wrong(f"{shown} is not the date", parsed=shown)
            )
        nouns = NOUNS.get(kind, (WEEKDAYS[task.metadata["params"].get("weekday", 0)].lower() + "s",))
        value = read_count(text, nouns)
        if value is None:
            return Verdict.bad_format(f"could not read {text[:40]!r} as an integer")
        if str(value) == task.answer:
            return Verdict.right(parsed=value)
        return Verdict.wrong(f"{value} is not the count", parsed=value)

    def solve_exact(self, task: Task) -> SolverRun:
        # the generator's day count; effort = month and year boundaries it crosses
        return SolverRun(response=tagged(task.answer), effort=float(task.metadata["crossings"]))

    def solve_weak(self, task: Task) -> SolverRun:
        # counts as if no year had a February 29
        return SolverRun(response=tagged(task.metadata["weak"]), effort=1.0)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        kind = task.metadata["kind"]
        if kind == "weekday":
            i = WEEKDAYS.index(task.answer)
            return [tagged(WEEKDAYS[(i + k) % 7]) for k in (1, 6, 3)]
        if kind in ("add_days", "nth_weekday"):
            days = days_from_civil(*(int(p) for p in task.answer.split("-")))
            return [tagged(show(civil_from_days(days + k))) for k in (1, -1, 7, -7)]
        value = int(task.answer)
        return [
            tagged(v)
            for v in dict.fromkeys([value + 1, value - 1, value + 7, max(0, value - 2)])
            if v != value
        ]
