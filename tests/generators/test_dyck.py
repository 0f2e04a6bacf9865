"""dyck: minimal repairs proven by a search written here (not the family's interval DP)."""

from __future__ import annotations

import heapq
import time

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}


def _balanced(text: str) -> bool:
    stack = []
    for ch in text:
        if ch in PAIRS:
            stack.append(PAIRS[ch])
        elif not stack or stack.pop() != ch:
            return False
    return not stack


def _shortest_repairs(given: str, limit: int = 6) -> tuple[int, list[str]]:
    """Uniform-cost search over (position, open stack): read the next bracket, or insert an
    opener (of a type the rest of the sequence closes) or the closer of the top. Returns the
    minimum and up to ``limit`` distinct shortest repairs."""
    types = set(PAIRS) & set(given) | {o for o, c in PAIRS.items() if c in given}
    start = (0, "", "")
    queue = [(0, start)]
    visits: dict[tuple[int, str], int] = {}
    found: list[str] = []
    minimum = None
    while queue:
        cost, (i, stack, written) = heapq.heappop(queue)
        if minimum is not None and cost > minimum:
            break
        if i == len(given) and not stack:
            minimum = cost
            if written not in found:
                found.append(written)
            if len(found) >= limit:
                break
            continue
        visits[(i, stack)] = visits.get((i, stack), 0) + 1
        if visits[(i, stack)] > 2:  # two ways into a state are enough to find several repairs
            continue
        moves = []
        if i < len(given):
            ch = given[i]
            if ch in PAIRS:
                moves.append((0, (i + 1, stack + PAIRS[ch], written + ch)))
            elif stack and stack[-1] == ch:
                moves.append((0, (i + 1, stack[:-1], written + ch)))
        if stack:
            moves.append((1, (i, stack[:-1], written + stack[-1])))
        for opener in types:
            if len(stack) < len(given):
                moves.append((1, (i, stack + PAIRS[opener], written + opener)))
        for extra, state in moves:
            heapq.heappush(queue, (cost + extra, state))
    assert minimum is not None
    return minimum, found


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 6))
@settings(max_examples=25, deadline=None)
def test_minimum_matches_search_and_every_shortest_repair_is_accepted(seed: int, level: int) -> None:
    task = palaestra.make_task("dyck", seed=seed, level=level)
    given_text = task.metadata["given"]
    minimum, repairs = _shortest_repairs(given_text)
    assert minimum == task.metadata["min_insertions"]
    for repair in repairs:
        assert _balanced(repair)
        verdict = palaestra.verify(task, f"<answer>{repair}</answer>")
        if task.metadata["suffix_only"]:
            assert verdict.correct == repair.startswith(given_text), (repair, verdict)
        else:
            assert verdict.correct, (repair, verdict)
    longer = repairs[0][:1] + "()" + repairs[0][1:]
    assert not palaestra.verify(task, f"<answer>{longer}</answer>").correct


def test_completion_accepts_the_whole_sequence_or_the_appended_part() -> None:
    task = palaestra.make_task("dyck", seed=3, level=3)
    given_text, answer = task.metadata["given"], task.answer
    assert answer.startswith(given_text) and _balanced(answer)
    assert palaestra.verify(task, f"<answer>{answer[len(given_text) :]}</answer>").correct
    assert palaestra.verify(task, f"<answer>{' '.join(answer)}</answer>").correct
    assert not palaestra.verify(task, f"<answer>{answer[len(given_text) : -1]}</answer>").correct


def test_repairs_must_keep_the_given_brackets_and_be_shortest() -> None:
    task = palaestra.make_task("dyck", seed=5, level=8)
    n = len(task.answer)
    for wrong, reason in [
        ("()" * (n // 2), "stay"),
        (task.answer + "<>", "fewer"),
        (task.answer[:-1], "balanced"),
    ]:
        verdict = palaestra.verify(task, f"<answer>{wrong}</answer>")
        assert not verdict.correct and reason in verdict.reason, verdict
    assert not palaestra.verify(task, "<answer>(a)</answer>").format_ok


def test_hostile_answers_are_refused_quickly() -> None:
    task = palaestra.make_task("dyck", seed=1, level=10)
    started = time.process_time()
    for response in ("<answer>" + "(" * 10**6 + "</answer>", "<answer>" + "()" * 499 + "</answer>"):
        assert not palaestra.verify(task, response).correct
    assert time.process_time() - started < 0.5
