"""Cryptarithms (SEND + MORE = MONEY): letters stand for distinct digits, find them.

The generator draws real addends, writes their digits as letters, and keeps the puzzle only if a
column-wise backtracking solver (right to left, with carries) proves exactly one solution.
The verifier checks the submitted letter -> digit map against the puzzle's constraints (all
letters, distinct digits, no leading zero, the sum holds), which for a unique puzzle is the same
as matching the reference. Uniqueness is cross-checked with z3 in the tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import permutations

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.arithmetic._common import extract
from palaestra.registry import Family, SolverRun, TaskDraft, family

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_PAIR = re.compile(r"([A-Za-z])\s*(?:=|:|->|→|is)\s*(\d+)")
_SEPARATORS = re.compile(r"^[\s,;.&]*(?:and[\s,;.]*)?$", re.IGNORECASE)
WEAK_BUDGET = 5_000


@dataclass(frozen=True)
class CryptarithmKnobs(Knobs):
    addends: int = knob(2, low=2, high=5, help="number of words added together")
    length: int = knob(3, low=2, high=8, help="letters in each addend (the first may be one shorter)")
    digit_pool: int = knob(4, low=2, high=10, help="addend digits come from this many distinct digits")
    min_letters: int = knob(3, low=2, high=10, help="at least this many distinct letters")


LEVELS = {
    1: CryptarithmKnobs(addends=2, length=3, digit_pool=3, min_letters=3),
    2: CryptarithmKnobs(addends=2, length=4, digit_pool=4, min_letters=5),
    3: CryptarithmKnobs(addends=2, length=5, digit_pool=5, min_letters=6),
    4: CryptarithmKnobs(addends=3, length=4, digit_pool=5, min_letters=6),
    5: CryptarithmKnobs(addends=2, length=6, digit_pool=6, min_letters=7),
    6: CryptarithmKnobs(addends=2, length=7, digit_pool=7, min_letters=8),
    7: CryptarithmKnobs(addends=3, length=5, digit_pool=6, min_letters=7),
    8: CryptarithmKnobs(addends=3, length=6, digit_pool=7, min_letters=8),
    9: CryptarithmKnobs(addends=3, length=7, digit_pool=8, min_letters=9),
    10: CryptarithmKnobs(addends=4, length=6, digit_pool=7, min_letters=9),
}


# --------------------------------------------------------------------------------------------
# Column-wise solver
# --------------------------------------------------------------------------------------------


@dataclass
class Solution:
    count: int
    nodes: int
    first: dict[str, int] | None


def solve(addends: list[str], result: str, limit: int = 2) -> Solution:
    """Count solutions (up to ``limit``) by assigning letters column by column with carries.

    Letters are numbered and their digits kept in a list (not a dict keyed by letter); the search
    order, and so the node count and the first solution, are those of the plain version."""
    width = len(result)
    if any(len(w) > width for w in addends):
        return Solution(0, 0, None)
    letters = list(dict.fromkeys("".join([*addends, result])))
    number = {letter: i for i, letter in enumerate(letters)}
    columns = [[number[w[-1 - c]] for w in addends if c < len(w)] for c in range(width)]
    distinct = [list(dict.fromkeys(col)) for col in columns]  # each column's letters, once, in order
    below = [number[result[-1 - c]] for c in range(width)]  # the result's letter under column c
    leading = [False] * len(letters)
    for word in [*addends, result]:
        if len(word) > 1:
            leading[number[word[0]]] = True
    value = [-1] * len(letters)  # -1: not assigned yet
    used = [False] * 10
    path: list[int] = []  # letters in the order they were assigned (the first solution's order)
    state = Solution(0, 0, None)

    def column(c: int, carry: int) -> None:
        if state.count >= limit:
            return
        if c == width:
            if carry == 0:
                state.count += 1
                if state.first is None:
                    state.first = {letters[i]: value[i] for i in path}
            return
        fill(c, carry, [i for i in distinct[c] if value[i] < 0], 0)

    def fill(c: int, carry: int, free: list[int], k: int) -> None:
        # (assignments are written out inline: this is the hot loop of generation)
        if k < len(free):
            letter = free[k]
            path.append(letter)
            for digit in range(1 if leading[letter] else 0, 10):
                if not used[digit]:
                    state.nodes += 1
                    value[letter], used[digit] = digit, True
                    fill(c, carry, free, k + 1)
                    used[digit] = False
            value[letter] = -1
            path.pop()
            return
        total = carry
        for letter in columns[c]:
            total += value[letter]
        digit, letter = total % 10, below[c]
        if value[letter] >= 0:
            if value[letter] == digit:
                column(c + 1, total // 10)
        elif not used[digit] and not (digit == 0 and leading[letter]):
            state.nodes += 1
            value[letter], used[digit] = digit, True
            path.append(letter)
            column(c + 1, total // 10)
            path.pop()
            value[letter], used[digit] = -1, False

    column(0, 0)
    return state


def check(addends: list[str], result: str, mapping: dict[str, int]) -> str | None:
    """Why ``mapping`` does not solve the puzzle, or ``None`` if it does."""
    letters = set("".join([*addends, result]))
    missing, extra = sorted(letters - set(mapping)), sorted(set(mapping) - letters)
    if missing:
        return f"no digit given for {', '.join(missing)}"
    if extra:
        return f"{', '.join(extra)} do not occur in the puzzle"
    if len(set(mapping.values())) != len(mapping):
        return "two letters share a digit"
    if any(not 0 <= d <= 9 for d in mapping.values()):
        return "every letter must be a single digit"
    if any(len(w) > 1 and mapping[w[0]] == 0 for w in [*addends, result]):
        return "a word starts with 0"

    def value(word: str) -> int:
        return int("".join(str(mapping[ch]) for ch in word))

    if sum(value(w) for w in addends) != value(result):
        return f"{' + '.join(str(value(w)) for w in addends)} != {value(result)}"
    return None


def parse_mapping(text: str) -> dict[str, int] | str:
    """``S=9, E=5, N=6`` -> {"S": 9, ...}; a string says why the text could not be read."""
    mapping: dict[str, int] = {}
    pos = 0
    for match in _PAIR.finditer(text):
        if not _SEPARATORS.match(text[pos : match.start()]):
            return f"unexpected text {text[pos : match.start()][:30]!r}"
        if len(match.group(2)) > 1:  # a digit is one character; int() raises on 4,300+ digits
            return f"{match.group(1)}: {match.group(2)[:12]!r} is not a single digit"
        letter, digit = match.group(1).upper(), int(match.group(2))
        if letter in mapping and mapping[letter] != digit:
            return f"{letter} is given two different digits"
        mapping[letter] = digit
        pos = match.end()
    if not mapping:
        return "no LETTER=DIGIT pairs found"
    if not _SEPARATORS.match(text[pos:]):
        return f"unexpected text {text[pos:][:30]!r}"
    return mapping


def format_mapping(mapping: dict[str, int]) -> str:
    return ", ".join(f"{letter}={mapping[letter]}" for letter in sorted(mapping))


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def _draw_number(rng: np.random.Generator, digits: int, pool: list[int]) -> int:
    # digits repeat within a small pool: repeated letters are what make a solution unique
    first = [d for d in pool if d] or [1]
    text = str(first[int(rng.integers(len(first)))])
    text += "".join(str(pool[int(i)]) for i in rng.integers(len(pool), size=digits - 1))
    return int(text)


def draw(knobs: CryptarithmKnobs, rng: np.random.Generator) -> tuple[list[str], str, dict[str, int], int]:
    for _ in range(5_000):
        lengths = [knobs.length] * knobs.addends
        if knobs.length > 2 and rng.random() < 0.3:
            lengths[0] -= 1
        pool = sorted(int(d) for d in rng.choice(10, size=knobs.digit_pool, replace=False))
        numbers = [_draw_number(rng, n, pool) for n in lengths]
        total = sum(numbers)
        digits = sorted(set("".join(str(n) for n in [*numbers, total])))
        if len(digits) < knobs.min_letters:
            continue
        letters = [str(x) for x in rng.choice(list(LETTERS), size=len(digits), replace=False)]
        code = dict(zip(digits, letters, strict=True))
        addends = ["".join(code[d] for d in str(n)) for n in numbers]
        result = "".join(code[d] for d in str(total))
        solution = solve(addends, result)
        if solution.count == 1:
            return addends, result, {code[d]: int(d) for d in digits}, solution.nodes
    raise RuntimeError(f"could not draw a cryptarithm with a unique solution for {knobs}")


def canonical_form(addends: list[str], result: str) -> list[str]:
    """Letters renamed by first appearance, minimised over addend orders: equal under relabelling."""
    best: list[str] | None = None
    for order in permutations(addends):
        names: dict[str, str] = {}
        for ch in "".join([*order, result]):
            names.setdefault(ch, LETTERS[len(names)])
        form = ["".join(names[ch] for ch in w) for w in [*order, result]]
        best = form if best is None or form < best else best
    assert best is not None
    return best


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


PROMPT = """Solve the cryptarithm. Each letter stands for a different digit (0-9), equal letters \
for equal digits, and no word starts with 0 (unless it is a single letter):

{puzzle}

The solution is unique. Give the digit of every letter, for example \
<answer>A=1, B=7, C=0</answer>."""


def _layout(addends: list[str], result: str) -> str:
    width = len(result) + 2
    lines = [w.rjust(width) for w in addends[:-1]] + ["+ " + addends[-1].rjust(width - 2)]
    return "\n".join([*lines, "-" * width, result.rjust(width)]) + f"\n\n({' + '.join(addends)} = {result})"


@family(
    "cryptarithm",
    domain="arithmetic",
    knobs=CryptarithmKnobs,
    levels=LEVELS,
    description="Letter-substitution addition puzzles (SEND + MORE = MONEY) with a proven unique solution.",
    verifier_kind="constraint check (unique solution)",
)
class Cryptarithm(Family):
    def generate(self, knobs: CryptarithmKnobs, rng: np.random.Generator) -> TaskDraft:
        addends, result, mapping, nodes = draw(knobs, rng)
        metadata = {
            "addends": addends,
            "result": result,
            "letters": len(mapping),
            "solutions": 1,
            "search_nodes": nodes,
            "canonical_hash": content_hash(canonical_form(addends, result)),
        }
        return TaskDraft(
            prompt=PROMPT.format(puzzle=_layout(addends, result)),
            answer=format_mapping(mapping),
            metadata=metadata,
        )

    def verify(self, task: Task, response: str) -> Verdict:
        text = extract(response)
        if isinstance(text, Verdict):
            return text
        mapping = parse_mapping(text)
        if isinstance(mapping, str):
            return Verdict.bad_format(mapping)
        problem = check(task.metadata["addends"], task.metadata["result"], mapping)
        if problem:
            return Verdict.wrong(problem, parsed=mapping)
        return Verdict.right(parsed=mapping)

    def solve_exact(self, task: Task) -> SolverRun:
        solution = solve(task.metadata["addends"], task.metadata["result"], limit=1)
        assert solution.first is not None
        return SolverRun(
            response=f"<answer>{format_mapping(solution.first)}</answer>", effort=float(solution.nodes)
        )

    def solve_weak(self, task: Task) -> SolverRun:
        # plain generate-and-test over digit permutations (no column reasoning), small budget
        addends, result = task.metadata["addends"], task.metadata["result"]
        letters = sorted(set("".join([*addends, result])))
        tried = 0
        for digits in permutations(range(10), len(letters)):
            tried += 1
            if tried > WEAK_BUDGET:
                return SolverRun(response=None, effort=float(tried))
            mapping = dict(zip(letters, digits, strict=True))
            if check(addends, result, mapping) is None:
                return SolverRun(response=f"<answer>{format_mapping(mapping)}</answer>", effort=float(tried))
        return SolverRun(response=None, effort=float(tried))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        mapping = parse_mapping(task.answer)
        assert isinstance(mapping, dict)
        letters = sorted(mapping)
        a, b = letters[0], letters[1]
        swapped = {**mapping, a: mapping[b], b: mapping[a]}
        unused = [d for d in range(10) if d not in mapping.values()]
        changed = {**mapping, a: unused[0]} if unused else {**mapping, a: mapping[b]}
        shared = {**mapping, a: mapping[b]}
        missing = {k: v for k, v in mapping.items() if k != letters[-1]}
        return [f"<answer>{format_mapping(m)}</answer>" for m in (swapped, changed, shared, missing)]
