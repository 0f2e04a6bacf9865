"""Travelling salesman: the shortest round trip through a few cities, given their distances.

Every optimal tour is accepted, whatever its starting city and direction: the verifier checks
that the answer visits each city exactly once (returning to the first city may be written or
left implicit) and that its recomputed length equals the optimum proven by the Held-Karp
dynamic programme over subsets. A length stated in the response is never read.

Difficulty: more cities (4 to 10) on a wider grid (distances are rounded Euclidean distances
between random points, so the table looks geometric but every entry must be read). From level 3
on, instances where the nearest-neighbour tour from city 1 (the weak solver) is optimal are
rejected. The exact solver's effort counts Held-Karp transitions (n^2 2^n growth).

Generation: ~3,200 tasks per CPU-second at level 5 and ~220 at level 10 (Held-Karp in pure
Python over 2^9 subsets, and redraws of instances nearest-neighbour solves).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.optimization._common import numbered, read_numbers
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class TspKnobs(Knobs):
    cities: int = knob(4, low=4, high=11, help="number of cities")
    grid: int = knob(20, low=5, high=200, help="points are drawn on a grid of this size")
    reject_nearest: bool = knob(False, help="reject instances where nearest neighbour from city 1 is optimal")


LEVELS = {
    1: TspKnobs(cities=4, grid=20),
    2: TspKnobs(cities=5, grid=20),
    3: TspKnobs(cities=5, grid=30, reject_nearest=True),
    4: TspKnobs(cities=6, grid=40, reject_nearest=True),
    5: TspKnobs(cities=6, grid=50, reject_nearest=True),
    6: TspKnobs(cities=7, grid=60, reject_nearest=True),
    7: TspKnobs(cities=8, grid=70, reject_nearest=True),
    8: TspKnobs(cities=8, grid=80, reject_nearest=True),
    9: TspKnobs(cities=9, grid=90, reject_nearest=True),
    10: TspKnobs(cities=10, grid=99, reject_nearest=True),
}


def held_karp(dist: list[list[int]]) -> tuple[list[int], int, int]:
    """A shortest tour (0-based, starting at city 0), its length, and the transitions tried."""
    n = len(dist)
    best: dict[tuple[int, int], tuple[int, int]] = {}  # (subset of 1..n-1, last) -> (length, previous)
    for j in range(1, n):
        best[(1 << j, j)] = (dist[0][j], 0)
    transitions = 0
    for size in range(2, n):
        for subset in combinations(range(1, n), size):
            mask = sum(1 << j for j in subset)
            for j in subset:
                rest = mask ^ (1 << j)
                candidates = [(best[(rest, k)][0] + dist[k][j], k) for k in subset if k != j]
                transitions += len(candidates)
                best[(mask, j)] = min(candidates)
    full = (1 << n) - 2
    length, last = min((best[(full, j)][0] + dist[j][0], j) for j in range(1, n))
    tour, mask = [], full
    while last:
        tour.append(last)
        mask, last = mask ^ (1 << last), best[(mask, last)][1]
    return [0, *tour[::-1]], length, transitions + n


def tour_length(dist: list[list[int]], tour: list[int]) -> int:
    return sum(dist[a][b] for a, b in zip(tour, tour[1:] + tour[:1], strict=True))


def nearest_neighbour(dist: list[list[int]]) -> list[int]:
    """From city 0, always go to the closest unvisited city (ties: the lower number)."""
    tour = [0]
    while len(tour) < len(dist):
        here = tour[-1]
        tour.append(min((c for c in range(len(dist)) if c not in tour), key=lambda c: (dist[here][c], c)))
    return tour


PROMPT = """A salesman must visit {n} cities, numbered 1 to {n}, each exactly once, and return to \
the city he started from. The distances between the cities are (symmetric table):
{table}

Find a round trip of the smallest possible total distance. Any shortest round trip is accepted, \
starting from any city and in either direction. Answer with the cities in the order visited, \
separated by commas, for example <answer>{example}</answer>."""


def _table(dist: list[list[int]]) -> str:
    width = max(len(str(d)) for row in dist for d in row) + 1
    header = " " * 3 + "".join(f"{c + 1:>{width}}" for c in range(len(dist)))
    rows = [f"{r + 1:>3}" + "".join(f"{d:>{width}}" for d in row) for r, row in enumerate(dist)]
    return "\n".join([header, *rows])


def _distances(knobs: TspKnobs, rng: np.random.Generator) -> list[list[int]] | None:
    points = rng.integers(0, knobs.grid + 1, size=(knobs.cities, 2))
    diff = points[:, None, :] - points[None, :, :]
    dist = np.rint(np.sqrt((diff**2).sum(axis=2))).astype(int)
    if (dist + np.eye(knobs.cities, dtype=int) == 0).any():
        return None  # two cities at the same place
    return dist.tolist()


def _answer(tour: list[int]) -> str:
    return ", ".join(str(c + 1) for c in tour)


@family(
    "tsp",
    domain="optimization",
    knobs=TspKnobs,
    levels=LEVELS,
    description="Shortest round trip through a few cities from a distance table (any optimal tour counts).",
    verifier_kind="permutation check + length equals the Held-Karp-proven optimum",
)
class Tsp(Family):
    def generate(self, knobs: TspKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(1000):
            dist = _distances(knobs, rng)
            if dist is None:
                continue
            tour, length, transitions = held_karp(dist)
            if knobs.reject_nearest and tour_length(dist, nearest_neighbour(dist)) == length:
                continue
            break
        else:
            raise RuntimeError(f"no suitable instance in 1000 draws for {knobs}")
        metadata = {
            "distances": dist,
            "optimum": length,
            "held_karp_transitions": transitions,
            "canonical_hash": content_hash(sorted(d for row in dist for d in row)),
        }
        example = ", ".join(str(c) for c in range(1, min(knobs.cities, 3) + 1)) + ", ..."
        prompt = PROMPT.format(n=knobs.cities, table=_table(dist), example=example)
        return TaskDraft(prompt, _answer(tour), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        tour = read_numbers(response, labels=("tour", "route"))
        if isinstance(tour, Verdict):
            return tour
        dist = task.metadata["distances"]
        n = len(dist)
        if error := numbered(tour, n, "city"):
            return error
        if len(tour) == n + 1 and tour[0] == tour[-1]:
            tour = tour[:-1]  # the return to the start, written out
        if sorted(tour) != list(range(1, n + 1)):
            missing = sorted(set(range(1, n + 1)) - set(tour))
            detail = f"city {missing[0]} is never visited" if missing else "a city is visited twice"
            return Verdict.wrong(f"the tour must visit every city exactly once ({detail})", parsed=tour)
        length = tour_length(dist, [c - 1 for c in tour])
        if length != task.metadata["optimum"]:
            return Verdict.wrong(
                f"this round trip has length {length}, which is not the shortest", parsed=tour
            )
        return Verdict.right(parsed=tour)

    def solve_exact(self, task: Task) -> SolverRun:
        """Held-Karp (effort = DP transitions evaluated)."""
        tour, _, transitions = held_karp(task.metadata["distances"])
        return SolverRun(f"<answer>{_answer(tour)}</answer>", float(transitions))

    def solve_weak(self, task: Task) -> SolverRun:
        """Nearest neighbour from city 1: greedy, no look-ahead."""
        dist = task.metadata["distances"]
        return SolverRun(f"<answer>{_answer(nearest_neighbour(dist))}</answer>", float(len(dist) ** 2))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        dist, optimum = task.metadata["distances"], task.metadata["optimum"]
        tour = [int(c) - 1 for c in task.answer.split(", ")]
        mutations = [tour[:-1], tour[:-1] + tour[:1], tour + tour[1:2]]  # one missing, one twice, extra
        for i in range(1, len(tour) - 1):  # a swap of two neighbours that makes the trip longer
            swapped = tour.copy()
            swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
            if tour_length(dist, swapped) != optimum:
                mutations.append(swapped)
                break
        greedy = nearest_neighbour(dist)
        if tour_length(dist, greedy) != optimum:
            mutations.append(greedy)
        return [f"<answer>{_answer(m)}</answer>" for m in mutations]
