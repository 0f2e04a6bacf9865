"""SMT model finding: integer values satisfying linear integer constraints or bitvector equations.

Each task is one theory, drawn per task when ``theory="mixed"``: linear integer arithmetic
(bounded variables, ``=``, ``≠``, ``≤``, ``≥`` over random linear forms) or fixed-width unsigned
bitvectors (``+ - * & | ^ <<`` of two variables compared to a constant, arithmetic mod 2^w).
Constraints are planted: each is drawn to hold for a hidden assignment, so a model exists.
Any model counts: the verifier parses ``x1=.., x2=..`` with its own scanner and substitutes the
values into every constraint with exact Python integers (no solver, no eval), so grading is
linear in the task size. The exact solver is z3 (effort: its deterministic resource count); the weak solver is a bounded min-conflicts local search from all zeros.
Instances that all-zero, all-one or the bound corners satisfy are rejected at levels > 2.
Generation keeps only draws z3 solves within a fixed resource budget (deterministic, so
rebuilds agree) and costs one z3 call; level 5 runs at about 100 tasks/s on a loaded core.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import z3

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.formal._common import parse_int_assignment, z3_effort
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

SOLVE_TIMEOUT_MS = 10_000
# Generation keeps only instances z3 solves within this deterministic resource budget, so
# generation time is bounded (a rare LIA draw with many disequalities costs z3 seconds).
GENERATION_RLIMIT = 250_000
BV_OPS = ("+", "-", "*", "&", "|", "^", "<<")
LIA_OPS = ("=", "≠", "≤", "≥")
BV_RELS = ("=", "≠", "≤u", "≥u")


@dataclass(frozen=True)
class SmtKnobs(Knobs):
    theory: str = knob(
        "mixed",
        choices=("lia", "bv", "mixed"),
        help="linear integer arithmetic, bitvectors, or either per task",
    )
    variables: int = knob(2, low=1, high=12, help="number of variables x1..xn")
    constraints: int = knob(2, low=1, high=30, help="number of constraints (besides the bounds)")
    terms: int = knob(2, low=1, high=6, help="variables per linear constraint (LIA)")
    coefficient: int = knob(3, low=1, high=50, help="LIA coefficients are drawn from [-c, c] without 0")
    bound: int = knob(5, low=1, high=1000, help="LIA variables range over [-bound, bound]")
    width: int = knob(4, low=2, high=32, help="bitvector width in bits")
    equality_share: float = knob(0.3, low=0.0, high=1.0, help="share of constraints that are equalities")
    slack: int = knob(5, low=0, high=100, help="largest slack of a planted inequality (small = tight)")

    def validate(self) -> None:
        if self.terms > self.variables:
            raise ValueError("terms cannot exceed the number of variables")


LEVELS = {
    1: SmtKnobs(variables=2, constraints=2, terms=1, bound=5, width=3, equality_share=0.2, slack=4),
    2: SmtKnobs(variables=2, constraints=3, terms=2, bound=8, width=4, equality_share=0.3, slack=4),
    3: SmtKnobs(variables=3, constraints=4, terms=2, bound=12, width=5, equality_share=0.3, slack=3),
    4: SmtKnobs(
        variables=4, constraints=5, terms=3, coefficient=5, bound=20, width=6, equality_share=0.35, slack=3
    ),
    5: SmtKnobs(
        variables=5, constraints=6, terms=3, coefficient=7, bound=30, width=8, equality_share=0.4, slack=2
    ),
    6: SmtKnobs(
        variables=6, constraints=8, terms=3, coefficient=9, bound=50, width=8, equality_share=0.45, slack=2
    ),
    7: SmtKnobs(
        variables=7, constraints=10, terms=4, coefficient=12, bound=100, width=10, equality_share=0.5, slack=2
    ),
    8: SmtKnobs(
        variables=8, constraints=12, terms=4, coefficient=15, bound=200, width=12, equality_share=0.5, slack=1
    ),
    9: SmtKnobs(
        variables=9,
        constraints=14,
        terms=5,
        coefficient=20,
        bound=400,
        width=14,
        equality_share=0.55,
        slack=1,
    ),
    10: SmtKnobs(
        variables=10,
        constraints=16,
        terms=5,
        coefficient=25,
        bound=800,
        width=16,
        equality_share=0.6,
        slack=1,
    ),
}


# --------------------------------------------------------------------------------------------
# Constraints as JSON and their exact evaluation
# --------------------------------------------------------------------------------------------


def bv_apply(op: str, a: int, b: int, width: int) -> int:
    mask = (1 << width) - 1
    if op == "+":
        return (a + b) & mask
    if op == "-":
        return (a - b) & mask
    if op == "*":
        return (a * b) & mask
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op == "<<":
        return (a << b) & mask if b < width else 0
    raise ValueError(f"unknown bitvector operator {op!r}")


def _compare(rel: str, left: int, right: int) -> bool:
    if rel == "=":
        return left == right
    if rel == "≠":
        return left != right
    if rel in ("≤", "≤u"):
        return left <= right
    return left >= right


def holds(constraint: dict[str, Any], values: list[int], width: int) -> bool:
    """Does one constraint hold for ``values`` (``values[i]`` is x(i+1))?"""
    if constraint["kind"] == "lin":
        left = sum(c * values[i] for i, c in constraint["terms"])
    else:
        left = bv_apply(constraint["op"], values[constraint["a"]], values[constraint["b"]], width)
    return _compare(constraint["rel"], left, constraint["rhs"])


def in_domain(meta: dict[str, Any], v: int) -> bool:
    if meta["theory"] == "lia":
        return -meta["bound"] <= v <= meta["bound"]
    return 0 <= v < (1 << meta["width"])


def render_constraint(constraint: dict[str, Any]) -> str:
    if constraint["kind"] == "lin":
        text = ""
        for k, (i, c) in enumerate(constraint["terms"]):
            sign = "-" if c < 0 else ("+" if k else "")
            mag = "" if abs(c) == 1 else f"{abs(c)}·"
            text += (f" {sign} " if k else sign) + f"{mag}x{i + 1}"
        return f"{text} {constraint['rel']} {constraint['rhs']}"
    return f"(x{constraint['a'] + 1} {constraint['op']} x{constraint['b'] + 1}) {constraint['rel']} {constraint['rhs']}"


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def _draw_rel(knobs: SmtKnobs, rng: np.random.Generator, rels: tuple[str, ...]) -> str:
    if rng.random() < knobs.equality_share:
        return rels[0]
    return rels[1 + int(rng.integers(3))]


def _lia_constraint(knobs: SmtKnobs, rng: np.random.Generator, hidden: list[int]) -> dict[str, Any]:
    chosen = sorted(int(v) for v in rng.permutation(knobs.variables)[: knobs.terms])
    coefs = [
        int(c) * (1 if rng.random() < 0.5 else -1)
        for c in rng.integers(1, knobs.coefficient + 1, len(chosen))
    ]
    value = sum(c * hidden[i] for i, c in zip(chosen, coefs, strict=True))
    rel = _draw_rel(knobs, rng, LIA_OPS)
    slack = int(rng.integers(0, knobs.slack + 1))
    rhs = {
        "=": value,
        "≠": value + (slack + 1) * (1 if rng.random() < 0.5 else -1),
        "≤": value + slack,
        "≥": value - slack,
    }[rel]
    return {
        "kind": "lin",
        "terms": [[i, c] for i, c in zip(chosen, coefs, strict=True)],
        "rel": rel,
        "rhs": rhs,
    }


def _bv_constraint(knobs: SmtKnobs, rng: np.random.Generator, hidden: list[int]) -> dict[str, Any]:
    n = knobs.variables
    a = int(rng.integers(n))
    b = int(rng.integers(n - 1)) if n > 1 else 0
    b = b + 1 if n > 1 and b >= a else b
    op = BV_OPS[int(rng.integers(len(BV_OPS)))]
    value = bv_apply(op, hidden[a], hidden[b], knobs.width)
    rel = _draw_rel(knobs, rng, BV_RELS)
    top = (1 << knobs.width) - 1
    slack = int(rng.integers(0, knobs.slack + 1))
    if rel == "≠":
        rhs = (value + slack + 1) & top
    elif rel == "≤u":
        rhs = min(top, value + slack)
    elif rel == "≥u":
        rhs = max(0, value - slack)
    else:
        rhs = value
    return {"kind": "bv", "op": op, "a": a, "b": b, "rel": rel, "rhs": rhs}


def _trivial_candidates(theory: str, knobs: SmtKnobs) -> list[list[int]]:
    n = knobs.variables
    if theory == "lia":
        return [[0] * n, [1] * n, [-1] * n, [knobs.bound] * n, [-knobs.bound] * n]
    return [[0] * n, [1] * n, [(1 << knobs.width) - 1] * n]


def draw_instance(knobs: SmtKnobs, rng: np.random.Generator) -> tuple[str, list[dict[str, Any]], list[int]]:
    for _ in range(2000):
        theory = knobs.theory if knobs.theory != "mixed" else ("lia", "bv")[int(rng.integers(2))]
        if theory == "lia":
            hidden = [int(v) for v in rng.integers(-knobs.bound, knobs.bound + 1, knobs.variables)]
            cons = [_lia_constraint(knobs, rng, hidden) for _ in range(knobs.constraints)]
        else:
            hidden = [int(v) for v in rng.integers(0, 1 << knobs.width, knobs.variables)]
            cons = [_bv_constraint(knobs, rng, hidden) for _ in range(knobs.constraints)]
        keys = {content_hash(c) for c in cons}
        if len(keys) < len(cons):
            continue  # a repeated constraint is a wasted line
        trivial = any(
            all(holds(c, cand, knobs.width) for c in cons) for cand in _trivial_candidates(theory, knobs)
        )
        if trivial and knobs.variables * knobs.constraints > 6:
            continue
        return theory, cons, hidden
    raise RuntimeError(f"could not draw a non-trivial instance for {knobs}")


# --------------------------------------------------------------------------------------------
# Solvers
# --------------------------------------------------------------------------------------------


def z3_solve(meta: dict[str, Any], rlimit: int = 0) -> tuple[list[int] | None, float]:
    """A model found by z3 (or None on timeout / resource limit) and z3's effort."""
    ctx = z3.Context()
    n, width = meta["variables"], meta["width"]
    solver = z3.Solver(ctx=ctx)
    solver.set("timeout", SOLVE_TIMEOUT_MS)
    if rlimit:
        solver.set("rlimit", rlimit)
    if meta["theory"] == "lia":
        xs = [z3.Int(f"x{i + 1}", ctx) for i in range(n)]
        for x in xs:
            solver.add(x >= -meta["bound"], x <= meta["bound"])
    else:
        xs = [z3.BitVec(f"x{i + 1}", width, ctx) for i in range(n)]
    for c in meta["constraints"]:
        if c["kind"] == "lin":
            left = z3.Sum([coef * xs[i] for i, coef in c["terms"]])
            right = z3.IntVal(c["rhs"], ctx)
        else:
            a, b = xs[c["a"]], xs[c["b"]]
            left = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b, "<<": a << b}[
                c["op"]
            ]
            right = z3.BitVecVal(c["rhs"], width, ctx)
        rel = c["rel"]
        if rel == "=":
            solver.add(left == right)
        elif rel == "≠":
            solver.add(left != right)
        elif rel == "≤":
            solver.add(left <= right)
        elif rel == "≥":
            solver.add(left >= right)
        elif rel == "≤u":
            solver.add(z3.ULE(left, right))
        else:
            solver.add(z3.UGE(left, right))
    if solver.check() != z3.sat:
        return None, z3_effort(solver)
    model = solver.model()
    values = [model.eval(x, model_completion=True).as_long() for x in xs]
    return values, z3_effort(solver)


def weak_solve(meta: dict[str, Any], budget: int) -> tuple[list[int] | None, int]:
    """Min-conflicts from all zeros: each move sets one variable of the first broken constraint
    to the value (among a few candidates) that breaks fewest constraints; no restarts."""
    n, width, cons = meta["variables"], meta["width"], meta["constraints"]
    values = [0] * n
    steps = 0
    for _ in range(budget):
        broken = [c for c in cons if not holds(c, values, width)]
        if not broken:
            return values, steps
        first = broken[0]
        scope = [i for i, _ in first["terms"]] if first["kind"] == "lin" else [first["a"], first["b"]]
        best: tuple[int, int, int] | None = None
        for i in scope:
            for delta in (-1, 1, -8, 8):
                v = values[i] + delta
                if not in_domain(meta, v):
                    continue
                trial = values[:i] + [v] + values[i + 1 :]
                steps += 1
                score = sum(not holds(c, trial, width) for c in cons)
                if best is None or score < best[0]:
                    best = (score, i, v)
        if best is None:
            break
        values[best[1]] = best[2]
    return (values, steps) if all(holds(c, values, width) for c in cons) else (None, steps)


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

LIA_PROMPT = """Find integer values for x1..x{n} that satisfy every constraint below. Each variable \
is an integer with -{bound} ≤ xi ≤ {bound}; "·" is multiplication.

{lines}

Any satisfying assignment is accepted. Give every variable exactly once as a decimal integer, for \
example <answer>x1 = 3, x2 = -7</answer>."""

BV_PROMPT = """Find values for the {width}-bit unsigned bitvectors x1..x{n} (each an integer \
0 ≤ xi < {size}) that satisfy every constraint below. Arithmetic wraps modulo 2^{width}: "+", "-", \
"*" are modular, "&", "|", "^" are bitwise and/or/xor, "a << b" shifts left by b bits (0 when \
b ≥ {width}), and "≤u"/"≥u" compare as unsigned numbers.

{lines}

Any satisfying assignment is accepted. Give every variable exactly once as an unsigned integer \
(decimal, 0x hex or 0b binary), for example <answer>x1 = 5, x2 = 0x1f</answer>."""


def _names(n: int) -> list[str]:
    return [f"x{i}" for i in range(1, n + 1)]


def _format(values: list[int]) -> str:
    return ", ".join(f"x{i} = {v}" for i, v in enumerate(values, start=1))


@family(
    "smt_model",
    domain="formal",
    knobs=SmtKnobs,
    levels=LEVELS,
    description="Find any model of planted linear-integer or bitvector constraints (checked by substitution).",
    verifier_kind="constraint check by exact substitution (any model)",
)
class SmtModel(Family):
    def generate(self, knobs: SmtKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(100):
            theory, cons, hidden = draw_instance(knobs, rng)
            meta = {
                "theory": theory,
                "variables": knobs.variables,
                "bound": knobs.bound,
                "width": knobs.width,
                "constraints": cons,
            }
            values, effort = z3_solve(meta, rlimit=GENERATION_RLIMIT)
            if values is not None:
                break
        else:
            raise RuntimeError(f"z3 needed more than its generation budget on every draw for {knobs}")
        lines = "\n".join(f"{k}. {render_constraint(c)}" for k, c in enumerate(cons, start=1))
        if theory == "lia":
            prompt = LIA_PROMPT.format(n=knobs.variables, bound=knobs.bound, lines=lines)
        else:
            prompt = BV_PROMPT.format(
                n=knobs.variables, width=knobs.width, size=1 << knobs.width, lines=lines
            )
        meta["z3_effort"] = effort
        meta["canonical_hash"] = content_hash({"theory": theory, "c": sorted(content_hash(c) for c in cons)})
        return TaskDraft(prompt=prompt, answer=_format(hidden), metadata=meta)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        meta = dict(task.metadata)
        names = _names(meta["variables"])
        parsed, why = parse_int_assignment(extraction.text, names)
        if parsed is None:
            return Verdict.bad_format(why)
        values = [parsed[n] for n in names]
        for name, v in zip(names, values, strict=True):
            if not in_domain(meta, v):
                domain = (
                    f"[-{meta['bound']}, {meta['bound']}]"
                    if meta["theory"] == "lia"
                    else f"[0, {(1 << meta['width']) - 1}]"
                )
                return Verdict.wrong(f"{name} = {v} is outside its domain {domain}", parsed=parsed)
        for k, c in enumerate(meta["constraints"], start=1):
            if not holds(c, values, meta["width"]):
                return Verdict.wrong(f"constraint {k} ({render_constraint(c)}) is false", parsed=parsed)
        return Verdict.right(parsed=parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        values, effort = z3_solve(dict(task.metadata))
        if values is None:
            raise RuntimeError("z3 found no model within its time limit")
        return SolverRun(f"<answer>{_format(values)}</answer>", effort)

    def solve_weak(self, task: Task) -> SolverRun:
        meta = dict(task.metadata)
        values, steps = weak_solve(meta, budget=4 * meta["variables"])
        return SolverRun(None if values is None else f"<answer>{_format(values)}</answer>", float(steps))

    def reference_response(self, task: Task) -> str:
        return f"<answer>{task.answer}</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = dict(task.metadata)
        names = _names(meta["variables"])
        good, _ = parse_int_assignment(task.answer, names)
        assert good is not None
        base = [good[n] for n in names]
        wrong: list[list[int]] = []
        # non-models near the reference: move one variable, or jump to a domain corner
        low, high = (
            (-meta["bound"], meta["bound"]) if meta["theory"] == "lia" else (0, (1 << meta["width"]) - 1)
        )
        moves = [(i, base[i] + d) for d in (1, -1, 2, -2, 3, -5, 7) for i in range(len(base))]
        moves += [(i, v) for i in range(len(base)) for v in (low, high, 0)]
        for i, v in moves:
            trial = base[:i] + [v] + base[i + 1 :]
            if not in_domain(meta, v) or trial in wrong:
                continue
            if not all(holds(d, trial, meta["width"]) for d in meta["constraints"]):
                wrong.append(trial)
            if len(wrong) >= 3:
                break
        out = [f"<answer>{_format(w)}</answer>" for w in wrong[:3]]
        out.append(f"<answer>{_format(base[:-1])}</answer>")  # a variable missing
        out.append(f"<answer>{_format(base)}, x1 = {base[0]}</answer>")  # a variable twice
        top = meta["bound"] + 1 if meta["theory"] == "lia" else 1 << meta["width"]
        out.append(f"<answer>{_format([top] + base[1:])}</answer>")  # outside the domain
        return out
