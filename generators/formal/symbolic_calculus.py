"""Symbolic calculus: derivatives, antiderivatives and definite integrals, checked exactly.

A random elementary function is built from polynomial, trigonometric, exponential, logarithmic
and root/reciprocal pieces, multiplied together (product rule) and nested (chain rule) as the
knobs say. Derivative tasks ask for ``g'``; antiderivative tasks draw ``F`` first and show
``f = F'``, so an elementary antiderivative always exists; definite tasks ask for
``F(b) - F(a)`` as an exact closed form. The variable is positive (``x > 0``, said in the prompt)
so that ``ln x`` and ``ln|x|`` both count.

Verification parses the answer with palaestra's own restricted math parser only and decides in a
kill-safe worker process with a hard time bound (``_calculus_worker``): derivative answers must
equal the reference derivative, antiderivatives are differentiated and must equal the integrand
(any constant, ``+ C``, any equivalent form), definite values must equal the exact value. Equality
is accepted only on a symbolic zero; evaluation at points is used only to find counterexamples;
numbers that agree without a proof, a timeout or a crash come back as a Verdict with ``error``.

Exact solver: sympy differentiation of the generated (trusted) expression; for integrals the
generator's own ``F`` (it built the integrand by differentiating it). Effort: expression-tree
nodes of the question plus the answer. Weak solver: a term-by-term rule table (powers, sin/cos/
exp of a linear argument, 1/x) that gives up on products and compositions.
Level 5 generates 17-28 tasks per CPU-second on a quiet core (over different seed ranges),
below the 50/s target: sympy's differentiation (its assumption queries) is most of the cost and
is inherent to building exact derivatives. Grading: ~0.01 s (level 1) to ~0.4 s (level 10) per
answer in a warm worker; a differently written but equal answer that needs ``simplify`` ~1 s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy
from sympy.printing.str import StrPrinter

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.formal import _calculus_worker as worker
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.mathparse import ParseError, parse_answer

FUNCTION_CLASSES = "ptelr"  # polynomial, trig (sin/cos), exp, log, roots and reciprocals
VARIABLES = ("x", "t", "u", "z")
MAX_TEXT = 600  # redraw any question or answer longer than this
VERIFY_TIMEOUT_S = 8.0
MAX_ANSWER_CHARS = 4000


@dataclass(frozen=True)
class CalculusKnobs(Knobs):
    mode: str = knob(
        "derivative", choices=worker.MODES, help="derivative, antiderivative or exact definite integral"
    )
    functions: str = knob(
        "p", help="function classes, a subset of 'ptelr': polynomial, trig, exp, log, roots/reciprocals"
    )
    terms: int = knob(2, low=1, high=6, help="summands of the expression")
    factors: int = knob(1, low=1, high=3, help="most factors in one summand (2 or more: product rule)")
    chain: int = knob(0, low=0, high=3, help="nesting depth inside functions (0: linear arguments only)")
    degree: int = knob(3, low=1, high=8, help="highest power of the variable in polynomial pieces")
    coefficient: int = knob(5, low=1, high=50, help="largest absolute integer coefficient")

    def validate(self) -> None:
        chars = set(self.functions)
        if not self.functions or chars - set(FUNCTION_CLASSES) or len(chars) != len(self.functions):
            raise ValueError(
                f"functions must be distinct characters from {FUNCTION_CLASSES!r}, got {self.functions!r}"
            )


LEVELS = {
    1: CalculusKnobs(mode="derivative", functions="p", terms=2, degree=4, coefficient=9),
    2: CalculusKnobs(mode="antiderivative", functions="p", terms=3, degree=4, coefficient=6),
    3: CalculusKnobs(mode="derivative", functions="pte", terms=3, factors=1, degree=4, coefficient=6),
    4: CalculusKnobs(mode="antiderivative", functions="pter", terms=3, factors=1, degree=4, coefficient=6),
    5: CalculusKnobs(
        mode="derivative", functions="ptel", terms=3, factors=2, chain=1, degree=4, coefficient=7
    ),
    6: CalculusKnobs(
        mode="antiderivative", functions="ptel", terms=3, factors=2, chain=1, degree=4, coefficient=7
    ),
    7: CalculusKnobs(
        mode="derivative", functions="ptelr", terms=3, factors=2, chain=2, degree=5, coefficient=9
    ),
    8: CalculusKnobs(
        mode="antiderivative", functions="ptelr", terms=3, factors=2, chain=2, degree=5, coefficient=9
    ),
    9: CalculusKnobs(
        mode="derivative", functions="ptelr", terms=4, factors=3, chain=2, degree=6, coefficient=9
    ),
    10: CalculusKnobs(
        mode="antiderivative", functions="ptelr", terms=5, factors=3, chain=3, degree=6, coefficient=9
    ),
}


# --------------------------------------------------------------------------------------------
# Text: sympy's str with ^ and e (the forms palaestra's parser reads back identically)
# --------------------------------------------------------------------------------------------


class _Printer(StrPrinter):
    def _print_Exp1(self, expr: Any) -> str:
        return "e"


def render(expr: sympy.Expr) -> str:
    """Plain text such as ``x^2*sin(3*x) + exp(2*x)`` (``**`` only ever comes from powers)."""
    return _Printer(settings={"order": "lex"}).doprint(expr).replace("**", "^")


def render_latex(expr: sympy.Expr) -> str:
    return sympy.latex(expr, order="lex", ln_notation=True)


def read(text: str) -> sympy.Expr:
    """Our own rendered text back to sympy (through palaestra's parser, as the verifier reads it)."""
    return parse_answer(text)


def tree_size(expr: sympy.Expr) -> int:
    return sum(1 for _ in sympy.preorder_traversal(expr))


# --------------------------------------------------------------------------------------------
# Drawing expressions
# --------------------------------------------------------------------------------------------


class _Draw:
    def __init__(self, knobs: CalculusKnobs, rng: np.random.Generator, x: sympy.Symbol) -> None:
        self.k, self.rng, self.x = knobs, rng, x

    def int(self, low: int, high: int) -> int:
        return int(self.rng.integers(low, high + 1))

    def pick(self, options: Any) -> Any:
        return options[int(self.rng.integers(len(options)))]

    def coefficient(self) -> int:
        c = self.int(1, self.k.coefficient)
        return -c if self.rng.random() < 0.35 else c

    def expression(self) -> sympy.Expr:
        return sympy.Add(*(self.term() for _ in range(self.k.terms)))

    def term(self) -> sympy.Expr:
        count = self.int(1, self.k.factors)
        factors = [self.factor(0) for _ in range(count)]
        return sympy.Mul(self.coefficient(), *factors)

    def factor(self, depth: int) -> sympy.Expr:
        kind = self.pick(self.k.functions)
        if kind == "p":
            if depth < self.k.chain and self.rng.random() < 0.5:  # a power of a polynomial
                return self.polynomial() ** self.int(2, max(2, min(self.k.degree, 4)))
            return self.x ** self.int(1, self.k.degree)
        if kind == "t":
            return self.pick((sympy.sin, sympy.cos))(self.argument(depth))
        if kind == "e":
            return sympy.exp(self.argument(depth))
        if kind == "l":
            return sympy.log(self.positive(depth))
        # roots and reciprocals of a positive argument
        exponent = self.pick(
            (sympy.Rational(1, 2), sympy.Rational(3, 2), sympy.Rational(-1), sympy.Rational(1, 3))
        )
        return self.positive(depth) ** exponent

    def linear(self) -> sympy.Expr:
        a = self.int(1, 4) * self.pick((1, 1, -1))
        b = self.int(-3, 3) if self.rng.random() < 0.4 else 0
        return a * self.x + b

    def polynomial(self) -> sympy.Expr:
        n = self.int(2, max(2, min(self.k.degree, 4)))
        return self.x**n + self.int(1, 4) * self.pick((1, -1)) * self.x ** self.int(0, n - 1)

    def argument(self, depth: int) -> sympy.Expr:
        """The argument of sin/cos/exp: linear innermost, otherwise a polynomial or a function."""
        if depth >= self.k.chain:
            return self.linear()
        if self.rng.random() < 0.5:
            return self.polynomial()
        return self.factor(depth + 1)

    def positive(self, depth: int) -> sympy.Expr:
        """An argument positive for every x > 0 (for log and roots)."""
        x = self.x
        if depth >= self.k.chain:
            return self.pick((x, self.int(1, 4) * x, x + self.int(1, 4), self.int(2, 4) * x + self.int(1, 3)))
        shift = self.int(1, 4)
        if self.rng.random() < 0.5:
            return (
                x ** self.int(2, max(2, min(self.k.degree, 4))) + self.int(1, 3) * x ** self.int(0, 1) + shift
            )
        inner = self.argument(depth + 1)
        return self.pick((sympy.exp(inner) + shift, sympy.sin(inner) + 2, sympy.cos(inner) + 2))


class _Rejected(Exception):
    """Unusable draw (trivial, too long, or not read back identically): draw again."""


def _draw_task(knobs: CalculusKnobs, rng: np.random.Generator) -> dict[str, Any]:
    var = VARIABLES[int(rng.integers(len(VARIABLES)))]
    x = sympy.Symbol(var)  # no assumptions while generating: they make sympy several times slower
    base = _Draw(knobs, rng, x).expression()  # g for derivative tasks, F for the integrals
    if not base.has(x):
        raise _Rejected
    derivative = sympy.diff(base, x)
    if derivative == 0 or not derivative.has(x) and knobs.mode != "definite":
        raise _Rejected
    if derivative == base:  # c*e^x: copying the question would answer it
        raise _Rejected
    if knobs.mode == "derivative":
        question, answer = base, derivative
    else:
        question, answer = derivative, base
    out: dict[str, Any] = {"var": var, "x": x, "question": question, "answer": answer}
    if knobs.mode == "definite":
        low = int(rng.integers(1, 3))
        high = low + int(rng.integers(1, 3))
        value = base.subs(x, high) - base.subs(x, low)
        if value == 0 or value.has(sympy.nan, sympy.zoo, sympy.oo):
            raise _Rejected
        out.update(low=low, high=high, answer=value)
    return out


def _checked_text(expr: sympy.Expr) -> str:
    text = render(expr)
    if len(text) > MAX_TEXT:
        raise _Rejected
    try:
        back = read(text)  # sympy may distribute 4*(x + 2): equal after expansion
        if back != expr and sympy.expand(back - expr) != 0:
            raise _Rejected
    except ParseError:
        raise _Rejected from None
    return text


# --------------------------------------------------------------------------------------------
# Prompts
# --------------------------------------------------------------------------------------------

_FORMAT = """Use the variable {v}; write log for the natural logarithm and exp(...) or e^(...) for \
the exponential. Plain text (3*{v}^2*sin(2*{v})) and LaTeX (3{v}^{{2}}\\sin(2{v})) are both \
accepted. Give only the final expression inside answer tags, for example <answer>{example}</answer>."""

PROMPTS = {
    "derivative": """Differentiate with respect to {v}:

f({v}) = {question}

(in LaTeX: $f({v}) = {latex}$)

Find f'({v}). Any equivalent form of the derivative is accepted. """
    + _FORMAT,
    "antiderivative": """Find an antiderivative F({v}) of

f({v}) = {question}

(in LaTeX: $f({v}) = {latex}$), that is, any function with F'({v}) = f({v}) for {v} > 0. Any \
antiderivative is accepted: the constant of integration may be omitted or written as + C, and any \
equivalent form counts (sin({v})^2/2 and -cos(2*{v})/4 are both antiderivatives of \
sin({v})*cos({v})). """
    + _FORMAT,
    "definite": """Compute the exact value of the definite integral of

f({v}) = {question}

(in LaTeX: $f({v}) = {latex}$) with respect to {v} from {v} = {low} to {v} = {high}. Give an \
exact closed form (any equivalent one is accepted); decimal approximations are not. Write log \
for the natural logarithm and e for Euler's number, in plain text or LaTeX, inside answer tags, \
for example <answer>e^2 - 3*log(2) + sin(1)</answer>.""",
}
_EXAMPLES = {"derivative": "6*{v}*cos({v}^2) - exp(-{v})", "antiderivative": "{v}^3/3 - cos(2*{v})/2 + C"}


# --------------------------------------------------------------------------------------------
# Weak solver: a rule table applied term by term
# --------------------------------------------------------------------------------------------


def _linear_in(arg: sympy.Expr, x: sympy.Symbol) -> sympy.Expr | None:
    """The slope a of ``a*x + b`` (None if ``arg`` is not linear in x)."""
    if not arg.has(x) or not arg.is_polynomial(x) or sympy.degree(arg, x) != 1:
        return None
    return sympy.Poly(arg, x).coeffs()[0]


def table_rule(term: sympy.Expr, x: sympy.Symbol, integrate: bool) -> sympy.Expr | None:
    """d/dx or an antiderivative of ``c * core`` from a short table; None if not in it."""
    c, core = term.as_independent(x, as_Add=False)
    if core == 1:
        return c * x if integrate else sympy.Integer(0)
    if core == x or core.is_Pow and core.base == x and core.exp.is_Rational:
        n = sympy.Integer(1) if core == x else core.exp
        if integrate:
            return c * sympy.log(x) if n == -1 else c * x ** (n + 1) / (n + 1)
        return c * n * x ** (n - 1)
    if isinstance(core, (sympy.sin, sympy.cos, sympy.exp)):
        a = _linear_in(core.args[0], x)
        if a is None:
            return None
        arg = core.args[0]
        if integrate:
            table = {sympy.sin: -sympy.cos(arg), sympy.cos: sympy.sin(arg), sympy.exp: sympy.exp(arg)}
            return c * table[type(core)] / a
        table = {sympy.sin: sympy.cos(arg), sympy.cos: -sympy.sin(arg), sympy.exp: sympy.exp(arg)}
        return c * a * table[type(core)]
    if not integrate and isinstance(core, sympy.log) and core.args[0] == x:
        return c / x
    return None


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


@family(
    "symbolic_calculus",
    domain="formal",
    knobs=CalculusKnobs,
    levels=LEVELS,
    description="Differentiate or integrate an elementary function; answers checked by differentiating "
    "and simplifying.",
    verifier_kind="symbolic zero (sympy, bounded worker)",
)
class SymbolicCalculus(Family):
    def generate(self, knobs: CalculusKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(500):
            try:
                drawn = _draw_task(knobs, rng)
                question = _checked_text(drawn["question"])
                answer = _checked_text(drawn["answer"])
            except _Rejected:
                continue
            return self._draft(knobs, drawn, question, answer)
        raise RuntimeError(f"could not draw a usable expression for {knobs}")

    def _draft(self, knobs: CalculusKnobs, drawn: dict[str, Any], question: str, answer: str) -> TaskDraft:
        var, mode = drawn["var"], knobs.mode
        fields = {
            "v": var,
            "question": question,
            "latex": render_latex(drawn["question"]),
            "low": drawn.get("low"),
            "high": drawn.get("high"),
            "example": _EXAMPLES.get(mode, "").format(v=var),
        }
        prompt = PROMPTS[mode].format(**fields)
        # the same question in another variable is the same task
        renamed = render(drawn["question"].subs(drawn["x"], sympy.Symbol("x")))
        metadata = {
            "mode": mode,
            "variable": var,
            "expression": question,  # the function shown (f, the integrand, or g to differentiate)
            "bounds": [drawn["low"], drawn["high"]] if mode == "definite" else None,
            "question_size": tree_size(drawn["question"]),
            "answer_size": tree_size(drawn["answer"]),
            "canonical_hash": content_hash([mode, renamed, drawn.get("low"), drawn.get("high")]),
        }
        return TaskDraft(prompt=prompt, answer=answer, metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        return check_response(task, response, VERIFY_TIMEOUT_S)

    def solve_exact(self, task: Task) -> SolverRun:
        """sympy's derivative of the shown function (derivative tasks); for integrals the
        generator's own F, from which it built the integrand. Effort: tree nodes of question
        plus answer."""
        meta = task.metadata
        effort = float(meta["question_size"] + meta["answer_size"])
        if meta["mode"] == "derivative":
            x = sympy.Symbol(meta["variable"])
            answer = render(sympy.diff(read(meta["expression"]), x))
        else:
            answer = str(task.answer)
        return SolverRun(response=f"<answer>{answer}</answer>", effort=effort)

    def solve_weak(self, task: Task) -> SolverRun:
        """Term-by-term rule table (powers, sin/cos/exp of a linear argument, log x); gives up
        on products, compositions and definite integrals."""
        meta = task.metadata
        if meta["mode"] == "definite":
            return SolverRun(response=None, effort=0.0)
        x = sympy.Symbol(meta["variable"])
        expr = read(meta["expression"])
        parts = []
        for term in sympy.Add.make_args(expr):
            rule = table_rule(term, x, integrate=meta["mode"] == "antiderivative")
            if rule is None:
                return SolverRun(response=None, effort=float(len(parts)))
            parts.append(rule)
        return SolverRun(response=f"<answer>{render(sympy.Add(*parts))}</answer>", effort=float(len(parts)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = task.metadata
        var = meta["variable"]
        x = sympy.Symbol(var)
        gold, shown = read(str(task.answer)), read(meta["expression"])
        if meta["mode"] == "definite":
            candidates = [gold + 1, -gold, 2 * gold, gold + sympy.Rational(1, 2)]
        elif meta["mode"] == "derivative":
            candidates = [gold + 1, 2 * gold, -gold, shown, gold + x]
        else:
            candidates = [gold + x, 2 * gold, -gold, shown, sympy.diff(shown, x)]
        out = []
        for wrong in candidates:
            left = sympy.diff(wrong, x) if meta["mode"] == "antiderivative" else wrong
            right = shown if meta["mode"] == "antiderivative" else gold
            if worker.decide_zero(left, right, x) == "nonzero":  # trusted text: a differing point proves it
                out.append(f"<answer>{render(wrong)}</answer>")
        out.append(f"<answer>{task.answer}</answer> <answer>{render(gold + 1)}</answer>")
        return out


def check_response(task: Task, response: str, timeout_s: float) -> Verdict:
    """Extract the answer and grade it in a worker under ``timeout_s`` seconds."""
    extraction = extract_answer(response, allow_bare=True, max_chars=MAX_ANSWER_CHARS)
    if not extraction.ok or extraction.text is None:
        return Verdict.bad_format(extraction.error or "no answer")
    meta = task.metadata
    target = str(task.answer) if meta["mode"] != "antiderivative" else meta["expression"]
    args = {"mode": meta["mode"], "var": meta["variable"], "target": target, "answer": extraction.text}
    try:
        result = worker.call(args, timeout_s)
    except worker.WorkerTimeout:
        return Verdict.timed_out(f"checking the answer ran past {timeout_s} s")
    except worker.WorkerCrashed as exc:
        return Verdict.failure(f"crash: {exc}", reason="checking the answer failed")
    if result["error"] is not None:
        return Verdict.failure(result["error"], reason=result["reason"])
    if result["correct"]:
        return Verdict.right(parsed=result["parsed"], reason=result["reason"])
    if result["format_ok"]:
        return Verdict.wrong(result["reason"], parsed=result["parsed"])
    return Verdict.bad_format(result["reason"], parsed=result["parsed"])
