"""Write a regular expression from positive and negative examples; graded on hidden strings.

Regexes use a safe subset (letters of the alphabet, ``.``, ``[...]`` classes with ranges,
grouping, ``|``, ``*``, ``+``, ``?``) parsed and run by our own Thompson-NFA matcher: matching is
linear in the string and no backtracking can blow up, so model text never reaches ``re``. A
submission must agree with the hidden target on EVERY string over the alphabet of length at
most ``max_len`` (an exhaustive check, i.e. language equality up to that length), evaluated
over the prefix trie so each state set is computed once.

Targets: random ASTs at levels 1-2; from level 3 a literal-rich alternation of concatenations
over {a, b, c} (letters, classes, quantified short groups, alternations of short literals), and a
target whose language some two-atom regex has (the weak solver's space) is rejected. Small random
ASTs over {a, b} kept drawing the same few languages (67% duplicates among 2,000 level-3 tasks);
the structured targets give under 1% at every level >= 3.

Generation: about 300 tasks/s at level 5 (CPU time, one core).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MAX_PATTERN = 300
MAX_DEPTH = 40


class RegexError(ValueError):
    """Not a regex of the supported subset."""


# ---------------------------------------------------------------- parsing: AST as nested lists
# ["chars", "abc"] | ["cat", a, b] | ["alt", a, b] | ["star", a] | ["plus", a] | ["opt", a] | ["eps"]


class _Parser:
    def __init__(self, text: str, alphabet: str) -> None:
        self.text, self.pos, self.alphabet = text, 0, alphabet

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def parse(self) -> list[Any]:
        node = self.alt(0)
        if self.pos != len(self.text):
            raise RegexError(f"unexpected {self.peek()!r} at {self.pos}")
        return node

    def alt(self, depth: int) -> list[Any]:
        if depth > MAX_DEPTH:
            raise RegexError("nested too deeply")
        node = self.cat(depth)
        while self.peek() == "|":
            self.pos += 1
            node = ["alt", node, self.cat(depth)]
        return node

    def cat(self, depth: int) -> list[Any]:
        node: list[Any] = ["eps"]
        while self.peek() and self.peek() not in "|)":
            item = self.repeat(depth)
            node = item if node == ["eps"] else ["cat", node, item]
        return node

    def repeat(self, depth: int) -> list[Any]:
        node = self.atom(depth)
        while self.peek() in ("*", "+", "?") and self.peek():
            node = [{"*": "star", "+": "plus", "?": "opt"}[self.peek()], node]
            self.pos += 1
        return node

    def atom(self, depth: int) -> list[Any]:
        ch = self.peek()
        self.pos += 1
        if ch == "(":
            node = self.alt(depth + 1)
            if self.peek() != ")":
                raise RegexError("unclosed (")
            self.pos += 1
            return node
        if ch == ".":
            return ["chars", self.alphabet]
        if ch == "[":
            return ["chars", self.char_class()]
        if ch in self.alphabet and ch:
            return ["chars", ch]
        raise RegexError(f"unsupported {ch!r} at {self.pos - 1}")

    def char_class(self) -> str:
        chars: set[str] = set()
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        while self.peek() != "]":
            ch = self.peek()
            if not ch or ch not in self.alphabet:
                raise RegexError("bad character class")
            self.pos += 1
            if self.peek() == "-" and self.text[self.pos + 1 : self.pos + 2] not in ("]", ""):
                end = self.text[self.pos + 1]
                if end not in self.alphabet or end < ch:
                    raise RegexError("bad range")
                chars |= {c for c in self.alphabet if ch <= c <= end}
                self.pos += 2
            else:
                chars.add(ch)
        self.pos += 1
        chosen = set(self.alphabet) - chars if negate else chars
        return "".join(sorted(chosen))


def parse_regex(text: str, alphabet: str) -> list[Any]:
    if len(text) > MAX_PATTERN:
        raise RegexError("pattern too long")
    return _Parser(text, alphabet).parse()


# ---------------------------------------------------------------- Thompson NFA


class Nfa:
    def __init__(self, ast: list[Any]) -> None:
        self.eps: list[list[int]] = []
        self.moves: list[list[tuple[str, int]]] = []
        self.start, self.accept = self.build(ast)

    def new(self) -> int:
        self.eps.append([])
        self.moves.append([])
        return len(self.eps) - 1

    def build(self, node: list[Any]) -> tuple[int, int]:
        tag = node[0]
        s, e = self.new(), self.new()
        if tag == "eps":
            self.eps[s].append(e)
        elif tag == "chars":
            self.moves[s].append((node[1], e))
        elif tag == "cat":
            a0, a1 = self.build(node[1])
            b0, b1 = self.build(node[2])
            self.eps[s].append(a0)
            self.eps[a1].append(b0)
            self.eps[b1].append(e)
        elif tag == "alt":
            for child in node[1:]:
                c0, c1 = self.build(child)
                self.eps[s].append(c0)
                self.eps[c1].append(e)
        else:
            c0, c1 = self.build(node[1])
            self.eps[s].append(c0)
            self.eps[c1].append(e)
            if tag in ("star", "opt"):
                self.eps[s].append(e)
            if tag in ("star", "plus"):
                self.eps[c1].append(c0)
        return s, e

    def closure(self, states: set[int]) -> frozenset[int]:
        stack, seen = list(states), set(states)
        while stack:
            for t in self.eps[stack.pop()]:
                if t not in seen:
                    seen.add(t)
                    stack.append(t)
        return frozenset(seen)

    def step(self, states: frozenset[int], ch: str) -> frozenset[int]:
        return self.closure({t for s in states for chars, t in self.moves[s] if ch in chars})

    def matches(self, text: str) -> bool:
        states = self.closure({self.start})
        for ch in text:
            states = self.step(states, ch)
            if not states:
                return False
        return self.accept in states


def language(ast: list[Any], alphabet: str, max_len: int) -> set[str]:
    """Every string of length <= max_len matched by ``ast`` (walks the prefix trie once)."""
    nfa = Nfa(ast)
    out: set[str] = set()
    frontier = [("", nfa.closure({nfa.start}))]
    for _ in range(max_len + 1):
        nxt = []
        for prefix, states in frontier:
            if nfa.accept in states:
                out.add(prefix)
            if len(prefix) < max_len:
                for ch in alphabet:
                    moved = nfa.step(states, ch)
                    if moved:
                        nxt.append((prefix + ch, moved))
        frontier = nxt
    return out


def render(node: list[Any], alphabet: str) -> str:
    tag = node[0]
    if tag == "chars":
        if node[1] == alphabet:
            return "."
        return node[1] if len(node[1]) == 1 else f"[{node[1]}]"
    if tag == "eps":
        return "()"
    if tag == "cat":
        return "".join(_wrap(c, alphabet, ("alt",)) for c in node[1:])
    if tag == "alt":
        return "|".join(render(c, alphabet) for c in node[1:])
    inner = _wrap(node[1], alphabet, ("alt", "cat", "star", "plus", "opt"))
    return inner + {"star": "*", "plus": "+", "opt": "?"}[tag]


def _wrap(node: list[Any], alphabet: str, tags: tuple[str, ...]) -> str:
    text = render(node, alphabet)
    return f"({text})" if node[0] in tags else text


def draw_ast(rng: np.random.Generator, size: int, alphabet: str) -> list[Any]:
    if size <= 1:
        roll = rng.random()
        if roll < 0.15:
            return ["chars", alphabet]
        if roll < 0.3 and len(alphabet) > 2:
            pick = sorted(rng.choice(list(alphabet), size=2, replace=False).tolist())
            return ["chars", "".join(pick)]
        return ["chars", alphabet[int(rng.integers(len(alphabet)))]]
    roll = rng.random()
    if roll < 0.25:
        return [("star", "plus", "opt")[int(rng.integers(3))], draw_ast(rng, size - 1, alphabet)]
    left = int(rng.integers(1, size))
    tag = "alt" if roll < 0.45 else "cat"
    return [tag, draw_ast(rng, left, alphabet), draw_ast(rng, size - left, alphabet)]


def _letter(rng: np.random.Generator, alphabet: str) -> list[Any]:
    return ["chars", alphabet[int(rng.integers(len(alphabet)))]]


def _literal(rng: np.random.Generator, alphabet: str, length: int) -> list[Any]:
    node = _letter(rng, alphabet)
    for _ in range(length - 1):
        node = ["cat", node, _letter(rng, alphabet)]
    return node


def _char_class(rng: np.random.Generator, alphabet: str) -> list[Any]:
    if len(alphabet) > 2 and rng.random() < 0.6:
        return ["chars", "".join(sorted(rng.choice(list(alphabet), size=2, replace=False).tolist()))]
    return ["chars", alphabet]


def _piece(rng: np.random.Generator, alphabet: str) -> list[Any]:
    """One concatenation piece; mostly literal letters, so the languages drawn are many and spread."""
    roll = rng.random()
    if roll < 0.5:
        return _letter(rng, alphabet)
    if roll < 0.58:
        return _char_class(rng, alphabet)
    if roll < 0.85:
        pick = rng.random()
        if pick < 0.35:
            inner = _letter(rng, alphabet)
        elif pick < 0.65:
            inner = _literal(rng, alphabet, 2)
        elif pick < 0.8:
            inner = _char_class(rng, alphabet)
        else:
            inner = ["alt", _letter(rng, alphabet), _literal(rng, alphabet, 2)]
        return [("star", "plus", "opt")[int(rng.choice(3, p=[0.45, 0.25, 0.3]))], inner]
    left, right = (int(n) for n in rng.integers(1, 3, size=2))
    return ["alt", _literal(rng, alphabet, left), _literal(rng, alphabet, right)]


def draw_structured(rng: np.random.Generator, pieces: int, branches: int, alphabet: str) -> list[Any]:
    """An alternation of ``branches`` concatenations with ``pieces`` pieces in all."""
    node: list[Any] | None = None
    for branch in range(branches):
        count = pieces // branches + (branch < pieces % branches)
        part = _piece(rng, alphabet)
        for _ in range(count - 1):
            part = ["cat", part, _piece(rng, alphabet)]
        node = part if node is None else ["alt", node, part]
    assert node is not None
    return node


def tiny_regexes(alphabet: str) -> list[list[Any]]:
    """Every regex of at most two atoms (with one optional quantifier): the weak solver's space."""
    atoms = [["chars", c] for c in alphabet] + [["chars", alphabet]]
    cands = [[t, a] for a in atoms for t in ("star", "plus", "opt")] + atoms
    cands += [["cat", a, b] for a in atoms for b in atoms] + [
        ["cat", a, ["star", b]] for a in atoms for b in atoms
    ]
    cands += [["cat", ["star", a], b] for a in atoms for b in atoms]
    return cands


@functools.lru_cache(maxsize=16)
def tiny_languages(alphabet: str, max_len: int) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(language(c, alphabet, max_len)) for c in tiny_regexes(alphabet))


def count_nodes(node: list[Any]) -> int:
    return 1 + sum(count_nodes(c) for c in node[1:] if isinstance(c, list))


# ---------------------------------------------------------------- the family


@dataclass(frozen=True)
class RegexSynthesisKnobs(Knobs):
    alphabet: str = knob("ab", choices=("ab", "abc"), help="letters of the strings")
    size: int = knob(3, low=1, high=20, help="AST nodes of a random target regex (when pieces is 0)")
    pieces: int = knob(
        0,
        low=0,
        high=16,
        help="if > 0: the target is a literal-rich alternation of concatenations with this many pieces "
        "in all, and targets whose language a two-atom regex has are rejected",
    )
    branches: int = knob(1, low=1, high=4, help="alternatives of the structured target (pieces > 0)")
    max_len: int = knob(5, low=3, high=8, help="graded on every string up to this length")
    examples: int = knob(8, low=4, high=40, help="positive plus negative examples shown")

    def validate(self) -> None:
        super().validate()
        if self.pieces and self.branches > self.pieces:
            raise ValueError("branches must not exceed pieces")


LEVELS = {
    1: RegexSynthesisKnobs(alphabet="ab", size=3, max_len=5, examples=12),
    2: RegexSynthesisKnobs(alphabet="ab", size=4, max_len=5, examples=12),
    # from level 3 on, structured targets: small random ASTs keep hitting the same few languages
    3: RegexSynthesisKnobs(alphabet="abc", pieces=5, branches=2, max_len=6, examples=14),
    4: RegexSynthesisKnobs(alphabet="abc", pieces=6, branches=2, max_len=6, examples=16),
    5: RegexSynthesisKnobs(alphabet="abc", pieces=7, branches=2, max_len=6, examples=16),
    6: RegexSynthesisKnobs(alphabet="abc", pieces=8, branches=2, max_len=6, examples=18),
    7: RegexSynthesisKnobs(alphabet="abc", pieces=9, branches=3, max_len=6, examples=18),
    8: RegexSynthesisKnobs(alphabet="abc", pieces=10, branches=3, max_len=6, examples=20),
    9: RegexSynthesisKnobs(alphabet="abc", pieces=11, branches=3, max_len=6, examples=20),
    10: RegexSynthesisKnobs(alphabet="abc", pieces=12, branches=3, max_len=6, examples=20),
}

PROMPT = """Find a regular expression over the letters {{{letters}}} that matches (as a whole string) \
these strings:

{positives}

and none of these:

{negatives}

(\"\" is the empty string.) Your regex is graded on EVERY string over {{{letters}}} of length at \
most {max_len}: it must match exactly the strings the hidden target matches; any such regex is \
accepted. Use only: the letters, . (any letter), classes like [ab] or [^a], parentheses, |, *, + \
and ? (no anchors, no escapes, no {{m,n}}). For example <answer>(ab|b)*a?</answer>."""


@family(
    "regex_synthesis",
    domain="code",
    knobs=RegexSynthesisKnobs,
    levels=LEVELS,
    description="Write a regex from positive/negative examples; graded on every string up to a length (own NFA matcher).",
    verifier_kind="language equality up to max_len (own Thompson NFA)",
    version=2,
)
class RegexSynthesis(Family):
    def generate(self, knobs: RegexSynthesisKnobs, rng: np.random.Generator) -> TaskDraft:
        alphabet = knobs.alphabet
        universe = [
            "".join(p) for n in range(knobs.max_len + 1) for p in itertools.product(alphabet, repeat=n)
        ]
        tiny = tiny_languages(alphabet, knobs.max_len) if knobs.pieces else frozenset()
        for _ in range(1000):
            if knobs.pieces:
                ast = draw_structured(rng, knobs.pieces, knobs.branches, alphabet)
                lang = language(ast, alphabet, knobs.max_len)
                # enough positives to show; a degenerate (two-atom) language is rejected
                fits = knobs.examples // 2 + 1 <= len(lang) <= 0.7 * len(universe)
                if fits and frozenset(lang) not in tiny:
                    break
                continue
            ast = draw_ast(rng, knobs.size, alphabet)
            lang = language(ast, alphabet, knobs.max_len)
            share = len(lang) / len(universe)
            if 0.1 <= share <= 0.7:
                break
        else:
            raise RuntimeError(f"could not draw a regex for {knobs}")
        pos = sorted(lang, key=lambda s: (len(s), s))
        neg = sorted(set(universe) - lang, key=lambda s: (len(s), s))
        half = knobs.examples // 2
        shown_pos = [
            pos[int(i)] for i in sorted(rng.choice(len(pos), size=min(half, len(pos)), replace=False))
        ]
        shown_neg = [
            neg[int(i)] for i in sorted(rng.choice(len(neg), size=min(half, len(neg)), replace=False))
        ]
        fmt = lambda xs: "\n".join(f'"{s}"' for s in xs)  # noqa: E731
        target = render(ast, alphabet)
        return TaskDraft(
            prompt=PROMPT.format(
                letters=", ".join(alphabet),
                positives=fmt(shown_pos),
                negatives=fmt(shown_neg),
                max_len=knobs.max_len,
            ),
            answer=target,
            metadata={
                "alphabet": alphabet,
                "max_len": knobs.max_len,
                "positives": shown_pos,
                "negatives": shown_neg,
                "language": sorted(lang),
                "nodes": count_nodes(ast),
                "canonical_hash": content_hash(sorted(lang)),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        meta = task.metadata
        extraction = extract_answer(response, allow_bare=False, max_chars=MAX_PATTERN)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        text = extraction.text.strip().strip("`").strip()
        if len(text) >= 2 and text[0] == text[-1] == "/":
            text = text[1:-1]
        try:
            ast = parse_regex(text, meta["alphabet"])
        except RegexError as exc:
            return Verdict.bad_format(f"not a regex of the supported subset: {exc}")
        got = language(ast, meta["alphabet"], meta["max_len"])
        want = set(meta["language"])
        if got == want:
            return Verdict.right(parsed=text)
        wrong = sorted(got ^ want, key=lambda s: (len(s), s))[0]
        side = "matches" if wrong in got else "does not match"
        return Verdict.wrong(f'the regex {side} "{wrong}"', parsed=text)

    def solve_exact(self, task: Task) -> SolverRun:
        # the target; effort = its NFA size times the strings graded
        meta = task.metadata
        graded = sum(len(meta["alphabet"]) ** n for n in range(meta["max_len"] + 1))
        return SolverRun(f"<answer>{task.answer}</answer>", float(meta["nodes"] * graded))

    def solve_weak(self, task: Task) -> SolverRun:
        # try every regex of at most 2 nodes consistent with the shown examples
        meta = task.metadata
        alphabet = meta["alphabet"]
        cands = tiny_regexes(alphabet)
        for tries, cand in enumerate(cands, start=1):
            nfa = Nfa(cand)
            if all(nfa.matches(s) for s in meta["positives"]) and not any(
                nfa.matches(s) for s in meta["negatives"]
            ):
                return SolverRun(f"<answer>{render(cand, alphabet)}</answer>", float(tries))
        return SolverRun(None, float(len(cands)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = task.metadata
        alphabet = meta["alphabet"]
        pos = meta["positives"]
        candidates = [
            "|".join(f"({s})" if s else "()" for s in pos),  # memorised positives only
            f"({task.answer})|{alphabet[0]}{alphabet}*",
            f"{alphabet[0]}({task.answer})",
            ".*",
            f"({task.answer}){alphabet[-1]}",
        ]
        want = set(meta["language"])
        out = [
            f"<answer>{c}</answer>"
            for c in candidates
            if language(parse_regex(c, alphabet), alphabet, meta["max_len"]) != want
        ]
        return list(dict.fromkeys(out))
