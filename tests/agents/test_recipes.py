"""Recipes (configs/*.yaml), the memory preflight's table in docs/training.md, and every documented
`palaestra train` command checked against that preflight."""

from __future__ import annotations

import argparse
import re
import shlex
from dataclasses import replace
from pathlib import Path

import pytest

from palaestra.agents.cli import add_cli, config_from_args
from palaestra.agents.memory import DEVICE_SIZES_GB, known_architecture, memory_table, parameter_count
from palaestra.agents.recipes import load_recipe, recipes_markdown

REPO = Path(__file__).resolve().parents[2]
RECIPES = sorted(str(p.relative_to(REPO)) for p in (REPO / "configs").glob("*.yaml"))
DOCS = ("docs/training.md", "docs/selfplay.md", "README.md")
CPU_RAM_GB = 24  # the CI machine: tiny-model commands must fit it


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    add_cli(p.add_subparsers())
    return p


def documented_commands() -> list[tuple[str, list[str]]]:
    """Every `palaestra train ...` command in the docs, continuation lines joined, comments cut."""
    found = []
    for doc in DOCS:
        text = (REPO / doc).read_text().replace("\\\n", " ")
        for line in text.splitlines():
            match = re.search(r"(?:^|&& |\s)palaestra train( .*)?$", line)
            if not match or "`palaestra train" in line:
                continue
            argv = shlex.split(match.group(1) or "", comments=True)
            found.append((doc, ["train", *argv]))
    return found


def test_recipes_parse_and_name_known_architectures():
    assert len(RECIPES) >= 12
    for path in RECIPES:
        config = config_from_args(parser().parse_args(["train", "--config", str(REPO / path)]))
        assert parameter_count(known_architecture(config.model)) > 4e8, path
        assert config.micro_batch_size == 0 and config.gradient_checkpointing and config.warmup_steps > 0


def test_a_recipe_with_an_unknown_key_is_refused_by_name(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("mode: grpo\ntrain:\n  learning_rat: 1e-6\n")
    with pytest.raises(argparse.ArgumentTypeError, match=r"train\.learning_rat"):
        load_recipe(str(bad))
    bad.write_text("mode: dpo\n")
    with pytest.raises(argparse.ArgumentTypeError, match="mode"):
        load_recipe(str(bad))
    bad.write_text("mode: grpo\ntrain: [1, 2]\n")
    with pytest.raises(argparse.ArgumentTypeError, match="train must be a mapping"):
        load_recipe(str(bad))
    bad.write_text("mode: grpo\ntrain:\n")  # an empty section: the config defaults
    assert load_recipe(str(bad))["train"] == {}


def test_command_line_flags_override_the_recipe_and_the_mode_comes_from_it():
    from palaestra.agents.selfplay.cli import resolve_selfplay_args, selfplay_enabled

    recipe = str(REPO / "configs/selfplay-python-qwen2.5-1.5b.yaml")
    args = parser().parse_args(["train", "--config", recipe, "--steps", "7", "--selfplay-probes", "4"])
    config = config_from_args(args)
    assert config.steps == 7 and config.max_new_tokens == 1024  # flag, then recipe
    assert selfplay_enabled(args)
    resolve_selfplay_args(args)
    assert (args.selfplay_language, args.selfplay_probes) == ("python", 4)
    grpo = parser().parse_args(["train", "--config", str(REPO / "configs/grpo-qwen2.5-0.5b.yaml")])
    assert not selfplay_enabled(grpo)


def test_docs_table_is_what_the_preflight_computes():
    text = (REPO / "docs/training.md").read_text()
    table = text.split("<!-- recipe-table:begin -->\n", 1)[1].split("<!-- recipe-table:end -->", 1)[0]
    assert table == recipes_markdown(RECIPES)


def test_every_documented_command_passes_the_preflight(tiny_path):
    """The documented GPU commands failed the loop's own preflight (micro-batch 64: 138 GiB for
    0.5B). Now each command fits every GPU size its recipe's row claims, and each tiny-model
    command fits this 24 GB machine."""
    from transformers import AutoConfig

    from palaestra.agents.policy import check_memory

    commands = documented_commands()
    assert len(commands) >= 12
    for doc, argv in commands:
        if "--help" in argv:
            continue
        config = config_from_args(parser().parse_args(argv))
        if config.model == "tiny":
            check_memory(
                AutoConfig.from_pretrained(tiny_path), replace(config, memory_limit_gb=CPU_RAM_GB), "cpu"
            )
            continue
        assert "--config" in argv, f"{doc}: a real-model command without a recipe: {shlex.join(argv)}"
        recipe = config_from_args(
            parser().parse_args(["train", "--config", argv[argv.index("--config") + 1]])
        )
        arch = known_architecture(config.model)
        claimed = [row["device_gb"] for row in memory_table(arch, recipe) if row["fits"]]
        assert claimed, f"{doc}: the recipe fits no GPU size"
        rows = {row["device_gb"]: row for row in memory_table(arch, config)}
        for size in claimed:
            assert rows[size]["fits"], f"{doc}: {shlex.join(argv)} does not fit {size} GB"
    assert set(DEVICE_SIZES_GB) == {24, 48, 80, 141}


def test_preflight_sizes_the_micro_batch_and_refuses_what_cannot_fit(tiny_path):
    from palaestra.agents.policy import check_memory

    arch = known_architecture("Qwen2.5-0.5B-Instruct")
    config = config_from_args(parser().parse_args(["train", "--config", str(REPO / RECIPES[0])]))
    config.memory_limit_gb = 80 * 10**9 / 2**30
    check_memory(arch, config, "cuda")
    assert config.micro_batch_size in (8, 16, 32, 64) and 0 < config.vllm_gpu_memory_utilization < 0.5
    # the old default (micro-batch 64, no checkpointing) on an 80 GB GPU: refused with the estimate
    old = replace(config, micro_batch_size=64, gradient_checkpointing=False, max_model_len=512)
    with pytest.raises(ValueError, match="GiB are available"):
        check_memory(arch, old, "cuda")
