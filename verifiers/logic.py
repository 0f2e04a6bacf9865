"""Propositional logic: a multi-notation formula parser, equivalence and entailment via z3
(with countermodels), and checkers for claimed satisfying assignments and unsat claims.

Notations (mixable): ``~ ! ¬ not \\neg`` · ``& && ∧ and \\land /\\`` · ``| || ∨ or \\lor \\/``
· ``^ ⊕ xor`` · ``-> => → ⇒ implies \\to`` · ``<-> <=> ↔ ⇔ iff \\iff``; constants
``true false ⊤ ⊥ 1 0``. Precedence, tightest first: not, and, xor, or, implies (right
associative), iff. Every z3 call gets a fresh ``z3.Context`` (z3 contexts are not
thread-safe) and a solver timeout; an ``unknown`` answer is never counted correct.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import z3

from palaestra.core import Verdict

__all__ = [
    "Formula",
    "LogicParseError",
    "LogicResult",
    "parse_formula",
    "evaluate",
    "equivalent",
    "entails",
    "satisfiable",
    "parse_assignment",
    "check_assignment",
    "check_unsat_claim",
    "verify_sat_answer",
    "verify_equivalent_formula",
]

MAX_CHARS = 100_000
MAX_DEPTH = 100
DEFAULT_TIMEOUT_MS = 5_000

# A formula is a nested tuple: ("var", name) | ("const", bool) | ("not", f) |
# ("and" | "or" | "xor", f, g, ...) | ("imp" | "iff", f, g)
Formula = tuple
FormulaLike = str | Formula


class LogicParseError(ValueError):
    """The text is not a propositional formula (or an assignment) in a known notation."""


@dataclass(frozen=True)
class LogicResult:
    """``holds`` is True/False, or None when the solver gave up (timeout / unknown)."""

    holds: bool | None
    countermodel: dict[str, bool] | None = None
    reason: str = ""


# ------------------------------------------------------------------------------------------
# Parsing
# ------------------------------------------------------------------------------------------

_SYMBOLS = [
    ("iff", r"<->|<=>|↔|⇔|≡|\\leftrightarrow|\\Leftrightarrow|\\iff|\\equiv"),
    ("imp", r"->|=>|→|⇒|⊃|\\rightarrow|\\Rightarrow|\\implies|\\to"),
    ("and", r"&&|&|∧|/\\|\\land|\\wedge|·"),
    ("or", r"\|\||\||∨|\\/|\\lor|\\vee|\+"),
    ("xor", r"\^|⊕|\\oplus|\\veebar"),
    ("not", r"~|!|¬|\\neg|\\lnot|-"),
    ("true", r"⊤|\\top"),
    ("false", r"⊥|\\bot"),
    ("lpar", r"\(|\["),
    ("rpar", r"\)|\]"),
]
_WORDS = {
    "not": "not",
    "and": "and",
    "or": "or",
    "xor": "xor",
    "implies": "imp",
    "iff": "iff",
    "true": "true",
    "false": "false",
}
_TOKEN = re.compile(
    r"\s*(?:"
    + "|".join(f"(?P<{name}>{pattern})" for name, pattern in _SYMBOLS)
    + r"|(?P<word>[A-Za-z_][A-Za-z0-9_']*)|(?P<num>[01](?![0-9])))"
)


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise LogicParseError(f"unexpected {text[pos : pos + 10]!r}")
        pos = m.end()
        kind = m.lastgroup or ""
        value = m.group(kind)
        if kind == "word":
            kind = _WORDS.get(value.lower(), "var")
        elif kind == "num":
            kind = "true" if value == "1" else "false"
        tokens.append((kind, value))
    tokens.append(("eof", ""))
    return tokens


class _Parser:
    _BINARY = [("iff", "iff"), ("imp", "imp"), ("or", "or"), ("xor", "xor"), ("and", "and")]

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.toks, self.i, self.depth = tokens, 0, 0

    def peek(self) -> str:
        return self.toks[self.i][0]

    def take(self) -> tuple[str, str]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def parse(self) -> Formula:
        f = self.level(0)
        if self.peek() != "eof":
            raise LogicParseError(f"unexpected {self.toks[self.i][1]!r}")
        return f

    def level(self, k: int) -> Formula:
        if k == len(self._BINARY):
            return self.unary()
        op = self._BINARY[k][0]
        left = self.level(k + 1)
        if op == "imp":  # right associative: a -> b -> c is a -> (b -> c)
            if self.peek() == "imp":
                self.take()
                self.enter()
                right = self.level(k)
                self.depth -= 1
                return ("imp", left, right)
            return left
        if op == "iff":  # left associative; chains are rare, cap them like nesting
            count = 0
            while self.peek() == op:
                self.take()
                count += 1
                if count > MAX_DEPTH:
                    raise LogicParseError("formula nested too deeply")
                left = (op, left, self.level(k + 1))
            return left
        operands = [left]  # and/or/xor chains are flat n-ary nodes: no deep recursion later
        while self.peek() == op:
            self.take()
            operands.append(self.level(k + 1))
        return (op, *operands) if len(operands) > 1 else left

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise LogicParseError("formula nested too deeply")

    def unary(self) -> Formula:
        kind, value = self.take()
        if kind == "not":
            self.enter()
            inner = self.unary()
            self.depth -= 1
            return ("not", inner)
        if kind == "lpar":
            self.enter()
            inner = self.level(0)
            self.depth -= 1
            if self.take()[0] != "rpar":
                raise LogicParseError("unclosed (")
            return inner
        if kind == "var":
            return ("var", value)
        if kind in ("true", "false"):
            return ("const", kind == "true")
        raise LogicParseError(f"unexpected {value or 'end of formula'!r}")


def parse_formula(text: FormulaLike) -> Formula:
    """Parse a formula in any of the supported notations (a parsed formula passes through)."""
    if isinstance(text, tuple):
        return text
    if not isinstance(text, str):
        raise LogicParseError(f"a formula must be a string, got {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise LogicParseError(f"formula longer than {MAX_CHARS} characters")
    try:
        return _Parser(_tokenize(text)).parse()
    except RecursionError:
        raise LogicParseError("formula nested too deeply") from None


def variables(formula: FormulaLike) -> list[str]:
    """The formula's variable names, sorted."""
    out: set[str] = set()
    stack = [parse_formula(formula)]
    while stack:
        node = stack.pop()
        if node[0] == "var":
            out.add(node[1])
        elif node[0] != "const":
            stack.extend(node[1:])
    return sorted(out)


def evaluate(formula: FormulaLike, assignment: Mapping[str, bool]) -> bool:
    """Truth value under ``assignment`` (every variable must be assigned)."""
    node = parse_formula(formula)
    kind = node[0]
    if kind == "var":
        if node[1] not in assignment:
            raise KeyError(node[1])
        return bool(assignment[node[1]])
    if kind == "const":
        return node[1]
    if kind == "not":
        return not evaluate(node[1], assignment)
    values = [evaluate(child, assignment) for child in node[1:]]
    if kind == "and":
        return all(values)
    if kind == "or":
        return any(values)
    if kind == "xor":
        return sum(values) % 2 == 1
    a, b = values
    return (not a) or b if kind == "imp" else a == b


# ------------------------------------------------------------------------------------------
# z3
# ------------------------------------------------------------------------------------------


def _to_z3(node: Formula, ctx: z3.Context, cache: dict[str, z3.BoolRef]) -> z3.BoolRef:
    kind = node[0]
    if kind == "var":
        if node[1] not in cache:
            cache[node[1]] = z3.Bool(node[1], ctx)
        return cache[node[1]]
    if kind == "const":
        return z3.BoolVal(node[1], ctx)
    if kind == "not":
        return z3.Not(_to_z3(node[1], ctx, cache), ctx)
    children = [_to_z3(child, ctx, cache) for child in node[1:]]
    if kind == "and":
        return z3.And(*children)
    if kind == "or":
        return z3.Or(*children)
    if kind == "xor":
        out = children[0]
        for child in children[1:]:
            out = z3.Xor(out, child, ctx)
        return out
    a, b = children
    if kind == "imp":
        return z3.Implies(a, b, ctx)
    return a == b


def _solve(constraint: Sequence[Formula], timeout_ms: int) -> tuple[str, dict[str, bool] | None]:
    """('sat', model) | ('unsat', None) | ('unknown', None) for the conjunction."""
    ctx = z3.Context()  # one per call: z3 contexts must not be shared across threads
    cache: dict[str, z3.BoolRef] = {}
    solver = z3.Solver(ctx=ctx)
    solver.set("timeout", int(timeout_ms))
    for node in constraint:
        solver.add(_to_z3(node, ctx, cache))
    answer = solver.check()
    if answer == z3.sat:
        model = solver.model()
        return "sat", {
            name: z3.is_true(model.eval(var, model_completion=True)) for name, var in sorted(cache.items())
        }
    return ("unsat", None) if answer == z3.unsat else ("unknown", None)


def satisfiable(formula: FormulaLike, *, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> LogicResult:
    """Whether the formula has a model (``countermodel`` then holds one)."""
    status, model = _solve([parse_formula(formula)], timeout_ms)
    if status == "unknown":
        return LogicResult(None, None, "the solver gave up (timeout)")
    return LogicResult(status == "sat", model, "satisfiable" if model else "unsatisfiable")


def equivalent(a: FormulaLike, b: FormulaLike, *, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> LogicResult:
    """Whether ``a`` and ``b`` agree under every assignment; else an assignment where they differ."""
    fa, fb = parse_formula(a), parse_formula(b)
    status, model = _solve([("not", ("iff", fa, fb))], timeout_ms)
    if status == "unknown":
        return LogicResult(None, None, "the solver gave up (timeout)")
    if status == "unsat":
        return LogicResult(True, None, "equivalent")
    return LogicResult(False, model, f"they differ at {_show(model)}")


def entails(
    premises: Sequence[FormulaLike] | FormulaLike,
    conclusion: FormulaLike,
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> LogicResult:
    """Whether the premises entail the conclusion; else a model of premises and not-conclusion."""
    if isinstance(premises, str) or _is_node(premises):  # one formula, not a list of them
        listed = [cast(FormulaLike, premises)]
    else:
        listed = list(cast(Sequence[FormulaLike], premises))
    nodes = [parse_formula(p) for p in listed] + [("not", parse_formula(conclusion))]
    status, model = _solve(nodes, timeout_ms)
    if status == "unknown":
        return LogicResult(None, None, "the solver gave up (timeout)")
    if status == "unsat":
        return LogicResult(True, None, "entailed")
    return LogicResult(False, model, f"countermodel: {_show(model)}")


def _is_node(value: object) -> bool:
    return (
        isinstance(value, tuple)
        and bool(value)
        and value[0] in ("var", "const", "not", "and", "or", "xor", "imp", "iff")
    )


def _show(model: Mapping[str, bool] | None) -> str:
    return ", ".join(f"{k}={'T' if v else 'F'}" for k, v in sorted((model or {}).items())) or "(no variables)"


# ------------------------------------------------------------------------------------------
# Checking submitted answers
# ------------------------------------------------------------------------------------------

_TRUE = {"t", "true", "1", "yes", "⊤"}
_FALSE = {"f", "false", "0", "no", "⊥"}
_PAIR = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_']*)\s*(?:=|:|->|→|is)\s*(\S+)\s*$")
_LITERAL = re.compile(r"^\s*(~|!|¬|not\s+|-)?\s*([A-Za-z_][A-Za-z0-9_']*)\s*$", re.IGNORECASE)


def parse_assignment(text: str) -> dict[str, bool]:
    """``A=T, B=F`` / ``A: true; B: false`` / ``{A: 1, B: 0}`` / literals ``A, ¬B``."""
    if len(text) > MAX_CHARS:
        raise LogicParseError("assignment too long")
    body = text.strip().strip("{}[]()").strip()
    if not body:
        raise LogicParseError("empty assignment")
    out: dict[str, bool] = {}
    for part in re.split(r"[,;\n]|\band\b|∧", body):
        if not part.strip():
            continue
        name, value = _assignment_part(part)
        if name in out and out[name] != value:
            raise LogicParseError(f"{name} is assigned both true and false")
        out[name] = value
    return out


def _assignment_part(part: str) -> tuple[str, bool]:
    pair = _PAIR.match(part)
    if pair:
        word = pair.group(2).strip().strip("'\"").lower()
        if word in _TRUE:
            return pair.group(1), True
        if word in _FALSE:
            return pair.group(1), False
        raise LogicParseError(f"{part.strip()!r}: the value must be true or false")
    literal = _LITERAL.match(part)
    if literal:
        return literal.group(2), literal.group(1) is None
    raise LogicParseError(f"cannot read {part.strip()[:40]!r} as an assignment")


def check_assignment(formula: FormulaLike, assignment: Mapping[str, bool] | str) -> Verdict:
    """Is the claimed assignment a model of the formula? (No solver: plain evaluation.)"""
    try:
        f = parse_formula(formula)
    except LogicParseError as exc:
        return Verdict.failure(f"bad reference formula: {exc}")
    try:
        model = parse_assignment(assignment) if isinstance(assignment, str) else dict(assignment)
    except LogicParseError as exc:
        return Verdict.bad_format(f"cannot read the assignment: {exc}")
    needed = variables(f)
    missing = [v for v in needed if v not in model]
    if missing:
        return Verdict.bad_format(f"unassigned variables: {', '.join(missing[:10])}", parsed=model)
    unknown = sorted(set(model) - set(needed))
    if unknown:
        return Verdict.wrong(f"variables not in the formula: {', '.join(unknown[:10])}", parsed=model)
    if evaluate(f, model):
        return Verdict.right(parsed=model, reason="the assignment satisfies the formula")
    return Verdict.wrong("the assignment makes the formula false", parsed=model)


def check_unsat_claim(formula: FormulaLike, *, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    """A claim that the formula is unsatisfiable: re-solved; a timeout is an error, not credit."""
    try:
        result = satisfiable(formula, timeout_ms=timeout_ms)
    except LogicParseError as exc:
        return Verdict.failure(f"bad reference formula: {exc}")
    if result.holds is None:
        return Verdict.timed_out("could not confirm unsatisfiability in time")
    if result.holds:
        return Verdict.wrong(f"the formula is satisfiable, e.g. {_show(result.countermodel)}", parsed="UNSAT")
    return Verdict.right(parsed="UNSAT", reason="the formula is unsatisfiable")


_UNSAT_WORDS = re.compile(
    r"^\s*(unsat|unsatisfiable|no (?:satisfying )?assignment|none|impossible)\s*\.?\s*$", re.IGNORECASE
)


def verify_sat_answer(formula: FormulaLike, answer: str, *, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    """An answer to "give a satisfying assignment or say UNSAT"."""
    if not isinstance(answer, str):
        return Verdict.bad_format("the answer must be a string")
    if _UNSAT_WORDS.match(answer):
        return check_unsat_claim(formula, timeout_ms=timeout_ms)
    return check_assignment(formula, answer)


def verify_equivalent_formula(
    gold: FormulaLike, answer: str, *, timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> Verdict:
    """An answer formula that must be logically equivalent to ``gold``."""
    try:
        pred = parse_formula(answer)
    except LogicParseError as exc:
        return Verdict.bad_format(f"cannot parse the formula: {exc}")
    try:
        result = equivalent(gold, pred, timeout_ms=timeout_ms)
    except LogicParseError as exc:
        return Verdict.failure(f"bad reference formula: {exc}")
    if result.holds is None:
        return Verdict.timed_out(result.reason)
    if result.holds:
        return Verdict.right(parsed=answer, reason="equivalent")
    return Verdict.wrong(f"not equivalent: {result.reason}", parsed=answer)
