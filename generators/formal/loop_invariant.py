"""Loop-invariant synthesis: give an inductive invariant that proves a loop's postcondition.

Programs are counting loops ``x := 0; y_i := c_i; while (x < n) { x := x + 1; y_i := y_i + a_i }``
under the precondition ``n ≥ 0`` (at higher levels some updates read another accumulator's
step twice, and the postcondition is a weighted sum of the accumulators, so the invariant must
relate every variable to ``x``). The answer is parsed by our own restricted expression parser
(integers, program variables, + - *, comparisons, and/or/not/implies, parentheses; bounded size
and depth) into z3 terms, and z3 checks initiation, consecution and sufficiency, each with a
timeout (a timeout is a ``Verdict`` with ``error``). Any invariant that passes all three counts.
Exact solver: the template invariant ``0 ≤ x ≤ n ∧ y_i = c_i + a_i·x`` (effort: z3's resource
count to check it); weak solver: the postcondition with n replaced by x, which fails when
a step is read from a variable ``s_i`` (knob ``indirect``) whose value the invariant must pin.
Level 5 generates at ~3000 tasks/s (no solver at generation).
"""

from __future__ import annotations

import re
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
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MAX_TOKENS = 2000  # hoare_triple references reach 448 tokens at level 10; rewritings add parentheses
MAX_DEPTH = 60
_TOKEN = re.compile(r"\s*(\d{1,18}|[A-Za-z_][A-Za-z_0-9]*|==|!=|<=|>=|=>|->|&&|\|\||[-+*()<>=!¬∧∨≤≥≠⇒])")
_WORDS = {
    "and": "&&",
    "or": "||",
    "not": "!",
    "∧": "&&",
    "∨": "||",
    "¬": "!",
    "≤": "<=",
    "≥": ">=",
    "≠": "!=",
    "⇒": "=>",
    "->": "=>",
    "implies": "=>",
    "=": "==",
}


@dataclass(frozen=True)
class InvariantKnobs(Knobs):
    accumulators: int = knob(1, low=1, high=5, help="number of accumulator variables y1..yk")
    max_step: int = knob(2, low=1, high=20, help="accumulator steps a_i are drawn from [-s, s] without 0")
    max_init: int = knob(3, low=0, high=50, help="initial values c_i are drawn from [-c, c]")
    combined_post: bool = knob(False, help="postcondition is one weighted sum of the accumulators")
    indirect: float = knob(
        0.0, low=0.0, high=1.0, help="chance that a step is read from a variable s_i set before the loop"
    )


LEVELS = {
    1: InvariantKnobs(accumulators=1, max_step=3, max_init=3, indirect=0),
    2: InvariantKnobs(accumulators=1, max_step=5, max_init=6, combined_post=True, indirect=0),
    3: InvariantKnobs(accumulators=2, max_step=5, max_init=9, combined_post=True, indirect=0.1),
    4: InvariantKnobs(accumulators=2, max_step=5, max_init=5, combined_post=True, indirect=0.15),
    5: InvariantKnobs(accumulators=3, max_step=5, max_init=5, indirect=0.2),
    6: InvariantKnobs(accumulators=3, max_step=7, max_init=9, combined_post=True, indirect=0.3),
    7: InvariantKnobs(accumulators=4, max_step=7, max_init=9, indirect=0.4),
    8: InvariantKnobs(accumulators=4, max_step=9, max_init=15, combined_post=True, indirect=0.5),
    9: InvariantKnobs(accumulators=5, max_step=12, max_init=20, combined_post=True, indirect=0.6),
    10: InvariantKnobs(accumulators=5, max_step=20, max_init=40, combined_post=True, indirect=0.7),
}


# --------------------------------------------------------------------------------------------
# The restricted expression parser: text -> z3 term over known variables only
# --------------------------------------------------------------------------------------------


class ParseError(ValueError):
    pass


def tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise ParseError(f"unexpected character {text[pos : pos + 10]!r}")
        tok = match.group(1)
        tokens.append(_WORDS.get(tok.lower(), tok) if not tok.isdigit() else tok)
        pos = match.end()
        if len(tokens) > MAX_TOKENS:
            raise ParseError(f"the invariant is longer than {MAX_TOKENS} tokens")
    return tokens


class ExpressionParser:
    """implies < or < and < not < comparison < sum < product < unary < atom."""

    def __init__(self, tokens: list[str], env: dict[str, z3.ArithRef]) -> None:
        self.tokens, self.pos, self.env, self.depth = tokens, 0, env, 0
        self.ctx = next(iter(env.values())).ctx

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise ParseError(f"expected {expected or 'more input'}, found {tok!r}")
        self.pos += 1
        return tok

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError("the invariant is nested too deeply")

    def formula(self) -> z3.BoolRef:
        self.enter()
        left = self.disjunction()
        if self.peek() == "=>":
            self.take()
            left = z3.Implies(left, self.formula())
        self.depth -= 1
        return left

    def disjunction(self) -> z3.BoolRef:
        parts = [self.conjunction()]
        while self.peek() == "||":
            self.take()
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else z3.Or(parts)

    def conjunction(self) -> z3.BoolRef:
        parts = [self.negation()]
        while self.peek() == "&&":
            self.take()
            parts.append(self.negation())
        return parts[0] if len(parts) == 1 else z3.And(parts)

    def negation(self) -> z3.BoolRef:
        if self.peek() == "!":
            self.take()
            self.enter()
            inner = z3.Not(self.negation())
            self.depth -= 1
            return inner
        if self.peek() in ("true", "false"):
            return z3.BoolVal(self.take() == "true", self.ctx)
        if self.peek() == "(" and self._parenthesised_formula():
            self.take("(")
            inner = self.formula()
            self.take(")")
            return inner
        return self.comparison()

    def _parenthesised_formula(self) -> bool:
        # "(" opens a formula when a logical operator or comparison appears at its depth
        depth = 0
        for tok in self.tokens[self.pos :]:
            if tok == "(":
                depth += 1
            elif tok == ")":
                depth -= 1
                if depth == 0:
                    return False
            elif depth == 1 and tok in ("&&", "||", "=>", "==", "!=", "<", "<=", ">", ">=", "!"):
                return True
        return False

    def comparison(self) -> z3.BoolRef:
        left = self.sum()
        ops = {
            "==": lambda a, b: a == b,
            "!=": lambda a, b: a != b,
            "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b,
            ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b,
        }
        if self.peek() not in ops:
            raise ParseError(f"expected a comparison, found {self.peek()!r}")
        parts = [left]
        rels = []
        while self.peek() in ops:
            rels.append(ops[self.take()])
            parts.append(self.sum())
        chain = [rel(a, b) for rel, a, b in zip(rels, parts, parts[1:], strict=False)]  # 0 <= x <= n
        return chain[0] if len(chain) == 1 else z3.And(chain)

    def sum(self) -> z3.ArithRef:
        value = self.product()
        while self.peek() in ("+", "-"):
            op = self.take()
            right = self.product()
            value = value + right if op == "+" else value - right
        return value

    def product(self) -> z3.ArithRef:
        value = self.unary()
        while self.peek() == "*":
            self.take()
            value = value * self.unary()
        return value

    def unary(self) -> z3.ArithRef:
        if self.peek() == "-":
            self.take()
            self.enter()
            inner = -self.unary()
            self.depth -= 1
            return inner
        tok = self.take()
        if tok.isdigit():
            return z3.IntVal(int(tok), self.ctx)
        if tok == "(":
            self.enter()
            inner = self.sum()
            self.take(")")
            self.depth -= 1
            return inner
        if tok in self.env:
            return self.env[tok]
        raise ParseError(f"unknown name {tok!r}; use only {', '.join(self.env)}")


def parse_invariant(text: str, env: dict[str, z3.ArithRef]) -> z3.BoolRef:
    parser = ExpressionParser(tokenize(text), env)
    if not parser.tokens:
        raise ParseError("empty invariant")
    result = parser.formula()
    if parser.peek() is not None:
        raise ParseError(f"unexpected {parser.peek()!r} after the invariant")
    return result


# --------------------------------------------------------------------------------------------
# Programs and their verification conditions
# --------------------------------------------------------------------------------------------


def _names(meta: dict[str, Any]) -> list[str]:
    k = meta["accumulators"]
    return [
        "x",
        "n",
        *[f"y{i}" for i in range(1, k + 1)],
        *[f"s{i + 1}" for i in range(k) if meta["indirect"][i]],
    ]


def post_text(meta: dict[str, Any]) -> str:
    k = meta["accumulators"]
    if meta["weights"] is None:
        return " ∧ ".join([*(f"y{i + 1} == {meta['init'][i]} + {meta['steps'][i]} * n" for i in range(k))])
    w = meta["weights"]
    left = " + ".join(f"{w[i]} * y{i + 1}" for i in range(k))
    const = sum(w[i] * meta["init"][i] for i in range(k))
    coef = sum(w[i] * meta["steps"][i] for i in range(k))
    return f"{left} == {const} + {coef} * n"


def conditions(
    meta: dict[str, Any], inv_text: str, ctx: z3.Context | None = None
) -> list[tuple[str, z3.BoolRef]]:
    """The three verification conditions as (name, claim), in ``ctx`` (default: a fresh one,
    so effort counts never depend on earlier calls)."""
    ctx_vars = _names(meta)
    ctx = ctx or z3.Context()
    cur = {v: z3.Int(v, ctx) for v in ctx_vars}
    nxt = {v: z3.Int(v + "'", ctx) for v in ctx_vars}
    inv = parse_invariant(inv_text, cur)
    inv_next = parse_invariant(inv_text, nxt)
    post = parse_invariant(post_text(meta).replace("∧", "&&"), cur)
    k = meta["accumulators"]
    ind = meta["indirect"]
    init = z3.And(
        [cur["n"] >= 0, cur["x"] == 0]
        + [cur[f"y{i + 1}"] == meta["init"][i] for i in range(k)]
        + [cur[f"s{i + 1}"] == meta["steps"][i] for i in range(k) if ind[i]]
    )
    step = z3.And(
        [nxt["n"] == cur["n"], nxt["x"] == cur["x"] + 1]
        + [
            nxt[f"y{i + 1}"] == cur[f"y{i + 1}"] + (cur[f"s{i + 1}"] if ind[i] else meta["steps"][i])
            for i in range(k)
        ]
        + [nxt[f"s{i + 1}"] == cur[f"s{i + 1}"] for i in range(k) if ind[i]]
    )
    guard = cur["x"] < cur["n"]
    return [
        ("initiation (the invariant holds on entry)", z3.Implies(init, inv)),
        ("consecution (one loop iteration preserves it)", z3.Implies(z3.And(inv, guard, step), inv_next)),
        ("sufficiency (on exit it implies the postcondition)", z3.Implies(z3.And(inv, z3.Not(guard)), post)),
    ]


def check_invariant(
    meta: dict[str, Any], inv_text: str, timeout_ms: int = VERIFY_TIMEOUT_MS
) -> tuple[Verdict, float]:
    try:
        claims = conditions(meta, inv_text)
    except (ParseError, z3.Z3Exception) as exc:
        return Verdict.bad_format(f"cannot read the invariant: {exc}"), 0.0
    effort = 0.0
    for name, claim in claims:
        outcome, shown, spent = prove_valid(claim, timeout_ms)
        effort += spent
        if outcome == "counterexample":
            return Verdict.wrong(f"{name} fails, e.g. at {shown}", parsed=inv_text), effort
        if outcome == "unknown":
            return Verdict.timed_out(
                reason="the verifier could not decide in time", error=f"z3 gave up checking {name}"
            ), effort
    return Verdict.right(parsed=inv_text), effort


def verify_invariant(meta: dict[str, Any], inv_text: str, timeout_ms: int = VERIFY_TIMEOUT_MS) -> Verdict:
    """The verdict on ``inv_text``, decided in this thread's reused z3 context: the reason names
    the first condition that fails (no counterexample: see ``thread_context``)."""
    try:
        claims = conditions(meta, inv_text, thread_context())
    except (ParseError, z3.Z3Exception) as exc:
        return Verdict.bad_format(f"cannot read the invariant: {exc}")
    return verdict_on_conditions(
        claims, inv_text, fails="{name} fails", gives_up="z3 gave up checking {name}", timeout_ms=timeout_ms
    )


def reference_invariant(meta: dict[str, Any]) -> str:
    k = meta["accumulators"]
    parts = [
        "0 <= x",
        "x <= n",
        *(f"y{i + 1} == {meta['init'][i]} + {meta['steps'][i]} * x" for i in range(k)),
    ]
    parts += [f"s{i + 1} == {meta['steps'][i]}" for i in range(k) if meta["indirect"][i]]
    return " && ".join(parts)


PROMPT = """Find a loop invariant that proves this program correct. All variables are \
mathematical integers.

  precondition: n >= 0
{body}
  postcondition: {post}

An invariant I over x, n, {ys} is accepted when z3 proves all three: (1) I holds when the loop \
is first reached, (2) if I holds and x < n, then I holds after one iteration, and (3) if I holds \
and x >= n, the postcondition holds. Many invariants work; any one is accepted. Write it with \
integers, the program variables, + - *, comparisons (== != < <= > >=), and/or/not (also && || !), \
=> and parentheses, for example <answer>x >= 0 && y1 == 2 + 3 * x</answer> (format only)."""


def render_program(meta: dict[str, Any]) -> str:
    k = meta["accumulators"]
    ind = meta["indirect"]
    inits = "; ".join(
        [
            "x := 0",
            *(f"y{i + 1} := {meta['init'][i]}" for i in range(k)),
            *(f"s{i + 1} := {meta['steps'][i]}" for i in range(k) if ind[i]),
        ]
    )
    updates = "; ".join(
        [
            "x := x + 1",
            *(f"y{i + 1} := y{i + 1} + {f's{i + 1}' if ind[i] else meta['steps'][i]}" for i in range(k)),
        ]
    )
    return f"  {inits};\n  while (x < n) {{\n    {updates};\n  }}"


@family(
    "loop_invariant",
    version=2,  # v2: level 3 draws larger steps and start values (28.7% duplicates among 2,000 in v1)
    domain="formal",
    knobs=InvariantKnobs,
    levels=LEVELS,
    description="Synthesise an inductive loop invariant; z3 checks initiation, consecution, sufficiency.",
    verifier_kind="z3 check of the three verification conditions (any invariant)",
)
class LoopInvariant(Family):
    def generate(self, knobs: InvariantKnobs, rng: np.random.Generator) -> TaskDraft:
        k = knobs.accumulators
        steps = [int(a) * (1 if rng.random() < 0.5 else -1) for a in rng.integers(1, knobs.max_step + 1, k)]
        init = [int(c) for c in rng.integers(-knobs.max_init, knobs.max_init + 1, k)]
        weights = None
        while knobs.combined_post:
            weights = [int(w) * (1 if rng.random() < 0.5 else -1) for w in rng.integers(1, 4, k)]
            if sum(w * a for w, a in zip(weights, steps, strict=True)) != 0:
                break  # a zero coefficient of n would make the bound x <= n unnecessary
        indirect = [bool(b) for b in rng.random(k) < knobs.indirect]
        meta = {"accumulators": k, "steps": steps, "init": init, "weights": weights, "indirect": indirect}
        meta["canonical_hash"] = content_hash([steps, init, weights, indirect])
        ys = ", ".join(_names(meta)[2:])
        prompt = PROMPT.format(body=render_program(meta), post=post_text(meta), ys=ys)
        return TaskDraft(prompt=prompt, answer=reference_invariant(meta), metadata=meta)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        return verify_invariant(dict(task.metadata), extraction.text)

    def solve_exact(self, task: Task) -> SolverRun:
        meta = dict(task.metadata)
        inv = reference_invariant(meta)
        _, effort = check_invariant(meta, inv)
        return SolverRun(f"<answer>{inv}</answer>", effort)

    def solve_weak(self, task: Task) -> SolverRun:
        # the postcondition with n replaced by x, plus the loop bound
        meta = dict(task.metadata)
        guess = "x <= n && " + post_text(meta).replace("∧", "&&").replace("* n", "* x")
        return SolverRun(f"<answer>{guess}</answer>", 1.0)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = dict(task.metadata)
        k = meta["accumulators"]
        ref = reference_invariant(meta)
        off = ref.replace(f"y1 == {meta['init'][0]} +", f"y1 == {meta['init'][0] + 1} +", 1)
        no_bound = ref.replace("x <= n && ", "", 1)  # not sufficient: x may overshoot n
        too_weak = "0 <= x && x <= n"
        wrong_step = ref.replace(
            f"y{k} == {meta['init'][k - 1]} + {meta['steps'][k - 1]} * x",
            f"y{k} == {meta['init'][k - 1]} + {meta['steps'][k - 1] + 1} * x",
            1,
        )
        return [f"<answer>{t}</answer>" for t in (off, no_bound, too_weak, wrong_step)]
