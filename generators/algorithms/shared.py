"""What the algorithms families share: integer answers, answer reading, random graphs and trees.

Most families of this domain ask for one integer (a count modulo a prime, an optimum, a vertex
number). They subclass :class:`IntegerFamily` and write only ``build``, which draws an instance
and solves it with an efficient algorithm; reading, grading, the reference solvers and the wrong
answers live here. Families whose answer is a structure (a matching, a path, a mapping) write
their own verifier on top of :func:`answer_text` and the readers below. Every reader is linear in
the capped answer length and never raises on model text; nothing here evaluates model text.
"""

from __future__ import annotations

import itertools
import re
from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from palaestra.core import Task, Verdict, content_hash
from palaestra.registry import Family, SolverRun, TaskDraft
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.numbers import read_integer

MAX_ANSWER_CHARS = 20_000  # the longest structure answer (an Euler circuit of 300 edges) fits
MAX_NUMBER_CHARS = 200  # an integer answer here has at most ~40 digits
WEAK_BUDGET = 60  # steps the weak solver spends by hand before it guesses or gives up

# Primes the counting families reduce by (modulus 0: the exact count is asked)
PRIMES = (97, 1009, 10007, 100003, 1000003, 10000019, 998244353, 1000000007)


@dataclass
class Instance:
    """One drawn problem: the question, its answer, and what the solvers and verifier need.

    ``work`` counts the steps of the efficient algorithm (the exact solver's effort); ``weak``
    is what the weak solver answers (a heuristic, or the exact answer when it is small enough to
    work out by hand), ``None`` when it gives up; ``data`` goes to the task's metadata and
    identifies the instance (its hash is the canonical key of the duplicate measure).
    """

    question: str
    answer: int
    work: int
    data: dict[str, Any]
    weak: int | None = None
    wrong: list[int] = field(default_factory=list)  # plausible wrong answers (near misses)


def answer_text(response: str, *, one_line: bool = False, labels: tuple[str, ...] = ()) -> str | Verdict:
    """The final answer of ``response`` (tags, box, answer line or the bare text), or the format verdict."""
    extraction = extract_answer(
        response, allow_bare=True, max_chars=MAX_ANSWER_CHARS, one_line=one_line, labels=labels
    )
    if not extraction.ok or extraction.text is None:
        return Verdict.bad_format(extraction.error or "no answer")
    return extraction.text


def read_answer_integer(response: str) -> int | Verdict:
    """The one integer a response answers (shared number reading: ``\\boxed{}``, ``1,234``, ``7.0``)."""
    text = answer_text(response, one_line=True)
    if isinstance(text, Verdict):
        return text
    return read_integer(text, max_chars=MAX_NUMBER_CHARS)


def tagged(text: object) -> str:
    """A model-style response carrying ``text`` as its final answer."""
    return f"<answer>{text}</answer>"


_INTEGER = re.compile(r"-?\d{1,9}")


def read_integers(text: str, limit: int = 2000) -> list[int] | None:
    """Integers separated by commas, spaces, arrows or semicolons; ``None`` for anything else."""
    parts = [p for p in re.split(r"\s*(?:,|;|->|→|\s)\s*", text.strip().strip("[](){}")) if p]
    if not parts or len(parts) > limit or not all(_INTEGER.fullmatch(p) for p in parts):
        return None
    return [int(p) for p in parts]


_PAIR = re.compile(r"\(\s*(\d{1,6})\s*,\s*(\d{1,6})\s*\)|(\d{1,6})\s*(?:->|→|-|–|:)\s*(\d{1,6})")
_SEPARATORS = re.compile(r"[\s,;]*")


def read_pairs(text: str, limit: int = 2000) -> list[tuple[int, int]] | None:
    """Pairs written ``(a, b)``, ``a-b``, ``a->b`` or ``a:b``, separated by commas, semicolons or lines;
    ``None`` when anything else is written between them."""
    pairs, position = [], 0
    for match in _PAIR.finditer(text):
        if not _SEPARATORS.fullmatch(text, position, match.start()) or len(pairs) >= limit:
            return None
        first, second = (match[1], match[2]) if match[1] is not None else (match[3], match[4])
        pairs.append((int(first), int(second)))
        position = match.end()
    if not pairs or not _SEPARATORS.fullmatch(text, position):
        return None
    return pairs


def modulus_clause(modulus: int) -> str:
    """How a counting question asks for its answer."""
    return f"Give the count modulo {modulus}" if modulus else "Give the exact count"


def reduce(value: int, modulus: int) -> int:
    return value % modulus if modulus else value


class IntegerFamily(Family):
    """A family whose answer is one integer; subclasses write ``build`` only."""

    what: ClassVar[str] = "the answer"
    example: ClassVar[str] = "17"

    @abstractmethod
    def build(self, knobs: Any, rng: np.random.Generator) -> Instance:
        """Draw an instance from ``rng`` and solve it with the efficient algorithm."""

    def generate(self, knobs: Any, rng: np.random.Generator) -> TaskDraft:
        instance = self.build(knobs, rng)
        prompt = (
            f"{instance.question}\n\nAnswer with {self.what} as one integer, for example "
            f"<answer>{self.example}</answer>."
        )
        metadata = {
            **instance.data,
            "work": instance.work,
            "weak_answer": None if instance.weak is None else str(instance.weak),
            "near_misses": [str(w) for w in instance.wrong if w != instance.answer][:4],
            "canonical_hash": content_hash([self.name, instance.data]),
        }
        return TaskDraft(prompt=prompt, answer=str(instance.answer), metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        value = read_answer_integer(response)
        if isinstance(value, Verdict):
            return value
        if str(value) == task.answer:
            return Verdict.right(parsed=value)
        return Verdict.wrong(f"{value} is not {self.what}", parsed=value)

    def solve_exact(self, task: Task) -> SolverRun:
        """The efficient algorithm ran at generation; its effort is the steps it took."""
        return SolverRun(tagged(task.answer), float(task.metadata["work"]) + 1)

    def solve_weak(self, task: Task) -> SolverRun:
        """Works small cases out by hand, otherwise answers the family's heuristic (or gives up)."""
        weak = task.metadata["weak_answer"]
        return SolverRun(
            None if weak is None else tagged(weak), float(min(task.metadata["work"], WEAK_BUDGET))
        )

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value = int(task.answer)
        wrong = {value + 1, value - 1, 2 * value + 3, *map(int, task.metadata["near_misses"])}
        modulus = task.metadata.get("modulus")
        if modulus:
            wrong.add(value + modulus)  # the right residue, not reduced
        return [tagged(w) for w in sorted(wrong - {value})]


# --------------------------------------------------------------------------------------------
# Random graphs and trees (all randomness from the caller's rng)
# --------------------------------------------------------------------------------------------


def random_tree(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    """A uniformly labelled random tree on nodes 0..n-1 (random attachment over a random order)."""
    order = [int(v) for v in rng.permutation(n)]
    edges = []
    for i in range(1, n):
        parent = order[int(rng.integers(i))]
        edges.append((min(parent, order[i]), max(parent, order[i])))
    return sorted(edges)


def random_connected_graph(rng: np.random.Generator, n: int, m: int) -> list[tuple[int, int]]:
    """A connected simple graph on 0..n-1 with ``m`` edges (at least n-1): a random tree plus extra edges."""
    edges = set(random_tree(rng, n))
    m = min(m, n * (n - 1) // 2)
    while len(edges) < m:
        a, b = (int(x) for x in rng.integers(0, n, size=2))
        if a != b:
            edges.add((min(a, b), max(a, b)))
    return sorted(edges)


def random_graph(rng: np.random.Generator, n: int, m: int) -> list[tuple[int, int]]:
    """A simple graph on 0..n-1 with ``m`` distinct random edges (not necessarily connected)."""
    edges: set[tuple[int, int]] = set()
    m = min(m, n * (n - 1) // 2)
    while len(edges) < m:
        a, b = (int(x) for x in rng.integers(0, n, size=2))
        if a != b:
            edges.add((min(a, b), max(a, b)))
    return sorted(edges)


def edge_lines(edges: list[tuple[int, ...]] | list[list[int]], arrow: str = "-") -> str:
    """Edges one per line: ``a - b`` or, with a third value, ``a - b (weight w)``."""
    lines = []
    for edge in edges:
        text = f"{edge[0]} {arrow} {edge[1]}"
        if len(edge) > 2:
            text += f" (weight {edge[2]})"
        lines.append(text)
    return "\n".join(lines)


def adjacency(n: int, edges: list[tuple[int, int]] | list[list[int]]) -> list[list[int]]:
    """Neighbour lists of an undirected graph."""
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for a, b, *_ in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    return neighbours


def int_list(values: list[int] | np.ndarray) -> list[int]:
    """Plain Python ints (numpy scalars are not JSON)."""
    return [int(v) for v in values]


# --------------------------------------------------------------------------------------------
# Primes (our own: sympy's random primes use the global random state)
# --------------------------------------------------------------------------------------------


def is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.3e24."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for p in small:
        if n % p == 0:
            return n == p
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def random_prime(rng: np.random.Generator, low: int, high: int) -> int:
    """A prime drawn from [low, high] (a random start, then the next prime up, wrapping)."""
    start = int(rng.integers(low, high + 1))
    for candidate in itertools.chain(range(start, high + 1), range(low, start)):
        if is_prime(candidate):
            return candidate
    raise ValueError(f"no prime in [{low}, {high}]")
