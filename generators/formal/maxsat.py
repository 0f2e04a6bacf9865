"""Weighted partial MaxSAT: satisfy every hard clause and maximise the weight of satisfied soft
clauses; the optimum is proven with z3's ``Optimize`` at generation time.

Hard clauses are planted (each agrees with a hidden assignment, so they are satisfiable); soft
clauses are short random clauses with integer weights, so they conflict with each other and with
the hard part. Instances where the optimum satisfies every soft clause, or where all-true or
all-false is optimal (levels > 2), are rejected. Any optimal assignment counts: the verifier
evaluates the hard clauses and sums the satisfied soft weight exactly, comparing it with the
proven optimum (no solver at grading time). Exact solver: z3 Optimize (effort: z3's
deterministic resource count); weak solver: weighted-polarity start and a bounded greedy repair.
Level 5 generates at ~60 tasks/s on a loaded core.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import z3

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.formal._common import Clause, render_clause, z3_effort
from palaestra.generators.shared.logic_answers import format_bool_assignment, parse_bool_assignment
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

OPTIMIZE_TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class MaxSatKnobs(Knobs):
    variables: int = knob(3, low=2, high=40, help="number of Boolean variables x1..xn")
    hard: int = knob(2, low=0, high=200, help="number of hard clauses (planted, width 3 or less)")
    # 100 at most: 200 hard and 150 soft clauses over 40 variables ran past 30 s in z3 Optimize,
    # 200 and 100 take about 1 s (issue 27)
    soft: int = knob(4, low=2, high=100, help="number of weighted soft clauses (width 1-2)")
    max_weight: int = knob(3, low=1, high=100, help="soft weights are drawn from 1..max_weight")
    hard_width: int = knob(2, low=1, high=4, help="literals per hard clause")

    def validate(self) -> None:
        if self.hard_width > self.variables:
            raise ValueError("hard_width cannot exceed the number of variables")


LEVELS = {
    1: MaxSatKnobs(variables=3, hard=2, soft=4, max_weight=3, hard_width=2),
    2: MaxSatKnobs(variables=4, hard=3, soft=6, max_weight=4, hard_width=2),
    3: MaxSatKnobs(variables=5, hard=5, soft=8, max_weight=5, hard_width=2),
    4: MaxSatKnobs(variables=6, hard=6, soft=10, max_weight=6, hard_width=3),
    5: MaxSatKnobs(variables=8, hard=8, soft=14, max_weight=8, hard_width=3),
    6: MaxSatKnobs(variables=10, hard=10, soft=18, max_weight=9, hard_width=3),
    7: MaxSatKnobs(variables=12, hard=14, soft=22, max_weight=10, hard_width=3),
    8: MaxSatKnobs(variables=14, hard=18, soft=28, max_weight=12, hard_width=3),
    9: MaxSatKnobs(variables=17, hard=22, soft=34, max_weight=15, hard_width=3),
    10: MaxSatKnobs(variables=20, hard=26, soft=40, max_weight=20, hard_width=3),
}


def clause_true(clause: Sequence[int], values: Sequence[bool]) -> bool:
    return any(values[abs(lit) - 1] == (lit > 0) for lit in clause)


def score(meta: dict[str, Any], values: Sequence[bool]) -> tuple[int, int]:
    """(number of broken hard clauses, satisfied soft weight)."""
    broken = sum(not clause_true(c, values) for c in meta["hard"])
    weight = sum(w for c, w in meta["soft"] if clause_true(c, values))
    return broken, weight


def z3_optimum(meta: dict[str, Any]) -> tuple[list[bool], int, float]:
    """An optimal assignment, its satisfied soft weight and z3's effort (raises on timeout)."""
    ctx = z3.Context()
    opt = z3.Optimize(ctx=ctx)
    opt.set("timeout", OPTIMIZE_TIMEOUT_MS)
    xs = [z3.Bool(f"x{i}", ctx) for i in range(1, meta["variables"] + 1)]

    def lits(c: Sequence[int]) -> z3.BoolRef:
        return z3.Or([xs[abs(lit) - 1] if lit > 0 else z3.Not(xs[abs(lit) - 1]) for lit in c], ctx)

    for c in meta["hard"]:
        opt.add(lits(c))
    for c, w in meta["soft"]:
        opt.add_soft(lits(c), w)
    if opt.check() != z3.sat:
        raise RuntimeError("z3 Optimize gave up or found the hard clauses unsatisfiable")
    model = opt.model()
    values = [z3.is_true(model.eval(x, model_completion=True)) for x in xs]
    broken, weight = score(meta, values)
    if broken:
        raise RuntimeError("z3 returned a model that breaks a hard clause")
    return values, weight, z3_effort(opt)


def weak_solve(meta: dict[str, Any]) -> tuple[list[bool], int]:
    """Weighted polarity per variable, then at most n/2 greedy single flips (no search)."""
    n = meta["variables"]
    pull = [0] * n
    for c, w in meta["soft"]:
        for lit in c:
            pull[abs(lit) - 1] += w if lit > 0 else -w
    values = [p >= 0 for p in pull]
    steps = 0
    for _ in range(max(1, n // 2)):
        current = score(meta, values)
        best, best_key = None, (-current[0], current[1])
        for i in range(n):
            trial = values[:i] + [not values[i]] + values[i + 1 :]
            steps += 1
            broken, weight = score(meta, trial)
            if (-broken, weight) > best_key:
                best, best_key = i, (-broken, weight)
        if best is None:
            break
        values[best] = not values[best]
    return values, steps


def _clause(rng: np.random.Generator, n: int, width: int) -> Clause:
    chosen = rng.permutation(n)[:width]
    signs = rng.random(width) < 0.5
    return sorted(((int(v) + 1) * (1 if s else -1) for v, s in zip(chosen, signs, strict=True)), key=abs)


def draw_instance(
    knobs: MaxSatKnobs, rng: np.random.Generator
) -> tuple[dict[str, Any], list[bool], int, float]:
    n = knobs.variables
    for _ in range(500):
        hidden = [bool(b) for b in rng.random(n) < 0.5]
        hard: list[Clause] = []
        while len(hard) < knobs.hard:
            c = _clause(rng, n, knobs.hard_width)
            if clause_true(c, hidden) and c not in hard:
                hard.append(c)
        soft: list[list[Any]] = []
        while len(soft) < knobs.soft:
            c = _clause(rng, n, 1 + int(rng.random() < 0.5))
            if all(c != s[0] for s in soft):
                soft.append([c, int(rng.integers(1, knobs.max_weight + 1))])
        meta = {"variables": n, "hard": hard, "soft": soft}
        values, best, effort = z3_optimum(meta)
        if best == sum(w for _, w in soft):
            continue  # every soft clause satisfiable at once: no trade-off
        if knobs.variables * knobs.soft > 24:
            corners = [score(meta, [v] * n) for v in (True, False)]
            if any(b == 0 and w == best for b, w in corners):
                continue
        return meta, values, best, effort
    raise RuntimeError(f"could not draw a non-trivial MaxSAT instance for {knobs}")


PROMPT = """Weighted MaxSAT over the Boolean variables x1..x{n} ("∨" is or, "¬" is not).

Hard clauses (every one must be true):
{hard}

Soft clauses (weight in brackets):
{soft}

Find an assignment that makes every hard clause true and maximises the total weight of the true \
soft clauses. Several assignments may reach the maximum; any optimal one is accepted. Give a \
value to every variable, each exactly once, for example <answer>x1=true, x2=false, x3=true</answer>."""


def _names(n: int) -> list[str]:
    return [f"x{i}" for i in range(1, n + 1)]


@family(
    "maxsat",
    domain="formal",
    knobs=MaxSatKnobs,
    levels=LEVELS,
    description="Weighted partial MaxSAT with the optimum proven by z3 Optimize; any optimal assignment counts.",
    verifier_kind="exact evaluation against a z3-proven optimum",
)
class MaxSat(Family):
    def generate(self, knobs: MaxSatKnobs, rng: np.random.Generator) -> TaskDraft:
        meta, values, best, effort = draw_instance(knobs, rng)
        n = knobs.variables
        hard = "\n".join(f"H{i}. {render_clause(c)}" for i, c in enumerate(meta["hard"], 1)) or "(none)"
        soft = "\n".join(f"S{i}. {render_clause(c)}  [{w}]" for i, (c, w) in enumerate(meta["soft"], 1))
        meta.update(
            optimum=best,
            total_weight=sum(w for _, w in meta["soft"]),
            z3_effort=effort,
            canonical_hash=content_hash({"h": sorted(meta["hard"]), "s": sorted(meta["soft"])}),
        )
        return TaskDraft(
            prompt=PROMPT.format(n=n, hard=hard, soft=soft),
            answer=format_bool_assignment(_names(n), values),
            metadata=meta,
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        meta = dict(task.metadata)
        names = _names(meta["variables"])
        parsed, why = parse_bool_assignment(extraction.text, names, dimacs=True)
        if parsed is None:
            return Verdict.bad_format(why)
        values = [parsed[n] for n in names]
        for i, c in enumerate(meta["hard"], 1):
            if not clause_true(c, values):
                return Verdict.wrong(f"hard clause H{i} is false", parsed=parsed)
        _, weight = score(meta, values)
        if weight < meta["optimum"]:
            return Verdict.wrong(f"soft weight {weight} is below the optimum", parsed=parsed)
        if weight > meta["optimum"]:  # impossible unless the stored optimum is wrong
            return Verdict.failure(f"weight {weight} beats the proven optimum {meta['optimum']}")
        return Verdict.right(parsed=parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        meta = dict(task.metadata)
        values, _, effort = z3_optimum(meta)
        return SolverRun(
            f"<answer>{format_bool_assignment(_names(meta['variables']), values)}</answer>", effort
        )

    def solve_weak(self, task: Task) -> SolverRun:
        meta = dict(task.metadata)
        values, steps = weak_solve(meta)
        return SolverRun(
            f"<answer>{format_bool_assignment(_names(meta['variables']), values)}</answer>", float(steps)
        )

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = dict(task.metadata)
        n = meta["variables"]
        names = _names(n)
        good, _ = parse_bool_assignment(task.answer, names)
        assert good is not None
        base = [good[x] for x in names]
        out: list[str] = []
        flips = [[i] for i in range(n)] + [[i, j] for i in range(n) for j in range(i + 1, n)]
        for idx in rng.permutation(len(flips)):
            trial = list(base)
            for i in flips[int(idx)]:
                trial[i] = not trial[i]
            broken, weight = score(meta, trial)
            if broken or weight < meta["optimum"]:  # worse: not merely another optimum
                out.append(f"<answer>{format_bool_assignment(names, trial)}</answer>")
            if len(out) >= 3:
                break
        out.append(f"<answer>{format_bool_assignment(names[:-1], base[:-1])}</answer>")  # one missing
        return out
