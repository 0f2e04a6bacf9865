"""Order tasks so that every prerequisite comes first (any valid topological order counts).

A random DAG over named tasks; the verifier checks that the submitted permutation respects
every edge, never comparing with one reference order. Above level 2, instances where sorting
the names alphabetically already works, or where only one order is valid (a chain), are
rejected.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

NAMES = [
    "audit", "build", "cache", "deploy", "encrypt", "fetch", "gather", "hash", "index", "join", "kickoff",
    "lint", "merge", "notify", "optimize", "package", "query", "review", "sign", "test", "upload",
    "validate", "warmup", "export", "yield", "zip", "archive", "backup", "compile", "debug", "enroll",
    "format", "generate", "host", "import", "journal", "keygen", "label", "migrate", "normalize",
]  # fmt: skip
_SPLIT = re.compile(r"\s*(?:->|→|,|;|\n|\s)\s*")


@dataclass(frozen=True)
class TopologicalOrderKnobs(Knobs):
    tasks: int = knob(4, low=3, high=len(NAMES), help="number of tasks (nodes)")
    density: float = knob(
        0.3, low=0.05, high=1.0, help="probability of a prerequisite between two tasks in DAG order"
    )
    reject_trivial: bool = knob(
        False, help="reject DAGs that alphabetical order satisfies or with a single valid order"
    )


LEVELS = {
    1: TopologicalOrderKnobs(tasks=4, density=0.4),
    2: TopologicalOrderKnobs(tasks=5, density=0.4),
    3: TopologicalOrderKnobs(tasks=6, density=0.35, reject_trivial=True),
    4: TopologicalOrderKnobs(tasks=8, density=0.4, reject_trivial=True),
    5: TopologicalOrderKnobs(tasks=10, density=0.3, reject_trivial=True),
    6: TopologicalOrderKnobs(tasks=13, density=0.25, reject_trivial=True),
    7: TopologicalOrderKnobs(tasks=16, density=0.22, reject_trivial=True),
    8: TopologicalOrderKnobs(tasks=20, density=0.2, reject_trivial=True),
    9: TopologicalOrderKnobs(tasks=25, density=0.17, reject_trivial=True),
    10: TopologicalOrderKnobs(tasks=30, density=0.15, reject_trivial=True),
}


def kahn(names: list[str], edges: list[list[str]]) -> tuple[list[str], int, bool]:
    """Alphabetically smallest topological order, its work, and whether the order is unique."""
    successors: dict[str, list[str]] = {n: [] for n in names}
    indegree = dict.fromkeys(names, 0)
    for before, after in edges:
        successors[before].append(after)
        indegree[after] += 1
    ready = [n for n in names if indegree[n] == 0]
    heapq.heapify(ready)
    order, work, unique = [], 0, True
    while ready:
        unique &= len(ready) == 1
        node = heapq.heappop(ready)
        order.append(node)
        for nxt in successors[node]:
            work += 1
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(ready, nxt)
        work += 1
    return order, work, unique


def violations(order: list[str], edges: list[list[str]]) -> list[list[str]]:
    position = {name: i for i, name in enumerate(order)}
    return [[a, b] for a, b in edges if position[a] > position[b]]


PROMPT = """Schedule these {n} tasks in an order where every task comes after all of its \
prerequisites. Tasks: {tasks}.
Prerequisites ("a -> b" means a must come before b):
{edges}

Any order that respects every prerequisite is accepted. Answer with all {n} task names in \
order, separated by ->, for example <answer>{example}</answer>."""


@family(
    "topological_order",
    domain="graphs",
    knobs=TopologicalOrderKnobs,
    levels=LEVELS,
    description="Order tasks so that every prerequisite comes first (any valid topological order counts).",
    verifier_kind="constraint check (permutation respecting every edge)",
)
class TopologicalOrder(Family):
    def generate(self, knobs: TopologicalOrderKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(1000):
            names = [NAMES[int(i)] for i in rng.choice(len(NAMES), size=knobs.tasks, replace=False)]
            hidden = [names[int(i)] for i in rng.permutation(knobs.tasks)]  # the DAG's own order
            edges = [
                [hidden[i], hidden[j]]
                for i in range(knobs.tasks)
                for j in range(i + 1, knobs.tasks)
                if rng.random() < knobs.density
            ]
            if not edges:
                continue
            order, work, unique = kahn(names, edges)
            if knobs.reject_trivial and (unique or not violations(sorted(names), edges)):
                continue
            break
        else:
            raise RuntimeError(f"no suitable DAG in 1000 draws for {knobs}")
        shown = sorted(names)
        rng.shuffle(edges)
        prompt = PROMPT.format(
            n=knobs.tasks,
            tasks=", ".join(shown),
            edges="\n".join(f"{a} -> {b}" for a, b in edges),
            example=" -> ".join(shown[:2]) + " -> ...",
        )
        metadata = {
            "names": shown,
            "edges": edges,
            "kahn_work": work,
            "canonical_hash": content_hash([shown, sorted(edges)]),
        }
        return TaskDraft(prompt, " -> ".join(order), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, labels=("order",), max_chars=5000)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        names = task.metadata["names"]
        order = [part.lower() for part in _SPLIT.split(extraction.text.strip().strip("[]")) if part]
        if sorted(order) != sorted(names):
            missing, extra = sorted(set(names) - set(order)), sorted(set(order) - set(names))
            detail = f"missing {missing}" if missing else f"unknown or repeated {extra or 'names'}"
            return Verdict.bad_format(f"list every task exactly once ({detail})")
        broken = violations(order, task.metadata["edges"])
        if broken:
            a, b = broken[0]
            return Verdict.wrong(f"{a} must come before {b}", parsed=order)
        return Verdict.right(parsed=order)

    def solve_exact(self, task: Task) -> SolverRun:
        """Kahn's algorithm (work = nodes + edges visited)."""
        order, work, _ = kahn(task.metadata["names"], task.metadata["edges"])
        return SolverRun(f"<answer>{' -> '.join(order)}</answer>", float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Sort by number of direct prerequisites (then by name): ignores longer chains."""
        names, edges = task.metadata["names"], task.metadata["edges"]
        direct = {n: sum(1 for _, b in edges if b == n) for n in names}
        order = sorted(names, key=lambda n: (direct[n], n))
        return SolverRun(f"<answer>{' -> '.join(order)}</answer>", float(len(names)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        order = task.answer.split(" -> ")
        a, b = task.metadata["edges"][0]
        swapped = order.copy()
        i, j = swapped.index(a), swapped.index(b)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        return [
            f"<answer>{' -> '.join(swapped)}</answer>",  # breaks the edge a -> b
            f"<answer>{' -> '.join(order[::-1])}</answer>",  # reversed
            f"<answer>{' -> '.join(order[:-1])}</answer>",  # a task missing
            f"<answer>{' -> '.join(order + order[:1])}</answer>",  # a task twice
        ]
