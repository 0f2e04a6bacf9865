"""make_task at every family's maximum valid knob values finishes within a bound or refuses with a
clear ValueError (GenerationError included) naming the knob; no RuntimeError reaches a user
(issue 27). Measured times: ``python benchmarks/max_knobs.py`` -> benchmarks/results/max_knobs.json.

The knobs are the hardest level's with every numeric knob at the top of its range (and, for the
families whose tops were tightened, each knob at its top alone). Each call runs in a forked
child killed at ``BOUND_S``: a generous bound (the documented one is 60 s on a loaded 2-core
machine), enforced by the process limit, never by timing a fast path.
"""

from __future__ import annotations

import multiprocessing
from typing import Any

import pytest

import palaestra
from palaestra.registry import get

BOUND_S = 180.0
TIGHTENED = ["dfa", "kenken", "logistics", "maxsat", "natural_deduction", "pratt_certificate", "sokoban"]


def _tops(family: str) -> list[dict[str, Any]]:
    """The hardest level's knobs with all numeric knobs at their top, then (for ``TIGHTENED``
    families) each numeric knob alone at its top."""
    spec = get(family)
    base = spec.levels[max(spec.levels)].to_dict()
    numeric = [
        k
        for k in spec.knob_specs()
        if k.choices is None and k.high is not None and k.type in ("int", "float")
    ]
    top = {k.name: (int(k.high) if k.type == "int" else float(k.high)) for k in numeric}
    out = [base | top]
    if family in TIGHTENED:
        out += [base | {name: value} for name, value in top.items()]
    return out


def _child(family: str, knobs: dict[str, Any], conn: Any) -> None:
    try:
        palaestra.make_task(family, seed=0, **knobs)
        conn.send(("ok", ""))
    except ValueError as exc:
        conn.send((type(exc).__name__, str(exc)))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent as the defect it is
        conn.send((type(exc).__name__, str(exc)[:300]))


def _make_task_within(family: str, knobs: dict[str, Any], bound_s: float) -> tuple[str, str]:
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(family, knobs, child))
    proc.start()
    child.close()
    try:
        return parent.recv() if parent.poll(bound_s) else ("timeout", f"still running after {bound_s} s")
    finally:
        proc.kill()
        proc.join()


@pytest.mark.slow
@pytest.mark.parametrize("family", palaestra.families())
def test_make_task_at_the_top_of_every_knob_finishes_or_refuses_clearly(family: str) -> None:
    for knobs in _tops(family):
        outcome, message = _make_task_within(family, knobs, BOUND_S)
        assert outcome in ("ok", "ValueError", "GenerationError"), (family, knobs, outcome, message)
        if outcome != "ok":  # a refusal names the knob(s) responsible
            names = [k.name for k in get(family).knob_specs()]
            assert any(name in message for name in names), (family, knobs, message)


# knob values that were valid and ran past 60 s (benchmarks/results/max_knobs_before.json): now
# refused at once by a ValueError naming the knob (a tightened range or a cross-knob check)
OLD_TOPS = [
    ("dfa", {"classes": 12, "states": 30, "min_rounds": 10}, "min_rounds"),
    ("sokoban", {"min_pushes": 100}, "min_pushes"),
    ("pratt_certificate", {"digits": 40, "factor_digits": 20}, "factor_digits"),
    ("natural_deduction", {"conclusion_size": 5}, "conclusion_size"),
    ("logistics", {"min_length": 60, "max_length": 60}, "min_length"),
    ("maxsat", {"soft": 200}, "soft"),
    ("kenken", {"size": 9, "min_cage": 6, "max_cage": 6}, "min_cage"),
    ("kenken", {"min_nodes": 1000}, "min_nodes"),
    ("sat_model", {"ratio": 12.0}, "ratio"),
    ("unsat_core", {"variables": 30}, "clauses"),
    ("unsat_core", {"clause_width": 4}, "clause_width"),
]


@pytest.mark.parametrize(("family", "knobs", "name"), OLD_TOPS, ids=[f"{f}-{n}" for f, _k, n in OLD_TOPS])
def test_old_tops_that_ran_past_a_minute_are_refused_naming_the_knob(
    family: str, knobs: dict[str, Any], name: str
) -> None:
    with pytest.raises(ValueError, match=name):
        palaestra.make_task(family, level=10, seed=0, **knobs)
