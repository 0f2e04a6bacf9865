"""Categorical syllogisms (and longer chains): valid or invalid, with a countermodel for invalid.

Statements are "All X are Y", "No X are Y", "Some X are Y" and "Some X are not Y" over made-up
plural nouns (so world knowledge cannot help), read without existential import. A model is a
finite set of individuals, each belonging to some of the terms. Validity is decided exactly:
universal statements forbid kinds of individuals, existential ones demand a witness, and a
countermodel exists iff every demanded witness has an allowed kind (one individual per demand).
"Invalid" answers must list a countermodel, which the verifier evaluates; any countermodel counts.
"Valid" answers must derive the conclusion: numbered lines after the premises, each a statement
that follows from the one or two earlier lines it cites (each step is checked exactly, so any
sound syllogism counts), the last being the conclusion. A bare verdict is never enough: a constant
"valid" scored 47% before (issue 16). The reference derivation reads the contradiction off the
universal statements as implications between literals (see ``derivation``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

STEMS = (
    "wug", "blicket", "dav", "fep", "zorb", "glorp", "tove", "kirb", "snarf", "plonk", "vorn", "quib",
    "mimble", "grommet", "yindle", "frumble",
)  # fmt: skip
FORMS = ("A", "E", "I", "O")
_VERDICT = re.compile(r"^\s*(valid|invalid)\b[\s,;:.\-—]*(.*)$", re.IGNORECASE | re.DOTALL)
_GROUP = re.compile(r"[\[{(]([^\]})\[{(]*)[\]})]")
Statement = list  # [form, x, y] with term indices


@dataclass(frozen=True)
class SyllogismKnobs(Knobs):
    premises: int = knob(2, low=2, high=10, help="premises in the chain linking the conclusion's terms")
    distractors: int = knob(0, low=0, high=4, help="extra premises that are not links of the chain")
    universal_bias: float = knob(0.5, low=0.0, high=1.0, help="probability a premise is universal (All/No)")

    def validate(self) -> None:
        if self.premises + 1 + self.distractors > len(STEMS):
            raise ValueError(f"at most {len(STEMS)} terms: premises + 1 + distractors is too large")


LEVELS = {
    1: SyllogismKnobs(premises=2),
    2: SyllogismKnobs(premises=2, distractors=1),
    3: SyllogismKnobs(premises=3, distractors=3),
    4: SyllogismKnobs(premises=4, distractors=3),
    5: SyllogismKnobs(premises=5, distractors=3),
    6: SyllogismKnobs(premises=5, distractors=4),
    7: SyllogismKnobs(premises=6, distractors=4, universal_bias=0.6),
    8: SyllogismKnobs(premises=7, distractors=4, universal_bias=0.6),
    9: SyllogismKnobs(premises=8, distractors=4, universal_bias=0.6),
    10: SyllogismKnobs(premises=9, distractors=4, universal_bias=0.65),
}


NEGATION = {"A": "O", "E": "I", "I": "E", "O": "A"}


def _violates(form: str, x: int, y: int, kind: int) -> bool:
    """Does an individual of ``kind`` (a bitmask of terms) break the universal statement?"""
    has_x, has_y = bool(kind >> x & 1), bool(kind >> y & 1)
    return has_x and (not has_y if form == "A" else has_y)


def _witnesses(form: str, x: int, y: int, kind: int) -> bool:
    """Is an individual of ``kind`` a witness for the existential statement?"""
    has_x, has_y = bool(kind >> x & 1), bool(kind >> y & 1)
    return has_x and (has_y if form == "I" else not has_y)


def holds(statement: Statement, kinds: list[int]) -> bool:
    """Truth of a statement in a model given as the kinds of its individuals."""
    form, x, y = statement
    if form in ("A", "E"):
        return not any(_violates(form, x, y, k) for k in kinds)
    return any(_witnesses(form, x, y, k) for k in kinds)


def countermodel(
    premises: list[Statement], conclusion: Statement, terms: int
) -> tuple[list[int] | None, int]:
    """A countermodel (kinds of individuals, one per demanded witness) or ``None``; and steps.

    Steps count kind-by-statement checks: every kind of individual against every universal
    statement, then the allowed kinds against each demand.
    """
    negated = [NEGATION[conclusion[0]], conclusion[1], conclusion[2]]
    statements = [*premises, negated]
    kinds = np.arange(2**terms, dtype=np.int64)
    member = [(kinds >> t & 1).astype(bool) for t in range(terms)]
    allowed = np.ones(len(kinds), dtype=bool)
    steps = 0
    for form, x, y in statements:
        if form in ("A", "E"):
            allowed &= ~(member[x] & (~member[y] if form == "A" else member[y]))
            steps += len(kinds)
    model = []
    for form, x, y in statements:
        if form in ("I", "O"):
            found = np.flatnonzero(allowed & member[x] & (member[y] if form == "I" else ~member[y]))
            steps += int(allowed.sum())
            if len(found) == 0:
                return None, steps
            model.append(int(found[0]))
    return (model or [0]), steps


def render(statement: Statement, names: list[str]) -> str:
    form, x, y = statement
    a, b = names[x], names[y]
    return {
        "A": f"All {a} are {b}",
        "E": f"No {a} are {b}",
        "I": f"Some {a} are {b}",
        "O": f"Some {a} are not {b}",
    }[form]


def _draw_statement(knobs: SyllogismKnobs, rng: np.random.Generator, x: int, y: int) -> Statement:
    universal = rng.random() < knobs.universal_bias
    form = ("A", "E")[int(rng.random() < 0.35)] if universal else ("I", "O")[int(rng.random() < 0.4)]
    if form in ("E", "I") and rng.random() < 0.5:
        x, y = y, x  # symmetric forms: either order reads naturally
    elif form in ("A", "O") and rng.random() < 0.3:
        x, y = y, x
    return [form, int(x), int(y)]


def _valid_shape(knobs: SyllogismKnobs, rng: np.random.Generator, chain: list[int]) -> list[Statement]:
    """Links shaped like a valid chain: All-links forward, at most one No-link (after which the
    All-links run backwards) and possibly a Some-link at the start."""
    k = knobs.premises
    e = int(rng.integers(k)) if rng.random() < 0.4 else None
    premises: list[Statement] = []
    for j in range(k):
        x, y = chain[j], chain[j + 1]
        if e is not None and j > e:
            x, y = y, x
        if j == e:
            premises.append(["E", *((x, y) if rng.random() < 0.5 else (y, x))])
        elif j == 0 and rng.random() < 0.35:
            premises.append(["I", *((x, y) if rng.random() < 0.5 else (y, x))])
        else:
            premises.append(["A", x, y])
    return premises


def draw_instance(
    knobs: SyllogismKnobs, rng: np.random.Generator
) -> tuple[list[Statement], Statement, list[int], bool]:
    """Premises, conclusion, the chain of terms linking its ends, and the validity label."""
    want_valid = bool(rng.random() < 0.5)
    terms = knobs.premises + 1 + knobs.distractors
    for _ in range(500):
        chain = [int(t) for t in rng.permutation(knobs.premises + 1)]
        if want_valid or rng.random() < 0.5:
            premises = _valid_shape(knobs, rng, chain)
            if not want_valid:  # spoil one link: a near miss is the interesting invalid case
                j = int(rng.integers(len(premises)))
                form, x, y = premises[j]
                premises[j] = (
                    [form, y, x]
                    if form in "AO" and rng.random() < 0.6
                    else [FORMS[int(rng.integers(4))], x, y]
                )
        else:
            premises = [_draw_statement(knobs, rng, chain[i], chain[i + 1]) for i in range(knobs.premises)]
        for j in range(knobs.distractors):
            # a side branch: a new term hung off a random term already present
            new = knobs.premises + 1 + j
            premises.append(_draw_statement(knobs, rng, new, int(rng.integers(new))))
        # the conclusion links two chain terms at least two links apart (the ends, or nearly)
        k = knobs.premises
        span = int(rng.integers(max(2, k - 1), k + 1)) if k > 2 else 2
        start = int(rng.integers(0, k - span + 1))
        ends = (chain[start], chain[start + span])
        candidates = [[f, *ends] for f in FORMS] + [[f, ends[1], ends[0]] for f in FORMS]
        order = [int(i) for i in rng.permutation(len(candidates))]
        for c in (candidates[i] for i in order):
            if c in premises or (c[0] in "EI" and [c[0], c[2], c[1]] in premises):
                continue
            model, _ = countermodel(premises, c, terms)
            if (model is None) == want_valid:
                shuffled = [premises[int(i)] for i in rng.permutation(len(premises))]
                return shuffled, c, chain, want_valid
    raise RuntimeError(f"could not draw a syllogism for {knobs}")


def parse_model(text: str, names: list[str]) -> tuple[list[int] | None, str]:
    """Individuals written as bracket groups of term names: ``[wugs, daxes], [feps], []``."""
    lookup = {}
    for i, name in enumerate(names):
        lookup[name.lower()] = i
        lookup[name[:-1].lower()] = i  # singular stem
    if re.sub(r"\band\b", " ", _GROUP.sub(" ", text)).strip(" \t\n,;.") != "":
        return None, "write each individual as a bracketed list of terms, e.g. [wugs, feps], []"
    kinds = []
    for group in _GROUP.findall(text):
        kind = 0
        for word in re.split(r"[\s,;]+|\band\b", group.strip().lower()):
            if not word or word in ("nothing", "none"):
                continue
            if word not in lookup:
                return None, f"unknown term {word!r}"
            kind |= 1 << lookup[word]
        kinds.append(kind)
    if not kinds:
        return None, "a countermodel needs at least one individual"
    return kinds, ""


def format_model(kinds: list[int], names: list[str]) -> str:
    return ", ".join("[" + ", ".join(n for i, n in enumerate(names) if k >> i & 1) + "]" for k in kinds)


# --------------------------------------------------------------------------------------------
# Derivations: the certificate of "valid"
# --------------------------------------------------------------------------------------------
#
# A derivation continues the numbered premises; each line is a statement that follows from the one
# or two earlier lines it cites, checked exactly: the cited lines and the new statement mention at
# most six terms, and the countermodel search decides that small entailment. So any sound step
# counts (Barbara, Celarent, Darii, Ferio, conversions, ...), while the need to cite at most two
# lines makes the derivation a real chain: citing every premise at once is not allowed.

MAX_DERIVED_LINES = 60
Literal = tuple[int, bool]  # (term, positive?)
MAX_LINE_CHARS = 200  # a derived line is one short statement and its citations
_NUMBER = re.compile(r"(?:[-*•]\s*)?(?P<n>\d{1,3})\s*[.):]?\s")
_CITES = re.compile(r"[(\[]\s*(?:from|by)\s+(?P<cites>\d{1,3}(?:\s*(?:,|and|&)\s*\d{1,3})?)\s*[)\]]\s*\.?")
_STATEMENT = re.compile(
    r"(?P<q>all|no|some)\s+(?P<x>[a-z]+)\s+(?:are|is)\s+(?P<not>not\s+)?(?:an?\s+)?(?P<y>[a-z]+)",
    re.IGNORECASE,
)


def entails(cited: list[Statement], claim: Statement) -> bool:
    """Do the cited statements entail ``claim``? (Exact: the countermodel search on their terms.)"""
    terms = sorted({t for s in [*cited, claim] for t in s[1:]})
    local = {t: i for i, t in enumerate(terms)}
    rename = [[s[0], local[s[1]], local[s[2]]] for s in cited]
    model, _ = countermodel(rename, [claim[0], local[claim[1]], local[claim[2]]], len(terms))
    return model is None


def _same(a: Statement, b: Statement) -> bool:
    """Equal statements, reading E and I both ways round."""
    return a == b or (a[0] in "EI" and a == [b[0], b[2], b[1]])


def parse_statement(text: str, lookup: dict[str, int]) -> Statement | None:
    match = _STATEMENT.fullmatch(text.strip()) if len(text) <= MAX_LINE_CHARS else None
    if match is None or (match["not"] and match["q"].lower() != "some"):
        return None
    x, y = lookup.get(match["x"].lower()), lookup.get(match["y"].lower())
    if x is None or y is None:
        return None
    form = {"all": "A", "no": "E", "some": "O" if match["not"] else "I"}[match["q"].lower()]
    return [form, x, y]


def _term_lookup(names: list[str]) -> dict[str, int]:
    lookup = {}
    for i, name in enumerate(names):
        lookup[name.lower()] = i
        lookup[name[:-1].lower()] = i  # singular stem
    return lookup


def parse_derivation(
    text: str, names: list[str], first: int
) -> tuple[list[tuple[Statement, list[int]]] | None, str]:
    """Lines ``N. <statement> (from i, j)`` numbered from ``first``, or ``(None, why)``."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return (
            None,
            "'valid' needs a derivation: numbered lines '<statement> (from i, j)' ending in the conclusion",
        )
    if len(lines) > MAX_DERIVED_LINES:
        return None, f"more than {MAX_DERIVED_LINES} derived lines"
    lookup = _term_lookup(names)
    out: list[tuple[Statement, list[int]]] = []
    for number, line in enumerate(lines, start=first):
        # split by hand (number, statement, last bracket): one regex over the whole line backtracks
        text = line.strip()
        head = _NUMBER.match(text) if len(text) <= MAX_LINE_CHARS else None
        bracket = max(text.rfind("("), text.rfind("["))
        tail = _CITES.fullmatch(text, bracket) if head and bracket > head.end() else None
        if tail is None:
            return None, f"line {number}: expected '{number}. <statement> (from i, j)'"
        if int(head["n"]) != number:
            return None, f"line {number}: numbered {head['n']}"
        statement = parse_statement(text[head.end() : bracket].strip().rstrip("."), lookup)
        if statement is None:
            return None, f"line {number}: not a statement 'All/No/Some X are (not) Y' over the terms"
        cites = [int(c) for c in re.findall(r"\d+", tail["cites"])]
        out.append((statement, cites))
    return out, ""


def check_derivation(
    derivation: list[tuple[Statement, list[int]]], premises: list[Statement], conclusion: Statement
) -> str | None:
    """Why the derivation fails (naming the first bad line), or ``None`` if it derives the conclusion."""
    lines = list(premises)
    for statement, cites in derivation:
        number = len(lines) + 1
        if any(not 1 <= c < number for c in cites) or len(set(cites)) != len(cites):
            return f"line {number}: cite one or two different earlier lines"
        if not entails([lines[c - 1] for c in cites], statement):
            return f"line {number} does not follow from line{'s' if len(cites) > 1 else ''} {', '.join(map(str, cites))}"
        lines.append(statement)
    if not _same(lines[-1], conclusion):
        return "the last line is not the conclusion"
    return None


def _edges(statement: Statement) -> list[tuple[Literal, Literal]]:
    """A universal statement as implications between literals (both contrapositive forms)."""
    form, x, y = statement
    if form == "A":
        return [((x, True), (y, True)), ((y, False), (x, False))]
    return [((x, True), (y, False)), ((y, True), (x, False))]


def _universal(u: Literal, v: Literal) -> Statement:
    """The statement saying ``u`` implies ``v`` (u -> v over the terms; never negative -> positive)."""
    if u[1] and v[1]:
        return ["A", u[0], v[0]]
    if u[1]:
        return ["E", u[0], v[0]]
    return ["A", v[0], u[0]]


def _existential(a: Literal, b: Literal) -> Statement | None:
    """The statement saying something is both ``a`` and ``b`` (None if neither is positive)."""
    if not a[1]:
        a, b = b, a
    if not a[1]:
        return None
    return ["I" if b[1] else "O", a[0], b[0]]


def _paths(
    edges: list[tuple[Literal, Literal, int | None]], start: Literal, allow_nc: bool
) -> dict[tuple[Literal, bool], list[tuple[Literal, Literal, int | None]]]:
    """Shortest edge paths from ``start`` (breadth first), keyed by (literal, negated conclusion used);
    an edge labelled ``None`` is the negated conclusion, usable at most once."""
    paths = {(start, False): []}
    frontier = [(start, False)]
    while frontier:
        nxt = []
        for lit, used in frontier:
            for u, v, label in edges:
                if u != lit or (label is None and (used or not allow_nc)):
                    continue
                state = (v, used or label is None)
                if state not in paths:
                    paths[state] = paths[(lit, used)] + [(u, v, label)]
                    nxt.append(state)
        frontier = nxt
    return paths


class _Builder:
    """Derived lines after the premises, each citing one or two earlier lines."""

    def __init__(self, premises: list[Statement]):
        self.premises = premises
        self.lines: list[tuple[Statement, list[int]]] = []

    def add(self, statement: Statement, cites: list[int]) -> int:
        self.lines.append((statement, cites))
        return len(self.premises) + len(self.lines)

    def chain(self, path: list[tuple[Literal, Literal, int | None]]) -> int | None:
        """Summarise a path of premise edges into one universal line (its number), or None if empty."""
        if not path:
            return None
        line = path[0][2] + 1  # type: ignore[operator]
        for k in range(1, len(path)):
            line = self.add(_universal(path[0][0], path[k][1]), [line, path[k][2] + 1])  # type: ignore[operator]
        return line


def derivation(premises: list[Statement], conclusion: Statement) -> list[tuple[Statement, list[int]]] | None:
    """A derivation of ``conclusion`` from ``premises`` (lines numbered after them), or ``None``
    when the argument is invalid. Shortest over the ways it can be valid.

    Validity means some demanded witness (an existential premise, or the negated conclusion when
    that is existential) is impossible under the universal statements read as implications
    between literals: its literals lead to a contradiction. The path of that contradiction becomes
    Barbara/Celarent-style chain lines, and the witness is carried along it with Darii/Ferio-style
    lines; a path through the negated conclusion is read backwards into the conclusion itself.
    """
    negated = [NEGATION[conclusion[0]], conclusion[1], conclusion[2]]
    edges = [(u, v, k) for k, s in enumerate(premises) if s[0] in "AE" for u, v in _edges(s)]
    if negated[0] in "AE":
        edges += [(u, v, None) for u, v in _edges(negated)]
    demands = [(k, s) for k, s in enumerate(premises) if s[0] in "IO"]
    if negated[0] in "IO":
        demands.append((None, negated))
    best: list[tuple[Statement, list[int]]] | None = None
    for index, (form, x, y) in demands:
        pair = [(x, True), (y, form == "I")]
        for start, other in (pair, pair[::-1]):
            paths = _paths(edges, start, allow_nc=index is not None)
            # dict.fromkeys, not a set: ties between derivations must break the same way in every process
            for target in dict.fromkeys([(other[0], not other[1]), (start[0], not start[1])]):
                for used in (False, True):
                    if (target, used) in paths:
                        lines = _derive(premises, conclusion, index, start, paths[(target, used)])
                        if lines is not None and (best is None or len(lines) < len(best)):
                            best = lines
    return best


def _derive(
    premises: list[Statement],
    conclusion: Statement,
    demand: int | None,
    start: Literal,
    path: list[tuple[Literal, Literal, int | None]],
) -> list[tuple[Statement, list[int]]] | None:
    builder = _Builder(premises)
    nc = [k for k, (_, _, label) in enumerate(path) if label is None]
    if demand is None:  # the negated conclusion's witness is impossible: chain to the conclusion
        last = builder.chain(path)
        if last is None:
            return None
        statement = builder.lines[-1][0] if builder.lines else premises[last - 1]
        if not _same(statement, conclusion):
            builder.add(conclusion, [last])  # e.g. "No X are X" gives "All X are Y"
        return builder.lines
    if not nc:  # the premises contradict each other: anything follows
        last = builder.chain(path)
        cites = [demand + 1] + ([last] if last is not None else [])
        builder.add(conclusion, cites)
        return builder.lines
    # the witness of premise `demand` has literals `start` and b (b = the negation of the path's
    # end); the path runs start => s, then the negated conclusion's edge s -> t, then t => not b.
    # So the witness is s and not t: exactly what the (existential) conclusion claims exists.
    k = nc[0]
    s, t = path[k][0], path[k][1]
    b, not_t = _negate(path[-1][1]), _negate(t)
    to_s = builder.chain(path[:k])  # start => s
    to_not_t = builder.chain(
        [(_negate(v), _negate(u), label) for u, v, label in reversed(path[k + 1 :])]
    )  # b => not t
    if to_s is None or to_not_t is None:  # one side is empty: one step from the witness
        builder.add(conclusion, [demand + 1] + [line for line in (to_s, to_not_t) if line is not None])
        return builder.lines
    # carry the witness along one side first; the intermediate must be expressible (some X are Y)
    for middle, first, second in (
        (_existential(s, b), to_s, to_not_t),
        (_existential(start, not_t), to_not_t, to_s),
    ):
        if middle is not None:
            line = builder.add(middle, [demand + 1, first])
            builder.add(conclusion, [line, second])
            return builder.lines
    return None


def _negate(literal: Literal) -> Literal:
    return literal[0], not literal[1]


def format_derivation(lines: list[tuple[Statement, list[int]]], names: list[str], first: int) -> str:
    return "\n".join(
        f"{first + i}. {render(statement, names)} (from {', '.join(map(str, cites))})"
        for i, (statement, cites) in enumerate(lines)
    )


PROMPT = """Premises:
{premises}

Conclusion: {conclusion}.

Is the argument valid, i.e. is the conclusion true in every situation in which all the premises \
are true? The words are made up, so use only the premises. "Some X are Y" means at least one X \
is a Y; "All X are Y" and "No X are Y" do not imply that any X exist.

If it is invalid, answer "invalid" followed by a countermodel: a list of individuals, each \
written as the bracketed list of the terms it belongs to (an individual may belong to none: []), \
such that all premises are true and the conclusion is false, for example \
<answer>invalid: [{a}, {b}], [{b}], []</answer>

If it is valid, answer "valid" followed by a derivation of the conclusion: lines numbered on from \
the premises ({first}, {second}, ...), each a statement in one of the four forms followed by the \
one or two earlier lines (premises or derived lines) it follows from, "(from i, j)". Each line must \
follow from the lines it cites alone, and the last line must be the conclusion. For example (other \
words), after the premises 1. All lorks are mibs, 2. Some nerps are lorks, 3. No mibs are tams:
<answer>
valid
4. No lorks are tams (from 1, 3)
5. Some nerps are not tams (from 2, 4)
</answer>
Any valid countermodel or derivation is accepted."""


@family(
    "syllogisms",
    domain="logic",
    knobs=SyllogismKnobs,
    levels=LEVELS,
    description="Categorical syllogisms and longer chains with distractor premises over nonsense "
    "terms: valid with a checked derivation, or invalid with a checked countermodel.",
    verifier_kind="valid + checked derivation / invalid + checked countermodel",
    version=2,  # v2: "valid" needs a derivation (a bare "valid" scored 47%)
)
class Syllogisms(Family):
    def generate(self, knobs: SyllogismKnobs, rng: np.random.Generator) -> TaskDraft:
        premises, conclusion, chain, valid = draw_instance(knobs, rng)
        terms = knobs.premises + 1 + knobs.distractors
        # canonical form: terms renamed by their place along the chain (names are random anyway)
        rename = {t: i for i, t in enumerate(chain)} | {t: t for t in range(len(chain), terms)}
        canon = sorted([f, rename[x], rename[y]] for f, x, y in premises)
        names = [s + "s" for s in (str(x) for x in rng.choice(STEMS, size=terms, replace=False))]
        model, steps = countermodel(premises, conclusion, terms)
        answer = (
            f"invalid: {format_model(model, names)}"
            if model is not None
            else self._valid(premises, conclusion, names)
        )
        return TaskDraft(
            prompt=PROMPT.format(
                premises="\n".join(f"{i}. {render(p, names)}." for i, p in enumerate(premises, 1)),
                conclusion=render(conclusion, names),
                a=names[0],
                b=names[1],
                first=len(premises) + 1,
                second=len(premises) + 2,
            ),
            answer=answer,
            metadata={
                "terms": names,
                "premises": premises,
                "conclusion": conclusion,
                "valid": valid,
                "decision_steps": steps,
                "canonical_hash": content_hash(
                    {
                        "premises": canon,
                        "conclusion": [conclusion[0], rename[conclusion[1]], rename[conclusion[2]]],
                    }
                ),
            },
        )

    @staticmethod
    def _valid(premises: list[Statement], conclusion: Statement, names: list[str]) -> str:
        lines = derivation(premises, conclusion)
        if lines is None:
            raise RuntimeError("a valid argument without a derivation")
        return "valid\n" + format_derivation(lines, names, len(premises) + 1)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        match = _VERDICT.match(extraction.text)
        if match is None:
            return Verdict.bad_format("the answer must start with valid or invalid")
        names = list(task.metadata["terms"])
        premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
        if match[1].lower() == "valid":
            lines, why = parse_derivation(match[2], names, len(premises) + 1)
            if lines is None:
                return Verdict.bad_format(why)
            parsed = {"answer": "valid", "lines": len(lines)}
            failure = check_derivation(lines, premises, conclusion)
            if failure is not None:
                return Verdict.wrong(failure, parsed=parsed)
            if not task.metadata["valid"]:  # a sound checker never gets here
                return Verdict.failure(error="a derivation was accepted for an invalid argument")
            return Verdict.right(parsed=parsed)
        rest = match[2].strip()
        if not rest:
            return Verdict.bad_format("'invalid' needs a countermodel")
        kinds, why = parse_model(rest, names)
        if kinds is None:
            return Verdict.bad_format(f"countermodel: {why}")
        parsed = {"answer": "invalid", "individuals": kinds}
        if not all(holds(p, kinds) for p in premises):
            return Verdict.wrong("a premise is false in the countermodel", parsed=parsed)
        if holds(conclusion, kinds):
            return Verdict.wrong("the conclusion is true in the countermodel", parsed=parsed)
        return Verdict.right(parsed=parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        names = list(task.metadata["terms"])
        premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
        model, steps = countermodel(premises, conclusion, len(names))
        answer = (
            f"invalid: {format_model(model, names)}"
            if model is not None
            else self._valid(premises, conclusion, names)
        )
        return SolverRun(f"<answer>{answer}</answer>", float(steps))

    def solve_weak(self, task: Task) -> SolverRun:
        # bounded reasoning: "valid" only if some two premises already force the conclusion (and
        # then derives it from those two); otherwise it looks for a countermodel with a single
        # individual (no search beyond)
        premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
        names = list(task.metadata["terms"])
        steps = 0
        for i in range(len(premises)):
            for j in range(i + 1, len(premises)):
                model, spent = countermodel([premises[i], premises[j]], conclusion, len(names))
                steps += spent
                lines = derivation([premises[i], premises[j]], conclusion) if model is None else None
                if lines is not None:
                    renumbered = _renumber(lines, [i + 1, j + 1], len(premises) + 1)
                    text = format_derivation(renumbered, names, len(premises) + 1)
                    return SolverRun(f"<answer>valid\n{text}</answer>", float(steps))
        for kind in range(2 ** len(names)):
            steps += len(premises) + 1
            if all(holds(p, [kind]) for p in premises) and not holds(conclusion, [kind]):
                return SolverRun(f"<answer>invalid: {format_model([kind], names)}</answer>", float(steps))
        return SolverRun("<answer>invalid: []</answer>", float(steps))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        names = list(task.metadata["terms"])
        premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
        first = len(premises) + 1
        out = ["<answer>invalid</answer>", "<answer>valid</answer>"]
        # the conclusion straight from two premises (wrong unless those two entail it)
        pairs = [[i, j] for i in range(1, first) for j in range(i + 1, first)]
        i, j = pairs[int(rng.integers(len(pairs)))]
        if not entails([premises[i - 1], premises[j - 1]], conclusion):
            out.append(f"<answer>valid\n{format_derivation([(conclusion, [i, j])], names, first)}</answer>")
        if task.metadata["valid"]:
            out += [
                f"<answer>invalid: {format_model(k, names)}</answer>" for k in ([0], [2 ** len(names) - 1])
            ]
            lines = derivation(premises, conclusion)
            assert lines is not None
            if len(lines) > 1:  # stops short of the conclusion
                out.append(f"<answer>valid\n{format_derivation(lines[:-1], names, first)}</answer>")
            k = int(rng.integers(len(lines)))
            statement, cites = lines[k]
            earlier = [c for c in range(1, first + k) if c not in cites]
            for c in earlier[:3]:  # one citation changed, so that the line no longer follows
                wrong = [c] + cites[1:]
                cited = [(premises + [s for s, _ in lines])[x - 1] for x in wrong]
                if not entails(cited, statement):
                    changed = lines[:k] + [(statement, wrong)] + lines[k + 1 :]
                    out.append(f"<answer>valid\n{format_derivation(changed, names, first)}</answer>")
                    break
        else:
            bad = [k for k in range(2 ** len(names)) if not all(holds(p, [k]) for p in premises)]
            bad += [k for k in range(2 ** len(names)) if holds(conclusion, [k])]
            for i in rng.permutation(len(bad))[:2]:
                out.append(f"<answer>invalid: {format_model([bad[int(i)]], names)}</answer>")
        return list(dict.fromkeys(out))


def _renumber(
    lines: list[tuple[Statement, list[int]]], premise_lines: list[int], first: int
) -> list[tuple[Statement, list[int]]]:
    """A derivation made from some premises only, renumbered into the task's line numbers."""
    mapping = {k: line for k, line in enumerate(premise_lines, start=1)}
    mapping |= {len(premise_lines) + 1 + k: first + k for k in range(len(lines))}
    return [(statement, [mapping[c] for c in cites]) for statement, cites in lines]
