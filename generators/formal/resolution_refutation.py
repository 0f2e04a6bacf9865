"""Resolution refutations: derive the empty clause from an unsatisfiable CNF, one resolution step
per line, each step checked exactly.

Formulas are random k-CNF above the threshold, kept when our DPLL prover refutes them. The
reference proof is read off the DPLL tree (at a branch on v, the clauses refuting both sides
are resolved on v, or one of them is reused when it does not mention v), identical derived
clauses are shared, and steps no path to the empty clause uses are dropped. The checker reads
``k. resolve i, j on xV: clause``: parents must be earlier lines, the pivot must clash, and the
stated clause must equal the resolvent as a set (no weakening); the last line must be the empty
clause. Any valid refutation counts; a failure names the first failing step. Effort is the
DPLL node count plus the proof length. The weak solver is ordered resolution with a width
bound: clauses are resolved only on a variable that is the smallest in both (Davis-Putnam
elimination in the order x1, x2, ...) and only resolvents of at most two literals are kept. It
refutes every unsatisfiable 2-CNF but misses refutations that need wider clauses or another
order, which the larger 3-CNF levels do more and more often. Level 5 generates at ~150 tasks/s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.formal._common import Clause, render_clause
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MAX_STEPS = 2000
WEAK_WIDTH = 2  # the weak solver keeps only resolvents of at most this many literals
_STEP = re.compile(
    r"^\s*(?:C|step\s*)?(?P<k>\d{1,6})\s*[.:)]\s*(?:resolve|res|R)\s*\(?\s*(?:C)?(?P<i>\d{1,6})\s*,\s*(?:C)?(?P<j>\d{1,6})"
    r"\s*\)?\s*(?:on\s+(?P<pivot>[¬~!\-]?x\d{1,4}))?\s*[:=]\s*(?P<clause>.*)$",  # greedy: linear
    re.I,
)
_EMPTY = frozenset({"⊥", "empty", "{}", "□", "false", "[]", "()", ""})
_LIT = re.compile(r"^(?P<neg>[¬~!\-]|not\s+)?\s*x(?P<v>\d{1,4})$", re.I)


@dataclass(frozen=True)
class ResolutionKnobs(Knobs):
    variables: int = knob(3, low=2, high=14, help="number of Boolean variables x1..xn")
    clause_width: int = knob(2, low=2, high=4, help="literals per input clause")
    clauses: int = knob(8, low=4, high=120, help="number of input clauses")
    max_steps: int = knob(12, low=3, high=400, help="reject formulas whose reference proof is longer")

    def validate(self) -> None:
        if self.clause_width > self.variables:
            raise ValueError("clause_width cannot exceed the number of variables")


LEVELS = {
    1: ResolutionKnobs(variables=3, clause_width=2, clauses=8, max_steps=8),
    2: ResolutionKnobs(variables=3, clause_width=2, clauses=10, max_steps=10),
    3: ResolutionKnobs(variables=4, clause_width=2, clauses=14, max_steps=14),
    4: ResolutionKnobs(variables=4, clause_width=3, clauses=24, max_steps=20),
    5: ResolutionKnobs(variables=5, clause_width=3, clauses=30, max_steps=30),
    6: ResolutionKnobs(variables=6, clause_width=3, clauses=36, max_steps=45),
    7: ResolutionKnobs(variables=7, clause_width=3, clauses=42, max_steps=60),
    8: ResolutionKnobs(variables=8, clause_width=3, clauses=48, max_steps=80),
    9: ResolutionKnobs(variables=9, clause_width=3, clauses=52, max_steps=110),
    10: ResolutionKnobs(variables=10, clause_width=3, clauses=58, max_steps=150),
}


def _falsified(clause: frozenset[int], assigned: dict[int, bool]) -> bool:
    return all(assigned.get(abs(lit)) == (lit < 0) for lit in clause)


def refute(
    clauses: Sequence[Clause], smart: bool = True
) -> tuple[list[tuple[int, int, int, list[int]]] | None, int]:
    """A tree-like resolution refutation as steps (i, j, pivot, resolvent) over 1-based line
    numbers continuing the input numbering, or None if satisfiable; and the DPLL node count."""
    m = len(clauses)
    lines: list[frozenset[int]] = [frozenset(c) for c in clauses]
    steps: list[tuple[int, int, int, list[int]]] = []
    where: dict[frozenset[int], int] = {}
    for k, c in enumerate(lines):
        where.setdefault(c, k)
    nodes = 0
    n = max(abs(lit) for c in clauses for lit in c)

    def pick(assigned: dict[int, bool]) -> int:
        free = [v for v in range(1, n + 1) if v not in assigned]
        if not smart:
            return free[0]
        # the variable in most clauses that are not yet satisfied and are shortest
        score = {v: 0 for v in free}
        for c in lines[:m]:
            if any(assigned.get(abs(lit)) == (lit > 0) for lit in c):
                continue
            rest = [lit for lit in c if abs(lit) not in assigned]
            for lit in rest:
                score[abs(lit)] += 10 ** max(0, 4 - len(rest))
        return max(free, key=lambda v: (score[v], -v))

    def search(assigned: dict[int, bool]) -> int | None:
        nonlocal nodes
        nodes += 1
        for k in range(m):
            if _falsified(lines[k], assigned):
                return k
        if len(assigned) == n:
            return None
        v = pick(assigned)
        left = search({**assigned, v: True})
        if left is None:
            return None
        if -v not in lines[left]:
            return left
        right = search({**assigned, v: False})
        if right is None:
            return None
        if v not in lines[right]:
            return right
        resolvent = (lines[left] - {-v}) | (lines[right] - {v})
        if resolvent in where:
            return where[resolvent]
        lines.append(resolvent)
        where[resolvent] = len(lines) - 1
        steps.append((right + 1, left + 1, v, sorted(resolvent, key=abs)))
        return len(lines) - 1

    root = search({})
    if root is None:
        return None, nodes
    return _prune(steps, m, root + 1), nodes


def _prune(
    steps: list[tuple[int, int, int, list[int]]], m: int, root: int
) -> list[tuple[int, int, int, list[int]]]:
    """Keep the steps the empty clause depends on, renumbered consecutively after the inputs."""
    by_line = {m + 1 + k: s for k, s in enumerate(steps)}
    needed: set[int] = set()
    stack = [root]
    while stack:
        line = stack.pop()
        if line in by_line and line not in needed:
            needed.add(line)
            stack.extend(by_line[line][:2])
    renumber: dict[int, int] = {k: k for k in range(1, m + 1)}
    out = []
    for line in sorted(needed):
        i, j, v, clause = by_line[line]
        renumber[line] = m + 1 + len(out)
        out.append((renumber[i], renumber[j], v, clause))
    return out


def narrow_refute(
    clauses: Sequence[Clause], width: int = WEAK_WIDTH
) -> tuple[list[tuple[int, int, int, list[int]]] | None, int]:
    """Ordered, width-bounded resolution (Davis-Putnam elimination in the order x1, x2, ...,
    dropping wide resolvents): two clauses are resolved only on a variable that is the smallest
    in both, and only non-tautological resolvents of at most ``width`` literals are kept, until
    ⊥ appears or nothing new does. No case splits and no search, so it is incomplete: a real
    refutation may need wider clauses or another order. Returns the pruned proof (or None) and
    the number of clause pairs tried."""
    m = len(clauses)
    lines: list[frozenset[int]] = [frozenset(c) for c in clauses]
    where: dict[frozenset[int], int] = {}
    for k, c in enumerate(lines):
        where.setdefault(c, k)
    steps: list[tuple[int, int, int, list[int]]] = []
    pairs = 0
    new = 0  # lines[new:] still have to be paired with every earlier line
    while new < len(lines):
        b = lines[new]
        low_b = min((abs(lit) for lit in b), default=0)
        for i in range(new):
            a = lines[i]
            pairs += 1
            if (
                not a
                or low_b != min(abs(lit) for lit in a)
                or -next(lit for lit in a if abs(lit) == low_b) not in b
            ):
                continue  # not both led by the same variable with opposite signs
            if any(-lit in b for lit in a if abs(lit) != low_b):
                continue  # a second clash: the resolvent would be a tautology
            resolvent = frozenset(lit for lit in a | b if abs(lit) != low_b)
            if len(resolvent) > width or resolvent in where:
                continue
            where[resolvent] = len(lines)
            lines.append(resolvent)
            steps.append((i + 1, new + 1, low_b, sorted(resolvent, key=abs)))
            if not resolvent:
                return _prune(steps, m, len(lines)), pairs
        new += 1
    return None, pairs


def render_steps(steps: Sequence[tuple[int, int, int, list[int]]], m: int) -> str:
    return "\n".join(
        f"{m + 1 + k}. resolve {i}, {j} on x{v}: {render_clause(c)}" for k, (i, j, v, c) in enumerate(steps)
    )


def parse_clause(text: str) -> frozenset[int] | None:
    text = text.strip().rstrip(".")
    if text.lower() in _EMPTY:
        return frozenset()
    lits: set[int] = set()
    for part in (p.strip() for p in re.split(r"∨|\||\bv\b|\bor\b|,", text.strip("(){} "))):
        match = _LIT.match(part.strip())
        if not match:
            return None
        v = int(match["v"])
        lits.add(-v if match["neg"] else v)
    return frozenset(lits)


def check_proof(clauses: Sequence[Clause], text: str) -> Verdict:
    """Check every step; the first failing one is named in the verdict."""
    raw = [line for line in re.split(r"[\n\r]+", text) if line.strip()]
    if len(raw) > MAX_STEPS:
        return Verdict.bad_format(f"more than {MAX_STEPS} steps")
    lines: list[frozenset[int]] = [frozenset(c) for c in clauses]
    m = len(lines)
    for number, line in enumerate(raw, start=m + 1):
        match = _STEP.match(line)
        if not match:
            return Verdict.bad_format(
                f"step {number}: cannot read {line.strip()[:60]!r} (expected 'k. resolve i, j on xV: clause')"
            )
        if int(match["k"]) != number:
            return Verdict.wrong(f"step {number}: numbered {match['k']}, expected {number}")
        stated = parse_clause(match["clause"].strip())
        if stated is None:
            return Verdict.bad_format(f"step {number}: cannot read the clause {match['clause'][:40]!r}")
        i, j = int(match["i"]), int(match["j"])
        if not (1 <= i < number and 1 <= j < number):
            return Verdict.wrong(f"step {number}: it may only use earlier lines 1..{number - 1}")
        a, b = lines[i - 1], lines[j - 1]
        clashes = sorted({abs(lit) for lit in a if -lit in b})
        if match["pivot"]:
            pivot = int(re.sub(r"\D", "", match["pivot"]))
            if pivot not in clashes:
                return Verdict.wrong(
                    f"step {number}: x{pivot} does not occur with opposite signs in lines {i} and {j}"
                )
        elif len(clashes) == 1:
            pivot = clashes[0]
        else:
            return Verdict.wrong(
                f"step {number}: name the pivot (lines {i} and {j} clash on {len(clashes)} variables)"
            )
        resolvent = frozenset(lit for lit in a | b if abs(lit) != pivot)
        if stated != resolvent:
            return Verdict.wrong(
                f"step {number}: resolving {i} and {j} on x{pivot} gives {render_clause(sorted(resolvent, key=abs))}"
            )
        lines.append(resolvent)
    if len(lines) == m or lines[-1]:
        return Verdict.wrong("the last step is not the empty clause ⊥")
    return Verdict.right(parsed=len(raw))


PROMPT = """This formula in conjunctive normal form over x1..x{n} is unsatisfiable ("∨" is or, \
"¬" is not; the formula is the "and" of the numbered clauses):

{clauses}

Give a resolution refutation: a sequence of steps numbered from {first}, each resolving two \
earlier lines (input clauses or earlier steps) on a variable that occurs positively in one and \
negatively in the other; the new clause is all the other literals of both, written out exactly. \
The last step must derive the empty clause, written ⊥. Any valid refutation is accepted. One \
step per line, for example (the format only):
<answer>
{first}. resolve 2, 5 on x3: x1 ∨ ¬x2
{second}. resolve {first}, 7 on x1: ¬x2
...
</answer>"""


@family(
    "resolution_refutation",
    domain="formal",
    knobs=ResolutionKnobs,
    levels=LEVELS,
    description="Write a resolution refutation of an unsatisfiable CNF; every step is checked.",
    verifier_kind="step-by-step proof checker (any valid refutation)",
)
class ResolutionRefutation(Family):
    def generate(self, knobs: ResolutionKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(2000):
            seen: set[tuple[int, ...]] = set()
            clauses: list[Clause] = []
            while len(clauses) < knobs.clauses:
                chosen = rng.permutation(knobs.variables)[: knobs.clause_width]
                signs = rng.random(knobs.clause_width) < 0.5
                c = sorted(
                    ((int(v) + 1) * (1 if s else -1) for v, s in zip(chosen, signs, strict=True)), key=abs
                )
                if tuple(c) not in seen:
                    seen.add(tuple(c))
                    clauses.append(c)
                if len(seen) >= 2**knobs.clause_width * knobs.variables**knobs.clause_width:
                    break
            steps, nodes = refute(clauses)
            if steps is not None and 2 <= len(steps) <= knobs.max_steps:
                break
        else:
            raise RuntimeError(f"could not draw a refutable formula for {knobs}")
        m = len(clauses)
        lines = "\n".join(f"{i}. {render_clause(c)}" for i, c in enumerate(clauses, start=1))
        return TaskDraft(
            prompt=PROMPT.format(n=knobs.variables, clauses=lines, first=m + 1, second=m + 2),
            answer=render_steps(steps, m),
            metadata={
                "variables": knobs.variables,
                "clauses": clauses,
                "proof_steps": len(steps),
                "dpll_nodes": nodes,
                "canonical_hash": content_hash(sorted(clauses)),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=False)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        return check_proof(task.metadata["clauses"], extraction.text)

    def solve_exact(self, task: Task) -> SolverRun:
        clauses = task.metadata["clauses"]
        steps, nodes = refute(clauses)
        if steps is None:
            raise RuntimeError("the formula is satisfiable")
        return SolverRun(
            f"<answer>\n{render_steps(steps, len(clauses))}\n</answer>", float(nodes + len(steps))
        )

    def solve_weak(self, task: Task) -> SolverRun:
        """Ordered resolution keeping only resolvents of at most two literals (no search)."""
        clauses = task.metadata["clauses"]
        steps, pairs = narrow_refute(clauses)
        if steps is None:
            return SolverRun(None, float(pairs))
        return SolverRun(f"<answer>\n{render_steps(steps, len(clauses))}\n</answer>", float(pairs))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        lines = task.answer.split("\n")
        k = int(rng.integers(len(lines)))
        out = [
            "\n".join(lines[:-1]) or lines[0].replace(": ⊥", ": x1"),  # stops before ⊥
            "\n".join(lines[:k] + [_drop_literal_or_add(lines[k])] + lines[k + 1 :]),
            "\n".join(lines[:k] + [_bad_pivot(lines[k], task.metadata["variables"])] + lines[k + 1 :]),
            "\n".join(lines[:k] + [_late_parent(lines[k])] + lines[k + 1 :]),
        ]
        return [f"<answer>\n{text}\n</answer>" for text in out]


def _drop_literal_or_add(line: str) -> str:
    head, clause = line.rsplit(": ", 1)
    if clause == "⊥":
        return f"{head}: x1"
    parts = clause.split(" ∨ ")
    return f"{head}: {' ∨ '.join(parts[1:]) or '⊥'}"


def _bad_pivot(line: str, n: int) -> str:
    match = re.search(r"on x(\d+)", line)
    assert match is not None
    v = int(match[1])
    return line.replace(f"on x{v}:", f"on x{v % n + 1}:", 1) if n > 1 else line


def _late_parent(line: str) -> str:
    k = int(line.split(".")[0])
    return re.sub(r"resolve (\d+),", f"resolve {k},", line, count=1)
