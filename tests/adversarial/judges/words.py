"""Word ladders replayed against the family's word list (data, not its verifier), shortest
length by our own breadth-first search."""

from __future__ import annotations

import re
from collections import deque
from functools import lru_cache

from palaestra.core import Task
from palaestra.generators.words.wordlist import dictionary, is_word

from ._registry import judge


@lru_cache(maxsize=64)
def _ladder_distance(start: str, target: str) -> int | None:
    words = set(dictionary(len(start)))
    seen, queue = {start: 0}, deque([start])
    while queue:
        word = queue.popleft()
        if word == target:
            return seen[word]
        for i in range(len(word)):
            for letter in "abcdefghijklmnopqrstuvwxyz":
                nxt = word[:i] + letter + word[i + 1 :]
                if nxt in words and nxt not in seen:
                    seen[nxt] = seen[word] + 1
                    queue.append(nxt)
    return None


@judge("word_ladder")
def _word_ladder(task: Task, text: str) -> bool:
    words = [w.strip() for w in re.split(r"->", text.strip())]
    start, target = task.metadata["start"], task.metadata["target"]
    if words[0] != start or words[-1] != target or not all(is_word(w) for w in words):
        return False
    for a, b in zip(words, words[1:], strict=False):
        if len(a) != len(b) or sum(x != y for x, y in zip(a, b, strict=True)) != 1:
            return False
    return len(words) - 1 == _ladder_distance(start, target)
