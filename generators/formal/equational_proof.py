"""Equational proofs in groups, commutative rings and Boolean algebras: a chain of rewrites from
the left side of a goal to its right side, each step one instance of a numbered axiom.

Goals come from a random walk from a random start term, within a term-size cap. A move applies
one axiom at one position (each axiom in one direction per walk; a variable only the new side
has is filled with a goal variable), or, from level 5, a derived law (inv(inv(x)) = x,
inv(x*y) = inv(y)*inv(x), x*0 = 0, -(-x) = x, x ∨ x = x, absorption, ...) whose proof from the
axioms is spliced in: the solver sees only the axioms. No move ends one rewrite from an
earlier term or two rewrites from one before that, so every goal is provable by construction
and the walk has no short detours. Any two terms of the walk one rewrite apart are then joined
directly, and a bidirectional breadth-first search over the same rewrites (bounded budget)
replaces the chain by any shorter proof it finds; goals whose proof is still shorter than the
level's ``min_steps`` are drawn again. The reference proof is that chain; effort is its number
of steps.

The checker reads ``t0 = t1 [G2] = t2 [G1 <-] ...`` (one step a line is usual) with its own
small parser (ASCII or Unicode operators, redundant parentheses and whitespace free; no eval).
For each step it searches every position the two terms could differ at for ONE instance of the
cited axiom (the position and the substitution are not asked for), and the first failing step
is named. Any valid chain counts. Verification is bounded: terms, steps and nesting have caps,
match attempts are counted against a budget and the wall clock against a limit; running out of
either is a ``Verdict`` with ``error`` set. The certifying search is most of generation's cost:
level 5 generates at ~60 tasks per CPU-second on a quiet core (~20 on a heavily loaded machine).
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

Term = str | tuple  # a variable is its name; a constant is (symbol,); an application is (symbol, *args)

MAX_STEPS = 100
MAX_TERM_NODES = 300
MAX_TERM_DEPTH = 40
MAX_TERM_CHARS = 2_000
WORK_BUDGET = 10_000  # pattern-match attempts for one response (a chain of distinct terms within
# the caps needs at most MAX_STEPS * 2 * (MAX_TERM_DEPTH + 1) = 8,200; only steps that leave the term
# unchanged, which are searched at every position, can run out)
TIME_LIMIT_S = 3.0  # wall-clock backstop for one response
CERTIFY_BUDGET = 60  # terms the generator's bidirectional search expands looking for a shorter proof
WEAK_BUDGET = 40  # terms the weak solver's bidirectional search may expand
VARIABLE_NAMES = ("a", "b", "c", "d")
THEORY_NAMES = ("group", "ring", "boolean")


class ParseError(ValueError):
    """Model text that is not a term of the theory (or is over a size cap)."""


class BudgetExceeded(Exception):
    """Verification ran out of its work budget or its time limit."""


# --------------------------------------------------------------------------------------------
# Terms
# --------------------------------------------------------------------------------------------


def positions(t: Term) -> list[tuple[tuple[int, ...], Term]]:
    """Every (path, subterm) of ``t`` in preorder."""
    out: list[tuple[tuple[int, ...], Term]] = []
    stack: list[tuple[tuple[int, ...], Term]] = [((), t)]
    while stack:
        path, u = stack.pop()
        out.append((path, u))
        if isinstance(u, tuple):
            for i in range(len(u) - 1, 0, -1):
                stack.append((path + (i,), u[i]))
    return out


def replace_at(t: Term, path: Sequence[int], new: Term) -> Term:
    spine = []
    for i in path:
        spine.append((t, i))
        t = t[i]
    for parent, i in reversed(spine):
        new = parent[:i] + (new,) + parent[i + 1 :]
    return new


def substitute(pattern: Term, sub: dict[str, Term]) -> Term:
    if isinstance(pattern, str):
        return sub[pattern]
    return (pattern[0], *(substitute(p, sub) for p in pattern[1:]))


def variables(t: Term) -> set[str]:
    return {u for _, u in positions(t) if isinstance(u, str)}


def size(t: Term) -> int:
    return 1 if isinstance(t, str) else 1 + sum(size(u) for u in t[1:])


def depth(t: Term) -> int:
    return 1 if isinstance(t, str) else 1 + max((depth(u) for u in t[1:]), default=0)


def match(pattern: Term, t: Term, sub: dict[str, Term]) -> bool:
    """Extend ``sub`` so that ``pattern`` instantiated by it is ``t``."""
    if isinstance(pattern, str):
        bound = sub.get(pattern)
        if bound is None:
            sub[pattern] = t
            return True
        return bound == t
    if isinstance(t, str) or pattern[0] != t[0] or len(pattern) != len(t):
        return False
    return all(match(p, u, sub) for p, u in zip(pattern[1:], t[1:], strict=True))


def canonical(lhs: Term, rhs: Term) -> tuple[Term, Term]:
    """Rename variables v1, v2, ... in order of first occurrence (left side first)."""
    names: dict[str, str] = {}
    for t in (lhs, rhs):
        for _, u in positions(t):
            if isinstance(u, str) and u not in names:
                names[u] = f"v{len(names) + 1}"
    return substitute(lhs, names), substitute(rhs, names)


def goal_hash(theory: Theory, lhs: Term, rhs: Term) -> str:
    """A hash of the goal that ignores variable names and which side is which."""
    forms = [tuple(theory.render(u) for u in canonical(a, b)) for a, b in ((lhs, rhs), (rhs, lhs))]
    return content_hash([theory.name, *min(forms)])


# --------------------------------------------------------------------------------------------
# Theories: syntax, rendering, axioms
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    name: str
    lhs: Term
    rhs: Term
    symmetric: bool
    text: str  # the axiom reads the same both ways (commutativity): one direction suffices

    def sides(self, direction: str) -> tuple[Term, Term]:
        return (self.lhs, self.rhs) if direction == "->" else (self.rhs, self.lhs)


@dataclass(frozen=True)
class Syntax:
    tokens: tuple[tuple[str, str], ...]  # (raw text, token), longest raw text first
    binary: tuple[dict[str, str], ...]  # loosest level first: token -> symbol ("minus": a + (-b))
    prefix: dict[str, str]
    postfix: dict[str, str]
    functions: dict[str, str]
    constants: dict[str, str]


_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,7}(?![A-Za-z0-9_])")
_IDENT_CHAR = re.compile(r"[A-Za-z0-9_]")


def tokenize(text: str, syntax: Syntax) -> list[str]:
    if len(text) > MAX_TERM_CHARS:
        raise ParseError(f"a term longer than {MAX_TERM_CHARS} characters")
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        for raw, token in syntax.tokens:
            # a word (inv, e) is a keyword only when it is not the start of a longer name
            if text.startswith(raw, i) and not (raw[-1].isalpha() and _IDENT_CHAR.match(text, i + len(raw))):
                out.append(token)
                i += len(raw)
                break
        else:
            ident = _IDENT.match(text, i)
            if ident is None:
                raise ParseError(f"unexpected {text[i : i + 10]!r}")
            out.append(ident.group())
            i = ident.end()
    return out


class _Parser:
    def __init__(self, syntax: Syntax, tokens: list[str]) -> None:
        self.syntax, self.tokens, self.i, self.nodes = syntax, tokens, 0, 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise ParseError("the term ends too early")
        self.i += 1
        return token

    def node(self, t: Term) -> Term:
        self.nodes += 1
        if self.nodes > MAX_TERM_NODES:
            raise ParseError(f"a term with more than {MAX_TERM_NODES} symbols")
        return t

    def parse(self) -> Term:
        if not self.tokens:
            raise ParseError("an empty term")
        t = self.expr(0, 0)
        if self.i != len(self.tokens):
            raise ParseError(f"unexpected {self.tokens[self.i]!r}")
        if depth(t) > MAX_TERM_DEPTH:
            raise ParseError(f"a term nested deeper than {MAX_TERM_DEPTH}")
        return t

    def expr(self, level: int, nesting: int) -> Term:
        if nesting > MAX_TERM_DEPTH:
            raise ParseError(f"a term nested deeper than {MAX_TERM_DEPTH}")
        if level == len(self.syntax.binary):
            return self.unary(nesting)
        ops = self.syntax.binary[level]
        left = self.expr(level + 1, nesting)
        while (token := self.peek()) in ops:
            self.i += 1
            right = self.expr(level + 1, nesting)
            if ops[token] == "minus":
                left = self.node(("+", left, self.node(("neg", right))))
            else:
                left = self.node((ops[token], left, right))
        return left

    def unary(self, nesting: int) -> Term:
        token = self.peek()
        if token in self.syntax.prefix:
            self.i += 1
            if nesting > MAX_TERM_DEPTH:
                raise ParseError(f"a term nested deeper than {MAX_TERM_DEPTH}")
            return self.node((self.syntax.prefix[token], self.unary(nesting + 1)))
        t = self.primary(nesting)
        while (token := self.peek()) in self.syntax.postfix:
            self.i += 1
            t = self.node((self.syntax.postfix[token], t))
        return t

    def primary(self, nesting: int) -> Term:
        token = self.take()
        if token == "(":
            t = self.expr(0, nesting + 1)
            if self.take() != ")":
                raise ParseError("a '(' without its ')'")
            return t
        if token in self.syntax.functions:
            if self.take() != "(":
                raise ParseError(f"{token} needs an argument in parentheses")
            t = self.expr(0, nesting + 1)
            if self.take() != ")":
                raise ParseError("a '(' without its ')'")
            return self.node((self.syntax.functions[token], t))
        if token in self.syntax.constants:
            return self.node((self.syntax.constants[token],))
        if _IDENT.fullmatch(token) and token[0].islower():
            return self.node(token)
        raise ParseError(f"unexpected {token!r}")


def _syntax(aliases: dict[str, str], **levels: object) -> Syntax:
    tokens = tuple(sorted(aliases.items(), key=lambda kv: -len(kv[0])))
    return Syntax(tokens=tokens, **levels)  # type: ignore[arg-type]


_GROUP_SYNTAX = _syntax(
    {
        **{s: s for s in "()"},
        **{s: "*" for s in ("*", "·", "⋅", "×", "∘")},
        **{s: "⁻¹" for s in ("⁻¹", "^-1", "^(-1)", "^{-1}", "^−1", "^(−1)")},
        "inv": "inv",
        "e": "e",
    },
    binary=({"*": "*"},),
    prefix={},
    postfix={"⁻¹": "inv"},
    functions={"inv": "inv"},
    constants={"e": "e"},
)
_RING_SYNTAX = _syntax(
    {
        **{s: s for s in "()+01"},
        **{s: "-" for s in ("-", "−")},
        **{s: "*" for s in ("*", "·", "⋅", "×")},
    },
    binary=({"+": "+", "-": "minus"}, {"*": "*"}),
    prefix={"-": "neg"},
    postfix={},
    functions={},
    constants={"0": "0", "1": "1"},
)
_BOOLEAN_SYNTAX = _syntax(
    {
        **{s: s for s in "()"},
        **{s: "∨" for s in ("∨", "|", "||", "+", "\\/")},
        **{s: "∧" for s in ("∧", "&", "&&", "*", "·", "⋅", "/\\")},
        **{s: "¬" for s in ("¬", "~", "!")},
        **{s: "'" for s in ("'", "′")},
        **{s: "0" for s in ("0", "⊥")},
        **{s: "1" for s in ("1", "⊤")},
    },
    binary=({"∨": "or"}, {"∧": "and"}),
    prefix={"¬": "not"},
    postfix={"'": "not"},
    functions={},
    constants={"0": "0", "1": "1"},
)


def _render_group(t: Term) -> str:
    if isinstance(t, str):
        return t
    if t[0] == "inv":
        return f"inv({_render_group(t[1])})"
    if t[0] == "*":
        right = _render_group(t[2])
        return f"{_render_group(t[1])}*" + (f"({right})" if _is(t[2], "*") else right)
    return t[0]


def _is(t: Term, *symbols: str) -> bool:
    return isinstance(t, tuple) and t[0] in symbols


def _render_ring(t: Term) -> str:
    if isinstance(t, str):
        return t
    if t[0] == "neg":
        inner = _render_ring(t[1])
        return f"-{inner}" if isinstance(t[1], str) or len(t[1]) == 1 else f"-({inner})"
    if t[0] in "+*":
        a, b = _render_ring(t[1]), _render_ring(t[2])
        if t[0] == "+":
            a = f"({a})" if _is(t[1], "neg") else a
            b = f"({b})" if _is(t[2], "+", "neg") else b
            return f"{a} + {b}"
        a = f"({a})" if _is(t[1], "+", "neg") else a
        b = f"({b})" if _is(t[2], "+", "*", "neg") else b
        return f"{a}*{b}"
    return t[0]


def _render_boolean(t: Term) -> str:
    if isinstance(t, str):
        return t
    if t[0] == "not":
        inner = _render_boolean(t[1])
        return f"¬({inner})" if _is(t[1], "or", "and") else f"¬{inner}"
    if t[0] in ("or", "and"):
        other = "and" if t[0] == "or" else "or"
        a, b = _render_boolean(t[1]), _render_boolean(t[2])
        a = f"({a})" if _is(t[1], other) else a
        b = f"({b})" if _is(t[2], "or", "and") else b
        return f"{a} {'∨' if t[0] == 'or' else '∧'} {b}"
    return t[0]


@dataclass(frozen=True)
class Theory:
    name: str
    title: str
    syntax: Syntax
    rules: tuple[Rule, ...]
    conventions: str
    example: str

    def parse(self, text: str) -> Term:
        return _Parser(self.syntax, tokenize(text, self.syntax)).parse()

    def render(self, t: Term) -> str:
        return {"group": _render_group, "ring": _render_ring, "boolean": _render_boolean}[self.name](t)

    def rule(self, name: str) -> Rule | None:
        return next((r for r in self.rules if r.name.lower() == name.lower()), None)

    def axiom_lines(self) -> str:
        return "\n".join(f"{r.name}:  {r.text}" for r in self.rules)


def _theory(name: str, title: str, syntax: Syntax, axioms: str, conventions: str, example: str) -> Theory:
    rules = []
    for line in axioms.strip().splitlines():
        label, equation = line.split(":", 1)
        left, right = equation.split("=")
        lhs = _Parser(syntax, tokenize(left, syntax)).parse()
        rhs = _Parser(syntax, tokenize(right, syntax)).parse()
        swapped = (
            substitute(rhs, {"x": "y", "y": "x", "z": "z"}) if variables(rhs) <= {"x", "y", "z"} else None
        )
        rules.append(Rule(label.strip(), lhs, rhs, swapped == lhs, " ".join(equation.split())))
    return Theory(name, title, syntax, tuple(rules), conventions, example)


THEORIES = {
    "group": _theory(
        "group",
        "groups (multiplication *, inverse inv, identity e)",
        _GROUP_SYNTAX,
        """
        G1: (x*y)*z = x*(y*z)
        G2: e*x = x
        G3: x*e = x
        G4: inv(x)*x = e
        G5: x*inv(x) = e
        """,
        "a*b*c means (a*b)*c. Also accepted: · × ∘ for *, and a⁻¹ or a^-1 for inv(a).",
        "inv(a)*(a*b)\n= (inv(a)*a)*b   [G1 <-]\n= e*b   [G4]",
    ),
    "ring": _theory(
        "ring",
        "commutative rings with 1 (addition +, multiplication *, negation -, constants 0 and 1)",
        _RING_SYNTAX,
        """
        R1: (x + y) + z = x + (y + z)
        R2: x + y = y + x
        R3: x + 0 = x
        R4: x + (-x) = 0
        R5: (x*y)*z = x*(y*z)
        R6: x*y = y*x
        R7: x*1 = x
        R8: x*(y + z) = x*y + x*z
        """,
        "* binds tighter than +, a+b+c means (a+b)+c and a*b*c means (a*b)*c; unary minus binds "
        "tightest: -a*b means (-a)*b. a - b is read as a + (-b). Also accepted: · × for *, − for -.",
        "(a + 0)*b\n= a*b   [R3]\n= b*a   [R6]",
    ),
    "boolean": _theory(
        "boolean",
        "Boolean algebras (join ∨, meet ∧, complement ¬, constants 0 and 1)",
        _BOOLEAN_SYNTAX,
        """
        B1: x ∨ y = y ∨ x
        B2: x ∧ y = y ∧ x
        B3: (x ∨ y) ∨ z = x ∨ (y ∨ z)
        B4: (x ∧ y) ∧ z = x ∧ (y ∧ z)
        B5: x ∧ (y ∨ z) = (x ∧ y) ∨ (x ∧ z)
        B6: x ∨ (y ∧ z) = (x ∨ y) ∧ (x ∨ z)
        B7: x ∨ 0 = x
        B8: x ∧ 1 = x
        B9: x ∨ ¬x = 1
        B10: x ∧ ¬x = 0
        """,
        "¬ binds tightest, then ∧, then ∨; a ∨ b ∨ c means (a ∨ b) ∨ c. Also accepted: | or + for ∨, "
        "& or * for ∧, ~ or ! (prefix) or ' (postfix) for ¬, ⊥ and ⊤ for 0 and 1.",
        "(a ∨ 0) ∧ b\n= a ∧ b   [B7]\n= b ∧ a   [B2]",
    ),
}


# Derived laws the walk may apply in one move; their proofs (checked by the tests) are spliced
# into the reference proof, so a goal can hide inv(inv(u)) for u or u ∨ u for u.
LEMMAS = {
    "group": (
        "inv(inv(x)) = inv(inv(x))*e [G3 <-] = inv(inv(x))*(inv(x)*x) [G4 <-] = inv(inv(x))*inv(x)*x [G1 <-]"
        " = e*x [G4] = x [G2]",
        "inv(e) = inv(e)*e [G3 <-] = e [G4]",
        "x*(inv(x)*y) = x*inv(x)*y [G1 <-] = e*y [G5] = y [G2]",
        "inv(x)*(x*y) = inv(x)*x*y [G1 <-] = e*y [G4] = y [G2]",
        "inv(y)*inv(x) = e*(inv(y)*inv(x)) [G2 <-] = inv(x*y)*(x*y)*(inv(y)*inv(x)) [G4 <-]"
        " = inv(x*y)*(x*y*(inv(y)*inv(x))) [G1] = inv(x*y)*(x*(y*(inv(y)*inv(x)))) [G1]"
        " = inv(x*y)*(x*(y*inv(y)*inv(x))) [G1 <-] = inv(x*y)*(x*(e*inv(x))) [G5]"
        " = inv(x*y)*(x*inv(x)) [G2] = inv(x*y)*e [G5] = inv(x*y) [G3]",
    ),
    "ring": (
        "x*0 = x*0 + 0 [R3 <-] = x*0 + (x*0 + (-(x*0))) [R4 <-] = x*0 + x*0 + (-(x*0)) [R1 <-]"
        " = x*(0 + 0) + (-(x*0)) [R8 <-] = x*0 + (-(x*0)) [R3] = 0 [R4]",
        "-(-x) = -(-x) + 0 [R3 <-] = -(-x) + (x + (-x)) [R4 <-] = -(-x) + ((-x) + x) [R2]"
        " = -(-x) + (-x) + x [R1 <-] = (-x) + (-(-x)) + x [R2] = 0 + x [R4] = x + 0 [R2] = x [R3]",
        "0 + x = x + 0 [R2] = x [R3]",
        "1*x = x*1 [R6] = x [R7]",
        "(y + z)*x = x*(y + z) [R6] = x*y + x*z [R8] = y*x + x*z [R6] = y*x + z*x [R6]",
    ),
    "boolean": (
        "x ∨ x = (x ∨ x) ∧ 1 [B8 <-] = (x ∨ x) ∧ (x ∨ ¬x) [B9 <-] = x ∨ (x ∧ ¬x) [B6 <-]"
        " = x ∨ 0 [B10] = x [B7]",
        "x ∧ x = (x ∧ x) ∨ 0 [B7 <-] = (x ∧ x) ∨ (x ∧ ¬x) [B10 <-] = x ∧ (x ∨ ¬x) [B5 <-]"
        " = x ∧ 1 [B9] = x [B8]",
        "x ∨ 1 = (x ∨ 1) ∧ 1 [B8 <-] = (x ∨ 1) ∧ (x ∨ ¬x) [B9 <-] = x ∨ (1 ∧ ¬x) [B6 <-]"
        " = x ∨ (¬x ∧ 1) [B2] = x ∨ ¬x [B8] = 1 [B9]",
        "x ∧ 0 = (x ∧ 0) ∨ 0 [B7 <-] = (x ∧ 0) ∨ (x ∧ ¬x) [B10 <-] = x ∧ (0 ∨ ¬x) [B5 <-]"
        " = x ∧ (¬x ∨ 0) [B1] = x ∧ ¬x [B7] = 0 [B10]",
        "x ∨ (x ∧ y) = (x ∧ 1) ∨ (x ∧ y) [B8 <-] = x ∧ (1 ∨ y) [B5 <-] = x ∧ (y ∨ 1) [B1]"
        " = x ∧ ((y ∨ 1) ∧ 1) [B8 <-] = x ∧ ((y ∨ 1) ∧ (y ∨ ¬y)) [B9 <-] = x ∧ (y ∨ (1 ∧ ¬y)) [B6 <-]"
        " = x ∧ (y ∨ (¬y ∧ 1)) [B2] = x ∧ (y ∨ ¬y) [B8] = x ∧ 1 [B9] = x [B8]",
    ),
}


def _trim_step(part: str) -> str:
    """A chain step without trailing spaces and at most one final ``.``, ``,`` or ``;``."""
    part = part.rstrip()
    return part[:-1].rstrip() if part[-1:] in (".", ",", ";") else part


def parse_chain(theory: Theory, text: str) -> Chain:
    """Our own (trusted) chain text as (term, axiom, direction) entries."""
    parts = _split_chain(text)
    chain: Chain = [(theory.parse(parts[0]), "", "")]
    for part in parts[1:]:
        step = _STEP.match(_trim_step(part))
        label = _LABEL.match(step["label"]) if step else None
        if step is None or label is None:
            raise ValueError(f"cannot read {part!r}")
        chain.append((theory.parse(step["term"]), label["name"], _direction(label)[0]))
    return chain


@functools.cache
def _lemmas(theory_name: str) -> tuple[Chain, ...]:
    theory = THEORIES[theory_name]
    return tuple(parse_chain(theory, text) for text in LEMMAS[theory_name])


def lemma_moves(
    theory: Theory, t: Term, fillers: Sequence[str], max_size: int
) -> Iterator[tuple[tuple[str, str], Chain]]:
    """Every application of a derived law to one subterm of t, as ((law, direction), the spliced
    steps from t); the end term is no larger than ``max_size``."""
    spots = positions(t)
    for number, proof in enumerate(_lemmas(theory.name)):
        for direction in ("->", "<-"):
            steps = proof if direction == "->" else _reverse(proof)
            src = steps[0][0]
            fresh = sorted(set().union(*(variables(u) for u, _, _ in steps)) - variables(src))
            for path, u in spots:
                sub: dict[str, Term] = {}
                if not match(src, u, sub):
                    continue
                for fill in fillers if fresh else ("",):
                    sub.update({v: fill for v in fresh})
                    end = replace_at(t, path, substitute(steps[-1][0], sub))
                    if size(end) > max_size:
                        continue
                    spliced = [(replace_at(t, path, substitute(p, sub)), n, d) for p, n, d in steps[1:]]
                    yield (f"L{number}", direction), spliced


# --------------------------------------------------------------------------------------------
# Rewriting: one step (checker) and all steps (walk, search)
# --------------------------------------------------------------------------------------------


class Work:
    """A budget of pattern-match attempts and a wall-clock deadline for one verification."""

    def __init__(self, budget: int = WORK_BUDGET, time_limit_s: float = TIME_LIMIT_S) -> None:
        self.left = budget
        self.deadline = time.monotonic() + time_limit_s

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise BudgetExceeded("the work budget of pattern-match attempts ran out")
        if self.left % 256 == 0 and time.monotonic() > self.deadline:
            raise BudgetExceeded("the time limit ran out")


def _pair_matches(src: Term, dst: Term, s: Term, t: Term, work: Work) -> bool:
    work.spend()
    sub: dict[str, Term] = {}
    return match(src, s, sub) and match(dst, t, sub)


def one_step(s: Term, t: Term, rule: Rule, directions: Sequence[str], work: Work) -> bool:
    """Does one application of ``rule`` (in one of ``directions``) at one position turn s into t?

    The rewritten position must contain every place where s and t differ, so only the common
    context's spine down to the differences is searched (every position when s == t)."""
    sides = [rule.sides(d) for d in directions]
    if s == t:
        return any(_pair_matches(a, b, u, u, work) for _, u in positions(s) for a, b in sides)
    u, v = s, t
    while True:
        if any(_pair_matches(a, b, u, v, work) for a, b in sides):
            return True
        if isinstance(u, str) or isinstance(v, str) or u[0] != v[0] or len(u) != len(v):
            return False
        differ = [i for i in range(1, len(u)) if u[i] != v[i]]
        if len(differ) != 1:
            return False
        u, v = u[differ[0]], v[differ[0]]


def find_rule(theory: Theory, s: Term, t: Term) -> tuple[str, str] | None:
    """Some (axiom, direction) that turns s into t in one step, if any."""
    work = Work(budget=10**9)
    for rule in theory.rules:
        for direction in ("->",) if rule.symmetric else ("->", "<-"):
            if one_step(s, t, rule, (direction,), work):
                return rule.name, direction
    return None


def _sized_positions(t: Term) -> tuple[list[tuple[tuple[int, ...], Term]], dict[int, int]]:
    """Preorder (path, subterm) pairs and the size of every subterm, keyed by its id."""
    spots = positions(t)
    sizes: dict[int, int] = {}
    for _, u in reversed(spots):  # children before parents
        sizes[id(u)] = 1 if isinstance(u, str) else 1 + sum(sizes[id(c)] for c in u[1:])
    return spots, sizes


def _compile_match(p: Term) -> Callable[[Term, dict[str, Term]], bool]:
    """``match(p, ...)`` specialised to one pattern (the search calls it very often)."""
    if isinstance(p, str):

        def var(u: Term, sub: dict[str, Term], name: str = p) -> bool:
            bound = sub.get(name)
            if bound is None:
                sub[name] = u
                return True
            return bound == u

        return var
    head = p[0]
    if len(p) == 1:
        return lambda u, sub: u == p
    kids = [_compile_match(c) for c in p[1:]]
    if len(p) == 2:
        (k1,) = kids
        return lambda u, sub: type(u) is tuple and u[0] == head and len(u) == 2 and k1(u[1], sub)
    k1, k2 = kids
    return lambda u, sub: (
        type(u) is tuple and u[0] == head and len(u) == 3 and k1(u[1], sub) and k2(u[2], sub)
    )


def _compile_build(p: Term) -> Callable[[dict[str, Term]], Term]:
    """``substitute(p, ...)`` specialised to one pattern."""
    if isinstance(p, str):
        return lambda sub: sub[p]
    head = p[0]
    if len(p) == 1:
        return lambda sub: p
    kids = [_compile_build(c) for c in p[1:]]
    if len(p) == 2:
        (k1,) = kids
        return lambda sub: (head, k1(sub))
    k1, k2 = kids
    return lambda sub: (head, k1(sub), k2(sub))


@functools.cache
def _moves(theory_name: str) -> tuple[tuple, ...]:
    """Per axiom direction: (axiom, direction, source head or "" for a bare variable, matcher of
    the source side, builder of the target side, variables only the target side has, symbols of
    the target side that are not variables, (variable, occurrences) in the target side)."""
    out = []
    for rule in THEORIES[theory_name].rules:
        for direction in ("->",) if rule.symmetric else ("->", "<-"):
            src, dst = rule.sides(direction)
            leaves = [u for _, u in positions(dst) if isinstance(u, str)]
            counts = tuple((v, leaves.count(v)) for v in sorted(set(leaves)))
            fresh = tuple(sorted(variables(dst) - variables(src)))
            head = "" if isinstance(src, str) else src[0]
            out.append(
                (rule.name, direction, head, _compile_match(src), _compile_build(dst), fresh)
                + (size(dst) - len(leaves), counts)
            )
    return tuple(out)


def neighbours(
    theory: Theory, t: Term, fillers: Sequence[str], max_size: int
) -> Iterator[tuple[Term, str, str]]:
    """Every (term, axiom, direction) one rewrite away from t, no larger than ``max_size``; a
    variable only the new side has is filled with one of ``fillers``."""
    spots, sizes = _sized_positions(t)
    by_head: dict[str, list[tuple[tuple[int, ...], Term]]] = {}
    for path, u in spots:
        if not isinstance(u, str):
            by_head.setdefault(u[0], []).append((path, u))
    room = max_size - sizes[id(t)]
    for name, direction, head, matcher, builder, fresh, fixed, counts in _moves(theory.name):
        for path, u in by_head.get(head, ()) if head else spots:
            sub: dict[str, Term] = {}
            if not matcher(u, sub):
                continue
            for fill in fillers if fresh else ("",):
                for v in fresh:
                    sub[v] = fill
                grown = fixed - sizes[id(u)]
                for v, n in counts:
                    grown += n * sizes[id(sub[v])] if v not in fresh else n
                if grown <= room:
                    yield replace_at(t, path, builder(sub)), name, direction


def _flip(direction: str) -> str:
    return "<-" if direction == "->" else "->"


Chain = list[tuple[Term, str, str]]  # (term, axiom that produced it, direction); the first has ""


WALK_TRIES = 8  # candidates a walk step may test before the walk is abandoned


def random_walk(
    theory: Theory,
    start: Term,
    steps: int,
    fillers: Sequence[str],
    max_size: int,
    rng: np.random.Generator,
    lemma_at: Sequence[int] = (),
) -> Chain | None:
    """``steps`` random moves from ``start`` that never come back near the earlier path.

    A move is one rewrite, or at the indices ``lemma_at`` one application of a derived law whose
    proof from the axioms is spliced in. Each axiom is used in one direction only, and a move
    may not end one rewrite from any term before the current one, nor two rewrites from any
    term before that, so no one- or two-step detour shortens the walk. The axiom (or law) and
    direction are drawn first, then the position, so size-growing rewrites that apply
    everywhere do not crowd out the rest."""
    chain: Chain = [(start, "", "")]
    balls: list[set[Term]] = []  # term k and its neighbours
    moves = list(neighbours(theory, start, fillers, max_size))
    within1: set[Term] = {start}  # terms one rewrite from a term before the current one (and the start)
    within2: set[Term] = set()  # ... from a term before the previous one
    # each axiom is used in one direction only, so no later step undoes an earlier one with it
    oriented = {r.name: "->" if r.symmetric or rng.random() < 0.5 else "<-" for r in theory.rules}
    for index in range(steps):
        balls.append({chain[-1][0], *(v for v, _, _ in moves)})
        groups: dict[tuple[str, str], list[Chain]] = {}
        if index in lemma_at:
            for key, spliced in lemma_moves(theory, chain[-1][0], fillers, max_size):
                if spliced[-1][0] not in within1:
                    groups.setdefault(key, []).append(spliced)
        else:
            for new, name, direction in moves:
                if new not in within1 and oriented[name] == direction:
                    groups.setdefault((name, direction), []).append([(new, name, direction)])
        for _ in range(WALK_TRIES):
            if not groups:
                return None
            keys = sorted(groups)
            key = keys[int(rng.integers(len(keys)))]
            options = groups[key]
            spliced = options.pop(int(rng.integers(len(options))))
            if not options:
                del groups[key]
            new_moves = list(neighbours(theory, spliced[-1][0], fillers, max_size))
            if not any(v in within2 for v, _, _ in new_moves):
                break
        else:
            return None
        chain.extend(spliced)
        moves = new_moves
        if len(balls) >= 2:
            within2 |= balls[-2]
        within1 |= balls[-1]
    return chain


def shortcut(theory: Theory, chain: Chain) -> Chain:
    """Jump from each term to the furthest later term one rewrite away."""
    out: Chain = [chain[0]]
    i = 0
    while i < len(chain) - 1:
        for j in range(len(chain) - 1, i, -1):
            found = chain[j][1:] if j == i + 1 else find_rule(theory, chain[i][0], chain[j][0])
            if found:
                out.append((chain[j][0], *found))
                i = j
                break
    return out


def search(
    theory: Theory,
    lhs: Term,
    rhs: Term,
    fillers: Sequence[str],
    max_size: int,
    budget: int,
    shorter_than: int | None = None,
) -> tuple[Chain | None, int]:
    """Bidirectional breadth-first search for a proof (only for one shorter than
    ``shorter_than`` steps when given); (chain or None, terms expanded)."""
    parents: tuple[dict, dict] = ({lhs: None}, {rhs: None})
    fronts: list[list[Term]] = [[lhs], [rhs]]
    depths = [0, 0]
    expanded = 0
    if lhs == rhs:
        return [(lhs, "", "")], 0
    while fronts[0] and fronts[1]:
        if shorter_than is not None and depths[0] + depths[1] + 1 >= shorter_than:
            return None, expanded
        side = 0 if len(fronts[0]) <= len(fronts[1]) else 1
        mine, theirs = parents[side], parents[1 - side]
        new: list[Term] = []
        meets: list[Term] = []
        for u in fronts[side]:
            if expanded >= budget:
                return None, expanded
            expanded += 1
            for v, name, direction in neighbours(theory, u, fillers, max_size):
                if v not in mine:
                    mine[v] = (u, name, direction)
                    new.append(v)
                    if v in theirs:
                        meets.append(v)
        if meets:
            return _join(parents, meets[0]), expanded
        fronts[side] = new
        depths[side] += 1
    return None, expanded


def _join(parents: tuple[dict, dict], meet: Term) -> Chain:
    forward: Chain = []
    t = meet
    while parents[0][t] is not None:
        prev, name, direction = parents[0][t]
        forward.append((t, name, direction))
        t = prev
    chain: Chain = [(t, "", "")] + forward[::-1]
    t = meet
    while parents[1][t] is not None:
        nxt, name, direction = parents[1][t]
        chain.append((nxt, name, _flip(direction)))
        t = nxt
    return chain


# --------------------------------------------------------------------------------------------
# Random start terms
# --------------------------------------------------------------------------------------------


def random_term(theory: Theory, leaves: int, names: Sequence[str], rng: np.random.Generator) -> Term:
    if leaves == 1:
        if rng.random() < 0.12:
            constants = {"group": ("e",), "ring": ("0", "1"), "boolean": ("0", "1")}[theory.name]
            t: Term = (constants[int(rng.integers(len(constants)))],)
        else:
            t = names[int(rng.integers(len(names)))]
    else:
        left = int(rng.integers(1, leaves))
        ops = {"group": ("*",), "ring": ("+", "*"), "boolean": ("or", "and")}[theory.name]
        op = ops[int(rng.integers(len(ops)))]
        t = (op, random_term(theory, left, names, rng), random_term(theory, leaves - left, names, rng))
    unary = {"group": "inv", "ring": "neg", "boolean": "not"}[theory.name]
    if rng.random() < 0.2 and not _is(t, unary):
        t = (unary, t)
    return t


# --------------------------------------------------------------------------------------------
# The checker
# --------------------------------------------------------------------------------------------


_LABEL = re.compile(
    r"^\s*(?P<pre>←|<-|<=|⟵)?\s*(?P<name>[A-Za-z]{1,2}\d{1,2})\s*(?:,\s*)?"
    r"(?P<post>←|<-|<=|⟵|→|->|=>|⟶|rev(?:erse|ersed)?|backwards?|r2l|l2r|forwards?)?\s*$",
    re.I,
)
# matched on a step with its end trimmed (_trim_step): "\s*[.,;]?\s*$" backtracked quadratically
_STEP = re.compile(r"^(?P<term>.*?)\[(?P<label>[^\[\]]{0,40})\]$", re.S)


def _split_chain(text: str) -> list[str]:
    """Split at every '=' outside square brackets (labels may contain '<=' or '=>')."""
    parts, current, inside = [], [], False
    for ch in text:
        if ch == "[":
            inside = True
        elif ch == "]":
            inside = False
        if ch == "=" and not inside:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def _short(theory: Theory, t: Term) -> str:
    text = theory.render(t)
    return text if len(text) <= 80 else text[:77] + "..."


def _direction(label: re.Match[str]) -> tuple[str, ...]:
    pre, post = (label["pre"] or "").lower(), (label["post"] or "").lower()
    if pre or post in ("←", "<-", "<=", "⟵", "r2l") or post.startswith(("rev", "back")):
        return ("<-",)
    if post:
        return ("->",)
    return ("->", "<-")


def check_chain(
    theory: Theory,
    lhs: Term,
    rhs: Term,
    text: str,
    budget: int = WORK_BUDGET,
    time_limit_s: float = TIME_LIMIT_S,
) -> Verdict:
    """Check a rewrite chain from lhs to rhs; the first failing step is named."""
    parts = _split_chain(text)
    if len(parts) - 1 > MAX_STEPS:
        return Verdict.bad_format(f"more than {MAX_STEPS} steps")
    if len(parts) == 1:
        return Verdict.bad_format("no '=' steps: write t0 = t1 [axiom] = t2 [axiom] ...")
    work = Work(budget, time_limit_s)
    try:
        if parts[0].strip():
            try:
                current = theory.parse(parts[0])
            except ParseError as exc:
                return Verdict.bad_format(f"the first term: {exc}")
            if current != lhs:
                return Verdict.wrong(
                    f"the chain must start with the left side {_short(theory, lhs)}, not {_short(theory, current)}"
                )
        current = lhs
        for k, part in enumerate(parts[1:], start=1):
            step = _STEP.match(_trim_step(part))
            if step is None:
                return Verdict.bad_format(f"step {k}: write the term, then the axiom in brackets, e.g. [G2]")
            label = _LABEL.match(step["label"])
            if label is None:
                return Verdict.bad_format(f"step {k}: cannot read the axiom citation [{step['label'][:20]}]")
            try:
                nxt = theory.parse(step["term"])
            except ParseError as exc:
                return Verdict.bad_format(f"step {k}: {exc}")
            rule = theory.rule(label["name"])
            if rule is None:
                names = ", ".join(r.name for r in theory.rules)
                return Verdict.wrong(f"step {k}: there is no axiom {label['name']} (the axioms are {names})")
            directions = _direction(label)
            if not one_step(current, nxt, rule, directions, work):
                how = {("->",): " (left to right)", ("<-",): " (right to left)"}.get(directions, "")
                return Verdict.wrong(
                    f"step {k}: no single application of {rule.name}{how} turns "
                    f"{_short(theory, current)} into {_short(theory, nxt)}"
                )
            current = nxt
    except BudgetExceeded as exc:
        return Verdict.failure(error=f"verification stopped: {exc}", reason="the verifier gave up")
    if current != rhs:
        return Verdict.wrong(
            f"the chain ends with {_short(theory, current)}, not the right side {_short(theory, rhs)}"
        )
    return Verdict.right(parsed=len(parts) - 1)


def render_chain(theory: Theory, chain: Chain) -> str:
    lines = [theory.render(chain[0][0])]
    for term, name, direction in chain[1:]:
        rule = theory.rule(name)
        arrow = " <-" if direction == "<-" and rule is not None and not rule.symmetric else ""
        lines.append(f"= {theory.render(term)}   [{name}{arrow}]")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EquationalKnobs(Knobs):
    theory: str = knob(
        "any",
        choices=("any", "group", "ring", "boolean"),
        help="axioms: groups, commutative rings, Boolean algebras, or any of the three drawn per task",
    )
    term_size: int = knob(3, low=1, high=12, help="leaves of the random start term")
    variables: int = knob(2, low=1, high=4, help="distinct variables the goal may use")
    steps: int = knob(
        2, low=1, high=40, help="moves (rewrites or derived laws) of the walk that makes the goal"
    )
    min_steps: int = knob(
        1, low=1, high=40, help="reject goals with a proof shorter than this (found by search)"
    )
    growth: int = knob(
        4, low=0, high=20, help="terms along the proof may exceed the start term by this many symbols"
    )
    lemmas: int = knob(
        0,
        low=0,
        high=10,
        help="walk steps that apply a derived law (inv(inv(x)) = x, x*0 = 0, x ∨ x = x, ...) whose "
        "proof from the axioms the solver must rediscover",
    )

    def validate(self) -> None:
        if self.min_steps > self.steps:
            raise ValueError("min_steps cannot exceed steps")
        if self.lemmas > self.steps:
            raise ValueError("lemmas cannot exceed steps")


LEVELS = {
    1: EquationalKnobs(term_size=3, variables=2, steps=1, min_steps=1, growth=3),
    2: EquationalKnobs(term_size=3, variables=2, steps=2, min_steps=2, growth=4),
    3: EquationalKnobs(term_size=4, variables=3, steps=3, min_steps=3, growth=5),  # v2: size 3 repeated 3.2%
    4: EquationalKnobs(term_size=4, variables=3, steps=4, min_steps=4, growth=5),
    5: EquationalKnobs(term_size=4, variables=3, steps=4, min_steps=4, growth=5, lemmas=1),
    6: EquationalKnobs(term_size=5, variables=3, steps=5, min_steps=5, growth=6, lemmas=1),
    7: EquationalKnobs(term_size=5, variables=3, steps=6, min_steps=6, growth=6, lemmas=2),
    8: EquationalKnobs(term_size=6, variables=3, steps=8, min_steps=7, growth=7, lemmas=2),
    9: EquationalKnobs(term_size=6, variables=4, steps=9, min_steps=8, growth=7, lemmas=3),
    10: EquationalKnobs(term_size=7, variables=4, steps=11, min_steps=9, growth=8, lemmas=3),
}


PROMPT = """Prove this equation in the theory of {title}, using only the axioms below. In the axioms \
x, y, z stand for any terms.

{axioms}

Goal:  {lhs}  =  {rhs}

Conventions: {conventions}

Write the proof as a chain of terms that starts with the left side of the goal and ends with its \
right side, one term a line. Each new term must come from the previous one by ONE rewrite: \
replace one subterm that is an instance of one side of an axiom (any terms for x, y, z) by the \
same instance of the other side. After each new term cite that axiom in square brackets, e.g. \
[{label}]; either direction counts, and you may mark it: [{label} ->] (its left side became its \
right side) or [{label} <-] (its right side became its left side). The position and the instance are found \
by the checker. Any valid chain is accepted (at most {max_steps} steps). The format, on a \
different equation:
<answer>
{example}
</answer>"""


@family(
    "equational_proof",
    version=2,  # v2: level 3 starts from 4-symbol terms (fewer than 1% duplicates among 2,000 tasks)
    domain="formal",
    knobs=EquationalKnobs,
    levels=LEVELS,
    description="Prove an equation in groups, rings or Boolean algebras as a chain of axiom rewrites; "
    "every step is checked.",
    verifier_kind="step-by-step rewrite checker (any valid chain)",
)
class EquationalProof(Family):
    def generate(self, knobs: EquationalKnobs, rng: np.random.Generator) -> TaskDraft:
        name = knobs.theory if knobs.theory != "any" else THEORY_NAMES[int(rng.integers(3))]
        theory = THEORIES[name]
        names = VARIABLE_NAMES[: knobs.variables]
        for _ in range(500):
            start = random_term(theory, knobs.term_size, names, rng)
            max_size = size(start) + knobs.growth
            lemma_at = sorted(int(i) for i in rng.choice(knobs.steps, size=knobs.lemmas, replace=False))
            walk = random_walk(theory, start, knobs.steps, names, max_size, rng, lemma_at)
            if walk is None:
                continue
            chain = shortcut(theory, walk)
            if len(chain) - 1 < knobs.min_steps:
                continue
            found, expanded = search(
                theory,
                chain[0][0],
                chain[-1][0],
                names,
                max_size,
                CERTIFY_BUDGET,
                shorter_than=len(chain) - 1,
            )
            if found is not None and len(found) < len(chain):
                chain = shortcut(theory, found)
            if len(chain) - 1 >= knobs.min_steps and chain[0][0] != chain[-1][0]:
                break
        else:
            raise RuntimeError(f"could not draw a goal for {knobs}")
        if rng.random() < 0.5:  # either end may be the left side
            chain = _reverse(chain)
        lhs, rhs = chain[0][0], chain[-1][0]
        return TaskDraft(
            prompt=PROMPT.format(
                title=theory.title,
                axioms=theory.axiom_lines(),
                lhs=theory.render(lhs),
                rhs=theory.render(rhs),
                conventions=theory.conventions,
                max_steps=MAX_STEPS,
                example=theory.example,
                label=theory.rules[1].name,
            ),
            answer=render_chain(theory, chain),
            metadata={
                "theory": name,
                "lhs": theory.render(lhs),
                "rhs": theory.render(rhs),
                "variables": list(names),
                "max_size": max_size,
                "proof_steps": len(chain) - 1,
                "search_expanded": expanded,
                "canonical_hash": goal_hash(theory, lhs, rhs),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=False)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        theory = THEORIES[task.metadata["theory"]]
        lhs, rhs = theory.parse(task.metadata["lhs"]), theory.parse(task.metadata["rhs"])
        return check_chain(theory, lhs, rhs, extraction.text)

    def solve_exact(self, task: Task) -> SolverRun:
        # the generator's proof (the shortened walk, or the search's shorter one)
        return SolverRun(self.reference_response(task), float(task.metadata["proof_steps"]))

    def solve_weak(self, task: Task) -> SolverRun:
        # a bidirectional breadth-first search that gives up after WEAK_BUDGET terms
        meta = task.metadata
        theory = THEORIES[meta["theory"]]
        lhs, rhs = theory.parse(meta["lhs"]), theory.parse(meta["rhs"])
        chain, expanded = search(theory, lhs, rhs, meta["variables"], meta["max_size"], WEAK_BUDGET)
        response = None if chain is None else f"<answer>\n{render_chain(theory, chain)}\n</answer>"
        return SolverRun(response, float(expanded))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        lines = task.answer.split("\n")
        theory = THEORIES[task.metadata["theory"]]
        k = int(rng.integers(1, len(lines)))
        out = ["\n".join(lines[:-1] or lines[:1])]  # stops one step short of the right side
        out.append("\n".join(lines[:k] + [_other_axiom(lines, k, theory, rng)] + lines[k + 1 :]))
        out.append("\n".join(lines[:k] + [_rename_leaf(lines[k], theory)] + lines[k + 1 :]))
        out.append("\n".join(lines[:k] + lines[k + 1 :]) if len(lines) > 2 else lines[0] + "\n" + lines[0])
        out.append(
            lines[0] + f"\n= {task.metadata['rhs']}   [{theory.rules[0].name}]" if len(lines) > 2 else ""
        )
        return [f"<answer>\n{text}\n</answer>" for text in dict.fromkeys(out) if text]


def _reverse(chain: Chain) -> Chain:
    out: Chain = [(chain[-1][0], "", "")]
    for i in range(len(chain) - 1, 0, -1):
        out.append((chain[i - 1][0], chain[i][1], _flip(chain[i][2])))
    return out


def _other_axiom(lines: list[str], k: int, theory: Theory, rng: np.random.Generator) -> str:
    """Line k citing an axiom that does not justify its step (in either direction)."""
    prev = theory.parse(lines[k - 1].split("[")[0].lstrip("= "))
    body, _ = lines[k].rsplit("[", 1)
    term = theory.parse(body.lstrip("= "))
    work = Work(budget=10**9)
    wrong = [r.name for r in theory.rules if not one_step(prev, term, r, ("->", "<-"), work)]
    name = wrong[int(rng.integers(len(wrong)))] if wrong else "Z9"
    return f"{body}[{name}]"


def _rename_leaf(line: str, theory: Theory) -> str:
    """Replace one variable occurrence by a variable the goal does not use."""
    body, label = line.rsplit("[", 1)
    term = theory.parse(body.lstrip("= "))
    leaves = [path for path, u in positions(term) if isinstance(u, str)]
    if leaves:
        term = replace_at(term, leaves[-1], "q")
    else:
        term = (
            ("*", term, "q")
            if theory.name == "group"
            else ("+" if theory.name == "ring" else "or", term, "q")
        )
    return f"= {theory.render(term)}   [{label}"
