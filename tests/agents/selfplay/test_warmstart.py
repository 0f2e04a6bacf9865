"""Warm-start data for the arith language: every example is valid and answers are exact."""

from __future__ import annotations

import re

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


def test_easy_fraction_mixes_in_one_operation_tasks() -> None:
    lang = ArithLanguage()
    easy = random_tasks(lang, 200, np.random.default_rng(2), easy_fraction=0.5)
    one_op = [t for t in easy if re.fullmatch(r"\d[+-]\d", t.source)]
    assert 70 <= len(one_op) <= 130  # about half of 200 draws (binomial sd ~7)
    for task in one_op:  # the answer is the exact one
        a, op, b = task.source
        assert task.payload["answer"] == str(int(a) + int(b) if op == "+" else int(a) - int(b))
    plain = random_tasks(lang, 200, np.random.default_rng(2))
    assert sum(bool(re.fullmatch(r"\d[+-]\d", t.source)) for t in plain) < len(one_op) / 2
