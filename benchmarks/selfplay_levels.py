"""Self-play without a planted error: does the tiny model improve at the levels its proposer chooses?

The tiny model is warm-started by SFT on catalog ``expression`` levels 1 and 2 (two and three
one-digit numbers joined by + and -), from a correct teacher (no planted error). It then plays the ``family`` language: the proposer
chooses ``{"family": "expression", "level": L}``, the catalog builds a training-side problem at
that level (one-digit numbers pinned, so a level adds operands, multiplication, parentheses and
negatives), the solver answers it 8 times, and the proposer is rewarded for problems the solver
solves only sometimes. Where the model is weak it is so for its own reasons: what 800 SFT steps
of a tiny model leave unlearned at level 2, and levels 3-4 (multiplication, parentheses, four
operands, negatives) never seen in SFT. Held-out greedy accuracy is measured at levels 1-4 before and after self-play, with
the share of proposals at each level over the run.

    python benchmarks/selfplay_levels.py --seeds 0 1 2 --jobs 1

Writes ``benchmarks/results/selfplay_levels.json`` and ``docs/selfplay_levels.png``.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _seeds import (  # benchmarks/ is on sys.path when run as a script
    run_or_collect,
    seed_parser,
    set_flags,
    set_overrides,
)
from selfplay_tiny import interval
from train_tiny import cpu_seconds, machine, stop_workers

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "selfplay_levels.json"
PLOT = ROOT / "docs" / "selfplay_levels.png"
LEVELS = (1, 2, 3, 4)
SETTINGS: dict[str, Any] = dict(
    families="expression",
    knobs='{"expression": {"digits": 1}}',
    teacher_errors="",  # a correct teacher: no planted error
    start_level=1,
    max_level=LEVELS[-1],  # the warm start teaches the proposer's format over levels 1-4
    # SFT on levels 1 and 2 only. On level 1 alone (a pilot, seed 0) the warm start solved 2.5% of
    # level 2 and 0-4% of levels 3-4: every probe of a level-2+ proposal failed, learnability was 0
    # on 13 of 14 steps, and nothing was learned
    sft_levels="1,2",
    # the warm start's own weakness at level 2 is what this demonstration needs: the check guards
    # the answer format (a pilot stopped at 0.789 of the preset's 0.8 after 1,600 steps)
    sft_target_accuracy=0.6,
    eval_levels=",".join(map(str, LEVELS)),
    eval_tasks=200,
    max_new_tokens=64,  # level 4's worked chains are longer than level 1's
)


def run_one(seed: int, out: Path, overrides: dict[str, Any]) -> dict[str, Any]:
    from palaestra.agents.config import selfplay_preset
    from palaestra.agents.reporting import read_jsonl
    from palaestra.agents.selfplay import SelfPlayConfig
    from palaestra.agents.selfplay.cli import run_selfplay

    fixed = dict(seed=seed, output_dir=str(out / f"seed{seed}"), run_subfolder=False, progress=False)
    config, settings = selfplay_preset("tiny", **{**SETTINGS, **overrides, **fixed})
    sp = SelfPlayConfig(
        proposals_per_type=settings["proposals"],
        probes=settings["probes"],
        temperature=config.temperature,
        reward_form=settings["reward"],
        scale_advantages=config.scale_rewards,
        proposer_loss_share=settings["proposer_loss_share"],
        repeat_proposals=settings["repeat_proposals"],
        seed=seed,
    )
    wall0, cpu0 = time.perf_counter(), cpu_seconds()
    summary = run_selfplay(config, sp, "family", quiet=True)
    stop_workers()
    rows = read_jsonl(Path(summary["run_dir"]) / "metrics.jsonl")
    before = next(r for r in rows if r.get("kind") == "eval_sft")
    after = [r for r in rows if r.get("kind") == "eval"][-1]
    steps = [r for r in rows if r.get("kind") == "selfplay"]
    return {
        "seed": seed,
        "status": "ok",
        "accuracy_before": {level: before[f"eval/expression/L{level}/accuracy"] for level in LEVELS},
        "accuracy_after": {level: after[f"eval/expression/L{level}/accuracy"] for level in LEVELS},
        "problems_per_level": {level: before[f"eval/expression/L{level}/problems"] for level in LEVELS},
        "proposed_levels": proposed_levels(steps),
        "valid_rate": [r["valid_rate"] for r in steps],
        "proposer_reward": [r["proposer_reward"] for r in steps],
        "wall_seconds": round(time.perf_counter() - wall0, 1),
        "cpu_seconds": round(cpu_seconds() - cpu0, 1),
        "run_dir": summary["run_dir"],
        "config": config.to_dict(),
    }


def proposed_levels(steps: list[dict[str, Any]]) -> dict[str, dict[int, int]]:
    """Valid proposals per level in the first and the second half of the self-play steps."""
    halves: dict[str, Counter[int]] = {"first_half": Counter(), "second_half": Counter()}
    for k, row in enumerate(steps):
        half = "first_half" if k < len(steps) / 2 else "second_half"
        for key, count in row.get("proposed_levels", {}).items():
            level = key.rsplit("/", 1)[1]
            if level.isdigit():
                halves[half][int(level)] += count
    return {half: dict(sorted(c.items())) for half, c in halves.items()}


def chosen_levels(rows: list[dict[str, Any]]) -> Counter[int]:
    """Valid proposals per level over both halves of every row's run."""
    chosen: Counter[int] = Counter()
    for r in rows:
        for half in r["proposed_levels"].values():
            chosen.update({int(k): v for k, v in half.items()})
    return chosen


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in rows if r.get("status") == "ok"]
    out: dict[str, Any] = {"seeds_run": len(rows), "seeds_ok": len(ok)}
    out["gain_pts_by_level"] = {
        level: interval(
            [100 * (r["accuracy_after"][str(level)] - r["accuracy_before"][str(level)]) for r in ok]
        )
        for level in LEVELS
    }
    chosen = chosen_levels(ok)
    total = sum(chosen.values())
    out["proposal_share_by_level"] = {
        level: chosen[level] / total if total else 0.0 for level in sorted(chosen)
    }
    top = [level for level, share in out["proposal_share_by_level"].items() if share >= 0.2 and level > 1]
    out["levels_the_proposer_chose"] = top
    gains = [out["gain_pts_by_level"][level] for level in top if level in LEVELS]
    out["must_show"] = {
        "at_least_3_seeds": len(ok) >= 3 and len(ok) == len(rows),
        "accuracy_rises_at_chosen_levels": bool(gains) and all(g["ci95"] and g["ci95"][0] > 0 for g in gains),
    }
    out["must_show_met"] = all(out["must_show"].values())
    return out


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in rows if r.get("status") == "ok"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for key, label, offset in (
        ("accuracy_before", "before self-play", -0.2),
        ("accuracy_after", "after", 0.2),
    ):
        means = [statistics.fmean(r[key][str(level)] for r in ok) for level in LEVELS]
        axes[0].bar([level + offset for level in LEVELS], means, width=0.4, label=label)
        for r in ok:
            axes[0].plot(
                [level + offset for level in LEVELS], [r[key][str(level)] for level in LEVELS], "k.", ms=3
            )
    axes[0].set_xticks(LEVELS)
    axes[0].set_xlabel("expression level (held-out problems)")
    axes[0].set_ylabel("greedy accuracy")
    axes[0].legend()
    chosen = chosen_levels(ok)
    levels = sorted(chosen)
    axes[1].bar(levels, [chosen[level] / sum(chosen.values()) for level in levels])
    axes[1].set_xlabel("level the proposer chose")
    axes[1].set_ylabel("share of valid proposals")
    fig.suptitle(f"tiny model, SFT on levels 1-2, self-play over levels; {len(ok)} seeds (dots: each seed)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    parser = seed_parser(__doc__.split("\n")[0], "runs/selfplay_levels", RESULTS)
    args = parser.parse_args()
    overrides = set_overrides(args)
    if args.one is not None:
        out = Path(args.out)
        row = run_one(args.one, out, overrides)
        (out / f"seed{args.one}.json").write_text(json.dumps(row, indent=2))
        return 0
    rows, wall = run_or_collect(args, __file__, set_flags(args))
    result = {
        "benchmark": "selfplay_levels",
        "question": "held-out greedy accuracy per expression level before and after self-play in the family "
        "language, from an SFT warm start on levels 1-2 with a correct teacher",
        "settings": SETTINGS,
        "overrides": overrides,
        "seeds": rows,
        **aggregate(rows),
        "total_wall_seconds": wall,
        "machine": machine(args.jobs),
    }
    path = Path(args.results)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2))
    if any(r.get("status") == "ok" for r in rows) and path == RESULTS:
        plot(rows, PLOT)
    print(json.dumps({k: v for k, v in result.items() if k != "seeds"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
