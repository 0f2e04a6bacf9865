"""The published reward-error figures: current for every family, and shown only while current.

`benchmarks/reward_errors.py` runs this package's attacks on more seeds than the tests and
stores per-family false-positive and false-negative rates; `docs/catalog.md` shows them.
"""

from __future__ import annotations

import copy

import pytest

import palaestra
from palaestra import catalog

STORED = catalog.stored_reward_errors()["families"]


def test_every_family_is_measured() -> None:
    stale = sorted(set(STORED) - set(palaestra.families()))
    assert not stale, f"reward-error records of unknown families: {stale}"
    missing = [
        f
        for f in palaestra.families()
        if catalog.current_reward_errors(STORED.get(f), palaestra.get(f)) is None
    ]
    if missing:
        pytest.skip(
            f"{len(missing)} families not measured for their version (run benchmarks/reward_errors.py): {missing}"
        )


@pytest.mark.parametrize("family", sorted(STORED))
def test_stored_records_add_up(family: str) -> None:
    row = STORED[family]
    wrong, right = row["by_class"]["wrong"], row["by_class"]["right"]
    assert row["paid"] == sum(c["paid"] for c in wrong.values())
    assert row["refused"] == sum(c["refused"] for c in right.values())
    assert row["wrong_responses"] == sum(c["responses"] for c in wrong.values())
    assert row["right_responses"] == sum(c["responses"] for c in right.values())
    assert row["paid"] == sum(v["paid"] for v in row["per_level"].values())
    assert row["refused"] == sum(v["refused"] for v in row["per_level"].values())
    if row["wrong_responses"]:
        assert row["false_positive_rate"] == pytest.approx(row["paid"] / row["wrong_responses"], abs=1e-6)


def test_live_measurement_matches_the_stored_one(benchmark_script) -> None:
    family = "long_arithmetic"
    stored = catalog.current_reward_errors(STORED.get(family), palaestra.get(family))
    if stored is None:
        pytest.skip(f"{family} not measured for its version")
    live = benchmark_script("reward_errors").measure_family(family, stored["seeds_per_level"], levels=(1,))
    assert live["per_level"]["1"] == stored["per_level"]["1"]


def test_catalog_shows_only_current_reward_errors() -> None:
    spec = palaestra.get("sudoku")
    record = {
        "family_version": spec.version,
        "levels": list(range(1, 11)),
        "seeds_per_level": 6,
        "paid": 3,
        "wrong_responses": 1000,
        "false_positive_rate": 0.003,
        "refused": 0,
        "right_responses": 200,
        "false_negative_rate": 0.0,
        "verifier_failures": 0,
        "max_hostile_verify_s": 0.012,
        "max_hostile_verify_cpu_s": 0.0094,
        "best_constant_score": {"status": "measured", "levels": {"4": 0.125}},
        "mutation_kill_rate": None,
    }
    current = {"families": {"sudoku": record}}
    text = catalog.render_family("sudoku", reward_errors=current).split("Example prompt")[0]
    assert "wrong answers paid: 3 of 1,000 (0.30%)" in text
    assert "right answers refused: 0 of 200 (0.00%)" in text
    assert "slowest verify on hostile input: 9 ms CPU" in text
    assert "levels 1-10, 6 seeds each" in text
    sparse = copy.deepcopy(current)
    sparse["families"]["sudoku"].update(levels=[1, 4, 7, 10], seeds_per_level=1)
    assert "levels 1, 4, 7, 10, 1 seed each" in catalog.render_family("sudoku", reward_errors=sparse)
    level_4 = next(line for line in text.splitlines() if line.startswith("| 4 |"))
    assert "| 0.12 |" in level_4 or "| 0.13 |" in level_4
    old = copy.deepcopy(current)
    old["families"]["sudoku"]["family_version"] = spec.version - 1
    stale = catalog.render_family("sudoku", reward_errors=old)
    assert "wrong answers paid" not in stale and "Reward errors: not measured" in stale
