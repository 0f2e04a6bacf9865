"""Warm-start data for the arith language: every example is valid and answers are exact."""

from __future__ import annotations

import numpy as np

from palaestra.agents.selfplay import ArithLanguage, Gate
from palaestra.agents.selfplay.warmstart import pairs_summary, random_tasks, warm_start_pairs


def test_warm_start_pairs_are_valid_and_exact() -> None:
    lang = ArithLanguage()
    pairs = warm_start_pairs(lang, 40, np.random.default_rng(0), references=2)
    assert pairs_summary(pairs) == {"proposer": 20, "solver": 20}
    gate = Gate(lang)
    for prompt, response in pairs:
        if response.startswith("<task>"):
            assert prompt.startswith("Invent") and gate.check("arith", response).ok
        else:  # the solver example's answer grades as correct
            task = lang.build("arith", "<task>" + prompt.split(": ", 1)[1].split("\n", 1)[0] + "</task>")
            assert lang.grade(task, [response]) == [1.0]


def test_random_tasks_are_deterministic_and_varied() -> None:
    first = random_tasks(ArithLanguage(), 30, np.random.default_rng(1))
    again = random_tasks(ArithLanguage(), 30, np.random.default_rng(1))
    assert first == again
    assert len({t.canonical for t in first}) >= 20
