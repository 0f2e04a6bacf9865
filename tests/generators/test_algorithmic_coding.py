"""algorithmic_coding: per-task variants, mutation-validated suites; independent solutions pass.

The independent solutions below are written here from the statements (other algorithms, other
shapes: heapq Dijkstra, a cmp sort, an O(n^2) interval DP, a memoised count), never from the
family's templates. They run in this process on the hidden tests (fast), and a few go through
the sandboxed verifier.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.code._algorithms import (
    KINDS,
    SEPARATORS,
    VARIANTS,
    brute_force,
    draw_variant,
    reference,
)
from palaestra.generators.code.algorithmic_coding import MIN_MUTATION_SCORE, _norm, killed_by, mutants

SORT = """
import functools
def solve(data):
    t = list(map(int, data.split()))
    pairs = [(t[i], t[i + 1]) for i in range(1, 2 * t[0], 2)]
    def keys(pair):
        first, second = pair if P["primary"] == "a" else pair[::-1]
        first = {"value": first, "abs": abs(first), "mod": first % (P["k"] or 1)}[P["key"]]
        return [-first if P["primary_desc"] else first, -second if P["secondary_desc"] else second]
    def cmp(p, q):
        x, y = keys(p), keys(q)
        return (x > y) - (x < y)
    return "\\n".join("%d %d" % p for p in sorted(pairs, key=functools.cmp_to_key(cmp))) + "\\n"
"""

INTERVALS = """
def solve(data):
    t = list(map(int, data.split()))
    spans = sorted((t[i], t[i + 1]) for i in range(1, 2 * t[0], 2))
    # best[i]: the best value of a compatible set whose last (latest-starting) interval is i
    best = []
    for i, (start, end) in enumerate(spans):
        worth = end - start if P["goal"] == "length" else 1
        before = [best[j] for j in range(i) if start - spans[j][1] >= P["gap"]]
        best.append(worth + max(before, default=0))
    top = max(best, default=0)
    return str(len(spans) - top if P["goal"] == "remove" else top)
"""

PATHS = """
import heapq
def solve(data):
    t = list(map(int, data.split()))
    n, m = t[0], t[1]
    adj = {}
    for i in range(m):
        u, v, w = t[2 + 3 * i: 5 + 3 * i]
        if P["graph"] == "reversed":
            u, v = v, u  # walk the edges backwards from node 0
        adj.setdefault(u, []).append((v, w + P["surcharge"]))
        if P["graph"] == "undirected":
            adj.setdefault(v, []).append((u, w + P["surcharge"]))
    start, goal = (0, n - 1)
    best, heap = {start: 0}, [(0, start)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > best.get(u, d):
            continue
        for v, w in adj.get(u, []):
            nd = d + w if P["goal"] == "sum" else max(d, w)
            if v not in best or nd < best[v]:
                best[v] = nd
                heapq.heappush(heap, (nd, v))
    return str(best.get(goal, -1))
"""

EDIT = """
def solve(data):
    a, b = (data.split("\\n") + ["", ""])[:2]
    a, b = a.strip(), b.strip()
    ins, dele, rep = P["insert"], P["delete"], P["replace"]
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        for j in range(len(b) + 1):
            if i == 0 or j == 0:
                table[i][j] = j * ins + i * dele
                continue
            table[i][j] = min(table[i-1][j] + dele, table[i][j-1] + ins,
                              table[i-1][j-1] + (0 if a[i-1] == b[j-1] else rep))
    return str(table[-1][-1])
"""

COUNT = """
import sys
from functools import lru_cache
def solve(data):
    t = list(map(int, data.split()))
    total, p, parts = t[0], t[1], t[3:]
    q, r = P["q"], P["r"]
    sys.setrecursionlimit(10000)

    @lru_cache(maxsize=None)
    def ways(s, c, first):
        # selections summing to exactly s with (parts used) = c mod q; parts[first:] allowed
        if s == 0:
            return 1 if c % q == 0 else 0
        found = 0
        for j in range(first if P["selection"] != "ordered" else 0, len(parts)):
            if parts[j] <= s:
                nxt = {"ordered": 0, "multiset": j, "distinct": j + 1}[P["selection"]]
                found += ways(s - parts[j], (c - 1) % q, nxt)
        return found % p

    sums = [total] if P["bound"] == "exactly" else range(total + 1)
    return str(sum(ways(s, r, 0) for s in sums) % p)
"""

ALTERNATIVES = {
    "sort_pairs": SORT,
    "interval_scheduling": INTERVALS,
    "shortest_path": PATHS,
    "edit_distance": EDIT,
    "count_mod": COUNT,
}


def alternative(kind: str, params: dict[str, Any]) -> str:
    return f"P = {params!r}\n" + ALTERNATIVES[kind]


def run_in_process(source: str, tests: list[str]) -> list[Any]:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<test>", "exec"), namespace)  # noqa: S102 - the test's own programs
    out = []
    for data in tests:
        try:
            out.append(_norm(namespace["solve"](data)))
        except Exception as exc:  # noqa: BLE001 - a failure is an observable output here
            out.append(f"raised {type(exc).__name__}")
    return out


def _task(kind: str, level: int = 4, seed: int = 0):
    return palaestra.make_task("algorithmic_coding", seed=seed, level=level, kind=kind)


def test_variant_counts() -> None:
    counts = {kind: len(VARIANTS[kind]) for kind in KINDS}
    assert counts == {
        "sort_pairs": 56,
        "interval_scheduling": 18,
        "shortest_path": 24,
        "edit_distance": 60,
        "count_mod": 36,
    }
    for kind in KINDS:  # no variant listed twice
        assert len({repr(sorted(p.items())) for p in VARIANTS[kind]}) == counts[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_every_variant_is_reachable_and_drawn_evenly(kind: str) -> None:
    rng = np.random.default_rng(0)
    draws = Counter(repr(draw_variant(kind, rng)) for _ in range(200 * len(VARIANTS[kind])))
    assert set(draws) == {repr(p) for p in VARIANTS[kind]}
    assert max(draws.values()) < 1.3 * 200 and min(draws.values()) > 0.7 * 200


@pytest.mark.parametrize("kind", KINDS)
def test_the_separators_tell_every_two_variants_apart(kind: str) -> None:
    # the separators are in every suite of the kind: a program right for one variant (here its
    # reference, and the independent solution) fails every task of any other variant
    outputs = [tuple(run_in_process(reference(kind, p), SEPARATORS[kind])) for p in VARIANTS[kind]]
    assert len(set(outputs)) == len(outputs)
    for params, want in zip(VARIANTS[kind], outputs, strict=True):
        assert tuple(run_in_process(alternative(kind, params), SEPARATORS[kind])) == want, params


@pytest.mark.parametrize("kind", KINDS)
def test_another_variants_reference_fails_the_task(kind: str) -> None:
    task = _task(kind, level=3, seed=5)
    meta = task.metadata
    others = [p for p in VARIANTS[kind] if p != meta["params"]]
    assert all(killed_by(reference(kind, p), meta["tests"], meta["expected"]) for p in others)
    # and through the sandbox: one other variant's reference, sent as an answer, is refused
    other = others[len(others) // 2]
    assert not palaestra.verify(task, f"<answer>\n{reference(kind, other)}</answer>").correct
    assert palaestra.verify(task, f"<answer>\n{task.answer}</answer>").correct


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 6))
@settings(max_examples=30, deadline=None)
def test_generated_tasks(seed: int, level: int) -> None:
    task = palaestra.make_task("algorithmic_coding", seed=seed, level=level)
    meta = task.metadata
    kind, params = meta["kind"], meta["params"]
    assert params in VARIANTS[kind]
    assert task.answer == reference(kind, params)
    assert meta["mutation_score"] >= MIN_MUTATION_SCORE
    # every separator is hidden in the suite, and an independent solution gets every output
    assert all(s in meta["tests"] for s in SEPARATORS[kind])
    assert run_in_process(alternative(kind, params), meta["tests"]) == meta["expected"]
    # every numeric parameter is stated in the prompt; the shown examples are this task's own
    for name, value in params.items():
        if isinstance(value, int) and not isinstance(value, bool) and (name != "k" or value):
            assert str(value) in task.prompt, (name, value)
    for data, shown in zip(meta["tests"], meta["expected"], strict=False):
        if f"solve({data!r}) == " in task.prompt:
            assert f"solve({data!r}) == {shown!r}" in task.prompt


def test_statements_name_the_parameters() -> None:
    def words(kind: str, **params: Any) -> str:
        task = next(
            t
            for t in (_task(kind, level=1, seed=s) for s in range(400))
            if all(t.metadata["params"][k] == v for k, v in params.items())
        )
        return task.prompt

    assert "sorted by a descending" in words("sort_pairs", primary="a", key="value", primary_desc=True)
    assert "|b|" in words("sort_pairs", primary="b", key="abs")
    assert "touching intervals" in words("interval_scheduling", gap=0)
    assert "smallest number of intervals to remove" in words("interval_scheduling", goal="remove")
    assert "from node n-1 to node 0" in words("shortest_path", graph="reversed")
    assert "undirected" in words("shortest_path", graph="undirected")
    assert "maximum edge cost" in words("shortest_path", goal="bottleneck")
    assert "its weight plus 3" in words("shortest_path", surcharge=3)
    assert "multisets of parts" in words("count_mod", selection="multiset")
    assert "is odd" in words("count_mod", q=2, r=1)
    assert "at most T" in words("count_mod", bound="at most")


@pytest.mark.parametrize("kind", KINDS)
def test_suite_kills_mutants_and_an_independent_solution_passes(kind: str) -> None:
    task = _task(kind)
    meta = task.metadata
    assert meta["mutation_score"] >= MIN_MUTATION_SCORE and meta["mutants"] >= 15
    # recount independently of the stored number
    pool = mutants(task.answer)
    assert sum(killed_by(m, meta["tests"], meta["expected"]) for m in pool) == meta["mutants_killed"]
    solution = alternative(kind, meta["params"])
    assert palaestra.verify(task, f"<answer>\n{solution}</answer>").correct
    assert palaestra.verify(task, f"```python\n{task.answer}```").correct


@pytest.mark.parametrize("kind", KINDS)
def test_the_brute_force_solver_follows_the_parameters(kind: str) -> None:
    # on small tests, under no step budget, the weak solver's program of every variant is right
    # (so it is wrong only by running out of time), and wrong for other variants
    rng = np.random.default_rng(1)
    for params in VARIANTS[kind][:: max(1, len(VARIANTS[kind]) // 12)]:
        tests = SEPARATORS[kind] + [t for t in _task(kind, level=1, seed=2).metadata["tests"][:6]]
        unlimited = brute_force(kind, params).replace("_STEPS[0] > 100000", "_STEPS[0] > 10**9")
        assert run_in_process(unlimited, tests) == run_in_process(reference(kind, params), tests), params
        other = VARIANTS[kind][int(rng.integers(len(VARIANTS[kind])))]
        if other != params:
            assert run_in_process(brute_force(kind, other), tests) != run_in_process(
                reference(kind, params), tests
            )


def test_the_weak_solver_passes_small_tasks_and_fails_large_ones() -> None:
    family = palaestra.get("algorithmic_coding").impl
    small = [_task(kind, level=1, seed=3) for kind in KINDS]
    assert sum(palaestra.verify(t, family.solve_weak(t).response).correct for t in small) >= 4
    large = _task("count_mod", level=10, seed=3)
    verdict = palaestra.verify(large, family.solve_weak(large).response)
    assert not verdict.correct and "TimeoutError" in verdict.reason


def test_killed_mutants_fail_in_the_sandbox_too() -> None:
    task = _task("shortest_path", level=3, seed=1)
    meta = task.metadata
    rng = np.random.default_rng(0)
    pool = mutants(task.answer)
    for index in rng.choice(len(pool), size=4, replace=False):
        source = pool[int(index)]
        expected_kill = killed_by(source, meta["tests"], meta["expected"])
        verdict = palaestra.verify(task, f"<answer>\n{source}</answer>")
        assert verdict.correct is not expected_kill


def test_wrong_and_pathological_solutions() -> None:
    task = next(
        t
        for t in (_task("interval_scheduling", level=5, seed=s) for s in range(100))
        if t.metadata["params"]["goal"] == "count" and t.metadata["params"]["gap"] >= 1
    )
    params = task.metadata["params"]
    wrong = [
        "def solve(data):\n    return str(int(data.split()[0]))\n",  # all intervals
        # the required gap off by one either way
        alternative("interval_scheduling", {**params, "gap": params["gap"] - 1}),
        alternative("interval_scheduling", {**params, "gap": params["gap"] + 1}),
        # greedy by start time: the classic wrong greedy
        reference("interval_scheduling", params).replace("key=lambda s: s[1]", "key=lambda s: s[0]"),
    ]
    for code in wrong:
        verdict = palaestra.verify(task, f"<answer>\n{code}</answer>")
        assert not verdict.correct and verdict.format_ok, code
    slow = "def solve(data):\n    while True:\n        pass\n"
    verdict = palaestra.verify(task, f"<answer>\n{slow}</answer>")
    assert verdict.status == "wrong" and "timeout" in verdict.reason and verdict.error is None
    assert not palaestra.verify(task, "<answer>\ndef main():\n    pass\n</answer>").format_ok


def test_canonical_hash_separates_variants_with_the_same_tests() -> None:
    seen = {}
    for seed, level in itertools.product(range(40), (1, 2)):
        meta = _task("edit_distance", level=level, seed=seed).metadata
        seen.setdefault(meta["canonical_hash"], meta["params"])
    assert len(seen) == 80
