"""Pinned task ids: the same (family, version, level, seed) must give the same bytes in every
release, not only in every process.

Stored datasets, GRPO groups and re-verification rebuild tasks from those four values, so a
change to a generator's output (a new rule, a different random draw, even a changed effort
count in the metadata) must come with a family version bump. ``tests/data/task_ids.json`` holds
the ids of a few tasks per family; a family whose version changed is re-pinned on purpose with

    python tests/test_task_bytes.py            # re-pin the families whose version changed
    python tests/test_task_bytes.py --all      # re-pin every family (after a new family lands)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import palaestra

PINS = Path(__file__).resolve().parent / "data" / "task_ids.json"
PINNED = [(level, seed) for level in (1, 3, 5) for seed in (0, 1)]


def task_ids(family: str) -> dict[str, str]:
    return {
        f"level {level} seed {seed}": palaestra.make_task(family, seed=seed, level=level).id
        for level, seed in PINNED
    }


def load_pins() -> dict[str, dict]:
    return json.loads(PINS.read_text()) if PINS.exists() else {}


PINS_ON_FILE = load_pins()


@pytest.mark.parametrize("family", palaestra.families())
def test_same_version_same_task_bytes(family: str) -> None:
    pin = PINS_ON_FILE.get(family)
    assert pin is not None, f"{family} has no pinned ids: run `python tests/test_task_bytes.py`"
    version = palaestra.get(family).version
    assert pin["version"] == version, (
        f"{family} is now version {version} (pinned: {pin['version']}): re-pin it with "
        "`python tests/test_task_bytes.py`"
    )
    assert task_ids(family) == pin["ids"], (
        f"{family} v{version} generates different tasks than it did when pinned: bump its version "
        "(stored tasks and datasets name the version that rebuilds them)"
    )


def test_no_pins_for_unknown_families() -> None:
    assert not set(PINS_ON_FILE) - set(palaestra.families())


def repin(every: bool, names: list[str] | None = None) -> None:
    """Pin the families whose version changed, or ``every`` one, or those in ``names`` (a
    generator changed again before its new version was released)."""
    pins = {name: pin for name, pin in load_pins().items() if name in palaestra.families()}
    for name in names or []:
        palaestra.get(name)  # an unknown name is an error listing the registered ones
    for name in palaestra.families():
        version = palaestra.get(name).version
        if every or name in (names or []) or pins.get(name, {}).get("version") != version:
            pins[name] = {"version": version, "ids": task_ids(name)}
            print(f"pinned {name} v{version}")
    PINS.parent.mkdir(parents=True, exist_ok=True)
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    # python tests/test_task_bytes.py [--all] [FAMILY ...]
    repin(every="--all" in sys.argv[1:], names=[a for a in sys.argv[1:] if not a.startswith("--")])
