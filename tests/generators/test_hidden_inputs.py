"""_hidden_inputs: hidden test inputs for list pipelines that expose wrong programs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.code._hidden_inputs import killing_inputs, structural_mutants
from palaestra.generators.code._pipeline import apply, draw_rich_pipeline


def _seen_at(pipeline, step: int, inputs) -> set[int]:
    """Every value the step ``step`` receives over ``inputs``."""
    return {v for xs in inputs for v in apply(pipeline[:step], xs)[0]}


def _separates(pipeline, mutant, inputs) -> bool:
    def run(p, xs):
        try:
            return apply(p, xs)[0]
        except (ArithmeticError, IndexError, ValueError):
            return "error"

    return any(run(pipeline, xs) != run(mutant, xs) for xs in inputs)


def test_threshold_after_a_map_is_reached() -> None:
    # x -> 2x, then keep x > 10: the filter must see 10 (a doubled 5), so `>= 10` (`> 9`) fails;
    # `> 11` is equivalent here (11 is never a doubled integer)
    pipeline = [{"kind": "map", "op": "lin", "a": 2, "b": 0}, {"kind": "filter", "op": "gt", "a": 10}]
    inputs = killing_inputs(pipeline, [[1, 2, 3]], np.random.default_rng(0), 30)
    assert 10 in _seen_at(pipeline, 1, inputs)
    assert _separates(pipeline, [pipeline[0], {**pipeline[1], "a": 9}], inputs)


def test_threshold_after_running_sums_is_reached() -> None:
    pipeline = [
        {"kind": "prefix"},
        {"kind": "filter", "op": "lt", "a": 7},
        {"kind": "map", "op": "max", "a": -3},
    ]
    inputs = killing_inputs(pipeline, [], np.random.default_rng(1), 20)
    assert {6, 7, 8} <= _seen_at(pipeline, 1, inputs)
    assert {-4, -3, -2} <= _seen_at(pipeline, 2, inputs)


def test_lengths_and_ties_are_planted() -> None:
    drop = [{"kind": "filter", "op": "mod", "a": 2, "b": 0}, {"kind": "drop", "a": 3}]
    inputs = killing_inputs(drop, [], np.random.default_rng(2), 20)
    assert {2, 3, 4, 5} <= {len(apply(drop[:1], xs)[0]) for xs in inputs}
    stable = [{"kind": "sort_abs"}]
    inputs = killing_inputs(stable, [], np.random.default_rng(3), 20)
    assert any(v in xs and -v in xs[xs.index(v) + 1 :] for xs in inputs for v in (1, 2, 3, 5))


@pytest.mark.slow
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 6))
@settings(max_examples=10, deadline=None)
def test_every_structural_mutant_a_random_search_separates_is_separated(seed: int, steps: int) -> None:
    rng = np.random.default_rng(seed)
    pipeline = draw_rich_pipeline(steps, rng, 12)
    base = [[], [int(rng.integers(-9, 10))], [3, 3, 3]]
    suite = base + killing_inputs(pipeline, base, rng, 41)
    # an independent oracle: 2,000 random lists (a different distribution from the suite's)
    probe_rng = np.random.default_rng(seed + 1)
    probes = [
        [int(v) for v in probe_rng.integers(-60, 61, size=int(probe_rng.integers(0, 18)))]
        for _ in range(2000)
    ]
    for mutant in structural_mutants(pipeline):
        if _separates(pipeline, mutant, probes):
            assert _separates(pipeline, mutant, suite), (pipeline, mutant)
