"""Stored calibration (measured/calibration/*.json, plots in docs/calibration/) is current, complete and monotone.

The weak heuristic's solve rate must not rise with the level, and the exact solver's effort
must not fall, beyond a noise tolerance; the exact solver always solves. The files are
produced by `palaestra calibrate` (200 seeds per level for the foundation families, at least
100 for the others).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import palaestra
from palaestra import calibration, catalog, measurements
from palaestra.cli import main

CALIBRATION = measurements.CALIBRATION
PLOTS = Path(__file__).resolve().parents[1] / "docs" / "calibration"
CATALOG = Path(__file__).resolve().parents[1] / "docs" / "catalog.md"
MIN_SEEDS = 100
FOUNDATION = {"expression", "sudoku", "knights_knaves", "shortest_path"}  # calibrated over 200 seeds
# Mean effort may dip by at most this fraction from one level to the next (sampling noise).
EFFORT_TOLERANCE = 0.10
CALIBRATED = sorted(p.stem for p in CALIBRATION.glob("*.json"))


def rate_tolerance(p: float, seeds: int) -> float:
    """Noise allowance for a rise in a solve rate between two levels measured on ``seeds`` each:
    three standard errors of the difference of two binomial proportions, at least 0.05."""
    return max(0.05, 3 * (2 * max(p * (1 - p), 0.04) / seeds) ** 0.5)


def test_every_family_is_calibrated() -> None:
    missing = sorted(set(palaestra.families()) - set(CALIBRATED))
    if missing:
        pytest.skip(f"not calibrated yet (run `palaestra calibrate`): {', '.join(missing)}")
    stale = sorted(set(CALIBRATED) - set(palaestra.families()))
    assert not stale, f"calibration files for unknown families: {stale}"


@pytest.mark.parametrize("family", [f for f in CALIBRATED if f in palaestra.families()])
def test_calibration_is_current_and_monotone(family: str) -> None:
    record = json.loads((CALIBRATION / f"{family}.json").read_text())
    spec = palaestra.get(family)
    assert record["family_version"] == spec.version
    assert record["levels"] == {str(lv): k.to_dict() for lv, k in spec.levels.items()}, (
        "stale: the levels changed"
    )
    rows = sorted(record["rows"], key=lambda r: r["level"])
    assert [r["level"] for r in rows] == list(range(1, 11))
    assert all(r["seeds"] >= (200 if family in FOUNDATION else MIN_SEEDS) for r in rows)
    assert all(r["exact_solve_rate"] == 1.0 for r in rows), "the exact solver must always solve"
    assert (PLOTS / f"{family}.png").exists()
    best_rate = rows[0]["weak_solve_rate"]
    for previous, row in zip(rows, rows[1:], strict=False):
        allowed = best_rate + rate_tolerance(best_rate, row["seeds"])
        assert row["weak_solve_rate"] <= allowed, f"weak solve rate rises at level {row['level']}"
        best_rate = min(best_rate, row["weak_solve_rate"])
        assert row["effort_mean"] >= (1 - EFFORT_TOLERANCE) * previous["effort_mean"], (
            f"effort falls at level {row['level']}"
        )
    assert rows[-1]["effort_mean"] > rows[0]["effort_mean"]
    assert rows[-1]["weak_solve_rate"] < rows[0]["weak_solve_rate"] or rows[0]["weak_solve_rate"] == 0.0


def test_calibrate_command_writes_json_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "shortest_path", "--seeds", "3", "--out", str(tmp_path)]) == 0
    record = json.loads((tmp_path / "shortest_path.json").read_text())
    assert len(record["rows"]) == 10 and record["rows"][0]["seeds"] == 3
    assert (tmp_path / "shortest_path.png").stat().st_size > 1000
    assert main(["calibrate", "no_such_family"]) == 2
    assert "unknown family" in capsys.readouterr().err


def test_duplicate_rate_counts_canonical_collisions() -> None:
    row = calibration.calibrate_level("expression", 1, 200)
    # level 1 is "a op b" with one-digit operands: 162 distinct tasks, so 200 seeds must collide
    assert 0 < row["duplicate_rate"] < 0.5


def test_catalog_is_generated_and_current() -> None:
    text = catalog.render_catalog()
    for family in palaestra.families():
        assert f"## `{family}`" in text
    assert CATALOG.read_text() == text, "docs/catalog.md is stale: run `palaestra dev refresh --catalog`"


def test_catalog_shows_only_current_duplicate_figures() -> None:
    spec = palaestra.get("sudoku")
    row = {"tasks": 2000, "distinct": 1990, "duplicate_rate": 0.005, "seconds": 1.0}
    levels = {
        "3": {**row, "knobs": spec.levels[3].to_dict()},
        "4": {**row, "knobs": {**spec.levels[4].to_dict(), "stale": True}},  # knobs changed since
    }
    current = {"families": {"sudoku": {"family_version": spec.version, "levels": levels}}}
    table = catalog.render_family("sudoku", current).split("Example prompt")[0]
    level_rows = [line for line in table.splitlines() if line.startswith(("| 2 |", "| 3 |", "| 4 |"))]
    assert level_rows[0].endswith("| - |")
    assert level_rows[1].endswith("| 0.50% of 2,000 |")
    assert level_rows[2].endswith("| not measured |")
    old_version = {"families": {"sudoku": {"family_version": spec.version - 1, "levels": levels}}}
    assert "0.50%" not in catalog.render_family("sudoku", old_version)
