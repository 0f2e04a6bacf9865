"""Mutation kill rate of the code and SQL verifiers on a small sample (benchmarks/mutation.py).

Every mutant of a task's reference solution that the benchmark's independent differential test
shows to behave differently must be refused by the verifier, and no mutant without a behavioural
difference may be refused. The full measurement over a seed range per level is the benchmark
(``benchmarks/results/mutation.json``); this sample fails when a family's hidden tests regress.
"""

from __future__ import annotations

import numpy as np
import pytest

import palaestra

# (level, seed) samples; the mutants of the program-writing families are capped (sandbox runs)
SAMPLES = {
    "algorithmic_coding": [(2, 0), (9, 1)],
    "bug_repair": [(1, 0), (3, 5), (6, 2), (9, 1)],
    "function_induction": [(1, 0), (4, 5), (7, 5), (10, 1)],
    "input_inversion": [(3, 0), (9, 1)],
    "isa_trace": [(4, 0), (9, 1)],
    "output_prediction": [(1, 1), (1, 7), (5, 0)],
    "regex_synthesis": [(2, 0), (7, 1)],
    "sql_synthesis": [(level, 0) for level in (1, 2, 4, 6, 8, 10)],
    "type_inference": [(3, 0), (8, 1)],
}
CAP = 40


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(SAMPLES))
def test_every_differing_mutant_is_refused(family: str, benchmark_script) -> None:
    mutation = benchmark_script("mutation")
    total = mutation.Tally()
    for level, seed in SAMPLES[family]:
        total.add(mutation.measure_task(family, palaestra.make_task(family, seed=seed, level=level), CAP))
    assert total.differing >= 10, "the sample must hold mutants that behave differently"
    assert total.survivors == [], total.survivors
    assert total.equivalent_refused == 0


def test_mutants_cover_the_operator_classes(benchmark_script) -> None:
    mutation = benchmark_script("mutation")
    ops = {
        op
        for op, _ in mutation.python_mutants("def f(xs):\n    return [min(x, 3) for x in xs if x > 2][1:]\n")
    }
    for expected in (
        "constant+1",
        "comparison Gt->GtE",
        "min/max swapped",
        "dropped filter",
        "dropped slice lower",
    ):
        assert expected in ops
    sql = "SELECT dept, COUNT(*) FROM employees WHERE age > 3 AND dept = 'ops' GROUP BY dept ORDER BY dept LIMIT 2"
    sql_ops = {op for op, _ in mutation.sql_mutants(sql, ("ops", "sales"), ("Oslo",))}
    for expected in (
        "comparison >->>=",
        "and/or swapped",
        "dropped WHERE term",
        "dropped ORDER BY",
        "dropped LIMIT",
        "added DISTINCT",
    ):
        assert expected in sql_ops


def test_differential_finds_a_boundary_difference(benchmark_script) -> None:
    # the differential test itself must see `>=` for `>` (values on the constant are planted)
    mutation = benchmark_script("mutation")
    task = palaestra.make_task("sql_synthesis", seed=0, level=1)
    mutant = mutation.Mutant("flip", task.answer.replace(">", ">="), "")
    same = mutation.Mutant(
        "same", task.answer.replace("SELECT name", "SELECT e.name").replace("employees", "employees e"), ""
    )
    case = mutation.CASES["sql_synthesis"]
    assert case.differing(task, [mutant, same], np.random.default_rng(0)) == [True, False]
