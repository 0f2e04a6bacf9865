"""The package boundary: a wheel built from the checkout holds the library and its package data,
nothing else, and shows users the same figures as the checkout.

The repository root is the package (pyproject's ``package-dir``), so anything left in it would
ship or become importable: tests, benchmarks, docs, build output. The wheel is built from a copy
of the working tree, unpacked, and imported from another directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv*", ".build", "build", "dist", "runs", "*.egg-info", "__pycache__"
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=NOT_COPIED)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(work),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    # the build leaves nothing importable inside the package folder
    assert not (source / "build").exists()
    return next(work.glob("palaestra-*.whl"))


@pytest.fixture(scope="module")
def unpacked(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def test_wheel_holds_only_the_library(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[1] for name in names if name.startswith("palaestra/") and name.count("/") > 1}
    assert not top & {"tests", "benchmarks", "docs", "build", ".build", "runs"}, sorted(top)
    assert not [
        name
        for name in names
        if "/results/" in name
        or name.endswith((".png", ".md"))
        and not name.startswith("palaestra/generators/words/data/")
    ]
    assert "palaestra/envs/__init__.py" in names and "palaestra/sandbox/__init__.py" in names
    assert "palaestra/setup.py" not in names
    assert "palaestra/measured/reward_errors.json" in names
    assert "palaestra/measured/calibration/sudoku.json" in names
    assert "palaestra/generators/index.json" in names  # without it every import loads every family


def test_wheel_holds_every_subpackage(wheel: Path) -> None:
    """Discovery, not a hand-kept list: every library folder with an ``__init__.py`` ships."""
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = {
        init.parent.relative_to(ROOT)
        for init in ROOT.rglob("__init__.py")
        if not ({"tests", "benchmarks", "docs", "build", "runs"} & set(init.relative_to(ROOT).parts[:1]))
        and not any(part.startswith(".") for part in init.relative_to(ROOT).parts)
    }
    assert len(packages) > 15
    missing = [
        str(p) for p in packages if f"palaestra/{p.as_posix()}/__init__.py".replace("/./", "/") not in names
    ]
    assert not missing, missing


def _installed(unpacked: Path, code: str, cwd: Path) -> None:
    """Run ``code`` with the unpacked wheel first on the path and this venv's packages after it.

    ``-S`` skips ``.pth`` processing: this venv may hold an editable install of the checkout,
    whose import hook would still serve ``palaestra.tests`` from the repository; a plain
    ``pip install .`` has none."""
    paths = [str(unpacked), *sysconfig.get_paths()["purelib"].split(os.pathsep)]
    env = {"PYTHONPATH": os.pathsep.join(paths), "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    result = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]


def test_installed_package_renders_the_checkout_catalog(unpacked: Path, tmp_path: Path) -> None:
    code = (
        "import sys\nimport palaestra\nfrom palaestra.cli import main\n"
        f"assert palaestra.__file__.startswith({str(unpacked)!r}), palaestra.__file__\n"
        "sys.exit(main(['catalog', '--out', 'catalog.md']))\n"
    )
    _installed(unpacked, code, tmp_path)
    assert (tmp_path / "catalog.md").read_text() == (ROOT / "docs" / "catalog.md").read_text()


def test_installed_package_cannot_import_build_leftovers(unpacked: Path, tmp_path: Path) -> None:
    code = (
        "import importlib, palaestra\n"
        "for name in ('palaestra.build', 'palaestra.tests', 'palaestra.benchmarks'):\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ModuleNotFoundError:\n"
        "        continue\n"
        "    raise SystemExit(name + ' is importable')\n"
    )
    _installed(unpacked, code, tmp_path)


def test_installed_package_imports_no_family_module(unpacked: Path, tmp_path: Path) -> None:
    # the wheel's family index is fresh for the wheel's files: `import palaestra` loads no family
    code = (
        "import sys, palaestra\n"
        f"assert palaestra.__file__.startswith({str(unpacked)!r}), palaestra.__file__\n"
        "loaded = [m for m in sys.modules if m.startswith('palaestra.generators.')]\n"
        "assert not loaded, loaded\n"
        "from palaestra import registry\n"
        "assert registry._index() is not None\n"
        "listed = palaestra.families()\n"
        "registry.discover()\n"
        "assert listed == palaestra.families() and len(listed) > 50, listed\n"
    )
    _installed(unpacked, code, tmp_path)
