"""``palaestra train``: flags generated from :class:`TrainConfig` fields (with their help text).

palaestra train --preset tiny                       # CPU, built-in tiny model: self-play (arith)
palaestra train --preset tiny --no-selfplay         # the same model: plain GRPO on --families
palaestra train --model ./my-model --backend vllm   # any local Hugging Face causal LM (GRPO)
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from palaestra.agents.config import PRESETS, SELFPLAY_PRESETS, TrainConfig, field_types
from palaestra.agents.recipes import load_recipe


def add_cli(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "train",
        help="train a model on palaestra tasks (self-play or GRPO; SFT warm start; curriculum)",
        description="Train a model on palaestra tasks: by proposer/solver self-play (--selfplay; the "
        "default of --preset tiny) or by GRPO on catalog families (--no-selfplay; the default otherwise). "
        "Every flag defaults to the preset's value (or the config default without a preset).",
    )
    p.add_argument("--preset", choices=sorted(PRESETS), default=None, help="start from a named preset")
    p.add_argument(
        "--config",
        dest="recipe",
        type=load_recipe,
        default=None,
        metavar="FILE",
        help="a YAML recipe (configs/*.yaml): config fields under `train`, self-play settings under "
        "`selfplay`; flags given on the command line override it",
    )
    types = field_types()
    for f in dataclasses.fields(TrainConfig):
        flag = "--" + f.name.replace("_", "-")
        kind = types[f.name]
        help_text = f"{f.metadata.get('help', '')} ({default_text(f.name, f.default)})"
        help_text = help_text.replace("%", "%%")  # argparse %-formats help: a literal % is doubled
        if kind is bool:
            p.add_argument(
                flag, dest=f.name, action=argparse.BooleanOptionalAction, default=None, help=help_text
            )
        else:
            choices = f.metadata.get("choices")
            p.add_argument(
                flag,
                dest=f.name,
                type=kind,
                default=None,
                choices=choices,
                help=help_text,
                metavar=f.name.upper() if not choices else None,
            )
    from palaestra.agents.selfplay.cli import add_selfplay_arguments

    add_selfplay_arguments(p)  # --selfplay and its options (docs/selfplay.md)
    p.set_defaults(run=run_train)


def default_text(name: str, default: Any) -> str:
    """A flag's defaults for the help text: the config default, then each preset's value where it
    differs (``--preset tiny --help`` used to show only the config default, which that preset
    overrides)."""
    parts = [f"default: {default!r}"]
    for preset_name, values in sorted(PRESETS.items()):
        selfplay = SELFPLAY_PRESETS.get(preset_name, {}).get("train", {})
        if name in values and values[name] != default:
            parts.append(f"preset {preset_name}: {values[name]!r}")
        if name in selfplay and selfplay[name] != values.get(name, default):
            parts.append(f"preset {preset_name} self-play: {selfplay[name]!r}")
    return "; ".join(parts)


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The preset (if any; in self-play mode with its self-play ``train`` fields) with every flag
    the user gave applied on top."""
    from palaestra.agents.selfplay.cli import selfplay_enabled

    given = {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(TrainConfig)
        if getattr(args, f.name, None) is not None
    }
    base = dict(PRESETS[args.preset]) if args.preset else {}
    if args.preset in SELFPLAY_PRESETS and selfplay_enabled(args):
        base.update(SELFPLAY_PRESETS[args.preset].get("train", {}))
    recipe = getattr(args, "recipe", None) or {}
    merged = {**base, **recipe.get("train", {}), **given}
    if "families" in given and "knobs" not in given and merged.get("knobs"):
        merged["knobs"] = knobs_for(merged["knobs"], merged["families"])
    return TrainConfig(**merged)


def knobs_for(knobs: str, families: str) -> str:
    """A preset's or recipe's knob overrides kept for the families the command trains on
    (``--preset tiny --families mastermind`` failed: the preset's knobs name ``expression``)."""
    import json

    from palaestra.agents.tasks import parse_knobs

    names = {f.strip() for f in families.split(",")}
    kept = {family: values for family, values in parse_knobs(knobs).items() if family in names}
    return json.dumps(kept) if kept else ""


# config defaults tuned for the built-in tiny model that a real model should not inherit unawares
TINY_DEFAULTS = ("learning_rate", "max_new_tokens", "max_model_len")


def tiny_defaults_note(args: argparse.Namespace, config: TrainConfig) -> str | None:
    """A one-line note when a real model runs on the tiny model's defaults (no preset, no recipe,
    none of :data:`TINY_DEFAULTS` given): lr 2e-4, 24 new tokens and a 512-token context."""
    if config.model == "tiny" or args.preset or getattr(args, "recipe", None):
        return None
    inherited = [name for name in TINY_DEFAULTS if getattr(args, name, None) is None]
    if not inherited:
        return None
    values = ", ".join(f"{name}={getattr(config, name)!r}" for name in inherited)
    return (
        f"note: {values} are defaults tuned for the built-in tiny model; for a real model start from "
        "a recipe (palaestra train --config configs/grpo-qwen2.5-0.5b.yaml --model PATH; docs/training.md)"
    )


def run_train(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    note = tiny_defaults_note(args, config)
    if note:
        print(note, file=sys.stderr)
    from palaestra.agents.policy import check_families

    check_families(config.family_list())  # the cheapest check first, even without torch
    from palaestra.agents.selfplay.cli import run_selfplay_train, selfplay_enabled

    if selfplay_enabled(args):  # --selfplay, or a preset that self-plays unless --no-selfplay
        return run_selfplay_train(args, config)
    from palaestra.agents.run import quiet_third_party

    quiet_third_party(config.verbose)  # before torch is imported: it reads its log level then
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        raise ValueError(
            "training needs torch and transformers: pip install 'palaestra[train]' (see docs/training.md)"
        ) from None
    from palaestra.agents.run import run_training

    run_training(config)
    return 0
