"""Registry-wide contract tests: every registered family is covered the moment it registers.

For each family and levels 1, 5, 10 (hypothesis draws the seeds): the reference answer and the
exact solver's answer verify, mutated answers fail, tasks round-trip through JSON and rebuild
byte for byte, generation never touches the global RNG, the same seed gives the same task id in
a fresh process, neighbouring seeds give different tasks, every Gymnasium id passes
``check_env``, and solver effort grows with the level.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Task, make_rng
from palaestra.registry import get

FAMILIES = palaestra.families()
CONTRACT_LEVELS = (1, 5, 10)
SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
# Generation at level 10 can take a while for puzzles whose uniqueness proof is costly.
FAST = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _family_levels():
    return [pytest.param(f, lv, id=f"{f}-L{lv}") for f in FAMILIES for lv in CONTRACT_LEVELS]


@pytest.mark.parametrize("family,level", _family_levels())
@FAST
@given(seed=SEEDS)
def test_reference_and_exact_solver_verify(family: str, level: int, seed: int) -> None:
    task = palaestra.make_task(family, seed=seed, level=level)
    impl = get(family).impl
    verdict = palaestra.verify(task, impl.reference_response(task))
    assert verdict.correct, f"reference answer rejected: {verdict}"
    assert verdict.reward == 1.0 and verdict.error is None
    run = impl.solve_exact(task)
    assert run.response is not None, "the exact solver gave up"
    assert palaestra.verify(task, run.response).correct, "the exact solver's answer was rejected"


@pytest.mark.parametrize("family,level", _family_levels())
@FAST
@given(seed=SEEDS)
def test_mutated_answers_fail(family: str, level: int, seed: int) -> None:
    task = palaestra.make_task(family, seed=seed, level=level)
    mutations = get(family).impl.mutated_responses(task, make_rng("mutations", 1, seed))
    assert len(set(mutations)) >= 3, "a family must provide at least 3 distinct wrong answers"
    for response in mutations:
        verdict = palaestra.verify(task, response)
        assert not verdict.correct, f"mutated answer accepted: {response!r}"
        assert verdict.reward < 1.0


@pytest.mark.parametrize("family,level", _family_levels())
@FAST
@given(seed=SEEDS)
def test_json_round_trip_and_rebuild(family: str, level: int, seed: int) -> None:
    task = palaestra.make_task(family, seed=seed, level=level)
    text = task.to_json()
    again = Task.from_json(text)
    assert again == task and again.to_json() == text
    assert json.loads(text)["id"] == task.id
    rebuilt = palaestra.rebuild(again)
    assert rebuilt.to_json() == text


@pytest.mark.parametrize("family", FAMILIES)
def test_generation_leaves_global_rng_alone(family: str) -> None:
    random.seed(1234)
    np.random.seed(1234)
    py_state, np_state = random.getstate(), np.random.get_state()
    tasks = [palaestra.make_task(family, seed=s, level=lv) for s in (0, 1) for lv in CONTRACT_LEVELS]
    impl = get(family).impl
    for task in tasks:
        palaestra.verify(task, impl.reference_response(task))
    assert random.getstate() == py_state, "generation or verification used the global `random`"
    after = np.random.get_state()
    assert after[0] == np_state[0] and np.array_equal(after[1], np_state[1]) and after[2:] == np_state[2:]
    # and the global state does not leak into tasks either
    random.seed(99)
    np.random.seed(99)
    assert [palaestra.make_task(family, seed=s, level=lv).id for s in (0, 1) for lv in CONTRACT_LEVELS] == [
        t.id for t in tasks
    ]


_CHILD = """
import json, sys
import palaestra
todo = json.loads(sys.stdin.read())
print(json.dumps([palaestra.make_task(f, seed=s, level=lv).id for f, lv, s in todo]))
"""


def _python_path() -> dict[str, str]:
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}


def test_same_seed_same_id_in_a_fresh_process() -> None:
    # every level, since a per-process hash order can hide in one tier's code path only (a set
    # of strings shuffled at sql_synthesis level 10 was found this way); the two children run
    # side by side with different string-hash seeds
    todo = [(f, lv, s) for f in FAMILIES for lv in range(1, 11) for s in (0, 2**40 + 3)]
    here = [palaestra.make_task(f, seed=s, level=lv).id for f, lv, s in todo]
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # the same palaestra as this process (PYTHONPATH where a checkout is put first)
            env={"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin", **_python_path()},
        )
        for hash_seed in ("0", "12345")
    ]
    for child in children:
        stdout, stderr = child.communicate(json.dumps(todo), timeout=600)
        assert child.returncode == 0, stderr
        mismatched = [task for task, a, b in zip(todo, json.loads(stdout), here, strict=True) if a != b]
        assert not mismatched, f"ids differ in a fresh process for {mismatched[:10]}"


# s vs s+1 over a short run; the 2,000-task duplicate measure (tests/test_duplicates.py) covers
# the whole distribution at every level >= 3
NEIGHBOUR_SEEDS = 50
NEIGHBOUR_LEVEL = 5


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_neighbouring_seeds_share_nothing(family: str) -> None:
    ids = [palaestra.make_task(family, seed=s, level=NEIGHBOUR_LEVEL).id for s in range(NEIGHBOUR_SEEDS)]
    same = [s for s in range(NEIGHBOUR_SEEDS - 1) if ids[s] == ids[s + 1]]
    assert not same, f"seeds s and s+1 gave the same task for s in {same[:5]}"
    prompts = [palaestra.make_task(family, seed=s, level=NEIGHBOUR_LEVEL).prompt for s in (0, 1, 2)]
    assert len(set(prompts)) == 3


@pytest.mark.parametrize("family", FAMILIES)
def test_env_checker(family: str) -> None:
    env = gymnasium.make(get(family).env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error", category=UserWarning)  # any checker warning is a failure
        check_env(env.unwrapped, skip_render_check=True)
    prompt, info = env.reset(seed=3)
    assert isinstance(prompt, str) and info["family"] == family
    observation, reward, terminated, truncated, info = env.step("<answer>definitely not it</answer>")
    if get(family).impl.interactive:  # a live game explains an invalid move and goes on
        assert info["invalid"] and not terminated and not truncated and reward == 0.0
    else:
        assert terminated and not truncated and reward == 0.0 and not info["correct"]
    env.close()


EFFORT_SEEDS = 24


@pytest.mark.parametrize("family", FAMILIES)
def test_solver_effort_grows_with_level(family: str) -> None:
    """Mean exact-solver effort at level 10 > level 5 > level 1 (the stored 200-seed calibration
    in measured/calibration checks every level; this re-measures a sample live)."""
    impl = get(family).impl
    means = []
    for level in CONTRACT_LEVELS:
        efforts = [impl.effort(palaestra.make_task(family, seed=s, level=level)) for s in range(EFFORT_SEEDS)]
        means.append(float(np.mean(efforts)))
    assert means[0] < means[1] < means[2], f"mean effort at levels {CONTRACT_LEVELS}: {means}"


BAD_RESPONSES = [
    "",
    "   \n\t ",
    "x" * (1 << 20),
    "<answer>" + "9" * (1 << 20) + "</answer>",
    bytes(range(256)).decode("latin-1"),
    "\udcff\u202e\u0000\ufeff" * 1000,
    "<answer>\x00\x01\x02</answer>",
    "\\boxed{" * 5000,
]


@pytest.mark.parametrize("family", FAMILIES)
def test_bad_responses_are_format_errors(family: str) -> None:
    task = palaestra.make_task(family, seed=11, level=5)
    for response in BAD_RESPONSES:
        verdict = palaestra.verify(task, response)
        assert isinstance(verdict, palaestra.Verdict)
        assert not verdict.correct and not verdict.format_ok, f"{response[:30]!r} -> {verdict}"
        assert verdict.error is None, f"the verifier crashed on {response[:30]!r}: {verdict.error}"
    assert not palaestra.verify(task, 12345).format_ok  # type: ignore[arg-type]


@pytest.mark.parametrize("family", FAMILIES)
def test_unknown_knob_and_bad_level_are_clear_errors(family: str) -> None:
    spec = get(family)
    with pytest.raises(ValueError, match="valid knobs"):
        palaestra.make_task(family, seed=0, no_such_knob=1)
    for level in (0, 11, 2.5, "3"):
        with pytest.raises(ValueError, match="level"):
            palaestra.make_task(family, seed=0, level=level)
    with pytest.raises(ValueError, match="seed"):
        palaestra.make_task(family, seed=-1)
    assert spec.knob_specs(), "a family must declare typed knobs"
    for level, knobs in spec.levels.items():
        assert palaestra.make_task(family, seed=0, level=level).knobs == knobs.to_dict()
