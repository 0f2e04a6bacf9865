"""Job scheduling on identical machines: assign jobs so that all finish as early as possible.

Every optimal assignment is accepted: the verifier recomputes each machine's load from the
assignment (one machine number per job) and checks that the largest load, the makespan, equals
the optimum proven by branch and bound (jobs longest first, symmetric machines skipped, a branch
cut when it cannot beat the best schedule found or reaches the lower bound max(longest job,
total / machines)). A makespan stated in the response is never read.

Difficulty: more jobs (4 to 14), more machines (2 to 5) and longer durations (up to 9 to 99). From level 3 on,
instances where the LPT heuristic (longest job first onto the least-loaded machine, the weak
solver) is optimal are rejected. The exact solver's effort counts branch-and-bound nodes.

Generation: ~6,000 tasks per CPU-second at level 5 and ~300 at level 10 (the branch and bound
in pure Python, and redraws of the instances LPT solves, which are most random instances).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.optimization._common import numbered, read_numbers
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class JobSchedulingKnobs(Knobs):
    jobs: int = knob(4, low=3, high=20, help="number of jobs")
    machines: int = knob(2, low=2, high=6, help="number of identical machines")
    max_duration: int = knob(9, low=3, high=200, help="durations are drawn from 1..max_duration")
    reject_lpt: bool = knob(False, help="reject instances where the LPT heuristic is optimal")


LEVELS = {
    1: JobSchedulingKnobs(jobs=4, machines=2, max_duration=9),
    2: JobSchedulingKnobs(jobs=5, machines=2, max_duration=12),
    3: JobSchedulingKnobs(jobs=6, machines=2, max_duration=40, reject_lpt=True),
    4: JobSchedulingKnobs(jobs=7, machines=3, max_duration=40, reject_lpt=True),
    5: JobSchedulingKnobs(jobs=8, machines=3, max_duration=50, reject_lpt=True),
    6: JobSchedulingKnobs(jobs=9, machines=3, max_duration=60, reject_lpt=True),
    7: JobSchedulingKnobs(jobs=10, machines=3, max_duration=70, reject_lpt=True),
    8: JobSchedulingKnobs(jobs=11, machines=4, max_duration=80, reject_lpt=True),
    9: JobSchedulingKnobs(jobs=13, machines=4, max_duration=90, reject_lpt=True),
    10: JobSchedulingKnobs(jobs=15, machines=5, max_duration=99, reject_lpt=True),
}


def lpt(durations: list[int], machines: int) -> list[int]:
    """Longest job first onto the least-loaded machine (ties: lower job, lower machine)."""
    loads, assignment = [0] * machines, [0] * len(durations)
    for job in sorted(range(len(durations)), key=lambda j: (-durations[j], j)):
        machine = min(range(machines), key=lambda m: (loads[m], m))
        assignment[job] = machine
        loads[machine] += durations[job]
    return assignment


def makespan(durations: list[int], machines: int, assignment: list[int]) -> int:
    loads = [0] * machines
    for job, machine in enumerate(assignment):
        loads[machine] += durations[job]
    return max(loads)


def optimal_schedule(durations: list[int], machines: int) -> tuple[list[int], int, int]:
    """An optimal assignment (job -> 0-based machine), its makespan, and the B&B nodes visited."""
    order = sorted(range(len(durations)), key=lambda j: (-durations[j], j))
    bound = max(max(durations), -(-sum(durations) // machines))
    best_assignment = lpt(durations, machines)
    best = makespan(durations, machines, best_assignment)
    loads, assignment, nodes = [0] * machines, [0] * len(durations), 0

    def branch(position: int) -> bool:
        """Extend the partial schedule; True once a schedule meeting the lower bound is found."""
        nonlocal best, best_assignment, nodes
        nodes += 1
        if position == len(order):
            best, best_assignment = max(loads), assignment.copy()
            return best == bound
        job, tried = order[position], set()
        for machine in range(machines):
            if loads[machine] in tried or loads[machine] + durations[job] >= best:
                continue  # a machine loaded like one already tried is symmetric; or no gain
            tried.add(loads[machine])
            loads[machine] += durations[job]
            assignment[job] = machine
            done = branch(position + 1)
            loads[machine] -= durations[job]
            if done:
                return True
        return False

    if best > bound:
        branch(0)
    return best_assignment, best, nodes


PROMPT = """{jobs} jobs must be processed on {machines} identical machines. Each job runs on one \
machine without interruption, and a machine processes one job at a time.
{listing}

Assign every job to a machine so that the time at which all jobs are finished (the largest total \
duration on any machine) is as small as possible. Any assignment achieving the smallest possible \
finishing time is accepted. Answer with the machine number (1 to {machines}) of each job, in job \
order, separated by commas; for example <answer>{example}</answer> puts job 1 on machine \
1, job 2 on machine 2 and job 3 on machine 1."""


def _answer(assignment: list[int]) -> str:
    return ", ".join(str(m + 1) for m in assignment)


@family(
    "job_scheduling",
    domain="optimization",
    knobs=JobSchedulingKnobs,
    levels=LEVELS,
    description="Assign jobs to identical machines with the smallest makespan (any optimal assignment counts).",
    verifier_kind="assignment check + makespan equals the branch-and-bound-proven optimum",
)
class JobScheduling(Family):
    def generate(self, knobs: JobSchedulingKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(5000):
            durations = [int(d) for d in rng.integers(1, knobs.max_duration + 1, size=knobs.jobs)]
            assignment, best, nodes = optimal_schedule(durations, knobs.machines)
            if best == max(durations):
                continue  # one job alone sets the makespan: no trade-off to find
            if (
                knobs.reject_lpt
                and makespan(durations, knobs.machines, lpt(durations, knobs.machines)) == best
            ):
                continue
            break
        else:
            raise RuntimeError(f"no suitable instance in 5000 draws for {knobs}")
        listing = "\n".join(f"Job {j + 1}: duration {d}" for j, d in enumerate(durations))
        prompt = PROMPT.format(jobs=knobs.jobs, machines=knobs.machines, listing=listing, example="1, 2, 1")
        metadata = {
            "durations": durations,
            "machines": knobs.machines,
            "optimum": best,
            "search_nodes": nodes,
            "canonical_hash": content_hash([knobs.machines, sorted(durations)]),
        }
        return TaskDraft(prompt, _answer(assignment), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        assignment = read_numbers(response, labels=("machines", "assignment"))
        if isinstance(assignment, Verdict):
            return assignment
        durations, machines = task.metadata["durations"], task.metadata["machines"]
        if error := numbered(assignment, machines, "machine"):
            return error
        if len(assignment) != len(durations):
            return Verdict.wrong(
                f"{len(assignment)} machine numbers given for {len(durations)} jobs (one per job)",
                parsed=assignment,
            )
        finish = makespan(durations, machines, [m - 1 for m in assignment])
        if finish != task.metadata["optimum"]:
            return Verdict.wrong(
                f"all jobs finish at {finish}, which is not the earliest possible", parsed=assignment
            )
        return Verdict.right(parsed=assignment)

    def solve_exact(self, task: Task) -> SolverRun:
        """Branch and bound (effort = search nodes)."""
        assignment, _, nodes = optimal_schedule(task.metadata["durations"], task.metadata["machines"])
        return SolverRun(f"<answer>{_answer(assignment)}</answer>", float(nodes))

    def solve_weak(self, task: Task) -> SolverRun:
        """LPT: longest job first onto the least-loaded machine (a 4/3-approximation)."""
        durations = task.metadata["durations"]
        assignment = lpt(durations, task.metadata["machines"])
        return SolverRun(f"<answer>{_answer(assignment)}</answer>", float(len(durations)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        durations, machines = task.metadata["durations"], task.metadata["machines"]
        assignment = [int(m) - 1 for m in task.answer.split(", ")]
        everything_on_one = [0] * len(durations)  # makespan = total > optimum (>= 2 machines used)
        mutations = [assignment[:-1], assignment + [0], everything_on_one]
        greedy = lpt(durations, machines)
        if makespan(durations, machines, greedy) != task.metadata["optimum"]:
            mutations.append(greedy)
        return [f"<answer>{_answer(m)}</answer>" for m in mutations]
