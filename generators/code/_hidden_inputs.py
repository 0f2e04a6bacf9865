"""Hidden test inputs for list pipelines, built to kill wrong programs (function_induction, bug_repair).

Random lists rarely sit on a pipeline's thresholds: ``x > 6`` and ``x >= 6`` agree on every
list without a 6 at that step, and after a map ``x -> 2x`` the filter's input is no longer the
list's values. So the hidden suite is built from goals, one per thing a wrong program could get
wrong, each met by searching for an input whose *intermediate* list (after the earlier steps,
computed by ``_pipeline.apply``) has the property:

- every constant a step compares against or clamps at, and its neighbours (``c - 1, c, c + 1``
  at a ``> c`` filter, a ``min(x, c)`` clamp, ``abs(x - c)``); residues around a modulus;
  negatives at ``//`` and ``%`` (floor semantics);
- the lengths at which a slice, rotation, stride or adjacent-pair step changes behaviour
  (``drop 3``: lengths 2..5; ``rotate 2``: 0, 1, 2, 3, 4);
- ties that an order must keep (``v`` before ``-v`` at a stable sort by absolute value).

Then a mutation top-up: each structural mutant of the pipeline (a constant off by one, a
comparison or clamp reversed, a sign flipped, a step dropped or two swapped) that the suite
does not yet tell apart from the pipeline gets an input that does, when one is found: where the
mutant only changes element-wise steps, the values they treat differently are computed and
planted (none: the mutant is equivalent on the searched range); otherwise random probes of four
shapes are tried. ``benchmarks/mutation.py`` checks the result against an independent
differential test. Everything here runs our own interpreter on our own pipelines.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._pipeline import Step, apply, element_function

SEARCH_TRIES = 40  # random candidates per goal before it is given up (unreachable, e.g. 7 after x % 5)
LONG_FROM = SEARCH_TRIES // 2  # candidates from this attempt on are long lists
TOP_UP_TRIES = 160  # random probes per structural mutant the suite does not yet separate
_SELECTING = ("take", "drop", "stride", "adjacent_max", "adjacent_min")  # steps that pick items by position
_COMBINING = ("prefix", "pairwise", "adjacent_sum", "adjacent_diff")  # steps that make new values


@dataclass(frozen=True)
class Goal:
    """A property of the list that a step receives: it holds ``value`` ("value"), has length
    ``value`` with not all items equal ("length"), or holds ``value`` before ``-value``
    ("order")."""

    kind: str
    value: int

    def met(self, xs: list[int]) -> bool:
        if self.kind == "value":
            return self.value in xs
        if self.kind == "length":
            return len(xs) == self.value and (self.value < 2 or len(set(xs)) > 1)
        return self.value in xs and -self.value in xs[xs.index(self.value) + 1 :]


def step_goals(step: Step) -> list[Goal]:
    """What the input of ``step`` must contain (values, lengths, orders) to expose its mistakes."""
    kind, op, a, b = step["kind"], step.get("op"), step.get("a"), step.get("b")
    values: list[int] = []
    lengths: list[int] = []
    orders: list[int] = []
    if kind == "filter" and op in ("gt", "lt"):
        values = [a - 1, a, a + 1]
    elif kind == "filter":  # x % a == b or != b
        values = [b, b + a, b - a, b + 1, b - 1, -1]
    elif kind == "map" and op in ("min", "max", "dist"):
        values = [a - 1, a, a + 1, a - 7, a + 7]
    elif kind == "map" and op in ("div", "rem", "sqrem"):
        values = [-1, -a, -a - 1, a - 1, a, a + 1]
    elif kind == "map":  # x * a + b
        values = [0, 1, -1]
    elif kind == "sort_mod":
        values = [0, a, -a, 1, a + 1, -1]
    elif kind == "sort_abs":
        orders = [1, 2, 3, 5]
    elif kind == "rotate":
        lengths = [0, 1, a - 1, a, a + 1, 2 * a + 1]
    elif kind.startswith("adjacent_"):
        lengths = [a - 1, a, a + 1, a + 2, a + 3]
    elif kind == "take":
        lengths = [0, 1, 2 * a - 2, 2 * a - 1, 2 * a, 2 * a + 1, 2 * a + 2]
    elif kind == "drop":
        lengths = [a - 1, a, a + 1, a + 2]
    elif kind == "stride":
        lengths = [b, b + 1, a + b, a + b + 1, 2 * a + b + 1]
    else:  # sorts, reversal, scans: duplicates and negatives at a few lengths
        lengths = [2, 3, 5]
    return (
        [Goal("value", v) for v in values]
        + [Goal("length", n) for n in sorted(set(lengths)) if n >= 0]
        + [Goal("order", v) for v in orders]
    )


def _singleton_images(pipeline: list[Step], width: int) -> list[dict[int, list[int]]]:
    """For each step i: x -> the values that an input value x can have become before step i
    (x that cannot get there are left out). Steps that pick items by position (slices,
    adjacent maxima) keep a value that sits at the right place, so they pass values through."""
    images = [{x: [x] for x in range(-width, width + 1)}]
    for step in pipeline:
        before = images[-1]
        if step["kind"] == "map":
            f = element_function(step)
            images.append({x: [f(v) for v in image] for x, image in before.items()})
        elif step["kind"] == "filter":
            keep = element_function(step)
            images.append({x: kept for x, image in before.items() if (kept := [v for v in image if keep(v)])})
        elif step["kind"] in _SELECTING:
            images.append(dict(before))
        else:
            images.append({x: after for x, image in before.items() if (after := apply([step], image)[0])})
    return images


def _preimages(goal: Goal, images: dict[int, list[int]]) -> list[list[int]]:
    """Per value the goal needs: the inputs x whose singleton [x] carries it to the step (for a
    length goal: the x that survive the earlier steps at all)."""
    if goal.kind == "length":
        return [list(images)]
    wanted = [goal.value] if goal.kind == "value" else [goal.value, -goal.value]
    return [[x for x, image in images.items() if value in image] for value in wanted]


def _input_length(earlier: list[Step], length: int, survivors: list[int]) -> int:
    """The shortest input (of surviving values) whose list before the step is at least
    ``length`` long: a slice, stride or adjacent-pair step earlier shortens it (``xs[3::4]``
    needs an input about four times longer); ``length`` itself when nothing earlier shortens."""
    for n in range(length, 4 * length + 64):
        xs = [survivors[k % len(survivors)] for k in range(n)]
        try:
            if len(apply(earlier, xs)[0]) >= length:
                return n
        except (ArithmeticError, IndexError, ValueError, KeyError):
            break
    return length


def _candidate(
    goal: Goal,
    preimages: list[list[int]],
    attempt: int,
    rng: np.random.Generator,
    width: int,
    length: int | None = None,
) -> list[int]:
    """A random input shaped for ``goal``: preimages of the goal's values planted, in order, in
    a random background (later attempts: a long background and the values planted up to four
    times, for a stride or an adjacent-pair step after them); for a length goal, a list of
    surviving values of about ``length`` items (the input length that gives the goal's length
    at the step)."""
    pick = lambda pool: pool[int(rng.integers(len(pool)))]  # noqa: E731
    long = attempt >= LONG_FROM
    size = int(rng.integers(8, 48)) if long else int(rng.integers(0, 4 + attempt // 4))
    xs = [int(v) for v in rng.integers(-width, width + 1, size=size)]
    if goal.kind == "length":
        base = goal.value if length is None else length
        return [pick(preimages[0]) for _ in range(base + attempt % 7)] if preimages[0] else xs
    for _ in range(1 + attempt % 4 if long else 1):
        lowest = 0
        for pool in preimages:
            if pool:
                lowest = int(rng.integers(lowest, len(xs) + 1))
                xs.insert(lowest, pick(pool))
                lowest += 1
    return xs


def goal_inputs(
    pipeline: list[Step], rng: np.random.Generator, width: int, images: list[dict[int, list[int]]]
) -> list[list[int]]:
    """One input per reachable goal of every step (a background in [-width, width], planted
    values from ``images``, made by ``_singleton_images``)."""
    out: list[list[int]] = []
    for i, step in enumerate(pipeline):
        # before the first step that adds values up, every value a step sees is the image of
        # one input value: a value with no preimage cannot be reached at all
        exact = not any(s["kind"] in _COMBINING for s in pipeline[:i])
        for goal in step_goals(step):
            preimages = _preimages(goal, images[i])
            if exact and not all(preimages):
                continue
            length = None
            if goal.kind == "length" and preimages[0]:
                length = _input_length(pipeline[:i], goal.value, preimages[0])
            for attempt in range(SEARCH_TRIES):
                xs = _candidate(goal, preimages, attempt, rng, width, length)
                if goal.met(apply(pipeline[:i], xs)[0]):
                    out.append(xs)
                    break
    return out


# ------------------------------------------------------------------------------ mutation top-up


def structural_mutants(pipeline: list[Step]) -> Iterator[list[Step]]:
    """Pipelines one structural edit away: constants off by one, comparisons and clamps
    reversed, signs flipped, steps dropped or swapped with their neighbour."""
    swaps = {"gt": "lt", "lt": "gt", "mod": "modne", "modne": "mod", "min": "max", "max": "min"}
    swaps |= {"rem": "div", "div": "rem", "sort": "sort_desc", "sort_desc": "sort"}
    for i, step in enumerate(pipeline):
        for key in ("a", "b"):
            if isinstance(step.get(key), int):
                for delta in (1, -1):
                    yield pipeline[:i] + [{**step, key: step[key] + delta}] + pipeline[i + 1 :]
                yield pipeline[:i] + [{**step, key: -step[key]}] + pipeline[i + 1 :]
        for field in ("op", "kind"):
            if step.get(field) in swaps:
                yield pipeline[:i] + [{**step, field: swaps[step[field]]}] + pipeline[i + 1 :]
        yield pipeline[:i] + pipeline[i + 1 :]
        if i + 1 < len(pipeline):
            yield pipeline[:i] + [pipeline[i + 1], step] + pipeline[i + 2 :]


def _outputs(pipeline: list[Step], inputs: list[list[int]]) -> Iterator[Any]:
    for xs in inputs:
        try:
            yield apply(pipeline, xs)[0]
        except (ArithmeticError, IndexError, ValueError, KeyError):
            yield "error"


def separated(pipeline: list[Step], mutant: list[Step], inputs: list[list[int]], expected: list[Any]) -> bool:
    return any(got != want for got, want in zip(_outputs(mutant, inputs), expected, strict=True))


def _probe(rng: np.random.Generator, attempt: int, width: int, centres: list[int]) -> list[int]:
    """A random input from one of four shapes (by ``attempt``): uniform over the range, a narrow
    band around a constant of the pipeline, small values, or one of those sorted (running
    minima and adjacent steps only see varied values on monotone inputs); up to 15 items, up to
    47 in the second half of the attempts (strides need long inputs)."""
    length = int(rng.integers(1, 16 if attempt < TOP_UP_TRIES // 2 else 48))
    shape = attempt % 4
    if shape == 1:
        centre = centres[int(rng.integers(len(centres)))]
        xs = [centre + int(v) for v in rng.integers(-4, 5, size=length)]
    elif shape == 2:
        xs = [int(v) for v in rng.integers(-3, 4, size=length)]
    else:
        xs = [int(v) for v in rng.integers(-width, width + 1, size=length)]
    if shape == 3:
        xs.sort(reverse=bool(rng.random() < 0.5))
    return xs


def _trace(pipeline: list[Step], xs: list[int]) -> list[Any]:
    """The list before each step and the output (``"error"`` from a failing step on)."""
    lists: list[Any] = [list(xs)]
    for step in pipeline:
        try:
            lists.append(apply([step], lists[-1])[0] if lists[-1] != "error" else "error")
        except (ArithmeticError, IndexError, ValueError, KeyError):
            lists.append("error")
    return lists


def _first_difference(pipeline: list[Step], mutant: list[Step]) -> int:
    pairs = enumerate(zip(pipeline, mutant, strict=False))
    return next((i for i, (a, b) in pairs if a != b), min(len(pipeline), len(mutant)))


def _through(steps: list[Step], v: int) -> Any:
    """One value through element-wise steps: its new value, "dropped" or "error"."""
    for step in steps:
        try:
            result = element_function(step)(v)
        except ArithmeticError:
            return "error"
        if step["kind"] == "filter" and not result:
            return "dropped"
        v = result if step["kind"] == "map" else v
    return v


def _differing_values(
    pipeline: list[Step], mutant: list[Step], start: int, images: list[dict[int, list[int]]]
) -> list[int] | None:
    """For a mutant that only changes, drops or reorders map and filter steps placed where every
    value is the image of one input value: the reachable values (within the searched range) that
    the changed steps treat differently; an empty list means equivalent there. None for other
    mutants (they are left to random probes)."""
    common = 0
    while common < min(len(pipeline), len(mutant)) - start and pipeline[-1 - common] == mutant[-1 - common]:
        common += 1
    old, new = pipeline[start : len(pipeline) - common], mutant[start : len(mutant) - common]
    if not all(s["kind"] in ("map", "filter") for s in old + new) or start >= len(images):
        return None
    if any(s["kind"] in _COMBINING for s in pipeline[:start]):
        return None
    values = {v for image in images[start].values() for v in image}
    return sorted(v for v in values if _through(old, v) != _through(new, v))


def top_up(
    pipeline: list[Step],
    tests: list[list[int]],
    rng: np.random.Generator,
    width: int,
    images: list[dict[int, list[int]]],
) -> list[list[int]]:
    """For each structural mutant that ``tests`` does not separate from ``pipeline``, an input
    that does, when one is found: for a one-step element-wise mutant, values on which the two
    steps differ are planted (none: it is equivalent, skipped); otherwise up to TOP_UP_TRIES
    random probes, shared by the mutants with the pipeline's lists at every step (a mutant runs
    from the first step where it differs)."""
    expected = list(_outputs(pipeline, tests))
    constants = {abs(s[k]) for s in pipeline for k in ("a", "b") if isinstance(s.get(k), int)}
    centres = sorted({sign * c // d for c in constants | {0} for sign in (1, -1) for d in (1, 2, 3)})
    probes: list[tuple[list[int], list[Any]]] = []
    added: list[list[int]] = []

    def keep(xs: list[int], want: Any) -> None:
        nonlocal tests, expected
        tests, expected = tests + [xs], expected + [want]
        added.append(xs)

    for mutant in structural_mutants(pipeline):
        if separated(pipeline, mutant, tests, expected):
            continue
        start = _first_difference(pipeline, mutant)
        differing = _differing_values(pipeline, mutant, start, images)
        if differing is not None:
            if not differing:
                continue  # equivalent on the searched range
            planted = False
            for attempt in range(SEARCH_TRIES):
                value = differing[int(rng.integers(len(differing)))]
                xs = _candidate(
                    Goal("value", value), _preimages(Goal("value", value), images[start]), attempt, rng, width
                )
                want = next(_outputs(pipeline, [xs]))
                if next(_outputs(mutant, [xs])) != want:
                    keep(xs, want)
                    planted = True
                    break
            if planted:
                continue  # else the later steps hid the planted values: random probes next
        for attempt in range(TOP_UP_TRIES):
            if attempt == len(probes):
                xs = _probe(rng, attempt, width, centres)
                probes.append((xs, _trace(pipeline, xs)))
            xs, lists = probes[attempt]
            got = next(_outputs(mutant[start:], [lists[start]])) if lists[start] != "error" else "error"
            if got != lists[-1]:
                keep(xs, lists[-1])
                break
    return added


def killing_inputs(
    pipeline: list[Step], tests: list[list[int]], rng: np.random.Generator, width: int
) -> list[list[int]]:
    """Goal inputs for every step, then the mutation top-up; to be added to ``tests`` (the edge
    cases, shown examples and random lists)."""
    # preimages from twice the background's range: after x // 7 a filter's bound of -9 needs an
    # input below -56 (any integer is a valid input)
    images = _singleton_images(pipeline, 2 * width)
    goals = goal_inputs(pipeline, rng, width, images)
    return goals + top_up(pipeline, tests + goals, rng, width, images)


def unique(inputs: list[list[int]]) -> list[list[int]]:
    """``inputs`` without repeats, in order."""
    seen: set[tuple[int, ...]] = set()
    out = []
    for xs in inputs:
        if tuple(xs) not in seen:
            seen.add(tuple(xs))
            out.append(xs)
    return out
