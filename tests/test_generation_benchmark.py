"""`benchmarks/generation.py`: a run over some families merges into the stored figures.

The full run rewrites `measured/generation.json` (about 10 CPU-minutes); refreshing one
family after a change must keep every other family's figures and say which run measured what.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def generation(benchmark_script):
    return benchmark_script("generation")


def _row(rate: float) -> dict[str, float]:
    return {"tasks_per_s": rate, "tasks_per_cpu_s": rate, "verifications_per_s": rate, "tasks": 1}


def _stored() -> dict:
    return {
        "date": "2026-01-01",
        "machine": {"cores_used": 1},
        "palaestra_version": "0.0.9",
        "seconds_per_measurement": 2.0,
        "families": {"zebra": {"level_5": _row(1.0)}, "sokoban": {"level_5": _row(2.0)}},
        "peers": {
            "sokoban~sokoban": {"ratio_tasks_per_s": 0.1},
            "zebra~zebra_puzzles": {"ratio_tasks_per_s": 0.2},
        },
    }


def _fresh(families: dict, peers: dict) -> dict:
    return {
        "date": "2026-11-21",
        "machine": {"cores_used": 1, "load_average_at_start": 0.0},
        "palaestra_version": "0.1.0",
        "seconds_per_measurement": 0.5,
        "families": families,
        "peers": peers,
    }


def test_merge_replaces_only_the_measured_families_and_keeps_the_order(generation) -> None:
    stored = _stored()
    fresh = _fresh({"sokoban": {"level_5": _row(9.0)}}, {"sokoban~sokoban": {"ratio_tasks_per_s": 0.5}})
    merged = generation.merge_into_stored(stored, fresh)
    assert list(merged["families"]) == ["zebra", "sokoban"]
    assert merged["families"]["zebra"] == stored["families"]["zebra"]
    assert merged["families"]["sokoban"]["level_5"]["tasks_per_s"] == 9.0
    assert merged["peers"]["zebra~zebra_puzzles"] == {"ratio_tasks_per_s": 0.2}
    assert merged["peers"]["sokoban~sokoban"] == {"ratio_tasks_per_s": 0.5}
    # the full run's facts stay; the partial run is recorded beside them
    assert (merged["date"], merged["palaestra_version"]) == ("2026-01-01", "0.0.9")
    assert merged["partial_runs"] == [
        {
            "date": "2026-11-21",
            "machine": fresh["machine"],
            "palaestra_version": "0.1.0",
            "seconds_per_measurement": 0.5,
            "families": ["sokoban"],
        }
    ]


def test_merge_adds_new_families_and_drops_stale_peer_comparisons(generation) -> None:
    once = generation.merge_into_stored(_stored(), _fresh({"bimaru": {"level_5": _row(3.0)}}, {}))
    # without the peer library the fresh run has no comparison for sokoban: the stored one
    # embeds the old "ours" figures, so it must go rather than sit beside the new row
    twice = generation.merge_into_stored(once, _fresh({"sokoban": {"level_5": _row(4.0)}}, {}))
    assert list(twice["families"]) == ["zebra", "sokoban", "bimaru"]
    assert list(twice["peers"]) == ["zebra~zebra_puzzles"]
    assert [run["families"] for run in twice["partial_runs"]] == [["bimaru"], ["sokoban"]]


def test_a_families_run_merges_into_the_file(
    generation, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "generation.json"
    out.write_text(json.dumps(_stored()))
    argv = ["generation.py", "--families", "expression", "--seeds", "3"]
    monkeypatch.setattr(sys, "argv", [*argv, "--out", str(out)])
    generation.main()
    written = json.loads(out.read_text())
    assert list(written["families"]) == ["zebra", "sokoban", "expression"]
    assert set(written["families"]["expression"]) == {"level_1", "level_5", "level_10"}
    level_5 = written["families"]["expression"]["level_5"]
    assert level_5["tasks"] == 3 and "disagreements" not in level_5
    assert set(level_5["verification"]) == {"right", "wrong", "model"}
    assert level_5["generation"]["median_ms"] > 0
    assert written["partial_runs"][-1]["families"] == ["expression"]


def test_unknown_family_is_refused_before_anything_is_written(
    generation, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "generation.json"
    monkeypatch.setattr(sys, "argv", ["generation.py", "--families", "no_such_family", "--out", str(out)])
    with pytest.raises(SystemExit) as stop:
        generation.main()
    assert stop.value.code == 2
    assert not out.exists()


def test_catalog_shows_only_comparisons_that_timed_every_answer_kind(generation, tmp_path: Path) -> None:
    from palaestra.catalog import _speed_table

    timing = {"median_ms": 1.0, "mean_ms": 2.0}
    side = {"generation": timing, "verification": dict.fromkeys(generation.KINDS, timing)}
    ratios = {"generation_mean": 3.0, **{f"verify_{k}_mean": 0.5 for k in generation.KINDS}}
    stored = {
        "peers": {
            "sokoban~sokoban": {"ratio_tasks_per_s": 0.1},  # a 2-second-window figure: left out
            "zebra~zebra_puzzles": {
                "reasoning_gym_dataset": "zebra_puzzles",
                "ours_level_5": side,
                "theirs": side,
                "ours_over_theirs_speed": ratios,
            },
        }
    }
    path = tmp_path / "generation.json"
    path.write_text(json.dumps(stored))
    table = _speed_table(path)
    rows = [line for line in table if line.startswith("| `")]
    assert rows == ["| `zebra` | `zebra_puzzles` | 2 / 2 (3x) | 2 / 2 (0.5x) | 2 / 2 (0.5x) | 2 / 2 (0.5x) |"]
    assert _speed_table(tmp_path / "missing.json") == []


def test_like_for_like_peer_instances_are_timed_and_shown(generation, tmp_path: Path) -> None:
    from palaestra.catalog import _speed_table

    like = generation.bench_like_for_like("tower_of_hanoi", 4)
    assert like["tasks"] == 4 and like["generation"]["mean_ms"] > 0
    assert generation.bench_like_for_like("zebra", 4) is None
    # the knobs are reasoning-gym's kind of instance: a whole tower, any move allowed
    _, knobs_for = generation.LIKE_FOR_LIKE["tower_of_hanoi"]
    assert {(k["disks"], k["pegs"]) for k in map(knobs_for, range(10))} == {
        (d, p) for d in range(3, 8) for p in (3, 4)
    }
    timing = {"median_ms": 1.0, "mean_ms": 2.0}
    side = {"generation": timing, "verification": dict.fromkeys(generation.KINDS, timing)}
    ratios = {"generation_mean": 0.1, **{f"verify_{k}_mean": 1.0 for k in generation.KINDS}}
    row = {"reasoning_gym_dataset": "tower_of_hanoi", "ours_level_5": side, "theirs": side}
    row |= {"ours_over_theirs_speed": {**ratios, "generation_mean_like_for_like": 1.5}}
    row["ours_like_for_like"] = {**like, "generation": {"mean_ms": 4 / 3}}
    path = tmp_path / "generation.json"
    path.write_text(json.dumps({"peers": {"tower_of_hanoi~tower_of_hanoi": row}}))
    text = "\n".join(_speed_table(path))
    assert "ours generates in 1.33 ms, theirs in 2 ms (1.5x)" in text
