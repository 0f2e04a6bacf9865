"""The z3 families verify in one reused context per thread (generators/formal/_common.py):
their verdicts must be the same in any process and in any order (DESIGN.md), which a model
read from a reused context would break (its values depend on the context's history)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import palaestra
from palaestra.registry import get

FAMILIES = ("loop_invariant", "ranking_function", "hoare_triple", "unsat_core")

SCRIPT = """
import json, sys
import numpy as np
import palaestra
from palaestra.registry import get
pairs = json.loads(sys.stdin.read())
tasks = {}
out = []
for family, seed, level, response in pairs:
    key = (family, seed, level)
    if key not in tasks:
        tasks[key] = palaestra.make_task(family, seed=seed, level=level)
    v = palaestra.verify(tasks[key], response)
    out.append([v.status, v.reason, repr(v.parsed)])
print(json.dumps(out))
"""


def _pairs() -> list[tuple[str, int, int, str]]:
    pairs = []
    for family in FAMILIES:
        impl = get(family).impl
        for level in (1, 4, 7, 10):
            for seed in range(3):
                task = palaestra.make_task(family, seed=seed, level=level)
                responses = [impl.reference_response(task)]
                responses += impl.mutated_responses(task, np.random.default_rng(seed))[:3]
                pairs += [(family, seed, level, r) for r in responses]
    return pairs


def _verdicts_in_fresh_process(pairs: list[tuple[str, int, int, str]]) -> list[list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], input=json.dumps(pairs), capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


@pytest.mark.slow
def test_verdicts_are_identical_across_processes_and_orders() -> None:
    pairs = _pairs()
    tasks = {(f, s, lv): palaestra.make_task(f, seed=s, level=lv) for f, s, lv, _ in pairs}
    forward = [
        [v.status, v.reason, repr(v.parsed)]
        for v in (palaestra.verify(tasks[f, s, lv], r) for f, s, lv, r in pairs)
    ]  # in this process, after whatever the suite verified before
    backward = _verdicts_in_fresh_process(pairs[::-1])[::-1]
    shuffled_order = np.random.default_rng(0).permutation(len(pairs))
    shuffled = _verdicts_in_fresh_process([pairs[i] for i in shuffled_order])
    unshuffled = [None] * len(pairs)
    for position, i in enumerate(shuffled_order):
        unshuffled[i] = shuffled[position]
    statuses = {status for status, _, _ in forward}
    assert {"correct", "wrong"} <= statuses and "timeout" not in statuses
    assert forward == backward == unshuffled
