"""``palaestra dev``: contributor commands that work on a source checkout of palaestra.

    palaestra dev new-family NAME --domain D   # write the family file and its test, then refresh
    palaestra dev refresh FAMILY [FAMILY ...]  # re-pin ids, recalibrate, re-measure, regenerate index and catalog
    palaestra dev refresh --catalog            # regenerate generators/index.json and docs/catalog.md only

Both act on the checkout named by ``--repo`` (default: the working directory), never on the
installed package, and refuse to run anywhere that is not a palaestra checkout. ``refresh`` runs
the checkout's own scripts (``tests/test_task_bytes.py``, ``benchmarks/duplicates.py``,
``benchmarks/constant_answers.py``, ``benchmarks/reward_errors.py``) for the named families only,
at the settings the test suite checks (calibration at its minimum of 100 seeds per level).
"""

from __future__ import annotations

import argparse
import importlib
import keyword
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

TEMPLATES = Path(__file__).resolve().parent / "templates"
QUICK_CALIBRATION_SEEDS = 100  # the least tests/test_calibration.py accepts for a new family
NOT_DOMAINS = {"shared"}  # generators/shared holds helpers, not families


def checkout(repo: Path) -> Path:
    """``repo`` resolved, after checking that it is a palaestra source checkout."""
    repo = repo.resolve()
    project = repo / "pyproject.toml"
    if not project.is_file() or 'name = "palaestra"' not in project.read_text():
        raise ValueError(f"{repo} is not a palaestra checkout (run from a clone, or pass --repo)")
    running = Path(__file__).resolve().parent
    if running != repo:  # measuring the installed copy would record figures of other code
        raise ValueError(f"palaestra runs from {running}, not from {repo}: `pip install -e {repo}` first")
    return repo


def domains(repo: Path) -> list[str]:
    """The generator domains of the checkout (folders of ``generators/`` that hold families)."""
    root = repo / "generators"
    return sorted(
        p.name for p in root.iterdir() if (p / "__init__.py").is_file() and p.name not in NOT_DOMAINS
    )


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def new_family(name: str, domain: str, repo: Path) -> list[Path]:
    """Write ``generators/DOMAIN/NAME.py`` and ``tests/generators/test_NAME.py`` from the templates."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or keyword.iskeyword(name):
        raise ValueError(f"family name {name!r}: use lower_snake_case (letters, digits, _)")
    if domain not in domains(repo):
        raise ValueError(f"unknown domain {domain!r}; domains: {', '.join(domains(repo))}")
    from palaestra.registry import families

    if name in families():
        raise ValueError(f"a family named {name!r} is registered already")
    values = {
        "name": name,
        "domain": domain,
        "title": name.replace("_", " ").capitalize(),
        "family_class": _camel(name),
        "knobs_class": _camel(name) + "Knobs",
    }
    targets = {
        repo / "generators" / domain / f"{name}.py": "family.py.tmpl",
        repo / "tests" / "generators" / f"test_{name}.py": "test_family.py.tmpl",
    }
    for path in targets:
        if path.exists():
            raise ValueError(f"{path} exists already")
    for path, template in targets.items():
        path.write_text((TEMPLATES / template).read_text().format(**values))
        print(f"wrote {path.relative_to(repo)}")
    return list(targets)


def _run(repo: Path, *args: str) -> None:
    """One of the checkout's scripts, with this interpreter and this environment."""
    print("$ python " + " ".join(args), flush=True)
    subprocess.run([sys.executable, *args], cwd=repo, check=True, env=os.environ.copy())


def refresh(names: list[str], repo: Path, *, seeds: int = QUICK_CALIBRATION_SEEDS) -> None:
    """Re-pin, recalibrate and re-measure ``names`` in ``repo``, then regenerate its catalog."""
    from palaestra import calibration
    from palaestra.registry import get

    for name in names:
        get(name)  # an unknown name fails before any work
    if names:
        _run(repo, "tests/test_task_bytes.py", *names)
        for name in names:
            record = calibration.calibrate(name, seeds)
            calibration.write(record, repo / "measured" / "calibration", repo / "docs" / "calibration")
        _run(repo, "benchmarks/duplicates.py", "--families", *names)
        _run(repo, "benchmarks/constant_answers.py", "--families", *names)
        _run(repo, "benchmarks/reward_errors.py", "--families", *names)
    write_index(repo)
    write_catalog(repo)


def write_index(repo: Path) -> None:
    """Regenerate ``generators/index.json``, the family index ``import palaestra`` reads."""
    from palaestra.registry import write_index as write

    write(repo / "generators" / "index.json")
    print("wrote generators/index.json")


def write_catalog(repo: Path) -> None:
    from palaestra.catalog import render_catalog

    (repo / "docs" / "catalog.md").write_text(render_catalog())
    print("wrote docs/catalog.md")


def run_cli(args: argparse.Namespace) -> int:
    repo = checkout(args.repo)
    if args.dev_command == "new-family":
        new_family(args.name, args.domain, repo)
        importlib.import_module(f"palaestra.generators.{args.domain}.{args.name}")  # registers it
        if args.refresh:
            refresh([args.name], repo)
        return 0
    if not args.families and not args.catalog:
        raise ValueError("name the families to refresh, or pass --catalog")
    refresh(args.families, repo, seeds=args.seeds)
    return 0


def add_cli(subparsers: Any) -> None:
    p = subparsers.add_parser("dev", help="contributor commands for a source checkout (new-family, refresh)")
    p.add_argument("--repo", type=Path, default=Path("."), help="the palaestra checkout (default: .)")
    sub = p.add_subparsers(dest="dev_command", metavar="DEV_COMMAND", required=True)
    new = sub.add_parser("new-family", help="write a working family and its test from the template")
    new.add_argument("name", help="lower_snake_case family name")
    new.add_argument("--domain", required=True, help="generators/ folder it belongs to")
    new.add_argument(
        "--no-refresh",
        dest="refresh",
        action="store_false",
        help="only write the two files (skip pins, calibration, measurements and catalog)",
    )
    ref = sub.add_parser("refresh", help="re-pin ids, recalibrate, re-measure and regenerate the catalog")
    ref.add_argument("families", nargs="*", help="families whose generator or verifier changed")
    ref.add_argument(
        "--catalog",
        action="store_true",
        help="regenerate generators/index.json and docs/catalog.md (always done)",
    )
    ref.add_argument(
        "--seeds", type=int, default=QUICK_CALIBRATION_SEEDS, help="calibration seeds per level (default 100)"
    )
    p.set_defaults(run=run_cli)
