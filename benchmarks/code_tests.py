"""Mutation scores of the algorithmic_coding test suites, per problem kind.

For each kind and level in LEVELS, generates SEEDS tasks and records the fraction of
single-token mutants of the reference solution that the generated hidden suite rejects (the
same measurement stored in each task's metadata). Writes benchmarks/results/code_tests.json.

    python benchmarks/code_tests.py
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import palaestra
from palaestra.generators.code._algorithms import KINDS
from palaestra.generators.code.algorithmic_coding import MIN_MUTATION_SCORE

SEEDS = 10
LEVELS = (1, 5, 10)
OUT = Path(__file__).resolve().parent / "results" / "code_tests.json"


def main() -> None:
    report: dict[str, object] = {"target": MIN_MUTATION_SCORE, "seeds_per_level": SEEDS, "kinds": {}}
    for kind in KINDS:
        rows = {}
        for level in LEVELS:
            start = time.perf_counter()
            tasks = [
                palaestra.make_task("algorithmic_coding", seed=s, level=level, kind=kind)
                for s in range(SEEDS)
            ]
            scores = [t.metadata["mutation_score"] for t in tasks]
            rows[str(level)] = {
                "mutants": tasks[0].metadata["mutants"],
                "mean_score": round(sum(scores) / len(scores), 4),
                "min_score": round(min(scores), 4),
                "tests_per_suite": len(tasks[0].metadata["tests"]),
                "tasks_per_s": round(SEEDS / (time.perf_counter() - start), 1),
            }
        report["kinds"][kind] = rows  # type: ignore[index]
        print(kind, rows)
    OUT.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
