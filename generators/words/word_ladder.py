"""Word ladder: change one word into another one letter at a time, in as few steps as possible.

Every step changes exactly one letter and must give an English word. The start is a common
word (SCOWL sizes 10-20, ``data/SOURCE.md``), the target a word an educated reader knows
(SCOWL up to size 35); the steps may be any word of the 63,414-word dictionary (SCOWL up to
size 50). The shortest length is proven by breadth-first search over the whole dictionary's
one-letter graph, and a pair is kept only when a ladder of that length exists through known
words (SCOWL up to size 35), so the optimum never needs an obscure word. Any ladder of the
shortest length through dictionary words is accepted; a longer valid ladder is wrong.

Difficulty: the word length (3 to 5 letters) and the shortest distance (2 steps at level 1 to
10-12 at level 10). The weak solver walks greedily towards the target (the neighbour with most
letters in place, no backtracking); the exact solver's effort is the words its breadth-first
search expands. A pair and its reverse are duplicates; a start with fewer than 20 targets is
kept with probability (targets / 20), which brings pairs close to uniform (duplicates under 1%
at levels 3-10, where common targets alone gave 2-3%). Generation (CPU time, mean over 30
seeds): ~500 tasks per second at level 1, ~120 at level 5, ~140 at level 10 (two breadth-first
searches over up to 4,480 words per drawn start).
"""

from __future__ import annotations

import functools
import re
from collections import deque
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

from .wordlist import common_words, dictionary, is_word, known_words

MAX_STEPS = 60
TARGETS_PER_START = 20
_SEPARATORS = re.compile(r"\s*(?:->|→|=>|,|;|\s)\s*")


@dataclass(frozen=True)
class WordLadderKnobs(Knobs):
    min_length: int = knob(3, low=3, high=6, help="shortest word length")
    max_length: int = knob(3, low=3, high=6, help="longest word length")
    min_steps: int = knob(2, low=1, high=20, help="fewest steps of the shortest ladder")
    max_steps: int = knob(3, low=1, high=20, help="most steps of the shortest ladder")

    def validate(self) -> None:
        if self.min_length > self.max_length or self.min_steps > self.max_steps:
            raise ValueError("min_length/min_steps must not exceed max_length/max_steps")


LEVELS = {
    1: WordLadderKnobs(min_length=3, max_length=3, min_steps=2, max_steps=3),
    2: WordLadderKnobs(min_length=4, max_length=4, min_steps=3, max_steps=3),
    3: WordLadderKnobs(min_length=4, max_length=5, min_steps=3, max_steps=4),
    4: WordLadderKnobs(min_length=4, max_length=5, min_steps=4, max_steps=5),
    5: WordLadderKnobs(min_length=4, max_length=5, min_steps=5, max_steps=6),
    6: WordLadderKnobs(min_length=4, max_length=5, min_steps=6, max_steps=7),
    7: WordLadderKnobs(min_length=4, max_length=5, min_steps=7, max_steps=8),
    8: WordLadderKnobs(min_length=5, max_length=5, min_steps=8, max_steps=9),
    9: WordLadderKnobs(min_length=5, max_length=5, min_steps=9, max_steps=10),
    10: WordLadderKnobs(min_length=5, max_length=5, min_steps=10, max_steps=12),
}


@functools.cache
def neighbours(length: int, known_only: bool) -> dict[str, tuple[str, ...]]:
    """The one-letter graph over dictionary (or known) words of ``length`` letters, sorted."""
    words = known_words(length) if known_only else dictionary(length)
    buckets: dict[str, list[str]] = {}
    for word in words:
        for i in range(length):
            buckets.setdefault(word[:i] + "_" + word[i + 1 :], []).append(word)
    graph: dict[str, set[str]] = {w: set() for w in words}
    for group in buckets.values():
        for word in group:
            graph[word].update(group)
    return {w: tuple(sorted(graph[w] - {w})) for w in words}


def bfs(
    graph: dict[str, tuple[str, ...]], start: str, goal: str | None = None
) -> tuple[dict[str, str], dict[str, int], int]:
    """Parent and distance of every word reached from ``start`` (stopping once ``goal`` is
    expanded), and the number of words expanded."""
    parent, dist, queue, expanded = {start: start}, {start: 0}, deque([start]), 0
    while queue:
        word = queue.popleft()
        expanded += 1
        if word == goal:
            break
        for nxt in graph[word]:
            if nxt not in parent:
                parent[nxt], dist[nxt] = word, dist[word] + 1
                queue.append(nxt)
    return parent, dist, expanded


def path(parent: dict[str, str], goal: str) -> list[str]:
    out = [goal]
    while parent[out[-1]] != out[-1]:
        out.append(parent[out[-1]])
    return out[::-1]


def most_common_ladder(start: str, target: str, from_start: dict[str, int]) -> list[str]:
    """A shortest ladder through known words with as many common words as possible (ties:
    alphabetical), by dynamic programming over the words on shortest ladders."""
    graph = neighbours(len(start), True)
    _, from_target, _ = bfs(graph, target)
    steps = from_start[target]
    common = set(common_words(len(start)))
    best: dict[str, tuple[int, list[str]]] = {target: (0, [target])}
    layer = [target]
    for depth in range(steps - 1, -1, -1):
        nodes = sorted(
            {
                w
                for v in layer
                for w in graph[v]
                if from_start.get(w) == depth and from_target.get(w) == steps - depth
            }
        )
        for w in nodes:
            options = [best[v] for v in graph[w] if v in best and from_start.get(v) == depth + 1]
            score, rest = max(options, key=lambda o: (o[0], [-ord(c) for c in "".join(o[1])]))
            best[w] = (score + (w in common), [w, *rest])
        layer = nodes
    return best[start][1]


def one_letter_apart(a: str, b: str) -> bool:
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 1


def read_ladder(text: str) -> list[str] | None:
    if len(text) > 20 * MAX_STEPS:
        return None
    words = [w.lower() for w in _SEPARATORS.split(text.strip().strip("[]().")) if w]
    if not 2 <= len(words) <= MAX_STEPS + 1 or not all(w.isascii() and w.isalpha() for w in words):
        return None
    return words


PROMPT = """Word ladder: change "{start}" into "{target}" one letter at a time. Each step \
changes exactly one letter (letters stay in place; no adding or removing letters), and every \
word along the way must be an English word (no proper nouns or abbreviations). Use as few \
steps as possible: any shortest ladder is accepted.

Answer with the whole ladder from {start} to {target}, words separated by ->, for example \
<answer>cold -> cord -> card -> ward -> warm</answer> for a ladder from cold to warm."""


@family(
    "word_ladder",
    domain="words",
    knobs=WordLadderKnobs,
    levels=LEVELS,
    description="Change one English word into another one letter at a time in the fewest steps; any shortest ladder counts.",
    verifier_kind="constraint check (one-letter steps through dictionary words, shortest length proven by BFS)",
)
class WordLadder(Family):
    def generate(self, knobs: WordLadderKnobs, rng: np.random.Generator) -> TaskDraft:
        while True:
            length = int(rng.integers(knobs.min_length, knobs.max_length + 1))
            pool = common_words(length)
            start = pool[int(rng.integers(len(pool)))]
            _, full, _ = bfs(neighbours(length, False), start)
            _, known, _ = bfs(neighbours(length, True), start)
            targets = [
                w
                for w in known_words(length)
                if knobs.min_steps <= full.get(w, -1) <= knobs.max_steps
                and known.get(w) == full[w]
                and {start, w} != {"cold", "warm"}  # the prompt's example
            ]
            # A start with few targets is kept only with probability len/TARGETS_PER_START, so
            # that its pairs are not drawn far more often than a well-connected start's.
            if targets and rng.random() * TARGETS_PER_START < len(targets):
                break
        target = targets[int(rng.integers(len(targets)))]
        ladder = most_common_ladder(start, target, known)
        metadata = {
            "start": start,
            "target": target,
            "steps": len(ladder) - 1,
            "canonical_hash": content_hash(sorted([start, target])),
        }
        return TaskDraft(PROMPT.format(start=start, target=target), " -> ".join(ladder), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=20 * MAX_STEPS)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        ladder = read_ladder(extraction.text)
        if ladder is None:
            return Verdict.bad_format("answer with the ladder's words separated by ->")
        start, target, steps = task.metadata["start"], task.metadata["target"], task.metadata["steps"]
        if ladder[0] != start or ladder[-1] != target:
            return Verdict.wrong(f"the ladder must start with {start} and end with {target}", parsed=ladder)
        for a, b in zip(ladder, ladder[1:], strict=False):
            if not one_letter_apart(a, b):
                return Verdict.wrong(f"{a} -> {b} does not change exactly one letter", parsed=ladder)
        unknown = next((w for w in ladder[1:-1] if not is_word(w)), None)
        if unknown is not None:
            return Verdict.wrong(f"{unknown} is not in the dictionary", parsed=ladder)
        if len(ladder) - 1 != steps:
            return Verdict.wrong(
                f"a valid ladder of {len(ladder) - 1} steps, but a shorter one exists", parsed=ladder
            )
        return Verdict.right(parsed=ladder)

    def solve_exact(self, task: Task) -> SolverRun:
        """Breadth-first search over the dictionary's one-letter graph (effort = words expanded)."""
        start, target = task.metadata["start"], task.metadata["target"]
        parent, _, expanded = bfs(neighbours(len(start), False), start, target)
        return SolverRun(f"<answer>{' -> '.join(path(parent, target))}</answer>", float(expanded))

    def solve_weak(self, task: Task) -> SolverRun:
        """Greedy: always step to the known word with most letters already as in the target."""
        start, target = task.metadata["start"], task.metadata["target"]
        graph = neighbours(len(start), True)
        ladder = [start]
        while ladder[-1] != target and len(ladder) <= 2 * task.metadata["steps"]:
            options = [w for w in graph[ladder[-1]] if w not in ladder]
            if not options:
                break
            ladder.append(min(options, key=lambda w: sum(x != y for x, y in zip(w, target, strict=True))))
        return SolverRun(f"<answer>{' -> '.join(ladder)}</answer>", float(len(ladder)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        ladder = task.answer.split(" -> ")
        start = ladder[0]
        detour = next((w for w in neighbours(len(start), False)[start] if w not in ladder), None)
        wrong = [
            ladder[:1] + ladder[2:],  # a step skipped: two letters change at once
            ladder[::-1],  # from the target to the start
            ladder[:-1],  # stops short of the target
            [start, detour, start, *ladder[1:]] if detour else ladder + ladder[-2:],  # longer
        ]
        texts = {" -> ".join(w) for w in wrong if w} - {task.answer}
        return [f"<answer>{t}</answer>" for t in sorted(texts)]
