"""Fill a small crossword grid from a word bank; the fill is proven unique.

The prompt shows an ``n x n`` grid with black squares (``#``) and a bank of common English
words (SCOWL sizes 10-20, ``data/SOURCE.md``). Every run of 3 or more white squares (across,
left to right; down, top to bottom) is a slot; the answer fills every slot with a bank word,
each bank word used at most once, so that crossing slots agree. Grids have no 2-square runs,
every white square lies in a slot and the white squares are connected.

What is proven: the generator fills the grid with distinct common words, adds distractors, and
an exact counter (backtracking over slots, fewest candidates first) counts the fills that use
the bank, stopping at 2; a grid with another fill is rejected, so exactly one fill exists. The
verifier checks the constraints themselves (black squares in place, every slot a bank word,
no bank word twice), which given uniqueness accepts exactly the reference grid.

Difficulty: grid size (4x4 at level 1 to 7x7 at level 10), black squares, and distractor words
in the bank (0 to 14; each distractor agrees with a real slot's word in its first letter, so a
first-fit filler takes it). The weak solver (greedy first-fit) fills slots in reading order
with the first bank word that fits, never backtracking (its solve rate is ~15% at level 1 and
~0 from level 4); the exact solver's effort is search nodes. A task that is
the transpose (or any of the square's symmetries) of another with the same bank is a duplicate
(canonical hash over the 8 symmetries of the filled grid, plus the bank). Generation: ~150
tasks per second at level 5 (a random fill by backtracking, then the uniqueness count).
"""

from __future__ import annotations

import functools
from collections import deque
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import square_maps
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.constraints import read_grid
from palaestra.verifiers.extract import extract_answer

from .wordlist import common_words

BLACK = "#"
MIN_SLOT = 3
MAX_ANSWER_CHARS = 2000
FILL_NODE_CAP = 400
MAX_ATTEMPTS = 5000  # attempts at a unique fill before the knobs are declared infeasible
_CELLS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" + BLACK)

Slot = tuple[int, ...]  # the cells (r * n + c) of one run, in reading order


@dataclass(frozen=True)
class CrosswordKnobs(Knobs):
    size: int = knob(4, low=4, high=7, help="grid side")
    blacks: int = knob(4, low=0, high=30, help="black squares")
    distractors: int = knob(0, low=0, high=30, help="bank words that belong to no slot")

    def validate(self) -> None:
        if self.blacks >= self.size * self.size // 2:
            raise ValueError("blacks must be under half the grid")


LEVELS = {
    1: CrosswordKnobs(size=4, blacks=4, distractors=0),
    2: CrosswordKnobs(size=4, blacks=4, distractors=2),
    3: CrosswordKnobs(size=5, blacks=8, distractors=2),
    4: CrosswordKnobs(size=5, blacks=6, distractors=4),
    5: CrosswordKnobs(size=5, blacks=6, distractors=6),
    6: CrosswordKnobs(size=6, blacks=12, distractors=6),
    7: CrosswordKnobs(size=6, blacks=10, distractors=8),
    8: CrosswordKnobs(size=6, blacks=10, distractors=10),
    9: CrosswordKnobs(size=7, blacks=16, distractors=12),
    10: CrosswordKnobs(size=7, blacks=14, distractors=14),
}


# ------------------------------------------------------------------ grid shape


def slots_of(pattern: list[str]) -> list[Slot]:
    """Across slots in reading order, then down slots; each a run of MIN_SLOT+ white cells."""
    n = len(pattern)
    slots: list[Slot] = []
    for lines in (
        [[r * n + c for c in range(n)] for r in range(n)],
        [[r * n + c for r in range(n)] for c in range(n)],
    ):
        for line in lines:
            run: list[int] = []
            for cell in [*line, -1]:
                if cell >= 0 and pattern[cell // n][cell % n] != BLACK:
                    run.append(cell)
                    continue
                if len(run) >= MIN_SLOT:
                    slots.append(tuple(run))
                run = []
    return slots


def valid_pattern(pattern: list[str]) -> bool:
    """No 2-square runs, every white square in a slot, white squares connected."""
    n = len(pattern)
    white = {r * n + c for r in range(n) for c in range(n) if pattern[r][c] != BLACK}
    for line in [*pattern, *("".join(col) for col in zip(*pattern, strict=True))]:
        if any(len(run) == 2 for run in line.split(BLACK)):
            return False
    covered = {cell for slot in slots_of(pattern) for cell in slot}
    if not white or covered != white:
        return False
    start = min(white)
    seen, queue = {start}, deque([start])
    while queue:
        cell = queue.popleft()
        r, c = divmod(cell, n)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            nxt = rr * n + cc
            if 0 <= rr < n and 0 <= cc < n and nxt in white and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen == white


def random_pattern(n: int, blacks: int, rng: np.random.Generator) -> list[str] | None:
    """Blackens cells in random order, keeping each one that leaves the grid valid."""
    grid = [["."] * n for _ in range(n)]
    placed = 0
    for cell in rng.permutation(n * n):
        if placed == blacks:
            break
        r, c = divmod(int(cell), n)
        grid[r][c] = BLACK
        if valid_pattern(["".join(row) for row in grid]):
            placed += 1
        else:
            grid[r][c] = "."
    return ["".join(row) for row in grid] if placed == blacks else None


# ------------------------------------------------------------------ search


@functools.cache
def _index(length: int) -> dict[tuple[int, str], frozenset[str]]:
    """(position, letter) -> the common words of ``length`` letters with that letter there."""
    index: dict[tuple[int, str], set[str]] = {}
    for word in common_words(length):
        upper = word.upper()
        for i, ch in enumerate(upper):
            index.setdefault((i, ch), set()).add(upper)
    return {key: frozenset(words) for key, words in index.items()}


def _fits(word: str, slot: Slot, letters: dict[int, str]) -> bool:
    return all(letters.get(cell, ch) == ch for cell, ch in zip(slot, word, strict=True))


class _Filler:
    """Backtracking over slots (fewest candidates first) with each word used at most once."""

    def __init__(self, slots: list[Slot], words_of_length: dict[int, list[str]], limit: int):
        self.slots = slots
        self.words = words_of_length
        self.limit = limit  # stop after this many fills
        self.nodes = 0
        self.fills: list[dict[int, str]] = []

    def candidates(self, slot: Slot, letters: dict[int, str], used: set[str]) -> list[str]:
        return [w for w in self.words.get(len(slot), ()) if w not in used and _fits(w, slot, letters)]

    def count(self, slot: Slot, letters: dict[int, str], used: set[str]) -> int:
        return len(self.candidates(slot, letters, used))

    def run(self, letters: dict[int, str], open_slots: list[Slot], used: set[str], cap: int) -> None:
        self.nodes += 1
        if len(self.fills) >= self.limit or self.nodes > cap:
            return
        if not open_slots:
            self.fills.append(dict(letters))
            return
        slot = min(open_slots, key=lambda s: self.count(s, letters, used))
        rest = [s for s in open_slots if s != slot]
        for word in self.candidates(slot, letters, used):
            placed = [cell for cell in slot if cell not in letters]
            letters.update(zip(slot, word, strict=True))
            used.add(word)
            self.run(letters, rest, used, cap)
            used.discard(word)
            for cell in placed:
                del letters[cell]
            if len(self.fills) >= self.limit or self.nodes > cap:
                return


class _RandomFiller(_Filler):
    """Draws candidates from all common words through the letter index, in random order."""

    def __init__(self, slots: list[Slot], rng: np.random.Generator):
        super().__init__(slots, {}, limit=1)
        self.rng = rng

    def _pool(self, slot: Slot, letters: dict[int, str], used: set[str]) -> frozenset[str]:
        index = _index(len(slot))
        fixed = [index.get((i, letters[cell]), frozenset()) for i, cell in enumerate(slot) if cell in letters]
        return (frozenset.intersection(*fixed) if fixed else _all_upper(len(slot))) - used

    def count(self, slot: Slot, letters: dict[int, str], used: set[str]) -> int:
        return len(self._pool(slot, letters, used))

    def candidates(self, slot: Slot, letters: dict[int, str], used: set[str]) -> list[str]:
        pool = sorted(self._pool(slot, letters, used))
        return [pool[int(i)] for i in self.rng.permutation(len(pool))]


@functools.cache
def _all_upper(length: int) -> frozenset[str]:
    return frozenset(w.upper() for w in common_words(length))


def random_fill(slots: list[Slot], rng: np.random.Generator) -> dict[int, str] | None:
    """A fill of every slot with distinct common words, in random order (None past the cap)."""
    filler = _RandomFiller(slots, rng)
    filler.run({}, list(slots), set(), FILL_NODE_CAP)
    return filler.fills[0] if filler.fills else None


def count_fills(pattern: list[str], bank: list[str], limit: int = 2) -> tuple[list[dict[int, str]], int]:
    """Up to ``limit`` fills of the grid from ``bank``, and the search nodes visited."""
    by_length: dict[int, list[str]] = {}
    for word in sorted(bank):
        by_length.setdefault(len(word), []).append(word)
    filler = _Filler(slots_of(pattern), by_length, limit)
    filler.run({}, list(filler.slots), set(), 10**9)
    return filler.fills, filler.nodes


def render(pattern: list[str], letters: dict[int, str]) -> str:
    n = len(pattern)
    return "\n".join(
        "".join(BLACK if pattern[r][c] == BLACK else letters.get(r * n + c, "X") for c in range(n))
        for r in range(n)
    )


def canonical_hash(pattern: list[str], solution: str, bank: list[str]) -> str:
    """Least form of the filled grid under the square's 8 symmetries, with the sorted bank."""
    flat = solution.replace("\n", "")
    n = len(pattern)
    forms = []
    for m in square_maps(n):
        out = [""] * (n * n)
        for cell, ch in enumerate(flat):
            out[m[cell]] = ch
        forms.append("".join(out))
    return content_hash([min(forms), sorted(bank)])


# ------------------------------------------------------------------ generation


def _distractors(
    slots: list[Slot], letters: dict[int, str], count: int, rng: np.random.Generator, taken: set[str]
) -> list[str]:
    """Common words that start like a real slot's word (so a first-fit filler may take them)."""
    found: list[str] = []
    for _ in range(count * 20):
        if len(found) == count:
            break
        slot = slots[int(rng.integers(len(slots)))]
        pool = sorted(_index(len(slot)).get((0, letters[slot[0]]), frozenset()) - taken)
        if pool:
            word = pool[int(rng.integers(len(pool)))]
            taken.add(word)
            found.append(word)
    return found


def _attempt(knobs: CrosswordKnobs, rng: np.random.Generator) -> tuple[list[str], str, list[str]] | None:
    pattern = random_pattern(knobs.size, knobs.blacks, rng)
    if pattern is None:
        return None
    slots = slots_of(pattern)
    letters = random_fill(slots, rng)
    if letters is None:
        return None
    words = ["".join(letters[c] for c in slot) for slot in slots]
    bank = words + _distractors(slots, letters, knobs.distractors, rng, set(words))
    if len(bank) != len(words) + knobs.distractors:
        return None
    fills, _ = count_fills(pattern, bank)
    if len(fills) != 1:
        return None
    return pattern, render(pattern, letters), sorted(bank)


PROMPT = """Fill this {n}x{n} crossword grid. '#' is a black square; '.' is a white square that \
holds one letter.

{grid}

Every horizontal or vertical run of 3 or more white squares is a word, read left to right or \
top to bottom. Fill every run with a word from the bank below; each bank word may be used at \
most once{leftover}. Crossing words must agree on their shared letter. Exactly one fill works.

Word bank ({count} words):
{bank}

Answer with the filled grid, one row per line ({n} characters each: letters, and '#' for the \
black squares), inside <answer></answer> tags."""


def _bank_lines(bank: list[str]) -> str:
    lengths = sorted({len(w) for w in bank})
    return "\n".join(f"{k} letters: {', '.join(w for w in bank if len(w) == k)}" for k in lengths)


def _unpack(task: Task) -> tuple[list[str], list[str]]:
    return list(task.metadata["pattern"]), list(task.metadata["bank"])


def check_fill(pattern: list[str], bank: list[str], grid: list[list[str]]) -> str:
    """Why ``grid`` (upper-case cells) breaks the puzzle's rules, or "" when it is a valid fill."""
    n = len(pattern)
    for r in range(n):
        for c in range(n):
            is_black = grid[r][c] == BLACK
            if is_black != (pattern[r][c] == BLACK):
                want = "a black square '#'" if pattern[r][c] == BLACK else "a letter"
                return f"row {r + 1}, column {c + 1} must be {want}"
    flat = [ch for row in grid for ch in row]
    allowed, used = set(bank), set()
    for slot in slots_of(pattern):
        word = "".join(flat[cell] for cell in slot)
        if word not in allowed:
            return f"{word} is not in the word bank"
        if word in used:
            return f"{word} is used twice"
        used.add(word)
    return ""


@family(
    "crossword_fill",
    domain="words",
    knobs=CrosswordKnobs,
    levels=LEVELS,
    description="Fill a small crossword grid from a word bank of common words; the fill is proven unique.",
    verifier_kind="exact (bank words in every slot, crossings agree; unique fill proven by a counter)",
)
class CrosswordFill(Family):
    def generate(self, knobs: CrosswordKnobs, rng: np.random.Generator) -> TaskDraft:
        made = None
        for _ in range(MAX_ATTEMPTS):
            if (made := _attempt(knobs, rng)) is not None:
                break
        if made is None:
            raise ValueError(f"no unique fill found for {knobs}: use more black squares or a smaller grid")
        pattern, solution, bank = made
        n = knobs.size
        prompt = PROMPT.format(
            n=n,
            grid="\n".join(" ".join(row) for row in pattern),
            leftover=", and some bank words are left over" if knobs.distractors else "",
            count=len(bank),
            bank=_bank_lines(bank),
        )
        metadata = {
            "pattern": pattern,
            "bank": bank,
            "canonical_hash": canonical_hash(pattern, solution, bank),
        }
        return TaskDraft(prompt, solution, metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        pattern, bank = _unpack(task)
        n = len(pattern)
        extraction = extract_answer(response, allow_bare=True, max_chars=MAX_ANSWER_CHARS)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        grid, error = read_grid(extraction.text, n, n, _CELLS, max_chars=MAX_ANSWER_CHARS)
        if grid is None:
            return Verdict.bad_format(error)
        upper = [[ch.upper() for ch in row] for row in grid]
        rows = ["".join(row) for row in upper]
        if reason := check_fill(pattern, bank, upper):
            return Verdict.wrong(reason, parsed=rows)
        return Verdict.right(parsed=rows)

    def solve_exact(self, task: Task) -> SolverRun:
        """Counts fills from the bank to 2 (effort = search nodes) and writes the one found."""
        pattern, bank = _unpack(task)
        fills, nodes = count_fills(pattern, bank)
        letters = fills[0] if fills else {}
        return SolverRun(f"<answer>\n{render(pattern, letters)}\n</answer>", float(nodes))

    def solve_weak(self, task: Task) -> SolverRun:
        """Greedy first-fit: fills slots in reading order (across, then down) with the first
        bank word that fits; never backtracks."""
        pattern, bank = _unpack(task)
        letters: dict[int, str] = {}
        used: set[str] = set()
        steps = 0
        for slot in slots_of(pattern):
            for word in bank:
                steps += 1
                if len(word) == len(slot) and word not in used and _fits(word, slot, letters):
                    letters.update(zip(slot, word, strict=True))
                    used.add(word)
                    break
        return SolverRun(f"<answer>\n{render(pattern, letters)}\n</answer>", float(steps))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        pattern, bank = _unpack(task)
        rows = task.answer.split("\n")
        n = len(rows)
        flat = list("".join(rows))
        white = [i for i, ch in enumerate(flat) if ch != BLACK]
        black = [i for i, ch in enumerate(flat) if ch == BLACK]
        wrong: list[list[str]] = []
        cell = white[int(rng.integers(len(white)))]
        changed = flat.copy()
        changed[cell] = "E" if flat[cell] != "E" else "A"
        wrong.append(changed)
        if black:
            filled = flat.copy()
            filled[black[0]] = "A"
            wrong.append(filled)
        blanked = flat.copy()
        blanked[white[-1]] = BLACK
        wrong.append(blanked)
        transposed = [flat[c * n + r] for r in range(n) for c in range(n)]
        wrong.append(transposed)
        slot = slots_of(pattern)[0]
        current = "".join(flat[c] for c in slot)
        other = next((w for w in bank if len(w) == len(slot) and w != current), None)
        if other is not None:
            swapped = flat.copy()
            for c, ch in zip(slot, other, strict=True):
                swapped[c] = ch
            wrong.append(swapped)
        texts = {"\n".join("".join(g[r * n : (r + 1) * n]) for r in range(n)) for g in wrong}
        return [f"<answer>\n{t}\n</answer>" for t in sorted(texts - {task.answer})]
