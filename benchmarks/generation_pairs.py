"""Generation speed per task: palaestra beside reasoning-gym on the matched pairs, and level-10 tails.

**Pairs** (default): for each matched pair (``verify_speed.pairs()``: a palaestra family and the
reasoning-gym dataset that poses the same kind of task), ``--items`` tasks of each side are
generated and timed one by one (CPU time of this thread, ``time.thread_time_ns``), ``--repeats``
rounds, the two libraries interleaved in every round (ours then theirs, theirs then ours in
turn) so that load from other work hits both alike. Every round draws fresh items (seeds
``round * items ..``; reasoning-gym's item indices likewise), so no cache of either side is
timed. Ours are made at level 5 unless ``OUR_SIDE`` lists the instances of ours that match what
the peer actually poses (``--level`` changes the default). Reported per pair: mean and median
microseconds per task on each side, ``speed_ratio`` = their mean / our mean (above 1: palaestra
is faster; the mean counts heavy tails) and ``speed_ratio_median``; ``geomean_ratio`` over the
pairs. A pair below 1 carries ``reason``: the guarantee of ours that the extra time buys
(``REASONS``). Results: ``benchmarks/results/generation_pairs.json``.

**Tails** (``--tails``): every registered family at level 10, seeds 0..``--seeds``-1 (100 by
default), each task timed alone; the largest seconds per family (CPU and wall), the seed that
took it, and the families over ``--limit`` seconds (1 by default). Progress is appended to
``--progress`` (one JSON line per family) so a long run can be watched, and a run with
``--families`` merges into the stored file. Results: ``benchmarks/results/generation_tails.json``.

    python benchmarks/generation_pairs.py --items 20 --repeats 3
    nice -n 10 python benchmarks/generation_pairs.py --tails --progress /tmp/tails.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import verify_speed  # noqa: E402  (the matched pairs)

import palaestra  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
PAIRS_OUT = RESULTS / "generation_pairs.json"
TAILS_OUT = RESULTS / "generation_tails.json"
LEVEL = 5
TARGET_GEOMEAN, TARGET_EACH = 1.0, 0.25

# Where a peer's dataset poses a narrower task than our level 5, ours is timed on the same kind
# of instance instead: pair -> (what, item index -> our knobs).
OUR_SIDE: dict[str, tuple[str, Callable[[int], dict[str, Any]]]] = {
    # reasoning-gym's tower_of_hanoi: a whole tower between two pegs, any move allowed, 3-7
    # disks on 3-4 pegs; our level 5 proves the optimum of random start/goal pairs by search
    "tower_of_hanoi~tower_of_hanoi": (
        "start=tower, rule=standard, disks 3-7 and pegs 3-4 in turn (reasoning-gym's default ranges)",
        lambda i: {"start": "tower", "rule": "standard", "disks": 3 + i % 5, "pegs": 3 + i // 5 % 2},
    ),
    # mini_sudoku is 4x4 (8-12 empty cells); our level 5 is 9x9: level 1 is our 4x4
    "sudoku~mini_sudoku": ("level 1 (4x4, at least 6 givens)", lambda i: {"level": 1}),
    # arc_1d applies one transformation to rows of 10-30 cells, 3 examples; our level 5 hides
    # two-step programs: level 3 is one step on 5x5 grids with 3 examples
    "arc_grid~arc_1d": ("level 3 (one-step programs, 5x5 grids, 3 examples)", lambda i: {"level": 3}),
}

# The per-task record every family pays (a PCG64 stream seeded per (family, version, seed) and a
# JSON-normalised, SHA-256-identified Task), against reasoning-gym's dict from random.Random.
_RECORD = (
    "the per-task contract: an independent seeded PCG64 stream and a JSON-normalised Task whose id "
    "is a SHA-256 of its content (rebuilt byte for byte anywhere); reasoning-gym's item is a dict "
    "from random.Random(seed + index)"
)
# What a pair below 1 pays for: the guarantee of ours that reasoning-gym's item does not give.
REASONS: dict[str, str] = {
    "anagrams~group_anagrams": "each scramble is checked to have exactly one anagram in a 63k-word "
    "dictionary (a unique answer); " + _RECORD,
    "arc_grid~arc_1d": "the answer is proven unique: every DSL program up to the hidden one's length "
    "is applied to the examples and all consistent ones must agree on the test output; reasoning-gym "
    "runs one task generator and makes no such check",
    "calendar~calendar_arithmetic": _RECORD,
    "cryptarithm~cryptarithm": "every puzzle is proven to have exactly one solution by a full "
    "column-wise search, and draws with several solutions are redrawn; reasoning-gym does not check "
    "uniqueness (its scorer accepts any valid mapping)",
    "expression~basic_arithmetic": "exact evaluation (integers, fractions, powers) and " + _RECORD,
    "graph_coloring~graph_color": "the colour count is the proven chromatic number (exact_chromatic) "
    "and graphs a greedy colouring solves are redrawn (reject_greedy); reasoning-gym keeps exactly "
    "the graphs a greedy colouring solves (its reference answer)",
    "kakurasu~kakurasu": "the solution is proven unique by search and puzzles the weak propagation "
    "solver finishes are redrawn (allow_easy=False)",
    "knights_knaves~knights_knaves": "the assignment is proven unique with z3 over nested statements "
    "(and/or/not/iff, 'exactly k of')",
    "maze~maze": "the shortest route length is proven by BFS in a maze with loops, and start/end "
    "pairs must spread over the maze (min_spread)",
    "n_queens~n_queens": "the completion of a 12x12 board with given queens is proven unique by "
    "exhaustive search; reasoning-gym's 8x8 item removes queens from one solution and accepts any "
    "completion",
    "number_formats~base_conversion": "exact two's complement and IEEE-754 bit patterns (inexact "
    "values rounded as the hardware does) and " + _RECORD,
    "propositional_entailment~propositional_logic": "yes/no balanced by rejection; every 'yes' is "
    "decided on the full truth table, cross-checked with z3 and given a checked case split, every "
    "'no' a countermodel; reasoning-gym's items are all entailed (checked, but no 'no' and no "
    "certificate)",
    "shortest_path~shortest_path": "graphs are redrawn until the shortest path has at least min_hops "
    "edges, the optimum is proven by Dijkstra, and the record carries the whole weighted graph for "
    "the verifier (any optimal path counts)",
    "sudoku~mini_sudoku": "the solution is proven unique by a solver and the puzzle is graded by the "
    "technique tier that solves it",
    "syllogisms~syllogism": "valid instances carry a checked derivation, invalid ones a checked "
    "countermodel, over chains with distractor premises",
    "topological_order~course_schedule": "instances a trivial order solves are redrawn "
    "(reject_trivial), and " + _RECORD,
    "tower_of_hanoi~tower_of_hanoi": "the fewest moves are proven by BFS (the verifier grades against "
    "a proven optimum, also for 4 pegs)",
    "word_ladder~word_ladder": "the ladder length is proven shortest by BFS over the dictionary graph "
    "and endpoints are redrawn until it lies in the level's range (min_steps..max_steps)",
}


def time_call(call: Callable[[], Any]) -> float:
    """Microseconds of this thread's CPU time that ``call()`` took."""
    start = time.thread_time_ns()
    call()
    return (time.thread_time_ns() - start) / 1e3


def stats(values: list[float]) -> dict[str, float]:
    return {
        "tasks": len(values),
        "mean_us": round(statistics.fmean(values), 1),
        "median_us": round(statistics.median(values), 1),
        "max_us": round(max(values), 1),
    }


def our_maker(family: str, dataset: str, level: int) -> tuple[str, Callable[[int], Any]]:
    """(what is made, item -> task) for our side of a pair."""
    if f"{family}~{dataset}" in OUR_SIDE:
        what, knobs_for = OUR_SIDE[f"{family}~{dataset}"]
        return what, lambda i: palaestra.make_task(family, seed=i, **knobs_for(i))
    return f"level {level}", lambda i: palaestra.make_task(family, seed=i, level=level)


def bench_pair(family: str, dataset: str, items: int, repeats: int, level: int) -> dict[str, Any]:
    import reasoning_gym

    what, ours = our_maker(family, dataset, level)
    theirs = reasoning_gym.create_dataset(dataset, size=items * repeats, seed=1)
    ours(items * repeats)  # the first call imports the family's module: not timed
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    for round_ in range(repeats):
        first = range(round_ * items, (round_ + 1) * items)
        sides = [("ours", ours), ("theirs", theirs.__getitem__)]
        for side, make in sides if round_ % 2 == 0 else sides[::-1]:
            times[side] += [time_call(lambda i=i, m=make: m(i)) for i in first]
    row: dict[str, Any] = {"family": family, "dataset": dataset, "ours_make": what}
    row["ours"], row["theirs"] = stats(times["ours"]), stats(times["theirs"])
    row["speed_ratio"] = round(row["theirs"]["mean_us"] / row["ours"]["mean_us"], 4)
    row["speed_ratio_median"] = round(row["theirs"]["median_us"] / row["ours"]["median_us"], 4)
    key = f"{family}~{dataset}"
    if row["speed_ratio"] < 1 and key in REASONS:
        row["reason"] = REASONS[key]
    return row


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def run_pairs(args: argparse.Namespace) -> None:
    chosen = [p for p in verify_speed.pairs() if not args.pairs or f"{p[0]}~{p[1]}" in args.pairs]
    load_before = os.getloadavg()[0]
    rows = []
    for family, dataset in chosen:
        row = bench_pair(family, dataset, args.items, args.repeats, args.level)
        rows.append(row)
        print(
            f"{family:<26}{dataset:<22} ours {row['ours']['mean_us']:>10.1f} us"
            f"  theirs {row['theirs']['mean_us']:>10.1f} us  ratio {row['speed_ratio']:.3f}"
            f" (median {row['speed_ratio_median']:.3f})",
            flush=True,
        )
    ratios = [r["speed_ratio"] for r in rows]
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "palaestra_commit": args.commit,
        "method": "CPU time per generated task (thread_time_ns), both libraries interleaved per round "
        "(order alternating), fresh items every round; ratio = their mean / our mean",
        "items_per_round": args.items,
        "repeats": args.repeats,
        "level": args.level,
        "load_average": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "pairs": len(rows),
        "geomean_ratio": round(geomean(ratios), 4),
        "geomean_ratio_median": round(geomean([r["speed_ratio_median"] for r in rows]), 4),
        "target": {"geomean_ratio": TARGET_GEOMEAN, "each_pair": TARGET_EACH},
        "below_each_pair_target": [
            f"{r['family']}~{r['dataset']}" for r in rows if r["speed_ratio"] < TARGET_EACH
        ],
        "rows": rows,
    }
    if args.baseline:
        add_baseline(result, json.loads(args.baseline.read_text()))
    print(f"geomean_ratio {result['geomean_ratio']} (median-based {result['geomean_ratio_median']})")
    if args.pairs is None or args.out:
        out = args.out or PAIRS_OUT
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {os.path.relpath(out)}")


def add_baseline(result: dict[str, Any], baseline: dict[str, Any]) -> None:
    """Put a baseline run's ratios (the same pairs, an earlier palaestra) beside this run's."""
    before = {f"{r['family']}~{r['dataset']}": r for r in baseline["rows"]}
    for row in result["rows"]:
        old = before.get(f"{row['family']}~{row['dataset']}")
        if old is not None and old.get("ours_make") == row["ours_make"]:
            row["before"] = {k: old[k] for k in ("speed_ratio", "speed_ratio_median")}
            row["before"]["ours_mean_us"] = old["ours"]["mean_us"]
    result["baseline"] = {
        k: baseline.get(k) for k in ("date", "palaestra_commit", "geomean_ratio", "geomean_ratio_median")
    }


def tail_of(family: str, seeds: int) -> dict[str, Any]:
    """The slowest of ``seeds`` level-10 tasks of ``family`` (CPU and wall seconds)."""
    palaestra.make_task(family, seed=seeds, level=10)  # imports the module: not timed
    worst: dict[str, Any] = {"family": family, "tasks": seeds, "max_cpu_s": 0.0, "max_wall_s": 0.0}
    total = 0.0
    for seed in range(seeds):
        cpu, wall = time.process_time(), time.perf_counter()
        palaestra.make_task(family, seed=seed, level=10)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        total += cpu
        if cpu > worst["max_cpu_s"]:
            worst.update(max_cpu_s=round(cpu, 4), seed_of_max=seed)
        worst["max_wall_s"] = round(max(worst["max_wall_s"], wall), 4)
    worst["mean_cpu_s"] = round(total / seeds, 5)
    return worst


def run_tails(args: argparse.Namespace) -> None:
    names = args.families or palaestra.families()
    out = args.out or TAILS_OUT
    rows = {}
    for name in names:
        row = tail_of(name, args.seeds)
        rows[name] = row
        line = json.dumps({**row, "at": time.strftime("%H:%M:%S")})
        print(line, flush=True)
        if args.progress:
            with open(args.progress, "a") as f:
                f.write(line + "\n")
    stored = json.loads(out.read_text()) if args.families and out.exists() else {}
    merged = {**stored.get("families", {}), **rows}
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "method": "every family at level 10, each seed's task generated alone; largest CPU seconds "
        "(process_time) and wall seconds per family; machine shared with other work",
        "seeds": args.seeds,
        "limit_s": args.limit,
        "over_limit_cpu": sorted(n for n, r in merged.items() if r["max_cpu_s"] > args.limit),
        "slowest": sorted(merged, key=lambda n: -merged[n]["max_cpu_s"])[:10],
        "families": merged,
        "runs": [*stored.get("runs", []), {"date": result_date(), "families": len(rows)}],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"over {args.limit} s: {result['over_limit_cpu']}; wrote {os.path.relpath(out)}")


def result_date() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=20, help="tasks per side, pair and round")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--level", type=int, default=LEVEL, help="our level where OUR_SIDE is silent")
    parser.add_argument("--pairs", nargs="*", help="only these FAMILY~DATASET pairs (not written)")
    parser.add_argument("--tails", action="store_true", help="scan level-10 tails instead of pairs")
    parser.add_argument("--families", nargs="*", help="tails: only these families (merged into the file)")
    parser.add_argument("--seeds", type=int, default=100, help="tails: seeds per family")
    parser.add_argument("--limit", type=float, default=1.0, help="tails: seconds a task may take")
    parser.add_argument("--progress", type=Path, help="tails: append one JSON line per family here")
    parser.add_argument("--out", type=Path, help="where to write the JSON results")
    parser.add_argument("--baseline", type=Path, help="pairs: an earlier run's JSON to report beside")
    parser.add_argument("--commit", default=None, help="the palaestra commit measured (recorded)")
    args = parser.parse_args()
    if args.tails:
        run_tails(args)
    else:
        run_pairs(args)


if __name__ == "__main__":
    main()
