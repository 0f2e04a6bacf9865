"""Natural-deduction proofs in Fitch style, propositional and first-order, checked line by line.

A task is a valid sequent (premises ⊢ conclusion). The model writes a numbered Fitch proof, one
step per line, ``N. formula [rule cites]``; a subproof opens with an ``[assume]`` line and each
line inside it carries one ``|`` bar per level of nesting. Our own checker (a hand-written
formula scanner, no eval) verifies every step against a small rule set: ∧I/E, ∨I/E, →I/E,
¬I/E, ⊥E, RAA, ¬¬E, reiteration, and for first-order sequents ∀I/E and ∃I/E with their
eigenvariable side conditions. Formulas are compared up to renaming of bound variables (the
checker works on a locally nameless form). Any valid proof counts; a wrong proof's verdict
names the first failing line, so the multi-turn feedback env returns exactly that step.

Generation: a propositional core sequent is drawn at random and kept when a truth table shows
the premises satisfiable and the entailment valid (and every premise needed). From level 3 on,
distractor premises are shuffled in: drawn like the others, not needed (the other premises
entail the conclusion alone) and unable to replace a needed one; no formula pads itself with
two equal sides (A ∧ A, A → A). They keep the space of sequents per level far above the 2,000
tasks the duplicate benchmark draws (canonical hash under renaming) and make choosing the
relevant premises part of the task; metadata lists them. First-order
levels lift such a core uniformly into a small language (unary and binary predicates, names
a, b) under ∀, ∃ or ∀∃ patterns whose validity follows from the core's. The reference prover
is a goal-directed intercalation search (introduction rules backwards, eliminations forwards,
∨E/∃E case splits, classical RAA) under iterative deepening; its proof is pruned to the lines
the conclusion depends on. A sequent is kept only when the prover proves it within its budget
and the proof length fits the level, so the exact solver always solves. Effort is the
prover's search nodes. The weak solver is the same search on a budget of 150 nodes (it gives
up on whatever needs more). Verification is linear in the proof (at most 300
lines, formulas capped in length and nesting), with a wall-clock guard as well.
Level 5 generates at about 140 tasks/s (CPU time, one core), level 10 at about 30 (its
sequents need searches of ~1500 nodes and most drawn cores are rejected for a short proof).
"""

from __future__ import annotations

import functools
import itertools
import re
import time
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MAX_LINES = 300
MAX_FORMULA_CHARS = 400
MAX_FORMULA_DEPTH = 40
VERIFY_SECONDS = 5.0  # wall-clock guard; the size caps alone keep a check far below this
VARIABLES = ("x", "y", "z", "w", "u", "v")
ATOMS = ("P", "Q", "R", "S", "T")
FRESH = "defghkmnpqrst"  # names the prover invents for ∀I / ∃E (task names are a, b)
EXACT_BUDGET = 20_000
WEAK_BUDGET = 150
MAX_FRESH = 3  # invented names per branch

Formula = tuple  # ("A", pred, args) | ("F",) | ("N", f) | ("&"|"|"|">", f, g) | ("all"|"ex", body)
FALSUM: Formula = ("F",)


# --------------------------------------------------------------------------------------------
# Formulas: locally nameless (bound variables are de Bruijn indices, names are strings)
# --------------------------------------------------------------------------------------------


def inst(f: Formula, c: str, k: int = 0) -> Formula:
    """The body of a quantifier with its bound variable (index ``k``) replaced by the name ``c``."""
    tag = f[0]
    if tag == "A":
        return ("A", f[1], tuple(c if t == k and isinstance(t, int) else t for t in f[2]))
    if tag == "F":
        return f
    if tag == "N":
        return ("N", inst(f[1], c, k))
    if tag in ("&", "|", ">"):
        return (tag, inst(f[1], c, k), inst(f[2], c, k))
    return (tag, inst(f[1], c, k + 1))


def names_in(f: Formula, out: set[str] | None = None) -> set[str]:
    """The names (constants) occurring in ``f``."""
    out = set() if out is None else out
    tag = f[0]
    if tag == "A":
        out.update(t for t in f[2] if isinstance(t, str))
    elif tag in ("N", "all", "ex"):
        names_in(f[1], out)
    elif tag != "F":
        names_in(f[1], out)
        names_in(f[2], out)
    return out


def match_instance(body: Formula, target: Formula) -> tuple[bool, str | None]:
    """Is ``target`` = ``inst(body, c)`` for some name c? Returns (ok, c or None if vacuous)."""
    found: list[str] = []

    def walk(b: Formula, t: Formula, k: int) -> bool:
        if b[0] != t[0]:
            return False
        tag = b[0]
        if tag == "A":
            if b[1] != t[1] or len(b[2]) != len(t[2]):
                return False
            for x, y in zip(b[2], t[2], strict=True):
                if isinstance(x, int) and x == k:
                    if not isinstance(y, str) or (found and found[0] != y):
                        return False
                    found[:1] = [y]
                elif x != y:
                    return False
            return True
        if tag == "F":
            return True
        if tag == "N":
            return walk(b[1], t[1], k)
        if tag in ("&", "|", ">"):
            return walk(b[1], t[1], k) and walk(b[2], t[2], k)
        return walk(b[1], t[1], k + 1)

    ok = walk(body, target, 0)
    return ok, (found[0] if ok and found else None)


_SYMBOL = {"&": "∧", "|": "∨", ">": "→"}


def render(f: Formula, depth: int = 0, ctx: str = "top") -> str:
    """Unicode text with every binary subformula parenthesised (no precedence to remember)."""
    tag = f[0]
    if tag == "A":
        if not f[2]:
            return f[1]
        args = ", ".join(t if isinstance(t, str) else VARIABLES[depth - 1 - t] for t in f[2])
        return f"{f[1]}({args})"
    if tag == "F":
        return "⊥"
    if tag == "N":
        return "¬" + render(f[1], depth, "unary")
    if tag in _SYMBOL:
        text = f"{render(f[1], depth, 'binary')} {_SYMBOL[tag]} {render(f[2], depth, 'binary')}"
        return text if ctx == "top" else f"({text})"
    text = f"{'∀' if tag == 'all' else '∃'}{VARIABLES[depth]} {render(f[1], depth + 1, 'unary')}"
    return f"({text})" if ctx == "binary" else text


# --------------------------------------------------------------------------------------------
# Formula parser: a hand-written scanner and recursive descent with length and depth caps
# --------------------------------------------------------------------------------------------


class FormulaError(ValueError):
    pass


_TOKEN = re.compile(
    r"""\s*(?:
      (?P<bot>⊥|_\|_)
    | (?P<imp>->|→|=>|⊃)
    | (?P<and>∧|&|/\\)
    | (?P<or>∨|\\/|\|)
    | (?P<not>¬|~|!)
    | (?P<all>∀|forall(?![A-Za-z0-9_]))
    | (?P<ex>∃|exists(?![A-Za-z0-9_]))
    | (?P<lp>\() | (?P<rp>\)) | (?P<comma>,) | (?P<dot>[.:])
    | (?P<pred>[A-Z][A-Za-z0-9_]{0,15}(?![A-Za-z0-9_]))
    | (?P<name>[a-z][a-z0-9_]{0,15}(?![a-z0-9_]))
    )""",
    re.X,
)
_VARIABLE = re.compile(r"[u-z][0-9]{0,3}")


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            if text[pos:].strip():
                raise FormulaError(f"unexpected {text[pos:].strip()[:12]!r}")
            break
        kind = match.lastgroup
        assert kind is not None
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens, self.i, self.depth, self.bound = tokens, 0, 0, []

    def peek(self) -> str | None:
        return self.tokens[self.i][0] if self.i < len(self.tokens) else None

    def take(self, kind: str) -> str:
        if self.peek() != kind:
            got = self.tokens[self.i][1] if self.i < len(self.tokens) else "the end"
            raise FormulaError(f"expected {kind} but found {got!r}")
        self.i += 1
        return self.tokens[self.i - 1][1]

    def formula(self) -> Formula:
        left = self.disjunction()
        if self.peek() == "imp":
            self.i += 1
            return (">", left, self.formula())  # right-associative
        return left

    def disjunction(self) -> Formula:
        f = self.conjunction()
        while self.peek() == "or":
            self.i += 1
            f = ("|", f, self.conjunction())
        return f

    def conjunction(self) -> Formula:
        f = self.unary()
        while self.peek() == "and":
            self.i += 1
            f = ("&", f, self.unary())
        return f

    def unary(self) -> Formula:
        self.depth += 1
        if self.depth > MAX_FORMULA_DEPTH:
            raise FormulaError(f"nested deeper than {MAX_FORMULA_DEPTH}")
        try:
            kind = self.peek()
            if kind == "not":
                self.i += 1
                return ("N", self.unary())
            if kind in ("all", "ex"):
                self.i += 1
                var = self.take("name")
                if self.peek() == "dot":
                    self.i += 1
                return self.quantified(kind, var)
            ahead = [k for k, _ in self.tokens[self.i : self.i + 4]]
            if ahead in (["lp", "all", "name", "rp"], ["lp", "ex", "name", "rp"]):  # (∀x) P(x)
                var = self.tokens[self.i + 2][1]
                self.i += 4
                return self.quantified(ahead[1], var)
            if kind == "lp":
                self.i += 1
                f = self.formula()
                self.take("rp")
                return f
            if kind == "bot":
                self.i += 1
                return FALSUM
            return self.atom()
        finally:
            self.depth -= 1

    def quantified(self, kind: str, var: str) -> Formula:
        if not _VARIABLE.fullmatch(var):
            raise FormulaError(f"{var!r} is a name, not a variable (variables are u..z)")
        self.bound.append(var)
        try:
            body = self.unary()
        finally:
            self.bound.pop()
        return (kind, body)

    def atom(self) -> Formula:
        pred = self.take("pred")
        args: list[str | int] = []
        if self.peek() == "lp":
            self.i += 1
            args.append(self.term())
            while self.peek() == "comma":
                self.i += 1
                args.append(self.term())
            self.take("rp")
        return ("A", pred, tuple(args))

    def term(self) -> str | int:
        name = self.take("name")
        for k, var in enumerate(reversed(self.bound)):
            if var == name:
                return k
        if _VARIABLE.fullmatch(name):
            raise FormulaError(f"variable {name!r} is not bound by a quantifier")
        return name


def parse_formula(text: str) -> Formula:
    """Parse one formula (ASCII or unicode connectives); raises :class:`FormulaError`."""
    if len(text) > MAX_FORMULA_CHARS:
        raise FormulaError(f"longer than {MAX_FORMULA_CHARS} characters")
    tokens = _tokenize(text)
    if not tokens:
        raise FormulaError("no formula")
    parser = _Parser(tokens)
    f = parser.formula()
    if parser.i != len(tokens):
        raise FormulaError(f"unexpected {tokens[parser.i][1]!r}")
    return f


# --------------------------------------------------------------------------------------------
# Proof text: numbered lines with scope bars and a bracketed justification
# --------------------------------------------------------------------------------------------

_BARS = "|│┃"
_NUMBERED = re.compile(r"^(?P<pre>[\s|│┃]*)(?P<n>\d{1,6})\s*[.:)]?(?P<rest>.*)$")
_SKIP = re.compile(r"[\s|│┃\-_─—=`]*")
MAX_JUSTIFICATION_CHARS = 200  # a rule name and a few line numbers
_JUST = re.compile(r"^\s*(?P<rule>.+?)(?:[\s,]+(?P<cites>\d[\d\s,\-–—]*))?\s*$")
_RULE_WORDS = (
    ("introduction", "i"),
    ("elimination", "e"),
    ("intro", "i"),
    ("elim", "e"),
    ("_|_", "bot"),
    ("⊥", "bot"),
    ("->", "imp"),
    ("→", "imp"),
    ("=>", "imp"),
    ("⊃", "imp"),
    ("/\\", "and"),
    ("\\/", "or"),
    ("∧", "and"),
    ("&", "and"),
    ("∨", "or"),
    ("|", "or"),
    ("¬", "not"),
    ("~", "not"),
    ("!", "not"),
    ("∀", "all"),
    ("forall", "all"),
    ("∃", "ex"),
    ("exists", "ex"),
)
_RULES = {
    "premise": ("premise", "prem", "pr", "given", "p"),
    "assume": ("assume", "assumption", "ass", "asm", "hyp", "hypothesis", "a", "as", "supposition"),
    "reit": ("r", "reit", "reiteration", "rep", "repeat", "copy", "re"),
    "andI": ("andi",),
    "andE": ("ande", "ande1", "ande2"),
    "orI": ("ori", "ori1", "ori2"),
    "orE": ("ore",),
    "impI": ("impi", "cp"),
    "impE": ("impe", "mp", "modusponens"),
    "notI": ("noti",),
    "notE": ("note",),
    "botE": ("bote", "x", "efq", "explosion", "exfalso"),
    "raa": ("raa", "ip", "pbc", "notnoti", "reductio"),
    "dne": ("notnote", "dne", "dn"),
    "allE": ("alle", "ui"),
    "allI": ("alli", "ug"),
    "exI": ("exi", "eg"),
    "exE": ("exe", "ei"),
}
_RULE_LOOKUP = {alias: rule for rule, aliases in _RULES.items() for alias in aliases}
RULE_TEXT = {
    "premise": "premise",
    "assume": "assume",
    "reit": "R",
    "andI": "∧I",
    "andE": "∧E",
    "orI": "∨I",
    "orE": "∨E",
    "impI": "→I",
    "impE": "→E",
    "notI": "¬I",
    "notE": "¬E",
    "botE": "⊥E",
    "raa": "RAA",
    "dne": "¬¬E",
    "allE": "∀E",
    "allI": "∀I",
    "exI": "∃I",
    "exE": "∃E",
}


def normalize_rule(text: str) -> str | None:
    key = re.sub(r"[\s.]+", "", text.lower())
    for word, short in _RULE_WORDS:
        key = key.replace(word, short)
    key = key.replace("-", "")
    return _RULE_LOOKUP.get(key)


@dataclass(frozen=True)
class Line:
    n: int
    depth: int
    formula: Formula
    rule: str
    cites: tuple[int | tuple[int, int], ...]


def parse_proof(text: str) -> tuple[list[Line] | None, str]:
    """Numbered lines, or (None, the reason naming the first unreadable line)."""
    raw = [line for line in text.splitlines() if not _SKIP.fullmatch(line)]
    if len(raw) > MAX_LINES:
        return None, f"the proof has more than {MAX_LINES} lines"
    if not raw:
        return None, "no proof lines"
    lines: list[Line] = []
    for expected, line in enumerate(raw, start=1):
        where = f"line {expected}"
        match = _NUMBERED.match(line)
        if match is None:
            return None, f"{where}: cannot read {line.strip()[:60]!r} (expected 'N. formula [rule cites]')"
        if int(match["n"]) != expected:
            return None, f"{where}: numbered {match['n']}, expected {expected}"
        rest = match["rest"]
        bars = sum(match["pre"].count(b) for b in _BARS)
        stripped = rest.lstrip()
        while stripped[:1] and stripped[0] in _BARS:  # a formula never starts with "|"
            bars += 1
            stripped = stripped[1:].lstrip()
        if not stripped.endswith("]") or "[" not in stripped:
            return None, f"{where}: no justification in brackets, e.g. [→E 1, 2]"
        cut = stripped.rfind("[")
        body, just = stripped[:cut].strip(), stripped[cut + 1 : -1]
        try:
            formula = parse_formula(body)
        except FormulaError as exc:
            return None, f"{where}: cannot read the formula {body[:50]!r}: {exc}"
        jm = _JUST.match(just) if len(just) <= MAX_JUSTIFICATION_CHARS else None  # bounds the regex
        rule = normalize_rule(jm["rule"]) if jm else None
        if jm is None or rule is None:
            return None, f"{where}: unknown rule in [{just[:30]}]"
        cites: list[int | tuple[int, int]] = []
        if jm["cites"]:
            spec = re.sub(r"\s*[-–—]\s*", "-", jm["cites"].strip())
            for item in filter(None, re.split(r"[\s,]+", spec)):
                parts = item.split("-")
                if len(parts) > 2 or not all(p.isdigit() and len(p) <= 6 for p in parts):
                    return None, f"{where}: cannot read the citation {item[:20]!r}"
                cites.append(int(parts[0]) if len(parts) == 1 else (int(parts[0]), int(parts[1])))
        lines.append(Line(expected, bars, formula, rule, tuple(cites)))
    return lines, ""


# --------------------------------------------------------------------------------------------
# The checker
# --------------------------------------------------------------------------------------------


class _StepError(Exception):
    pass


class _Checker:
    """Checks lines in order; scope is the tuple of open subproof starts at each line."""

    def __init__(self, premises: list[Formula], conclusion: Formula):
        self.premises, self.conclusion = premises, conclusion
        self.formula: dict[int, Formula] = {}
        self.scope: dict[int, tuple[int, ...]] = {}
        self.end: dict[int, int] = {}
        self.premise_lines: list[int] = []

    def place(self, line: Line, stack: list[int]) -> None:
        """Open/close subproofs for ``line`` (``stack`` holds open subproof starts)."""
        d, n = line.depth, line.n
        if line.rule == "assume":
            if not 1 <= d <= len(stack) + 1:
                raise _StepError(f"an assumption opens one new subproof: it needs {len(stack) + 1} bar(s)")
            self._close(stack, d - 1, n)
            stack.append(n)
        else:
            if d > len(stack):
                raise _StepError(
                    f"{d} bar(s) but only {len(stack)} subproof(s) are open (open one with [assume])"
                )
            self._close(stack, d, n)
        self.scope[n] = tuple(stack)

    def _close(self, stack: list[int], depth: int, n: int) -> None:
        while len(stack) > depth:
            self.end[stack.pop()] = n - 1

    def line(self, n: int, j: object) -> Formula:
        if not isinstance(j, int):
            raise _StepError(f"{j[0]}-{j[1]} is a range; this rule cites single lines")  # type: ignore[index]
        if not 1 <= j < n:
            raise _StepError(f"cites line {j}, which is not an earlier line")
        inner, outer = self.scope[j], self.scope[n]
        if outer[: len(inner)] != inner:
            raise _StepError(f"cites line {j}, which is inside a subproof that is already closed")
        return self.formula[j]

    def sub(self, n: int, cite: object) -> tuple[Formula, Formula]:
        if not isinstance(cite, tuple):
            raise _StepError(f"cites line {cite} where a subproof range i-j is needed")
        i, j = cite
        if not 1 <= i < n or self.scope[i][-1:] != (i,):
            raise _StepError(f"{i}-{j} is not a subproof: line {i} is not an earlier assumption")
        if i not in self.end:
            raise _StepError(f"the subproof starting at line {i} is still open")
        if not i <= j <= self.end[i] or self.scope[j] != self.scope[i]:
            raise _StepError(f"line {j} is not a line of the subproof {i}-{self.end[i]} (at its own level)")
        parent, outer = self.scope[i][:-1], self.scope[n]
        if outer[: len(parent)] != parent:
            raise _StepError(f"the subproof {i}-{j} is inside a subproof that is already closed")
        return self.formula[i], self.formula[j]

    def fresh_ok(self, n: int, c: str, *others: Formula) -> None:
        """The eigenvariable condition for ∀I / ∃E at line ``n``."""
        for f in others:
            if c in names_in(f):
                raise _StepError(f"the name {c} occurs in {render(f)}")
        for p in self.premise_lines:
            if p < n and c in names_in(self.formula[p]):
                raise _StepError(f"the name {c} occurs in the premise on line {p}")
        for a in self.scope[n]:
            if c in names_in(self.formula[a]):
                raise _StepError(f"the name {c} occurs in the open assumption on line {a}")

    def check(self, line: Line) -> None:
        n, f, rule, cites = line.n, line.formula, line.rule, line.cites
        want = {"premise": 0, "assume": 0, "reit": 1, "andI": 2, "andE": 1, "orI": 1, "orE": 3}
        want |= {"impI": 1, "impE": 2, "notI": 1, "notE": 2, "botE": 1, "raa": 1, "dne": 1}
        want |= {"allE": 1, "allI": 1, "exI": 1, "exE": 2}
        name = RULE_TEXT[rule]
        if len(cites) != want[rule]:
            raise _StepError(f"{name} cites {want[rule]} line(s) or subproof(s), not {len(cites)}")
        if rule == "premise":
            if line.depth != 0 or f not in self.premises:
                raise _StepError(f"{render(f)} is not one of the premises (premises go outside subproofs)")
            self.premise_lines.append(n)
            return
        if rule == "assume":
            return
        fail = _StepError(f"{name} does not give {render(f)} from the cited line(s)")
        if rule == "reit":
            if self.line(n, cites[0]) != f:
                raise _StepError(f"line {cites[0]} is not {render(f)}")
        elif rule == "andI":
            a, b = (self.line(n, c) for c in cites)
            if f[0] != "&" or (f[1], f[2]) not in ((a, b), (b, a)):
                raise fail
        elif rule == "andE":
            a = self.line(n, cites[0])
            if a[0] != "&" or f not in (a[1], a[2]):
                raise fail
        elif rule == "orI":
            a = self.line(n, cites[0])
            if f[0] != "|" or a not in (f[1], f[2]):
                raise fail
        elif rule == "orE":
            singles = [c for c in cites if isinstance(c, int)]
            ranges = [c for c in cites if isinstance(c, tuple)]
            if len(singles) != 1 or len(ranges) != 2:
                raise _StepError("∨E cites one line A ∨ B and two subproofs, e.g. [∨E 1, 2-4, 5-7]")
            d = self.line(n, singles[0])
            (h1, r1), (h2, r2) = (self.sub(n, r) for r in ranges)
            if d[0] != "|" or (h1, h2) not in ((d[1], d[2]), (d[2], d[1])):
                raise _StepError("the subproofs must assume the two sides of the cited disjunction")
            if r1 != f or r2 != f:
                raise _StepError(f"both subproofs must end with {render(f)}")
        elif rule == "impI":
            h, r = self.sub(n, cites[0])
            if f != (">", h, r):
                raise fail
        elif rule == "impE":
            a, b = (self.line(n, c) for c in cites)
            if not ((a[0] == ">" and a[1] == b and a[2] == f) or (b[0] == ">" and b[1] == a and b[2] == f)):
                raise fail
        elif rule == "notI":
            h, r = self.sub(n, cites[0])
            if f != ("N", h) or r != FALSUM:
                raise fail
        elif rule == "notE":
            a, b = (self.line(n, c) for c in cites)
            if f != FALSUM or not (a == ("N", b) or b == ("N", a)):
                raise fail
        elif rule == "botE":
            if self.line(n, cites[0]) != FALSUM:
                raise _StepError(f"line {cites[0]} is not ⊥")
        elif rule == "raa":
            h, r = self.sub(n, cites[0])
            if h != ("N", f) or r != FALSUM:
                raise fail
        elif rule == "dne":
            if self.line(n, cites[0]) != ("N", ("N", f)):
                raise fail
        elif rule in ("allE", "exI"):
            a = self.line(n, cites[0])
            general, instance = (a, f) if rule == "allE" else (f, a)
            if (
                general[0] != ("all" if rule == "allE" else "ex")
                or not match_instance(general[1], instance)[0]
            ):
                raise fail
        elif rule == "allI":
            a = self.line(n, cites[0])
            ok, c = match_instance(f[1], a) if f[0] == "all" else (False, None)
            if not ok:
                raise fail
            if c is not None:
                self.fresh_ok(n, c, f)
        elif rule == "exE":
            singles = [c for c in cites if isinstance(c, int)]
            ranges = [c for c in cites if isinstance(c, tuple)]
            if len(singles) != 1 or len(ranges) != 1:
                raise _StepError("∃E cites one line ∃x A(x) and one subproof, e.g. [∃E 1, 2-5]")
            e = self.line(n, singles[0])
            h, r = self.sub(n, ranges[0])
            ok, c = match_instance(e[1], h) if e[0] == "ex" else (False, None)
            if not ok:
                raise _StepError(f"the subproof must assume an instance of line {singles[0]}")
            if r != f:
                raise _StepError(f"the subproof must end with {render(f)}")
            if c is not None:
                self.fresh_ok(n, c, e, f)


def check_proof(premises: list[Formula], conclusion: Formula, text: str) -> Verdict:
    """Check every step; a wrong proof's reason starts with ``line N:`` for the first bad line."""
    lines, why = parse_proof(text)
    if lines is None:
        return Verdict.bad_format(why)
    checker = _Checker(premises, conclusion)
    stack: list[int] = []
    started = time.monotonic()
    for line in lines:
        if time.monotonic() - started > VERIFY_SECONDS:
            return Verdict.timed_out(f"the check ran past {VERIFY_SECONDS} s")
        checker.formula[line.n] = line.formula
        try:
            checker.place(line, stack)
            checker.check(line)
        except _StepError as exc:
            return Verdict.wrong(f"line {line.n}: {exc}", parsed=len(lines))
    last = lines[-1]
    if last.depth != 0:
        return Verdict.wrong(
            f"line {last.n}: the last line must be outside every subproof", parsed=len(lines)
        )
    if last.formula != conclusion or last.rule == "assume":
        return Verdict.wrong(
            f"line {last.n}: the proof ends with {render(last.formula)}, not the conclusion {render(conclusion)}",
            parsed=len(lines),
        )
    return Verdict.right(parsed=len(lines))


# --------------------------------------------------------------------------------------------
# The reference prover: goal-directed intercalation search under iterative deepening
# --------------------------------------------------------------------------------------------


class _Budget(Exception):
    pass


class _Node:
    __slots__ = ("formula", "rule", "refs")

    def __init__(self, formula: Formula, rule: str, refs: list):
        self.formula, self.rule, self.refs = formula, rule, refs


class _Sub:
    __slots__ = ("assume", "items", "result")

    def __init__(self, assume: _Node):
        self.assume, self.items, self.result = assume, [assume], assume


def _heads(f: Formula) -> set[Formula]:
    """What an implication's consequent can hand over by ∧E / →E (for backward chaining)."""
    out = {f}
    if f[0] == "&":
        out |= _heads(f[1]) | _heads(f[2])
    elif f[0] == ">":
        out |= _heads(f[2])
    return out


class Prover:
    """Search for a Fitch proof; ``nodes`` counts the work (goals tried and lines derived)."""

    def __init__(self, premises: list[Formula], conclusion: Formula, budget: int, classical: bool = True):
        self.premises, self.conclusion, self.budget, self.classical = premises, conclusion, budget, classical
        self.task_names = sorted(set().union(*(names_in(p) for p in [*premises, conclusion])))
        self.max_names = len(self.task_names) + MAX_FRESH  # bounds ∀∃ instantiation chains
        self.nodes = 0

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _Budget

    # state ---------------------------------------------------------------------------------
    def _reset(self) -> None:
        self.top: list = []
        self.stack: list[list] = [self.top]
        self.avail: dict[Formula, _Node] = {}
        self.log: list[tuple] = []
        self.consts: list[str] = list(self.task_names)
        self.kinds: dict[str, list[_Node]] = {"all": [], "ex": [], "|": [], "N": [], ">": []}
        self.imps: dict[Formula, list[_Node]] = {}
        self.used: set[Formula] = set()

    def _undo(self, mark: int) -> None:
        while len(self.log) > mark:
            entry = self.log.pop()
            kind = entry[0]
            if kind == "avail":
                del self.avail[entry[1]]
            elif kind == "kind":
                self.kinds[entry[1]].pop()
            elif kind == "imp":
                self.imps[entry[1]].pop()
            elif kind == "const":
                self.consts.pop()
            elif kind == "used":
                self.used.discard(entry[1])

    def _snap(self) -> tuple[int, int]:
        return len(self.stack[-1]), len(self.log)

    def _restore(self, snap: tuple[int, int]) -> None:
        del self.stack[-1][snap[0] :]
        self._undo(snap[1])

    def _add(self, formula: Formula, rule: str, refs: list) -> _Node:
        node = _Node(formula, rule, refs)
        self.stack[-1].append(node)
        self._fact(node)
        return node

    def _fact(self, node: _Node) -> None:
        """Make ``node`` available and saturate under the cheap eliminations."""
        queue = [node]
        while queue:
            nd = queue.pop()
            f = nd.formula
            if f in self.avail:
                continue
            self._tick()
            self.avail[f] = nd
            self.log.append(("avail", f))
            tag = f[0]
            if tag in self.kinds:
                self.kinds[tag].append(nd)
                self.log.append(("kind", tag))
            derived: list[tuple[Formula, str, list]] = []
            if tag == "&":
                derived += [(f[1], "andE", [nd]), (f[2], "andE", [nd])]
            elif tag == ">":
                self.imps.setdefault(f[1], []).append(nd)
                self.log.append(("imp", f[1]))
                if f[1] in self.avail:
                    derived.append((f[2], "impE", [nd, self.avail[f[1]]]))
            elif tag == "N":
                if f[1] in self.avail:
                    derived.append((FALSUM, "notE", [self.avail[f[1]], nd]))
                if f[1][0] == "N" and self.classical:
                    derived.append((f[1][1], "dne", [nd]))
            elif tag == "all":
                derived += [(inst(f[1], c), "allE", [nd]) for c in self.consts]
            if ("N", f) in self.avail:
                derived.append((FALSUM, "notE", [nd, self.avail[("N", f)]]))
            for imp in self.imps.get(f, ()):
                derived.append((imp.formula[2], "impE", [imp, nd]))
            for g, rule, refs in derived:
                if g not in self.avail:
                    new = _Node(g, rule, refs)
                    self.stack[-1].append(new)
                    queue.append(new)

    def _new_const(self) -> str:
        c = next(x for x in FRESH if x not in self.consts)
        self.consts.append(c)
        self.log.append(("const",))
        for nd in list(self.kinds["all"]):
            self._add_if_new(inst(nd.formula[1], c), "allE", [nd])
        return c

    def _add_if_new(self, formula: Formula, rule: str, refs: list) -> None:
        if formula not in self.avail:
            self._add(formula, rule, refs)

    def _in_sub(self, assumption: Formula, goal: Formula, depth: int, eigen: bool = False):
        """Prove ``goal`` in a new subproof; returns (the closed subproof, its name) or None."""
        parent = self.stack[-1]
        snap = self._snap()
        sub = _Sub(_Node(assumption, "assume", []))
        parent.append(sub)
        self.stack.append(sub.items)
        result = None
        try:
            self._fact(sub.assume)
            result = self._prove(goal, depth)
            if result is not None and not any(x is result for x in sub.items):
                result = _Node(goal, "reit", [result])
                sub.items.append(result)
        finally:
            self.stack.pop()
            self._undo(snap[1])
        if result is None:
            del parent[snap[0] :]
            return None
        sub.result = result
        return sub

    # search --------------------------------------------------------------------------------
    def _prove(self, goal: Formula, d: int) -> _Node | None:
        self._tick()
        if goal in self.avail:
            return self.avail[goal]
        if FALSUM in self.avail:
            return self._add(goal, "botE", [self.avail[FALSUM]])
        if d <= 0:
            return None
        snap = self._snap()
        # ∃E on an unused existential: always safe, so done first and never undone by choice
        for e in self.kinds["ex"]:
            if e.formula not in self.used and len(self.consts) < self.max_names:
                self.used.add(e.formula)
                self.log.append(("used", e.formula))
                c = next(x for x in FRESH if x not in self.consts)
                sub = self._eigen_sub(e, c, goal, d)
                if sub is None:
                    self._restore(snap)
                    return None
                return self._add(goal, "exE", [e, sub])
        tag = goal[0]
        if tag in ("&", ">", "N", "all"):
            result = self._intro(goal, d)
            if result is None:
                self._restore(snap)
            return result
        for attempt in (self._chain, self._split, self._pick, self._contradict):
            result = attempt(goal, d - 1)
            if result is not None:
                return result
            self._restore(snap)
        return None

    def _eigen_sub(self, e: _Node, c: str, goal: Formula, d: int):
        parent = self.stack[-1]
        snap = self._snap()
        sub = _Sub(_Node(inst(e.formula[1], c), "assume", []))
        parent.append(sub)
        self.stack.append(sub.items)
        result = None
        try:
            self.consts.append(c)
            self.log.append(("const",))
            for nd in list(self.kinds["all"]):
                self._add_if_new(inst(nd.formula[1], c), "allE", [nd])
            self._fact(sub.assume)
            result = self._prove(goal, d)
            if result is not None and not any(x is result for x in sub.items):
                result = _Node(goal, "reit", [result])
                sub.items.append(result)
        finally:
            self.stack.pop()
            self._undo(snap[1])
        if result is None:
            del parent[snap[0] :]
            return None
        sub.result = result
        return sub

    def _intro(self, goal: Formula, d: int) -> _Node | None:
        tag = goal[0]
        if tag == "&":
            a = self._prove(goal[1], d)
            b = self._prove(goal[2], d) if a is not None else None
            return None if b is None else self._add(goal, "andI", [a, b])
        if tag == ">":
            sub = self._in_sub(goal[1], goal[2], d)
            return None if sub is None else self._add(goal, "impI", [sub])
        if tag == "N":
            sub = self._in_sub(goal[1], FALSUM, d)
            return None if sub is None else self._add(goal, "notI", [sub])
        c = self._new_const()
        body = self._prove(inst(goal[1], c), d)
        return None if body is None else self._add(goal, "allI", [body])

    def _chain(self, goal: Formula, d: int) -> _Node | None:
        """Backward chaining: prove the antecedent of an implication that yields the goal, or the
        positive side of a negation when the goal is ⊥."""
        if d < 0:
            return None
        for imp in list(self.kinds[">"]):
            if imp.formula[1] in self.avail or goal not in _heads(imp.formula[2]):
                continue
            snap = self._snap()
            if self._prove(imp.formula[1], d) is not None:
                # the consequent is now known; the goal follows from it by more eliminations
                found = self._prove(goal, d)
                if found is not None:
                    return found
            self._restore(snap)
        if goal == FALSUM:
            for negation in list(self.kinds["N"]):
                snap = self._snap()
                if self._prove(negation.formula[1], d) is not None and FALSUM in self.avail:
                    return self.avail[FALSUM]
                self._restore(snap)
        return None

    def _split(self, goal: Formula, d: int) -> _Node | None:
        """∨E on an unused disjunction whose sides are not yet known."""
        if d < 0:
            return None
        for dis in list(self.kinds["|"]):
            a, b = dis.formula[1], dis.formula[2]
            if dis.formula in self.used or a in self.avail or b in self.avail:
                continue
            snap = self._snap()
            self.used.add(dis.formula)
            self.log.append(("used", dis.formula))
            left = self._in_sub(a, goal, d)
            right = self._in_sub(b, goal, d) if left is not None else None
            if right is not None:
                return self._add(goal, "orE", [dis, left, right])
            self._restore(snap)
        return None

    def _pick(self, goal: Formula, d: int) -> _Node | None:
        """∨I and ∃I: prove one side, or an instance at a known name."""
        if d < 0:
            return None
        if goal[0] == "|":
            for side in (goal[1], goal[2]):
                snap = self._snap()
                found = self._prove(side, d)
                if found is not None:
                    return self._add(goal, "orI", [found])
                self._restore(snap)
        elif goal[0] == "ex":
            names = list(self.consts) or [None]
            for c in names:
                snap = self._snap()
                if c is None:
                    c = self._new_const()
                found = self._prove(inst(goal[1], c), d)
                if found is not None:
                    return self._add(goal, "exI", [found])
                self._restore(snap)
        return None

    def _contradict(self, goal: Formula, d: int) -> _Node | None:
        """Classical reductio: assume ¬goal and derive ⊥."""
        if d < 0 or not self.classical or goal == FALSUM or ("N", goal) in self.avail:
            return None
        sub = self._in_sub(("N", goal), FALSUM, d)
        return None if sub is None else self._add(goal, "raa", [sub])

    # driver --------------------------------------------------------------------------------
    def search(self, max_depth: int, min_depth: int = 1) -> list[str] | None:
        """Iterative deepening; the pruned proof as text lines, or None when out of budget."""
        try:
            for depth in range(min_depth, max_depth + 1):
                self._reset()
                for p in self.premises:
                    self._add_if_new(p, "premise", [])
                result = self._prove(self.conclusion, depth)
                if result is not None:
                    return _flatten(self.top, result)
        except _Budget:
            return None
        return None


def _flatten(top: list, result: _Node) -> list[str]:
    """Keep what ``result`` depends on and number it as Fitch lines."""
    needed: set[int] = set()
    stack: list = [result]
    while stack:
        item = stack.pop()
        if id(item) in needed:
            continue
        needed.add(id(item))
        if isinstance(item, _Sub):
            stack += [item.assume, item.result]
        else:
            stack += item.refs
    numbers: dict[int, str] = {}
    out: list[str] = []

    def cite(ref: object) -> str:
        if isinstance(ref, _Sub):
            return f"{numbers[id(ref.assume)]}-{numbers[id(ref.result)]}"
        return numbers[id(ref)]

    def emit(items: list, depth: int) -> None:
        for item in items:
            if id(item) not in needed:
                continue
            if isinstance(item, _Sub):
                emit(item.items, depth + 1)
                continue
            n = str(len(out) + 1)
            numbers[id(item)] = n
            cites = ", ".join(cite(r) for r in item.refs)
            just = RULE_TEXT[item.rule] + (f" {cites}" if cites else "")
            out.append(f"{n}. {'| ' * depth}{render(item.formula)} [{just}]")

    emit(top, 0)
    if not out or not out[-1].split(" [")[0].endswith(render(result.formula)):
        raise AssertionError("the proof does not end with its result")
    return out


def prove(
    premises: list[Formula], conclusion: Formula, budget: int, max_depth: int = 12
) -> tuple[list[str] | None, int]:
    prover = Prover(premises, conclusion, budget)
    lines = prover.search(max_depth)
    return lines, prover.nodes


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NaturalDeductionKnobs(Knobs):
    atoms: int = knob(2, low=2, high=5, help="propositional atoms in the core sequent")
    premises: int = knob(2, low=0, high=5, help="number of premises")
    premise_size: int = knob(1, low=0, high=5, help="at most this many connectives per premise")
    premise_min: int = knob(0, low=0, high=5, help="at least this many connectives per premise")
    distractors: int = knob(
        0, low=0, high=4, help="extra premises the proof does not need (drawn like the others, shuffled in)"
    )
    # 4 at most: a conclusion of 5 connectives never finished drawing (issue 27)
    conclusion_size: int = knob(1, low=1, high=4, help="at most this many connectives in the conclusion")
    quantifiers: str = knob(
        "none",
        choices=("none", "universal", "existential", "nested"),
        help="propositional, or a first-order lift of the core: ∀ (or instances at a name), one ∃ premise, ∀∃/∃∀",
    )
    min_lines: int = knob(2, low=2, high=200, help="reject sequents whose reference proof is shorter")
    max_lines: int = knob(8, low=3, high=250, help="reject sequents whose reference proof is longer")

    def validate(self) -> None:
        if self.min_lines > self.max_lines:
            raise ValueError("min_lines cannot exceed max_lines")
        if self.premise_min > self.premise_size:
            raise ValueError("premise_min cannot exceed premise_size")


# Levels 1-2 are small on purpose. From level 3 on every premise has a connective and two
# distractor premises (one at levels 9-10) are shuffled in: that widens the sequent space far
# past 2,000 tasks per level (fewer than 1% duplicates by canonical hash) and makes premise
# selection part of the task.
LEVELS = {
    1: NaturalDeductionKnobs(
        atoms=3, premises=1, premise_size=2, conclusion_size=1, min_lines=2, max_lines=5
    ),
    2: NaturalDeductionKnobs(
        atoms=3, premises=2, premise_size=1, conclusion_size=2, min_lines=4, max_lines=8
    ),
    3: NaturalDeductionKnobs(
        atoms=5,
        premises=2,
        premise_size=2,
        premise_min=1,
        distractors=2,
        conclusion_size=2,
        min_lines=6,
        max_lines=12,
    ),
    4: NaturalDeductionKnobs(
        atoms=5,
        premises=2,
        premise_size=2,
        premise_min=1,
        distractors=2,
        conclusion_size=2,
        min_lines=9,
        max_lines=16,
    ),
    5: NaturalDeductionKnobs(
        atoms=5,
        premises=3,
        premise_size=2,
        premise_min=1,
        distractors=2,
        conclusion_size=2,
        min_lines=12,
        max_lines=24,
    ),
    6: NaturalDeductionKnobs(
        atoms=5,
        premises=2,
        premise_size=2,
        premise_min=1,
        distractors=2,
        conclusion_size=2,
        quantifiers="universal",
        min_lines=13,
        max_lines=30,
    ),
    7: NaturalDeductionKnobs(
        atoms=5,
        premises=3,
        premise_size=2,
        premise_min=1,
        distractors=2,
        conclusion_size=2,
        quantifiers="existential",
        min_lines=16,
        max_lines=40,
    ),
    8: NaturalDeductionKnobs(
        atoms=5,
        premises=2,
        premise_size=3,
        premise_min=1,
        distractors=2,
        conclusion_size=3,
        min_lines=14,
        max_lines=40,
    ),
    9: NaturalDeductionKnobs(
        atoms=4,
        premises=3,
        premise_size=2,
        premise_min=1,
        distractors=1,
        conclusion_size=2,
        quantifiers="nested",
        min_lines=16,
        max_lines=44,
    ),
    10: NaturalDeductionKnobs(
        atoms=4,
        premises=3,
        premise_size=3,
        premise_min=1,
        distractors=1,
        conclusion_size=3,
        quantifiers="existential",
        min_lines=30,
        max_lines=80,
    ),
}


class _Stream:
    """Uniform floats drawn from ``rng`` in blocks (one numpy call per 256 draws, same stream)."""

    def __init__(self, rng: np.random.Generator):
        self.rng, self.block, self.i = rng, rng.random(256), 0

    def random(self) -> float:
        if self.i == len(self.block):
            self.block, self.i = self.rng.random(256), 0
        self.i += 1
        return float(self.block[self.i - 1])

    def below(self, k: int) -> int:
        return min(int(self.random() * k), k - 1)


def _random_formula(draw: _Stream, atoms: list[Formula], connectives: int) -> Formula:
    if connectives <= 0:
        return atoms[draw.below(len(atoms))]
    r = draw.random()
    if r < 0.18:
        return ("N", _random_formula(draw, atoms, connectives - 1))
    op = ("&", "|", ">")[draw.below(3)] if r > 0.45 else ">"
    left = draw.below(connectives)
    return (op, _random_formula(draw, atoms, left), _random_formula(draw, atoms, connectives - 1 - left))


_ATOM_MASKS = {
    n: [sum(1 << row for row in range(1 << n) if row >> k & 1) for k in range(n)]
    for n in range(1, len(ATOMS) + 1)
}


def truth_mask(f: Formula, n: int) -> int:
    """The formula's truth table over atoms P, Q, ... as a bitmask of the 2^n rows."""
    full = (1 << (1 << n)) - 1
    tag = f[0]
    if tag == "A":
        return _ATOM_MASKS[n][ATOMS.index(f[1])]
    if tag == "F":
        return 0
    if tag == "N":
        return full & ~truth_mask(f[1], n)
    a, b = truth_mask(f[1], n), truth_mask(f[2], n)
    if tag == "&":
        return a & b
    if tag == "|":
        return a | b
    return (full & ~a) | b


@functools.lru_cache(maxsize=16)
def _conclusion_table(n: int, max_size: int) -> tuple[list[Formula], np.ndarray]:
    """Every formula over the first ``n`` atoms with at most ``max_size`` connectives (a fixed
    order), with its truth table as a uint64 bitmask."""
    full = (1 << (1 << n)) - 1
    layers: list[list[tuple[Formula, int]]] = [
        [(("A", a, ()), _ATOM_MASKS[n][k]) for k, a in enumerate(ATOMS[:n])]
    ]
    for s in range(1, max_size + 1):
        layer = [(("N", f), full & ~m) for f, m in layers[s - 1]]
        for i in range(s):
            for f, m in layers[i]:
                for g, h in layers[s - 1 - i]:
                    if f == g:  # A ∧ A, A ∨ A, A → A: padding, not structure
                        continue
                    layer += [(("&", f, g), m & h), (("|", f, g), m | h), ((">", f, g), (full & ~m) | h)]
        layers.append(layer)
    pairs = [pair for layer in layers for pair in layer]
    return [f for f, _ in pairs], np.array([m for _, m in pairs], dtype=np.uint64)


def _stutters(f: Formula) -> bool:
    """Does ``f`` contain a binary connective with two equal sides (A ∧ A, A → A, ...)?"""
    if f[0] in ("&", "|", ">"):
        return f[1] == f[2] or _stutters(f[1]) or _stutters(f[2])
    return f[0] == "N" and _stutters(f[1])


def _draw_core(
    knobs: NaturalDeductionKnobs, draw: _Stream
) -> tuple[list[Formula], Formula, list[int]] | None:
    """A valid propositional sequent: random premises, then a conclusion drawn uniformly from
    all small formulas they entail with every premise needed (premises satisfiable). Distractor
    premises are drawn the same way: the other premises entail the conclusion without them, and
    no needed premise can be dropped even with them."""
    n = knobs.atoms
    full = (1 << (1 << n)) - 1
    atoms = [("A", a, ()) for a in ATOMS[:n]]
    spread = knobs.premise_size - knobs.premise_min + 1
    drawn = [
        _random_formula(draw, atoms, knobs.premise_min + draw.below(spread))
        for _ in range(knobs.premises + knobs.distractors)
    ]
    if len(set(drawn)) != len(drawn) or any(_stutters(f) for f in drawn):
        return None
    premises, extras = drawn[: knobs.premises], drawn[knobs.premises :]  # extras: distractors
    masks = [truth_mask(p, n) for p in premises]
    extra = full
    for f in extras:
        m = truth_mask(f, n)
        if m == full:  # a tautology distracts from nothing
            return None
        extra &= m
    joint = full
    for m in masks:
        joint &= m
    if joint & extra == 0:
        return None
    formulas, table = _conclusion_table(n, knobs.conclusion_size)
    ok = (np.uint64(joint) & ~table) == 0
    if drawn:
        ok &= table != np.uint64(full)
    for k in range(len(masks)):
        rest = extra
        for j, m in enumerate(masks):
            if j != k:
                rest &= m
        ok &= (np.uint64(rest) & ~table) != 0  # without premise k the entailment fails
    choices = [int(i) for i in np.flatnonzero(ok) if formulas[int(i)] not in drawn]
    if not choices:
        return None
    conclusion = formulas[choices[draw.below(len(choices))]]
    order = sorted(range(len(drawn)), key=lambda _: draw.random())  # distractors anywhere
    return [drawn[i] for i in order], conclusion, [k for k, i in enumerate(order) if i >= knobs.premises]


def _occurs(f: Formula, k: int) -> bool:
    tag = f[0]
    if tag == "A":
        return any(isinstance(t, int) and t == k for t in f[2])
    if tag == "F":
        return False
    if tag in ("all", "ex"):
        return _occurs(f[1], k + 1)
    if tag == "N":
        return _occurs(f[1], k)
    return _occurs(f[1], k) or _occurs(f[2], k)


def _lower(f: Formula, k: int) -> Formula:
    """Remove binder ``k`` (whose variable does not occur): outer indices shift down by one."""
    tag = f[0]
    if tag == "A":
        return ("A", f[1], tuple(t - 1 if isinstance(t, int) and t > k else t for t in f[2]))
    if tag == "F":
        return f
    if tag in ("all", "ex"):
        return (tag, _lower(f[1], k + 1))
    if tag == "N":
        return ("N", _lower(f[1], k))
    return (tag, _lower(f[1], k), _lower(f[2], k))


def drop_vacuous(f: Formula) -> Formula:
    """The formula without quantifiers that bind nothing (equivalent over non-empty domains)."""
    tag = f[0]
    if tag in ("all", "ex"):
        body = drop_vacuous(f[1])
        return (tag, body) if _occurs(body, 0) else _lower(body, 0)
    if tag == "N":
        return ("N", drop_vacuous(f[1]))
    if tag in ("&", "|", ">"):
        return (tag, drop_vacuous(f[1]), drop_vacuous(f[2]))
    return f


def _lift(
    rng: np.random.Generator, premises: list[Formula], conclusion: Formula, mode: str, n: int
) -> tuple[list[Formula], Formula]:
    """Map the core's atoms to first-order atoms and quantify so that validity is preserved."""
    preds = ["P", "Q", "R", "S", "T"][:n]
    perm = [preds[int(i)] for i in rng.permutation(n)]
    if mode == "nested":
        # one variable pair (x, y): unary atoms on x or y and one binary relation
        shapes = [(0,), (1,), (0, 1), (1, 0)]
        mapping = {}
        for k, atom_name in enumerate(ATOMS[:n]):
            shape = shapes[k % 4] if k < 4 else shapes[int(rng.integers(4))]
            mapping[atom_name] = (perm[k], shape)
    else:
        mapping = {a: (perm[k], (0,)) for k, a in enumerate(ATOMS[:n])}

    def sub(f: Formula, args: tuple) -> Formula:
        tag = f[0]
        if tag == "A":
            pred, shape = mapping[f[1]]
            return ("A", pred, tuple(args[s] for s in shape))
        if tag == "F":
            return f
        if tag == "N":
            return ("N", sub(f[1], args))
        return (tag, sub(f[1], args), sub(f[2], args))

    if mode == "universal":
        instance_premises = rng.random() < 0.5 and premises
        if instance_premises:
            # some premises universal, the rest and the conclusion at the name a
            flags = rng.random(len(premises)) < 0.5
            flags[int(rng.integers(len(premises)))] = True
            lifted = [
                ("all", sub(p, (0,))) if u else sub(p, ("a",)) for p, u in zip(premises, flags, strict=True)
            ]
            return lifted, sub(conclusion, ("a",))
        return [("all", sub(p, (0,))) for p in premises], ("all", sub(conclusion, (0,)))
    if mode == "existential":
        if not premises:
            return [], (">", ("all", sub(conclusion, (0,))), ("ex", sub(conclusion, (0,))))
        k = int(rng.integers(len(premises)))
        lifted = [("ex" if j == k else "all", sub(p, (0,))) for j, p in enumerate(premises)]
        return lifted, ("ex", sub(conclusion, (0,)))
    # nested: ∀x∀y premises, one ∀x∃y (or ∃x∀y) premise, the conclusion with the same prefix
    inner = "ex" if rng.random() < 0.5 else "all"
    outer = "all" if inner == "ex" or rng.random() < 0.5 else "ex"
    two = (1, 0)  # inside two binders: x is index 1, y is index 0

    def wrap(f: Formula, q1: str, q2: str) -> Formula:
        return (q1, (q2, sub(f, two)))

    if not premises:
        return [], wrap(conclusion, "all", "all")
    k = int(rng.integers(len(premises)))
    if (outer, inner) == ("all", "all"):
        return [wrap(p, "all", "all") for p in premises], wrap(conclusion, "all", "all")
    lifted = [wrap(p, outer, inner) if j == k else wrap(p, "all", "all") for j, p in enumerate(premises)]
    return lifted, wrap(conclusion, outer, inner)


def canonical_form(premises: list[Formula], conclusion: Formula) -> str:
    """The sequent's text, minimised over renamings of predicates/atoms (and of the names)."""
    preds = sorted({f[1] for f in _atoms_of([*premises, conclusion])})
    names = sorted(set().union(*(names_in(f) for f in [*premises, conclusion])))
    best = None
    for perm in itertools.permutations(preds):
        rename = dict(zip(preds, perm, strict=True))
        for nperm in itertools.permutations(names):
            nrename = dict(zip(names, nperm, strict=True))
            text = " , ".join(sorted(render(_rename(p, rename, nrename)) for p in premises))
            text += " ⊢ " + render(_rename(conclusion, rename, nrename))
            if best is None or text < best:
                best = text
    return best or ""


def _atoms_of(fs: list[Formula]) -> list[Formula]:
    out: list[Formula] = []
    stack = list(fs)
    while stack:
        f = stack.pop()
        if f[0] == "A":
            out.append(f)
        elif f[0] != "F":
            stack.extend(f[1:] if f[0] in ("&", "|", ">") else [f[1]])
    return out


def _rename(f: Formula, preds: dict[str, str], names: dict[str, str]) -> Formula:
    tag = f[0]
    if tag == "A":
        return ("A", preds[f[1]], tuple(names.get(t, t) if isinstance(t, str) else t for t in f[2]))
    if tag == "F":
        return f
    if tag in ("N", "all", "ex"):
        return (tag, _rename(f[1], preds, names))
    return (tag, _rename(f[1], preds, names), _rename(f[2], preds, names))


def draw_sequent(
    knobs: NaturalDeductionKnobs, rng: np.random.Generator
) -> tuple[list[Formula], Formula, list[str], int, list[int]]:
    """A valid sequent with its reference proof (lines), the prover's node count and the
    positions of the distractor premises."""
    draw = _Stream(rng)
    for _ in range(20_000):
        core = _draw_core(knobs, draw)
        if core is None:
            continue
        premises, conclusion, distractors = core
        if knobs.quantifiers != "none":
            premises, conclusion = _lift(rng, premises, conclusion, knobs.quantifiers, knobs.atoms)
            premises, conclusion = [drop_vacuous(p) for p in premises], drop_vacuous(conclusion)
        lines, nodes = prove(premises, conclusion, EXACT_BUDGET)
        if lines is not None and knobs.min_lines <= len(lines) <= knobs.max_lines:
            return premises, conclusion, lines, nodes, distractors
    raise RuntimeError(f"could not draw a sequent for {knobs}")


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Prove this sequent in natural deduction (Fitch style):

{sequent}

Write the proof inside <answer></answer>, one numbered line per step: "N. formula [rule citations]", \
numbered 1, 2, 3, ... A subproof begins with an [assume] line; every line inside a subproof \
starts with one "|" per level of nesting, and the subproof ends where the bars drop. Cite a line \
by its number and a closed subproof by the range "i-j" of its assumption line and its last line; \
a line may cite only earlier lines that are not inside an already closed subproof. State each \
premise you use as a line with [premise]. The last line must be the conclusion, outside every \
subproof. Any valid proof is accepted. Without parentheses, ¬ (and ∀x, ∃x) bind tightest, then \
∧, then ∨, then → (which groups to the right).

Rules (A, B, C are formulas, ⊥ is contradiction):
  premise; assume; R i (reiterate line i)
  ∧I i, j: A ∧ B from A and B          ∧E i: A, or B, from A ∧ B
  ∨I i: A ∨ B from A or from B          ∨E i, j-k, l-m: C from A ∨ B, a subproof A ... C and a subproof B ... C
  →I i-j: A → B from a subproof A ... B  →E i, j: B from A → B and A
  ¬I i-j: ¬A from a subproof A ... ⊥     ¬E i, j: ⊥ from A and ¬A
  ⊥E i: any formula from ⊥              RAA i-j: A from a subproof ¬A ... ⊥      ¬¬E i: A from ¬¬A
{quantifier_rules}ASCII is accepted too: -> & | ~ _|_ forall exists (for example [->E 1, 2], [~I 3-5]).
Example of the format only (a different sequent, A → B, B → C ⊢ A → C):
<answer>
1. A → B [premise]
2. B → C [premise]
3. | A [assume]
4. | B [→E 1, 3]
5. | C [→E 2, 4]
6. A → C [→I 3-5]
</answer>"""

QUANTIFIER_RULES = """\
  ∀E i: A(c) from ∀x A(x), for any name c        ∃I i: ∃x A(x) from A(c)
  ∀I i: ∀x A(x) from A(c), where the name c occurs in no premise, no open assumption and not in ∀x A(x)
  ∃E i, j-k: B from ∃x A(x) and a subproof A(c) ... B, where c occurs in no premise, no open \
assumption, not in ∃x A(x) and not in B
  Names are lowercase letters other than the variables u, v, w, x, y, z (for example a, b, c, d).
"""


def sequent_text(premises: list[Formula], conclusion: Formula) -> str:
    head = ", ".join(render(p) for p in premises)
    return f"{head} ⊢ {render(conclusion)}" if head else f"⊢ {render(conclusion)}"


@family(
    "natural_deduction",
    domain="formal",
    knobs=NaturalDeductionKnobs,
    levels=LEVELS,
    version=2,
    description="Write a Fitch-style natural-deduction proof (propositional, then first-order); every step is checked.",
    verifier_kind="step-by-step proof checker (any valid proof; names the first failing line)",
)
class NaturalDeduction(Family):
    def generate(self, knobs: NaturalDeductionKnobs, rng: np.random.Generator) -> TaskDraft:
        premises, conclusion, lines, nodes, distractors = draw_sequent(knobs, rng)
        first_order = knobs.quantifiers != "none"
        sequent = sequent_text(premises, conclusion)
        return TaskDraft(
            prompt=PROMPT.format(sequent=sequent, quantifier_rules=QUANTIFIER_RULES if first_order else ""),
            answer="\n".join(lines),
            metadata={
                "premises": [render(p) for p in premises],
                "distractors": [render(premises[k]) for k in distractors],  # premises not needed
                "conclusion": render(conclusion),
                "first_order": first_order,
                "proof_lines": len(lines),
                "search_nodes": nodes,
                "canonical_hash": content_hash(canonical_form(premises, conclusion)),
            },
        )

    @staticmethod
    def _sequent(task: Task) -> tuple[list[Formula], Formula]:
        return [parse_formula(p) for p in task.metadata["premises"]], parse_formula(
            task.metadata["conclusion"]
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=False)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        premises, conclusion = self._sequent(task)
        return check_proof(premises, conclusion, extraction.text)

    def solve_exact(self, task: Task) -> SolverRun:
        premises, conclusion = self._sequent(task)
        lines, nodes = prove(premises, conclusion, EXACT_BUDGET)
        if lines is None:
            raise RuntimeError("the reference prover ran out of budget on a generated sequent")
        return SolverRun("<answer>\n" + "\n".join(lines) + "\n</answer>", float(nodes))

    def solve_weak(self, task: Task) -> SolverRun:
        # the same search on a small node budget: finds the easy proofs, gives up on the rest
        premises, conclusion = self._sequent(task)
        lines, nodes = prove(premises, conclusion, WEAK_BUDGET)
        response = None if lines is None else "<answer>\n" + "\n".join(lines) + "\n</answer>"
        return SolverRun(response, float(nodes))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        lines = task.answer.split("\n")
        k = int(rng.integers(len(lines)))
        out = [
            "\n".join(lines[:-1]) or lines[0].replace(" [", " ∧ ⊥ [", 1),  # stops short of the conclusion
            "\n".join(lines[:k] + [corrupt_formula(lines[k])] + lines[k + 1 :]),
            "\n".join(lines[:k] + [corrupt_citation(lines[k])] + lines[k + 1 :]),
            "\n".join(lines[:-1] + [re.sub(r"\[.*\]$", "[R 1]", lines[-1])]),  # the conclusion unjustified
        ]
        return [f"<answer>\n{text}\n</answer>" for text in out]


def corrupt_formula(line: str) -> str:
    """Negate the formula of one line (the line or a later one that uses it must then fail)."""
    match = re.match(r"^(\d+\. (?:\| )*)(.*) \[(.*)\]$", line)
    assert match is not None
    return f"{match[1]}¬({match[2]}) [{match[3]}]"


def corrupt_citation(line: str) -> str:
    """Make the line cite itself (never an earlier line), or add a citation to a premise line."""
    match = re.match(r"^(\d+)\. (.*) \[(\S+)(.*)\]$", line)
    assert match is not None
    n, rule, cites = match[1], match[3], match[4]
    if cites.strip():
        return f"{n}. {match[2]} [{rule} {n}{cites[cites.find(',') :] if ',' in cites else ''}]"
    return f"{n}. {match[2]} [{rule} {n}]"
