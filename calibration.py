"""Difficulty calibration: measure what each level really costs the reference solvers.

For every level, over N seeds, ``calibrate`` records the solve rate of the family's weak
heuristic solver and of its exact solver (both graded by the family's own verifier), the exact
solver's effort (nodes, steps, conflicts), the duplicate rate by canonical hash and the
generation time. ``palaestra calibrate FAMILY`` writes ``FAMILY.json`` and a PNG plot into
``--out`` (default ``./calibration``); the stored cards ship in ``palaestra/measured/calibration``
(``palaestra dev refresh`` rewrites them in a checkout) and ``tests/test_calibration.py`` checks
they stay monotone and current.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from palaestra import measurements
from palaestra.core import LEVELS, Task
from palaestra.registry import FamilySpec, SolverRun, families, get, make_task, verify


def canonical_key(task: Task) -> str:
    """The family's canonical hash when it declares one (relabelling/rotation aware), else the id."""
    return str(task.metadata.get("canonical_hash", task.id))


def stored_duplicates(path: Path = measurements.DUPLICATES) -> dict[str, Any]:
    """The duplicate measurement on file (``benchmarks/duplicates.py``: 2,000 tasks per level,
    too slow for calibrate's N seeds): ``{"families": {name: {"family_version", "levels"}}}``."""
    return measurements.load(path, {"families": {}})


def current_duplicate_rows(record: dict[str, Any], spec: FamilySpec) -> dict[int, dict[str, Any]]:
    """The rows of a family's stored duplicate ``record`` that still describe ``spec``: same
    family version and, per level, the same knobs (a changed level must be measured again)."""
    if record.get("family_version") != spec.version:
        return {}
    return {
        level: row
        for level, row in ((int(k), v) for k, v in record.get("levels", {}).items())
        if level in spec.levels and row["knobs"] == spec.levels[level].to_dict()
    }


def _solve(task: Task, run: SolverRun) -> bool:
    return run.response is not None and verify(task, run.response).correct


def calibrate_level(family: str, level: int, seeds: int) -> dict[str, Any]:
    """Solve rates, effort and duplicate rate of one level over seeds 0..N-1."""
    impl = get(family).impl
    efforts, weak_solved, exact_solved, keys = [], 0, 0, set()
    generation_s = 0.0
    for seed in range(seeds):
        started = time.perf_counter()
        task = make_task(family, seed=seed, level=level)
        generation_s += time.perf_counter() - started
        keys.add(canonical_key(task))
        exact = impl.solve_exact(task)
        efforts.append(exact.effort)
        exact_solved += _solve(task, exact)
        try:
            weak_solved += _solve(task, impl.solve_weak(task))
        except NotImplementedError:
            pass
    return {
        "level": level,
        "seeds": seeds,
        "weak_solve_rate": weak_solved / seeds,
        "exact_solve_rate": exact_solved / seeds,
        "effort_mean": statistics.fmean(efforts),
        "effort_median": statistics.median(efforts),
        "duplicate_rate": 1 - len(keys) / seeds,
        "tasks_per_s": seeds / generation_s if generation_s else None,
    }


def calibrate(family: str, seeds: int = 200, *, progress: bool = True) -> dict[str, Any]:
    """Calibrate every level of ``family``; returns the JSON-ready record."""
    spec = get(family)
    rows = []
    for level in LEVELS:
        rows.append(calibrate_level(family, level, seeds))
        if progress:
            row = rows[-1]
            print(
                f"  {family} level {level:>2}: weak {row['weak_solve_rate']:.2f}  exact {row['exact_solve_rate']:.2f}  "
                f"effort {row['effort_mean']:.1f}  dup {row['duplicate_rate']:.3f}",
                file=sys.stderr,
                flush=True,
            )
    return {
        "family": family,
        "family_version": spec.version,
        "levels": {str(level): spec.levels[level].to_dict() for level in LEVELS},
        "solvers": {
            "weak": type(spec.impl).solve_weak.__doc__ or "",
            "exact": type(spec.impl).solve_exact.__doc__ or "",
        },
        "rows": rows,
    }


def plot(record: dict[str, Any], path: Path) -> None:
    """Solve rates and mean effort against level, side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = record["rows"]
    levels = [r["level"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    left.plot(levels, [r["weak_solve_rate"] for r in rows], "o-", label="weak heuristic")
    left.plot(levels, [r["exact_solve_rate"] for r in rows], "s--", label="exact")
    left.set(xlabel="level", ylabel="solve rate", ylim=(-0.05, 1.05), title=f"{record['family']}: solve rate")
    left.legend()
    right.plot(levels, [r["effort_mean"] for r in rows], "o-", color="tab:red")
    right.set(xlabel="level", ylabel="exact-solver effort (mean)", yscale="log", title="effort")
    for axis in (left, right):
        axis.set_xticks(levels)
        axis.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def write(record: dict[str, Any], out_dir: Path, plot_dir: Path | None = None) -> Path:
    """``FAMILY.json`` into ``out_dir`` and its plot into ``plot_dir`` (default: the same folder)."""
    plot_dir = plot_dir or out_dir
    for folder in (out_dir, plot_dir):
        folder.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{record['family']}.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    plot(record, plot_dir / f"{record['family']}.png")
    return path


def stored_calibration(family: str) -> dict[int, dict[str, Any]]:
    """The shipped calibration rows of ``family`` by level (empty when never calibrated)."""
    record = measurements.load(measurements.CALIBRATION / f"{family}.json", {"rows": []})
    return {row["level"]: row for row in record["rows"]}


def run_cli(args: argparse.Namespace) -> int:
    names = families() if args.all else args.families
    if not names:
        raise ValueError("name at least one family, or pass --all")
    for name in names:
        get(name)  # fail fast on an unknown name, before any work
    if args.seeds < 1:
        raise ValueError(f"--seeds must be positive, got {args.seeds}")
    for name in names:
        print(f"calibrating {name} over {args.seeds} seeds per level", file=sys.stderr)
        path = write(calibrate(name, args.seeds), args.out)
        print(f"wrote {path}")
    return 0


def add_cli(subparsers: Any) -> None:
    p = subparsers.add_parser("calibrate", help="measure solver solve rates and effort per level")
    p.add_argument("families", nargs="*", help="family names")
    p.add_argument("--all", action="store_true", help="calibrate every registered family")
    p.add_argument("--seeds", type=int, default=200, help="seeds per level (default 200)")
    p.add_argument(
        "--out",
        type=Path,
        default=Path("calibration"),
        help="output folder for FAMILY.json and FAMILY.png (default ./calibration)",
    )
    p.set_defaults(run=run_cli)
