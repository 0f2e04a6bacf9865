"""Propositional entailment: do the premises entail the conclusion?

The answer is "yes", or "no" together with a countermodel (an assignment that makes every
premise true and the conclusion false); any countermodel is accepted and checked by evaluation.
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
from palaestra.generators.logic._answers import format_bool_assignment, parse_bool_assignment
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

CONNECTIVES = ("not", "and", "or", "implies", "iff", "xor")
VARIABLES = ("p", "q", "r", "s", "u", "v", "w", "z")  # no "t"/"f": they read as truth values
_VERDICT = re.compile(r"^\s*(yes|no)\b[\s,;:.\-—]*(.*)$", re.IGNORECASE | re.DOTALL)


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


PROMPT = """Premises:
{premises}

Conclusion: {conclusion}

Do the premises together entail the conclusion, that is, is the conclusion true under every \
assignment of truth values to {names} that makes all the premises true? (¬ not, ∧ and, ∨ or, \
→ implies, ↔ if and only if, ⊕ exclusive or.)

Answer "yes", or "no" followed by a countermodel: a value for every variable ({names}) that \
makes all premises true and the conclusion false (any such countermodel is accepted). Format \
examples: <answer>yes</answer> or <answer>no: {example}</answer>"""


@family(
    "propositional_entailment",
    domain="logic",
    knobs=EntailmentKnobs,
    levels=LEVELS,
    description="Decide whether propositional premises entail a conclusion; 'no' must come "
    "with a countermodel, which is checked (any countermodel counts). 'Yes' is proven with z3.",
    verifier_kind="yes/no + checked countermodel",
)
class PropositionalEntailment(Family):
    def generate(self, knobs: EntailmentKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.variables
        names = list(VARIABLES[:n])
        premises, conclusion, entailed = draw_instance(knobs, rng)
        if z3_entails(premises, conclusion, n) != entailed:
            raise RuntimeError("z3 disagrees with the truth table")
        counter, nodes = countermodel_search(premises, conclusion, n)
        answer = "yes" if entailed else f"no: {format_bool_assignment(names, counter or [])}"
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
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        match = _VERDICT.match(extraction.text)
        if match is None:
            return Verdict.bad_format("the answer must start with yes or no")
        said_yes, rest = match[1].lower() == "yes", match[2].strip()
        entailed = bool(task.metadata["entailed"])
        if said_yes:
            if rest.rstrip("."):
                return Verdict.bad_format("'yes' takes no countermodel")
            return Verdict.right(parsed="yes") if entailed else Verdict.wrong("not entailed", parsed="yes")
        if not rest:
            return Verdict.bad_format("a 'no' needs a countermodel")
        names = list(task.metadata["variables"])
        values, why = parse_bool_assignment(rest.rstrip("."), names)
        if values is None:
            return Verdict.bad_format(f"countermodel: {why}")
        row = [values[x] for x in names]
        parsed = {"answer": "no", "countermodel": values}
        if not all(fm.evaluate(p, row) for p in task.metadata["premises"]):
            return Verdict.wrong("the countermodel makes a premise false", parsed=parsed)
        if fm.evaluate(task.metadata["conclusion"], row):
            return Verdict.wrong("the countermodel makes the conclusion true", parsed=parsed)
        return Verdict.right(parsed=parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        names = list(task.metadata["variables"])
        counter, nodes = countermodel_search(
            task.metadata["premises"], task.metadata["conclusion"], len(names)
        )
        answer = "yes" if counter is None else f"no: {format_bool_assignment(names, counter)}"
        return SolverRun(f"<answer>{answer}</answer>", float(nodes))

    def solve_weak(self, task: Task) -> SolverRun:
        # probe six assignments (all true, all false, four pseudo-random); no countermodel seen -> yes
        names = list(task.metadata["variables"])
        n = len(names)
        rng = np.random.default_rng(int(task.id, 16))
        probes = [[True] * n, [False] * n] + [[bool(b) for b in rng.random(n) < 0.5] for _ in range(4)]
        for row in probes:
            if all(fm.evaluate(p, row) for p in task.metadata["premises"]) and not fm.evaluate(
                task.metadata["conclusion"], row
            ):
                return SolverRun(f"<answer>no: {format_bool_assignment(names, row)}</answer>", 6.0)
        return SolverRun("<answer>yes</answer>", 6.0)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        names = list(task.metadata["variables"])
        n = len(names)
        premises, conclusion = task.metadata["premises"], task.metadata["conclusion"]
        out = []
        if task.metadata["entailed"]:
            out.append("<answer>no</answer>")
            for row in ([True] * n, [False] * n, [bool(b) for b in rng.random(n) < 0.5]):
                out.append(f"<answer>no: {format_bool_assignment(names, row)}</answer>")
        else:
            out.append("<answer>yes</answer>")
            out.append("<answer>no</answer>")
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
        return list(dict.fromkeys(out))
