"""Maximum bipartite matching: pair workers with jobs they can do, as many pairs as possible.

Many matchings are maximum: the verifier checks that the answer is a matching of the graph
(every pair an edge, nobody twice) and that its size is the proven optimum. Efficient
algorithm: augmenting paths (Kuhn's), O(V x E). The test proves the optimum with networkx's
Hopcroft-Karp on every level and by brute force on the small ones. Levels grow both sides.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.algorithms.shared import answer_text, read_pairs, tagged
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class BipartiteMatchingKnobs(Knobs):
    workers: int = knob(6, low=2, high=100, help="nodes on the left side")
    jobs: int = knob(6, low=2, high=100, help="nodes on the right side")
    degree: float = knob(2.0, low=0.5, high=8.0, help="mean number of jobs a worker can do")


K = BipartiteMatchingKnobs
LEVELS = {
    1: K(workers=3, jobs=3, degree=1.5),
    2: K(workers=4, jobs=4, degree=1.6),
    3: K(workers=5, jobs=6, degree=1.8),
    4: K(workers=7, jobs=7, degree=2.0),
    5: K(workers=9, jobs=9, degree=2.0),
    6: K(workers=12, jobs=12, degree=2.2),
    7: K(workers=15, jobs=16, degree=2.2),
    8: K(workers=19, jobs=20, degree=2.4),
    9: K(workers=24, jobs=25, degree=2.4),
    10: K(workers=30, jobs=30, degree=2.6),
}


def maximum_matching(workers: int, edges: list[list[int]]) -> tuple[list[list[int]], int]:
    """A maximum matching by augmenting paths; and the edges examined."""
    options: dict[int, list[int]] = {w: [] for w in range(workers)}
    for w, j in edges:
        options[w].append(j)
    owner: dict[int, int] = {}
    work = 0

    def augment(w: int, seen: set[int]) -> bool:
        nonlocal work
        for j in options[w]:
            work += 1
            if j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = w
                    return True
        return False

    for w in range(workers):
        augment(w, set())
    return sorted([w, j] for j, w in owner.items()), work


def greedy_matching(edges: list[list[int]]) -> list[list[int]]:
    """Take each edge in the listed order when both ends are free (the weak heuristic)."""
    used: set[int] = set()
    chosen = []
    for w, j in edges:
        if w not in used and j not in used:
            used |= {w, j}
            chosen.append([w, j])
    return chosen


def show(pairs: list[list[int]]) -> str:
    return ", ".join(f"{w}-{j}" for w, j in pairs)


PROMPT = """Workers are numbered 0 to {last_worker} and jobs {first_job} to {last_job}. Each line \
"w - j" says that worker w can do job j:
{edges}

Assign jobs to workers so that every worker does at most one job, every job is done by at most one \
worker, each worker does only a job it can do, and as many workers as possible get a job. Any \
assignment of that largest size is accepted. Answer with the worker-job pairs, for example \
<answer>{example}</answer>."""


@family(
    "bipartite_matching",
    domain="algorithms",
    knobs=BipartiteMatchingKnobs,
    levels=LEVELS,
    description="A maximum matching of a bipartite graph (any maximum matching is accepted).",
    verifier_kind="constraint check + proven optimum size",
)
class BipartiteMatching(Family):
    def generate(self, knobs: BipartiteMatchingKnobs, rng: np.random.Generator) -> TaskDraft:
        workers, jobs = knobs.workers, knobs.jobs
        while True:
            edges = sorted(
                {
                    (int(w), workers + int(j))
                    for w, j in zip(
                        rng.integers(0, workers, size=round(knobs.degree * workers)),
                        rng.integers(0, jobs, size=round(knobs.degree * workers)),
                        strict=True,
                    )
                }
            )
            edges_list = [list(e) for e in edges]
            matching, work = maximum_matching(workers, edges_list)
            if len(matching) >= 2:
                break
        prompt = PROMPT.format(
            last_worker=workers - 1,
            first_job=workers,
            last_job=workers + jobs - 1,
            edges="\n".join(f"{w} - {j}" for w, j in edges),
            example=f"0-{workers + 1}, 2-{workers}",
        )
        metadata = {
            "workers": workers,
            "jobs": jobs,
            "edges": edges_list,
            "optimum": len(matching),
            "work": work,
            "canonical_hash": content_hash([workers, jobs, edges_list]),
        }
        return TaskDraft(prompt, show(matching), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, labels=("matching", "pairs"))
        if isinstance(text, Verdict):
            return text
        pairs = read_pairs(text)
        if pairs is None:
            return Verdict.bad_format("answer with worker-job pairs such as 0-5, 2-6")
        workers, edges = task.metadata["workers"], {tuple(e) for e in task.metadata["edges"]}
        matched = [(min(a, b), max(a, b)) for a, b in pairs]
        for pair in matched:
            if pair not in edges or pair[0] >= workers:
                return Verdict.wrong(f"worker {pair[0]} cannot do job {pair[1]}", parsed=matched)
        ends = [v for pair in matched for v in pair]
        if len(set(ends)) != len(ends):
            return Verdict.wrong("a worker or a job is used twice", parsed=matched)
        if len(matched) != task.metadata["optimum"]:
            return Verdict.wrong(f"{len(matched)} pairs; more workers can get a job", parsed=matched)
        return Verdict.right(parsed=matched)

    def solve_exact(self, task: Task) -> SolverRun:
        """Augmenting paths (effort: edges examined)."""
        matching, work = maximum_matching(task.metadata["workers"], task.metadata["edges"])
        return SolverRun(tagged(show(matching)), float(work) + 1)

    def solve_weak(self, task: Task) -> SolverRun:
        """Greedy in the listed order: maximum only when no augmenting path is needed."""
        chosen = greedy_matching(task.metadata["edges"])
        return SolverRun(tagged(show(chosen)), float(len(task.metadata["edges"])))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        pairs = [[int(v) for v in p.split("-")] for p in task.answer.split(", ")]
        edges = {tuple(e) for e in task.metadata["edges"]}
        workers, jobs = task.metadata["workers"], task.metadata["jobs"]
        non_edge = next(
            [w, j] for w in range(workers) for j in range(workers, workers + jobs) if (w, j) not in edges
        )
        wrong = [
            pairs[:-1],  # one pair short of the optimum
            pairs[:-1] + [non_edge],  # a pair that is no edge
            pairs + [[pairs[0][0], pairs[-1][1]]] if len(pairs) > 1 else pairs + pairs,  # a node twice
            pairs + pairs[:1],  # a pair twice
        ]
        return [tagged(show(p)) for p in wrong if p] + ["<answer>0-0</answer>"]
