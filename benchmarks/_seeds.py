"""Shared by the training benchmarks: run one worker process per seed, a few at a time."""

from __future__ import annotations

import json
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
