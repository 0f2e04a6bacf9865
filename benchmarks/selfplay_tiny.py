"""Does self-play earn its name? The tiny preset's self-play against its ablations and controls.

Per seed, in its own process, every arm starts from the same SFT warm start (the preset's: a weak
teacher's catalog ``expression`` demonstrations, an eighth of every batch teaching the proposer
format) and is evaluated on the same held-out problems (greedy accuracy, 0-1):

- ``sft``: the warm start itself;
- ``selfplay``: the preset's self-play (``palaestra train --preset tiny``): the model proposes
  ``expression`` problems, our evaluator computes their answers, the same model solves each 8
  times; the proposer is rewarded for problems it solves only sometimes, the solver for exact
  answers;
- ``selfplay_frozen``: the same, with the proposer's samples never trained on (the model still
  proposes; it learns from solving only);
- ``selfplay_balanced``: the same with the design variant ``BALANCED``: a proposal equal to a
  buffered task is probed and rewarded again instead of refused, and the proposer carries a fifth
  of each update's loss weight;
- ``grpo_uniform``: GRPO on uniform training-side catalog problems, stopped at the generated
  tokens self-play spent (``token_budget``);
- ``rft``: rejection-sampling fine-tuning on the model's own verified samples of the same
  problems (``baseline none``: each right answer imitated with weight 1), at the same tokens;
- ``sft_continued``: SFT continued on the teacher's demonstrations for as many sequences as
  self-play generated (generates nothing).

Each arm reports its generated tokens, optimizer steps and trained sequences under ``tokens``.
The self-play arms log per step the proposer's reward after penalties, its valid rate, the
solver's pass rate on proposals, and the frontier share: the share of proposals the solver solves
less than half the time, against the same share among 16 uniform training-side problems probed
alike each step and never trained on (``frontier_base_rate``).

Over the seeds: each arm's mean, and paired per-seed differences (self-play minus each other arm,
frontier share minus base rate) with 95% t-intervals.

    python benchmarks/selfplay_tiny.py --seeds 0 1 2 3 4 --jobs 1

Writes ``benchmarks/results/selfplay_tiny.json``, seed 0's summary plot to
``docs/selfplay_tiny.png`` and the proposer's curves over the seeds to
``docs/selfplay_tiny_proposer.png``.
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _seeds import (  # benchmarks/ is on sys.path as a script
    run_or_collect,
    seed_parser,
    set_flags,
    set_overrides,
    write_results,
)
from train_tiny import cpu_seconds, machine, stop_workers

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "selfplay_tiny.json"
PLOT = ROOT / "docs" / "selfplay_tiny.png"
PROPOSER_PLOT = ROOT / "docs" / "selfplay_tiny_proposer.png"
ARMS = ("sft", "sft_continued", "rft", "grpo_uniform", "selfplay_frozen", "selfplay", "selfplay_balanced")
# the design variant measured beside the preset: repeats of buffered tasks re-probed and rewarded
# instead of refused, and the proposer given a fifth of each update's loss weight
BALANCED = {"repeat_proposals": True, "proposer_loss_share": 0.2}
RL_STEP_BOUND = 400  # the token budget ends the GRPO and RFT arms long before this
TARGETS = {"selfplay_minus_frozen_pts": 3.0, "selfplay_minus_grpo_uniform_pts": 0.0}
# two-sided 95% t quantiles by degrees of freedom (seeds - 1)
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def selfplay_arm(
    seed: int, out: Path, model: str | None, name: str, overrides: dict[str, Any]
) -> dict[str, Any]:
    """One self-play run: the full preset run (SFT, self-play, SFT continued) when ``model`` is
    None, else arm ``name`` from the warm start saved at ``model`` with nothing else."""
    from palaestra.agents.config import selfplay_preset
    from palaestra.agents.reporting import read_jsonl
    from palaestra.agents.selfplay import SelfPlayConfig
    from palaestra.agents.selfplay.cli import run_selfplay

    start = {} if model is None else {"model": model, "sft_steps": 0, "control": False}
    config, settings = selfplay_preset(
        "tiny",
        seed=seed,
        output_dir=str(out / name),
        run_subfolder=False,
        progress=False,
        **{**overrides, **start},
    )
    if name == "selfplay_balanced":
        settings.update(BALANCED)
    sp = SelfPlayConfig(
        proposals_per_type=settings["proposals"],
        probes=settings["probes"],
        temperature=config.temperature,
        reward_form=settings["reward"],
        scale_advantages=config.scale_rewards,
        train_proposer=name != "selfplay_frozen",
        frontier_probes=settings["frontier_probes"],
        proposer_loss_share=settings["proposer_loss_share"],
        repeat_proposals=settings["repeat_proposals"],
        seed=seed,
    )
    summary = run_selfplay(config, sp, settings["language"], quiet=True)
    steps = [r for r in read_jsonl(Path(summary["run_dir"]) / "metrics.jsonl") if r.get("kind") == "selfplay"]
    return {"summary": summary, "steps": steps, "settings": settings}


def rl_arm(
    seed: int, out: Path, model: str, name: str, token_budget: int, overrides: dict[str, Any]
) -> dict[str, Any]:
    """GRPO (or RFT) on uniform training-side problems from the warm start, to ``token_budget``."""
    from palaestra.agents.config import preset
    from palaestra.agents.reporting import read_jsonl
    from palaestra.agents.run import run_training

    objective = {"baseline": "none"} if name == "rft" else {}
    fixed = dict(
        seed=seed,
        model=model,
        sft_steps=0,
        control=False,
        steps=RL_STEP_BOUND,
        token_budget=token_budget,
        output_dir=str(out / name),
        run_subfolder=False,
        progress=False,
        **objective,
    )
    config = preset("tiny", **{**overrides, **fixed})
    summary = run_training(config, quiet=True)
    steps = [r for r in read_jsonl(Path(summary["run_dir"]) / "metrics.jsonl") if r.get("kind") == "step"]
    return {"summary": summary, "steps": steps}


def accuracy(summary: dict[str, Any], arm: str) -> float:
    return float(summary["arms"][arm]["accuracy"])


def rl_tokens(steps: list[dict[str, Any]]) -> dict[str, int]:
    """Generated tokens, optimizer steps and trained sequences of a GRPO/RFT arm."""
    return {
        "generated": int(steps[-1]["generated_tokens"]) if steps else 0,
        "optimizer_steps": sum(1 for r in steps if not r.get("train/skipped")),
        "trained_sequences": int(sum(r.get("train/sequences", 0) for r in steps)),
    }


def selfplay_tokens(steps: list[dict[str, Any]]) -> dict[str, int]:
    return {
        "generated": int(steps[-1]["generated_tokens"]) if steps else 0,
        "optimizer_steps": sum(1 for r in steps if r.get("train/episodes", 0) > 0),
        "trained_sequences": int(sum(r.get("train/episodes", 0) for r in steps)),
    }


def proposer_curves(steps: list[dict[str, Any]]) -> dict[str, list[float | None]]:
    keys = ("proposer_reward", "valid_rate", "proposal_pass_rate", "frontier_share", "frontier_base_rate")
    keys += ("uniform_pass_rate", "teacher_wrong_share", "solver_reward")
    return {k: [r.get(k) for r in steps] for k in keys}


def run_seed(seed: int, out: Path, overrides: dict[str, Any], extra: list[str]) -> dict[str, Any]:
    """Every arm of one seed; the full self-play run first (it makes the warm start and sets the
    token budget), then each ablation in its own process from the saved warm start."""
    wall0, cpu0 = time.perf_counter(), cpu_seconds()
    seed_dir = out / f"seed{seed}"
    full = selfplay_arm(seed, seed_dir, None, "selfplay", overrides)
    stop_workers()
    summary = full["summary"]
    warm_start = str(Path(summary["run_dir"]) / "checkpoints" / "sft")
    budget = selfplay_tokens(full["steps"])["generated"]
    others = {}
    for arm in ("selfplay_frozen", "selfplay_balanced", "grpo_uniform", "rft"):
        cmd = [sys.executable, __file__, "--arm", arm, "--one", str(seed), "--out", str(out)]
        cmd += ["--warm-start", warm_start, "--token-budget", str(budget), *extra]
        subprocess.run(cmd, check=True)
        others[arm] = json.loads((seed_dir / f"{arm}.json").read_text())
    arms = {
        "sft": accuracy(summary, "sft"),
        "sft_continued": accuracy(summary, "control"),
        "selfplay": accuracy(summary, "trained"),
        **{arm: others[arm]["accuracy"] for arm in others},
    }
    tokens = {
        "sft": {"generated": 0, "optimizer_steps": 0, "trained_sequences": 0},
        "sft_continued": {
            "generated": 0,
            "optimizer_steps": int(summary.get("control_steps", 0)),
            "trained_sequences": int(summary.get("control_sequences", 0)),
        },
        "selfplay": selfplay_tokens(full["steps"]),
        **{arm: others[arm]["tokens"] for arm in others},
    }
    curves = proposer_curves(full["steps"])
    frozen_curves = others["selfplay_frozen"]["curves"]
    balanced_curves = others["selfplay_balanced"]["curves"]
    return {
        "seed": seed,
        "status": "ok",
        "arms": arms,
        "tokens": tokens,
        "frontier_share": _mean(curves["frontier_share"]),
        "frontier_base_rate": _mean(curves["frontier_base_rate"]),
        "frozen_frontier_share": _mean(frozen_curves["frontier_share"]),
        "frozen_frontier_base_rate": _mean(frozen_curves["frontier_base_rate"]),
        "balanced_frontier_share": _mean(balanced_curves["frontier_share"]),
        "balanced_frontier_base_rate": _mean(balanced_curves["frontier_base_rate"]),
        "curves": {
            "selfplay": curves,
            "selfplay_frozen": frozen_curves,
            "selfplay_balanced": balanced_curves,
        },
        "heldout_problems": summary.get("heldout_problems"),
        "selfplay_settings": full["settings"],
        "sft_probe_accuracy": summary.get("sft_probe_accuracy"),
        "wall_seconds": round(time.perf_counter() - wall0, 1),
        "cpu_seconds_selfplay_process": round(cpu_seconds() - cpu0, 1),
        "run_dir": summary["run_dir"],
    }


def run_arm(arm: str, seed: int, out: Path, warm_start: str, budget: int, overrides: dict[str, Any]) -> None:
    """One ablation arm of one seed, written to OUT/seedSEED/ARM.json."""
    seed_dir = out / f"seed{seed}"
    if arm.startswith("selfplay"):
        done = selfplay_arm(seed, seed_dir, warm_start, arm, overrides)
        row = {"tokens": selfplay_tokens(done["steps"]), "curves": proposer_curves(done["steps"])}
    else:
        done = rl_arm(seed, seed_dir, warm_start, arm, budget, overrides)
        row = {"tokens": rl_tokens(done["steps"])}
    row["accuracy"] = accuracy(done["summary"], "trained")
    row["sft_accuracy_check"] = accuracy(done["summary"], "sft")  # the warm start, re-read
    stop_workers()
    (seed_dir / f"{arm}.json").write_text(json.dumps(row, indent=1))


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.fmean(kept) if kept else None


def interval(differences: list[float]) -> dict[str, Any]:
    """Mean and two-sided 95% t-interval of paired per-seed differences."""
    n = len(differences)
    mean = statistics.fmean(differences) if differences else None
    if n < 2:
        return {"mean": mean, "ci95": None, "n": n}
    half = T95.get(n - 1, 1.96) * statistics.stdev(differences) / math.sqrt(n)
    return {"mean": mean, "ci95": [mean - half, mean + half], "n": n}


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in rows if r.get("status") == "ok"]
    out: dict[str, Any] = {"seeds_run": len(rows), "seeds_ok": len(ok)}
    out["accuracy"] = {arm: _mean([r["arms"][arm] for r in ok]) for arm in ARMS}
    out["tokens_mean"] = {
        arm: {
            k: _mean([r["tokens"][arm][k] for r in ok])
            for k in ("generated", "optimizer_steps", "trained_sequences")
        }
        for arm in ARMS
    }
    out["selfplay_minus_pts"] = {
        arm: interval([100 * (r["arms"]["selfplay"] - r["arms"][arm]) for r in ok])
        for arm in ARMS
        if arm != "selfplay"
    }
    for variant in ("", "frozen_", "balanced_"):
        pairs = [(r[f"{variant}frontier_share"], r[f"{variant}frontier_base_rate"]) for r in ok]
        # a run without one valid proposal has no frontier share
        kept = [share - base for share, base in pairs if share is not None and base is not None]
        out[f"{variant}frontier_share_minus_base_rate"] = interval(kept)
    frozen = out["selfplay_minus_pts"]["selfplay_frozen"]
    grpo = out["selfplay_minus_pts"]["grpo_uniform"]
    frontier = out["frontier_share_minus_base_rate"]
    checks = {
        "at_least_5_seeds": len(ok) >= 5 and len(ok) == len(rows),
        "selfplay_beats_frozen_by_3_pts": frozen["mean"] is not None and frozen["mean"] >= 3.0,
        "selfplay_minus_frozen_ci_above_0": bool(frozen["ci95"]) and frozen["ci95"][0] > 0,
        "selfplay_no_worse_than_grpo_uniform": grpo["mean"] is not None and grpo["mean"] >= 0.0,
        "frontier_share_above_base_rate": frontier["mean"] is not None and frontier["mean"] > 0,
    }
    out["must_show"] = checks
    out["must_show_met"] = all(checks.values())
    return out


def plot_proposer(rows: list[dict[str, Any]], path: Path) -> None:
    """The proposer's curves beside the solver's, mean over seeds (moving average of 5 steps)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def mean_curve(arm: str, key: str) -> list[float]:
        series = [r["curves"][arm][key] for r in rows if r.get("status") == "ok"]
        length = min(len(s) for s in series)
        per_step = [_mean([s[i] for s in series]) or 0.0 for i in range(length)]
        return [statistics.fmean(per_step[max(0, i - 4) : i + 1]) for i in range(length)]

    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    labels = {"selfplay": "self-play", "selfplay_frozen": "frozen proposer", "selfplay_balanced": "balanced"}
    for arm, style in (("selfplay", "-"), ("selfplay_frozen", "--"), ("selfplay_balanced", ":")):
        label = labels[arm]
        axes[0].plot(mean_curve(arm, "proposer_reward"), style, label=f"{label}: proposer reward")
        axes[0].plot(mean_curve(arm, "valid_rate"), style, label=f"{label}: valid rate")
        axes[1].plot(mean_curve(arm, "frontier_share"), style, label=f"{label}: proposals")
        axes[1].plot(
            mean_curve(arm, "frontier_base_rate"), style, alpha=0.5, label=f"{label}: uniform problems"
        )
        axes[2].plot(mean_curve(arm, "proposal_pass_rate"), style, label=f"{label}: on proposals")
        axes[2].plot(
            mean_curve(arm, "uniform_pass_rate"), style, alpha=0.5, label=f"{label}: on uniform problems"
        )
    axes[0].set_title("proposer")
    axes[1].set_title("share the solver solves < 50% (frontier)")
    axes[2].set_title("solver pass rate (8 samples, T=1)")
    for ax in axes:
        ax.set_xlabel("self-play step")
        ax.legend(fontsize=7)
    n = sum(1 for r in rows if r.get("status") == "ok")
    fig.suptitle(f"tiny preset, mean of {n} seeds, 5-step moving average")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    parser = seed_parser(__doc__.split("\n")[0], "runs/selfplay_tiny", RESULTS)
    parser.add_argument("--arm", choices=ARMS, help="(internal) run one ablation arm of --one SEED")
    parser.add_argument("--warm-start", help="(internal) the seed's saved warm start")
    parser.add_argument(
        "--token-budget", type=int, default=0, help="(internal) generated tokens of self-play"
    )
    args = parser.parse_args()
    out = Path(args.out)
    overrides = set_overrides(args)
    extra = set_flags(args)
    if args.arm is not None:
        run_arm(args.arm, args.one, out, args.warm_start, args.token_budget, overrides)
        return 0
    if args.one is not None:
        row = run_seed(args.one, out, overrides, extra)
        (out / f"seed{args.one}.json").write_text(json.dumps(row, indent=2))
        return 0
    rows, wall = run_or_collect(args, __file__, extra)
    result = {
        "benchmark": "selfplay_tiny",
        "question": "held-out greedy accuracy of self-play against its ablations (frozen proposer) and "
        "controls (SFT-only, SFT continued, RFT and uniform GRPO at self-play's generated tokens), from one "
        "warm start per seed; and whether the proposer poses problems at the solver's frontier more often "
        "than uniform problems are",
        "targets": TARGETS,
        "seeds": rows,
        **aggregate(rows),
        "total_wall_seconds": wall,
        "machine": machine(args.jobs),
        "overrides": overrides,
    }
    write_results(result, args.results, RESULTS, PLOT)
    if any(r.get("status") == "ok" for r in rows) and Path(args.results) == RESULTS:
        plot_proposer(rows, PROPOSER_PLOT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
