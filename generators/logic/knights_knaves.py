"""Knights and knaves: who tells the truth?

Every inhabitant is a knight (always truthful) or a knave (always lies) and makes one statement:
a nested formula over "X is a knight/knave" built from and, or, not, if-and-only-if and
"exactly k of X, Y, Z are knights". Speaker ``i`` contributes the constraint
``knight_i <-> statement_i``.

Generation plants an assignment, draws statements consistent with it (rejecting tautologies,
contradictions and statements that carry no information), and hill-climbs on a numpy truth
table until exactly one assignment survives; z3 then proves the answer unique (it finds the
planted model and shows no second one exists). The verifier accepts any clear statement of the
full assignment (sentences, ``Name: role`` lines, JSON) and nothing with a stray word in it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.core import Knobs, Task, Verdict, knob
from palaestra.generators.logic import _formulas as fm
from palaestra.generators.shared.logic_answers import scan_words
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

CONNECTIVES = ("not", "and", "or", "iff", "exactly")
NAMES = (
    "Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Kevin",
    "Laura", "Mallory", "Nina", "Oscar", "Peggy", "Quentin", "Rupert", "Sybil", "Trent", "Ursula",
    "Victor", "Wendy", "Xavier", "Yvonne", "Zoe",
)  # fmt: skip
MAX_CLIMB = 400
WEAK_LOOKAHEADS = 1  # the weak solver's budget of one-step lookaheads


@dataclass(frozen=True)
class KnightsKnavesKnobs(Knobs):
    people: int = knob(2, low=2, high=12, help="number of inhabitants (each makes one statement)")
    depth: int = knob(1, low=1, high=4, help="maximum nesting depth of connectives in a statement")
    connectives: str = knob(
        "not,and,or", help="comma-separated connectives statements may use: not, and, or, iff, exactly"
    )
    max_args: int = knob(2, low=2, high=4, help="most arguments of an and/or, most people in 'exactly k of'")
    self_reference: bool = knob(True, help="allow statements about the speaker ('I am a knave')")

    def validate(self) -> None:
        chosen = self.connective_list()
        if not chosen or set(chosen) - set(CONNECTIVES) or len(set(chosen)) != len(chosen):
            raise ValueError(
                f"connectives must be distinct names from {list(CONNECTIVES)}, got {self.connectives!r}"
            )

    def connective_list(self) -> list[str]:
        return [c.strip() for c in self.connectives.split(",") if c.strip()]


LEVELS = {
    1: KnightsKnavesKnobs(people=2, depth=1, connectives="not,and,or"),
    2: KnightsKnavesKnobs(people=3, depth=1, connectives="not,and,or"),
    3: KnightsKnavesKnobs(people=3, depth=2, connectives="not,and,or,iff"),
    4: KnightsKnavesKnobs(people=4, depth=2, connectives="not,and,or,iff"),
    5: KnightsKnavesKnobs(people=5, depth=2, connectives="not,and,or,iff,exactly", max_args=3),
    6: KnightsKnavesKnobs(people=6, depth=2, connectives="not,and,or,iff,exactly", max_args=3),
    7: KnightsKnavesKnobs(people=6, depth=3, connectives="not,and,or,iff,exactly", max_args=3),
    8: KnightsKnavesKnobs(people=7, depth=3, connectives="not,and,or,iff,exactly", max_args=3),
    9: KnightsKnavesKnobs(people=8, depth=3, connectives="not,and,or,iff,exactly", max_args=3),
    10: KnightsKnavesKnobs(people=10, depth=3, connectives="not,and,or,iff,exactly", max_args=3),
}


# --------------------------------------------------------------------------------------------
# Drawing statements
# --------------------------------------------------------------------------------------------


def _subjects(knobs: KnightsKnavesKnobs, speaker: int) -> list[int]:
    return [i for i in range(knobs.people) if knobs.self_reference or i != speaker]


def _draw_literal(subjects: list[int], rng: np.random.Generator) -> fm.Formula:
    k = int(rng.integers(2 * len(subjects)))
    return fm.literal(subjects[k // 2], k % 2 == 0)


def _draw_formula(
    knobs: KnightsKnavesKnobs, rng: np.random.Generator, speaker: int, depth: int, top: bool
) -> fm.Formula:
    subjects = _subjects(knobs, speaker)
    if depth == 0 or (not top and rng.random() < 0.4):
        return _draw_literal(subjects, rng)
    ops = knobs.connective_list()
    op = ops[int(rng.integers(len(ops)))]
    if op == "exactly":
        if len(subjects) < 2:
            return _draw_literal(subjects, rng)
        m = int(rng.integers(2, min(len(subjects), knobs.max_args + 1) + 1))
        people = sorted(subjects[int(k)] for k in rng.permutation(len(subjects))[:m])
        return ["exactly", int(rng.integers(0, m + 1)), [fm.var(p) for p in people]]
    if op == "not":
        child = _draw_formula(knobs, rng, speaker, depth - 1, top=False)
        lit = fm.as_literal(child)
        return fm.literal(lit[0], not lit[1]) if lit else fm.neg(child)
    arity = 2 if op == "iff" else int(rng.integers(2, knobs.max_args + 1))
    args: list[fm.Formula] = []
    for _ in range(arity * 4):  # distinct arguments only ("A is a knight and A is a knight")
        arg = _draw_formula(knobs, rng, speaker, depth - 1, top=False)
        if all(fm.canonical(arg) != fm.canonical(a) for a in args):
            args.append(arg)
        if len(args) == arity:
            break
    if len(args) < 2:
        return args[0]
    if op == "iff":
        return ["iff", args[0], args[1]]
    # "(A or B) or C" reads better as "A or B or C"
    return fm.flatten(op, args)


def _draw_statement(
    knobs: KnightsKnavesKnobs,
    rng: np.random.Generator,
    speaker: int,
    table: np.ndarray,
    planted: int,
) -> tuple[fm.Formula, np.ndarray]:
    """A statement true exactly when the planted speaker is a knight, that says something."""
    for _ in range(500):
        statement = _draw_formula(knobs, rng, speaker, knobs.depth, top=True)
        if knobs.depth >= 2 and fm.as_literal(statement) is not None:
            continue  # nesting was asked for: a bare "X is a knight" is too plain
        values = fm.informative(statement, table)
        if values is None:
            continue
        consistent = table[:, speaker] == values
        if consistent.all() or not consistent[planted]:
            continue
        return statement, consistent
    raise RuntimeError(f"could not draw a statement for {knobs}")


def _draw_puzzle(knobs: KnightsKnavesKnobs, rng: np.random.Generator) -> tuple[list[bool], list[Any]]:
    n = knobs.people
    table = fm.all_assignments(n)
    for _ in range(100):
        solution = [bool(b) for b in rng.random(n) < 0.5]
        if n >= 3 and len(set(solution)) == 1:
            continue  # all knights / all knaves is guessable without reading: degenerate
        planted = sum(1 << i for i, b in enumerate(solution) if b)
        drawn = [_draw_statement(knobs, rng, i, table, planted) for i in range(n)]
        statements = [s for s, _ in drawn]
        masks = [m for _, m in drawn]
        count = int(np.logical_and.reduce(masks).sum())
        for _ in range(MAX_CLIMB):
            if count == 1:
                return solution, statements
            # hill-climb: redraw one statement, keep it unless more assignments survive
            i = int(rng.integers(n))
            statement, mask = _draw_statement(knobs, rng, i, table, planted)
            trial = masks[:i] + [mask] + masks[i + 1 :]
            trial_count = int(np.logical_and.reduce(trial).sum())
            if trial_count <= count:
                statements[i], masks[i], count = statement, mask, trial_count
    raise RuntimeError(f"could not draw a puzzle with a unique solution for {knobs}")


def constraints(statements: list[Any]) -> list[fm.Formula]:
    """Speaker ``i`` is a knight if and only if their statement is true."""
    return [["iff", fm.var(i), s] for i, s in enumerate(statements)]


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


def render(f: fm.Formula, names: list[str], speaker: int) -> str:
    """English text of a statement; compound sub-statements are parenthesised."""
    lit = fm.as_literal(f)
    if lit is not None:
        who = "I am" if lit[0] == speaker else f"{names[lit[0]]} is"
        return f"{who} a {'knight' if lit[1] else 'knave'}"
    op = f[0]
    if op == "exactly":
        people = ", ".join(names[g[1]] for g in f[2])
        verb = "is a knight" if f[1] == 1 else "are knights"
        return f"exactly {f[1]} of {people} {verb}"
    if op == "not":
        return f"it is not the case that {_wrap(f[1], names, speaker)}"
    if op == "iff":
        return f"{_wrap(f[1], names, speaker)} if and only if {_wrap(f[2], names, speaker)}"
    return f" {op} ".join(_wrap(g, names, speaker) for g in f[1])


def _wrap(f: fm.Formula, names: list[str], speaker: int) -> str:
    text = render(f, names, speaker)
    return text if fm.as_literal(f) is not None else f"({text})"


PROMPT = """On an island, every inhabitant is either a knight, who always tells the truth, or a \
knave, who always lies. You meet {count} inhabitants: {names}.

{statements}

"or" is inclusive (at least one part is true), "exactly k of X, Y, Z ..." counts the knights \
among the people listed, and parentheses group sub-statements. The puzzle has exactly one \
solution. Say for every inhabitant, each exactly once, whether they are a knight or a knave, \
for example (with other names): <answer>Zed is a knight, Quinn is a knave, Uma is a knave</answer>"""


# --------------------------------------------------------------------------------------------
# Solvers
# --------------------------------------------------------------------------------------------


def backtrack(statements: list[Any], n: int) -> tuple[list[list[bool]], int]:
    """Every solution by depth-first search with three-valued pruning, and the nodes visited."""
    rules = constraints(statements)
    values: list[bool | None] = [None] * n
    solutions: list[list[bool]] = []
    nodes = 0

    def search(i: int) -> None:
        nonlocal nodes
        nodes += 1
        if any(fm.kleene(r, values) is False for r in rules):
            return
        if i == n:
            solutions.append([bool(v) for v in values])
            return
        for choice in (True, False):
            values[i] = choice
            search(i + 1)
        values[i] = None

    search(0)
    return solutions, nodes


def _force(f: fm.Formula, value: bool, values: list[bool | None]) -> bool:
    """Make ``f`` take ``value`` where that pins variables down; ``False`` on a contradiction."""
    lit = fm.as_literal(f)
    if lit is not None:
        want = value if lit[1] else not value
        if values[lit[0]] is None:
            values[lit[0]] = want
        return values[lit[0]] == want
    op = f[0]
    if op == "not":
        return _force(f[1], not value, values)
    if (op == "and" and value) or (op == "or" and not value):
        return all(_force(g, value, values) for g in f[1])
    if op == "iff":
        a, b = fm.kleene(f[1], values), fm.kleene(f[2], values)
        if a is not None:
            return _force(f[2], a == value, values)
        if b is not None:
            return _force(f[1], b == value, values)
    if op == "exactly":
        known = [fm.kleene(g, values) for g in f[2]]
        true, unknown = sum(v is True for v in known), sum(v is None for v in known)
        if value and unknown and true in (f[1], f[1] - unknown):
            fill = true != f[1]  # the unknowns must all be knights, or all knaves
            return all(_force(g, fill, values) for g, v in zip(f[2], known, strict=True) if v is None)
    return True


def _propagate(statements: list[Any], values: list[bool | None]) -> tuple[bool, int]:
    """Unit propagation to a fixpoint; returns (no contradiction seen, steps)."""
    steps, ok, changed = 0, True, True
    while changed:
        changed = False
        for i, s in enumerate(statements):
            steps += 1
            before = list(values)
            if values[i] is None:
                values[i] = fm.kleene(s, values)
            else:
                ok &= _force(s, bool(values[i]), values)
                ok &= fm.kleene(s, values) in (None, values[i])
            changed |= values != before
    return ok, steps


def weak_solve(statements: list[Any], n: int) -> tuple[list[bool], int]:
    """Propagate forced values; when stuck, trust the first undecided speaker unless that
    contradicts at once (one step of lookahead, at most ``WEAK_LOOKAHEADS`` times; after that
    it trusts blindly). Never backtracks further."""
    values: list[bool | None] = [None] * n
    _, steps = _propagate(statements, values)
    lookaheads = WEAK_LOOKAHEADS
    while None in values:
        i = values.index(None)
        trial = list(values)
        trial[i] = True
        ok, spent = _propagate(statements, trial)
        steps += spent
        if ok or lookaheads == 0:  # out of budget: trust blindly
            values = trial
        else:
            lookaheads -= 1
            values[i] = False
            steps += _propagate(statements, values)[1]
    return [bool(v) for v in values], steps


# --------------------------------------------------------------------------------------------
# Answers
# --------------------------------------------------------------------------------------------

ROLES = {"knight": "knight", "knights": "knight", "knave": "knave", "knaves": "knave"}
FILLER = frozenset({"is", "are", "a", "an", "and", "both", "also", "the", "while", "but", "whereas"})
# punctuation that only separates; a dash counts only when no word follows it at once ("- Bob -
# knight", not "-knight"). Any other sign (¬, ≠, !, ~, /, ?) refuses the answer: it may negate.
_SEPARATORS = re.compile(r"(?:\s+|->|=>|→|[,;:.=*_`\"'()\[\]{}|&]|-(?![a-z]))+")
MAX_ANSWER_CHARS = 4000  # twelve names and roles, however verbose, fit many times over


def format_assignment(names: list[str], roles: list[str]) -> str:
    return ", ".join(f"{name} is a {role}" for name, role in zip(names, roles, strict=True))


def parse_assignment(text: str, names: list[str]) -> tuple[dict[str, str] | None, str]:
    """Read ``{name: role}`` from an answer, or ``(None, why)``.

    Each role word applies to the names since the previous role word ("Alice and Bob are
    knights, Carol is a knave", "Alice: knight", JSON); enumerators "1." "2." may count the
    lines. Any other word (``not``, an unknown name) or sign (``¬``, ``≠``, ``!``) makes the
    answer unclear, which is a format error rather than a guess.
    """
    if len(text) > MAX_ANSWER_CHARS:
        return None, f"the answer is longer than {MAX_ANSWER_CHARS} characters"
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            return None, "the answer looks like JSON but does not parse"
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            return None, "a JSON answer must map each name to 'knight' or 'knave'"
        text = " ".join(f"{k} {v}" for k, v in data.items())
    words, why = scan_words(text, _SEPARATORS)
    if words is None:
        return None, f"{why}: give only names and knight/knave"
    lookup = {name.lower(): name for name in names}
    assignment: dict[str, str] = {}
    pending: list[str] = []
    enumerator = 0
    for word in words:
        if word.isdigit():
            if int(word) != enumerator + 1:
                return None, f"unexpected number {word}"
            enumerator += 1
        elif word in lookup:
            name = lookup[word]
            if name in assignment or name in pending:
                return None, f"{name} is named more than once"
            pending.append(name)
        elif word in ROLES:
            if not pending:
                return None, f"'{word}' does not follow a name"
            assignment.update((name, ROLES[word]) for name in pending)
            pending = []
        elif word not in FILLER:
            return None, f"unexpected word {word!r}: give only names and knight/knave"
    if pending:
        return None, f"no role given for {', '.join(pending)}"
    missing = [name for name in names if name not in assignment]
    if missing:
        return None, f"no role given for {', '.join(missing)}"
    return assignment, ""


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


def _roles(values: list[bool]) -> list[str]:
    return ["knight" if v else "knave" for v in values]


@family(
    "knights_knaves",
    domain="logic",
    knobs=KnightsKnavesKnobs,
    levels=LEVELS,
    description="Knights always tell the truth, knaves always lie: deduce who is which from "
    "nested statements (and/or/not/iff, 'exactly k of'); the solution is proven unique with z3.",
    verifier_kind="unique assignment",
)
class KnightsKnaves(Family):
    def generate(self, knobs: KnightsKnavesKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.people
        names = sorted(str(x) for x in rng.choice(NAMES, size=n, replace=False))
        order = [int(i) for i in rng.permutation(n)]
        names = [names[i] for i in order]
        solution, statements = _draw_puzzle(knobs, rng)
        if not fm.z3_only_model(constraints(statements), n, solution):
            raise RuntimeError("z3 disagrees with the truth table about uniqueness")
        _, nodes = backtrack(statements, n)
        lines = "\n".join(
            f'- {names[i]} says: "{_capitalise(render(s, names, i))}."' for i, s in enumerate(statements)
        )
        roles = _roles(solution)
        return TaskDraft(
            prompt=PROMPT.format(count=n, names=", ".join(names), statements=lines),
            answer=dict(zip(names, roles, strict=True)),
            metadata={
                "names": names,
                "statements": statements,
                "solution": roles,
                "solutions": 1,
                "uniqueness_proof": "z3",
                "search_nodes": nodes,
                "statement_size": sum(fm.size(s) for s in statements),
                # invariant under renaming the inhabitants (the names are random anyway)
                "canonical_hash": fm.structure_hash(
                    [("says", s) for s in statements], n, anchors=list(range(n))
                ),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        names = list(task.metadata["names"])
        assignment, why = parse_assignment(extraction.text, names)
        if assignment is None:
            return Verdict.bad_format(why)
        expected = dict(zip(names, task.metadata["solution"], strict=True))
        wrong = [name for name in names if assignment[name] != expected[name]]
        if wrong:
            return Verdict.wrong(f"{len(wrong)} inhabitant(s) misclassified", parsed=assignment)
        return Verdict.right(parsed=assignment)

    def solve_exact(self, task: Task) -> SolverRun:
        names = list(task.metadata["names"])
        solutions, nodes = backtrack(task.metadata["statements"], len(names))
        if len(solutions) != 1:
            raise RuntimeError(f"expected one solution, found {len(solutions)}")
        answer = format_assignment(names, _roles(solutions[0]))
        return SolverRun(response=f"<answer>{answer}</answer>", effort=float(nodes))

    def solve_weak(self, task: Task) -> SolverRun:
        names = list(task.metadata["names"])
        values, steps = weak_solve(task.metadata["statements"], len(names))
        return SolverRun(
            response=f"<answer>{format_assignment(names, _roles(values))}</answer>", effort=float(steps)
        )

    def reference_response(self, task: Task) -> str:
        names = list(task.metadata["names"])
        return f"<answer>{format_assignment(names, task.metadata['solution'])}</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        names = list(task.metadata["names"])
        roles = list(task.metadata["solution"])
        flip = {"knight": "knave", "knave": "knight"}
        i = int(rng.integers(len(names)))
        one = roles[:i] + [flip[roles[i]]] + roles[i + 1 :]
        everyone = [flip[r] for r in roles]
        return [
            f"<answer>{format_assignment(names, one)}</answer>",
            f"<answer>{format_assignment(names, everyone)}</answer>",
            f"<answer>{format_assignment(names[:-1], roles[:-1])}</answer>",  # someone missing
            f"<answer>{format_assignment(names, roles)}, {names[0]} is a {flip[roles[0]]}</answer>",
            f"<answer>{format_assignment(names, roles).replace(' is a ', ' is not a ', 1)}</answer>",
        ]


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
