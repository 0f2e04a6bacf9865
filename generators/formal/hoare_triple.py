"""Weakest preconditions: give the weakest precondition of a small straight-line program with
branches for a given postcondition (the P that makes the Hoare triple {P} S {Q} valid and is
implied by every other valid precondition).

Programs are sequences of integer assignments and if-then-else statements over x, y, z. The
reference wp is computed backwards by substitution (``wp(v := e, Q) = Q[e/v]``,
``wp(if c then A else B, Q) = (c ∧ wp(A, Q)) ∨ (¬c ∧ wp(B, Q))``). The weakest precondition is
unique up to logical equivalence, and the verifier checks exactly that: the answer, parsed by
the restricted parser of :mod:`loop_invariant`, must be equivalent to the reference according to
z3 (with a timeout; a timeout is a ``Verdict`` with ``error``). Any equivalent formula counts.
Exact solver: the backward substitution (effort: wp size plus z3's resource count); weak
solver: the same but always taking the then-branch. Level 5 generates at 30-55 tasks per
CPU-second on a quiet core (depending on the seeds), at or below the 50/s target: z3 equivalence
checks, inherent to rejecting degenerate programs, are most of the cost.
"""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import z3

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.formal._common import VERIFY_TIMEOUT_MS, decide_valid, thread_context, z3_effort
from palaestra.generators.formal.loop_invariant import ParseError, parse_invariant, tokenize
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

VARS = ("x", "y", "z")
MAX_WP_TOKENS = 450


@dataclass(frozen=True)
class WpKnobs(Knobs):
    statements: int = knob(2, low=1, high=10, help="number of top-level statements")
    branches: int = knob(0, low=0, high=4, help="how many of them are if-then-else")
    max_const: int = knob(3, low=1, high=20, help="constants are drawn from [-c, c]")

    def validate(self) -> None:
        if self.branches > self.statements:
            raise ValueError("branches cannot exceed statements")


LEVELS = {
    1: WpKnobs(statements=1, branches=0, max_const=3),
    2: WpKnobs(statements=2, branches=0, max_const=4),
    3: WpKnobs(statements=2, branches=1, max_const=4),
    4: WpKnobs(statements=3, branches=1, max_const=5),
    5: WpKnobs(statements=4, branches=1, max_const=6),
    6: WpKnobs(statements=4, branches=2, max_const=7),
    7: WpKnobs(statements=5, branches=2, max_const=8),
    8: WpKnobs(statements=6, branches=2, max_const=9),
    9: WpKnobs(statements=7, branches=2, max_const=12),
    10: WpKnobs(statements=8, branches=2, max_const=15),
}


def _const(rng: np.random.Generator, c: int) -> int:
    return int(rng.integers(-c, c + 1))


def _expr(rng: np.random.Generator, c: int) -> str:
    a, b = (VARS[int(i)] for i in rng.permutation(3)[:2])
    k = int(rng.integers(1, 4))
    return f"{a} + {k} * {b} + {_const(rng, c)}" if rng.random() < 0.5 else f"{a} - {b} + {_const(rng, c)}"


def _assign(rng: np.random.Generator, c: int) -> list[str]:
    return ["assign", VARS[int(rng.integers(3))], _expr(rng, c)]


def draw_program(knobs: WpKnobs, rng: np.random.Generator) -> list[list[Any]]:
    kinds = ["if"] * knobs.branches + ["assign"] * (knobs.statements - knobs.branches)
    program: list[list[Any]] = []
    for i in rng.permutation(len(kinds)):
        if kinds[int(i)] == "assign":
            program.append(_assign(rng, knobs.max_const))
        else:
            a, b = (VARS[int(j)] for j in rng.permutation(3)[:2])
            cond = f"{a} < {b} + {_const(rng, knobs.max_const)}"
            program.append(["if", cond, _assign(rng, knobs.max_const), _assign(rng, knobs.max_const)])
    return program


def substitute(formula: str, var: str, expr: str) -> str:
    return " ".join(f"({expr})" if tok == var else tok for tok in tokenize(formula))


def wp(program: list[list[Any]], post: str, then_only: bool = False) -> str:
    q = post
    for stmt in reversed(program):
        if stmt[0] == "assign":
            q = substitute(q, stmt[1], stmt[2])
        elif then_only:
            q = substitute(q, stmt[2][1], stmt[2][2])
        else:
            then_q = substitute(q, stmt[2][1], stmt[2][2])
            else_q = substitute(q, stmt[3][1], stmt[3][2])
            q = f"(({stmt[1]}) && ({then_q})) || (!({stmt[1]}) && ({else_q}))"
    return q


def render_program(program: list[list[Any]]) -> str:
    lines = []
    for stmt in program:
        if stmt[0] == "assign":
            lines.append(f"  {stmt[1]} := {stmt[2]};")
        else:
            lines.append(
                f"  if ({stmt[1]}) {{ {stmt[2][1]} := {stmt[2][2]}; }} else {{ {stmt[3][1]} := {stmt[3][2]}; }}"
            )
    return "\n".join(lines)


def check_equivalent(reference: str, text: str, timeout_ms: int = VERIFY_TIMEOUT_MS) -> tuple[Verdict, float]:
    ctx = z3.Context()
    env = {v: z3.Int(v, ctx) for v in VARS}
    try:
        answer = parse_invariant(text, env)
    except (ParseError, z3.Z3Exception) as exc:
        return Verdict.bad_format(f"cannot read the precondition: {exc}"), 0.0
    ref = parse_invariant(reference, env)
    solver = z3.Solver(ctx=ctx)
    solver.set("timeout", timeout_ms)
    solver.add(answer != ref)
    result = solver.check()
    effort = z3_effort(solver)
    if result == z3.sat:
        model = solver.model()
        state = ", ".join(f"{v}={model.eval(env[v], model_completion=True)}" for v in VARS)
        too = "too strong" if z3.is_true(model.eval(ref, model_completion=True)) else "too weak"
        return Verdict.wrong(
            f"not the weakest precondition ({too}): it differs at {state}", parsed=text
        ), effort
    if result != z3.unsat:
        return Verdict.timed_out(
            reason="the verifier could not decide in time",
            error="z3 gave up comparing the precondition with the weakest one",
        ), effort
    return Verdict.right(parsed=text), effort


_REFERENCES = threading.local()
_CACHED_REFERENCES = 256


def _parsed_reference(reference: str, ctx: z3.Context) -> z3.BoolRef:
    """The weakest precondition parsed in ``ctx``, kept per thread: a group of responses to one
    task parses it once (it is the longer half of the parsing, the larger half of the cost)."""
    cache = getattr(_REFERENCES, "cache", None)
    if cache is None or cache[0] is not ctx:
        cache = _REFERENCES.cache = (ctx, collections.OrderedDict())
    parsed = cache[1]
    if reference in parsed:
        parsed.move_to_end(reference)
    else:
        parsed[reference] = parse_invariant(reference, {v: z3.Int(v, ctx) for v in VARS})
        if len(parsed) > _CACHED_REFERENCES:
            parsed.popitem(last=False)
    return parsed[reference]


def verify_equivalent(reference: str, text: str, timeout_ms: int = VERIFY_TIMEOUT_MS) -> Verdict:
    """The verdict on ``text``, decided in this thread's reused z3 context: equivalent, or which
    way it errs (a decision, never a model: see ``thread_context``)."""
    ctx = thread_context()
    env = {v: z3.Int(v, ctx) for v in VARS}
    try:
        answer = parse_invariant(text, env)
    except (ParseError, z3.Z3Exception) as exc:
        return Verdict.bad_format(f"cannot read the precondition: {exc}")
    ref = _parsed_reference(reference, ctx)
    stronger = decide_valid(z3.Implies(answer, ref), timeout_ms)  # no state the wp forbids
    weaker = decide_valid(z3.Implies(ref, answer), timeout_ms)  # no state the wp allows is lost
    if "unknown" in (stronger, weaker):
        return Verdict.timed_out(
            reason="the verifier could not decide in time",
            error="z3 gave up comparing the precondition with the weakest one",
        )
    if stronger == weaker == "valid":
        return Verdict.right(parsed=text)
    if stronger == "valid":
        why = "too strong: it excludes states from which the program reaches the postcondition"
    elif weaker == "valid":
        why = "too weak: it admits states from which the program misses the postcondition"
    else:
        why = "too strong at some states and too weak at others"
    return Verdict.wrong(f"not the weakest precondition ({why})", parsed=text)


PROMPT = """Compute the weakest precondition of this program for the given postcondition. All \
variables are mathematical integers; ":=" is assignment.

{program}

  postcondition: {post}

Give a formula P over x, y, z such that the Hoare triple {{P}} program {{postcondition}} is valid \
and every other valid precondition implies P. The answer is checked by z3 for logical \
equivalence with the weakest precondition, so any equivalent formula is accepted. Write it with \
integers, x, y, z, + - *, comparisons (== != < <= > >=), and/or/not (also && || !), => and \
parentheses, for example <answer>x + 2 * y > 3 || z == 0</answer> (format only)."""


@family(
    "hoare_triple",
    domain="formal",
    knobs=WpKnobs,
    levels=LEVELS,
    description="Weakest precondition of a small program with branches; z3 checks equivalence.",
    verifier_kind="z3 equivalence with the weakest precondition (any equivalent formula)",
)
class HoareTriple(Family):
    def generate(self, knobs: WpKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(200):
            program = draw_program(knobs, rng)
            a, b = (VARS[int(j)] for j in rng.permutation(3)[:2])
            post = f"{a} + {b} > {_const(rng, knobs.max_const)}"
            try:
                ref = wp(program, post)
                if len(tokenize(ref)) > MAX_WP_TOKENS:
                    continue  # keep the reference answer readable (wp grows with nested branches)
            except ParseError:
                continue
            # reject programs whose wp is trivially the postcondition (no statement mattered)
            if check_equivalent(ref, post)[0].correct and knobs.statements > 1:
                continue
            if knobs.branches and check_equivalent(ref, wp(program, post, then_only=True))[0].correct:
                continue  # the branches never matter: the then-only shortcut would be right
            break
        else:
            raise RuntimeError(f"could not draw a program for {knobs}")
        meta = {"program": program, "post": post, "wp_tokens": len(tokenize(ref))}
        meta["canonical_hash"] = content_hash([program, post])
        prompt = PROMPT.format(program=render_program(program), post=post)
        return TaskDraft(prompt=prompt, answer=ref, metadata=meta)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        meta = dict(task.metadata)
        return verify_equivalent(wp(meta["program"], meta["post"]), extraction.text)

    def solve_exact(self, task: Task) -> SolverRun:
        meta = dict(task.metadata)
        ref = wp(meta["program"], meta["post"])
        _, effort = check_equivalent(ref, ref)
        return SolverRun(f"<answer>{ref}</answer>", effort + len(tokenize(ref)))

    def solve_weak(self, task: Task) -> SolverRun:
        meta = dict(task.metadata)
        guess = wp(meta["program"], meta["post"], then_only=True)
        return SolverRun(f"<answer>{guess}</answer>", float(len(meta["program"])))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = dict(task.metadata)
        ref = wp(meta["program"], meta["post"])
        candidates = [
            meta["post"],  # ignores the program
            f"({ref}) && x < y",  # too strong
            f"({ref}) || x == y + 7",  # too weak
            f"!({ref})",
            "true",
        ]
        out = [c for c in candidates if not check_equivalent(ref, c)[0].correct]
        return [f"<answer>{c}</answer>" for c in out]
