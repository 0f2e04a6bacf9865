"""Tests of the hashi family: geometry, uniqueness (brute force and z3), verifier."""

from __future__ import annotations

import itertools
import re

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import hashi as H
from palaestra.registry import get

IMPL = get("hashi").impl


def _connected(n: int, edges, values) -> bool:
    adj = {i: set() for i in range(n)}
    for (i, j), v in zip(edges, values, strict=True):
        if v:
            adj[i].add(j)
            adj[j].add(i)
    seen, stack = {0}, [0]
    while stack:
        for j in adj[stack.pop()]:
            if j not in seen:
                seen.add(j)
                stack.append(j)
    return len(seen) == n


def _brute_force(size, islands, numbers, limit: int = 2) -> list[tuple[int, ...]]:
    """Every assignment of 0..2 bridges to the candidate edges, checked naively."""
    edges, crosses = H.candidate_edges(size, islands)
    found = []
    for values in itertools.product((0, 1, 2), repeat=len(edges)):
        totals = [0] * len(islands)
        for (i, j), v in zip(edges, values, strict=True):
            totals[i] += v
            totals[j] += v
        if totals != numbers:
            continue
        if any(values[e] and values[o] for e, others in enumerate(crosses) for o in others):
            continue
        if _connected(len(islands), edges, values):
            found.append(values)
            if len(found) >= limit:
                break
    return found


def _z3_count(size, islands, numbers, limit: int = 2) -> int:
    edges, crosses = H.candidate_edges(size, islands)
    x = [z3.Int(f"e{k}") for k in range(len(edges))]
    s = z3.Solver()
    for v in x:
        s.add(0 <= v, v <= 2)
    for i, need in enumerate(numbers):
        s.add(z3.Sum([x[k] for k, e in enumerate(edges) if i in e] + [z3.IntVal(0)]) == need)
    for e, others in enumerate(crosses):
        for o in others:
            s.add(z3.Or(x[e] == 0, x[o] == 0))
    found = 0
    while found < limit and s.check() == z3.sat:
        m = s.model()
        values = [m.eval(v).as_long() for v in x]
        s.add(z3.Or([v != val for v, val in zip(x, values, strict=True)]))
        if _connected(len(islands), edges, values):  # z3 enumerates; connectivity is checked here
            found += 1
    return found


def test_crossing_and_candidate_edges() -> None:
    islands = [(0, 1), (2, 1), (1, 0), (1, 2)]
    edges, crosses = H.candidate_edges(3, islands)
    assert sorted(edges) == [(0, 1), (2, 3)]
    assert crosses[0] == [1] and crosses[1] == [0]


def _pairwise_crossings(islands, edges) -> list[list[int]]:
    """The plain definition: every pair of edges, a horizontal one strictly crossing a vertical one."""

    def crossing(e: int, f: int) -> bool:
        (p, q), (s, t) = (islands[k] for k in edges[e]), (islands[k] for k in edges[f])
        if p[0] == q[0] and s[1] == t[1]:
            return min(p[1], q[1]) < s[1] < max(p[1], q[1]) and min(s[0], t[0]) < p[0] < max(s[0], t[0])
        if p[1] == q[1] and s[0] == t[0]:
            return crossing(f, e)
        return False

    return [[f for f in range(len(edges)) if f != e and crossing(e, f)] for e in range(len(edges))]


@settings(max_examples=300, deadline=None)
@given(
    size=st.integers(2, 9),
    cells=st.sets(st.tuples(st.integers(0, 8), st.integers(0, 8)), min_size=2, max_size=30),
)
def test_crossings_match_the_pairwise_definition(size: int, cells: set[tuple[int, int]]) -> None:
    islands = sorted({(r % size, c % size) for r, c in cells})
    edges, crosses = H.candidate_edges(size, islands)
    assert crosses == _pairwise_crossings(islands, edges)


def test_small_uniqueness_by_brute_force() -> None:
    for level in (1, 2):
        for seed in range(3):
            task = palaestra.make_task("hashi", seed=seed, level=level)
            size, islands, numbers = H._unpack(task)
            found = _brute_force(size, islands, numbers)
            assert len(found) == 1
            edges, _ = H.candidate_edges(size, islands)
            assert H.answer_text(islands, edges, found[0]) == task.answer


def test_uniqueness_cross_checked_with_z3() -> None:
    for level, seed in ((4, 0), (5, 1), (7, 2)):
        task = palaestra.make_task("hashi", seed=seed, level=level)
        size, islands, numbers = H._unpack(task)
        assert _z3_count(size, islands, numbers) == 1


def test_solver_counts_a_cycle_twice() -> None:
    # a square of four islands numbered 3: bridges alternate 1 and 2 around it, two ways
    islands = [(0, 0), (0, 2), (2, 0), (2, 2)]
    numbers = [3, 3, 3, 3]
    assert H.solve(3, islands, numbers).count == 2
    assert len(_brute_force(3, islands, numbers)) == 2
    # two islands only, not connected if 0: a lone pair numbered 2 has one solution
    assert H.solve(3, [(0, 0), (0, 2)], [2, 2]).count == 1


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.sampled_from([1, 3, 4, 5]))
def test_generated_puzzles_are_unique(seed: int, level: int) -> None:
    task = palaestra.make_task("hashi", seed=seed, level=level)
    size, islands, numbers = H._unpack(task)
    assert len(islands) == task.knobs["islands"]
    assert H.solve(size, islands, numbers).count == 1
    assert IMPL.verify(task, IMPL.reference_response(task)).correct
    if not task.knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None


def test_weak_solver_is_sound() -> None:
    for seed in range(10):
        task = palaestra.make_task("hashi", seed=seed, level=2)
        run = IMPL.solve_weak(task)
        if run.response is not None:
            assert IMPL.verify(task, run.response).correct


def test_verifier_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("hashi", seed=9, level=3)
    lines = task.answer.split("\n")
    paren = ["({},{})-({},{}) x{}".format(*[int(v) for v in re.findall(r"\d+", ln)]) for ln in lines]
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>\n" + "\n".join(paren) + "\n</answer>",
        "<answer>\n" + "\n".join(reversed(lines)) + "\n</answer>",
        "<answer>\n" + "\n".join(ln.replace(" ", "") for ln in lines) + "\n</answer>",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not IMPL.verify(task, response).correct
    assert not IMPL.verify(task, "<answer>\n" + lines[0] + "\n" + lines[0] + "\n</answer>").format_ok
    assert not IMPL.verify(task, "<answer>bridges everywhere</answer>").format_ok


def test_verifier_checks_rules_not_string_equality() -> None:
    # four islands in a square, each numbered 3: both alternating solutions must pass
    task = Task(
        family="hashi",
        family_version=1,
        difficulty=Difficulty(level=None, knobs=H.HashiKnobs().to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={"size": 3, "islands": [[0, 0, 3], [0, 2, 3], [2, 0, 3], [2, 2, 3]]},
    )
    a = "1,1 - 1,3 : 2\n3,1 - 3,3 : 2\n1,1 - 3,1 : 1\n1,3 - 3,3 : 1"
    b = "1,1 - 1,3 : 1\n3,1 - 3,3 : 1\n1,1 - 3,1 : 2\n1,3 - 3,3 : 2"
    assert IMPL.verify(task, f"<answer>{a}</answer>").correct
    assert IMPL.verify(task, f"<answer>{b}</answer>").correct
    verdict = IMPL.verify(task, "<answer>1,1 - 3,3 : 2</answer>")
    assert not verdict.correct and verdict.format_ok
    # two separate pairs: the sums hold but the islands are not connected
    task2 = Task(
        family="hashi",
        family_version=1,
        difficulty=Difficulty(level=None, knobs=H.HashiKnobs().to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={"size": 3, "islands": [[0, 0, 2], [0, 2, 2], [2, 0, 2], [2, 2, 2]]},
    )
    verdict = IMPL.verify(task2, "<answer>1,1 - 1,3 : 2\n3,1 - 3,3 : 2</answer>")
    assert not verdict.correct and "connected" in verdict.reason
    assert IMPL.verify(
        task2, "<answer>1,1 - 1,3 : 1\n3,1 - 3,3 : 1\n1,1 - 3,1 : 1\n1,3 - 3,3 : 1</answer>"
    ).correct


def test_canonical_hash() -> None:
    task = palaestra.make_task("hashi", seed=3, level=4)
    size, islands, numbers = H._unpack(task)
    mirrored = [(r, size - 1 - c) for r, c in islands]
    assert H.canonical_hash(size, mirrored, numbers) == task.metadata["canonical_hash"]
    hashes = {palaestra.make_task("hashi", seed=s, level=3).metadata["canonical_hash"] for s in range(30)}
    assert len(hashes) == 30


def test_every_number_of_a_bridge_line_is_read() -> None:
    assert H.parse_bridges("(1,1) - (1,4) : 2\nr1c4 -> r3c4 x1")[0] == {
        ((0, 0), (0, 3)): 2,
        ((0, 3), (2, 3)): 1,
    }
    for line in ("1,1 - 1,4 : 2 99999", "1,1 - 1,4 : 99999", "1,1 - 10000,4 : 2", "1,1 - 1,4 : 2 junk"):
        assert H.parse_bridges(line)[0] is None, line  # 5+ digit numbers were dropped before
