"""The suite's pytest settings work in a venv without the dev extra's pytest-xdist."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_pytest_runs_without_xdist() -> None:
    """Regression: ``-n auto`` sat in ``addopts``, so ``python -m pytest`` in a venv without
    pytest-xdist stopped with ``unrecognized arguments: -n``. ``-p no:xdist`` stands in for that venv."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "--collect-only", "-q", "tests/test_readme.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "test_ci_runs_the_readme_test_command" in result.stdout
