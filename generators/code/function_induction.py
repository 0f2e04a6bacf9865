"""Write the hidden list function shown by input/output examples; graded on hidden inputs.

The hidden function is a generated pipeline from ``_pipeline``'s rich step space (affine and
modular maps, clamps, thresholds and residue filters, sorts and rotations, running sums/extrema,
adjacent-pair operations, slices and strides; constants spread over the value range). Every
step field changes the function, so the canonical hash (the pipeline) identifies the hidden
function; the space is wide enough that two-step levels rarely repeat one. The prompt shows
some examples; the verifier runs the submitted ``f`` in the shared sandbox on held-back inputs
(edge cases: empty, one element, duplicates, negatives, extremes, longer lists; the shown
examples; and inputs built to expose wrong programs: values on and next to every threshold after
the earlier steps, see ``_hidden_inputs``) and requires every output to equal the hidden
function's. The program is only parsed (``ast.parse``) in-process, to
reject non-programs before any sandbox run.

Generation: about 175 tasks/s at level 5, 45 at level 10 (CPU time, one core, loaded machine; no
sandbox), most of it spent building the hidden inputs (goal searches and the mutation top-up).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.sandbox import Job

from ._code_answer import extract_code
from ._hidden_inputs import killing_inputs, unique
from ._pipeline import Step, apply, draw_input, draw_rich_pipeline, render, rich_steps
from .shared_sandbox import failed_run, run_jobs

MARKER = "\n@@palaestra-results@@\n"
DRIVER = f"""
def __palaestra_run():
    import json, sys
    inputs = json.loads(sys.stdin.read())
    out = []
    for xs in inputs:
        try:
            value = f(list(xs))
            json.dumps(value)
            out.append({{"ok": value}})
        except BaseException as exc:
            out.append({{"error": type(exc).__name__}})
    sys.stdout.write({MARKER!r} + json.dumps(out))
__palaestra_run()
"""


@dataclass(frozen=True)
class FunctionInductionKnobs(Knobs):
    steps: int = knob(1, low=1, high=10, help="number of pipeline steps in the hidden function")
    shown: int = knob(6, low=2, high=20, help="number of examples shown in the prompt")
    hidden: int = knob(
        12,
        low=4,
        high=50,
        help="number of random held-back test inputs (edge cases, the shown examples and inputs built "
        "to expose wrong programs come on top)",
    )
    value_range: int = knob(
        9,
        low=2,
        high=100,
        help="example values and the function's constants lie in [-value_range, value_range]",
    )


LEVELS = {
    1: FunctionInductionKnobs(steps=1, shown=6, value_range=9),
    2: FunctionInductionKnobs(steps=1, shown=5, value_range=12),
    3: FunctionInductionKnobs(steps=2, shown=6, value_range=15),
    4: FunctionInductionKnobs(steps=2, shown=5, value_range=20, hidden=14),
    5: FunctionInductionKnobs(steps=3, shown=6, value_range=20, hidden=16),
    6: FunctionInductionKnobs(steps=3, shown=5, value_range=25, hidden=16),
    7: FunctionInductionKnobs(steps=4, shown=6, value_range=30, hidden=18),
    8: FunctionInductionKnobs(steps=4, shown=5, value_range=40, hidden=20),
    9: FunctionInductionKnobs(steps=5, shown=6, value_range=50, hidden=20),
    10: FunctionInductionKnobs(steps=6, shown=6, value_range=60, hidden=24),
}

PROMPT = """A hidden Python function `f(xs)` takes a list of integers and returns a list of integers.
Examples:

{examples}

Write `f`. It will be tested on other inputs (including edge cases such as an empty list), and \
every output must match the hidden function exactly. Use only the standard library; any correct \
implementation is accepted. Put the code in <answer>...</answer> tags (one program: a \
different version of `f` in another code block is a format error), for example:

<answer>
def f(xs):
    return [x for x in xs]
</answer>"""


def _inputs(
    knobs: FunctionInductionKnobs, rng: np.random.Generator, count: int, edge: bool
) -> list[list[int]]:
    high = knobs.value_range
    out: list[list[int]] = [[], [int(rng.integers(-high, high + 1))]] if edge else []
    if edge:
        v = int(rng.integers(-high, high + 1))
        out.append([v, v, v])
    while len(out) < count:
        length = int(rng.integers(2, 9 if not edge else 13))
        out.append(draw_input(rng, length, high))
    return out


def hidden_inputs(
    knobs: FunctionInductionKnobs, pipeline: list[Step], shown: list[list[int]], rng: np.random.Generator
) -> list[list[int]]:
    """Edge cases, random lists, extremes, the shown examples, then inputs built to kill wrong
    programs (``_hidden_inputs``: values on and next to every threshold after the earlier steps,
    the lengths where slices change, a mutation top-up)."""
    width = 3 * knobs.value_range + 5
    tests = _inputs(knobs, rng, knobs.hidden, edge=True)
    tests += [[0], [-width, width, -1, 0, 1], [int(v) for v in rng.integers(-width, width + 1, size=25)]]
    tests += shown
    tests += killing_inputs(pipeline, tests, rng, width)
    return unique(tests)


def _informative(pipeline: list[Step], inputs: list[list[int]]) -> bool:
    """Reject functions that look trivial on the shown examples (identity or constant output)."""
    outputs = [apply(pipeline, xs)[0] for xs in inputs]
    if all(out == xs for out, xs in zip(outputs, inputs, strict=True)):
        return False
    return len({tuple(o) for o in outputs}) > len(outputs) // 2 and sum(map(len, outputs)) >= len(outputs)


def parse_results(stdout: str, expected: list[list[int]]) -> str | None:
    """None when the sandbox printed results equal to ``expected``; otherwise why not."""
    _, sep, payload = stdout.rpartition(MARKER)
    if not sep:
        return "the program printed no results"
    try:
        results: Any = json.loads(payload)
    except ValueError:
        return "the results could not be read"
    if not isinstance(results, list) or len(results) != len(expected):
        return "the results could not be read"
    for i, (got, want) in enumerate(zip(results, expected, strict=True)):
        if not isinstance(got, dict) or "ok" not in got:
            error = got.get("error") if isinstance(got, dict) else None
            return f"hidden test {i + 1} raised {str(error)[:40]}"
        value = got["ok"]
        if not isinstance(value, list) or any(type(v) is not int for v in value) or value != want:
            return f"hidden test {i + 1}: wrong output {json.dumps(value)[:60]}"
    return None


def run_tests(code: str, inputs: list[list[int]], expected: list[list[int]], what: str) -> Verdict:
    """Run ``code``'s ``f`` on ``inputs`` in the sandbox and compare with ``expected``."""
    job = Job(
        code + "\n" + DRIVER,
        stdin=json.dumps(inputs),
        timeout_s=3.0,
        memory_mb=256,
        output_limit_bytes=1 << 18,
    )
    results = run_jobs([job])
    if isinstance(results, Verdict):
        return results
    result = results[0]
    if not result.ok:
        return failed_run(result, what)
    reason = parse_results(result.stdout, expected)
    if reason is None:
        return Verdict.right(parsed=f"passed {len(inputs)} hidden tests")
    return Verdict.wrong(reason)


def _candidates(spread: int) -> list[list[Step]]:
    """The weak solver's hypotheses: the identity and every single step of the task's space."""
    return [[]] + [[step] for group in rich_steps(spread).values() for step in group]


@family(
    "function_induction",
    domain="code",
    knobs=FunctionInductionKnobs,
    levels=LEVELS,
    description="Write a hidden list function from input/output examples; graded on held-back inputs in the sandbox.",
    verifier_kind="sandbox execution (hidden tests)",
    version=3,
)
class FunctionInduction(Family):
    sandbox_preload = ("functools", "itertools", "json", "math")  # imported once by the shared sandbox

    def generate(self, knobs: FunctionInductionKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(5000):
            pipeline = draw_rich_pipeline(knobs.steps, rng, knobs.value_range)
            shown = _inputs(knobs, rng, knobs.shown, edge=False)
            if _informative(pipeline, shown):
                break
        else:
            raise RuntimeError(f"could not draw a task for {knobs}")
        hidden = hidden_inputs(knobs, pipeline, shown, rng)
        examples = "\n".join(f"f({xs}) == {apply(pipeline, xs)[0]}" for xs in shown)
        work = sum(apply(pipeline, xs)[1] for xs in shown + hidden)
        source = render(pipeline)
        return TaskDraft(
            prompt=PROMPT.format(examples=examples),
            answer=source,
            metadata={
                "pipeline": pipeline,
                "shown": shown,
                "hidden": hidden,
                "expected": [apply(pipeline, xs)[0] for xs in hidden],
                "work": work,
                "spread": knobs.value_range,
                # the hidden function itself (steps carry no unused fields): same function, same hash
                "canonical_hash": content_hash(pipeline),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        code, reason = extract_code(response, "f")
        if code is None:
            return Verdict.bad_format(reason)
        return run_tests(
            code, task.metadata["hidden"], task.metadata["expected"], "running f on hidden tests"
        )

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}</answer>"

    def solve_exact(self, task: Task) -> SolverRun:
        # the generating pipeline; effort = its element operations times the pipeline length
        effort = task.metadata["work"] * len(task.metadata["pipeline"])
        return SolverRun(self.reference_response(task), float(effort))

    def solve_weak(self, task: Task) -> SolverRun:
        # enumerate the one-step hypotheses; answer the first consistent with the shown examples
        shown = task.metadata["shown"]
        targets = [apply(task.metadata["pipeline"], xs)[0] for xs in shown]
        candidates = _candidates(task.metadata["spread"])
        for tries, candidate in enumerate(candidates, start=1):
            if all(apply(candidate, xs)[0] == want for xs, want in zip(shown, targets, strict=True)):
                return SolverRun(f"<answer>\n{render(candidate)}</answer>", float(tries))
        return SolverRun(None, float(len(candidates)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        pipeline, hidden, expected = (
            task.metadata["pipeline"],
            task.metadata["hidden"],
            task.metadata["expected"],
        )
        variants: list[list[Step]] = [[], [{"kind": "sort"}], pipeline[:-1], pipeline + [{"kind": "reverse"}]]
        for i, step in enumerate(pipeline):
            if "a" in step:
                variants.append(pipeline[:i] + [{**step, "a": step["a"] + 1}] + pipeline[i + 1 :])
        wrong = [v for v in variants if [apply(v, xs)[0] for xs in hidden] != expected]
        out = [f"<answer>\n{render(v)}</answer>" for v in wrong][:4]
        # a lookup table of the shown examples only, and a program that raises
        table = {json.dumps(xs): apply(pipeline, xs)[0] for xs in task.metadata["shown"]}
        out.append(
            f"<answer>\nimport json\ndef f(xs):\n    return {table!r}.get(json.dumps(xs), [])\n</answer>"
        )
        out.append("<answer>\ndef f(xs):\n    raise ValueError(xs)\n</answer>")
        return out
