"""Ranking functions: prove that a loop terminates with an integer expression that is
non-negative whenever the guard holds and drops by at least 1 on every iteration.

Loops are ``while (g1 ∧ ... ∧ gm) { v_i := v_i + d_i }`` over integer variables, where one guard
conjunct ``Σ c_i·v_i < n`` is planted so that its slack decreases each iteration and the other
conjuncts are distractors (their slack grows or stays). The answer is parsed by the restricted
expression parser of :mod:`loop_invariant` (integers, program variables, + - *, parentheses) and
z3 checks ``guard ⇒ r ≥ 0`` and ``guard ∧ step ⇒ r' ≤ r - 1`` with a timeout (a timeout is a
``Verdict`` with ``error``). Any ranking function that passes counts. Exact solver: the planted
slack (effort: z3's resource count). Weak solver: the slack of the first guard conjunct, taken
without working out which conjunct shrinks; it is right exactly when the planted conjunct is
listed first (conjuncts are shuffled), so its solve rate is about 1/guards.
Level 5 generates at ~100 tasks/s (one z3 call per draw proves the guard satisfiable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import z3

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.formal._common import (
    VERIFY_TIMEOUT_MS,
    prove_valid,
    thread_context,
    verdict_on_conditions,
)
from palaestra.generators.formal.loop_invariant import ExpressionParser, ParseError, tokenize
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer


@dataclass(frozen=True)
class RankingKnobs(Knobs):
    variables: int = knob(1, low=1, high=6, help="number of loop variables v1..vk")
    guards: int = knob(1, low=1, high=5, help="guard conjuncts (one decreasing, the rest distractors)")
    max_coef: int = knob(1, low=1, high=9, help="guard coefficients are drawn from [-c, c]")
    max_delta: int = knob(2, low=1, high=9, help="updates are drawn from [-d, d]")


LEVELS = {
    1: RankingKnobs(variables=1, guards=1, max_coef=1, max_delta=2),
    2: RankingKnobs(variables=2, guards=1, max_coef=1, max_delta=2),
    3: RankingKnobs(variables=2, guards=2, max_coef=2, max_delta=3),
    4: RankingKnobs(variables=3, guards=2, max_coef=2, max_delta=3),
    5: RankingKnobs(variables=3, guards=2, max_coef=3, max_delta=4),
    6: RankingKnobs(variables=4, guards=3, max_coef=3, max_delta=4),
    7: RankingKnobs(variables=4, guards=3, max_coef=4, max_delta=5),
    8: RankingKnobs(variables=5, guards=3, max_coef=5, max_delta=6),
    9: RankingKnobs(variables=5, guards=4, max_coef=6, max_delta=7),
    10: RankingKnobs(variables=6, guards=4, max_coef=7, max_delta=9),
}


def _names(k: int) -> list[str]:
    return [f"v{i}" for i in range(1, k + 1)]


def _linear(coefs: list[int], names: list[str]) -> str:
    parts = [f"{c} * {v}" for c, v in zip(coefs, names, strict=True) if c]
    return " + ".join(parts) if parts else "0"


def render_guard(meta: dict[str, Any]) -> list[str]:
    names = _names(meta["variables"])
    return [f"{_linear(g, names)} < {b}" for g, b in zip(meta["guards"], meta["bounds"], strict=True)]


def ranking_claims(meta: dict[str, Any], text: str, ctx: z3.Context) -> list[tuple[str, z3.BoolRef]]:
    """The two conditions on the ranking function ``text`` as (name, claim), built in ``ctx``;
    raises ``ParseError`` (or ``z3.Z3Exception``) when the text is not one integer expression."""
    names = _names(meta["variables"])
    cur = {v: z3.Int(v, ctx) for v in names}
    nxt = {v: z3.Int(v + "'", ctx) for v in names}
    parsers = [ExpressionParser(tokenize(text), env) for env in (cur, nxt)]
    terms = []
    for parser in parsers:
        if not parser.tokens:
            raise ParseError("empty ranking function")
        terms.append(parser.sum())
        if parser.peek() is not None:
            raise ParseError(f"unexpected {parser.peek()!r}: give one integer expression")
    r, r_next = terms
    guard = z3.And(
        [
            z3.Sum([c * cur[v] for c, v in zip(g, names, strict=True)] + [z3.IntVal(0, ctx)]) < b
            for g, b in zip(meta["guards"], meta["bounds"], strict=True)
        ]
    )
    step = z3.And([nxt[v] == cur[v] + d for v, d in zip(names, meta["deltas"], strict=True)])
    return [
        ("bounded (r >= 0 whenever the guard holds)", z3.Implies(guard, r >= 0)),
        (
            "decreasing (r drops by at least 1 each iteration)",
            z3.Implies(z3.And(guard, step), r_next <= r - 1),
        ),
    ]


def check_ranking(
    meta: dict[str, Any], text: str, timeout_ms: int = VERIFY_TIMEOUT_MS
) -> tuple[Verdict, float]:
    """The verdict with a counterexample, and z3's effort, from a fresh context (generation and
    the reference solver: effort counts must not depend on earlier calls)."""
    try:
        claims = ranking_claims(meta, text, z3.Context())
    except (ParseError, z3.Z3Exception) as exc:
        return Verdict.bad_format(f"cannot read the ranking function: {exc}"), 0.0
    effort = 0.0
    for name, claim in claims:
        outcome, shown, spent = prove_valid(claim, timeout_ms)
        effort += spent
        if outcome == "counterexample":
            return Verdict.wrong(f"not {name}, e.g. at {shown}", parsed=text), effort
        if outcome == "unknown":
            return Verdict.timed_out(
                reason="the verifier could not decide in time", error=f"z3 gave up checking that r is {name}"
            ), effort
    return Verdict.right(parsed=text), effort


def verify_ranking(meta: dict[str, Any], text: str, timeout_ms: int = VERIFY_TIMEOUT_MS) -> Verdict:
    """The verdict on ``text``, decided in this thread's reused z3 context: the reason names the
    condition that fails (no counterexample: see ``thread_context``)."""
    try:
        claims = ranking_claims(meta, text, thread_context())
    except (ParseError, z3.Z3Exception) as exc:
        return Verdict.bad_format(f"cannot read the ranking function: {exc}")
    return verdict_on_conditions(
        claims,
        text,
        fails="not {name}",
        gives_up="z3 gave up checking that r is {name}",
        timeout_ms=timeout_ms,
    )


def planted_ranking(meta: dict[str, Any]) -> str:
    g, b = meta["guards"][meta["planted"]], meta["bounds"][meta["planted"]]
    return f"{b} - ({_linear(g, _names(meta['variables']))}) - 1"


def _draw(knobs: RankingKnobs, rng: np.random.Generator) -> dict[str, Any] | None:
    k = knobs.variables
    deltas = [int(d) for d in rng.integers(-knobs.max_delta, knobs.max_delta + 1, k)]
    guards, bounds = [], []
    for j in range(knobs.guards):
        g = [int(c) for c in rng.integers(-knobs.max_coef, knobs.max_coef + 1, k)]
        rate = sum(c * d for c, d in zip(g, deltas, strict=True))
        # the planted conjunct's left side grows each step; distractors shrink or stay
        if (j == 0) != (rate >= 1) or not any(g):
            return None
        guards.append(g)
        bounds.append(int(rng.integers(-20, 21)))
    if k > 1 and guards[0] == [1] + [0] * (k - 1):
        return None  # n - v1 would already do: too easy beyond level 1
    order = [int(i) for i in rng.permutation(knobs.guards)]
    return {
        "variables": k,
        "deltas": deltas,
        "guards": [guards[i] for i in order],
        "bounds": [bounds[i] for i in order],
        "planted": order.index(0),
    }


PROMPT = """Prove that this loop terminates for every integer start state by giving a ranking \
function. All variables are mathematical integers with arbitrary initial values.

  while ({guard}) {{
    {updates};
  }}

A ranking function is an integer expression r over {names} such that z3 proves both: (1) \
whenever the loop guard holds, r >= 0, and (2) whenever the guard holds, one iteration makes r \
drop by at least 1 (r' <= r - 1). Many ranking functions work; any one is accepted. Write it \
with integers, the variables, + - * and parentheses, for example <answer>10 - 2 * v1 + v2</answer> \
(format only)."""


@family(
    "ranking_function",
    domain="formal",
    knobs=RankingKnobs,
    levels=LEVELS,
    description="Give a ranking function proving a linear loop terminates; z3 checks bound and decrease.",
    verifier_kind="z3 check of boundedness and decrease (any ranking function)",
)
class RankingFunction(Family):
    def generate(self, knobs: RankingKnobs, rng: np.random.Generator) -> TaskDraft:
        names = _names(knobs.variables)
        for _ in range(1000):
            meta = _draw(knobs, rng)
            # the guard must be satisfiable, else every expression would vacuously rank the loop
            if meta is not None and not check_ranking(meta, "0")[0].correct:
                break
        else:
            raise RuntimeError(f"could not draw a loop for {knobs}")
        deltas = meta["deltas"]
        meta["canonical_hash"] = content_hash(
            [meta["deltas"], sorted(zip(meta["guards"], meta["bounds"], strict=True))]
        )
        updates = "; ".join(f"{v} := {v} + {d}" for v, d in zip(names, deltas, strict=True))
        prompt = PROMPT.format(guard=" && ".join(render_guard(meta)), updates=updates, names=", ".join(names))
        return TaskDraft(prompt=prompt, answer=planted_ranking(meta), metadata=meta)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        return verify_ranking(dict(task.metadata), extraction.text)

    def solve_exact(self, task: Task) -> SolverRun:
        meta = dict(task.metadata)
        text = planted_ranking(meta)
        _, effort = check_ranking(meta, text)
        return SolverRun(f"<answer>{text}</answer>", effort + len(meta["guards"]) * meta["variables"])

    def solve_weak(self, task: Task) -> SolverRun:
        """The slack of the first guard conjunct, without checking that it shrinks."""
        meta = dict(task.metadata)
        g, b = meta["guards"][0], meta["bounds"][0]
        return SolverRun(f"<answer>{b} - ({_linear(g, _names(meta['variables']))}) - 1</answer>", 1.0)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = dict(task.metadata)
        ref = planted_ranking(meta)
        out = [
            f"<answer>-1 - ({ref})</answer>",  # increases
            f"<answer>{ref} - 1000000</answer>",  # negative while the guard holds
            "<answer>0</answer>",  # never decreases
        ]
        distractor = next((j for j in range(len(meta["guards"])) if j != meta["planted"]), None)
        if distractor is not None:
            g, b = meta["guards"][distractor], meta["bounds"][distractor]
            out.append(f"<answer>{b} - ({_linear(g, _names(meta['variables']))}) - 1</answer>")
        return out
