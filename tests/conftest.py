"""Fixtures shared by the whole suite."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis profiles, chosen with HYPOTHESIS_PROFILE (default "ci"):
# - "ci": examples derived from each test's own code (derandomize), so a run passes or fails the
#   same way every time: a new counterexample is never found by chance in CI;
# - "nightly": fresh random examples and 10x the default budget (tests that set their own
#   max_examples keep it), for exploring locally: `HYPOTHESIS_PROFILE=nightly python -m pytest`.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile(
    "nightly", derandomize=False, max_examples=1000, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
WORKERS = 4  # at most, with pytest-xdist


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``python -m pytest`` runs on up to ``WORKERS`` processes when pytest-xdist (the dev extra) is
    installed, and in one process without it: ``-n`` is not in ``addopts``, where a venv without
    xdist failed with ``unrecognized arguments: -n``. An explicit ``-n`` wins; xdist's own workers
    (which carry ``workerinput``) are left alone."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return
    if config.getoption("numprocesses", None) is None:
        config.option.numprocesses = "auto"
        config.option.maxprocesses = config.option.maxprocesses or WORKERS


@pytest.fixture(scope="session")
def benchmark_script() -> Callable[[str], ModuleType]:
    """Loads a script of ``benchmarks/`` (a folder of scripts, not a package) by name, once."""
    loaded: dict[str, ModuleType] = {}

    def load(name: str) -> ModuleType:
        if name not in loaded:
            spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", BENCHMARKS / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # dataclasses look their module up while it loads
            spec.loader.exec_module(module)
            loaded[name] = module
        return loaded[name]

    return load
