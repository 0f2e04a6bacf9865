"""``palaestra dev new-family``: one command gives a family that passes the whole contract suite.

In a copy of the checkout: ``palaestra dev new-family demo_family --domain graphs``, then every
registry-wide test (the contract, pinned ids, calibration, duplicates, constant answers, red
team, hostile inputs, env and export round trips; the cases of the new family and the tests over
the whole registry) and the generated test pass with no other edit. Broken on purpose, the
verifier fails the generated test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from palaestra import dev

ROOT = Path(__file__).resolve().parents[1]
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv*", ".build", "build", "dist", "runs", "*.egg-info", "__pycache__", ".hypothesis"
)
REGISTRY_WIDE = [
    "tests/test_contract.py",
    "tests/test_task_bytes.py",
    "tests/test_calibration.py",
    "tests/test_duplicates.py",
    "tests/test_constant_answers.py",
    "tests/test_hostile_inputs.py",
    "tests/test_registry.py",
    "tests/test_export.py",
    "tests/adversarial/test_reward_integrity.py",
    "tests/adversarial/test_published_figures.py",
    "tests/envs/test_registered_ids.py",
    "tests/envs/test_feedback.py",
    "tests/integrations/test_export_rewards.py",
]
NAME = "demo_family"


def _env(packages: Path) -> dict[str, str]:
    """This environment, with ``palaestra`` resolving to the copy (``packages/palaestra``)."""
    return {**os.environ, "PYTHONPATH": str(packages), "OMP_NUM_THREADS": "1"}


def _python(copy: Path, packages: Path, *args: str, timeout: int = 1800) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=copy, env=_env(packages), capture_output=True, text=True, timeout=timeout
    )


def _pytest(copy: Path, packages: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _python(copy, packages, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "-q", *args)


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("dev")
    copy, packages = work / "palaestra", work / "packages"
    shutil.copytree(ROOT, copy, ignore=NOT_COPIED)
    packages.mkdir()
    (packages / "palaestra").symlink_to(copy)
    made = _python(copy, packages, "-m", "palaestra.cli", "dev", "new-family", NAME, "--domain", "graphs")
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    return copy, packages


pytestmark = pytest.mark.slow


def test_new_family_passes_the_contract_suite(scaffolded: tuple[Path, Path]) -> None:
    copy, packages = scaffolded
    assert (copy / "generators" / "graphs" / f"{NAME}.py").is_file()
    listed = _pytest(copy, packages, "--collect-only", *REGISTRY_WIDE)
    assert listed.returncode == 0, listed.stdout[-3000:]
    ids = [line for line in listed.stdout.splitlines() if "::" in line]
    # the new family's cases and the tests over the whole registry (not other families' cases)
    chosen = [i for i in ids if "[" not in i or NAME in i]
    assert sum(NAME in i for i in chosen) >= 20, chosen
    ran = _pytest(copy, packages, f"tests/generators/test_{NAME}.py", *chosen)
    assert ran.returncode == 0, ran.stdout[-6000:]
    # none of it skipped for the new family (pytest's -ra lists every skip with its reason)
    skipped = [line for line in ran.stdout.splitlines() if line.startswith("SKIPPED") and NAME in line]
    assert not skipped, skipped


def test_the_generated_test_catches_a_broken_verifier(scaffolded: tuple[Path, Path]) -> None:
    copy, packages = scaffolded
    source = copy / "generators" / "graphs" / f"{NAME}.py"
    original = source.read_text()
    broken = original.replace("if sorted(claimed) != expected:", "if not claimed:")  # pays any list
    assert broken != original
    source.write_text(broken)
    try:
        ran = _pytest(copy, packages, f"tests/generators/test_{NAME}.py")
    finally:
        source.write_text(original)
    assert ran.returncode == 1 and "test_only_the_reachable_set_is_paid" in ran.stdout, ran.stdout[-3000:]


def test_new_family_refuses_bad_input(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="lower_snake_case"):
        dev.new_family("Bad-Name", "graphs", ROOT)
    with pytest.raises(ValueError, match="unknown domain 'nowhere'; domains: .*graphs"):
        dev.new_family("fine_name", "nowhere", ROOT)
    with pytest.raises(ValueError, match="registered already"):
        dev.new_family("sudoku", "puzzles", ROOT)
    with pytest.raises(ValueError, match="not a palaestra checkout"):
        dev.checkout(tmp_path)
