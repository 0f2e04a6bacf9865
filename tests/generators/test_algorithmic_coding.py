"""algorithmic_coding: mutation-validated suites; independent correct solutions pass."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra.generators.code._algorithms import KINDS
from palaestra.generators.code.algorithmic_coding import MIN_MUTATION_SCORE, killed_by, mutants

ALTERNATIVES = {
    "sort_pairs": """
import functools
def solve(data):
    t = list(map(int, data.split()))
    pairs = [(t[i], t[i + 1]) for i in range(1, 2 * t[0], 2)]
    def cmp(p, q):
        return (p[1] > q[1]) - (p[1] < q[1]) or (q[0] > p[0]) - (q[0] < p[0])
    return "\\n".join("%d %d" % p for p in sorted(pairs, key=functools.cmp_to_key(cmp))) + "\\n"
""",
    "interval_scheduling": """
def solve(data):
    t = list(map(int, data.split()))
    spans = sorted((t[i + 1], t[i]) for i in range(1, 2 * t[0], 2))
    count, free = 0, float("-inf")
    for end, start in spans:
        if start >= free:
            count, free = count + 1, end
    return f"{count}"
""",
    "shortest_path": """
import heapq
def solve(data):
    t = list(map(int, data.split()))
    n, m = t[0], t[1]
    adj = {}
    for i in range(m):
        u, v, w = t[2 + 3 * i: 5 + 3 * i]
        adj.setdefault(u, []).append((v, w))
    best, heap = {0: 0}, [(0, 0)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > best.get(u, d):
            continue
        for v, w in adj.get(u, []):
            if d + w < best.get(v, d + w + 1):
                best[v] = d + w
                heapq.heappush(heap, (d + w, v))
    return str(best.get(n - 1, -1))
""",
    "edit_distance": """
from functools import lru_cache
import sys
def solve(data):
    a, b = (data.split("\\n") + ["", ""])[:2]
    a, b = a.strip(), b.strip()
    table = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = min(table[i-1][j] + 1, table[i][j-1] + 1, table[i-1][j-1] + (a[i-1] != b[j-1]))
    return str(table[-1][-1])
""",
    "count_mod": """
def solve(data):
    t = list(map(int, data.split()))
    total, p, k, parts = t[0], t[1], t[2], t[3:]
    ways = {0: 1}
    for s in range(1, total + 1):
        ways[s] = sum(ways[s - q] for q in parts if q <= s)
    return str(ways[total] % p)
""",
}


def _task(kind: str, level: int = 4, seed: int = 0):
    return palaestra.make_task("algorithmic_coding", seed=seed, level=level, kind=kind)


@pytest.mark.parametrize("kind", KINDS)
def test_suite_kills_mutants_and_an_independent_solution_passes(kind: str) -> None:
    task = _task(kind)
    meta = task.metadata
    assert meta["mutation_score"] >= MIN_MUTATION_SCORE and meta["mutants"] >= 15
    # recount independently of the stored number
    assert sum(killed_by(m, meta["tests"], meta["expected"]) for m in mutants(kind)) == meta["mutants_killed"]
    assert palaestra.verify(task, f"<answer>\n{ALTERNATIVES[kind]}</answer>").correct
    assert palaestra.verify(task, f"```python\n{task.answer}```").correct


def test_killed_mutants_fail_in_the_sandbox_too() -> None:
    task = _task("shortest_path", level=3, seed=1)
    meta = task.metadata
    rng = np.random.default_rng(0)
    pool = mutants("shortest_path")
    for index in rng.choice(len(pool), size=4, replace=False):
        source = pool[int(index)]
        expected_kill = killed_by(source, meta["tests"], meta["expected"])
        verdict = palaestra.verify(task, f"<answer>\n{source}</answer>")
        assert verdict.correct is not expected_kill


def test_wrong_and_pathological_solutions() -> None:
    task = _task("interval_scheduling", level=5, seed=2)
    wrong = [
        "def solve(data):\n    return str(int(data.split()[0]))\n",  # all intervals
        # greedy by start time: the classic wrong greedy
        ALTERNATIVES["interval_scheduling"]
        .replace("(t[i + 1], t[i])", "(t[i], t[i + 1])")
        .replace("for end, start in", "for start, end in"),
        ALTERNATIVES["interval_scheduling"].replace(
            "start >= free", "start > free"
        ),  # touching counts as overlap
    ]
    for code in wrong:
        verdict = palaestra.verify(task, f"<answer>\n{code}</answer>")
        assert not verdict.correct and verdict.format_ok, code
    slow = "def solve(data):\n    while True:\n        pass\n"
    verdict = palaestra.verify(task, f"<answer>\n{slow}</answer>")
    assert verdict.status == "wrong" and "timeout" in verdict.reason and verdict.error is None
    assert not palaestra.verify(task, "<answer>\ndef main():\n    pass\n</answer>").format_ok
