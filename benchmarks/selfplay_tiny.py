"""Does self-play beat its warm start, and SFT continued for the same compute? The tiny model on CPU.

``palaestra train --preset tiny`` (the README's main job) over several seeds. Per seed, in its own
process: the preset's SFT warm start (a weak teacher's catalog ``expression`` demonstrations, an
eighth of every batch teaching the proposer format), the held-out evaluation of that starting
point, the self-play steps (the model proposes ``expression`` problems in the catalog's own surface
form, our exact evaluator computes their answers, the same model solves each 8 times, the proposer
is rewarded for problems it solves only sometimes, and the solver for exact answers), the same
evaluation, then the control: SFT continued from the warm start for as many sequences as
self-play generated. Held-out problems are distinct problems on the held-out side of the content
split; proposals that land there are refused, so the solver never trains on one.

Each row under ``"seeds"`` has ``gain_pts`` (self-play minus its warm start, held-out greedy
accuracy, points) and ``gain_over_control_pts``, with standard errors of the per-problem
differences, the proposer's figures (valid rate, learnability, the share of proposals where the
teacher errs) in the first and last quarter of the steps, and CPU and wall seconds.

    python benchmarks/selfplay_tiny.py --seeds 0 1 2 --jobs 1

Writes ``benchmarks/results/selfplay_tiny.json`` and copies seed 0's summary plot to
``docs/selfplay_tiny.png``.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from _seeds import (  # benchmarks/ is on sys.path when run as a script
    run_or_collect,
    seed_parser,
    write_results,
)
from train_tiny import aggregate, cpu_seconds, machine, seed_row, stop_workers

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "selfplay_tiny.json"
PLOT = ROOT / "docs" / "selfplay_tiny.png"
TARGETS = {"mean_gain_pts": 5.0}


def run_one(seed: int, out: Path, overrides: dict[str, Any], sp_overrides: dict[str, Any]) -> dict[str, Any]:
    from palaestra.agents.config import selfplay_preset
    from palaestra.agents.reporting import read_jsonl
    from palaestra.agents.run import SFTNotConverged
    from palaestra.agents.selfplay import SelfPlayConfig
    from palaestra.agents.selfplay.cli import run_selfplay

    config, settings = selfplay_preset(
        "tiny",
        seed=seed,
        output_dir=str(out / f"seed{seed}"),
        run_subfolder=False,
        progress=False,
        **overrides,
    )
    settings.update(sp_overrides)
    sp = SelfPlayConfig(
        proposals_per_type=settings["proposals"],
        probes=settings["probes"],
        temperature=config.temperature,
        reward_form=settings["reward"],
        scale_advantages=config.scale_rewards,
        seed=seed,
    )
    wall0, cpu0 = time.perf_counter(), cpu_seconds()
    try:
        summary = run_selfplay(config, sp, settings["language"], quiet=True)
    except SFTNotConverged as exc:
        return {"seed": seed, "status": "sft_not_converged", "error": str(exc), "config": config.to_dict()}
    stop_workers()
    row = seed_row(seed, summary, time.perf_counter() - wall0, cpu_seconds() - cpu0, config)
    steps = [r for r in read_jsonl(Path(summary["run_dir"]) / "metrics.jsonl") if r.get("kind") == "selfplay"]
    row["selfplay"] = proposer_figures(steps)
    row["selfplay_settings"] = settings
    return row


def proposer_figures(steps: list[dict[str, Any]]) -> dict[str, Any]:
    """Proposer and solver figures in the first and last quarter of the self-play steps."""
    quarter = max(1, len(steps) // 4)

    def mean(key: str, part: list[dict[str, Any]]) -> float | None:
        values = [r[key] for r in part if key in r]
        return statistics.fmean(values) if values else None

    out: dict[str, Any] = {"steps": len(steps), "sequences": steps[-1]["sequences"] if steps else 0}
    for key in ("valid_rate", "mean_learnability", "proposer_reward", "solver_reward", "teacher_wrong_share"):
        out[key] = [mean(key, steps[:quarter]), mean(key, steps[-quarter:])]
    out["rejections_total"] = {k: v for k, v in (steps[-1]["rejections"] if steps else {}).items() if v}
    return out


def main() -> int:
    parser = seed_parser(__doc__.split("\n")[0], "runs/selfplay_tiny", RESULTS)
    parser.add_argument(
        "--sp",
        action="append",
        default=[],
        metavar="KEY=JSON",
        help="override a self-play setting (proposals, ...)",
    )
    args = parser.parse_args()
    overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}
    sp_overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.sp)}
    if args.one is not None:
        out = Path(args.out)
        row = run_one(args.one, out, overrides, sp_overrides)
        (out / f"seed{args.one}.json").write_text(json.dumps(row, indent=2))
        return 0
    extra = [a for s in args.set for a in ("--set", s)] + [a for s in args.sp for a in ("--sp", s)]
    rows, wall = run_or_collect(args, __file__, extra)
    result = {
        "benchmark": "selfplay_tiny",
        "question": "held-out greedy accuracy after self-play vs its warm start (gain_pts) and vs SFT continued "
        "for the same number of sequences (gain_over_control_pts); catalog expression problems it never saw",
        "targets": {**TARGETS, "every_seed_positive": True, "seeds": 3},
        "seeds": rows,
        **aggregate(rows, TARGETS),
        "total_wall_seconds": wall,
        "machine": machine(args.jobs),
        "overrides": {"config": overrides, "selfplay": sp_overrides},
    }
    write_results(result, args.results, RESULTS, PLOT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
