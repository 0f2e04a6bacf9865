"""Shared by the training benchmarks: run one worker process per seed, a few at a time."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def run_seed_processes(commands: dict[int, list[str]], jobs: int, out: Path) -> list[dict[str, Any]]:
    """Run ``commands[seed]`` with at most ``jobs`` at once; return the ``out/seed{s}.json`` rows
    of the seeds that finished (a failed seed is reported on stderr and left out)."""
    pending, running = list(commands), []
    while pending or running:
        while pending and len(running) < jobs:
            running.append(subprocess.Popen(commands[pending.pop(0)]))
        time.sleep(1)
        for proc in list(running):
            if proc.poll() is not None:
                running.remove(proc)
                if proc.returncode != 0:
                    print(f"a seed failed with exit status {proc.returncode}", file=sys.stderr)
    return collect_rows(list(commands), out)


def collect_rows(seeds: list[int], out: Path) -> list[dict[str, Any]]:
    """The ``out/seed{s}.json`` rows of the seeds that finished, in seed order."""
    return [
        json.loads((out / f"seed{s}.json").read_text()) for s in seeds if (out / f"seed{s}.json").exists()
    ]


def seed_parser(description: str, out: str, results: Path) -> argparse.ArgumentParser:
    """The flags both training benchmarks share (each adds its own overrides)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--jobs", type=int, default=1, help="seeds run in parallel processes")
    parser.add_argument("--out", default=out, help="folder for the runs")
    parser.add_argument(
        "--set", action="append", default=[], metavar="FIELD=JSON", help="override a config field"
    )
    parser.add_argument("--results", default=str(results), help="where to write the result JSON")
    parser.add_argument(
        "--one", type=int, default=None, metavar="SEED", help="run one seed here and write OUT/seedSEED.json"
    )
    parser.add_argument(
        "--collect",
        action="store_true",
        help="run nothing: write the results from the OUT/seedN.json files of --seeds (seeds run with --one)",
    )
    return parser


def set_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--set FIELD=JSON`` overrides as a dict."""
    return {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}


def set_flags(args: argparse.Namespace) -> list[str]:
    """The ``--set`` flags again, to pass on to each seed's process."""
    return [a for s in args.set for a in ("--set", s)]


def run_or_collect(
    args: argparse.Namespace, script: str, extra: list[str]
) -> tuple[list[dict[str, Any]], float | None]:
    """Run every seed of ``args.seeds`` as ``script --one SEED`` (``extra`` flags passed on), or with
    ``--collect`` only read their rows; returns the rows and the wall seconds (None when collected)."""
    out = Path(args.out)
    if args.collect:
        return collect_rows(args.seeds, out), None
    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    for seed in args.seeds:
        (out / f"seed{seed}.json").unlink(missing_ok=True)
    commands = {
        seed: [sys.executable, script, "--one", str(seed), "--out", str(out), *extra] for seed in args.seeds
    }
    rows = run_seed_processes(commands, args.jobs, out)
    return rows, round(time.perf_counter() - start, 1)


def write_results(result: dict[str, Any], path: str | Path, default: Path, plot: Path) -> None:
    """Write ``result``; for the default results file also copy the first good seed's summary plot to
    ``plot``; print everything but the per-seed rows."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2))
    first = next((r for r in result["seeds"] if r.get("status") == "ok"), None)
    if first and path == default:
        shutil.copy(Path(first["run_dir"]) / "plots" / "summary.png", plot)
    print(json.dumps({k: v for k, v in result.items() if k != "seeds"}, indent=2))
