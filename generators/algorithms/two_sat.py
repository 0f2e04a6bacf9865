"""2-SAT: a satisfying assignment of a formula whose clauses have two literals each.

Formulas are satisfiable by construction (a hidden assignment makes a literal of every clause
true) and neither all-true nor all-false satisfies them; any satisfying assignment is accepted
and the verifier checks every clause. Efficient algorithm: strongly connected components of the
implication graph, O(n + m). The test checks the reference clause by clause and z3's own model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.algorithms.shared import answer_text, tagged
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class TwoSatKnobs(Knobs):
    variables: int = knob(6, low=2, high=100, help="number of variables")
    ratio: float = knob(1.5, low=0.5, high=3.0, help="clauses per variable")


K = TwoSatKnobs
LEVELS = {
    1: K(variables=3, ratio=1.0),
    2: K(variables=4, ratio=1.2),
    3: K(variables=5, ratio=1.4),
    4: K(variables=7, ratio=1.6),
    5: K(variables=9, ratio=1.8),
    6: K(variables=12, ratio=1.9),
    7: K(variables=15, ratio=2.0),
    8: K(variables=19, ratio=2.0),
    9: K(variables=24, ratio=2.0),
    10: K(variables=30, ratio=2.0),
}


def literal_text(literal: int) -> str:
    return f"x{literal}" if literal > 0 else f"¬x{-literal}"


def solve_2sat(n: int, clauses: list[list[int]]) -> tuple[list[bool] | None, int]:
    """An assignment by Kosaraju's SCCs on the implication graph; and the edges examined."""

    def node(literal: int) -> int:
        return 2 * (abs(literal) - 1) + (literal < 0)

    graph: list[list[int]] = [[] for _ in range(2 * n)]
    reverse: list[list[int]] = [[] for _ in range(2 * n)]
    for a, b in clauses:  # a or b: not a -> b, not b -> a
        for u, v in ((node(-a), node(b)), (node(-b), node(a))):
            graph[u].append(v)
            reverse[v].append(u)
    order, seen, work = [], [False] * (2 * n), 0
    for start in range(2 * n):
        if seen[start]:
            continue
        seen[start] = True
        stack = [(start, 0)]
        while stack:
            v, i = stack[-1]
            if i < len(graph[v]):
                stack[-1] = (v, i + 1)
                work += 1
                if not seen[graph[v][i]]:
                    seen[graph[v][i]] = True
                    stack.append((graph[v][i], 0))
            else:
                order.append(v)
                stack.pop()
    component = [-1] * (2 * n)
    label = 0
    for start in reversed(order):  # components in topological order of the condensation
        if component[start] >= 0:
            continue
        component[start] = label
        stack = [start]
        while stack:
            v = stack.pop()
            for u in reverse[v]:
                work += 1
                if component[u] < 0:
                    component[u] = label
                    stack.append(u)
        label += 1
    values = []
    for i in range(n):
        if component[2 * i] == component[2 * i + 1]:
            return None, work
        values.append(component[2 * i] > component[2 * i + 1])  # the later component is true
    return values, work


def show(values: list[bool]) -> str:
    return ", ".join(f"x{i + 1}={'true' if v else 'false'}" for i, v in enumerate(values))


def satisfies(values: list[bool], clauses: list[list[int]]) -> bool:
    return all(any(values[abs(x) - 1] == (x > 0) for x in clause) for clause in clauses)


def read_assignment(text: str, n: int) -> list[bool] | None:
    """``x1=true, x2=false, ...`` with every variable once (1/0 and T/F accepted); None otherwise."""
    values: dict[int, bool] = {}
    for part in text.replace(";", ",").replace("\n", ",").split(","):
        if not part.strip():
            continue
        name, eq, raw = part.partition("=")
        name, raw = name.strip().lower(), raw.strip().lower()
        if not eq or not name.startswith("x") or not name[1:].isdecimal() or len(name) > 6:
            return None
        index = int(name[1:])
        if raw not in ("true", "false", "1", "0", "t", "f") or index in values or not 1 <= index <= n:
            return None
        values[index] = raw in ("true", "1", "t")
    if len(values) != n:
        return None
    return [values[i] for i in range(1, n + 1)]


PROMPT = """Find true/false values for the variables x1 to x{n} that make every one of these clauses \
true (each clause is an "or" of two literals; ¬ is "not"):
{clauses}

Any satisfying assignment is accepted. Answer with a value for every variable, for example \
<answer>{example}</answer>."""


@family(
    "two_sat",
    domain="algorithms",
    knobs=TwoSatKnobs,
    levels=LEVELS,
    description="A satisfying assignment of a 2-SAT formula (any satisfying assignment is accepted).",
    verifier_kind="constraint check (every clause true)",
)
class TwoSat(Family):
    def generate(self, knobs: TwoSatKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.variables
        while True:
            hidden = [bool(b) for b in rng.integers(0, 2, size=n)]
            clauses: list[list[int]] = []
            while len(clauses) < round(knobs.ratio * n):
                a, b = (int(v) + 1 for v in rng.choice(n, size=2, replace=False))
                clause = sorted([a if rng.random() < 0.5 else -a, b if rng.random() < 0.5 else -b], key=abs)
                if satisfies(hidden, [clause]) and clause not in clauses:
                    clauses.append(clause)
            if not satisfies([True] * n, clauses) and not satisfies([False] * n, clauses):
                break
        values, work = solve_2sat(n, clauses)
        assert values is not None and satisfies(values, clauses)
        prompt = PROMPT.format(
            n=n,
            clauses="\n".join(f"({literal_text(a)} ∨ {literal_text(b)})" for a, b in clauses),
            example="x1=true, x2=false, ...",
        )
        metadata = {
            "variables": n,
            "clauses": clauses,
            "work": work,
            "canonical_hash": content_hash([n, clauses]),
        }
        return TaskDraft(prompt, show(values), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, labels=("assignment",))
        if isinstance(text, Verdict):
            return text
        values = read_assignment(text, task.metadata["variables"])
        if values is None:
            return Verdict.bad_format(
                f"give every variable x1..x{task.metadata['variables']} once, as x1=true, x2=false, ..."
            )
        for clause in task.metadata["clauses"]:
            if not any(values[abs(x) - 1] == (x > 0) for x in clause):
                shown = " ∨ ".join(literal_text(x) for x in clause)
                return Verdict.wrong(f"clause ({shown}) is false", parsed=show(values))
        return Verdict.right(parsed=show(values))

    def solve_exact(self, task: Task) -> SolverRun:
        """SCCs of the implication graph (effort: edges examined)."""
        values, work = solve_2sat(task.metadata["variables"], task.metadata["clauses"])
        return SolverRun(None if values is None else tagged(show(values)), float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Each variable set to the polarity it has most often (no propagation)."""
        score = [0] * task.metadata["variables"]
        for clause in task.metadata["clauses"]:
            for x in clause:
                score[abs(x) - 1] += 1 if x > 0 else -1
        return SolverRun(tagged(show([s >= 0 for s in score])), float(len(task.metadata["clauses"])))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, clauses = task.metadata["variables"], task.metadata["clauses"]
        values = read_assignment(task.answer, n)
        assert values is not None
        wrong = [[True] * n, [False] * n]
        for i in range(n):  # single flips that break a clause
            flipped = list(values)
            flipped[i] = not flipped[i]
            if not satisfies(flipped, clauses):
                wrong.append(flipped)
                break
        responses = [tagged(show(w)) for w in wrong if not satisfies(w, clauses)]
        return responses + [tagged(show(values).rsplit(", ", 1)[0] if n > 1 else "x1=maybe")]
