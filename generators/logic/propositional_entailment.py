"""Propositional entailment: do the premises entail the conclusion?

Both verdicts carry a certificate, so that neither can be guessed (issue 16: a bare "yes" scored
50%). "no" comes with a countermodel (an assignment that makes every premise true and the
conclusion false); "yes" comes with a case split: cases that each fix some variables, together
cover every assignment, and in each of which a named premise is false or the conclusion is true
whatever the other variables are (a full truth table is one such split; a good one is much
shorter). Any valid certificate is accepted; both are checked exactly on the truth tables (at
most 2^8 rows, at most ``MAX_CASES`` cases). The reference split is found greedily (split on the
variable that closes most cases at once); the weak solver splits in variable order on a budget.
Generation draws premises and a conclusion, classifies them with a numpy truth table, balances
yes/no, and proves every "yes" with z3 (premises and not-conclusion unsatisfiable). From level 3
on, a "yes" never follows from a single premise and a "no" never has the all-true or all-false
assignment as a countermodel. Hardness: nodes of a three-valued backtracking countermodel search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import z3

from palaestra.core import Knobs, Task, Verdict, knob
from palaestra.generators.logic import _formulas as fm
from palaestra.generators.shared.logic_answers import format_bool_assignment, parse_bool_assignment
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

CONNECTIVES = ("not", "and", "or", "implies", "iff", "xor")
VARIABLES = ("p", "q", "r", "s", "u", "v", "w", "z")  # no "t"/"f": they read as truth values
_VERDICT = re.compile(r"^\s*(yes|no)\b[\s,;:.\-—]*(.*)$", re.IGNORECASE | re.DOTALL)
MAX_CASES = 512  # a split never needs more than 2^8 cases
MAX_ANSWER_CHARS = 64_000  # a full truth table of 8 variables, written out in words, fits
WEAK_CASES = 6  # the weak solver's budget of cases
_CASE_PREFIX = re.compile(r"^\s*(?:[-*•]\s*)?(?:\d{1,3}[.)]\s*)?(?:case\b\s*)?", re.IGNORECASE)
_REASON = re.compile(
    r"(?:the\s+)?(?:premise\s+(?P<premise>\d{1,3})|(?P<conclusion>conclusion))\s+(?:is\s+)?(?P<value>true|false)",
    re.IGNORECASE,
)
# a case: the values it fixes (by variable index) and its reason (a false premise's index, or
# None for "the conclusion is true")
Case = tuple[dict[int, bool], int | None]


@dataclass(frozen=True)
class EntailmentKnobs(Knobs):
    variables: int = knob(2, low=2, high=8, help="number of propositional variables")
    premises: int = knob(1, low=1, high=8, help="number of premises")
    depth: int = knob(1, low=1, high=4, help="maximum connective nesting depth of each formula")
    connectives: str = knob(
        "not,and,or,implies", help="comma-separated connectives: not, and, or, implies, iff, xor"
    )
    strict: bool = knob(False, help="reject shallow instances (single-premise yes, trivial countermodels)")

    def validate(self) -> None:
        chosen = self.connective_list()
        if not chosen or set(chosen) - set(CONNECTIVES) or len(set(chosen)) != len(chosen):
            raise ValueError(f"connectives must be distinct names from {list(CONNECTIVES)}")
        if chosen == ["not"]:
            raise ValueError("connectives need at least one binary connective")

    def connective_list(self) -> list[str]:
        return [c.strip() for c in self.connectives.split(",") if c.strip()]


_ALL = "not,and,or,implies,iff,xor"
LEVELS = {
    1: EntailmentKnobs(variables=2, premises=1, depth=1),
    2: EntailmentKnobs(variables=2, premises=2, depth=1),
    3: EntailmentKnobs(variables=3, premises=2, depth=2, connectives="not,and,or,implies,iff", strict=True),
    4: EntailmentKnobs(variables=3, premises=3, depth=2, connectives="not,and,or,implies,iff", strict=True),
    5: EntailmentKnobs(variables=4, premises=3, depth=2, connectives=_ALL, strict=True),
    6: EntailmentKnobs(variables=4, premises=4, depth=3, connectives=_ALL, strict=True),
    7: EntailmentKnobs(variables=5, premises=4, depth=3, connectives=_ALL, strict=True),
    8: EntailmentKnobs(variables=6, premises=5, depth=3, connectives=_ALL, strict=True),
    9: EntailmentKnobs(variables=7, premises=5, depth=3, connectives=_ALL, strict=True),
    10: EntailmentKnobs(variables=8, premises=6, depth=4, connectives=_ALL, strict=True),
}


def _draw(knobs: EntailmentKnobs, rng: np.random.Generator, table: np.ndarray) -> fm.Formula:
    while True:
        f = fm.random_formula(rng, knobs.variables, knobs.depth, knobs.connective_list())
        if fm.informative(f, table) is not None:
            return f


def draw_instance(
    knobs: EntailmentKnobs, rng: np.random.Generator
) -> tuple[list[fm.Formula], fm.Formula, bool]:
    n = knobs.variables
    table = fm.all_assignments(n)
    want = bool(rng.random() < 0.5)
    corners = [0, 2**n - 1]  # rows of the all-false and all-true assignments
    for _ in range(2000):
        premises = [_draw(knobs, rng, table) for _ in range(knobs.premises)]
        tables = [fm.truth_table(p, table) for p in premises]
        models = np.logical_and.reduce(tables)
        if not models.any():
            continue
        for _ in range(30):
            conclusion = _draw(knobs, rng, table)
            if any(fm.canonical(conclusion) == fm.canonical(p) for p in premises):
                continue
            concl = fm.truth_table(conclusion, table)
            counter = models & ~concl
            entailed = not counter.any()
            if entailed != want:
                continue
            used = set().union(fm.used_variables(conclusion), *(fm.used_variables(p) for p in premises))
            if len(used) < n:
                break  # redraw the premises: every listed variable must matter
            if knobs.strict and entailed and any(not (t & ~concl).any() for t in tables):
                continue  # follows from one premise alone: too shallow
            if knobs.strict and not entailed and counter[corners].any():
                continue  # all-true or all-false refutes it: guessable
            return premises, conclusion, entailed
    raise RuntimeError(f"could not draw an entailment instance for {knobs}")


def z3_entails(premises: list[fm.Formula], conclusion: fm.Formula, n: int) -> bool:
    xs = [z3.Bool(f"x{i}") for i in range(n)]
    solver = z3.SolverFor("QF_FD")
    solver.add([fm.to_z3(p, xs) for p in premises])
    solver.add(z3.Not(fm.to_z3(conclusion, xs)))
    return solver.check() == z3.unsat


def countermodel_search(premises: list, conclusion: list, n: int) -> tuple[list[bool] | None, int]:
    models, nodes = fm.search_models([*premises, fm.neg(conclusion)], n, limit=1)
    return (models[0] if models else None), nodes


# --------------------------------------------------------------------------------------------
# Case splits: the certificate of a "yes"
# --------------------------------------------------------------------------------------------


def truth_tables(premises: list[fm.Formula], conclusion: fm.Formula, n: int) -> tuple[np.ndarray, ...]:
    """All assignments (rows), each premise's truth table (one row per premise), the conclusion's."""
    table = fm.all_assignments(n)
    return table, np.array([fm.truth_table(p, table) for p in premises]), fm.truth_table(conclusion, table)


def _cube(table: np.ndarray, fixed: dict[int, bool]) -> np.ndarray:
    """The rows of ``table`` that agree with the fixed values (row r holds variable i in bit i)."""
    mask = sum(1 << i for i in fixed)
    pattern = sum(1 << i for i, value in fixed.items() if value)
    return (np.arange(len(table)) & mask) == pattern


def _closing(rows: np.ndarray, premises: np.ndarray, conclusion: np.ndarray) -> int | None | bool:
    """The first premise false on all ``rows``, ``None`` if instead the conclusion is true on all
    of them, ``False`` if neither (the case does not close)."""
    for k, values in enumerate(premises):
        if not values[rows].any():
            return k
    return None if conclusion[rows].all() else False


def case_split(
    premises: list[fm.Formula],
    conclusion: fm.Formula,
    n: int,
    *,
    greedy: bool = True,
    budget: int = MAX_CASES,
) -> list[Case] | None:
    """A case split proving the entailment, or ``None`` (not entailed, or more than ``budget`` cases).

    Depth-first: a case closes as soon as a premise is false or the conclusion true on all its
    rows; otherwise it splits on a variable, with ``greedy`` the one closing most children at
    once (ties: the first), else simply the next variable in order.
    """
    table, premise_tables, conclusion_table = truth_tables(premises, conclusion, n)
    cases: list[Case] = []

    def split(fixed: dict[int, bool]) -> bool:
        reason = _closing(_cube(table, fixed), premise_tables, conclusion_table)
        if reason is not False:
            cases.append((fixed, reason))  # type: ignore[arg-type]  # _closing is not False here
            return len(cases) <= budget
        free = [i for i in range(n) if i not in fixed]
        if not free:
            return False  # a countermodel: not entailed
        if greedy:
            closing = [
                sum(_closing(_cube(table, {**fixed, i: v}), premise_tables, conclusion_table) is not False
                    for v in (True, False))
                for i in free
            ]  # fmt: skip
            free = [free[int(np.argmax(closing))]]
        return split({**fixed, free[0]: True}) and split({**fixed, free[0]: False})

    return cases if split({}) else None


def format_cases(names: list[str], cases: list[Case]) -> str:
    lines = []
    for fixed, reason in cases:
        values = ", ".join(f"{names[i]}={'true' if v else 'false'}" for i, v in sorted(fixed.items()))
        why = "the conclusion is true" if reason is None else f"premise {reason + 1} is false"
        lines.append(f"case {values}: {why}")
    return "\n".join(lines)


def parse_cases(text: str, names: list[str], premises: int) -> tuple[list[Case] | None, str]:
    """Cases from lines "case p=true, q=false: premise 2 is false" (values as in countermodels)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None, "a 'yes' needs a case split (one 'case <values>: <reason>' per line)"
    if len(lines) > MAX_CASES:
        return None, f"more than {MAX_CASES} cases"
    cases: list[Case] = []
    for number, line in enumerate(lines, start=1):
        body = _CASE_PREFIX.sub("", line, count=1)
        values_text, colon, reason_text = body.rpartition(":")
        reason = _REASON.fullmatch(reason_text.strip().rstrip("."))
        if not colon or reason is None:
            return (
                None,
                f"case {number}: expected 'case <values>: premise K is false' or ': the conclusion is true'",
            )
        if (
            reason["conclusion"]
            and reason["value"].lower() != "true"
            or reason["premise"]
            and reason["value"].lower() != "false"
        ):
            return None, f"case {number}: a case closes when a premise is false or the conclusion is true"
        index = None if reason["conclusion"] else int(reason["premise"]) - 1
        if index is not None and not 0 <= index < premises:
            return None, f"case {number}: there is no premise {index + 1}"
        values, why = parse_bool_assignment(values_text, names, partial=True)
        if values is None:
            return None, f"case {number}: {why}"
        cases.append(({names.index(x): v for x, v in values.items()}, index))
    return cases, ""


def check_cases(
    cases: list[Case], names: list[str], premises: list[fm.Formula], conclusion: fm.Formula
) -> str | None:
    """Why the case split fails (naming the first bad case or an uncovered assignment), or None."""
    table, premise_tables, conclusion_table = truth_tables(premises, conclusion, len(names))
    covered = np.zeros(len(table), dtype=bool)
    for number, (fixed, index) in enumerate(cases, start=1):
        rows = _cube(table, fixed)
        covered |= rows
        values = premise_tables[index] if index is not None else ~conclusion_table
        witness = np.flatnonzero(rows & values)
        if len(witness):
            claim = "the conclusion is false" if index is None else f"premise {index + 1} is true"
            row = format_bool_assignment(names, [bool(b) for b in table[witness[0]]])
            return f"case {number}: {claim} at {row}"
    if not covered.all():
        row = format_bool_assignment(names, [bool(b) for b in table[np.flatnonzero(~covered)[0]]])
        return f"no case covers {row}"
    return None


PROMPT = """Premises:
{premises}

Conclusion: {conclusion}

Do the premises together entail the conclusion, that is, is the conclusion true under every \
assignment of truth values to {names} that makes all the premises true? (¬ not, ∧ and, ∨ or, \
→ implies, ↔ if and only if, ⊕ exclusive or.)

Answer "no" followed by a countermodel: a value for every variable ({names}) that makes all \
premises true and the conclusion false, for example <answer>no: {example}</answer>.

Or answer "yes" followed by a case split that proves it, one case per line: \
"case <values>: <reason>". Each case gives values to some of the variables; the reason is \
"premise K is false" or "the conclusion is true", and it must hold whatever values the other \
variables take. Together the cases must cover every assignment of {names}. For example, for \
premises 1. p ∨ q, 2. ¬q and the conclusion p:
<answer>
yes
case p=true: the conclusion is true
case p=false, q=true: premise 2 is false
case p=false, q=false: premise 1 is false
</answer>
Any valid countermodel or case split is accepted."""


@family(
    "propositional_entailment",
    domain="logic",
    knobs=EntailmentKnobs,
    levels=LEVELS,
    description="Decide whether propositional premises entail a conclusion; 'no' must come "
    "with a countermodel and 'yes' with a case split, both checked exactly (any valid one counts).",
    verifier_kind="yes + checked case split / no + checked countermodel",
    version=2,  # v2: "yes" needs a case split (a bare "yes" scored 50%)
)
class PropositionalEntailment(Family):
    def generate(self, knobs: EntailmentKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.variables
        names = list(VARIABLES[:n])
        premises, conclusion, entailed = draw_instance(knobs, rng)
        if z3_entails(premises, conclusion, n) != entailed:
            raise RuntimeError("z3 disagrees with the truth table")
        counter, nodes = countermodel_search(premises, conclusion, n)
        answer = (
            "yes\n" + format_cases(names, case_split(premises, conclusion, n))
            if entailed
            else f"no: {format_bool_assignment(names, counter or [])}"
        )
        example = ", ".join(f"{x}={'true' if i % 2 == 0 else 'false'}" for i, x in enumerate(names))
        return TaskDraft(
            prompt=PROMPT.format(
                premises="\n".join(f"{i}. {fm.render_symbolic(p, names)}" for i, p in enumerate(premises, 1)),
                conclusion=fm.render_symbolic(conclusion, names),
                names=", ".join(names),
                example=example,
            ),
            answer=answer,
            metadata={
                "variables": names,
                "premises": premises,
                "conclusion": conclusion,
                "entailed": entailed,
                "proof": "z3" if entailed else "countermodel",
                "search_nodes": nodes,
                # invariant under renaming the variables and reordering the premises
                "canonical_hash": fm.structure_hash(
                    [("premise", p) for p in premises] + [("conclusion", conclusion)], n
                ),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True, max_chars=MAX_ANSWER_CHARS)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        match = _VERDICT.match(extraction.text)
        if match is None:
            return Verdict.bad_format("the answer must start with yes or no")
        names = list(task.metadata["variables"])
        premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
        if match[1].lower() == "yes":
            cases, why = parse_cases(match[2], names, len(premises))
            if cases is None:
                return Verdict.bad_format(why)
            parsed = {"answer": "yes", "cases": len(cases)}
            failure = check_cases(cases, names, premises, conclusion)
            if failure is not None:
                return Verdict.wrong(failure, parsed=parsed)
            if not task.metadata["entailed"]:  # a sound checker never gets here
                return Verdict.failure(error="a case split was accepted for a task that is not entailed")
            return Verdict.right(parsed=parsed)
        rest = match[2].strip()
        if not rest:
            return Verdict.bad_format("a 'no' needs a countermodel")
        values, why = parse_bool_assignment(rest.rstrip("."), names)
        if values is None:
            return Verdict.bad_format(f"countermodel: {why}")
        row = [values[x] for x in names]
        parsed = {"answer": "no", "countermodel": values}
        if not all(fm.evaluate(p, row) for p in premises):
            return Verdict.wrong("the countermodel makes a premise false", parsed=parsed)
        if fm.evaluate(conclusion, row):
            return Verdict.wrong("the countermodel makes the conclusion true", parsed=parsed)
        return Verdict.right(parsed=parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        names = list(task.metadata["variables"])
        premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
        counter, nodes = countermodel_search(premises, conclusion, len(names))
        if counter is not None:
            return SolverRun(f"<answer>no: {format_bool_assignment(names, counter)}</answer>", float(nodes))
        cases = case_split(premises, conclusion, len(names))
        if cases is None:
            raise RuntimeError("no countermodel and no case split")
        return SolverRun(f"<answer>yes\n{format_cases(names, cases)}</answer>", float(nodes))

    def solve_weak(self, task: Task) -> SolverRun:
        # probe six assignments (all true, all false, four pseudo-random) for a countermodel; if
        # none is one, try a case split in variable order with at most WEAK_CASES cases
        names = list(task.metadata["variables"])
        n = len(names)
        premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
        rng = np.random.default_rng(int(task.id, 16))
        probes = [[True] * n, [False] * n] + [[bool(b) for b in rng.random(n) < 0.5] for _ in range(4)]
        for row in probes:
            if all(fm.evaluate(p, row) for p in premises) and not fm.evaluate(conclusion, row):
                return SolverRun(f"<answer>no: {format_bool_assignment(names, row)}</answer>", 6.0)
        cases = case_split(premises, conclusion, n, greedy=False, budget=WEAK_CASES)
        if cases is None:  # out of budget: guess the first probe
            return SolverRun(
                f"<answer>no: {format_bool_assignment(names, probes[0])}</answer>", 6.0 + WEAK_CASES
            )
        return SolverRun(f"<answer>yes\n{format_cases(names, cases)}</answer>", 6.0 + len(cases))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        names = list(task.metadata["variables"])
        n = len(names)
        premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
        out = ["<answer>yes</answer>", "<answer>no</answer>"]
        if task.metadata["entailed"]:
            for row in ([True] * n, [False] * n, [bool(b) for b in rng.random(n) < 0.5]):
                out.append(f"<answer>no: {format_bool_assignment(names, row)}</answer>")
            out += [f"<answer>yes\n{format_cases(names, c)}</answer>" for c in broken_case_splits(task, rng)]
        else:
            table = fm.all_assignments(n)
            bad = [
                [bool(b) for b in row]
                for row in table
                if not (
                    all(fm.evaluate(p, list(row)) for p in premises)
                    and not fm.evaluate(conclusion, list(row))
                )
            ]
            for k in rng.permutation(len(bad))[:2]:
                out.append(f"<answer>no: {format_bool_assignment(names, bad[int(k)])}</answer>")
            # a "truth table" claiming the first premise false everywhere
            rows = [({i: bool(b) for i, b in enumerate(row)}, 0) for row in table]
            out.append(f"<answer>yes\n{format_cases(names, rows)}</answer>")  # type: ignore[arg-type]
        return list(dict.fromkeys(out))


def broken_case_splits(task: Task, rng: np.random.Generator) -> list[list[Case]]:
    """The reference case split with one case dropped, one reason changed, one value flipped."""
    names = list(task.metadata["variables"])
    premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
    cases = case_split(premises, conclusion, len(names))
    assert cases is not None
    table, premise_tables, conclusion_table = truth_tables(premises, conclusion, len(names))
    k = int(rng.integers(len(cases)))
    fixed, reason = cases[k]
    rows = _cube(table, fixed)
    # a reason that does not hold on this case: a premise true somewhere in it, or the conclusion
    wrong_reasons = [i for i in range(len(premises)) if premise_tables[i][rows].any()]
    wrong_reasons += [None] if not conclusion_table[rows].all() else []
    var = int(rng.choice(sorted(fixed)))
    flipped = ({**fixed, var: not fixed[var]}, reason)
    out = [cases[:k] + cases[k + 1 :], cases[:k] + [flipped] + cases[k + 1 :]]
    if wrong_reasons:
        out.append(
            cases[:k] + [(fixed, wrong_reasons[int(rng.integers(len(wrong_reasons)))])] + cases[k + 1 :]
        )
    return out
