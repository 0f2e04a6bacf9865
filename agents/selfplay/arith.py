"""The ``arith`` task language: a tiny DSL the proposer writes, with our exact evaluator.

A proposal is one program of at most ``MAX_CHARS`` characters::

    let a = 3/4; let b = a^2 + 1; (a + b) * 2        -> evaluate the expression
    solve 3*x + 2 = x - 7                              -> the x that satisfies a linear equation

Grammar (recursive descent, no ``eval``, every value an exact ``Fraction``)::

    program   := ("let" NAME "=" expr ";")* (expr | "solve" expr "=" expr)
    expr      := term (("+" | "-") term)*
    term      := unary (("*" | "/" | "%") unary)*
    unary     := "-" unary | power
    power     := atom ("^" unary)?            (integer exponent, |e| <= MAX_EXPONENT)
    atom      := INT | DECIMAL | NAME | "(" expr ")" | FUNC "(" expr ("," expr)* ")"
    FUNC      := abs | min | max | gcd | lcm

In ``solve`` mode the unknown is ``x`` and values are linear forms ``a*x + b``: products of two
non-constant forms, division by a form in ``x`` and ``x`` inside functions are rejected
(nonlinear), as are equations with no or infinitely many solutions. Size limits (digits of every
intermediate value, nesting depth, number of nodes) keep evaluation bounded in time.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

MAX_CHARS = 300
MAX_DEPTH = 24
MAX_NODES = 120
MAX_DIGITS = 40  # numerator/denominator digits of any intermediate value
MAX_EXPONENT = 12
MAX_LETS = 6
FUNCTIONS = ("abs", "min", "max", "gcd", "lcm")
RESERVED = frozenset({"let", "solve", "x", *FUNCTIONS})

_TOKEN = re.compile(r"\s*(?:(\d+\.\d+|\d+)|([A-Za-z_][A-Za-z_0-9]*)|(\S))")


class ArithError(ValueError):
    """The program is not valid in the DSL (or leaves its limits)."""


@dataclass(frozen=True)
class Lin:
    """``a*x + b`` with exact coefficients (``a == 0`` outside solve mode)."""

    a: Fraction
    b: Fraction

    @property
    def constant(self) -> bool:
        return self.a == 0


@dataclass(frozen=True)
class ArithResult:
    """The evaluated program: its exact answer, its mode and a canonical form for dedup."""

    answer: Fraction
    mode: str  # "eval" or "solve"
    canonical: str  # the program re-printed from its parse (spacing/parentheses normalised)
    shape: str  # the canonical form with every number replaced by N (for near-duplicates)
    nodes: int


def _check(value: Fraction) -> Fraction:
    if len(str(abs(value.numerator))) > MAX_DIGITS or len(str(value.denominator)) > MAX_DIGITS:
        raise ArithError(f"a value has more than {MAX_DIGITS} digits")
    return value


class _Parser:
    def __init__(self, text: str, solve: bool) -> None:
        self.tokens = self._tokenize(text)
        self.pos = 0
        self.solve = solve
        self.env: dict[str, Lin] = {}
        self.nodes = 0
        self.depth = 0

    @staticmethod
    def _tokenize(text: str) -> list[str]:
        tokens, pos = [], 0
        text = text.strip()
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if match is None:  # only trailing whitespace is left
                break
            tokens.append(match.group(match.lastindex or 0))
            pos = match.end()
        return tokens

    # -- token helpers
    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise ArithError(f"expected {expected or 'a token'} at token {self.pos}, got {token!r}")
        self.pos += 1
        return token

    def node(self) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise ArithError(f"more than {MAX_NODES} nodes")

    # -- grammar; every method returns (value, canonical text, shape text)
    def expr(self) -> tuple[Lin, str, str]:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ArithError(f"nesting deeper than {MAX_DEPTH}")
        value, text, shape = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            self.node()
            right, rtext, rshape = self.term()
            sign = 1 if op == "+" else -1
            value = Lin(_check(value.a + sign * right.a), _check(value.b + sign * right.b))
            text, shape = f"({text}{op}{rtext})", f"({shape}{op}{rshape})"
        self.depth -= 1
        return value, text, shape

    def term(self) -> tuple[Lin, str, str]:
        value, text, shape = self.unary()
        while self.peek() in ("*", "/", "%"):
            op = self.take()
            self.node()
            right, rtext, rshape = self.unary()
            value = _binary(op, value, right)
            text, shape = f"({text}{op}{rtext})", f"({shape}{op}{rshape})"
        return value, text, shape

    def unary(self) -> tuple[Lin, str, str]:
        if self.peek() == "-":
            self.take()
            self.node()
            value, text, shape = self.unary()
            return Lin(-value.a, -value.b), f"(-{text})", f"(-{shape})"
        return self.power()

    def power(self) -> tuple[Lin, str, str]:
        base, text, shape = self.atom()
        if self.peek() != "^":
            return base, text, shape
        self.take()
        self.node()
        exponent, etext, eshape = self.unary()
        if not exponent.constant or exponent.b.denominator != 1 or abs(exponent.b) > MAX_EXPONENT:
            raise ArithError(f"exponents must be integers with |e| <= {MAX_EXPONENT}")
        e = int(exponent.b)
        if not base.constant:
            if e == 1:
                return base, f"({text}^{etext})", f"({shape}^{eshape})"
            raise ArithError("nonlinear in x")
        if base.b == 0 and e < 0:
            raise ArithError("division by zero")
        return Lin(Fraction(0), _check(base.b**e)), f"({text}^{etext})", f"({shape}^{eshape})"

    def atom(self) -> tuple[Lin, str, str]:
        token = self.take()
        self.node()
        if token[0].isdigit():
            value = _check(Fraction(token))
            return Lin(Fraction(0), value), str(value), "N"
        if token == "(":
            value, text, shape = self.expr()
            self.take(")")
            return value, text, shape
        if token in FUNCTIONS:
            return self.call(token)
        if token == "x" and self.solve:
            return Lin(Fraction(1), Fraction(0)), "x", "x"
        if token in self.env:
            # substitute the bound value so that renamed variables canonicalise identically
            value = self.env[token]
            return value, _show(value), "V"
        raise ArithError(f"unknown name {token!r}")

    def call(self, name: str) -> tuple[Lin, str, str]:
        self.take("(")
        args = [self.expr()]
        while self.peek() == ",":
            self.take()
            args.append(self.expr())
        self.take(")")
        if any(not value.constant for value, _, _ in args):
            raise ArithError("x may not appear inside a function")
        values = [value.b for value, _, _ in args]
        result = _function(name, values)
        text = f"{name}({','.join(t for _, t, _ in args)})"
        shape = f"{name}({','.join(s for _, _, s in args)})"
        return Lin(Fraction(0), _check(result)), text, shape

    def program(self) -> tuple[Lin, str, str, str]:
        lets = 0
        while self.peek() == "let":
            self.take()
            name = self.take()
            if not name.isidentifier() or name in RESERVED:
                raise ArithError(f"cannot bind {name!r}")
            self.take("=")
            value, _, _ = self.expr()
            self.take(";")
            self.env[name] = value
            lets += 1
            if lets > MAX_LETS:
                raise ArithError(f"more than {MAX_LETS} let bindings")
        if self.peek() == "solve":
            self.take()
            left, ltext, lshape = self.expr()
            self.take("=")
            right, rtext, rshape = self.expr()
            mode, text, shape = "solve", f"solve {ltext}={rtext}", f"solve {lshape}={rshape}"
            value = Lin(left.a - right.a, left.b - right.b)
        else:
            value, text, shape = self.expr()
            mode = "eval"
        if self.peek() is not None:
            raise ArithError(f"unexpected {self.peek()!r} after the program")
        return value, mode, text, shape


def _binary(op: str, left: Lin, right: Lin) -> Lin:
    if op == "*":
        if not left.constant and not right.constant:
            raise ArithError("nonlinear in x")
        return Lin(_check(left.a * right.b + right.a * left.b), _check(left.b * right.b))
    if not right.constant:
        raise ArithError("division by an expression in x")
    if right.b == 0:
        raise ArithError("division by zero")
    if op == "/":
        return Lin(_check(left.a / right.b), _check(left.b / right.b))
    if not left.constant or left.b.denominator != 1 or right.b.denominator != 1:
        raise ArithError("% needs integer operands")
    return Lin(Fraction(0), Fraction(int(left.b) % int(right.b)))


def _function(name: str, values: list[Fraction]) -> Fraction:
    if name == "abs":
        if len(values) != 1:
            raise ArithError("abs takes one argument")
        return abs(values[0])
    if name in ("min", "max"):
        return min(values) if name == "min" else max(values)
    if len(values) != 2 or any(v.denominator != 1 for v in values):
        raise ArithError(f"{name} takes two integers")
    a, b = (int(v) for v in values)
    return Fraction(math.gcd(a, b) if name == "gcd" else math.lcm(a, b))


def _show(value: Lin) -> str:
    if value.constant:
        return str(value.b)
    return f"({value.a}*x+{value.b})"


def evaluate(program: str) -> ArithResult:
    """Evaluate a DSL program exactly; raises :class:`ArithError` when it is not valid."""
    if not isinstance(program, str) or not program.strip():
        raise ArithError("empty program")
    if len(program) > MAX_CHARS:
        raise ArithError(f"longer than {MAX_CHARS} characters")
    solve = bool(re.search(r"\bsolve\b", program))
    parser = _Parser(program, solve)
    value, mode, text, shape = parser.program()
    if mode == "solve":
        if value.a == 0:
            raise ArithError("the equation has no unique solution")
        answer = _check(-value.b / value.a)
    else:
        answer = value.b
    return ArithResult(answer=answer, mode=mode, canonical=text, shape=shape, nodes=parser.nodes)


__all__ = ["ArithError", "ArithResult", "evaluate", "FUNCTIONS", "MAX_CHARS"]
