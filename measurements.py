"""Measurements the library shows users, shipped as package data in ``palaestra/measured/``.

The catalog and the calibration cards read these files; the benchmarks that produce them
(``benchmarks/duplicates.py``, ``reward_errors.py``, ``generation.py``) and
``palaestra dev refresh`` rewrite them in a source checkout. The library reads them from its
own package folder, never from a repository path, so an installed wheel shows the same figures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MEASURED = Path(__file__).resolve().parent / "measured"
CALIBRATION = MEASURED / "calibration"  # one <family>.json per family (plots: docs/calibration/)
DUPLICATES = MEASURED / "duplicates.json"  # benchmarks/duplicates.py
REWARD_ERRORS = MEASURED / "reward_errors.json"  # benchmarks/reward_errors.py
GENERATION = MEASURED / "generation.json"  # benchmarks/generation.py


def load(path: Path, empty: dict[str, Any] | None = None) -> dict[str, Any]:
    """A stored measurement, or ``empty`` (default ``{}``) when it was never measured."""
    if not path.exists():
        return dict(empty or {})
    return json.loads(path.read_text())
