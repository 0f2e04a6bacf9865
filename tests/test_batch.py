"""``verify_many``: serial verdicts in order, from worker processes that may crash or hang."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
import threading
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import palaestra
from palaestra import batch, registry
from palaestra.batch import _Call, _Item, _Worker, verify_many


@pytest.fixture
def probe():
    """The test family of tests/_batch_families.py, registered for one test only (the contract
    tests over the registry must never see it)."""
    spec = importlib.util.spec_from_file_location(
        "_batch_families", Path(__file__).with_name("_batch_families.py")
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["_batch_families"] = module
    spec.loader.exec_module(module)
    yield module
    registry._FAMILIES.pop(module.NAME, None)
    gymnasium.registry.pop(registry.env_id_for(module.NAME), None)
    sys.modules.pop("_batch_families", None)


def _mixed_batch() -> tuple[list[palaestra.Task], list[str]]:
    tasks, responses = [], []
    for name in ("expression", "sudoku", "loop_invariant", "knights_knaves", "function_induction"):
        impl = registry.get(name).impl
        for seed in range(2):
            task = palaestra.make_task(name, seed=seed, level=2)
            wrong = impl.mutated_responses(task, np.random.default_rng(seed))
            for response in [impl.reference_response(task), *wrong[:1], "no answer here"]:
                tasks.append(task)
                responses.append(response)
    return tasks, responses


def test_verdicts_equal_serial_ones_in_order():
    tasks, responses = _mixed_batch()
    serial = [palaestra.verify(t, r) for t, r in zip(tasks, responses, strict=True)]
    assert {v.status for v in serial} >= {"correct", "wrong", "unparseable"}
    assert verify_many(tasks, responses, workers=2) == serial
    assert verify_many(tasks, responses, workers=0) == serial
    assert palaestra.verify_many(tasks[::-1], responses[::-1], workers=1) == serial[::-1]


def test_a_crash_or_a_hang_costs_one_verdict_and_no_other(probe):
    tasks = [palaestra.make_task(probe.NAME, seed=s) for s in range(6)]
    responses = [tasks[0].answer, "crash", tasks[2].answer, "hang", "not it", "raise"]
    verdicts = verify_many(tasks, responses, workers=1, timeout_s=2.0)
    assert [v.status for v in verdicts] == [
        "correct",
        "verifier_error",
        "correct",
        "timeout",
        "wrong",
        "verifier_error",
    ]
    assert "died" in verdicts[1].error and "exceeded 2 s" in verdicts[3].error
    assert "RuntimeError: verifier bug" in verdicts[5].error


def test_calls_from_many_threads_share_the_workers(probe):
    tasks = [palaestra.make_task(probe.NAME, seed=s) for s in range(40)]
    results: dict[int, list[palaestra.Verdict]] = {}

    def run(k: int) -> None:
        responses = [t.answer if (i + k) % 3 else "wrong" for i, t in enumerate(tasks)]
        results[k] = verify_many(tasks, responses, workers=2)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, verdicts in results.items():
        assert [v.correct for v in verdicts] == [bool((i + k) % 3) for i in range(len(tasks))]


def test_a_task_travels_to_a_worker_once():
    task = palaestra.make_task("expression", seed=1)
    other = palaestra.make_task("expression", seed=2)
    call = _Call(3, 1.0)
    worker = _Worker()
    forget, learn, pairs, announce = worker._message([_Item(call, 0, task, "a"), _Item(call, 1, task, "b")])
    assert forget == [] and [text for text, _, _ in learn] == [task.to_json()]
    assert pairs == [(task.id, "a"), (task.id, "b")]
    assert announce  # a family new to the worker: it says when its module is imported
    worker.families.add("expression")
    _, learn, _, announce = worker._message([_Item(call, 2, task, "c"), _Item(call, 2, other, "d")])
    assert [text for text, _, _ in learn] == [other.to_json()]
    assert not announce


def test_a_deadline_stops_the_work(probe, tmp_path):
    # Review: a request past its wait bound was answered, but its work kept running. Responses
    # not started by the deadline are now dropped from the queue and never run.
    tasks = [palaestra.make_task(probe.NAME, seed=s) for s in range(12)]
    marks = [tmp_path / f"m{i}" for i in range(11)]
    responses = ["hang", *(f"mark:{m}" for m in marks)]
    verdicts = verify_many(tasks, responses, workers=1, timeout_s=5.0, deadline_s=1.0)
    assert [v.status for v in verdicts] == ["timeout"] * 12
    assert all("deadline" in v.error for v in verdicts)
    # a later call queues behind whatever is left (one worker, first in first out): once it is
    # graded, the dropped responses would have run if they had stayed in the queue
    assert verify_many(tasks[:1], [tasks[0].answer], workers=1)[0].correct
    assert not any(m.exists() for m in marks), "responses queued behind the deadline were still run"
    with pytest.raises(ValueError, match="deadline_s"):
        verify_many(tasks[:1], ["x"], deadline_s=0)


def test_a_response_whose_worker_died_is_graded_once_more(probe, tmp_path):
    task = palaestra.make_task(probe.NAME, seed=1)
    flag = tmp_path / "crashed"
    (verdict,) = verify_many([task], [f"crash-once:{flag}"], workers=1)
    assert flag.exists() and verdict.status == "correct"  # it crashed once, then was graded
    (verdict,) = verify_many([task], ["crash"], workers=1)
    assert verdict.status == "verifier_error" and "died" in verdict.error  # twice: reported


def test_workers_have_an_empty_environment_and_a_memory_limit(probe, monkeypatch):
    import json

    from palaestra import batch

    monkeypatch.setenv("PALAESTRA_TOKEN", "token-that-must-not-reach-a-verifier")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-that-must-not-reach-a-verifier")
    batch.shutdown()  # fresh workers, started with this environment
    task = palaestra.make_task(probe.NAME, seed=1)
    (verdict,) = verify_many([task], ["env"], workers=1)
    report = json.loads(verdict.reason)
    names = {name for name, _ in report["env"]}
    assert "PALAESTRA_TOKEN" not in names and "AWS_SECRET_ACCESS_KEY" not in names
    threads = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"}
    set_by_the_worker_itself = {"PYGAME_HIDE_SUPPORT_PROMPT"}  # an import in the worker sets it
    assert names <= {*batch._WORKER_ENV_KEEP, *threads, *set_by_the_worker_itself}, names
    assert 0 < report["rlimit_as"] < (64 << 30)  # limited (RLIM_INFINITY is -1)
    batch.shutdown()


def test_arguments_are_checked():
    task = palaestra.make_task("expression", seed=1)
    with pytest.raises(ValueError, match="1 tasks but 2 responses"):
        verify_many([task], ["a", "b"])
    with pytest.raises(ValueError, match="workers"):
        verify_many([task], ["a"], workers=-1)
    assert verify_many([], []) == []
    assert verify_many([task], [None], workers=1)[0].status == "unparseable"  # type: ignore[list-item]


def test_the_shared_sandbox_has_two_servers_per_core(monkeypatch: pytest.MonkeyPatch) -> None:
    # limits count CPU time, so two programs per core keep their verdicts while a hanging
    # program leaves a server for the rest of the batch; verify_many waits on all of them
    from palaestra import batch
    from palaestra.generators.code import shared_sandbox as _runner

    for cores, servers in ((1, 4), (2, 4), (8, 16), (48, 64)):
        monkeypatch.setattr(_runner, "available_cores", lambda c=cores: c)
        assert _runner.worker_count() == servers
    monkeypatch.setattr(batch, "_SANDBOX_THREADS", None)
    threads = batch._sandbox_threads()
    try:
        assert threads._max_workers == _runner.worker_count()
    finally:
        threads.shutdown()


SLOW_IMPORT_FAMILY = """
import time

from dataclasses import dataclass

from palaestra.core import Knobs, Task, Verdict, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family

time.sleep(1.5)  # a module that takes long to import (sympy, z3 under load)


@dataclass(frozen=True)
class SlowKnobs(Knobs):
    size: int = knob(10, low=1, high=100, help="unused")


@family("batch_slow_import", domain="arithmetic", knobs=SlowKnobs,
        levels={k: SlowKnobs() for k in range(1, 11)}, description="slow to import")
class SlowImport(Family):
    def generate(self, knobs, rng):
        return TaskDraft(prompt="say 7", answer="7")

    def verify(self, task: Task, response: str) -> Verdict:
        return Verdict.right() if response == "7" else Verdict.wrong("not 7")

    def solve_exact(self, task: Task) -> SolverRun:
        return SolverRun("7", 1.0)
"""


def test_importing_a_family_module_is_not_charged_to_timeout_s(tmp_path):
    # A worker imports a family's module when it first meets the family; that start-up work
    # must not count against the first verification's timeout_s (it was a timeout verdict).
    path = tmp_path / "batch_slow_import.py"
    path.write_text(SLOW_IMPORT_FAMILY)
    spec = importlib.util.spec_from_file_location("batch_slow_import", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["batch_slow_import"] = module
    try:
        spec.loader.exec_module(module)
        task = palaestra.make_task("batch_slow_import", seed=0)
        verdicts = verify_many([task, task], ["7", "8"], workers=7, timeout_s=0.5)
        assert [v.status for v in verdicts] == ["correct", "wrong"]
        assert batch.worker_start_seconds()  # the start-up is reported
    finally:
        batch.shutdown()
        registry._FAMILIES.pop("batch_slow_import", None)
        gymnasium.registry.pop(registry.env_id_for("batch_slow_import"), None)
        sys.modules.pop("batch_slow_import", None)


def test_cheap_measured_families_are_graded_in_the_calling_thread():
    # shipping a check that costs microseconds to a worker costs more than the check: a batch of
    # them starts no worker, and its verdicts are the serial ones
    tasks = [palaestra.make_task("expression", seed=s, level=3) for s in range(20)]
    responses = [
        f"<answer>{t.answer}</answer>" if s % 2 else "<answer>-1</answer>" for s, t in enumerate(tasks)
    ]
    assert batch.grades_inline(registry.get("expression"), 60.0)
    assert verify_many(tasks, responses, workers=6) == [
        palaestra.verify(t, r) for t, r in zip(tasks, responses, strict=True)
    ]
    assert batch.worker_pids(6) == []
    # a bound too tight for the family's slowest measured check sends it to a worker again
    assert not batch.grades_inline(registry.get("expression"), 1e-3)
    # unmeasured families (a plugin, a new family, a changed version) always use workers
    changed = dataclasses.replace(registry.get("expression"), version=registry.get("expression").version + 1)
    assert not batch.grades_inline(changed, 60.0)
