"""Private helpers shared by the formal families: answer parsers, clause rendering, z3 budgets.

Every parser here is a small hand-written scanner over model text: nothing is evaluated, every
number is length-capped before ``int()`` sees it, and every error is a message, never a guess.
Every z3 call made for a verdict gets an explicit timeout, so a pathological submission costs
at most that timeout. Generation and the reference solvers build a fresh context per check (their
effort counts must not depend on history); verification reuses one context per thread
(:func:`thread_context`) and reads only decisions from it (:func:`decide_valid`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

import z3

from palaestra.core import Verdict
from palaestra.verifiers.numbers import fold_lookalikes

VERIFY_TIMEOUT_MS = 5_000  # per z3 call made while grading one response
MAX_NUMBER_DIGITS = 40
Clause = list[int]

# Matched only where the previous pair ended (never searched for), so a scan is linear even on
# 100k letters: a search would retry the greedy name at every position, quadratic in the text.
_PAIR = re.compile(r"([A-Za-z_][A-Za-z_0-9]*)(?:\s*(?::=|=|:)\s*|\s+is\s+)([+\-\u2212]?\s*[0-9A-Za-z_]+)")
_JUNK = re.compile(r"(?:[\s,;{}\[\]()\"'`]+|\band\b)+")


def parse_int_token(token: str) -> int | None:
    """A signed decimal, ``0x`` hex or ``0b`` binary integer; ``None`` if not one or too long."""
    text = fold_lookalikes(token).replace(" ", "").replace("\u2212", "-")
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    if not body or len(body) > MAX_NUMBER_DIGITS + 2:
        return None
    low = body.lower()
    if re.fullmatch(r"0x[0-9a-f]+", low):
        return sign * int(low[2:], 16)
    if re.fullmatch(r"0b[01]+", low):
        return sign * int(low[2:], 2)
    if re.fullmatch(r"[0-9]+", low) and len(low) <= MAX_NUMBER_DIGITS:
        return sign * int(low)
    return None


def parse_int_assignment(text: str, names: Sequence[str]) -> tuple[dict[str, int] | None, str]:
    """``({name: int}, "")`` from ``x1 = 3, x2 = -5`` (JSON-ish braces and quotes allowed)."""
    lookup = {n.lower(): n for n in names}
    text = re.sub(r"[\"'`]", " ", fold_lookalikes(text))  # JSON-quoted names
    values: dict[str, int] = {}
    pos = 0
    while True:
        if junk := _JUNK.match(text, pos):
            pos = junk.end()
        if pos >= len(text):
            break
        match = _PAIR.match(text, pos)
        if match is None:
            return None, f"unexpected text {text[pos:].strip()[:30]!r}"
        pos = match.end()
        name = lookup.get(match.group(1).lower())
        if name is None:
            return None, f"unknown variable {match.group(1)[:20]!r}"
        value = parse_int_token(match.group(2))
        if value is None:
            return (
                None,
                f"{name}: {match.group(2)[:30]!r} is not an integer of at most {MAX_NUMBER_DIGITS} digits",
            )
        if name in values:
            return None, f"{name} is given more than once"
        values[name] = value
    missing = [n for n in names if n not in values]
    if missing:
        return None, f"no value for {', '.join(missing[:5])}" + (" ..." if len(missing) > 5 else "")
    return values, ""


def parse_index_set(text: str, count: int) -> tuple[list[int] | None, str]:
    """Distinct clause numbers 1..count from ``1, 4, 7`` / ``{C1, C4}`` / ``[1 4 7]``."""
    tokens = [t for t in re.split(r"[\s,;{}\[\]()]+|\band\b", fold_lookalikes(text)) if t]
    out: list[int] = []
    for token in tokens:
        body = token[1:] if token[:1] in "cC#" else token
        if not (body.isascii() and body.isdigit()) or len(body) > 9:  # '²'.isdigit(): int() raises
            return None, f"{token[:20]!r} is not a clause number"
        k = int(body)
        if not 1 <= k <= count:
            return None, f"clause {k} does not exist (1..{count})"
        if k in out:
            return None, f"clause {k} is listed twice"
        out.append(k)
    if not out:
        return None, "no clause numbers"
    return out, ""


def render_literal(lit: int) -> str:
    return ("" if lit > 0 else "¬") + f"x{abs(lit)}"


def render_clause(clause: Sequence[int]) -> str:
    return " ∨ ".join(render_literal(lit) for lit in clause) if clause else "⊥"


def z3_clauses_status(clauses: Sequence[Sequence[int]], timeout_ms: int) -> tuple[str, list[bool] | None]:
    """``("sat", model) | ("unsat", None) | ("unknown", None)`` for a clause set, in a fresh context."""
    ctx = z3.Context()
    solver = z3.Solver(ctx=ctx)
    solver.set("timeout", int(timeout_ms))
    n = max((abs(lit) for c in clauses for lit in c), default=0)
    xs = [z3.Bool(f"x{i}", ctx) for i in range(1, n + 1)]
    for c in clauses:
        solver.add(z3.Or([xs[abs(lit) - 1] if lit > 0 else z3.Not(xs[abs(lit) - 1]) for lit in c], ctx))
    result = solver.check()
    if result == z3.sat:
        model = solver.model()
        return "sat", [z3.is_true(model.eval(x, model_completion=True)) for x in xs]
    return ("unsat", None) if result == z3.unsat else ("unknown", None)


def z3_effort(solver: z3.Solver | z3.Optimize) -> float:
    """z3's deterministic resource counter ("rlimit count") in thousands: machine-independent."""
    stats = solver.statistics()
    try:
        return float(stats.get_key_value("rlimit count")) / 1000.0
    except z3.Z3Exception:
        return 0.0


def prove_valid(claim: z3.BoolRef, timeout_ms: int) -> tuple[str, str, float]:
    """Check that ``claim`` holds everywhere: ("valid" | "counterexample" | "unknown", the
    counterexample as ``name=value`` pairs, z3 effort)."""
    solver = z3.Solver(ctx=claim.ctx)
    solver.set("timeout", timeout_ms)
    solver.add(z3.Not(claim))
    result = solver.check()
    effort = z3_effort(solver)
    if result == z3.sat:
        model = solver.model()
        shown = ", ".join(f"{d.name()}={model[d]}" for d in sorted(model.decls(), key=lambda d: d.name()))
        return "counterexample", shown[:200], effort
    return ("valid" if result == z3.unsat else "unknown"), "", effort


_THREAD = threading.local()


def thread_context() -> z3.Context:
    """This thread's z3 context, made on first use and kept for every later verification.

    A fresh context and solver cost more than most checks they run (2-4x a verification);
    contexts must not cross threads, so each thread has its own. A reused context remembers
    what it built before, and the *model* z3 finds for a satisfiable query can change with that
    history (measured: about one counterexample in four differed between two orders of the
    same batch), while the *decision* cannot. Verdicts built on this context therefore quote
    decisions only, never a model, and are the same in any process and any order.
    """
    ctx = getattr(_THREAD, "ctx", None)
    if ctx is None:
        ctx = _THREAD.ctx = z3.Context()
    return ctx


def decide_valid(claim: z3.BoolRef, timeout_ms: int = VERIFY_TIMEOUT_MS) -> str:
    """ "valid", "invalid" (a counterexample exists) or "unknown" (z3 gave up in time).

    The SMT core decides (cheap in a reused context); when it gives up for a reason other than
    time (nonlinear arithmetic beyond it), z3's default solver, whose tactics include a complete
    procedure for nonlinear integer problems of this size, gets the same claim.
    """
    solver = z3.SimpleSolver(ctx=claim.ctx)
    solver.set("timeout", int(timeout_ms))
    solver.add(z3.Not(claim))
    result = solver.check()
    if (
        result == z3.unknown
        and "timeout" not in solver.reason_unknown()
        and "canceled" not in solver.reason_unknown()
    ):
        solver = z3.Solver(ctx=claim.ctx)
        solver.set("timeout", int(timeout_ms))
        solver.add(z3.Not(claim))
        result = solver.check()
    return "invalid" if result == z3.sat else "valid" if result == z3.unsat else "unknown"


def verdict_on_conditions(
    claims: Sequence[tuple[str, z3.BoolRef]],
    parsed: str,
    *,
    fails: str,
    gives_up: str,
    timeout_ms: int = VERIFY_TIMEOUT_MS,
) -> Verdict:
    """Right when every claim is valid (decided in order by :func:`decide_valid`); otherwise
    wrong with ``fails``, or timed out with ``gives_up``, formatted with the first failing
    claim's ``{name}``. Decisions only: the verdict never depends on a context's history."""
    for name, claim in claims:
        outcome = decide_valid(claim, timeout_ms)
        if outcome == "invalid":
            return Verdict.wrong(fails.format(name=name), parsed=parsed)
        if outcome == "unknown":
            return Verdict.timed_out(
                reason="the verifier could not decide in time", error=gives_up.format(name=name)
            )
    return Verdict.right(parsed=parsed)
