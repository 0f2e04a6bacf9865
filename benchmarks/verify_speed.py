"""Verification speed per call: palaestra's ``verify`` beside reasoning-gym's ``score_answer``.

For each matched pair (a palaestra family and the reasoning-gym dataset that poses the same
kind of task: ``benchmarks/generation.py``'s ``PEERS`` plus the pairs below), ``--items`` tasks
of each side (ours at level 5, theirs at its defaults) are answered right and wrong:

- palaestra: the family's reference response, and its first own wrong answer
  (``mutated_responses``), else ``<answer>-1</answer>``;
- reasoning-gym: the entry's ``answer`` (for datasets whose ``answer`` is ``None`` the valid
  answer its metadata carries, since their scorer returns 0 at once for ``None``), and that
  answer cut short or changed (``generation.peer_answers``).

Every answer is first checked to score as expected (right: correct / score 1.0; wrong: not
correct / score below 1.0); one that does not is left out of the timing and counted. The rest
are timed call by call (CPU time of this thread, ``time.thread_time_ns``), ``--repeats``
rounds, the two libraries interleaved in every round (ours then theirs, theirs then ours in
turn), so load hits both alike. Reported per pair: median and mean microseconds per call for
each side and answer kind, and ``speed_ratio`` = their mean time / our mean time over right and
wrong calls together (above 1: palaestra is faster). ``geomean_ratio`` is the geometric mean of
``speed_ratio`` over the pairs (``geomean_ratio_median`` the same from medians). Results:
``benchmarks/results/verify_speed.json``.

    python benchmarks/verify_speed.py --items 20 --repeats 5
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generation  # noqa: E402  (benchmarks/generation.py: its pairs and its peer answers)

import palaestra  # noqa: E402
from palaestra.registry import get  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "verify_speed.json"
LEVEL = 5
# pairs beyond generation.PEERS (the list of matched families)
MORE_PEERS: dict[str, list[str]] = {
    "game_of_life": ["game_of_life"],
    "arc_grid": ["arc_1d"],
    "maze": ["maze"],
    "n_queens": ["n_queens"],
    "word_ladder": ["word_ladder"],
    "anagrams": ["group_anagrams"],
    "calendar": ["calendar_arithmetic"],
    "futoshiki": ["futoshiki"],
    "kakurasu": ["kakurasu"],
}
TARGET = 0.5


def pairs() -> list[tuple[str, str]]:
    peers = {name: list(datasets) for name, datasets in generation.PEERS.items()}
    for name, datasets in MORE_PEERS.items():
        peers.setdefault(name, [])
        peers[name] += [d for d in datasets if d not in peers[name]]
    return [(name, dataset) for name, datasets in sorted(peers.items()) for dataset in datasets]


def our_calls(family: str, items: int) -> tuple[list[tuple[str, Callable[[], Any]]], int]:
    """(kind, call) for each task's right and wrong answer that scores as expected; and how many
    did not."""
    calls, unexpected = [], 0
    impl = get(family).impl
    for seed in range(items):
        task = palaestra.make_task(family, seed=seed, level=LEVEL)
        wrong = impl.mutated_responses(task, np.random.default_rng(seed))
        answers = {
            "right": impl.reference_response(task),
            "wrong": wrong[0] if wrong else "<answer>-1</answer>",
        }
        for kind, response in answers.items():
            if palaestra.verify(task, response).correct != (kind == "right"):
                unexpected += 1
                continue
            calls.append((kind, lambda t=task, r=response: palaestra.verify(t, r)))
    return calls, unexpected


def their_calls(dataset: str, items: int) -> tuple[list[tuple[str, Callable[[], Any]]], int]:
    import reasoning_gym

    data = reasoning_gym.create_dataset(dataset, size=items, seed=1)
    calls, unexpected = [], 0
    for i in range(items):
        entry = data[i]
        answers = generation.peer_answers(entry)
        if answers is None:
            unexpected += 2
            continue
        for kind in ("right", "wrong"):
            score = float(data.score_answer(answers[kind], entry))
            if (score == 1.0) != (kind == "right"):
                unexpected += 1
                continue
            calls.append((kind, lambda a=answers[kind], e=entry: data.score_answer(a, e)))
    return calls, unexpected


def time_call(call: Callable[[], Any]) -> float:
    start = time.thread_time_ns()
    call()
    return (time.thread_time_ns() - start) / 1e3  # microseconds


def stats(values: list[float]) -> dict[str, float]:
    return {
        "calls": len(values),
        "median_us": round(statistics.median(values), 2),
        "mean_us": round(statistics.fmean(values), 2),
    }


def bench_pair(family: str, dataset: str, items: int, repeats: int) -> dict[str, Any]:
    ours, our_bad = our_calls(family, items)
    theirs, their_bad = their_calls(dataset, items)
    times: dict[str, dict[str, list[float]]] = {
        side: {"right": [], "wrong": []} for side in ("ours", "theirs")
    }
    for round_ in range(repeats):
        sides = [("ours", ours), ("theirs", theirs)]
        for side, calls in sides if round_ % 2 == 0 else sides[::-1]:
            for kind, call in calls:
                times[side][kind].append(time_call(call))
    row: dict[str, Any] = {"family": family, "level": LEVEL, "dataset": dataset}
    for side in ("ours", "theirs"):
        both = times[side]["right"] + times[side]["wrong"]
        row[side] = {"all": stats(both), **{kind: stats(v) for kind, v in times[side].items() if v}}
    row["left_out_not_scoring_as_expected"] = {"ours": our_bad, "theirs": their_bad}
    row["speed_ratio"] = round(row["theirs"]["all"]["mean_us"] / row["ours"]["all"]["mean_us"], 4)
    row["speed_ratio_median"] = round(row["theirs"]["all"]["median_us"] / row["ours"]["all"]["median_us"], 4)
    return row


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=20, help="tasks per side and pair (default 20)")
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds (default 5)")
    parser.add_argument("--pairs", nargs="*", help="only these FAMILY~DATASET pairs")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    chosen = [p for p in pairs() if not args.pairs or f"{p[0]}~{p[1]}" in args.pairs]
    load_before = os.getloadavg()[0]
    rows = []
    for family, dataset in chosen:
        row = bench_pair(family, dataset, args.items, args.repeats)
        rows.append(row)
        print(
            f"{family:<26}{dataset:<22} ours {row['ours']['all']['mean_us']:>9.1f} us"
            f"  theirs {row['theirs']['all']['mean_us']:>9.1f} us  ratio {row['speed_ratio']:.3f}",
            flush=True,
        )
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "method": "CPU time per call (thread_time_ns), right and wrong answers each checked to score "
        "as expected first, both libraries interleaved per round; ratio = their mean / our mean",
        "items_per_side": args.items,
        "repeats": args.repeats,
        "level": LEVEL,
        "load_average": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "pairs": len(rows),
        "geomean_ratio": round(geomean([r["speed_ratio"] for r in rows]), 4),
        "geomean_ratio_median": round(geomean([r["speed_ratio_median"] for r in rows]), 4),
        "target_geomean_ratio": TARGET,
        "rows": rows,
    }
    if args.pairs is None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"geomean_ratio {result['geomean_ratio']} (median-based {result['geomean_ratio_median']}) over {len(rows)} pairs"
    )


if __name__ == "__main__":
    main()
