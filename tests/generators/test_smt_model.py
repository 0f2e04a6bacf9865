"""smt_model: any model counts (z3 models cross-checked), exact substitution, bounded parsing."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.generators.formal.smt_model import holds, z3_solve
from palaestra.registry import get, make_task, verify

FAMILY = "smt_model"
IMPL = get(FAMILY).impl


def z3_models(task: Task, limit: int) -> list[list[int]]:
    """Up to ``limit`` z3 models, each blocked by a disequality on x1 to get distinct ones."""
    meta = dict(task.metadata)
    models: list[list[int]] = []
    extra = list(meta["constraints"])
    for _ in range(limit):
        values, _ = z3_solve({**meta, "constraints": extra})
        if values is None:
            break
        models.append(values)
        # block this model with a disequality on one variable pair it fixes
        if meta["theory"] == "lia":
            extra = extra + [{"kind": "lin", "terms": [[0, 1]], "rel": "≠", "rhs": values[0]}]
        else:
            extra = extra + [{"kind": "bv", "op": "|", "a": 0, "b": 0, "rel": "≠", "rhs": values[0]}]
    return models


def fmt(values: list[int]) -> str:
    return "<answer>" + ", ".join(f"x{i} = {v}" for i, v in enumerate(values, 1)) + "</answer>"


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_reference_exact_and_mutations(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not verify(task, response).correct, response


def test_two_distinct_models_both_pass_and_z3_agrees_with_substitution() -> None:
    for theory, seed in (("lia", 1), ("bv", 2)):
        task = make_task(FAMILY, seed=seed, level=4, theory=theory)
        models = z3_models(task, 2)
        assert len(models) == 2 and models[0] != models[1]
        for values in models:
            assert verify(task, fmt(values)).correct


def test_substitution_matches_z3_on_random_points() -> None:
    """The verifier's exact evaluation agrees with z3's semantics constraint by constraint."""
    rng = np.random.default_rng(0)
    for theory in ("lia", "bv"):
        task = make_task(FAMILY, seed=5, level=6, theory=theory)
        meta = task.metadata
        w = meta["width"]
        for _ in range(6):
            if theory == "lia":
                values = [int(v) for v in rng.integers(-meta["bound"], meta["bound"] + 1, meta["variables"])]
            else:
                values = [int(v) for v in rng.integers(0, 1 << w, meta["variables"])]
            for c in meta["constraints"]:
                pinned = [
                    {"kind": "lin", "terms": [[i, 1]], "rel": "=", "rhs": v}
                    if theory == "lia"
                    else {"kind": "bv", "op": "|", "a": i, "b": i, "rel": "=", "rhs": v}
                    for i, v in enumerate(values)
                ]
                got, _ = z3_solve({**meta, "constraints": [c, *pinned]})
                assert (got is not None) == holds(c, values, w)


def test_answer_formats_and_wrong_answers() -> None:
    task = make_task(FAMILY, seed=3, level=5, theory="bv")
    values = z3_models(task, 1)[0]
    variants = [
        fmt(values),
        "<answer>" + "; ".join(f"x{i}: {hex(v)}" for i, v in enumerate(values, 1)) + "</answer>",
        "<answer>{" + ", ".join(f'"x{i}": {v}' for i, v in enumerate(values, 1)) + "}</answer>",
        "Answer: " + " ".join(f"X{i}={bin(v)}" for i, v in reversed(list(enumerate(values, 1)))),
    ]
    for text in variants:
        assert verify(task, text).correct, text
    meta = task.metadata
    top = 1 << meta["width"]
    candidates = [
        [(values[0] + 1) % top] + values[1:],
        [v ^ 1 for v in values],
        [0] * len(values),
        [(v + 3) % top for v in values],
        [top - 1 - v for v in values],
    ]
    wrong = [c for c in candidates if not all(holds(con, c, meta["width"]) for con in meta["constraints"])]
    assert len(wrong) >= 3
    for bad in wrong:
        verdict = verify(task, fmt(bad))
        assert verdict.format_ok and not verdict.correct and "is false" in verdict.reason
    assert not verify(task, fmt(values[:-1])).format_ok  # missing variable
    assert not verify(task, fmt(values) + fmt([0] * len(values))).format_ok  # two answers
    assert not verify(task, "<answer>" + "x1 = 3 + 4</answer>").format_ok
    assert not verify(task, fmt([-1] + values[1:])).correct  # negative bitvector


def test_pathological_submission_is_bounded() -> None:
    task = make_task(FAMILY, seed=9, level=10)
    n = task.metadata["variables"]
    huge = "<answer>" + ", ".join(f"x{i} = {'9' * 100_000}" for i in range(1, n + 1)) + "</answer>"
    many = "<answer>" + ", ".join(f"x1 = {i}" for i in range(100_000)) + "</answer>"
    for response in (huge, many, "<answer>" + "x1=1 " * 4000 + "</answer>"):
        verdict = verify(task, response)
        assert not verdict.correct and not verdict.format_ok and verdict.error is None


def test_a_flood_of_letters_is_refused_in_linear_time() -> None:
    import time

    task = make_task(FAMILY, seed=1, level=3)
    started = time.process_time()
    verdict = verify(task, "<answer>" + "a" * 20_000 + "</answer>")  # 3.9 s before (quadratic regex)
    assert verdict.status == "unparseable"
    assert time.process_time() - started < 0.5
