"""Repair a generated Python function into which bugs were injected; graded by hidden tests.

The correct function is a generated list pipeline (``_pipeline``'s rich step space, so that
few-step functions rarely repeat) whose docstring states, step by step, what it must do; a few examples of the correct behaviour are shown. ``bugs`` single-token
edits (a constant off by one, a swapped operator, or a deleted step) are injected, each of them
observable on its own on the hidden tests. The verifier runs the submitted ``f`` in the shared
sandbox on the hidden suite (edge cases, the shown examples, and inputs built to expose wrong
programs: values on and next to every threshold after the earlier steps, see ``_hidden_inputs``);
any program that passes it is accepted.

Weak solver: one-edit repair, checked against the examples shown in the prompt only; it cannot
fix two bugs, and with fewer shown examples it more often picks an edit that only fits them.

Generation: about 120 tasks/s at level 5, 35 at level 10 (CPU time, one core, loaded machine; bug
observability is checked by running our own buggy variants in-process, never model text; most of
the time goes to building the hidden inputs).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family

from ._code_answer import extract_code
from ._hidden_inputs import killing_inputs, unique
from ._pipeline import Step, apply, draw_input, draw_rich_pipeline, render
from .function_induction import run_tests

_SHOWN = re.compile(r"^f\((\[[-\d, ]*\])\) should return (\[[-\d, ]*\])$", re.MULTILINE)
_TOKEN = re.compile(r"\d+|>=|<=|==|!=|//|[<>+\-%*]")
_SWAP = {">": ">=", ">=": ">", "<": "<=", "<=": "<", "==": "!=", "!=": "==", "+": "-", "-": "+",
         "*": "+", "%": "//", "//": "%"}  # fmt: skip
KINDS = ("constant", "operator", "missing")
SPREAD = 12  # constants of the correct function lie in [-12, 12] (affine offsets [-24, 24])


@dataclass(frozen=True)
class BugRepairKnobs(Knobs):
    steps: int = knob(2, low=1, high=10, help="number of pipeline steps in the correct function")
    bugs: int = knob(1, low=1, high=5, help="number of injected bugs (each observable on its own)")
    kinds: str = knob("constant", choices=("constant", "operator", "all"), help="kinds of injected bugs")
    shown: int = knob(3, low=0, high=10, help="examples of the correct behaviour shown in the prompt")

    def validate(self) -> None:
        if self.bugs > self.steps:
            raise ValueError(f"at most one bug per step: bugs={self.bugs} > steps={self.steps}")


LEVELS = {
    1: BugRepairKnobs(steps=2, bugs=1, kinds="constant", shown=4),
    2: BugRepairKnobs(steps=2, bugs=1, kinds="operator", shown=3),
    3: BugRepairKnobs(steps=3, bugs=1, kinds="all", shown=3),
    4: BugRepairKnobs(steps=3, bugs=2, kinds="constant", shown=3),
    5: BugRepairKnobs(steps=4, bugs=2, kinds="all", shown=3),
    6: BugRepairKnobs(steps=4, bugs=2, kinds="all", shown=2),
    7: BugRepairKnobs(steps=5, bugs=3, kinds="all", shown=2),
    8: BugRepairKnobs(steps=6, bugs=3, kinds="all", shown=2),
    9: BugRepairKnobs(steps=6, bugs=4, kinds="all", shown=1),
    10: BugRepairKnobs(steps=7, bugs=5, kinds="all", shown=1),
}

PROMPT = """This Python function has {bugs} bug{s}: it does not do what its docstring says.

```python
{source}```

{examples}Fix it. Your `f` will be run on hidden tests (including edge cases such as an empty list) \
and must return exactly what the docstring specifies; any correct program is accepted. Put the \
whole fixed function in <answer>...</answer> tags (only the fixed version: a code \
block with another version of `f`, the buggy one quoted included, is a format error), for example:

<answer>
def f(xs):
    ...
</answer>"""


def describe(step: Step) -> str:
    """One line of the docstring: the intended behaviour of a step (of ``_pipeline``'s rich space)."""
    kind, a, b = step["kind"], step.get("a"), step.get("b")
    if kind == "map":
        return {
            "lin": f"replace each x by x * {a} + ({b})",
            "rem": f"replace each x by x modulo {a}",
            "dist": f"replace each x by |x - ({a})|",
            "div": f"replace each x by x floor-divided by {a}",
            "sqrem": f"replace each x by x squared modulo {a}",
            "min": f"replace each x by the smaller of x and {a}",
            "max": f"replace each x by the larger of x and {a}",
        }[step["op"]]
    if kind == "filter":
        return {
            "mod": f"keep only the x with x modulo {a} equal to {b}",
            "modne": f"keep only the x with x modulo {a} not equal to {b}",
            "gt": f"keep only the x greater than {a}",
            "lt": f"keep only the x less than {a}",
        }[step["op"]]
    if kind.startswith("adjacent_"):
        pair = {"sum": f"xs[i] + xs[i + {a}]", "diff": f"xs[i + {a}] - xs[i]"}.get(
            kind[9:], f"{kind[9:]}(xs[i], xs[i + {a}])"
        )
        return f"replace the list by {pair} for each i with i + {a} < len(xs) ({a} element(s) shorter)"
    return {
        "sort": "sort ascending",
        "sort_desc": "sort descending",
        "sort_abs": "sort by absolute value, ascending (equal values keep their order)",
        "sort_mod": f"sort by x modulo {a}, ties by x, ascending",
        "reverse": "reverse the list",
        "rotate": f"rotate left by {a} positions ({a} modulo the length; an empty list stays empty)",
        "prefix": "replace the list by its running sums",
        "prefix_max": "replace the list by its running maxima",
        "prefix_min": "replace the list by its running minima",
        "take": f"keep the first {a} + len(xs) // 2 elements",
        "drop": f"drop the first {a} elements",
        "stride": f"keep every {a}-th element, starting at index {b}",
    }[kind]


def with_docstring(pipeline: list[Step], source: str) -> str:
    doc = "\n".join(f"    {i}. {describe(step)}" for i, step in enumerate(pipeline, start=1))
    head, rest = source.split("\n", 1)
    return f'{head}\n    """Take a list of integers and, in order:\n{doc}\n    Return the result."""\n{rest}'


def line_edits(line: str, kinds: tuple[str, ...]) -> list[str]:
    """Every single-token edit of ``line`` of the allowed kinds."""
    out: list[str] = []
    for m in _TOKEN.finditer(line):
        token = m.group()
        if token.isdigit() and "constant" in kinds:
            for value in (int(token) + 1, int(token) - 1):
                if value >= 0:
                    out.append(line[: m.start()] + str(value) + line[m.end() :])
        elif token in _SWAP and "operator" in kinds:
            out.append(line[: m.start()] + _SWAP[token] + line[m.end() :])
    return out


def hidden_inputs(pipeline: list[Step], tests: list[list[int]], rng: np.random.Generator) -> list[list[int]]:
    """``tests`` (edge cases, random lists, the shown examples), extremes, and inputs built to
    kill wrong programs (``_hidden_inputs``: every threshold after the earlier steps, the
    lengths where slices change, a mutation top-up)."""
    width = 3 * SPREAD + 5
    tests = tests + [[0], [-width, width, -1, 0, 1], draw_input(rng, 25, width)]
    return unique(tests + killing_inputs(pipeline, tests, rng, width))


def run_source(source: str, inputs: list[list[int]]) -> list[Any] | None:
    """Outputs of OUR generated (possibly buggy) ``f`` on ``inputs``; None if it crashes."""
    namespace: dict[str, Any] = {}
    try:
        exec(compile(source, "<palaestra-bug>", "exec"), namespace)  # noqa: S102 - our own code
        return [namespace["f"](list(xs)) for xs in inputs]
    except Exception:  # noqa: BLE001 - a crashing buggy variant is simply observable
        return None


def inject(pipeline: list[Step], knobs: BugRepairKnobs, rng: np.random.Generator, tests: list[list[int]]):
    """(buggy source, bug descriptions) or None when the draw cannot host enough observable bugs."""
    kinds = KINDS if knobs.kinds == "all" else (knobs.kinds,)
    lines = render(pipeline).split("\n")
    correct = run_source("\n".join(lines), tests)
    step_lines = list(range(2, 2 + len(pipeline)))  # after "def f(xs):" and "xs = list(xs)"
    order = [step_lines[int(i)] for i in rng.permutation(len(step_lines))]
    bugs: list[dict[str, Any]] = []
    for index in order:
        if len(bugs) == knobs.bugs:
            break
        options = line_edits(lines[index], kinds)
        if "missing" in kinds:
            options.append("    pass")
        for k in rng.permutation(len(options)):
            trial = list(lines)
            trial[index] = options[int(k)]
            # each bug must be observable on its own against the correct program
            if run_source("\n".join(trial), tests) != correct:
                bugs.append({"line": index, "correct": lines[index], "buggy": options[int(k)]})
                break
    if len(bugs) < knobs.bugs:
        return None
    buggy = list(lines)
    for bug in bugs:
        buggy[bug["line"]] = bug["buggy"]
    source = "\n".join(buggy)
    if run_source(source, tests) == correct:
        return None  # bugs that cancel each other out
    return source, bugs


@family(
    "bug_repair",
    domain="code",
    knobs=BugRepairKnobs,
    levels=LEVELS,
    description="Fix injected bugs in a generated function with a docstring spec; graded by hidden tests in the sandbox.",
    verifier_kind="sandbox execution (hidden tests)",
    version=3,
)
class BugRepair(Family):
    sandbox_preload = ("functools", "itertools", "json", "math")  # imported once by the shared sandbox

    def generate(self, knobs: BugRepairKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(2000):
            pipeline = draw_rich_pipeline(knobs.steps, rng, SPREAD)
            base = [[], [int(rng.integers(-9, 10))]] + [
                draw_input(rng, int(rng.integers(2, 11)), 30) for _ in range(14)
            ]
            if len({tuple(o) for o in (apply(pipeline, xs)[0] for xs in base)}) < 4:
                continue  # nearly constant functions make weak tests
            shown = [draw_input(rng, int(rng.integers(3, 7)), 20) for _ in range(knobs.shown)]
            hidden = hidden_inputs(pipeline, base + shown, rng)
            injected = inject(pipeline, knobs, rng, hidden)
            if injected is not None:
                break
        else:
            raise RuntimeError(f"could not draw a task for {knobs}")
        buggy, bugs = injected
        correct = render(pipeline)
        examples = "".join(f"f({xs}) should return {apply(pipeline, xs)[0]}\n" for xs in shown)
        return TaskDraft(
            prompt=PROMPT.format(
                bugs=knobs.bugs,
                s="s" if knobs.bugs > 1 else "",
                source=with_docstring(pipeline, buggy + "\n"),
                examples=(examples + "\n") if examples else "",
            ),
            answer=with_docstring(pipeline, correct),
            metadata={
                "pipeline": pipeline,
                "buggy": buggy,
                "bugs": bugs,
                "hidden": hidden,
                "expected": [apply(pipeline, xs)[0] for xs in hidden],
                "canonical_hash": content_hash([pipeline, bugs]),
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
        # knows the bug locations; effort = bugs x pipeline work on the hidden suite
        meta = task.metadata
        work = sum(apply(meta["pipeline"], xs)[1] for xs in meta["hidden"])
        return SolverRun(self.reference_response(task), float(work * len(meta["bugs"])))

    def solve_weak(self, task: Task) -> SolverRun:
        """One-edit repair: try every single-token edit (constant +-1, swapped operator) of the
        buggy program and answer the first that reproduces the examples shown in the prompt (no
        hidden tests); gives up when none does."""
        meta = task.metadata
        shown = [(json.loads(xs), json.loads(out)) for xs, out in _SHOWN.findall(task.prompt)]
        probe, want = [xs for xs, _ in shown], [out for _, out in shown]
        lines = meta["buggy"].split("\n")
        tries = 0
        for index in range(2, len(lines) - 1):
            for edit in line_edits(lines[index], ("constant", "operator")):
                tries += 1
                trial = "\n".join(lines[:index] + [edit] + lines[index + 1 :])
                if run_source(trial, probe) == want:
                    return SolverRun(f"<answer>\n{trial}</answer>", float(tries))
        return SolverRun(None, float(tries))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = task.metadata
        out = [f"<answer>\n{meta['buggy']}</answer>"]
        lines = task.answer.split("\n")
        # the correct program with one of the bugs put back, and with each bug moved by one
        for bug in meta["bugs"]:
            index = bug["line"] + (len(lines) - len(meta["buggy"].split("\n")))
            trial = list(lines)
            trial[index] = bug["buggy"]
            out.append(f"<answer>\n{chr(10).join(trial)}</answer>")
        out.append("<answer>\ndef f(xs):\n    return list(xs)\n</answer>")
        out.append("<answer>\ndef f(xs):\n    return sorted(xs)\n</answer>")
        wrong = [
            r
            for r in dict.fromkeys(out)
            if run_source(extract_code(r, "f")[0] or "", meta["hidden"]) != meta["expected"]
        ]
        return wrong
