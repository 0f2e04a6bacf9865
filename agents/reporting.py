"""Progress bar with ETA, PNG plots of the metrics, and the final summary table."""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO


class ProgressBar:
    """A one-line ``sft [####....] 12/60 steps  loss 0.41  00:45<02:10`` bar on stderr; ``unit`` names
    what it counts."""

    def __init__(
        self,
        total: int,
        *,
        label: str = "train",
        unit: str = "steps",
        stream: TextIO | None = None,
        enabled: bool = True,
    ):
        self.total = max(total, 1)
        self.label = label
        self.unit = unit
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.start = time.perf_counter()
        self.done = 0
        self.first = 0

    def begin_at(self, done: int) -> None:
        """Resumed runs: count ETA from the steps this process does."""
        self.done = self.first = done
        self.start = time.perf_counter()

    def update(self, done: int, info: str = "") -> None:
        self.done = done
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        rate = (done - self.first) / elapsed if elapsed > 0 and done > self.first else 0.0
        eta = (self.total - done) / rate if rate > 0 else math.nan
        width = 24
        filled = int(width * done / self.total)
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(
            f"\r{self.label} [{bar}] {done}/{self.total} {self.unit} {info}  {_clock(elapsed)}<{_clock(eta)}   "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def plural(count: int, noun: str) -> str:
    """``1 sample``, ``2 samples``, ``1 family``, ``3 families``."""
    if count == 1:
        return f"{count} {noun}"
    return (
        f"{count} {noun[:-1]}ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else f"{count} {noun}s"
    )


def _clock(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "--:--"
    seconds = int(seconds)
    return (
        f"{seconds // 60:02d}:{seconds % 60:02d}"
        if seconds < 3600
        else f"{seconds // 3600}h{seconds // 60 % 60:02d}"
    )


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    path = Path(path)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# (title, metric prefixes, y-axis label)
PANELS: list[tuple[str, Sequence[str], str]] = [
    ("reward", ("rollout/reward",), "mean reward"),
    ("solve rate per family / level", ("solve/",), "solve rate"),
    ("curriculum level", ("curriculum/",), "level"),
    ("KL to reference", ("train/kl",), "KL (k3)"),
    ("entropy", ("train/entropy",), "nats per token"),
    ("response tokens", ("rollout/response_tokens",), "tokens"),
    ("rollout tokens/s", ("throughput/rollout_tokens_per_s",), "tokens/s"),
    ("time per phase (s)", ("time/rollout_s", "time/train_s", "time/sync_s"), "seconds"),
]
X_LABEL = "policy updates before the step's rollouts"


def updates_before(row: dict[str, Any]) -> int:
    """A GRPO ``step`` row's rollouts (and reward) come from the policy before that step's update:
    plotted at ``step - 1`` updates, so curves start at 0 and line up with held-out evaluations
    (logged after ``step`` updates). Self-play rows already count from 0."""
    return int(row["step"]) - 1 if row.get("kind") == "step" else int(row["step"])


def _series(
    rows: Sequence[dict[str, Any]], prefixes: Sequence[str], title: str
) -> dict[str, list[tuple[int, float]]]:
    keys = sorted(
        {k for r in rows for k in r if any(k == p or (p.endswith("/") and k.startswith(p)) for p in prefixes)}
    )
    if title == "curriculum level":
        keys = [k for k in keys if k.endswith("/level")]
    out = {}
    for key in keys:
        pts = [(updates_before(r), float(r[key])) for r in rows if isinstance(r.get(key), (int, float))]
        if pts:
            out[key] = pts
    return out


def informative_panels(
    rows: Sequence[dict[str, Any]],
) -> list[tuple[str, dict[str, list[tuple[int, float]]], str]]:
    """The panels worth drawing: a metric that never moves (a fixed curriculum level, KL without a
    KL penalty) or one that repeats the reward (one family's solve rate when reward = correct)
    would be an empty or duplicate panel."""
    reward = [y for _, y in _series(rows, ("rollout/reward",), "reward").get("rollout/reward", [])]
    panels = []
    for title, prefixes, ylabel in PANELS:
        series = _series(rows, prefixes, title)
        if title != "reward" and all(len({y for _, y in pts}) <= 1 for pts in series.values()):
            continue  # nothing moves (or nothing logged)
        if title.startswith("solve rate") and all(
            [y for _, y in pts] == reward for key, pts in series.items()
        ):
            continue  # the same numbers as the reward panel
        panels.append((title, series, ylabel))
    return panels


def plot_metrics(rows: Sequence[dict[str, Any]], out_dir: str | Path) -> list[Path]:
    """One PNG with a panel per informative metric group (``training.png``) and one PNG per panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    steps_rows = [r for r in rows if r.get("kind") == "step"]
    if not steps_rows:
        return []
    panels = informative_panels(steps_rows)
    cols = min(4, len(panels))
    nrows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.5 * cols, 3.5 * nrows), squeeze=False)
    for ax in axes.flat[len(panels) :]:
        ax.remove()
    for ax, panel in zip(axes.flat, panels, strict=False):
        _panel(ax, *panel)
    fig.tight_layout()
    path = out_dir / "training.png"
    fig.savefig(path, dpi=80)
    plt.close(fig)
    written = [path]
    for title, series, ylabel in panels:
        fig, ax = plt.subplots(figsize=(5, 3.4))
        _panel(ax, title, series, ylabel)
        fig.tight_layout()
        prefixes = next(p for t, p, _ in PANELS if t == title)
        p = out_dir / f"{prefixes[0].strip('/').replace('/', '_')}.png"
        fig.savefig(p, dpi=80)
        plt.close(fig)
        written.append(p)
    return written


def _panel(ax: Any, title: str, series: dict[str, list[tuple[int, float]]], ylabel: str) -> None:
    from matplotlib.ticker import MaxNLocator

    for key, pts in series.items():
        xs, ys = zip(*pts, strict=True)
        ax.plot(xs, ys, label=key, linewidth=1)
    ax.set_title(title)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # steps are whole numbers
    ax.set_xlabel(X_LABEL, fontsize=8)
    ax.set_ylabel(ylabel)
    if 1 < len(series) <= 8:
        ax.legend(fontsize=6, loc="best")


def summary_table(summary: dict[str, Any]) -> str:
    """A plain two-column table of the run's headline numbers."""
    lines = []
    width = max(len(k) for k in summary) if summary else 0
    for key, value in summary.items():
        text = f"{value:.4g}" if isinstance(value, float) else str(value)
        lines.append(f"  {key:<{width}}  {text}")
    bar = "-" * (width + 14)
    return "\n".join([bar, "  palaestra train: summary", bar, *lines, bar])


ARM_LABELS = {"sft": "SFT only (before)", "control": "SFT continued (control)", "trained": "after {mode}"}
ARM_COLOURS = {"sft": "#9e9e9e", "control": "#6a8fc7", "trained": "#d9622b"}


def smooth(values: Sequence[float], weight: float = 0.9) -> list[float]:
    """Exponential moving average with bias correction (TensorBoard-style smoothing)."""
    out, avg = [], 0.0
    for i, v in enumerate(values, start=1):
        avg = weight * avg + (1 - weight) * v
        out.append(avg / (1 - weight**i))
    return out


def plot_summary(
    rows: Sequence[dict[str, Any]],
    arms: dict[str, Any],
    path: str | Path,
    step_kind: str = "step",
    reward_key: str = "rollout/reward",
    mode: str = "RL",
) -> Path:
    """``summary.png``: the smoothed training reward with the held-out accuracy of every arm
    (left), and held-out greedy accuracy per arm and per subset with standard errors (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.6), gridspec_kw={"width_ratios": [1.1, 1]})
    steps = [r for r in rows if r.get("kind") == step_kind and reward_key in r]
    if steps:
        xs = [updates_before(r) for r in steps]
        ys = [float(r[reward_key]) for r in steps]
        left.plot(xs, ys, color=ARM_COLOURS["trained"], alpha=0.25, linewidth=1, label="training reward")
        left.plot(
            xs, smooth(ys), color=ARM_COLOURS["trained"], linewidth=2, label="training reward (smoothed)"
        )
    # the held-out curve starts at the warm start (step 0) and ends at the final evaluation
    mid = [r for r in rows if r.get("kind") in ("eval_sft", "eval") and "eval/accuracy" in r]
    if mid:
        left.plot(
            [r["step"] for r in mid],
            [r["eval/accuracy"] for r in mid],
            "o-",
            color="black",
            markersize=4,
            linewidth=1,
            label="held-out accuracy during training",
        )
    for arm in ("sft", "control", "trained"):
        if arm in arms:
            acc = arms[arm].metrics["eval/accuracy"]
            left.axhline(
                acc,
                color=ARM_COLOURS[arm],
                linestyle="--",
                linewidth=1.2,
                label=f"held-out, {ARM_LABELS[arm].format(mode=mode)}: {acc:.3f}",
            )
    left.set_xlabel(f"{mode}: policy updates")
    left.xaxis.set_major_locator(MaxNLocator(integer=True))
    left.set_ylabel("reward / accuracy")
    left.set_ylim(0, 1)
    left.set_title("training reward and held-out greedy accuracy")
    # below the axes, so that no curve is hidden behind it
    left.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)

    subsets = ["all"] + sorted(
        {
            k.split("/")[2] + "/" + k.split("/")[3]
            if k.startswith("eval/subset/teacher_wrong")
            else k.split("/")[2]
            for a in arms.values()
            for k in a.metrics
            if k.startswith("eval/subset/") and k.endswith("/accuracy")
        }
    )
    present = [a for a in ("sft", "control", "trained") if a in arms]
    width = 0.8 / max(1, len(present))
    for i, arm in enumerate(present):
        metrics = arms[arm].metrics
        values, errors = [], []
        for name in subsets:
            prefix = "eval/" if name == "all" else f"eval/subset/{name}/"
            values.append(metrics.get(f"{prefix}accuracy", float("nan")))
            errors.append(metrics.get(f"{prefix}accuracy_se", 0.0))
        xs = [j + (i - (len(present) - 1) / 2) * width for j in range(len(subsets))]
        bars = right.bar(
            xs,
            values,
            width,
            yerr=errors,
            capsize=3,
            color=ARM_COLOURS[arm],
            edgecolor="black",
            linewidth=0.5,
            label=ARM_LABELS[arm].format(mode=mode),
        )
        # the value on every bar: a bar of height 0 is otherwise invisible
        right.bar_label(bars, labels=[f"{v:.2f}" for v in values], fontsize=6, padding=2)
    counts = [
        int(arms[present[-1]].metrics.get("eval/problems" if n == "all" else f"eval/subset/{n}/problems", 0))
        for n in subsets
    ]
    right.set_xticks(
        range(len(subsets)),
        [
            f"{n.replace('teacher_', 'teacher ')}\n({c} problems)"
            for n, c in zip(subsets, counts, strict=True)
        ],
        fontsize=8,
    )
    right.set_ylim(0, 1.1)
    right.set_ylabel("held-out greedy accuracy (± s.e.)")
    right.set_title("held-out accuracy per arm and subset")
    right.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, frameon=False)
    if "trained" in arms and "sft" in arms:
        before, after = arms["sft"].metrics["eval/accuracy"], arms["trained"].metrics["eval/accuracy"]
        title = (
            f"{mode}: held-out accuracy {before:.3f} -> {after:.3f} ({100 * (after - before):+.1f} points)"
        )
        if "control" in arms:
            title += f"; equal-compute SFT control {arms['control'].metrics['eval/accuracy']:.3f}"
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
