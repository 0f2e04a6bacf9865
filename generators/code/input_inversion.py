"""Find an input for which a generated list-processing program returns a given output.

Any input whose output matches is correct, so the verifier never compares with the reference
input: it parses the submitted list with our restricted literal parser, checks the stated bounds
(at most ``MAX_LENGTH`` integers of absolute value at most ``MAX_VALUE``), then runs the program on
it in the sandbox (the shared process-wide pool) and compares the printed result with the target.
Unparseable or out-of-bounds answers are rejected before any sandbox run.

Generation: about 4000 tasks/s at level 5 (CPU time, one core; no sandbox: the reference output comes
from our own pipeline interpreter).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.sandbox import Job
from palaestra.verifiers.extract import extract_answer

from ._pipeline import apply, draw_input, draw_pipeline, render
from .literals import LiteralError, parse_literal
from .shared_sandbox import failed_run, run_jobs

MAX_LENGTH = 30
MAX_VALUE = 10_000
WEAK_TRIES = 60


@dataclass(frozen=True)
class InputInversionKnobs(Knobs):
    steps: int = knob(1, low=1, high=12, help="number of pipeline steps (map, filter, sort, sums, slices)")
    length: int = knob(3, low=1, high=20, help="length of the hidden reference input")
    value_range: int = knob(
        5, low=1, high=1000, help="reference input values lie in [-value_range, value_range]"
    )
    min_output: int = knob(1, low=0, high=10, help="reject tasks whose output has fewer elements")


LEVELS = {
    1: InputInversionKnobs(steps=1, length=3, value_range=5),
    2: InputInversionKnobs(steps=2, length=4, value_range=9),
    3: InputInversionKnobs(steps=2, length=5, value_range=12, min_output=2),
    4: InputInversionKnobs(steps=3, length=6, value_range=15, min_output=2),
    5: InputInversionKnobs(steps=3, length=7, value_range=20, min_output=2),
    6: InputInversionKnobs(steps=4, length=8, value_range=25, min_output=2),
    7: InputInversionKnobs(steps=5, length=9, value_range=30, min_output=3),
    8: InputInversionKnobs(steps=5, length=10, value_range=40, min_output=3),
    9: InputInversionKnobs(steps=6, length=11, value_range=50, min_output=3),
    10: InputInversionKnobs(steps=7, length=12, value_range=60, min_output=3),
}

PROMPT = """Here is a Python 3 function:

```python
{source}```

Find a list of integers `xs` such that `f(xs)` returns

{target!r}

Any input that produces exactly this output is accepted. Use at most {max_len} integers, each \
between -{max_value} and {max_value}. Answer with the list as a Python literal, for example \
<answer>[4, -1, 7]</answer>."""


def parse_input(text: str) -> list[int] | str:
    """The submitted list, or a reason it is not an acceptable input."""
    try:
        value = parse_literal(text.strip().strip("`").strip())
    except LiteralError as exc:
        return f"not a list literal: {exc}"
    if isinstance(value, tuple):
        value = list(value)
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        return "the input must be a list of integers"
    if len(value) > MAX_LENGTH or any(abs(v) > MAX_VALUE for v in value):
        return f"at most {MAX_LENGTH} integers of absolute value at most {MAX_VALUE}"
    return value


def run_program(source: str, xs: list[int]) -> Job:
    """A sandbox job printing ``repr(f(xs))`` (``xs`` is our canonical re-rendering)."""
    return Job(
        source + f"\nprint(repr(f({xs!r})))\n", timeout_s=2.0, memory_mb=256, output_limit_bytes=1 << 16
    )


@family(
    "input_inversion",
    domain="code",
    knobs=InputInversionKnobs,
    levels=LEVELS,
    description="Find any input for which a generated list program returns a given output (run in the sandbox).",
    verifier_kind="sandbox execution (any valid input)",
)
class InputInversion(Family):
    sandbox_preload = ("functools", "itertools", "math")  # imported once by the shared sandbox

    def generate(self, knobs: InputInversionKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(5000):
            pipeline = draw_pipeline(knobs.steps, rng)
            xs = draw_input(rng, knobs.length, knobs.value_range)
            out, work = apply(pipeline, xs)
            # degenerate: too short an output (e.g. [] is hit by almost anything) or the identity
            if len(out) >= knobs.min_output and out != xs and all(abs(v) <= 10**6 for v in out):
                break
        else:
            raise RuntimeError(f"could not draw a task for {knobs}")
        source = render(pipeline)
        return TaskDraft(
            prompt=PROMPT.format(source=source, target=out, max_len=MAX_LENGTH, max_value=MAX_VALUE),
            answer=repr(xs),
            metadata={
                "source": source,
                "pipeline": pipeline,
                "target": out,
                "work": work,
                "canonical_hash": content_hash([pipeline, out]),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, labels=("input",), allow_bare=True, max_chars=2000)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        xs = parse_input(extraction.text)
        if isinstance(xs, str):
            return Verdict.bad_format(xs)
        results = run_jobs([run_program(task.metadata["source"], xs)])
        if isinstance(results, Verdict):
            return results
        result = results[0]
        if not result.ok:
            return failed_run(result, "running f on the input")
        expected = repr(task.metadata["target"])
        got = result.stdout.strip()
        if got == expected:
            return Verdict.right(parsed=repr(xs))
        return Verdict.wrong(f"f({xs!r}) returns {got[:80]}, not {expected[:80]}", parsed=repr(xs))

    def solve_exact(self, task: Task) -> SolverRun:
        # the planted input; effort = element operations of the pipeline on it
        xs = parse_literal(task.answer)
        _, work = apply(task.metadata["pipeline"], xs)
        return SolverRun(f"<answer>{task.answer}</answer>", float(work * len(task.metadata["pipeline"])))

    def solve_weak(self, task: Task) -> SolverRun:
        # guess the target itself (or reversed), then a few random inputs of the target's length
        pipeline, target = task.metadata["pipeline"], task.metadata["target"]
        rng = np.random.default_rng(len(target))
        guesses = [list(target), list(reversed(target))]
        guesses += [draw_input(rng, len(target), 10) for _ in range(WEAK_TRIES)]
        for tries, guess in enumerate(guesses, start=1):
            if apply(pipeline, guess)[0] == target:
                return SolverRun(f"<answer>{guess!r}</answer>", float(tries))
        return SolverRun(None, float(len(guesses)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        pipeline, target = task.metadata["pipeline"], task.metadata["target"]
        xs = parse_literal(task.answer)
        candidates = [xs[:-1], xs + [xs[-1] + 7], [v + 1 for v in xs], [v * 3 - 1 for v in xs], [], [0] * 3]
        candidates += [draw_input(rng, len(xs), 50) for _ in range(20)]
        wrong = [c for c in candidates if apply(pipeline, c)[0] != target]
        out = [f"<answer>{c!r}</answer>" for c in wrong]
        return list(dict.fromkeys(out))[:4] + [f"<answer>{task.answer}</answer><answer>{xs + [1]!r}</answer>"]
