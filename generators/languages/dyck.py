"""Repair a bracket sequence with the fewest insertions (Dyck languages over 1-4 bracket types).

A uniformly random balanced sequence (cycle lemma) over up to four bracket types has brackets
removed. At low levels the removed part is a suffix and the task is the classic completion:
append the fewest closing brackets (the answer is unique: the open brackets closed in reverse
order). From level 5 brackets are removed anywhere and the task is to insert the fewest brackets
anywhere (no deletions or changes) to make the sequence balanced; several shortest repairs may
exist and every one is accepted: the verifier checks that the answer is balanced, contains the
given sequence as a subsequence and has exactly the minimal length. The minimum is proven by an
interval dynamic programme (minimum insertions to balance every substring, O(n^3)).

Difficulty: pairs (3 to 22), bracket types (1 to 4), removed brackets (a suffix at levels 1-4,
2 to 10 anywhere at levels 5-10). The weak solver is the one-pass stack repair (insert the
opener a stray closer needs, close what is open at the end): optimal for completions, not for
repairs. Relabelled bracket types are duplicates (the canonical hash numbers types by first
appearance). Generation: ~2,000 tasks per CPU-second at level 5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

PAIRS = ("()", "[]", "{}", "<>")
OPENERS = {p[0]: p[1] for p in PAIRS}
CLOSERS = {p[1]: p[0] for p in PAIRS}
MAX_ANSWER_CHARS = 1000


@dataclass(frozen=True)
class DyckKnobs(Knobs):
    pairs: int = knob(3, low=2, high=60, help="bracket pairs of the hidden balanced sequence")
    types: int = knob(1, low=1, high=4, help="bracket types: (), [], {}, <>")
    removed: int = knob(
        0, low=0, high=40, help="brackets removed anywhere (0: a suffix is removed: complete the sequence)"
    )

    def validate(self) -> None:
        if self.removed >= 2 * self.pairs:
            raise ValueError("removed must be smaller than the sequence length 2 * pairs")


LEVELS = {
    1: DyckKnobs(pairs=3, types=1),
    2: DyckKnobs(pairs=4, types=2),
    3: DyckKnobs(pairs=8, types=3),
    4: DyckKnobs(pairs=9, types=4),
    5: DyckKnobs(pairs=10, types=3, removed=2),
    6: DyckKnobs(pairs=11, types=3, removed=3),
    7: DyckKnobs(pairs=13, types=4, removed=4),
    8: DyckKnobs(pairs=15, types=4, removed=5),
    9: DyckKnobs(pairs=18, types=4, removed=7),
    10: DyckKnobs(pairs=22, types=4, removed=10),
}


def random_balanced(pairs: int, types: int, rng: np.random.Generator) -> str:
    """A uniformly random Dyck word (cycle lemma), each pair given a random bracket type."""
    steps = np.array([1] * pairs + [-1] * (pairs + 1))
    rng.shuffle(steps)
    prefix = np.cumsum(steps)
    start = int(np.argmin(prefix)) + 1  # the rotation after the first minimum stays >= 0
    walk = np.concatenate([steps[start:], steps[:start]])[:-1]
    out, stack = [], []
    for step in walk.tolist():
        if step == 1:
            pair = PAIRS[int(rng.integers(types))]
            stack.append(pair[1])
            out.append(pair[0])
        else:
            out.append(stack.pop())
    return "".join(out)


def is_balanced(text: str) -> bool:
    stack = []
    for ch in text:
        if ch in OPENERS:
            stack.append(OPENERS[ch])
        elif not stack or stack.pop() != ch:
            return False
    return not stack


def is_subsequence(small: str, big: str) -> bool:
    it = iter(big)
    return all(ch in it for ch in small)


def min_insertions(text: str) -> tuple[int, str, int]:
    """Fewest insertions that balance ``text``, one shortest repair, and the work spent.

    ``best[i][j]`` is the minimum for ``text[i:j]``: the first bracket either gets an inserted
    partner (an opener's closer may go right after it: cost is subadditive) or, if an opener,
    is matched with a closer of its type at some ``k``.
    """
    n = len(text)
    best = [[0] * (n + 1) for _ in range(n + 1)]
    choice = [[-1] * (n + 1) for _ in range(n + 1)]
    work = 0
    for i in range(n - 1, -1, -1):
        closer = OPENERS.get(text[i])
        for j in range(i + 1, n + 1):
            value, pick = 1 + best[i + 1][j], -1
            if closer is not None:
                for k in range(i + 1, j):
                    work += 1
                    if text[k] == closer:
                        candidate = best[i + 1][k] + best[k + 1][j]
                        if candidate < value:
                            value, pick = candidate, k
            work += 1
            best[i][j], choice[i][j] = value, pick
    return best[0][n], _rebuild(text, choice, 0, n), work


def _rebuild(text: str, choice: list[list[int]], i: int, j: int) -> str:
    """The repair the DP chose, with an explicit stack (deep sequences need no recursion)."""
    out: list[str] = []
    todo: list[tuple[int, int] | str] = [(i, j)]  # intervals to repair, or text to emit
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        i, j = item
        if i >= j:
            continue
        ch, k = text[i], choice[i][j]
        if k >= 0:  # text[i] is matched with text[k]: opener, inside, closer, rest
            todo += [(k + 1, j), text[k], (i + 1, k), ch]
        else:  # text[i] gets an inserted partner right beside it
            todo += [(i + 1, j), ch + OPENERS[ch] if ch in OPENERS else CLOSERS[ch] + ch]
    return "".join(out)


def greedy_repair(text: str) -> str:
    """One pass with a stack: a closer that does not match gets its opener inserted before it."""
    out, stack = [], []
    for ch in text:
        if ch in OPENERS:
            stack.append(OPENERS[ch])
            out.append(ch)
        elif stack and stack[-1] == ch:
            stack.pop()
            out.append(ch)
        else:
            out.append(CLOSERS[ch] + ch)
    return "".join(out) + "".join(reversed(stack))


def canonical(text: str) -> str:
    """Bracket types renumbered by first appearance."""
    order: dict[str, int] = {}
    out = []
    for ch in text:
        pair = next(p for p in PAIRS if ch in p)
        index = order.setdefault(pair, len(order))
        out.append(PAIRS[index][pair.index(ch)])
    return "".join(out)


def damage(balanced: str, knobs: DyckKnobs, rng: np.random.Generator) -> str:
    """Remove a suffix (completion levels) or ``removed`` brackets anywhere."""
    if knobs.removed == 0:
        cut = int(rng.integers(-(-2 * len(balanced) // 3), len(balanced)))  # keep at least 2/3
        return balanced[:cut]
    keep = np.ones(len(balanced), dtype=bool)
    keep[rng.choice(len(balanced), size=knobs.removed, replace=False)] = False
    return "".join(ch for ch, k in zip(balanced, keep.tolist(), strict=True) if k)


COMPLETE_PROMPT = """Complete this bracket sequence by appending the fewest closing brackets at \
its end, so that every bracket is closed by a bracket of its own type in the right order \
(types: {types}):

{given}

Answer with the whole balanced sequence, or with only the brackets you append, inside \
<answer></answer> tags."""

REPAIR_PROMPT = """Make this bracket sequence balanced by inserting as few brackets as possible \
(anywhere; no bracket may be deleted or changed). Balanced: every bracket is closed by a \
bracket of its own type, in the right order (types: {types}).

{given}

Several shortest repairs may exist; any one is accepted. Answer with the whole repaired \
sequence inside <answer></answer> tags, for example (for the sequence "(]") <answer>()[]</answer>."""


@family(
    "dyck",
    domain="languages",
    knobs=DyckKnobs,
    levels=LEVELS,
    description="Complete or repair a bracket sequence (up to 4 types) with the fewest insertions; any shortest repair counts.",
    verifier_kind="constraint check (balanced, contains the given sequence, minimal length by DP)",
)
class Dyck(Family):
    def generate(self, knobs: DyckKnobs, rng: np.random.Generator) -> TaskDraft:
        while True:
            given = damage(random_balanced(knobs.pairs, knobs.types, rng), knobs, rng)
            minimum, repair, work = min_insertions(given)
            if minimum > 0:
                break
        if knobs.removed == 0:
            repair = greedy_repair(given)  # appending the closers is the one shortest completion
        types = ", ".join(PAIRS[: knobs.types])
        template = COMPLETE_PROMPT if knobs.removed == 0 else REPAIR_PROMPT
        metadata = {
            "given": given,
            "suffix_only": knobs.removed == 0,
            "min_insertions": minimum,
            "dp_work": work,
            "canonical_hash": content_hash(canonical(given)),
        }
        return TaskDraft(template.format(types=types, given=given), repair, metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=MAX_ANSWER_CHARS)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        text = "".join(extraction.text.split()).strip("`\"'")
        if not text or any(ch not in OPENERS and ch not in CLOSERS for ch in text):
            return Verdict.bad_format("the answer must be a sequence of brackets only")
        given, minimum = task.metadata["given"], task.metadata["min_insertions"]
        if task.metadata["suffix_only"] and not text.startswith(given):
            text = given + text  # only the appended brackets were given
        if not is_balanced(text):
            return Verdict.wrong("the sequence is not balanced", parsed=text)
        if task.metadata["suffix_only"] and not text.startswith(given):
            return Verdict.wrong("brackets may only be appended at the end", parsed=text)
        if not is_subsequence(given, text):
            return Verdict.wrong("the given brackets must all stay, in order (insertions only)", parsed=text)
        inserted = len(text) - len(given)
        if inserted != minimum:
            return Verdict.wrong(f"{inserted} brackets inserted; fewer suffice", parsed=text)
        return Verdict.right(parsed=text)

    def solve_exact(self, task: Task) -> SolverRun:
        """Interval DP over every substring (effort = split points examined)."""
        given = task.metadata["given"]
        _, repair, work = min_insertions(given)
        if task.metadata["suffix_only"]:
            repair = greedy_repair(given)
        return SolverRun(f"<answer>{repair}</answer>", float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """One left-to-right stack pass: optimal for completions, greedy for repairs."""
        given = task.metadata["given"]
        return SolverRun(f"<answer>{greedy_repair(given)}</answer>", float(len(given)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        given, answer = task.metadata["given"], task.answer
        wrong = {
            answer[:-1],  # one bracket short
            answer + "()",  # balanced but longer than needed
            greedy_repair(given) + "[]",
            answer.replace(")", "]", 1) if ")" in answer else answer.replace("(", "[", 1),
        }
        if not task.metadata["suffix_only"]:
            wrong.add("()" * (len(answer) // 2))  # balanced, right length, loses the given brackets
        wrong.discard(answer)
        return [f"<answer>{w}</answer>" for w in sorted(wrong) if w]
