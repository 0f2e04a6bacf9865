"""word_ladder: the shortest length re-proven with networkx over the dictionary read straight
from the data file; every shortest ladder networkx finds is accepted, longer ones are not."""

from __future__ import annotations

import functools
import gzip
import itertools
import string
import time
from pathlib import Path

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.words import wordlist as _wordlist

DATA = Path(_wordlist.__file__).resolve().parent / "data"


def _read(name: str) -> frozenset[str]:
    raw = (DATA / name).read_bytes()
    return frozenset((gzip.decompress(raw) if name.endswith(".gz") else raw).decode().split())


@functools.cache
def _graph(length: int, name: str) -> nx.Graph:
    """One-letter graph built by trying every letter at every position."""
    words = {w for w in _read(name) if len(w) == length}
    graph = nx.Graph()
    graph.add_nodes_from(words)
    for word in words:
        for i, ch in itertools.product(range(length), string.ascii_lowercase):
            other = word[:i] + ch + word[i + 1 :]
            if other != word and other in words:
                graph.add_edge(word, other)
    return graph


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=15, deadline=None)
def test_shortest_length_and_every_shortest_ladder(seed: int, level: int) -> None:
    task = palaestra.make_task("word_ladder", seed=seed, level=level)
    start, target, steps = task.metadata["start"], task.metadata["target"], task.metadata["steps"]
    assert start in _read("common.txt") and target in _read("known.txt.gz")
    full = _graph(len(start), "dictionary.txt.gz")
    assert nx.shortest_path_length(full, start, target) == steps
    assert nx.shortest_path_length(_graph(len(start), "known.txt.gz"), start, target) == steps
    assert task.knobs["min_steps"] <= steps <= task.knobs["max_steps"]
    for ladder in itertools.islice(nx.all_shortest_paths(full, start, target), 8):
        assert palaestra.verify(task, f"<answer>{' -> '.join(ladder)}</answer>").correct, ladder
    detour = next(w for w in full[start] if w != target)
    longer = [start, *nx.shortest_path(full, detour, target)]
    if len(longer) - 1 > steps:
        verdict = palaestra.verify(task, f"<answer>{' -> '.join(longer)}</answer>")
        assert not verdict.correct and "shorter" in verdict.reason


def test_broken_ladders_are_wrong_for_the_right_reason() -> None:
    task = palaestra.make_task("word_ladder", seed=2, level=5)
    ladder = task.answer.split(" -> ")
    words = _read("dictionary.txt.gz")
    nonword = next(ch + ladder[0][1:] for ch in "qxzj" if ch + ladder[0][1:] not in words)
    cases = {
        "exactly one letter": [ladder[0], *ladder[2:]],
        "must start": ladder[1:],
        "not in the dictionary": [ladder[0], nonword, *ladder],
    }
    for reason, words in cases.items():
        verdict = palaestra.verify(task, f"<answer>{' -> '.join(words)}</answer>")
        assert not verdict.correct and reason in verdict.reason, (reason, verdict)
    assert palaestra.verify(task, f"<answer>{', '.join(w.upper() for w in ladder)}</answer>").correct
    assert not palaestra.verify(task, f"<answer>{' -> '.join(ladder)} -> 42</answer>").format_ok


def test_hostile_answers_are_refused_quickly() -> None:
    task = palaestra.make_task("word_ladder", seed=1, level=10)
    started = time.process_time()
    for response in ("<answer>" + "ab -> " * 10**5 + "</answer>", "<answer>" + "a" * 1100 + "</answer>"):
        assert not palaestra.verify(task, response).correct
    assert time.process_time() - started < 0.5
