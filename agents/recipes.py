"""Recipes: YAML files of training settings (``configs/*.yaml``, ``palaestra train --config FILE``)
and the memory table docs/training.md shows for them."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from palaestra.agents.config import TrainConfig
from palaestra.agents.memory import DEVICE_SIZES_GB, known_architecture, memory_table

RECIPE_SECTIONS = ("mode", "train", "selfplay")
RECIPE_SELFPLAY_KEYS = ("language", "proposals", "probes", "reward", "warm_start_steps", "catalog_fraction")


def load_recipe(path: str) -> dict[str, Any]:
    """A recipe file: ``mode`` (grpo or selfplay), ``train`` (TrainConfig fields) and ``selfplay``
    (the ``--selfplay-*`` settings without the prefix). Unknown keys are errors, named."""
    import yaml

    try:
        with open(path) as fh:
            recipe = yaml.safe_load(fh) or {}
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot read recipe {path!r}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise argparse.ArgumentTypeError(f"recipe {path!r} is not valid YAML: {exc}") from None
    if not isinstance(recipe, dict):
        raise argparse.ArgumentTypeError(f"recipe {path!r} must be a mapping")
    for section in ("train", "selfplay"):
        if not isinstance(recipe.get(section) or {}, dict):
            raise argparse.ArgumentTypeError(f"recipe {path!r}: {section} must be a mapping of settings")
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = [
        *(k for k in recipe if k not in RECIPE_SECTIONS),
        *(f"train.{k}" for k in recipe.get("train") or {} if k not in fields),
        *(f"selfplay.{k}" for k in recipe.get("selfplay") or {} if k not in RECIPE_SELFPLAY_KEYS),
    ]
    if unknown:
        raise argparse.ArgumentTypeError(f"recipe {path!r}: unknown keys {unknown}")
    if recipe.get("mode", "grpo") not in ("grpo", "selfplay"):
        raise argparse.ArgumentTypeError(f"recipe {path!r}: mode must be grpo or selfplay")
    return {**recipe, "mode": recipe.get("mode", "grpo"), "train": recipe.get("train") or {}}


def recipe_config(path: str) -> TrainConfig:
    """The training config a recipe file describes (config defaults below it)."""
    return TrainConfig(**load_recipe(path)["train"])


def recipes_markdown(recipe_paths: list[str]) -> str:
    """docs/training.md's recipe table: per recipe and GPU size, the micro-batch the preflight
    picks (or "no": it does not fit), the vLLM fraction and the estimate in GB."""
    head = " | ".join(f"{size} GB" for size in DEVICE_SIZES_GB)
    lines = [f"| recipe | model | {head} |", "|---|---|" + "---|" * len(DEVICE_SIZES_GB)]
    for path in recipe_paths:
        config = recipe_config(path)
        cells = []
        for row in memory_table(known_architecture(config.model), config):
            if row["fits"]:
                cells.append(
                    f"micro {row['micro_batch_size']}, vLLM {row['vllm_gpu_memory_utilization']:.2f}, "
                    f"{row['estimate_gb']:g} GB"
                )
            else:
                cells.append(f"no ({row['estimate_gb']:g} GB at micro 1)")
        model = config.model.rstrip("/").split("/")[-1]
        lora = f", LoRA r{config.lora_rank}" if config.lora_rank else ""
        lines.append(f"| `{path}` | {model}{lora} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
