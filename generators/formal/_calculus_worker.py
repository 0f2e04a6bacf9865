"""The symbolic_calculus checker and the kill-safe worker processes it runs in.

``check(args)`` parses a model's answer with palaestra's own restricted math parser
(:mod:`palaestra.verifiers.mathparse`, never ``sympify``), builds the difference ``D`` that must
vanish (derivative: ``answer - gold``; antiderivative: ``d/dx answer - integrand``; definite
integral: ``answer - value``) and decides it:

1. ``D`` is exactly ``0`` after sympy's automatic evaluation: correct.
2. A counterexample search evaluates both sides at fixed positive rational points to 40 digits;
   a relative gap above ``1e-25`` at any point proves the answer wrong.
3. Otherwise the answer is correct only if a symbolic simplification reduces ``D`` to ``0``
   (cancel, expand, simplify, then the same after rewriting in exponentials).
4. Numbers that agree but no proof: ``undecided``, reported as a verifier failure.

An antiderivative may carry a constant of integration (``C``, ``K``, ``c_1``, ...) only as an
added term: the mixed derivative ``d/dC d/dx answer`` must vanish by the same decision, so
``F + C`` and ``F + 2C`` are accepted and ``F + C*x`` is wrong, whatever value ``C`` takes.

Numeric agreement alone never accepts: a wrong answer such as ``F + sin(N*pi*x)^2`` (``N`` the
lcm of every denominator the points use) vanishes at every fixed point, and only a symbolic zero
may say "equal". The numbers only ever reject.

The checks run in a worker process (``python -m palaestra.generators.formal._calculus_worker``)
from the math verifier's :class:`palaestra.verifiers.workers.WorkerPool`: the same JSON-lines
pipe protocol, address-space cap and kill-on-timeout; only the module the child runs differs.
"""

from __future__ import annotations

from typing import Any

import sympy

from palaestra.verifiers.mathparse import MARKERS, Options, ParseError, Rel, parse_answer
from palaestra.verifiers.workers import WorkerCrashed, WorkerPool, WorkerTimeout, serve

__all__ = ["WorkerCrashed", "WorkerTimeout", "call", "check", "check_local"]

MODULE = "palaestra.generators.formal._calculus_worker"
MODES = ("derivative", "antiderivative", "definite")
# names the constant of integration may take in an antiderivative answer
CONSTANTS = frozenset({"C", "c", "K", "k", "C_0", "C_1", "c_0", "c_1"})
# where both sides are compared: positive (the prompt says x > 0), small (no overflow in e^e^x)
POINTS = tuple(sympy.Rational(p, q) for p, q in ((3, 7), (5, 4), (11, 13), (17, 9), (2, 11), (23, 19)))
DIGITS = 40
REL_GAP = sympy.Float(10) ** -25


# ------------------------------------------------------------------------------------------
# The check (runs in the child)
# ------------------------------------------------------------------------------------------


def _result(
    correct: bool, format_ok: bool, parsed: Any, reason: str, error: str | None = None
) -> dict[str, Any]:
    return {"correct": correct, "format_ok": format_ok, "parsed": parsed, "reason": reason, "error": error}


def _show(expr: Any) -> str | None:
    if expr is None:
        return None
    text = str(expr)
    return text if len(text) <= 300 else text[:300] + "..."


def _as_expression(node: Any) -> sympy.Expr | None:
    """The answer as one scalar: ``F(x) = ...`` and ``y = ...`` name the right-hand side."""
    if isinstance(node, Rel) and node.ops == ("=",) and isinstance(node.terms[0], sympy.Symbol):
        node = node.terms[1]
    if isinstance(node, sympy.Expr) and not isinstance(node, sympy.MatrixBase) and not node.has(*MARKERS):
        return node
    return None


def check(args: dict[str, Any]) -> dict[str, Any]:
    """Grade ``args["answer"]`` (model text) for a task; see the module docstring."""
    mode, var = args["mode"], args["var"]
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    plain = sympy.Symbol(var)
    target = parse_answer(args["target"])  # our own text: the gold side
    try:
        node = parse_answer(args["answer"], Options())
    except ParseError as exc:
        return _result(False, False, None, f"cannot parse the answer: {exc}")
    answer = _as_expression(node)
    if answer is None:
        return _result(False, False, _show(node), "the answer must be a single expression")
    extra = {s.name for s in answer.free_symbols} - {var}
    allowed = CONSTANTS if mode == "antiderivative" else frozenset()
    if len(extra - allowed) or len(extra) > 1:
        names = ", ".join(sorted(extra))
        return _result(False, True, _show(answer), f"the answer has unknown symbols: {names}")
    # sympy's assumption queries make a positive symbol several times slower to differentiate:
    # it is needed up front only for |x| (ln|x| is ln x for x > 0), else for the last proofs
    x = plain
    if answer.has(sympy.Abs):
        x = sympy.Symbol(var, positive=True)
        answer, target = answer.subs(plain, x), target.subs(plain, x)
    if extra:  # the constant of integration: any value is fine once it is only added
        constant = sympy.Symbol(next(iter(extra)))
        mixed = decide_zero(sympy.diff(answer, constant, x), sympy.Integer(0), x)
        if mixed == "nonzero":  # F + C*x: C changes the derivative
            reason = f"the constant {constant} may only be added to an antiderivative"
            return _result(False, True, _show(answer), reason)
        if mixed == "undecided":
            reason = f"could not prove that {constant} is only added"
            return _result(False, False, _show(answer), reason, error="undecided")
        answer = answer.subs(constant, 0)
    if answer.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        return _result(False, True, _show(answer), "the answer is not finite")
    left = sympy.diff(answer, x) if mode == "antiderivative" else answer
    if left.has(sympy.Derivative):  # floor, ceiling...: no closed-form derivative to compare
        return _result(False, True, _show(answer), "the answer has no derivative in closed form")
    verdict = decide_zero(left, target, x)
    parsed = _show(answer)
    if verdict == "zero":
        return _result(True, True, parsed, "correct")
    if verdict == "nonzero":
        what = {
            "derivative": "the derivative",
            "antiderivative": "an antiderivative",
            "definite": "the value",
        }
        return _result(False, True, parsed, f"not {what[mode]}: the two sides differ at a point")
    return _result(
        False, False, parsed, "agrees numerically but could not be proven equal", error="undecided"
    )


def decide_zero(left: sympy.Expr, right: sympy.Expr, x: sympy.Symbol) -> str:
    """``"zero"`` (left = right proven), ``"nonzero"`` (a point where they differ) or
    ``"undecided"`` (they agree at every point tried but no simplification proves it)."""
    difference = left - right
    if difference == 0:
        return "zero"
    points = POINTS if (left.has(x) or right.has(x)) else (None,)
    # one point refutes almost every wrong answer; a cheap cancel then proves most right ones
    if _differs_at(left, right, x, points[0]):
        return "nonzero"
    if _attempt(sympy.cancel, difference):
        return "zero"
    if any(_differs_at(left, right, x, point) for point in points[1:]):
        return "nonzero"
    if not x.is_positive:
        difference = difference.subs(x, sympy.Symbol(x.name, positive=True))
    return "zero" if proves_zero(difference) else "undecided"


def _differs_at(left: sympy.Expr, right: sympy.Expr, x: sympy.Symbol, point: sympy.Rational | None) -> bool:
    """Whether both sides evaluate (40 digits) to clearly different numbers at ``point``."""
    subs = {x: point} if point is not None else {}
    try:
        a, b = left.evalf(DIGITS, subs=subs), right.evalf(DIGITS, subs=subs)
    except (TypeError, ValueError, ArithmeticError, AttributeError, RecursionError):
        return False  # this point says nothing
    if not (a.is_number and b.is_number):
        return False
    if a.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or b.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        return False  # a pole of either side: this point says nothing
    # sympy numbers throughout: values like e^(e^3) overflow a float
    gap, scale = abs((a - b).evalf(DIGITS)), max(abs(a), abs(b), sympy.Integer(1))
    return bool(gap > REL_GAP * scale)


def _attempt(simplification: Any, difference: sympy.Expr) -> bool:
    try:
        return simplification(difference) == 0
    except (TypeError, ValueError, NotImplementedError, AttributeError, RecursionError):
        return False


def proves_zero(difference: sympy.Expr) -> bool:
    """Whether some simplification, cheapest first, reduces ``difference`` to exactly 0."""
    attempts = (
        sympy.expand,
        sympy.simplify,
        lambda d: sympy.cancel(sympy.expand(d.rewrite(sympy.exp))),
        lambda d: sympy.simplify(d.rewrite(sympy.exp)),
    )
    return any(_attempt(attempt, difference) for attempt in attempts)


_POOL = WorkerPool(module=MODULE)


def call(args: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """Run :func:`check` in a worker; raises ``WorkerTimeout`` or ``WorkerCrashed``."""
    return _POOL.call({"fn": "check", "args": args}, timeout_s)


def check_local(args: dict[str, Any]) -> dict[str, Any]:
    """:func:`check` in this process, without a time bound (for trusted text only: tests)."""
    return check(args)


# ------------------------------------------------------------------------------------------
# The child side
# ------------------------------------------------------------------------------------------


def _warm_up() -> None:
    # sympy imports simplify and friends lazily: pay that at start-up, not inside a time bound
    check({"mode": "antiderivative", "var": "x", "target": "sin(x)*cos(x)", "answer": "-cos(2x)/4"})


if __name__ == "__main__":
    serve({"check": check}, _warm_up)
