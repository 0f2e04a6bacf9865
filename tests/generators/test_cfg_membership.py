"""cfg_membership: membership of every candidate re-decided by a memoised top-down parser
written here (not the family's CYK table); rightmost derivations built from that parser's trees
are accepted as well as the leftmost reference; omissions, non-members and broken steps are
refused."""

from __future__ import annotations

import functools
import time

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra


def _parser(grammar: dict[str, list[str]], text: str):
    @functools.cache
    def tree(x: str, i: int, j: int) -> tuple | None:
        """A parse tree of text[i:j] from x, or None."""
        for rhs in grammar[x]:
            if len(rhs) == 1 and j - i == 1 and text[i] == rhs:
                return (x, rhs)
            if len(rhs) == 2:
                for k in range(i + 1, j):
                    left = tree(rhs[0], i, k)
                    right = tree(rhs[1], k, j) if left else None
                    if right:
                        return (x, left, right)
        return None

    return tree("S", 0, len(text))


def _rightmost(tree: tuple) -> list[str]:
    forms, frontier = [], [tree]
    while True:
        forms.append("".join(p if isinstance(p, str) else p[0] for p in frontier))
        spots = [k for k, p in enumerate(frontier) if not isinstance(p, str)]
        if not spots:
            return forms
        node = frontier[spots[-1]]
        frontier[spots[-1] : spots[-1] + 1] = list(node[1:])


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=20, deadline=None)
def test_membership_by_an_independent_parser_and_rightmost_derivations(seed: int, level: int) -> None:
    task = palaestra.make_task("cfg_membership", seed=seed, level=level)
    grammar, candidates = task.metadata["grammar"], task.metadata["candidates"]
    trees = {s: _parser(grammar, s) for s in candidates}
    members = [s for s in candidates if trees[s] is not None]
    assert members == task.metadata["members"] and members
    assert len(set(candidates)) == len(candidates) == task.knobs["candidates"]
    rightmost = "\n".join(" => ".join(_rightmost(trees[s])) for s in reversed(members))
    assert palaestra.verify(task, f"<answer>{rightmost}</answer>").correct
    if len(members) > 1:
        verdict = palaestra.verify(task, "<answer>" + "\n".join(rightmost.splitlines()[1:]) + "</answer>")
        assert not verdict.correct and "no derivation" in verdict.reason


def test_steps_must_apply_one_rule_once() -> None:
    task = palaestra.make_task("cfg_membership", seed=7, level=4)
    lines = task.answer.splitlines()
    forms = lines[0].split(" => ")
    cases = {
        "one rule applied once": [forms[0], *forms[2:]],  # two rewrites at once
        "start from S": forms[1:],
        "not one of the candidate": [*forms[:-1], forms[-1] + forms[-1][-1]],
    }
    for reason, broken in cases.items():
        text = "\n".join([" => ".join(broken), *lines[1:]])
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and reason in verdict.reason, (reason, verdict)
    grammar = task.metadata["grammar"]
    invented = next(x for x in grammar if x != "S")
    fake = f"S => {invented} => {task.metadata['members'][0]}"  # S -> X is no rule
    assert not palaestra.verify(task, f"<answer>{fake}</answer>").correct
    spaced = "\n".join(" ⇒ ".join(" ".join(f) for f in line.split(" => ")) for line in lines)
    assert palaestra.verify(task, f"<answer>{spaced}</answer>").correct
    assert not palaestra.verify(task, f"<answer>{task.answer}\n{lines[0]}</answer>").format_ok
    assert not palaestra.verify(task, "<answer>yes</answer>").format_ok


def test_hostile_answers_are_refused_quickly() -> None:
    task = palaestra.make_task("cfg_membership", seed=1, level=10)
    started = time.process_time()
    for response in (
        "<answer>S => " + "A" * 11_000 + "</answer>",
        "<answer>" + "S => AB\n" * 1400 + "</answer>",
        "<answer>" + "S" + " => S" * 2000 + "</answer>",
    ):
        assert not palaestra.verify(task, response).correct
    assert time.process_time() - started < 0.5
