"""A restricted LaTeX / plain-text math parser that builds sympy objects directly.

Model text never reaches ``eval``, ``exec``, ``sympify`` or ``parse_expr``: a small regex
tokenizer feeds a recursive-descent parser whose every production calls a sympy
constructor itself. Size guards refuse what could not be built in bounded time (long
inputs, deep nesting, huge powers and factorials) by raising :class:`ParseError`.

Structures that sympy has no neutral type for are small frozen dataclasses here:
bracketed lists (tuple or interval is decided by the comparer, which sees both sides),
set literals, relation chains, top-level answer lists, set operations and free text.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy import Rational

from palaestra.verifiers import _mathwords
from palaestra.verifiers._mathwords import ParseError, Unit

MAX_CHARS = 20_000  # an answer longer than this is refused, not parsed
MAX_DEPTH = 60  # nesting depth (brackets, fractions, powers)
MAX_RESULT_BITS = 100_000  # |exponent| * log2|base| for exact numeric powers
MAX_SYMBOLIC_EXPONENT = 10_000
MAX_FACTORIAL = 5_000
MAX_ITEMS = 1000  # elements of one list, set or matrix
MAX_DIGITS = 20_000  # digits of one written number

# Markers for notation whose meaning the comparer decides (° and % may be dropped or
# converted; ± expands to two answers). Their names contain characters the tokenizer
# never produces, so no input can forge them.
DEG = sympy.Symbol("°deg")
PCT = sympy.Symbol("%pct")
PM = sympy.Symbol("±pm")
MARKERS = (DEG, PCT, PM)


__all__ = ["Answer", "Form", "Options", "ParseError", "Unit", "parse_answer", "read_answer"]


# ------------------------------------------------------------------------------------------
# Result structures
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bracket:
    """``(a, b)``, ``[a, b]``, ``(a, b]``...: a tuple, a vector or an interval."""

    items: tuple[Any, ...]
    left: str
    right: str

    def __str__(self) -> str:
        return self.left + ", ".join(str(i) for i in self.items) + self.right


@dataclass(frozen=True)
class SetLit:
    """``\\{a, b\\}``: an unordered set of answers."""

    items: tuple[Any, ...]

    def __str__(self) -> str:
        return "{" + ", ".join(str(i) for i in self.items) + "}"


@dataclass(frozen=True)
class Rel:
    """A relation chain ``t0 op0 t1 op1 t2 ...`` with ops in = != < <= > >= in."""

    ops: tuple[str, ...]
    terms: tuple[Any, ...]

    def __str__(self) -> str:
        out = str(self.terms[0])
        for op, term in zip(self.ops, self.terms[1:], strict=True):
            out += f" {op} {term}"
        return out


@dataclass(frozen=True)
class Alts:
    """Several answers at the top level: ``1, 2``, ``x = 1 or x = 2``, ``x > 0 and x < 1``."""

    items: tuple[Any, ...]
    joiner: str  # "," for lists and "or", "and" for words

    def __str__(self) -> str:
        return f" {self.joiner} ".join(str(i) for i in self.items)


@dataclass(frozen=True)
class SetOp:
    """``A \\cup B``, ``A \\cap B``, ``A \\setminus B`` over intervals and sets."""

    op: str
    items: tuple[Any, ...]

    def __str__(self) -> str:
        return f" {self.op} ".join(str(i) for i in self.items)


@dataclass(frozen=True)
class SetBuilder:
    """``\\{x \\mid 2 < x \\le 5\\}``: the values of ``var`` (in ``domain``) meeting ``condition``."""

    var: Any
    domain: Any
    condition: Any

    def __str__(self) -> str:
        return f"{{{self.var} | {self.condition}}}"


@dataclass(frozen=True)
class Text:
    """Free text (``\\text{east}``, ``yes``): compared as normalised strings only."""

    text: str

    def __str__(self) -> str:
        return self.text


# ------------------------------------------------------------------------------------------
# Normalisation: unicode and LaTeX noise to a small alphabet
# ------------------------------------------------------------------------------------------

_UNICODE = {
    "\u2212": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u00d7": r"\times ",
    "\u22c5": r"\cdot ",
    "\u00b7": r"\cdot ",
    "\u00f7": "/",
    "\u221a": r"\sqrt ",
    "\u221e": r"\infty ",
    "\u03c0": r"\pi ",
    "\u00b0": r"\degree ",
    "\u2264": r"\le ",
    "\u2265": r"\ge ",
    "\u2260": r"\ne ",
    "\u222a": r"\cup ",
    "\u2229": r"\cap ",
    "\u2205": r"\emptyset ",
    "\u2208": r"\in ",
    "\u00b1": r"\pm ",
    "\u2213": r"\mp ",
    "\u211d": r"\mathbb{R}",
    "\u27e8": r"\langle ",
    "\u27e9": r"\rangle ",
    "\u2009": " ",
    "\u00a0": " ",
    "\u202f": " ",
    "\u3000": " ",
    "\u2248": r"\approx ",
    "\u2192": r"\to ",
    "\u2032": "'",
}
_VULGAR = {
    "½": (1, 2),
    "⅓": (1, 3),
    "⅔": (2, 3),
    "¼": (1, 4),
    "¾": (3, 4),
    "⅕": (1, 5),
    "⅖": (2, 5),
    "⅗": (3, 5),
    "⅘": (4, 5),
    "⅙": (1, 6),
    "⅚": (5, 6),
    "⅐": (1, 7),
    "⅛": (1, 8),
    "⅜": (3, 8),
    "⅝": (5, 8),
    "⅞": (7, 8),
    "⅑": (1, 9),
    "⅒": (1, 10),
}
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUBSCRIPT = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_SUP_RUN = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_SUB_RUN = re.compile("[₀₁₂₃₄₅₆₇₈₉]+")

_NOISE = re.compile(
    r"\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|big|Big|bigg|Bigg|displaystyle|textstyle"
    r"|limits|nolimits)(?![A-Za-z])"
)
_SPACES = re.compile(r"(?<!\\)\\(?:[,;:! ]|quad|qquad|enspace|thinspace|medspace)|~")
_DEGREE = re.compile(r"\^\s*\{\s*\\circ\s*\}|\^\s*\\circ|\\circ|\\degree|\^\s*\{\s*\\degree\s*\}")
# 42,000 / 1{,}000 / 10 000 (a space, or \, before becoming one): groups of exactly three
_THOUSANDS = re.compile(r"(?<![\d.])\d{1,3}(?:(?:,|\{,\}| )\d{3})+(?![\d])")


# MATH's house style for thousands: 10,\!000 (the \! would become a space below)
_MATH_THOUSANDS = re.compile(r"(?<=\d),\s*\\!\s*(?=\d{3}(?!\d))")
# an integer ending one line and a fraction starting the next: two answers, never a mixed number
_SPLIT_MIXED = re.compile(r"\d[ \t]*\n\s*(?:\\[dt]?frac|\d+\s*/)")


def normalize(text: str, *, thousands: bool = True) -> str:
    """Map unicode math, delimiters and spacing commands to the tokenizer's alphabet."""
    if len(text) > MAX_CHARS:
        raise ParseError(f"answer longer than {MAX_CHARS} characters")
    for ch, (p, q) in _VULGAR.items():
        text = text.replace(ch, rf" \frac{{{p}}}{{{q}}}")
    text = _SUP_RUN.sub(lambda m: "^{" + m.group().translate(_SUPERSCRIPT) + "}", text)
    text = _SUB_RUN.sub(lambda m: "_{" + m.group().translate(_SUBSCRIPT) + "}", text)
    text = "".join(_UNICODE.get(ch, ch) for ch in text)
    # fullwidth forms (ＡＢ１２) and other compatibility characters to ASCII
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\\$", r" \dollar ").replace("$", " ")
    text = re.sub(r"\\[\[\]()]", " ", text)
    text = _NOISE.sub(" ", text)
    text = _DEGREE.sub(r" \\degree ", text)
    text = text.replace("\\%", r" \percent ").replace("%", r" \percent ")
    if thousands:
        text = _MATH_THOUSANDS.sub(",", text)
    text = _SPACES.sub(" ", text)
    if thousands:
        text = _THOUSANDS.sub(_join_thousands, text)
    return text.strip()


def _join_thousands(match: re.Match[str]) -> str:
    """``10 000`` -> ``10000``; but ``206 232/233`` is the mixed number 206 232/233, so digits
    followed by a fraction bar keep their space (``1 000/3``, whose numerator 000 no one
    writes, stays 1000/3)."""
    group = match.group()
    if " " in group and group[-3] != "0" and match.string[match.end() :].lstrip().startswith("/"):
        return match.group()
    return re.sub(r"[^\d]", "", group)


def has_thousands_ambiguity(text: str) -> bool:
    """Whether a comma could be a thousands separator or a list comma (``100,200``)."""
    return bool(re.search(r"\d,\d{3}(?!\d)", text))


# ------------------------------------------------------------------------------------------
# Tokenizer
# ------------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<mixed>(?<![\w.])\d+[ ]+\d+/\d+(?![\d./^]))"
    r"|(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+(?![\d.]))?)"
    r"|(?P<cmd>\\(?:[A-Za-z]+|.))"
    r"|(?P<word>[A-Za-z]+)"
    r"|(?P<op><=|>=|!=|=<|=>|<>|\*\*|[-+*/^_()\[\]{},;=<>!|:'&])"
)
_TEXT_CMDS = {
    "text",
    "textbf",
    "textit",
    "textrm",
    "textnormal",
    "mbox",
    "mathrm",
    "mathbf",
    "mathit",
    "mathsf",
    "operatorname",
    "textsf",
    "texttt",
    "emph",
    "hbox",
}
_CHOICE = re.compile(r"^\(?\s*([A-J])\s*\)?$")

Token = tuple[str, str]


def tokenize(text: str) -> list[Token]:
    """Split normalised text into (kind, value) tokens; ``\\text{...}`` becomes one token."""
    return scan(text)[0]


def scan(text: str) -> tuple[list[Token], list[bool]]:
    """The tokens, ending with ``("eof", "")``, and for each whether whitespace preceded it."""
    tokens: list[Token] = []
    spaced: list[bool] = []
    pos = 0
    n = len(text)
    space = False
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ParseError(f"unexpected character {text[pos]!r}")
        kind = m.lastgroup or ""
        value = m.group()
        pos = m.end()
        if kind == "ws":
            space = True
            continue
        if kind == "cmd" and value[1:] in _TEXT_CMDS:
            content, pos = _braced(text, pos)
            inner = _text_tokens(content.strip())
            tokens.extend(inner)
            spaced.extend([space or content[:1].isspace()] + [True] * (len(inner) - 1))
        else:
            tokens.append((kind, value[1:] if kind == "cmd" else value))
            spaced.append(space)
        space = False
    tokens.append(("eof", ""))
    spaced.append(space)
    return tokens, spaced


def _braced(text: str, pos: int) -> tuple[str, int]:
    """The raw content of a ``{...}`` group starting at ``pos`` (after spaces)."""
    while pos < len(text) and text[pos] == " ":
        pos += 1
    if pos >= len(text) or text[pos] != "{":
        raise ParseError("\\text must be followed by {...}")
    depth = 0
    for i in range(pos, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[pos + 1 : i], i + 1
    raise ParseError("unclosed {")


def _text_tokens(content: str) -> list[Token]:
    """``\\text{or}`` is a separator, ``\\mathrm{i}`` a letter, ``\\text{(B)}`` a choice."""
    words = content.lower()
    if words in ("or", "and", ","):
        return [("word", words)]
    if not content:
        return []
    if re.fullmatch(r"[\d.,+\- /]+", content):  # \text{3}, \mathbf{5}: a number in a text box
        return tokenize(content)[:-1]
    choice = _CHOICE.match(content)
    if choice:
        return [("word", choice.group(1))]
    if re.search(r"\d", content) and re.search(r"[A-Za-z]", content):
        return scan(content)[0][:-1]  # \text{5 cm}: read as if written outside the box
    if content in _mathwords.SHORT_UNITS:  # \text{m}: a unit after a number, else the letter
        return [("text", content)]
    if re.fullmatch(r"[A-Za-z]+", content) and (len(content) == 1 or content in _FUNCTIONS):
        return [("word", content)]
    return [("text", content)]


# ------------------------------------------------------------------------------------------
# Parser
# ------------------------------------------------------------------------------------------

_FUNCTIONS = {
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "sec": sympy.sec,
    "csc": sympy.csc,
    "cot": sympy.cot,
    "arcsin": sympy.asin,
    "arccos": sympy.acos,
    "arctan": sympy.atan,
    "arcsec": sympy.asec,
    "arccsc": sympy.acsc,
    "arccot": sympy.acot,
    "asin": sympy.asin,
    "acos": sympy.acos,
    "atan": sympy.atan,
    "sinh": sympy.sinh,
    "cosh": sympy.cosh,
    "tanh": sympy.tanh,
    "coth": sympy.coth,
    "sech": sympy.sech,
    "csch": sympy.csch,
    "exp": sympy.exp,
    "ln": sympy.log,
    "log": sympy.log,
    "sqrt": sympy.sqrt,
    "abs": sympy.Abs,
    "lg": None,
}
_INVERSE = {
    "sin": "arcsin",
    "cos": "arccos",
    "tan": "arctan",
    "sec": "arcsec",
    "csc": "arccsc",
    "cot": "arccot",
}
_TRIG = {"sin", "cos", "tan", "sec", "csc", "cot"}
_GREEK = {
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "varepsilon",
    "zeta",
    "eta",
    "theta",
    "vartheta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "rho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "varphi",
    "chi",
    "psi",
    "omega",
    "Gamma",
    "Delta",
    "Theta",
    "Lambda",
    "Xi",
    "Sigma",
    "Phi",
    "Psi",
    "Omega",
}
_RELOPS = {
    "=": "=",
    "<": "<",
    ">": ">",
    "<=": "<=",
    ">=": ">=",
    "=<": "<=",
    "=>": ">=",
    "!=": "!=",
    "<>": "!=",
    "le": "<=",
    "leq": "<=",
    "leqslant": "<=",
    "ge": ">=",
    "geq": ">=",
    "geqslant": ">=",
    "lt": "<",
    "gt": ">",
    "ne": "!=",
    "neq": "!=",
    "in": "in",
}
_REFUSED_CMDS = {
    "approx": "an approximation is not an exact answer",  # except where parse_relation reads it
    "int": "an unevaluated integral is not an answer",
    "iint": "an unevaluated integral is not an answer",
    "sum": "an unevaluated sum is not an answer",
    "prod": "an unevaluated product is not an answer",
    "lim": "an unevaluated limit is not an answer",
    "sim": "a relation that is not exact",
    "equiv": "a congruence is not an answer",
    "to": "an arrow is not an answer",
}
_MATRIX_ENVS = {"pmatrix", "bmatrix", "Bmatrix", "matrix", "smallmatrix", "array", "vmatrix"}
_FRAC_CMDS = {"frac", "dfrac", "tfrac", "cfrac"}
_BINOM_CMDS = {"binom", "dbinom", "tbinom", "choose"}
_CONSTANT_WORDS = {"pi": sympy.pi, "inf": sympy.oo, "infty": sympy.oo, "infinity": sympy.oo, "oo": sympy.oo}


@dataclass(frozen=True)
class Options:
    """Grammar switches the policy controls. ``words`` reads the words around an answer too
    (a sentence with a box, number words, percent words, units: see ``_mathwords``)."""

    e_is_euler: bool = True
    i_is_imaginary: bool = True
    j_is_imaginary: bool = False
    thousands: bool = True
    words: bool = False


@dataclass(frozen=True)
class Form:
    """How an answer is written, for answer-type aware comparison.

    ``values``: the values written in it (bare variable names such as the ``x`` of ``x = 3``
    excluded); ``literal``: every one of them is a written number (``3``, ``-0.5``, ``\\frac34``,
    ``2\\frac12``, ``1.5 \\times 10^{3}``, ``40\\%``, ``\\infty``), i.e. no arithmetic is left to
    do; ``functions``: the kinds of function it applies (trig, log, factorial, abs, ...);
    ``unsimplified``: what is written in a form a "simplest form" question does not accept
    (``radical``: a root of a rational that is not a root of a square-free integer, as
    ``\\sqrt{8}``, ``\\sqrt{225}``, ``\\sqrt{25/13}``; ``fraction``: a fraction whose integer
    coefficients share a factor, as ``\\frac{6}{8}``, ``\\frac{2\\sqrt2}{4}``)."""

    values: int = 0
    literal: bool = True
    functions: frozenset[str] = frozenset()
    unsimplified: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Answer:
    """A parsed answer: its value, the units read after its items, and its :class:`Form`."""

    value: Any
    units: tuple[Unit, ...] = ()
    form: Form = field(default_factory=Form)


_FUNCTION_KIND = {
    **dict.fromkeys(("sin", "cos", "tan", "sec", "csc", "cot"), "trig"),
    **dict.fromkeys(
        ("arcsin", "arccos", "arctan", "arcsec", "arccsc", "arccot", "asin", "acos", "atan"), "arctrig"
    ),
    **dict.fromkeys(("sinh", "cosh", "tanh", "coth", "sech", "csch"), "hyperbolic"),
    **dict.fromkeys(("ln", "log", "lg"), "log"),
    "abs": "abs",
}

# One character per token for recognising written numbers (see _is_literal).
_LITERAL_CORE = re.compile(
    r"[NT](?:O(?:\{[NT]\}|[NT]))?"  # 12, 3.5, 0.\overline{3}
    r"|[NT]F(?:\{s*[NT]\}|[NT])(?:\{s*[NT]\}|[NT])"  # 2\frac{1}{2}
    r"|F(?:\{s*[NT]\}|[NT])(?:\{s*[NT]\}|[NT])"  # \frac{3}{4}, \frac34
    r"|[NT]/s*[NT]"  # 3/4, 1/-2
    r"|[NT]\*T\^(?:\{s*[NT]\}|s*[NT])"  # 1.5 \times 10^{3}
    r"|I"  # \infty
)


def _signature(tokens: list[Token]) -> str:
    out = []
    for kind, value in tokens:
        if kind in ("num", "mixed"):
            out.append("T" if value == "10" else "N")
        elif kind == "op":
            out.append({"+": "s", "-": "s", "(": "(", "[": "(", ")": ")", "]": ")", "{": "{", "}": "}", "/": "/",
                        "*": "*", "^": "^"}.get(value, "?"))  # fmt: skip
        elif kind == "cmd":
            out.append({"frac": "F", "dfrac": "F", "tfrac": "F", "cfrac": "F", "times": "*", "cdot": "*",
                        "percent": "%", "degree": "%", "infty": "I", "infin": "I", "pm": "s", "mp": "s",
                        "boxed": "B", "fbox": "B", "overline": "O", "dot": "O", "bar": "O", "over": "/"}.get(value, "?"))  # fmt: skip
        elif kind == "word" and value in ("inf", "infty", "infinity", "oo"):
            out.append("I")
        else:
            out.append("?")
    return "".join(out)


def _is_literal(tokens: list[Token], value: Any) -> bool:
    """Whether ``tokens`` write a number as such rather than a computation that yields it
    (``3 + 4``, ``2^{10}``, ``\\sqrt{16}``, ``\\frac{12}{4}`` are computations)."""
    sig = _signature(tokens)
    while True:
        before = sig
        sig = sig.lstrip("s")
        for left, right in (("B{", "}"), ("(", ")"), ("{", "}")):
            if sig.startswith(left) and sig.endswith(right):
                sig = sig[len(left) : len(sig) - len(right)]
        if sig == before:
            break
    sig = sig[:-1] if sig.endswith("%") else sig
    if _LITERAL_CORE.fullmatch(sig) is None:
        return False
    # a fraction whose value is an integer is a division left undone (12/4 for 3)
    return not (("/" in sig or "F" in sig) and getattr(value, "is_Integer", False) and "NF" not in sig)


class _Parser:
    def __init__(self, tokens: list[Token], options: Options) -> None:
        self.toks = tokens
        self.i = 0
        self.opt = options
        self.depth = 0
        self.leaves: list[tuple[int, int, bool]] = []  # (start, end, literal) of written values
        self.functions: set[str] = set()
        self.unsimplified: set[str] = set()

    def form(self) -> Form:
        literal = all(lit for _s, _e, lit in self.leaves)
        return Form(len(self.leaves), literal, frozenset(self.functions), frozenset(self.unsimplified))

    def note_root(self, base: Any, exponent: Any, result: Any) -> None:
        """Note a root of a rational that is not already in simplest form: only the root of a
        positive integer that sympy leaves as it is (square-free for a square root) is."""
        if not (isinstance(base, sympy.Rational) and isinstance(exponent, sympy.Rational)):
            return
        if exponent.is_Integer:
            return
        if not (base.is_Integer and base > 0 and result.is_Pow and result.base == base):
            self.unsimplified.add("radical")

    def note_fraction(self, num: Any, den: Any) -> None:
        """Note a fraction whose integer coefficients share a factor (``\\frac{6}{8}``)."""
        if not (isinstance(num, sympy.Expr) and isinstance(den, sympy.Expr)):
            return
        a, b = num.as_coeff_Mul()[0], den.as_coeff_Mul()[0]
        if a.is_Integer and b.is_Integer and b != 0 and math.gcd(int(a), int(b)) > 1:
            self.unsimplified.add("fraction")

    def note_value(self, start: int, node: Any) -> None:
        """Record the scalar just parsed from ``start`` as one written value (replacing the values
        inside it); a bare variable name is not a value."""
        if not isinstance(node, sympy.Expr) or isinstance(node, sympy.MatrixBase):
            return
        while self.leaves and self.leaves[-1][0] >= start:
            self.leaves.pop()
        if isinstance(node, sympy.Symbol) and node not in MARKERS:
            return
        self.leaves.append((start, self.i, _is_literal(self.toks[start : self.i], node)))

    # -- token helpers ------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Token:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def at(self, kind: str, *values: str) -> bool:
        tok = self.peek()
        return tok[0] == kind and (not values or tok[1] in values)

    def expect(self, kind: str, value: str) -> None:
        tok = self.next()
        if tok != (kind, value):
            raise ParseError(f"expected {value!r}, found {tok[1] or 'end of answer'!r}")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError("answer nested too deeply")

    # -- top level ----------------------------------------------------------------------
    def parse(self) -> Any:
        node = self.group_body()
        if not self.at("eof"):
            raise ParseError(f"unexpected {self.peek()[1]!r}")
        return node

    def parse_list(self) -> Any:
        items = [self.parse_relation()]
        joiners = set()
        groups = [0]  # where each ";"-separated group starts (p = 5, q = 2; p = 7, q = 2)
        while self.at("op", ",", ";") or self.at("word", "or", "and"):
            tok = self.next()
            joiners.add("," if tok[1] in ",;" else tok[1])
            if tok[1] == ";":
                groups.append(len(items))
            if self.at("word", "or", "and"):  # "1, 2, and 3"
                joiners.add(self.next()[1])
            items.append(self.parse_relation())
            if len(items) > MAX_ITEMS:
                raise ParseError("too many answers")
        if len(items) == 1:
            return items[0]
        if len(groups) > 1 and joiners == {","}:
            return _groups(items, groups)
        if len(joiners - {","}) > 1:
            raise ParseError("an answer mixing 'and' and 'or' is ambiguous")
        joiner = next(iter(joiners - {","}), ",")
        return Alts(tuple(items), joiner)

    def group_body(self) -> Any:
        """A list, or TeX's infix ``{a \\over b}`` / ``{n \\choose k}``."""
        node = self.parse_list()
        if self.at("cmd", "over", "choose"):
            infix = self.next()[1]
            other = self.parse_list()
            if infix == "over":
                return _divide(_scalar(node), _scalar(other))
            self.functions.add("factorial")
            return make_binomial(_scalar(node), _scalar(other))
        return node

    def parse_relation(self) -> Any:
        head = self.function_head()
        marks = [len(self.leaves)]
        if self.at("cmd", "approx"):  # "\approx 11": the value stated, graded like any value
            self.next()
        terms = [head if head is not None else self.parse_setexpr()]
        if self.at("op", ":") and (_constant(terms[0]) or _letters(terms[0])):
            terms[0] = self.ratio(terms[0])
        marks.append(len(self.leaves))
        ops: list[str] = []
        while True:
            tok = self.peek()
            if tok == ("cmd", "approx"):
                self.approximation(terms, ops)
            elif tok[0] in ("op", "cmd") and tok[1] in _RELOPS:
                self.next()
                ops.append(_RELOPS[tok[1]])
                terms.append(self.parse_setexpr())
                if self.at("op", ":") and _constant(terms[-1]):  # V_1 : V_2 = 11 : 21
                    terms[-1] = self.ratio(terms[-1])
                marks.append(len(self.leaves))
            elif tok[0] == "cmd" and tok[1] in ("notin", "subset", "subseteq"):
                raise ParseError(f"unsupported relation \\{tok[1]}")
            else:
                break
        if len(terms) > 2 and all(op == "=" for op in ops):
            del self.leaves[marks[1] : marks[-2]]  # x = 1 + 2 = 3: the answer is the last term
        return Rel(tuple(ops), tuple(terms)) if ops else terms[0]

    def ratio(self, first: sympy.Expr) -> sympy.Expr:
        """``3:4`` is the ratio's value 3/4 (so it equals ``6:8`` and ``\\frac34``), and
        ``V_1:V_2`` the quotient of two named quantities (``V_1:V_2 = 11:21`` names the value
        11/21). A ratio is of two numbers or of two names, so ``\\{x : x > 0\\}`` stays a set
        builder."""
        save, leaves = self.i, len(self.leaves)
        self.next()
        second = self.parse_setexpr()
        if _constant(first) and _constant(second) and second != 0:
            value = _divide(first, second)
            if value.is_Integer and second != 1:  # 4:2 for 2 leaves a division to do, as 4/2 does
                self.leaves.append((save, self.i, False))
            return value
        if _letters(first) and _letters(second) and self.at("op", "="):  # named: V_1:V_2 = ...
            return sympy.Mul(first, sympy.Pow(second, -1))
        if _letters(first):  # \{x : x > 1\}: the colon of a set builder, read by the caller
            self.i = save
            del self.leaves[leaves:]
            return first
        raise ParseError("a ratio is of two numbers (the second not zero) or of two names")

    def approximation(self, terms: list[Any], ops: list[str]) -> None:
        """``a \\approx b`` after an exact value states that value, its decimal shown for
        reading: ``\\frac{\\sqrt3}{3} \\approx 0.577`` is the exact value. The decimal must
        agree with it to 1%, else the answer says two different things. After a name
        (``x \\approx 11``) the approximation is the value stated."""
        self.next()
        shown = self.parse_setexpr()
        last = terms[-1]
        if _letters(last) and _constant(shown):
            ops.append("=")
            terms.append(shown)
            return
        if not (_constant(last) and _constant(shown)):
            raise ParseError("an approximation of something that is not a value")
        exact, decimal = complex(sympy.N(last, 30)), complex(sympy.N(shown, 30))
        if abs(exact - decimal) > 0.01 * abs(exact):
            raise ParseError("the value and its approximation disagree")

    def function_head(self) -> sympy.Symbol | None:
        """``f(x) =`` / ``f^{-1}(x) =`` / ``g(a, b) =``: a function being defined, read as one
        name so that ``f(x) = 2x + 3`` assigns ``2x + 3`` (elsewhere ``f(x)`` is f times x)."""
        toks, i = self.toks + [("eof", "")] * 8, self.i  # padded: lookahead never runs off the end
        if not (toks[i][0] == "word" and len(toks[i][1]) == 1):
            return None
        name, j = toks[i][1], i + 1
        if toks[j : j + 5] == [("op", "^"), ("op", "{"), ("op", "-"), ("num", "1"), ("op", "}")]:
            name, j = name + "^{-1}", j + 5
        if toks[j] != ("op", "("):
            return None
        args, j = [], j + 1
        while toks[j][0] == "word" and len(toks[j][1]) == 1 and j + 3 < len(toks):
            args.append(toks[j][1])
            if toks[j + 1] != ("op", ","):
                break
            j += 2
        if not args or toks[j + 1] != ("op", ")") or toks[j + 2] != ("op", "="):
            return None
        self.i = j + 2
        return sympy.Symbol(f"{name}({','.join(args)})")

    def parse_setexpr(self) -> Any:
        items = [self.parse_expr()]
        op = None
        while self.at("cmd", "cup", "cap", "setminus") or (self.at("word", "U") and _is_setlike(items[-1])):
            tok = self.next()
            this = "cup" if tok[1] == "U" else tok[1]
            if op is not None and op != this:
                raise ParseError("mixed set operations need parentheses")
            op = this
            items.append(self.parse_expr())
        return SetOp(op, tuple(items)) if op else items[0]

    # -- arithmetic ---------------------------------------------------------------------
    def parse_expr(self) -> Any:
        start = self.i
        if self.at("op", "-", "+") or self.at("cmd", "pm", "mp"):
            leading = self.next()[1]
            first = self.parse_term()
            node = _signed(first, leading)
        else:
            node = self.parse_term()
        while self.at("op", "+", "-") or self.at("cmd", "pm", "mp"):
            sign = self.next()[1]
            right = _signed(self.parse_term(), sign)
            node = _add(node, right)
        self.note_value(start, node)
        return node

    def parse_term(self) -> Any:
        node = self.parse_factor()
        while True:
            if self.at("op", "*") or self.at("cmd", "cdot", "times", "ast"):
                self.next()
                node = _multiply(node, self.parse_factor())
            elif self.at("op", "/") or self.at("cmd", "div"):
                self.next()
                den = self.parse_factor()
                self.note_fraction(node, den)
                node = _divide_any(node, den)
            elif self.starts_implicit(node):
                node = _multiply(node, self.parse_factor())
            else:
                return node

    def starts_implicit(self, left: Any) -> bool:
        if not isinstance(left, sympy.Basic) or isinstance(left, (sympy.Set, sympy.MatrixBase)):
            return False
        kind, value = self.peek()
        if kind == "num":
            return False  # "2 3" is not 6: two numbers side by side are a format error
        if kind == "word":
            return value not in ("or", "and") and not (value == "U" and _is_setlike(left))
        if kind == "op":
            return value == "("
        if kind == "cmd":
            return (
                value in _FUNCTIONS
                or value in _FRAC_CMDS
                or value in _GREEK
                or value
                in ("pi", "sqrt", "infty", "binom", "dbinom", "tbinom", "lfloor", "lceil", "mathrm", "begin")
            )
        return False

    def parse_factor(self) -> Any:
        if self.at("op", "-"):
            self.next()
            return _signed(self.parse_factor(), "-")
        if self.at("op", "+"):
            self.next()
            return self.parse_factor()
        return self.parse_power()

    def parse_power(self) -> Any:
        base = self.parse_postfix()
        if self.at("op", "^") or self.at("op", "**"):
            self.next()
            exponent = self.parse_exponent()
            power = make_pow(_scalar(base), exponent)
            self.note_root(base, exponent, power)
            base = self.parse_postfix_ops(power)
        return base

    def parse_exponent(self) -> Any:
        self.enter()
        try:
            if self.at("op", "-"):
                self.next()
                return -self.parse_exponent()
            if self.at("op", "+"):
                self.next()
                return self.parse_exponent()
            base = _scalar(self.parse_primary())
            if self.at("op", "^") or self.at("op", "**"):
                self.next()
                return make_pow(base, self.parse_exponent())
            return base
        finally:
            self.depth -= 1

    def parse_postfix(self) -> Any:
        return self.parse_postfix_ops(self.parse_primary())

    def parse_postfix_ops(self, node: Any) -> Any:
        while True:
            if self.at("op", "!"):
                self.next()
                self.functions.add("factorial")
                node = make_factorial(_scalar(node))
            elif self.at("cmd", "percent"):
                self.next()
                node = sympy.Mul(_scalar(node), PCT)
            elif self.at("cmd", "degree"):
                self.next()
                node = sympy.Mul(_scalar(node), DEG)
            elif self.at("op", "'"):
                raise ParseError("primes are not supported")
            else:
                return node

    # -- atoms --------------------------------------------------------------------------
    def parse_primary(self) -> Any:
        self.enter()
        try:
            return self._primary()
        finally:
            self.depth -= 1

    def _primary(self) -> Any:
        kind, value = self.next()
        if kind == "num":
            return self.number(value)
        if kind == "mixed":
            whole, frac = value.split()
            p, q = frac.split("/")
            if int(p) >= int(q):  # "11 6/6", "2 3/2": no mixed number (as 2\frac{3}{2} is none)
                raise ParseError(f"{value!r} is not a mixed number: its fraction is not proper")
            return _mixed(Rational(int(whole)), _divide(Rational(int(p)), Rational(int(q))))
        if kind == "word":
            return self.word(value)
        if kind == "cmd":
            return self.command(value)
        if kind == "op":
            if value in "([":
                return self.bracket(value)
            if value == "{":
                return self.brace_group()
            if value == "|":
                inner = _scalar(self.parse_expr())
                self.expect("op", "|")
                self.functions.add("abs")
                return sympy.Abs(inner)
        if kind == "text":
            if len(value) == 1 and value.isalpha():
                return self.letter(value)
            raise ParseError(f"text {value[:30]!r} is not a math answer")
        raise ParseError(f"unexpected {value or 'end of answer'!r}")

    def number(self, text: str) -> Any:
        value = parse_decimal(text)
        if "." in text and "e" not in text.lower() and self.at("cmd", "overline", "dot", "bar"):
            self.next()
            digits = self.raw_group_digits()
            value = repeating_decimal(text, digits)
        # 2\frac{1}{2} written as a mixed number means 5/2 when both parts are plain integers
        if value.is_Integer and self.at("cmd", *_FRAC_CMDS):
            save = self.i
            frac = self.parse_primary()
            if _is_literal_fraction(frac, self.toks[save : self.i]):
                return _mixed(value, frac)
            self.i = save
        return value

    def raw_group_digits(self) -> str:
        if self.at("num"):
            return self.next()[1]
        self.expect("op", "{")
        kind, digits = self.next()
        if kind != "num" or not digits.isdigit():
            raise ParseError("a repeating block must be digits")
        self.expect("op", "}")
        return digits

    def word(self, value: str) -> Any:
        if value in _FUNCTIONS:
            return self.function(value)
        if value in _CONSTANT_WORDS:
            return _CONSTANT_WORDS[value]
        if value in ("or", "and"):
            raise ParseError(f"unexpected {value!r}")
        if len(value) == 1:
            return self.letter(value)
        if len(value) == 2:  # "xy" is x*y, as in LaTeX math mode
            return sympy.Mul(self.letter(value[0]), self.letter(value[1]))
        raise ParseError(f"unknown word {value[:30]!r}")

    def letter(self, ch: str) -> Any:
        if ch == "e" and self.opt.e_is_euler and not self.at("op", "_"):
            return sympy.E
        if ch == "i" and self.opt.i_is_imaginary and not self.at("op", "_"):
            return sympy.I
        if ch == "j" and self.opt.j_is_imaginary and not self.at("op", "_"):
            return sympy.I
        return self.symbol(ch)

    def symbol(self, name: str) -> sympy.Symbol:
        if self.at("op", "_"):
            self.next()
            if self.at("op", "{"):
                self.next()
                parts: list[str] = []
                while not self.at("op", "}"):
                    kind, value = self.next()
                    if kind not in ("num", "word") or len(parts) > 8:
                        raise ParseError("a subscript must be letters or digits")
                    parts.append(value)
                self.next()
                sub = "".join(parts)
            else:
                kind, sub = self.next()
                if kind == "num":
                    sub = sub[0] if not sub.isdigit() else sub
                elif kind != "word":
                    raise ParseError("a subscript must be letters or digits")
            name = f"{name}_{sub}"
        return sympy.Symbol(name)

    def command(self, name: str) -> Any:
        if name in _FRAC_CMDS:
            num = _scalar(self.arg())
            den = _scalar(self.arg())
            self.note_fraction(num, den)
            return _divide(num, den)
        if name in _BINOM_CMDS:
            self.functions.add("factorial")
            return make_binomial(_scalar(self.arg()), _scalar(self.arg()))
        if name == "sqrt":
            return self.sqrt()
        if name in _FUNCTIONS:
            return self.function(name)
        if name in ("pi", "infty", "infin"):
            return sympy.pi if name == "pi" else sympy.oo
        if name in _GREEK:
            return self.symbol(name)
        if name in ("boxed", "fbox"):
            return self.brace_list()
        if name in ("emptyset", "varnothing"):
            return sympy.S.EmptySet
        if name == "{":
            return self.set_literal()
        if name == "mathbb":
            letter = self.brace_list()
            if letter == sympy.Symbol("R"):
                return sympy.S.Reals
            raise ParseError("only \\mathbb{R} is supported")
        if name == "begin":
            return self.matrix()
        if name == "langle":
            return self.angle_tuple()
        if name in ("lvert", "vert", "|"):
            inner = _scalar(self.parse_expr())
            if not (self.at("cmd", "rvert", "vert", "|") or self.at("op", "|")):
                raise ParseError("unclosed |")
            self.next()
            self.functions.add("abs")
            return sympy.Abs(inner)
        if name in ("lfloor", "lceil"):
            self.functions.add("floor")
            inner = _scalar(self.parse_expr())
            self.expect("cmd", "rfloor" if name == "lfloor" else "rceil")
            return sympy.floor(inner) if name == "lfloor" else sympy.ceiling(inner)
        if name in ("imath", "jmath"):
            return sympy.I
        if name in _REFUSED_CMDS:
            raise ParseError(_REFUSED_CMDS[name])
        raise ParseError(f"unsupported command \\{name}")

    def arg(self) -> Any:
        """One macro argument: ``{...}`` or a single token (``\\frac12`` is 1/2)."""
        if self.at("op", "{"):
            return self.brace_list()
        kind, value = self.peek()
        if kind == "num" and len(value) > 1 and value.isdigit():
            # split the digit run into its first digit and the rest (re-parsing stays valid)
            self.toks[self.i : self.i + 1] = [("num", value[0]), ("num", value[1:])]
            self.next()
            return Rational(int(value[0]))
        return self.parse_primary()

    def brace_list(self) -> Any:
        self.expect("op", "{")
        self.enter()
        node = self.group_body()
        self.depth -= 1
        self.expect("op", "}")
        return node

    def brace_group(self) -> Any:
        """``{...}``: a LaTeX group, or a set when it holds a plain-text list ``{1, 2}``."""
        self.i -= 1
        node = self.brace_list()
        if isinstance(node, Alts) and node.joiner == ",":
            return SetLit(node.items)
        return node

    def set_literal(self) -> Any:
        self.enter()
        items: list[Any] = []
        if not self.at("cmd", "}"):
            items.append(self.parse_relation())
            while self.at("op", ",", ";"):
                self.next()
                items.append(self.parse_relation())
                if len(items) > MAX_ITEMS:
                    raise ParseError("set too large")
        if self.at("op", ":", "|") or self.at("cmd", "mid"):
            return self.set_builder(items)
        self.expect("cmd", "}")
        self.depth -= 1
        return SetLit(tuple(items)) if items else sympy.S.EmptySet

    def set_builder(self, items: list[Any]) -> SetBuilder:
        """``\\{x \\mid cond\\}`` / ``\\{x \\in \\mathbb{R} : cond\\}`` after the variable."""
        var, domain = (items[0], None) if len(items) == 1 else (None, None)
        if isinstance(var, Rel) and var.ops == ("in",) and isinstance(var.terms[0], sympy.Symbol):
            var, domain = var.terms
        if not isinstance(var, sympy.Symbol):
            raise ParseError("set-builder notation needs one variable before the bar")
        self.next()
        condition = self.parse_list()
        self.expect("cmd", "}")
        self.depth -= 1
        return SetBuilder(var, domain, condition)

    def bracket(self, left: str) -> Any:
        self.enter()
        items = [self.parse_relation()]
        while self.at("op", ",", ";"):
            self.next()
            items.append(self.parse_relation())
            if len(items) > MAX_ITEMS:
                raise ParseError("tuple too large")
        kind, right = self.next()
        if kind != "op" or right not in ")]":
            raise ParseError(f"unclosed {left}")
        self.depth -= 1
        if len(items) == 1:
            if left + right not in ("()", "[]"):
                raise ParseError(f"mismatched {left}{right}")
            return items[0]
        return Bracket(tuple(items), left, right)

    def angle_tuple(self) -> Any:
        self.enter()
        items = [self.parse_expr()]
        while self.at("op", ","):
            self.next()
            items.append(self.parse_expr())
        self.expect("cmd", "rangle")
        self.depth -= 1
        return Bracket(tuple(items), "(", ")")

    def sqrt(self) -> Any:
        index = None
        if self.at("op", "["):
            self.next()
            index = _scalar(self.parse_expr())
            self.expect("op", "]")
        radicand = _scalar(self.arg())
        if index is not None and not (index.is_Integer and 2 <= index <= 1000):
            raise ParseError("a root index must be an integer from 2 to 1000")
        exponent = Rational(1, 2 if index is None else int(index))
        root = make_pow(radicand, exponent)
        self.note_root(radicand, exponent, root)
        return root

    def function(self, name: str) -> Any:
        base = power = None
        if name == "log" and self.at("op", "_"):
            self.next()
            base = _scalar(self.arg())
        if self.at("op", "^"):
            self.next()
            power = _scalar(self.arg())
        if self.at("op", "("):
            arg = _scalar(self.parse_primary())
        elif self.at("op", "{"):
            arg = _scalar(self.brace_list())
        else:  # \sin 2x: implicit products up to the next operator
            arg = _scalar(self.parse_power())
            while (
                self.at("word") and self.peek()[1] not in _FUNCTIONS and self.peek()[1] not in ("or", "and")
            ):
                arg = sympy.Mul(arg, _scalar(self.parse_power()))
        kind = _FUNCTION_KIND.get(name)
        if kind is not None:
            self.functions.add("arctrig" if power == -1 and name in _INVERSE else kind)
        if name in _TRIG:
            arg = arg.subs(DEG, sympy.pi / 180)
        if power is not None and power == -1 and name in _INVERSE:
            return _FUNCTIONS[_INVERSE[name]](arg)
        if name in ("lg",):
            value = sympy.log(arg, 10)
        elif base is not None:
            value = sympy.log(arg, base)
        else:
            value = _FUNCTIONS[name](arg)
        return make_pow(value, power) if power is not None else value

    def matrix(self) -> Any:
        env = self.env_name()
        if env not in _MATRIX_ENVS:
            raise ParseError(f"unsupported environment {env}")
        if env == "array" and self.at("op", "{"):  # column spec {cc}
            while not self.at("op", "}"):
                if self.at("eof"):
                    raise ParseError("unclosed array spec")
                self.next()
            self.next()
        rows: list[list[Any]] = [[]]
        while not self.at("cmd", "end"):
            if self.at("eof"):
                raise ParseError(f"unclosed {env}")
            rows[-1].append(_scalar(self.parse_expr()))
            if self.at("op", "&"):
                self.next()
            elif self.at("cmd", "\\"):
                self.next()
                rows.append([])
            elif not self.at("cmd", "end"):
                raise ParseError(f"unexpected {self.peek()[1]!r} in a matrix")
        self.next()
        if self.env_name() != env:
            raise ParseError("mismatched \\end")
        rows = [r for r in rows if r]
        if not rows or len({len(r) for r in rows}) != 1 or sum(map(len, rows)) > MAX_ITEMS:
            raise ParseError("a matrix needs rows of equal length")
        matrix = sympy.ImmutableMatrix(rows)
        if env == "vmatrix":
            self.functions.add("det")
            return matrix.det()
        return matrix

    def env_name(self) -> str:
        self.expect("op", "{")
        kind, name = self.next()
        if kind != "word":
            raise ParseError("bad environment name")
        if self.at("op", "*"):
            self.next()
        self.expect("op", "}")
        return name


# ------------------------------------------------------------------------------------------
# Guarded constructors
# ------------------------------------------------------------------------------------------


def _groups(items: list[Any], starts: list[int]) -> Any:
    """``a, b; c, d``: the list of the ``;``-separated groups, each of several items one answer
    (a system or a point); ``a; b`` is the plain list ``a, b``."""
    bounds = [*starts, len(items)]
    parts = [items[i:j] for i, j in zip(bounds, bounds[1:], strict=False)]
    if all(len(p) == 1 for p in parts):
        return Alts(tuple(items), ",")
    return Alts(tuple(p[0] if len(p) == 1 else Alts(tuple(p), ",") for p in parts), ",")


def _letters(node: Any) -> bool:
    """A named quantity: a letter (``x``, ``V_1``) or a product or quotient of letters (``AB``)."""
    if isinstance(node, sympy.Symbol):
        return node not in MARKERS
    return isinstance(node, sympy.Mul) and all(
        isinstance(a, sympy.Symbol)
        or (isinstance(a, sympy.Pow) and isinstance(a.base, sympy.Symbol) and a.exp == -1)
        for a in node.args
    )


def _constant(node: Any) -> bool:
    """A number (no variables), as the two sides of a ratio must be."""
    return isinstance(node, sympy.Expr) and not isinstance(node, sympy.MatrixBase) and not node.free_symbols


def _scalar(node: Any) -> sympy.Expr:
    if isinstance(node, sympy.Expr):
        return node
    if isinstance(node, sympy.MatrixBase):
        raise ParseError("matrix arithmetic is not supported in answers")
    raise ParseError(f"expected a number or expression, found {type(node).__name__}")


def _is_setlike(node: Any) -> bool:
    return isinstance(node, (Bracket, SetLit, sympy.Set, SetOp))


def _signed(node: Any, sign: str) -> Any:
    if isinstance(node, sympy.MatrixBase) and sign in "+-":
        return -node if sign == "-" else node
    value = _scalar(node)
    if sign == "-":
        return -value
    if sign in ("pm", "mp"):
        return sympy.Mul(PM, value) if sign == "pm" else sympy.Mul(-PM, value)
    return value


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, sympy.MatrixBase) and isinstance(b, sympy.MatrixBase):
        if a.shape != b.shape:
            raise ParseError("matrices of different shapes cannot be added")
        return sympy.ImmutableMatrix(a + b)
    return sympy.Add(_scalar(a), _scalar(b))


def _multiply(a: Any, b: Any) -> Any:
    """A product; a number times a matrix (``2\\begin{pmatrix}...``) or a matrix product."""
    a_matrix, b_matrix = isinstance(a, sympy.MatrixBase), isinstance(b, sympy.MatrixBase)
    if a_matrix and b_matrix:
        if a.cols != b.rows or a.rows * b.cols > MAX_ITEMS:
            raise ParseError("these matrices cannot be multiplied")
        return sympy.ImmutableMatrix(a * b)
    if a_matrix or b_matrix:
        matrix, factor = (a, b) if a_matrix else (b, a)
        return sympy.ImmutableMatrix(matrix * _scalar(factor))
    return sympy.Mul(_scalar(a), _scalar(b))


def _divide_any(num: Any, den: Any) -> Any:
    if isinstance(num, sympy.MatrixBase):
        return _multiply(num, _divide(sympy.Integer(1), _scalar(den)))
    return _divide(_scalar(num), _scalar(den))


def _divide(num: sympy.Expr, den: sympy.Expr) -> sympy.Expr:
    if den == 0:
        raise ParseError("division by zero")
    return sympy.Mul(num, make_pow(den, sympy.Integer(-1)))


def _mixed(whole: sympy.Expr, frac: sympy.Expr) -> sympy.Expr:
    return whole - frac if whole < 0 else whole + frac


def _is_literal_fraction(frac: Any, tokens: list[Token]) -> bool:
    numbers = [t for t in tokens if t[0] == "num"]
    return (
        isinstance(frac, sympy.Rational)
        and 0 < frac < 1
        and len(numbers) == 2
        and all(t[1].isdigit() for t in numbers)
    )


def parse_decimal(text: str) -> sympy.Rational:
    """An exact Rational from ``12``, ``3.25``, ``.5`` or ``1.5e3`` (never a float)."""
    mantissa, _, exp = text.lower().partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = _int((whole or "0") + frac) if (whole or frac) else 0
    power = (int(exp) if exp else 0) - len(frac)
    if abs(power) > 10_000:
        raise ParseError("exponent too large")
    return Rational(digits * 10**power) if power >= 0 else Rational(digits, 10**-power)


def _int(digits: str) -> int:
    """``int(digits)`` past Python's 4,300-digit guard, for numbers up to MAX_DIGITS digits."""
    if len(digits) > MAX_DIGITS:
        raise ParseError("number too long")
    if len(digits) <= 4000:
        return int(digits)
    half = len(digits) // 2
    return _int(digits[:half]) * 10 ** (len(digits) - half) + _int(digits[half:])


def repeating_decimal(prefix: str, block: str) -> sympy.Rational:
    """``0.1\\overline{6}`` = 1/6: ``prefix`` is the written part, ``block`` repeats forever."""
    whole, _, frac = prefix.partition(".")
    if len(frac) + len(block) > 200:
        raise ParseError("repeating decimal too long")
    head = int((whole or "0") + frac)
    full = int((whole or "0") + frac + block)
    return Rational(full - head, (10 ** len(block) - 1) * 10 ** len(frac))


def make_pow(base: sympy.Expr, exponent: sympy.Expr) -> sympy.Expr:
    """``base**exponent``, refusing powers too large to build in bounded time."""
    if exponent.is_Number and not exponent.is_Integer:
        if isinstance(exponent, sympy.Rational) and abs(exponent.q) > 1000:
            raise ParseError("root index too large")
    if exponent.is_Rational and abs(exponent) > 1:
        if base.is_Number and base not in (0, 1, -1):
            size = abs(base.p) + abs(base.q) if base.is_Rational else 10
            if abs(float(exponent)) * math.log2(size) > MAX_RESULT_BITS:
                raise ParseError("power too large")
        elif abs(exponent) > MAX_SYMBOLIC_EXPONENT and base not in (0, 1, -1):
            raise ParseError("power too large")
    elif not exponent.is_Number and _too_big(exponent):
        raise ParseError("power too large")
    if base == 0 and exponent.is_negative:
        raise ParseError("division by zero")
    return sympy.Pow(base, exponent)


def _too_big(exponent: sympy.Expr) -> bool:
    """A symbolic exponent holding huge numbers (``2^{10^{9} x}``) is refused too."""
    return any(abs(a) > 10**6 for a in exponent.atoms(sympy.Rational))


def make_factorial(n: sympy.Expr) -> sympy.Expr:
    if not (n.is_Integer and 0 <= n <= MAX_FACTORIAL):
        raise ParseError(f"factorial needs an integer from 0 to {MAX_FACTORIAL}")
    return sympy.factorial(n)


def make_binomial(n: sympy.Expr, k: sympy.Expr) -> sympy.Expr:
    if not (n.is_Integer and k.is_Integer and 0 <= n <= MAX_FACTORIAL):
        raise ParseError(f"binomial needs integers up to {MAX_FACTORIAL}")
    return sympy.binomial(n, k)


# ------------------------------------------------------------------------------------------
# Entry point
# ------------------------------------------------------------------------------------------


def parse_answer(text: str, options: Options | None = None) -> Any:
    """Parse one answer string into a sympy object or one of this module's structures."""
    return read_answer(text, options).value


def read_answer(text: str, options: Options | None = None) -> Answer:
    """Parse one answer, with its units and :class:`Form` (raises :class:`ParseError`)."""
    options = options or Options()
    try:
        if options.words:
            text = _mathwords.unwrap_answer(text)  # linear: a long sentence may hold a short box
        if len(text) > MAX_CHARS:
            raise ParseError(f"answer longer than {MAX_CHARS} characters")
        cleaned = normalize(text, thousands=options.thousands)
        if not cleaned:
            raise ParseError("empty answer")
        if _SPLIT_MIXED.search(cleaned):
            raise ParseError("a number and a fraction on two lines are two answers, not a mixed number")
        tokens, spaced = scan(_mathwords.strip_lead(cleaned))
        units: list[Unit] = []
        if options.words:
            tokens, spaced = _mathwords.read_number_words(tokens[:-1], spaced[:-1])
            tokens, spaced = _mathwords.read_percent_words(tokens, spaced)
            tokens, units = _mathwords.read_units(tokens, spaced)
            tokens.append(("eof", ""))
        else:
            tokens = [t for t in tokens if t != ("cmd", "dollar")]  # currency is notation
        parser = _Parser(tokens, options)
        value = parser.parse()
        return Answer(value, tuple(units), parser.form())
    except RecursionError:
        raise ParseError("answer nested too deeply") from None
    except (TypeError, ValueError, ArithmeticError, AttributeError, IndexError, KeyError) as exc:
        if isinstance(exc, ParseError):
            raise
        raise ParseError(f"cannot build the expression: {type(exc).__name__}") from None


def normalize_text(text: str) -> str:
    """The string form used for free-text answers (``\\text{East}`` = ``east``)."""
    text = re.sub(r"\\(?:text|textbf|mathrm|mbox|textit)\s*\{([^{}]*)\}", r"\1", text)
    text = unicodedata.normalize("NFKC", text).replace("$", "").replace("\\", "")
    text = re.sub(r"\s+", " ", text).strip().strip(".").strip()
    return text.casefold()
