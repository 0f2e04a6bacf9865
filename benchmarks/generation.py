"""Generation and verification speed of every family, beside reasoning-gym's closest tasks.

For each registered family and levels 1, 5, 10: every task of a fixed seed range (``--seeds``,
default 0..29) is generated and timed one by one, so heavy tails count (a 2-second window
would stop before them); the median and mean milliseconds per task are reported (CPU time of
this process, and wall time). Each task's answers are then verified and timed by kind:

- ``right``: the reference response;
- ``wrong``: the family's own first wrong answer (``mutated_responses``), else a wrong number;
- ``model``: the reference answer after a paragraph of reasoning, as a model writes it.

Every right answer must be accepted and every wrong one rejected; a disagreement is reported.
Where reasoning-gym is installed, its closest datasets are timed in the same run on the same
number of items, fed real answers: an entry's ``answer``, or for datasets whose ``answer`` is
``None`` (graph_color, propositional_logic; their scorer returns 0 at once for it) the valid
answer its metadata carries; a wrong answer (the right one cut short, or a changed colour); and
a model-style response put through reasoning-gym's own ``extract_answer``. The ratios
ours/theirs are reported. Results: ``measured/generation.json`` (package data).

A run over every family rewrites the file. A run with ``--families`` merges into it: the named
families' rows and peer comparisons are replaced, every other family's are kept, and the run is
recorded under ``partial_runs`` (date, machine, families) so that mixed figures stay traceable.

    python benchmarks/generation.py                 # every family
    python benchmarks/generation.py --families sudoku expression --seeds 10
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import palaestra
from palaestra.measurements import GENERATION
from palaestra.registry import get

RESULTS = GENERATION  # package data: the catalog shows it
LEVELS = (1, 5, 10)
KINDS = ("right", "wrong", "model")
REASONING = "Let me work through this carefully, one step at a time, and check the result twice.\n"

# palaestra family -> reasoning-gym datasets that pose the same kind of task
PEERS: dict[str, list[str]] = {
    "expression": ["basic_arithmetic"],
    "sudoku": ["mini_sudoku", "sudoku"],
    "knights_knaves": ["knights_knaves"],
    "shortest_path": ["shortest_path"],
    "countdown": ["countdown"],
    "cryptarithm": ["cryptarithm"],
    "tower_of_hanoi": ["tower_of_hanoi"],
    "sokoban": ["sokoban"],
    "zebra": ["zebra_puzzles"],
    "syllogisms": ["syllogism"],
    "propositional_entailment": ["propositional_logic"],
    "graph_coloring": ["graph_color"],
    "topological_order": ["course_schedule"],
    "number_formats": ["base_conversion"],
}

# Where a peer's dataset poses a narrower task than our level 5, ours is also timed on the same
# kind of instance (seed -> knobs), and the ratio is reported beside the level-5 one.
# reasoning-gym's tower_of_hanoi: a whole tower between two pegs, any move allowed, 3-7 disks
# on 3-4 pegs (drawn per item); our level 5 proves the optimum of random start/goal pairs
# under forbidden moves by search.
LIKE_FOR_LIKE: dict[str, tuple[str, Callable[[int], dict[str, Any]]]] = {
    "tower_of_hanoi": (
        "start=tower, rule=standard, disks 3-7 and pegs 3-4 in turn: reasoning-gym's default ranges",
        lambda seed: {"start": "tower", "rule": "standard", "disks": 3 + seed % 5, "pegs": 3 + seed // 5 % 2},
    ),
}


def timed(work: Callable[[], Any]) -> tuple[Any, float, float]:
    """``work()``'s result, CPU seconds and wall seconds."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = work()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def summary(cpu: list[float], wall: list[float]) -> dict[str, float]:
    """Median, mean and largest milliseconds (CPU and wall) and the rates they imply (the largest
    shows a heavy tail that a mean hides)."""
    mean_cpu, mean_wall = statistics.fmean(cpu), statistics.fmean(wall)
    return {
        "median_ms": round(1e3 * statistics.median(cpu), 4),
        "mean_ms": round(1e3 * mean_cpu, 4),
        "median_wall_ms": round(1e3 * statistics.median(wall), 4),
        "mean_wall_ms": round(1e3 * mean_wall, 4),
        "max_ms": round(1e3 * max(cpu), 4),
        "max_wall_ms": round(1e3 * max(wall), 4),
        "per_cpu_s": round(1 / max(mean_cpu, 1e-9), 2),
    }


def bench_like_for_like(name: str, seeds: int) -> dict[str, object] | None:
    """Our generation timed on the instances a peer poses (``LIKE_FOR_LIKE``), if listed."""
    if name not in LIKE_FOR_LIKE:
        return None
    description, knobs_for = LIKE_FOR_LIKE[name]
    cpu, wall = [], []
    for seed in range(seeds):
        _, c, w = timed(lambda s=seed: palaestra.make_task(name, seed=s, **knobs_for(s)))
        cpu.append(c)
        wall.append(w)
    return {"knobs": description, "tasks": seeds, "generation": summary(cpu, wall)}


def bench_family(name: str, seeds: int) -> dict[str, dict[str, object]]:
    return {f"level_{level}": bench_level(name, level, seeds) for level in LEVELS}


def our_responses(task: palaestra.Task) -> dict[str, str]:
    impl = get(task.family).impl
    right = impl.reference_response(task)
    wrong = impl.mutated_responses(task, np.random.default_rng(task.seed))
    return {"right": right, "wrong": wrong[0] if wrong else "<answer>-1</answer>", "model": REASONING + right}


def bench_level(name: str, level: int, seeds: int) -> dict[str, object]:
    gen_cpu, gen_wall, tasks = [], [], []
    for seed in range(seeds):
        task, cpu, wall = timed(lambda s=seed: palaestra.make_task(name, seed=s, level=level))
        tasks.append(task)
        gen_cpu.append(cpu)
        gen_wall.append(wall)
    verify: dict[str, tuple[list[float], list[float]]] = {kind: ([], []) for kind in KINDS}
    disagreements: list[str] = []
    for task in tasks:
        for kind, response in our_responses(task).items():
            verdict, cpu, wall = timed(lambda t=task, r=response: palaestra.verify(t, r))
            verify[kind][0].append(cpu)
            verify[kind][1].append(wall)
            if verdict.correct != (kind != "wrong"):  # reported, not raised: a time limit can bite under load
                disagreements.append(f"seed {task.seed} {kind}: {verdict.status}: {verdict.reason[:120]}")
    generation = summary(gen_cpu, gen_wall)
    row: dict[str, object] = {
        "tasks": len(tasks),
        "generation": generation,
        "verification": {kind: summary(*verify[kind]) for kind in KINDS},
        # the figures earlier runs stored, kept for readers of the file (from the means)
        "tasks_per_s": round(1e3 / max(generation["mean_wall_ms"], 1e-6), 2),
        "tasks_per_cpu_s": generation["per_cpu_s"],
        "verifications_per_s": round(
            1e3 / max(statistics.fmean(summary(*verify[k])["mean_wall_ms"] for k in KINDS), 1e-6), 1
        ),
    }
    if disagreements:
        row["disagreements"] = {"count": len(disagreements), "first": disagreements[0]}
        print(f"  WARNING {name} level {level}: {len(disagreements)} verdicts disagree: {disagreements[0]}")
    return row


def peer_answers(entry: dict[str, Any]) -> dict[str, str] | None:
    """A right, a wrong and a model-style answer for a reasoning-gym entry (None: no right one)."""
    meta = entry.get("metadata", {})
    right = entry.get("answer")
    if right is None:
        right = meta.get("possible_answer", meta.get("example_answer"))
    if right is None:
        return None
    if isinstance(right, dict):  # a colouring: give the second vertex the first one's colour
        keys = list(right)
        wrong_map = dict(right)
        if len(keys) > 1:
            wrong_map[keys[1]] = right[keys[0]]
        right, wrong = json.dumps(right), json.dumps(wrong_map)
    else:
        right = str(right)
        cut = right.rstrip().rsplit(maxsplit=1)[0] if len(right.split()) > 1 else right + "1"
        wrong = cut if cut != right else right + "1"
    return {"right": right, "wrong": wrong, "model": REASONING + f"<answer>{right}</answer>"}


def bench_peer(dataset: str, seeds: int) -> dict[str, object] | None:
    try:
        import reasoning_gym
        from reasoning_gym.utils import extract_answer
    except ImportError:
        return None
    data = reasoning_gym.create_dataset(dataset, size=seeds, seed=1)
    gen_cpu, gen_wall, entries = [], [], []
    for i in range(seeds):
        entry, cpu, wall = timed(lambda i=i: data[i])
        entries.append(entry)
        gen_cpu.append(cpu)
        gen_wall.append(wall)
    verify: dict[str, tuple[list[float], list[float]]] = {kind: ([], []) for kind in KINDS}
    scores: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for entry in entries:
        answers = peer_answers(entry)
        if answers is None:
            continue
        for kind, answer in answers.items():
            if kind == "model":
                work = lambda a=answer, e=entry: data.score_answer(extract_answer(a), e)  # noqa: E731
            else:
                work = lambda a=answer, e=entry: data.score_answer(a, e)  # noqa: E731
            score, cpu, wall = timed(work)
            verify[kind][0].append(cpu)
            verify[kind][1].append(wall)
            scores[kind].append(float(score))
    if not verify["right"][0]:
        return None
    generation = summary(gen_cpu, gen_wall)
    return {
        "tasks": len(entries),
        "generation": generation,
        "verification": {kind: summary(*verify[kind]) for kind in KINDS},
        "mean_score": {kind: round(statistics.fmean(v), 3) for kind, v in scores.items()},
        "tasks_per_s": round(1e3 / max(generation["mean_wall_ms"], 1e-6), 2),
    }


def compare(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, float]:
    """ours/theirs speed ratios (> 1: we are faster) from mean and median CPU times."""

    def ratio(a: float, b: float) -> float:
        return round(b / max(a, 1e-9), 3)

    out = {
        "generation_mean": ratio(ours["generation"]["mean_ms"], theirs["generation"]["mean_ms"]),
        "generation_median": ratio(ours["generation"]["median_ms"], theirs["generation"]["median_ms"]),
    }
    for kind in KINDS:
        out[f"verify_{kind}_mean"] = ratio(
            ours["verification"][kind]["mean_ms"], theirs["verification"][kind]["mean_ms"]
        )
    return out


def machine_facts() -> dict[str, object]:
    return {
        "python": platform.python_version(),
        "cpu": platform.processor() or platform.machine(),
        "cores_used": 1,
        "load_average_at_start": round(os.getloadavg()[0], 1),
    }


def merge_into_stored(stored: dict[str, object], fresh: dict[str, object]) -> dict[str, object]:
    """``stored`` with ``fresh``'s families (rows and peer comparisons) in place of its own.

    Every other family keeps its figures, in the stored order; the fresh run is appended to
    ``partial_runs``."""
    measured: dict[str, object] = fresh["families"]  # type: ignore[assignment]
    fresh_peers: dict[str, object] = fresh["peers"]  # type: ignore[assignment]
    stored_peers: dict[str, object] = stored.get("peers", {})  # type: ignore[assignment]
    # a measured family's stored comparisons go: its fresh ones replace them (none if the
    # peer library is missing from this run)
    peers = {key: row for key, row in stored_peers.items() if key.split("~", 1)[0] not in measured}
    keys = ("date", "machine", "palaestra_version", "seconds_per_measurement", "seeds_per_measurement")
    run = {key: fresh[key] for key in keys if key in fresh}  # seconds: runs before fixed seed ranges
    return {
        **stored,
        "families": {**stored.get("families", {}), **measured},  # type: ignore[dict-item]
        "peers": {**peers, **fresh_peers},
        "partial_runs": [*stored.get("partial_runs", []), {**run, "families": sorted(measured)}],  # type: ignore[list-item]
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--families", nargs="*", default=None, help="families to time (default: all)")
    parser.add_argument(
        "--seeds", type=int, default=30, help="tasks per level: seeds 0..N-1 (peers: N items)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON results")
    args = parser.parse_args()

    unknown = sorted(set(args.families or ()) - set(palaestra.families()))
    if unknown:
        parser.error(f"unknown families: {', '.join(unknown)} (see `palaestra list`)")
    names = args.families or palaestra.families()
    results: dict[str, object] = {
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": machine_facts(),
        "palaestra_version": palaestra.__version__,
        "seeds_per_measurement": args.seeds,
        "families": {},
        "peers": {},
    }
    print(f"{'family':<26}{'level':>6}{'gen median ms':>15}{'gen mean ms':>13}{'verify ms r/w/m':>24}")
    for name in names:
        figures = bench_family(name, args.seeds)
        results["families"][name] = figures  # type: ignore[index]
        for level, row in figures.items():
            gen = row["generation"]
            verify_ms = "/".join(f"{row['verification'][kind]['mean_ms']:.3f}" for kind in KINDS)
            print(f"{name:<26}{level[6:]:>6}{gen['median_ms']:>15.3f}{gen['mean_ms']:>13.3f}{verify_ms:>24}")
        for dataset in PEERS.get(name, []):
            peer = bench_peer(dataset, args.seeds)
            if peer is None:
                continue
            ours = figures["level_5"]
            comparison = {
                "reasoning_gym_dataset": dataset,
                "theirs": peer,
                "ours_level_5": {k: ours[k] for k in ("tasks", "generation", "verification")},
                "ours_over_theirs_speed": compare(ours, peer),
            }
            like = bench_like_for_like(name, args.seeds)
            if like is not None:
                comparison["ours_like_for_like"] = like
                comparison["ours_over_theirs_speed"]["generation_mean_like_for_like"] = round(
                    peer["generation"]["mean_ms"] / max(like["generation"]["mean_ms"], 1e-9), 3
                )
            results["peers"][f"{name}~{dataset}"] = comparison  # type: ignore[index]
            print(f"  vs reasoning-gym {dataset}: {comparison['ours_over_theirs_speed']}")
    if args.families and args.out.exists():
        stored = json.loads(args.out.read_text())
        results = merge_into_stored(stored, results)
        dropped = sorted(set(stored.get("peers", {})) - set(results["peers"]))  # type: ignore[arg-type]
        if dropped:  # their stored "ours" figures would no longer match the rows beside them
            print(f"  dropped stale peer comparisons (reasoning-gym not installed): {', '.join(dropped)}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {os.path.relpath(args.out)}")


if __name__ == "__main__":
    main()
