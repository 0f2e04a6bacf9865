"""Generation and verification throughput of every family, beside reasoning-gym's closest tasks.

For each registered family and levels 1, 5, 10: tasks generated per second and reference
answers verified per second, on one core (this process). Where reasoning-gym is installed,
its closest datasets are timed in the same run (items built per second, answers scored per
second) and the ratio ours/theirs is reported. Results: ``benchmarks/results/generation.json``.

A run over every family rewrites the file. A run with ``--families`` merges into it: the named
families' rows and peer comparisons are replaced, every other family's are kept, and the run is
recorded under ``partial_runs`` (date, machine, families) so that mixed figures stay traceable.

    python benchmarks/generation.py                 # every family
    python benchmarks/generation.py --families sudoku expression --seconds 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path

import palaestra
from palaestra.registry import get

RESULTS = Path(__file__).resolve().parent / "results" / "generation.json"
LEVELS = (1, 5, 10)

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


def rate(work: Callable[[int], object], seconds: float, max_items: int) -> tuple[float, int, float]:
    """Items per wall second and per CPU second of this process, of ``work(i)`` for i = 0, 1, ...
    until ``seconds`` or ``max_items``. On a shared machine the CPU rate is the fairer figure
    (it leaves out time spent waiting for a core) but misses work done in other processes."""
    started, cpu_started = time.perf_counter(), time.process_time()
    done = 0
    while done < max_items and (done == 0 or time.perf_counter() - started < seconds):
        work(done)
        done += 1
    cpu = max(time.process_time() - cpu_started, 1e-9)
    return done / (time.perf_counter() - started), done, done / cpu


def bench_family(name: str, seconds: float, max_items: int) -> dict[str, dict[str, object]]:
    return {f"level_{level}": bench_level(name, level, seconds, max_items) for level in LEVELS}


def bench_level(name: str, level: int, seconds: float, max_items: int) -> dict[str, object]:
    impl = get(name).impl
    tasks: list[palaestra.Task] = []
    gen_rate, made, gen_cpu_rate = rate(
        lambda i: tasks.append(palaestra.make_task(name, seed=i, level=level)), seconds, max_items
    )
    responses = [impl.reference_response(t) for t in tasks]
    rejected: list[str] = []

    def check(i: int) -> None:
        k = i % len(tasks)
        verdict = palaestra.verify(tasks[k], responses[k])
        if not verdict.correct:  # reported, not raised: under heavy load a time limit can bite
            rejected.append(f"seed {tasks[k].seed}: {verdict.reason[:200]} (error: {verdict.error})")

    verify_rate, checked, _ = rate(check, seconds, max_items * 20)
    row: dict[str, object] = {
        "tasks_per_s": round(gen_rate, 2),
        "tasks_per_cpu_s": round(gen_cpu_rate, 2),
        "verifications_per_s": round(verify_rate, 1),
        "tasks": made,
    }
    if rejected:
        row["reference_rejected"] = {"count": len(rejected), "of": checked, "first": rejected[0]}
        print(
            f"  WARNING {name} level {level}: {len(rejected)}/{checked} reference answers rejected: {rejected[0]}"
        )
    return row


def bench_peer(dataset: str, seconds: float, max_items: int) -> dict[str, float] | None:
    try:
        import reasoning_gym
    except ImportError:
        return None
    size = max_items
    started = time.perf_counter()
    data = reasoning_gym.create_dataset(dataset, size=size, seed=1)
    items = []
    for i in range(size):
        items.append(data[i])
        if time.perf_counter() - started > seconds:
            break
    gen_rate = len(items) / (time.perf_counter() - started)

    def score(i: int) -> None:
        entry = items[i % len(items)]
        data.score_answer(entry["answer"], entry)

    verify_rate, _, _ = rate(score, seconds, max_items * 20)
    return {
        "tasks_per_s": round(gen_rate, 2),
        "verifications_per_s": round(verify_rate, 1),
        "tasks": len(items),
    }


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
    run = {key: fresh[key] for key in ("date", "machine", "palaestra_version", "seconds_per_measurement")}
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
    parser.add_argument("--seconds", type=float, default=2.0, help="time budget per measurement")
    parser.add_argument("--max-items", type=int, default=500, help="cap on tasks per measurement")
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
        "seconds_per_measurement": args.seconds,
        "families": {},
        "peers": {},
    }
    print(f"{'family':<26}{'level':>6}{'tasks/s':>12}{'tasks/cpu-s':>12}{'verify/s':>12}")
    for name in names:
        figures = bench_family(name, args.seconds, args.max_items)
        results["families"][name] = figures  # type: ignore[index]
        for level, row in figures.items():
            print(
                f"{name:<26}{level[6:]:>6}{row['tasks_per_s']:>12.1f}{row['tasks_per_cpu_s']:>12.1f}"
                f"{row['verifications_per_s']:>12.1f}"
            )
        for dataset in PEERS.get(name, []):
            peer = bench_peer(dataset, args.seconds, args.max_items)
            if peer is None:
                continue
            ours = figures["level_5"]
            comparison = {
                "reasoning_gym_dataset": dataset,
                "theirs": peer,
                "ours_level_5": ours,
                "ratio_tasks_per_s": round(ours["tasks_per_s"] / peer["tasks_per_s"], 3),
                "ratio_verifications_per_s": round(
                    ours["verifications_per_s"] / peer["verifications_per_s"], 3
                ),
            }
            results["peers"][f"{name}~{dataset}"] = comparison  # type: ignore[index]
            print(
                f"  vs reasoning-gym {dataset}: {peer['tasks_per_s']:.1f} tasks/s, {peer['verifications_per_s']:.1f} "
                f"verify/s -> ours/theirs {comparison['ratio_tasks_per_s']}x gen, {comparison['ratio_verifications_per_s']}x verify"
            )
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
