"""The judge registry: which family is judged by what, and the entry points the suite calls."""

from __future__ import annotations

import re
from collections.abc import Callable

from palaestra.core import Task

Judge = Callable[[Task, str], "bool | None"]
Others = Callable[[Task], list[str]]

JUDGES: dict[str, Judge] = {}
OTHERS: dict[str, Others] = {}


def judge(name: str) -> Callable[[Judge], Judge]:
    def register(fn: Judge) -> Judge:
        JUDGES[name] = fn
        return fn

    return register


def others(name: str) -> Callable[[Others], Others]:
    def register(fn: Others) -> Others:
        OTHERS[name] = fn
        return fn

    return register


def is_valid(task: Task, text: str) -> bool | None:
    """The family's judge on ``text``, or ``None`` when the family has none or it cannot tell."""
    fn = JUDGES.get(task.family)
    if fn is None:
        return None
    try:
        return fn(task, text)
    except Exception:  # noqa: BLE001 - our readers raise on anything that is not an answer's shape
        return False


def other_answers(task: Task, reference: str) -> list[str]:
    """Other valid answers from our own solvers, none equal to ``reference`` (after spacing)."""
    fn = OTHERS.get(task.family)
    if fn is None:
        return []
    seen = {_squash(reference)}
    out = []
    for answer in fn(task):
        if _squash(answer) not in seen:
            seen.add(_squash(answer))
            out.append(answer)
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)
