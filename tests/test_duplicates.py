"""Duplicate rate under 1% among 2,000 tasks at every level >= 3, by canonical hash.

The measurement is `benchmarks/duplicates.py` (minutes per family, too slow for a unit test);
its stored results must be current (family version and level knobs unchanged) and under the bound.
Family levels not measured yet are listed in a skip, never passed silently. One cheap family is
re-measured live, so the stored figures and the measuring code cannot drift apart.
"""

from __future__ import annotations

import pytest

import palaestra
from palaestra.calibration import current_duplicate_rows, stored_duplicates

BOUND = 0.01
TASKS = 2000
LEVELS = range(3, 11)
STORED = stored_duplicates()["families"]


@pytest.fixture(scope="module")
def measure_level(benchmark_script):
    return benchmark_script("duplicates").measure_level


def _current_rows(family: str) -> dict[int, dict]:
    """The stored rows of ``family`` that still describe its installed version and levels."""
    return current_duplicate_rows(STORED.get(family, {}), palaestra.get(family))


def test_every_family_level_is_measured() -> None:
    missing = [
        f"{family}:{level}"
        for family in palaestra.families()
        for level in LEVELS
        if level not in _current_rows(family)
    ]
    stale = sorted(set(STORED) - set(palaestra.families()))
    assert not stale, f"duplicate records for unknown families: {stale}"
    if missing:
        pytest.skip(
            f"{len(missing)} family levels not measured (run benchmarks/duplicates.py): {' '.join(missing)}"
        )


@pytest.mark.parametrize("family", sorted(f for f in STORED if f in palaestra.families()))
def test_measured_levels_stay_under_one_percent(family: str) -> None:
    rows = _current_rows(family)
    for level, row in sorted(rows.items()):
        assert row["tasks"] >= TASKS and row["distinct"] <= row["tasks"]
        assert row["duplicate_rate"] == pytest.approx(1 - row["distinct"] / row["tasks"])
        assert row["duplicate_rate"] < BOUND, (
            f"{family} level {level}: {row['duplicate_rate']:.2%} duplicates"
        )


def test_live_measurement_matches_the_stored_one(measure_level) -> None:
    stored = _current_rows("long_arithmetic").get(3)
    if stored is None:
        pytest.skip("long_arithmetic level 3 not measured")
    live = measure_level("long_arithmetic", 3, TASKS)
    assert (live["tasks"], live["distinct"]) == (stored["tasks"], stored["distinct"])


def test_a_tiny_space_is_caught(measure_level) -> None:
    # expression level 1 ("a op b", one-digit operands) has 162 distinct tasks: the measure must see it
    row = measure_level("expression", 1, 400)
    assert row["distinct"] <= 162 and row["duplicate_rate"] > 0.5
