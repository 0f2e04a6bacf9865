"""Tests of the tents family: solver against enumeration and z3, digging, verifier."""

from __future__ import annotations

import time

import networkx as nx
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import tents as T
from palaestra.registry import get

IMPL = get("tents").impl


def _valid(n: int, trees: list[int], rows: list[int], cols: list[int], tents: set[int]) -> bool:
    """The rules, written out with networkx for the pairing (independent of the family)."""
    tree_set = set(trees)
    if tents & tree_set or len(tents) != len(trees):
        return False
    for a in tents:
        for b in tents:
            if a < b and abs(a // n - b // n) <= 1 and abs(a % n - b % n) <= 1:
                return False
    for i in range(n):
        if rows[i] >= 0 and sum(1 for t in tents if t // n == i) != rows[i]:
            return False
        if cols[i] >= 0 and sum(1 for t in tents if t % n == i) != cols[i]:
            return False
    graph = nx.Graph()
    graph.add_nodes_from((("tree", t) for t in trees), bipartite=0)
    graph.add_nodes_from((("tent", c) for c in tents), bipartite=1)
    for t in trees:
        for c in tents:
            if abs(t // n - c // n) + abs(t % n - c % n) == 1:
                graph.add_edge(("tree", t), ("tent", c))
    matching = nx.bipartite.hopcroft_karp_matching(graph, top_nodes=[("tree", t) for t in trees])
    return len(matching) == 2 * len(trees)


def _enumerate(
    n: int, trees: list[int], rows: list[int], cols: list[int], limit: int = 10**6
) -> list[set[int]]:
    """Every valid tent layout: subsets of the cells next to trees, non-touching pruned early."""
    tree_set = set(trees)
    spots = sorted(
        {
            t + d
            for t in trees
            for d in (-n, n, -1, 1)
            if 0 <= t + d < n * n and (d in (-n, n) or (t + d) // n == t // n)
        }
        - tree_set
    )
    found: list[set[int]] = []

    def rec(i: int, chosen: list[int]) -> None:
        if len(found) >= limit or len(chosen) > len(trees):
            return
        if i == len(spots):
            if _valid(n, trees, rows, cols, set(chosen)):
                found.append(set(chosen))
            return
        c = spots[i]
        if all(abs(c // n - x // n) > 1 or abs(c % n - x % n) > 1 for x in chosen):
            rec(i + 1, chosen + [c])
        rec(i + 1, chosen)

    rec(0, [])
    return found


def _z3_count(n: int, trees: list[int], rows: list[int], cols: list[int], limit: int = 2) -> int:
    tent = [z3.Bool(f"t{c}") for c in range(n * n)]
    s = z3.Solver()
    pairs: dict[int, list] = {c: [] for c in range(n * n)}
    for t in trees:
        s.add(z3.Not(tent[t]))
        mine = []
        for c in range(n * n):
            if abs(t // n - c // n) + abs(t % n - c % n) == 1:
                p = z3.Bool(f"p{t}_{c}")
                mine.append(p)
                pairs[c].append(p)
        s.add(z3.PbEq([(p, 1) for p in mine], 1))
    for c in range(n * n):
        s.add(tent[c] == z3.Or(pairs[c]) if pairs[c] else z3.Not(tent[c]))
        s.add(z3.PbLe([(p, 1) for p in pairs[c]], 1) if pairs[c] else z3.BoolVal(True))
        for d in range(c + 1, n * n):
            if abs(c // n - d // n) <= 1 and abs(c % n - d % n) <= 1:
                s.add(z3.Not(z3.And(tent[c], tent[d])))
    for i in range(n):
        if rows[i] >= 0:
            s.add(z3.PbEq([(tent[i * n + c], 1) for c in range(n)], rows[i]))
        if cols[i] >= 0:
            s.add(z3.PbEq([(tent[r * n + i], 1) for r in range(n)], cols[i]))
    found = 0
    while found < limit and s.check() == z3.sat:
        model = s.model()
        found += 1
        s.add(z3.Or([v != model.eval(v, model_completion=True) for v in tent]))
    return found


def _task(n: int, trees: list[int], rows: list[int], cols: list[int]) -> Task:
    return Task(
        family="tents",
        family_version=IMPL.version,
        difficulty=Difficulty(level=None, knobs=T.TentsKnobs(size=max(n, 4)).to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={"size": n, "trees": trees, "rows": rows, "cols": cols},
    )


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([4, 5, 6]), hide=st.integers(0, 12))
def test_solver_counts_like_enumeration(seed: int, n: int, hide: int) -> None:
    rng = make_rng("tents-test", seed, 0)
    trees, tents = T.random_layout(n, 0.2, rng)
    rows, cols = T.counts_of(tents, n)
    clues = rows + cols
    for k in rng.permutation(2 * n)[: min(hide, 2 * n)].tolist():
        clues[k] = -1
    rows, cols = clues[:n], clues[n:]
    found = _enumerate(n, trees, rows, cols)
    result = T.solve(n, trees, rows, cols, limit=10**6)
    assert sorted(tuple(i for i, v in enumerate(s) if v) for s in result.solutions) == sorted(
        tuple(sorted(f)) for f in found
    )


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.sampled_from([1, 2, 3, 4]))
def test_generated_puzzles_are_unique_by_enumeration(seed: int, level: int) -> None:
    task = palaestra.make_task("tents", seed=seed, level=level)
    n, trees, rows, cols = T._unpack(task)
    found = _enumerate(n, trees, rows, cols, limit=2)
    assert len(found) == 1
    assert T.board_text(n, trees, [int(c in found[0]) for c in range(n * n)]) == task.answer
    if not task.knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None


def test_larger_puzzles_are_unique_by_z3() -> None:
    for level, seed in ((6, 0), (8, 1), (10, 2)):
        task = palaestra.make_task("tents", seed=seed, level=level)
        n, trees, rows, cols = T._unpack(task)
        assert _z3_count(n, trees, rows, cols) == 1
        assert sum(1 for v in rows + cols if v >= 0) >= min(task.knobs["min_clues"], 2 * n)


class _ReadEverything(T.TentsSolver):
    """The propagation as version 1 ran it: every line and tree read in every pass."""

    def propagate(self, state, *, strong=True, dirty=None):
        try:
            while True:
                changed: list[int] = []
                for count, cells in self.lines:
                    possible, open_cells, all_tents = T.settle_count(state, cells, count, T.TENT, T.UNKNOWN)
                    if not possible:
                        return False
                    if all_tents is not None:
                        for c in open_cells:
                            self._set(state, c, T.TENT if all_tents else T.EMPTY, changed)
                    elif open_cells and strong:
                        missing = count - sum(1 for c in cells if state[c] == T.TENT)
                        self._capacity(state, cells, missing, changed)
                for cells in self.tree_cells:
                    options = [c for c in cells if state[c] != T.EMPTY]
                    if not options:
                        return False
                    if len(options) == 1:
                        self._set(state, options[0], T.TENT, changed)
                if not changed:
                    break
        except T._Contradiction:
            return False
        return not strong or self._matchable(state)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([8, 10, 12]), hide=st.integers(0, 20))
def test_propagation_skipping_unchanged_lines_deduces_the_same(seed: int, n: int, hide: int) -> None:
    # skipping the lines and trees whose cells did not change must leave every figure as it was
    rng = make_rng("tents-dirty", seed, 0)
    trees, tents = T.random_layout(n, 0.25, rng)
    rows, cols = T.counts_of(tents, n)
    clues = rows + cols
    for k in rng.permutation(2 * n)[: min(hide, 2 * n)].tolist():
        clues[k] = -1
    fast = T.TentsSolver(n, trees, clues[:n], clues[n:]).solve(limit=3, max_nodes=2000)
    plain = _ReadEverything(n, trees, clues[:n], clues[n:]).solve(limit=3, max_nodes=2000)
    assert (fast.nodes, fast.work, fast.solutions, fast.exhausted) == (
        plain.nodes,
        plain.work,
        plain.solutions,
        plain.exhausted,
    )
    assert (
        T.TentsSolver(n, trees, clues[:n], clues[n:]).weak()
        == _ReadEverything(n, trees, clues[:n], clues[n:]).weak()
    )


def test_dig_budget_keeps_puzzles_unique_and_reproducible(monkeypatch) -> None:
    # a tiny removal budget stops digging early: still unique, still at least min_clues, same bytes
    monkeypatch.setattr(T, "DIG_NODES", 60)
    spent: list[int] = []
    dig = T.Tents._dig

    def counting_dig(*args):
        solve = T.solve

        def counted(*a, **k):
            result = solve(*a, **k)
            spent.append(result.nodes)
            return result

        monkeypatch.setattr(T, "solve", counted)
        try:
            return dig(*args)
        finally:
            monkeypatch.setattr(T, "solve", solve)

    monkeypatch.setattr(T.Tents, "_dig", staticmethod(counting_dig))
    first = palaestra.make_task("tents", seed=5, level=10)
    assert 0 < sum(spent) <= 2 * 60  # the removal searches of all draws share the budget
    assert palaestra.make_task("tents", seed=5, level=10).id == first.id
    n, trees, rows, cols = T._unpack(first)
    assert _z3_count(n, trees, rows, cols) == 1
    shown = sum(1 for v in rows + cols if v >= 0)
    monkeypatch.undo()
    assert shown > palaestra.make_task("tents", seed=5, level=10).metadata["num_clues"] >= 12


def test_the_pairing_rule_matters() -> None:
    # two trees side by side in a corner, one tent between them cannot serve both
    n, trees = 3, [0, 2]
    assert not T.has_matching(n, trees, [1])
    assert T.has_matching(n, trees, [3, 5])
    task = _task(3, [0, 8], [1, 0, 1], [0, 2, 0])
    assert IMPL.verify(task, "<answer>\nTA.\n...\n.AT\n</answer>").correct
    # the counts hold and no tents touch, but one tent cannot serve both trees
    task = _task(3, [0, 2], [1, 0, 0], [0, 1, 0])
    verdict = IMPL.verify(task, "<answer>\nTAT\n...\n...\n</answer>")
    assert not verdict.correct and verdict.format_ok and "paired" in verdict.reason


def test_weak_rate_falls_and_effort_rises() -> None:
    rates, efforts = [], []
    for level in (1, 5, 9):
        tasks = [palaestra.make_task("tents", seed=s, level=level) for s in range(6)]
        rates.append(sum(IMPL.solve_weak(t).response is not None for t in tasks))
        efforts.append(sum(IMPL.effort(t) for t in tasks))
    assert rates[0] > rates[1] >= rates[2]
    assert efforts[0] < efforts[1] < efforts[2]


def test_verifier_accepts_every_valid_layout_and_names_the_broken_rule() -> None:
    trees = [5, 10]
    task = _task(4, trees, [-1] * 4, [-1] * 4)
    valid = _enumerate(4, trees, [-1] * 4, [-1] * 4)
    assert len(valid) > 2
    for tents in valid:
        answer = T.board_text(4, trees, [int(c in tents) for c in range(16)])
        assert IMPL.verify(task, f"<answer>{answer}</answer>").correct, answer
    touching = IMPL.verify(task, "<answer>\n.AA.\n.T..\n..T.\n....\n</answer>")
    assert not touching.correct and "touches" in touching.reason
    no_tree = IMPL.verify(task, "<answer>\n.A..\n....\n..TA\n....\n</answer>")
    assert not no_tree.correct and "is a tree" in no_tree.reason
    counted = palaestra.make_task("tents", seed=1, level=2)
    n, trees, rows, cols = T._unpack(counted)
    wrong = IMPL.verify(counted, f"<answer>{T.board_text(n, trees)}</answer>")
    assert not wrong.correct and "tents, not" in wrong.reason


def test_verifier_formats_and_near_misses() -> None:
    task = palaestra.make_task("tents", seed=9, level=4)
    rows = task.answer.split("\n")
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in rows) + "</answer>",
        "<answer>\n" + "\n".join(f"Row {i + 1}: {r}" for i, r in enumerate(rows)) + "\n</answer>",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 4
    for response in mutations:
        assert not IMPL.verify(task, response).correct
    assert not IMPL.verify(task, "<answer>" + task.answer.replace("A", "X") + "</answer>").format_ok


def test_hostile_input_is_rejected_quickly() -> None:
    task = palaestra.make_task("tents", seed=2, level=5)
    for response in ("<answer>" + "A" * 200_000 + "</answer>", "A " * 100_000, "\n" * 100_000 + "T"):
        started = time.process_time()
        verdict = palaestra.verify(task, response)
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.5


def test_canonical_hash_sees_symmetries() -> None:
    task = palaestra.make_task("tents", seed=3, level=5)
    n, trees, rows, cols = T._unpack(task)
    # the transpose swaps rows and columns; the left-right mirror reverses the column counts
    transposed = sorted((t % n) * n + t // n for t in trees)
    assert T.canonical_hash(n, transposed, cols, rows) == task.metadata["canonical_hash"]
    mirrored = sorted((t // n) * n + (n - 1 - t % n) for t in trees)
    assert T.canonical_hash(n, mirrored, rows, cols[::-1]) == task.metadata["canonical_hash"]
    hashes = {palaestra.make_task("tents", seed=s, level=3).metadata["canonical_hash"] for s in range(40)}
    assert len(hashes) == 40
