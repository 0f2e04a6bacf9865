"""Categorical syllogisms (and longer chains): valid or invalid, with a countermodel for invalid.

Statements are "All X are Y", "No X are Y", "Some X are Y" and "Some X are not Y" over made-up
plural nouns (so world knowledge cannot help), read without existential import. A model is a
finite set of individuals, each belonging to some of the terms. Validity is decided exactly:
universal statements forbid kinds of individuals, existential ones demand a witness, and a
countermodel exists iff every demanded witness has an allowed kind (one individual per demand).
"Invalid" answers must list a countermodel, which the verifier evaluates; any countermodel counts.
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


PROMPT = """Premises:
{premises}

Conclusion: {conclusion}.

Is the argument valid, i.e. is the conclusion true in every situation in which all the premises \
are true? The words are made up, so use only the premises. "Some X are Y" means at least one X \
is a Y; "All X are Y" and "No X are Y" do not imply that any X exist.

Answer "valid", or "invalid" followed by a countermodel: a list of individuals, each written as \
the bracketed list of the terms it belongs to (an individual may belong to none: []), such that \
all premises are true and the conclusion is false. Any such countermodel is accepted. Format \
examples: <answer>valid</answer> or <answer>invalid: [{a}, {b}], [{b}], []</answer>"""


@family(
    "syllogisms",
    domain="logic",
    knobs=SyllogismKnobs,
    levels=LEVELS,
    description="Categorical syllogisms and longer chains with distractor premises over nonsense "
    "terms: valid or invalid, with a checked countermodel required for invalid.",
    verifier_kind="valid/invalid + checked countermodel",
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
        answer = "valid" if model is None else f"invalid: {format_model(model, names)}"
        return TaskDraft(
            prompt=PROMPT.format(
                premises="\n".join(f"{i}. {render(p, names)}." for i, p in enumerate(premises, 1)),
                conclusion=render(conclusion, names),
                a=names[0],
                b=names[1],
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

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        match = _VERDICT.match(extraction.text)
        if match is None:
            return Verdict.bad_format("the answer must start with valid or invalid")
        said_valid, rest = match[1].lower() == "valid", match[2].strip()
        valid = bool(task.metadata["valid"])
        if said_valid:
            if rest.rstrip("."):
                return Verdict.bad_format("'valid' takes no countermodel")
            return (
                Verdict.right(parsed="valid") if valid else Verdict.wrong("the argument is invalid", "valid")
            )
        if not rest:
            return Verdict.bad_format("'invalid' needs a countermodel")
        kinds, why = parse_model(rest, list(task.metadata["terms"]))
        if kinds is None:
            return Verdict.bad_format(f"countermodel: {why}")
        parsed = {"answer": "invalid", "individuals": kinds}
        if not all(holds(p, kinds) for p in task.metadata["premises"]):
            return Verdict.wrong("a premise is false in the countermodel", parsed=parsed)
        if holds(task.metadata["conclusion"], kinds):
            return Verdict.wrong("the conclusion is true in the countermodel", parsed=parsed)
        return Verdict.right(parsed=parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        names = list(task.metadata["terms"])
        model, steps = countermodel(task.metadata["premises"], task.metadata["conclusion"], len(names))
        answer = "valid" if model is None else f"invalid: {format_model(model, names)}"
        return SolverRun(f"<answer>{answer}</answer>", float(steps))

    def solve_weak(self, task: Task) -> SolverRun:
        # bounded reasoning: "valid" only if some two premises already force the conclusion;
        # otherwise it looks for a countermodel with a single individual (no search beyond)
        premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
        names = list(task.metadata["terms"])
        steps = 0
        for i in range(len(premises)):
            for j in range(i + 1, len(premises)):
                model, spent = countermodel([premises[i], premises[j]], conclusion, len(names))
                steps += spent
                if model is None:
                    return SolverRun("<answer>valid</answer>", float(steps))
        for kind in range(2 ** len(names)):
            steps += len(premises) + 1
            if all(holds(p, [kind]) for p in premises) and not holds(conclusion, [kind]):
                return SolverRun(f"<answer>invalid: {format_model([kind], names)}</answer>", float(steps))
        return SolverRun("<answer>invalid: []</answer>", float(steps))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        names = list(task.metadata["terms"])
        premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
        out = ["<answer>invalid</answer>"]
        if task.metadata["valid"]:
            out += [
                f"<answer>invalid: {format_model(k, names)}</answer>" for k in ([0], [2 ** len(names) - 1])
            ]
        else:
            out.append("<answer>valid</answer>")
            bad = [k for k in range(2 ** len(names)) if not all(holds(p, [k]) for p in premises)]
            bad += [k for k in range(2 ** len(names)) if holds(conclusion, [k])]
            for i in rng.permutation(len(bad))[:2]:
                out.append(f"<answer>invalid: {format_model([bad[int(i)]], names)}</answer>")
        return list(dict.fromkeys(out))
