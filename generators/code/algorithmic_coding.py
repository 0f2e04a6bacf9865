"""Algorithmic coding problems in many variants, with mutation-validated hidden test suites.

Problem kinds (``_algorithms``), each in variants drawn per task from the seed (194 in all); the
statement states every parameter and the examples shown use them:

- sort_pairs (56): sort pairs by a or b, by the value, |value| or value mod k (k = 3..7), each
  key ascending or descending, ties kept in input order;
- interval_scheduling (18): the gap required between compatible intervals (0..5; 0: touching
  intervals are compatible), and the goal: most intervals kept, fewest removed, or the largest
  total length (a weighted DP, not the greedy);
- shortest_path (24): directed from 0 to n-1, directed from n-1 to 0, or undirected; total cost
  or bottleneck (smallest largest edge); a surcharge 0..3 added to every edge;
- edit_distance (60): insertion, deletion and replacement costs 1..4 each (a replacement never
  dearer than a deletion plus an insertion, where it would behave as that sum);
- count_mod (36): ordered sequences, multisets or sets of parts; sum exactly T or at most T; the
  number of parts unrestricted, even, odd, or r mod 3; modulo p.

A program right for one variant is wrong for every task of any other variant of its kind: each
suite holds the kind's fixed separators, on which any two variants differ (checked over every
pair in the tests), so the best constant answer (one program sent to every task) scores about the
share of a single variant. The agent writes ``solve(data: str) -> str``; the verifier runs it in
the shared sandbox on the hidden suite (separators, edge cases, cases planted on the parameters,
random, adversarial large inputs of ``size``) under ``time_limit_s`` for the whole suite, and
compares outputs line by line (trailing whitespace ignored).

Every suite is validated by mutation at generation time: all single-token mutants of the
reference (constants +-1, swapped operators; the parameters are literal constants of the
reference, so their neighbours are among the mutants) are run in-process (the references use
bounded ``for`` loops only, so every mutant terminates) and the suite must kill at least
``MIN_MUTATION_SCORE`` of them; the score is stored in ``metadata``. Generation therefore costs
more than plain generation: about 160 / 135 / 40 tasks per CPU-second at levels 1 / 5 / 10 (one
core, ``benchmarks/generation.py``; edit_distance at level 10 about 10/s, the slowest kind),
dominated by running the reference and the mutants on the large tests.

Weak solver: a brute-force programmer (``_algorithms.brute_force``): correct but exponential
programs following the task's parameters (every subset, every simple path, recursion without a
table; selection sort) whose step counter gives up past ``BRUTE_BUDGET`` steps for the suite,
standing in for the time limit; the verifier runs them, so they pass small suites and fail as
the large tests grow with the level.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.sandbox import Job

from ._algorithms import (
    BRUTE_BUDGET,
    KINDS,
    SEPARATORS,
    brute_force,
    draw_variant,
    hidden_tests,
    reference,
    statement,
)
from ._code_answer import extract_code
from .bug_repair import line_edits
from .shared_sandbox import failed_run, run_jobs

MIN_MUTATION_SCORE = 0.95
MARKER = "\n@@palaestra-outputs@@\n"
DRIVER = f"""
def __palaestra_run():
    import json, sys
    inputs = json.loads(sys.stdin.read())
    out = []
    for data in inputs:
        try:
            value = solve(data)
            out.append({{"ok": value if isinstance(value, str) else None}})
        except BaseException as exc:
            out.append({{"error": type(exc).__name__}})
    sys.stdout.write({MARKER!r} + json.dumps(out))
__palaestra_run()
"""


@dataclass(frozen=True)
class AlgorithmicCodingKnobs(Knobs):
    kind: str = knob("any", choices=(*KINDS, "any"), help="problem kind ('any': drawn per task)")
    size: int = knob(8, low=4, high=2000, help="size of the adversarial large tests (n, string length, T)")
    time_limit_s: float = knob(8.0, low=0.5, high=30.0, help="wall-clock limit for the whole hidden suite")


LEVELS = {
    1: AlgorithmicCodingKnobs(size=8, time_limit_s=8.0),
    2: AlgorithmicCodingKnobs(size=16, time_limit_s=8.0),
    3: AlgorithmicCodingKnobs(size=30, time_limit_s=7.0),
    4: AlgorithmicCodingKnobs(size=50, time_limit_s=7.0),
    5: AlgorithmicCodingKnobs(size=80, time_limit_s=6.0),
    6: AlgorithmicCodingKnobs(size=120, time_limit_s=6.0),
    7: AlgorithmicCodingKnobs(size=180, time_limit_s=5.0),
    8: AlgorithmicCodingKnobs(size=250, time_limit_s=5.0),
    9: AlgorithmicCodingKnobs(size=320, time_limit_s=4.0),
    10: AlgorithmicCodingKnobs(size=400, time_limit_s=4.0),
}

PROMPT = """Write a Python 3 function `solve(data: str) -> str` for this problem.

{statement}

`data` is the whole input text; return the whole output text (no trailing spaces needed). \
Examples:

{examples}
Your function will be run on {count} hidden tests (edge cases, random cases and large cases with \
sizes up to about {size}) with a total time limit of {limit:g} s; every output must be exactly \
right. Any correct solution is accepted. Put the code in <answer>...</answer> tags, for example:

<answer>
def solve(data):
    numbers = data.split()
    return str(len(numbers))
</answer>"""


def _compile(source: str) -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<reference>", "exec"), namespace)  # noqa: S102 - our own reference
    return namespace["solve"]


def mutants(source: str) -> list[str]:
    """Every single-token mutant (constant +-1, swapped operator) of a reference, the lines
    before ``def solve`` (imports) left alone."""
    lines = source.split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("def solve")) + 1
    out: list[str] = []
    for i in range(first, len(lines)):
        for edit in line_edits(lines[i], ("constant", "operator")):
            out.append("\n".join(lines[:i] + [edit] + lines[i + 1 :]))
    return out


def killed_by(source: str, tests: list[str], expected: list[str]) -> bool:
    """Does the suite reject this mutant (different output or an exception on some test)?"""
    namespace: dict[str, Any] = {}
    try:
        exec(compile(source, "<mutant>", "exec"), namespace)  # noqa: S102 - mutant of our code
        return any(_norm(namespace["solve"](t)) != e for t, e in zip(tests, expected, strict=True))
    except Exception:  # noqa: BLE001 - a crashing mutant is a killed mutant
        return True


def mutation_score(source: str, tests: list[str], expected: list[str]) -> tuple[int, int]:
    """(killed, total) over the reference's mutants."""
    pool = mutants(source)
    return sum(killed_by(m, tests, expected) for m in pool), len(pool)


def _norm(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    return "\n".join(line.rstrip() for line in text.strip().split("\n"))


def _cost(kind: str, params: dict[str, Any], tests: list[str]) -> int:
    """Reference work estimate: elementary steps of the reference algorithm on every test."""
    total = 0
    for t in tests:
        if kind == "edit_distance":
            a, _, b = t.partition("\n")
            total += (len(a.strip()) + 1) * (len(b.strip()) + 1)
        elif kind == "shortest_path":
            n, m = map(int, t.split()[:2])
            total += n * n + m
        elif kind == "count_mod":
            tokens = t.split()
            total += (int(tokens[0]) + 1) * int(tokens[2]) * params["q"]
        else:
            n = int(t.split()[0])
            total += n * max(1, n.bit_length())
    return total


@family(
    "algorithmic_coding",
    domain="code",
    knobs=AlgorithmicCodingKnobs,
    levels=LEVELS,
    description=(
        "Write solve() for sorting, scheduling, shortest-path, string-DP and counting problems in "
        "194 per-task variants; mutation-validated hidden tests."
    ),
    version=2,
    verifier_kind="sandbox execution (hidden tests, mutation-validated)",
)
class AlgorithmicCoding(Family):
    # what solutions of sorting, scheduling, Dijkstra, DP and counting tasks import, and the
    # driver's json: the shared sandbox imports them once (generators/code/shared_sandbox.py)
    sandbox_preload = ("bisect", "collections", "functools", "heapq", "itertools", "json", "math")

    def generate(self, knobs: AlgorithmicCodingKnobs, rng: np.random.Generator) -> TaskDraft:
        kind = KINDS[int(rng.integers(len(KINDS)))] if knobs.kind == "any" else knobs.kind
        params = draw_variant(kind, rng)
        source = reference(kind, params)
        solve = _compile(source)
        for _ in range(5):
            tests = hidden_tests(kind, params, rng, knobs.size)
            expected = [_norm(solve(t)) for t in tests]
            killed, total = mutation_score(source, tests, expected)
            if killed >= MIN_MUTATION_SCORE * total:
                break
        else:
            raise RuntimeError(f"no {kind} suite reached a mutation score of {MIN_MUTATION_SCORE}")
        # the first separator of the kind (where its variants differ), a small edge case and the
        # first small random case, all with this task's parameters
        separators = len(SEPARATORS[kind])
        shown = [0, separators + 2, len(tests) - 4]
        examples = "".join(f"solve({tests[i]!r}) == {expected[i]!r}\n" for i in shown)
        return TaskDraft(
            prompt=PROMPT.format(
                statement=statement(kind, params),
                examples=examples,
                count=len(tests),
                size=knobs.size,
                limit=knobs.time_limit_s,
            ),
            answer=source,
            metadata={
                "kind": kind,
                "params": params,
                "tests": tests,
                "expected": expected,
                "mutants": total,
                "mutants_killed": killed,
                "mutation_score": killed / total,
                "work": _cost(kind, params, tests),
                "canonical_hash": content_hash([kind, params, tests]),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        code, reason = extract_code(response, "solve")
        if code is None:
            return Verdict.bad_format(reason)
        meta = task.metadata
        job = Job(
            code + "\n" + DRIVER,
            stdin=json.dumps(meta["tests"]),
            timeout_s=float(task.difficulty.knobs["time_limit_s"]),
            memory_mb=512,
            output_limit_bytes=1 << 22,
        )
        results = run_jobs([job])
        if isinstance(results, Verdict):
            return results
        result = results[0]
        if not result.ok:
            return failed_run(result, "running solve on the hidden tests")
        _, sep, payload = result.stdout.rpartition(MARKER)
        try:
            outputs = json.loads(payload) if sep else None
        except ValueError:
            outputs = None
        if not isinstance(outputs, list) or len(outputs) != len(meta["tests"]):
            return Verdict.wrong("the program printed no readable results")
        for i, (got, want) in enumerate(zip(outputs, meta["expected"], strict=True)):
            if not isinstance(got, dict) or "ok" not in got:
                error = got.get("error") if isinstance(got, dict) else None
                return Verdict.wrong(f"hidden test {i + 1} raised {str(error)[:40]}")
            if _norm(got["ok"]) != want:
                return Verdict.wrong(f"hidden test {i + 1}: wrong output")
        return Verdict.right(parsed=f"passed {len(outputs)} hidden tests")

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}</answer>"

    def solve_exact(self, task: Task) -> SolverRun:
        return SolverRun(self.reference_response(task), float(task.metadata["work"]))

    def solve_weak(self, task: Task) -> SolverRun:
        """A brute-force programmer: submits a correct but exponential program (every subset,
        every simple path, plain recursion without a table; selection sort for sorting) whose
        step counter gives up past BRUTE_BUDGET steps, the stand-in for the time limit. The
        verifier runs it: it passes small suites and fails once the large tests outgrow it."""
        meta = task.metadata
        program = brute_force(meta["kind"], meta["params"])
        return SolverRun(f"<answer>\n{program}</answer>", float(BRUTE_BUDGET))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = task.metadata
        pool = mutants(task.answer)
        order = [pool[int(i)] for i in rng.permutation(len(pool))]
        killed = [m for m in order if killed_by(m, meta["tests"], meta["expected"])][:3]
        out = [f"<answer>\n{m}</answer>" for m in killed]
        out.append("<answer>\ndef solve(data):\n    return ''\n</answer>")
        return out
