"""Tests of the registry: registration rules, difficulty resolution, plugins, env ids."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import gymnasium
import numpy as np
import pytest

import palaestra
from palaestra import registry
from palaestra.core import Knobs, Task, Verdict, knob
from palaestra.registry import Family, SolverRun, TaskDraft, env_id_for, family


@dataclass(frozen=True)
class TinyKnobs(Knobs):
    n: int = knob(1, low=1, high=100, help="n")


TINY_LEVELS = {level: TinyKnobs(n=level) for level in range(1, 11)}


def test_env_ids_are_camel_case() -> None:
    assert env_id_for("knights_knaves") == "palaestra/KnightsKnaves-v0"
    assert env_id_for("sudoku") == "palaestra/Sudoku-v0"


def test_every_family_has_a_gymnasium_id() -> None:
    for name in palaestra.families():
        assert palaestra.get(name).env_id in gymnasium.registry


def test_unknown_family_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="valid families: .*expression"):
        palaestra.make_task("no_such_family", seed=0)


def test_bad_definitions_are_rejected() -> None:
    cls = type("Dummy", (Family,), {})
    with pytest.raises(ValueError, match="levels must be exactly"):
        family("bad_levels", domain="arithmetic", knobs=TinyKnobs, levels={1: TinyKnobs()}, description="x")(
            cls
        )
    with pytest.raises(ValueError, match="domain"):
        family("bad_domain", domain="cooking", knobs=TinyKnobs, levels=TINY_LEVELS, description="x")(cls)
    with pytest.raises(ValueError, match="lower_snake_case"):
        family("BadName", domain="arithmetic", knobs=TinyKnobs, levels=TINY_LEVELS, description="x")(cls)
    assert "bad_levels" not in registry._FAMILIES


def test_registration_level_and_knob_resolution_and_crash_reporting() -> None:
    @family(
        "registry_test_family", domain="arithmetic", knobs=TinyKnobs, levels=TINY_LEVELS, description="demo"
    )
    class Demo(Family):
        def generate(self, knobs: TinyKnobs, rng: np.random.Generator) -> TaskDraft:
            return TaskDraft(prompt=f"n={knobs.n} r={int(rng.integers(10**9))}", answer=str(knobs.n))

        def verify(self, task: Task, response: str) -> Verdict:
            if response == "crash":
                raise RuntimeError("boom")
            return Verdict.right() if response == task.answer else Verdict.wrong("no")

        def solve_exact(self, task: Task) -> SolverRun:
            return SolverRun(task.answer, 1.0)

    try:
        assert "registry_test_family" in palaestra.families("arithmetic")
        task = palaestra.make_task("registry_test_family", seed=3, level=4, n=50)
        assert task.level == 4 and task.knobs == {"n": 50}
        no_level = palaestra.make_task("registry_test_family", seed=3, n=7)
        assert no_level.level is None and no_level.knobs == {"n": 7}
        assert palaestra.make_task("registry_test_family", seed=3).level == 1  # the default
        assert palaestra.rebuild(no_level) == no_level
        crashed = palaestra.verify(task, "crash")
        assert not crashed.correct and crashed.error == "RuntimeError: boom"
        assert not palaestra.verify(task, None).format_ok  # type: ignore[arg-type]
        assert palaestra.get("registry_test_family").impl.effort(task) == 1.0
        stale = Task.from_dict({**task.to_dict(), "family_version": 99, "id": ""})
        with pytest.raises(ValueError, match="v99"):
            palaestra.rebuild(stale)
    finally:
        registry._FAMILIES.pop("registry_test_family", None)


def test_a_search_that_runs_out_is_a_generation_error_naming_the_knob() -> None:
    """A generator's bounded search that runs out (RuntimeError inside the family) reaches the
    user as GenerationError, a ValueError naming the knob set beyond every level (issue 27)."""

    @family("registry_exhausted", domain="arithmetic", knobs=TinyKnobs, levels=TINY_LEVELS, description="x")
    class Exhausted(Family):
        def generate(self, knobs: TinyKnobs, rng: np.random.Generator) -> TaskDraft:
            if knobs.n > 10:
                raise RuntimeError(f"no instance for n={knobs.n} in 100 draws")
            if knobs.n == 7:
                raise RecursionError("a defect, not a search running out")
            return TaskDraft(prompt="p", answer="a")

        def verify(self, task: Task, response: str) -> Verdict:
            return Verdict.wrong("no")

        def solve_exact(self, task: Task) -> SolverRun:
            return SolverRun(task.answer, 1.0)

    try:
        with pytest.raises(
            palaestra.GenerationError, match=r"knob n=60 \(the levels go up to 10\)"
        ) as caught:
            palaestra.make_task("registry_exhausted", seed=0, level=10, n=60)
        assert isinstance(caught.value, ValueError) and "100 draws" in str(caught.value)
        with pytest.raises(RecursionError):
            palaestra.make_task("registry_exhausted", seed=0, n=7)
    finally:
        registry._FAMILIES.pop("registry_exhausted", None)


def test_broken_plugin_warns_instead_of_breaking(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_load() -> None:
        raise ImportError("missing dependency")

    entry = SimpleNamespace(name="broken", load=broken_load)
    monkeypatch.setattr(registry.importlib.metadata, "entry_points", lambda group: [entry])
    with pytest.warns(UserWarning, match="plugin 'broken' failed to load"):
        registry._load_plugins()


def test_plugin_entry_point_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = []
    entry = SimpleNamespace(name="good", load=lambda: loaded.append(True))
    monkeypatch.setattr(
        registry.importlib.metadata,
        "entry_points",
        lambda group: [entry] if group == "palaestra.families" else [],
    )
    registry._load_plugins()
    assert loaded == [True]


def test_remembered_knob_sets_keep_value_types_apart() -> None:
    # built knob sets are remembered by value *and type*: 1, 1.0 and True are equal dict keys
    make_task = palaestra.make_task
    good = make_task("tower_of_hanoi", seed=0, disks=3, pegs=3)
    assert make_task("tower_of_hanoi", seed=0, disks=3, pegs=3) == good
    for bad in (3.0, True, "3.5"):
        with pytest.raises(ValueError, match="disks"):
            make_task("tower_of_hanoi", seed=0, disks=bad, pegs=3)
    # a string from the command line is read as the knob's type, the same knob set as the int
    assert make_task("tower_of_hanoi", seed=0, disks="3", pegs=3) == good
    # an unhashable value is not remembered, just refused
    with pytest.raises(ValueError, match="disks"):
        make_task("tower_of_hanoi", seed=0, disks=[3], pegs=3)
