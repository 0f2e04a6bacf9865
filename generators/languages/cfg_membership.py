"""Context-free grammar membership: which candidate strings does a grammar generate? Derive them.

A random grammar in Chomsky normal form (start symbol S; rules ``X -> YZ`` and ``X -> a``; no
empty string) and a few candidate strings of similar length: members drawn from the grammar
(a random derivation tree), and near misses (a member with one letter changed, two swapped,
or a random string) that the CYK algorithm proves are not generated. At least one candidate
is a member. The answer lists a derivation from S for every member and nothing else, so the
verdict for each string carries its certificate: a listed string is checked by replaying its
derivation step by step (each step rewrites one nonterminal by one rule of the grammar), and
a member left out is refused (membership of every candidate is decided by CYK). Any valid
derivation is accepted (leftmost or not, any parse of an ambiguous string).

Difficulty: nonterminals (3 to 8), terminals (2 to 3), candidates (2 to 5) and their length
(3 to 14 letters). The weak solver searches leftmost derivations depth-first with a budget of
200 rewrites per string (rules in the order given, no memo) and lists those it derives; the
exact solver is CYK with back-pointers (effort = rule-split checks over all candidates).
Generation (CPU time, 30 seeds, this machine under load): ~1,070 tasks per second at level 1,
~370 at level 5, ~27 at level 10, under 50/s there because pure-Python CYK (14 letters, 8
nonterminals) proves every near miss, several tried per accepted one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

NONTERMINALS = "SABCDEFGH"
TERMINALS = "abc"
MAX_ANSWER_CHARS = 12_000
WEAK_BUDGET = 200
_ARROW = re.compile(r"=>|⇒|->|→")

Grammar = dict[str, list[str]]  # nonterminal -> right-hand sides ("AB" or "a"), in order


@dataclass(frozen=True)
class CfgMembershipKnobs(Knobs):
    nonterminals: int = knob(3, low=2, high=9, help="nonterminals, S included")
    terminals: int = knob(2, low=2, high=3, help="terminal letters (a, b, c)")
    candidates: int = knob(2, low=1, high=8, help="candidate strings")
    min_length: int = knob(3, low=1, high=30, help="shortest candidate")
    max_length: int = knob(4, low=1, high=30, help="longest candidate")

    def validate(self) -> None:
        if self.min_length > self.max_length:
            raise ValueError("min_length must not exceed max_length")


LEVELS = {
    1: CfgMembershipKnobs(nonterminals=3, terminals=2, candidates=2, min_length=3, max_length=4),
    2: CfgMembershipKnobs(nonterminals=3, terminals=2, candidates=3, min_length=4, max_length=5),
    3: CfgMembershipKnobs(nonterminals=4, terminals=2, candidates=3, min_length=5, max_length=6),
    4: CfgMembershipKnobs(nonterminals=4, terminals=3, candidates=3, min_length=6, max_length=7),
    5: CfgMembershipKnobs(nonterminals=5, terminals=3, candidates=4, min_length=7, max_length=8),
    6: CfgMembershipKnobs(nonterminals=5, terminals=3, candidates=4, min_length=8, max_length=10),
    7: CfgMembershipKnobs(nonterminals=6, terminals=3, candidates=4, min_length=9, max_length=11),
    8: CfgMembershipKnobs(nonterminals=6, terminals=3, candidates=5, min_length=10, max_length=12),
    9: CfgMembershipKnobs(nonterminals=7, terminals=3, candidates=5, min_length=11, max_length=13),
    10: CfgMembershipKnobs(nonterminals=8, terminals=3, candidates=5, min_length=12, max_length=14),
}


# --------------------------------------------------------------------------------------------
# Grammars, CYK and derivations
# --------------------------------------------------------------------------------------------


def random_grammar(knobs: CfgMembershipKnobs, rng: np.random.Generator) -> Grammar:
    """S gets 2-3 binary rules; every other nonterminal 1-2 binary rules and one terminal rule
    (so every nonterminal derives something); rules are distinct."""
    names = NONTERMINALS[: knobs.nonterminals]
    letters = TERMINALS[: knobs.terminals]
    grammar: Grammar = {}
    for x in names:
        rules: list[str] = []
        binary = int(rng.integers(2, 4)) if x == "S" else int(rng.integers(1, 3))
        while len(rules) < binary:
            rhs = names[1 + int(rng.integers(len(names) - 1))] + names[1 + int(rng.integers(len(names) - 1))]
            if rhs not in rules:
                rules.append(rhs)
        if x != "S":
            rules.append(letters[int(rng.integers(len(letters)))])
        grammar[x] = rules
    return grammar


def reachable(grammar: Grammar) -> set[str]:
    seen, stack = {"S"}, ["S"]
    while stack:
        for rhs in grammar[stack.pop()]:
            for y in rhs:
                if y.isupper() and y not in seen:
                    seen.add(y)
                    stack.append(y)
    return seen


def tree_counts(grammar: Grammar, longest: int) -> dict[str, list[int]]:
    """counts[X][n]: derivation trees of X yielding a string of n letters (n <= longest)."""
    counts = {x: [0] * (longest + 1) for x in grammar}
    for x, rules in grammar.items():
        counts[x][1] = sum(1 for r in rules if len(r) == 1)
    for n in range(2, longest + 1):
        for x, rules in grammar.items():
            counts[x][n] = sum(
                counts[r[0]][i] * counts[r[1]][n - i] for r in rules if len(r) == 2 for i in range(1, n)
            )
    return counts


def sample_string(
    grammar: Grammar, counts: dict[str, list[int]], length: int, rng: np.random.Generator
) -> str:
    """A string of ``length`` letters from a derivation tree of S drawn uniformly."""

    def expand(x: str, n: int) -> str:
        options = [(r, 0) for r in grammar[x] if len(r) == 1 and n == 1]
        options += [
            (r, i)
            for r in grammar[x]
            if len(r) == 2
            for i in range(1, n)
            if counts[r[0]][i] * counts[r[1]][n - i]
        ]
        weights = np.array(
            [1.0 if len(r) == 1 else float(counts[r[0]][i] * counts[r[1]][n - i]) for r, i in options]
        )
        r, i = options[int(rng.choice(len(options), p=weights / weights.sum()))]
        return r if len(r) == 1 else expand(r[0], i) + expand(r[1], n - i)

    return expand("S", length)


Tree = tuple  # (nonterminal, terminal) or (nonterminal, left tree, right tree)


def cyk(grammar: Grammar, text: str) -> tuple[Tree | None, int]:
    """A parse tree of ``text`` from S (``None`` if S does not derive it) and the rule-split
    checks made (the effort)."""
    n, work = len(text), 0
    # best[(i, length)][X] = the first tree found of X over text[i:i+length]
    best: dict[tuple[int, int], dict[str, Tree]] = {}
    for i, ch in enumerate(text):
        best[(i, 1)] = {x: (x, ch) for x, rules in grammar.items() if ch in rules}
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            cell: dict[str, Tree] = {}
            for x, rules in grammar.items():
                for r in rules:
                    if len(r) != 2 or x in cell:
                        continue
                    for split in range(1, length):
                        work += 1
                        left, right = best[(i, split)].get(r[0]), best[(i + split, length - split)].get(r[1])
                        if left is not None and right is not None:
                            cell[x] = (x, left, right)
                            break
            best[(i, length)] = cell
    return (best[(0, n)].get("S") if n else None), work


def leftmost_derivation(tree: Tree) -> list[str]:
    """The sentential forms of the leftmost derivation that builds ``tree``."""
    forms, frontier = [], [tree]
    while True:
        forms.append("".join(part if isinstance(part, str) else part[0] for part in frontier))
        spot = next((k for k, part in enumerate(frontier) if not isinstance(part, str)), None)
        if spot is None:
            return forms
        node = frontier[spot]
        frontier[spot : spot + 1] = [node[1]] if len(node) == 2 else [node[1], node[2]]


def one_rewrite(grammar: Grammar, before: str, after: str) -> bool:
    """Whether ``after`` is ``before`` with one nonterminal replaced by one of its rules."""
    grow = len(after) - len(before)
    if grow not in (0, 1):
        return False
    for p, x in enumerate(before):
        if x in grammar and before[:p] == after[:p]:
            rhs = after[p : p + 1 + grow]
            if rhs in grammar[x] and before[p + 1 :] == after[p + 1 + grow :]:
                return True
    return False


def weak_derive(grammar: Grammar, text: str, budget: int = WEAK_BUDGET) -> bool:
    """Depth-first leftmost derivation search with a rewrite budget (no memo)."""
    left = [budget]

    def search(form: str) -> bool:
        spot = next((k for k, ch in enumerate(form) if ch.isupper()), None)
        if spot is None:
            return form == text
        if len(form) > len(text) or form[:spot] != text[:spot]:
            return False
        for rhs in grammar[form[spot]]:
            left[0] -= 1
            if left[0] < 0:
                return False
            if search(form[:spot] + rhs + form[spot + 1 :]):
                return True
        return False

    return search("S")


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


def near_miss(member: str, letters: str, rng: np.random.Generator) -> str:
    """One letter changed, two neighbours swapped, or a random string of the same length."""
    chars = list(member)
    kind = int(rng.integers(3))
    if kind == 0:
        p = int(rng.integers(len(chars)))
        chars[p] = letters[int(rng.integers(len(letters)))]
    elif kind == 1 and len(chars) > 1:
        p = int(rng.integers(len(chars) - 1))
        chars[p], chars[p + 1] = chars[p + 1], chars[p]
    else:
        chars = [letters[int(rng.integers(len(letters)))] for _ in chars]
    return "".join(chars)


def draw(knobs: CfgMembershipKnobs, rng: np.random.Generator) -> tuple[Grammar, list[str], list[str]] | None:
    grammar = random_grammar(knobs, rng)
    if reachable(grammar) != set(grammar):
        return None
    counts = tree_counts(grammar, knobs.max_length)
    lengths = [n for n in range(knobs.min_length, knobs.max_length + 1) if counts["S"][n]]
    if not lengths:
        return None
    letters = TERMINALS[: knobs.terminals]
    wanted_members = 1 + int(rng.integers(knobs.candidates))
    members: list[str] = []
    others: list[str] = []
    for _ in range(20 * knobs.candidates):
        if len(members) + len(others) == knobs.candidates:
            break
        n = lengths[int(rng.integers(len(lengths)))]
        string = sample_string(grammar, counts, n, rng)
        if len(members) < wanted_members:
            if string not in members:
                members.append(string)
            continue
        miss = near_miss(string, letters, rng)
        if miss not in others and cyk(grammar, miss)[0] is None:
            others.append(miss)
    if len(members) + len(others) != knobs.candidates:
        return None
    return grammar, members, others


PROMPT = """Here is a context-free grammar with start symbol S. Uppercase letters are \
nonterminals, lowercase letters are terminals, and | separates alternatives.

{grammar}

Which of these strings does the grammar generate? At least one of them.

{candidates}

For every string the grammar generates, give a derivation: the sentential forms from S to the \
string joined by =>, each step replacing one nonterminal by one of its alternatives. Put one \
derivation per line and leave out the strings the grammar does not generate. For example, \
with the rules S -> AB, A -> a, B -> b, the string ab has the derivation S => AB => aB => ab. \
Answer inside <answer></answer> tags."""


def show_grammar(grammar: Grammar) -> str:
    return "\n".join(f"{x} -> {' | '.join(rules)}" for x, rules in grammar.items())


def read_derivations(text: str) -> list[list[str]] | None:
    """One derivation per non-empty line: forms joined by => (spaces inside forms ignored)."""
    derivations = []
    for line in text.splitlines():
        line = line.strip().rstrip(".,;")
        if not line:
            continue
        forms = ["".join(f.split()) for f in _ARROW.split(line)]
        if len(forms) < 2 or not all(f.isascii() and f.isalpha() for f in forms):
            return None
        derivations.append(forms)
    return derivations or None


@family(
    "cfg_membership",
    domain="languages",
    knobs=CfgMembershipKnobs,
    levels=LEVELS,
    description="Decide which strings a CNF grammar generates, with a derivation as the certificate of each member.",
    verifier_kind="derivations replayed rule by rule; membership of every candidate decided by CYK",
)
class CfgMembership(Family):
    def generate(self, knobs: CfgMembershipKnobs, rng: np.random.Generator) -> TaskDraft:
        while (drawn := draw(knobs, rng)) is None:
            pass
        grammar, members, others = drawn
        candidates = [*members, *others]
        candidates = [candidates[int(i)] for i in rng.permutation(len(candidates))]
        trees = {m: cyk(grammar, m)[0] for m in members}
        answer = "\n".join(" => ".join(leftmost_derivation(trees[s])) for s in candidates if s in trees)
        metadata = {
            "grammar": grammar,
            "candidates": candidates,
            "members": [s for s in candidates if s in trees],
            "canonical_hash": content_hash([sorted(map(list, grammar.items())), sorted(candidates)]),
        }
        prompt = PROMPT.format(grammar=show_grammar(grammar), candidates="\n".join(candidates))
        return TaskDraft(prompt, answer, metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=MAX_ANSWER_CHARS)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        derivations = read_derivations(extraction.text)
        if derivations is None:
            return Verdict.bad_format("answer with derivations, one per line, forms joined by =>")
        grammar: Grammar = task.metadata["grammar"]
        candidates, members = task.metadata["candidates"], set(task.metadata["members"])
        derived = [forms[-1] for forms in derivations]
        longest = max(map(len, candidates))
        if any(len(f) > longest for forms in derivations for f in forms):
            # no rule shrinks a form, so a form longer than every candidate derives none of them
            return Verdict.wrong("a sentential form is longer than every candidate", parsed=derived)
        if len(set(derived)) != len(derived):
            return Verdict.bad_format("a string is derived twice")
        for forms in derivations:
            if forms[0] != "S":
                return Verdict.wrong(f"a derivation must start from S, not {forms[0]}", parsed=derived)
            if forms[-1] not in candidates:
                return Verdict.wrong(f"{forms[-1]} is not one of the candidate strings", parsed=derived)
            for before, after in zip(forms, forms[1:], strict=False):
                if not one_rewrite(grammar, before, after):
                    return Verdict.wrong(f"{before} => {after} is not one rule applied once", parsed=derived)
        missing = sorted(members - set(derived))
        if missing:
            return Verdict.wrong(f"{missing[0]} is generated but has no derivation", parsed=derived)
        return Verdict.right(parsed=derived)

    def solve_exact(self, task: Task) -> SolverRun:
        """CYK with back-pointers on every candidate (effort = rule-split checks)."""
        grammar, total, lines = task.metadata["grammar"], 0, []
        for s in task.metadata["candidates"]:
            tree, work = cyk(grammar, s)
            total += work
            if tree is not None:
                lines.append(" => ".join(leftmost_derivation(tree)))
        return SolverRun(f"<answer>{chr(10).join(lines)}</answer>", float(total))

    def solve_weak(self, task: Task) -> SolverRun:
        """Depth-first leftmost search, 200 rewrites per string; lists what it derives."""
        grammar, lines = task.metadata["grammar"], []
        for s in task.metadata["candidates"]:
            if weak_derive(grammar, s):
                lines.append(" => ".join(leftmost_derivation(cyk(grammar, s)[0])))
        return SolverRun(f"<answer>{chr(10).join(lines)}</answer>" if lines else None, float(WEAK_BUDGET))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        derivations = [line.split(" => ") for line in task.answer.splitlines()]
        first = derivations[0]
        wrong = [
            [first[:-1], *derivations[1:]],  # stops before the string
            [first[:1] + first[2:], *derivations[1:]],  # two rewrites in one step
            [
                [*first[:-1], first[-1][::-1] if first[-1][::-1] != first[-1] else first[-1] + "a"],
                *derivations[1:],
            ],
        ]
        if len(derivations) > 1:
            wrong.append(derivations[1:])  # a member left out
        texts = {"\n".join(" => ".join(f) for f in d) for d in wrong} - {task.answer}
        return [f"<answer>{t}</answer>" for t in sorted(texts)]
