"""Experiment trackers beside ``metrics.jsonl``: TensorBoard and (optionally) Weights & Biases.

``--log-to tensorboard,wandb`` mirrors every row the run logs: each numeric field becomes a scalar
named ``<row kind>/<field>`` at the row's ``step`` (TensorBoard event files in ``<run>/tensorboard``;
a wandb run in ``<run>/wandb``, online or offline as ``WANDB_MODE`` says). ``metrics.jsonl``
stays the record; a tracker that cannot start stops the run before any work, naming what to install.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

TRACKERS = ("tensorboard", "wandb")


def parse_trackers(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in TRACKERS]
    if unknown:
        raise ValueError(f"config log_to names unknown trackers {unknown}; choose from {list(TRACKERS)}")
    return names


def scalars(row: dict[str, Any]) -> dict[str, float]:
    """The row's finite numeric fields, named ``<kind>/<field>`` (booleans and nested values skipped)."""
    kind = row.get("kind", "metrics")
    out = {}
    for key, value in row.items():
        if key in ("kind", "step") or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if math.isfinite(value):
            out[f"{kind}/{key}"] = float(value)
    return out


class Trackers:
    """The trackers a run logs to (none: every method does nothing)."""

    def __init__(self, names: list[str], out: Path, run_config: dict[str, Any], project: str) -> None:
        self.tensorboard: Any = None
        self.wandb_run: Any = None
        self.logged = 0
        if "tensorboard" in names:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:
                raise ValueError("--log-to tensorboard needs tensorboard: pip install tensorboard") from None
            self.tensorboard = SummaryWriter(log_dir=str(out / "tensorboard"))
        if "wandb" in names:
            try:
                import wandb
            except ImportError:
                raise ValueError("--log-to wandb needs wandb: pip install wandb") from None
            (out / "wandb").mkdir(parents=True, exist_ok=True)
            self.wandb_run = wandb.init(
                project=project, dir=str(out), config=run_config, reinit="finish_previous"
            )

    def log(self, row: dict[str, Any]) -> None:
        values = scalars(row)
        if not values:
            return
        step = int(row.get("step", self.logged))
        if self.tensorboard is not None:
            for name, value in values.items():
                self.tensorboard.add_scalar(name, value, global_step=step)
        if self.wandb_run is not None:
            self.wandb_run.log({**values, "step": step})
        self.logged += 1

    def close(self) -> None:
        if self.tensorboard is not None:
            self.tensorboard.close()
            self.tensorboard = None
        if self.wandb_run is not None:
            self.wandb_run.finish()
            self.wandb_run = None
