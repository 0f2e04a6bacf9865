"""dfa: the partition re-derived from the definition (two states are equivalent when no pair of
states reachable from them by the same string differs in acceptance: a breadth-first search of
the pair graph per pair, not Moore's refinement); every state reachable; answer forms; near
misses refused."""

from __future__ import annotations

import re
import time
from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra


def _distinguishable(delta: list[list[int]], accepting: list[bool], p: int, q: int) -> bool:
    seen, queue = {(p, q)}, deque([(p, q)])
    while queue:
        a, b = queue.popleft()
        if accepting[a] != accepting[b]:
            return True
        for x, y in zip(delta[a], delta[b], strict=True):
            if (x, y) not in seen:
                seen.add((x, y))
                queue.append((x, y))
    return False


def _classes(delta: list[list[int]], accepting: list[bool]) -> str:
    groups: list[list[int]] = []
    for s in range(len(delta)):
        home = next((g for g in groups if not _distinguishable(delta, accepting, g[0], s)), None)
        if home is None:
            groups.append([s])
        else:
            home.append(s)
    return " ".join("{" + ", ".join(map(str, g)) + "}" for g in sorted(groups))


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=25, deadline=None)
def test_partition_from_the_definition(seed: int, level: int) -> None:
    task = palaestra.make_task("dfa", seed=seed, level=level)
    delta, accepting = task.metadata["delta"], task.metadata["accepting"]
    assert len(delta) == task.knobs["states"]
    assert _classes(delta, accepting) == task.answer
    assert task.answer.count("{") == task.knobs["classes"]
    reached, stack = {0}, [0]
    while stack:
        for t in delta[stack.pop()]:
            if t not in reached:
                reached.add(t)
                stack.append(t)
    assert reached == set(range(len(delta)))


def test_answer_forms_and_near_misses() -> None:
    task = palaestra.make_task("dfa", seed=5, level=6)
    groups = [g.split(", ") for g in re.findall(r"\{([^}]*)\}", task.answer)]
    reordered = ", ".join("{" + " ".join(reversed(g)) + "}" for g in reversed(groups))
    for response in (
        f"<answer>{task.answer}</answer>",
        f"<answer>{reordered}.</answer>",
        f"Answer: {task.answer}",
    ):
        assert palaestra.verify(task, response).correct, response
    big = max(groups, key=len)
    split = [g for g in groups if g is not big] + [big[:1], big[1:]]
    text = " ".join("{" + ", ".join(g) + "}" for g in split)
    assert not palaestra.verify(task, f"<answer>{text}</answer>").correct
    missing = " ".join("{" + ", ".join(g) + "}" for g in groups[1:])
    assert not palaestra.verify(task, f"<answer>{missing}</answer>").format_ok  # states left out
    twice = task.answer + " {" + groups[0][0] + "}"
    assert not palaestra.verify(task, f"<answer>{twice}</answer>").format_ok
    assert not palaestra.verify(task, f"<answer>{task.answer} extra</answer>").format_ok


def test_hostile_answers_are_refused_quickly() -> None:
    task = palaestra.make_task("dfa", seed=1, level=10)
    started = time.process_time()
    for response in ("<answer>" + "{1}" * 10**5 + "</answer>", "<answer>{" + "9" * 5000 + "}</answer>"):
        assert not palaestra.verify(task, response).correct
    assert time.process_time() - started < 0.5
