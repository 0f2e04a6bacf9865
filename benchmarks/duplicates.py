"""Duplicate rate by canonical hash among 2,000 tasks at every level >= 3, for every family.

A duplicate is two seeds whose tasks share a canonical key (the family's ``canonical_hash``
when it declares one, which is relabelling/rotation aware, else the task id). For each family
and level, seeds 0..N-1 are generated and ``1 - distinct / N`` is recorded, with the family
version and the level's knobs so that ``tests/test_duplicates.py`` can tell a stale record from
a current one. Results merge into ``measured/duplicates.json`` (package data), so the expensive
families can be measured in separate runs; ``palaestra catalog`` then shows them in the level
tables of ``docs/catalog.md`` (the test suite fails until it is rerun).

    python benchmarks/duplicates.py                          # every family, levels 3..10
    python benchmarks/duplicates.py --families sudoku --levels 3 4
    python benchmarks/duplicates.py --max-minutes 2          # skip family levels estimated slower
    python benchmarks/duplicates.py --missing-only --jobs 16 # the levels not measured yet, 16 at once
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import palaestra
from palaestra.calibration import canonical_key, current_duplicate_rows, stored_duplicates
from palaestra.measurements import DUPLICATES
from palaestra.registry import get

RESULTS = DUPLICATES
TASKS = 2000
PROBE = 10  # tasks timed first to estimate a level's cost


def measure_level(family: str, level: int, count: int) -> dict[str, Any]:
    """Generate seeds 0..count-1 at ``level`` and count distinct canonical keys."""
    started = time.perf_counter()
    keys = {canonical_key(palaestra.make_task(family, seed=seed, level=level)) for seed in range(count)}
    return {
        "tasks": count,
        "distinct": len(keys),
        "duplicate_rate": 1 - len(keys) / count,
        "seconds": round(time.perf_counter() - started, 1),
    }


def estimated_minutes(family: str, level: int, count: int) -> float:
    started = time.perf_counter()
    for seed in range(count, count + PROBE):  # seeds outside the measured range: no cache effects
        palaestra.make_task(family, seed=seed, level=level)
    return (time.perf_counter() - started) / PROBE * count / 60


def load(path: Path) -> dict[str, Any]:
    results = stored_duplicates(path)
    results.setdefault("tasks_per_level", TASKS)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--families", nargs="*", default=None, help="families to measure (default: all)")
    parser.add_argument(
        "--levels", nargs="*", type=int, default=list(range(3, 11)), help="levels (default 3..10)"
    )
    parser.add_argument("--tasks", type=int, default=TASKS, help="tasks per level")
    parser.add_argument(
        "--max-minutes",
        type=float,
        default=None,
        help="skip a level whose estimated generation time is longer",
    )
    parser.add_argument(
        "--missing-only", action="store_true", help="measure only levels with no current record"
    )
    parser.add_argument("--jobs", type=int, default=1, help="family levels measured in parallel processes")
    parser.add_argument("--out", type=Path, default=RESULTS, help="JSON file to merge the results into")
    args = parser.parse_args()

    results = load(args.out)
    todo = planned_levels(args.families or palaestra.families(), args, results)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(measure_level, name, level, args.tasks): (name, level) for name, level in todo}
        for future in as_completed(futures):
            name, level = futures[future]
            row = future.result()
            row["knobs"] = get(name).levels[level].to_dict()
            results["families"][name]["levels"][str(level)] = row
            print(
                f"{name:<26} level {level:>2}: {row['duplicate_rate']:.4f} duplicates "
                f"({row['distinct']}/{row['tasks']} distinct, {row['seconds']} s)",
                flush=True,
            )
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")  # after each level
    print(f"wrote {os.path.relpath(args.out)}")


def planned_levels(
    names: list[str], args: argparse.Namespace, results: dict[str, Any]
) -> list[tuple[str, int]]:
    """The (family, level) pairs to measure; a family whose version changed starts a fresh record."""
    todo = []
    for name in names:
        spec = get(name)
        record = results["families"].get(name, {})
        if record.get("family_version") != spec.version:
            record = {"family_version": spec.version, "levels": {}}
        results["families"][name] = record
        current = current_duplicate_rows(record, spec)
        for level in args.levels:
            if args.missing_only and level in current:
                continue
            if args.max_minutes is not None:
                minutes = estimated_minutes(name, level, args.tasks)
                if minutes > args.max_minutes:
                    print(f"{name:<26} level {level:>2}: skipped (about {minutes:.1f} min)", flush=True)
                    continue
            todo.append((name, level))
    return todo


if __name__ == "__main__":
    main()
