"""``palaestra train --selfplay``: self-play flags and the run.

``agents/cli.py`` owns the ``train`` subcommand and adds these flags. Self-play is on with
``--selfplay``, off with ``--no-selfplay``, and otherwise on exactly for the presets listed in
``SELFPLAY_PRESETS`` (``--preset tiny``: self-play in the ``arith`` language). Each self-play flag
left out takes the preset's value, else the default in ``SELFPLAY_DEFAULTS``.
``python -m palaestra.agents.selfplay.cli`` runs the same thing with self-play always on.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from palaestra.agents.config import SELFPLAY_PRESETS

from .languages import LANGUAGES, make_language
from .loop import SelfPlay, SelfPlayConfig
from .rewards import FORMS, MIN_PROBES

WARM_START_REPLAY = 16  # catalog examples in each arith warm-start batch (next to 16 DSL examples)
# Share of one-operation tasks (`a + b`, `a - b` over digits) in the arith warm start: on harder random
# programs alone the tiny solver failed nearly every probe, so learnability (and the gradient) was 0.
WARM_START_EASY = 0.5

# The value of each self-play flag that neither the command line nor the preset sets.
SELFPLAY_DEFAULTS: dict[str, Any] = {
    "language": "arith",
    "proposals": 8,
    "probes": MIN_PROBES,
    "reward": "azr",
    "warm_start_steps": 0,
    "catalog_fraction": 0.0,
}


def add_selfplay_arguments(parser: argparse.ArgumentParser) -> None:
    """The self-play flags of ``palaestra train`` (defaults resolved by :func:`resolve_selfplay_args`)."""
    d = SELFPLAY_DEFAULTS
    g = parser.add_argument_group("self-play (docs/selfplay.md)")
    g.add_argument(
        "--selfplay",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train by proposer/solver self-play; --no-selfplay: plain GRPO on --families "
        f"(default: on for the presets {sorted(SELFPLAY_PRESETS)}, off otherwise)",
    )
    g.add_argument(
        "--selfplay-language",
        choices=sorted(LANGUAGES),
        default=None,
        help=f"task language the proposer writes (default: the preset's, else {d['language']})",
    )
    g.add_argument(
        "--selfplay-proposals",
        type=int,
        default=None,
        help=f"proposals per task type per step (default: the preset's, else {d['proposals']})",
    )
    g.add_argument(
        "--selfplay-probes",
        type=int,
        default=None,
        help=f"solver attempts per proposal for its pass rate, >= {MIN_PROBES} (default: the preset's, "
        f"else {d['probes']})",
    )
    g.add_argument(
        "--selfplay-reward",
        choices=FORMS,
        default=None,
        help=f"proposer learnability form (default: the preset's, else {d['reward']})",
    )
    g.add_argument(
        "--selfplay-warm-start-steps",
        type=int,
        default=None,
        help="arith only: SFT steps on random DSL proposals and their answers before self-play "
        f"(default: the preset's, else {d['warm_start_steps']})",
    )
    g.add_argument(
        "--selfplay-catalog-fraction",
        type=float,
        default=None,
        help="extra catalog tasks per step, as a fraction of valid proposals (default: the preset's, "
        f"else {d['catalog_fraction']})",
    )


def selfplay_enabled(args: argparse.Namespace) -> bool:
    """``--selfplay`` / ``--no-selfplay`` if given, else whether the preset trains by self-play."""
    flag = getattr(args, "selfplay", None)
    if flag is not None:
        return bool(flag)
    return getattr(args, "preset", None) in SELFPLAY_PRESETS


def resolve_selfplay_args(args: argparse.Namespace) -> argparse.Namespace:
    """Fill every self-play flag left out with the preset's value, else the default (in place)."""
    from_preset = SELFPLAY_PRESETS.get(getattr(args, "preset", None) or "", {})
    for key, default in SELFPLAY_DEFAULTS.items():
        if getattr(args, f"selfplay_{key}", None) is None:
            setattr(args, f"selfplay_{key}", from_preset.get(key, default))
    return args


def selfplay_config_from_args(args: argparse.Namespace, train_config: Any) -> SelfPlayConfig:
    """Self-play settings: the flags (resolved), with temperature and seed from the training config."""
    resolve_selfplay_args(args)
    return SelfPlayConfig(
        proposals_per_type=args.selfplay_proposals,
        probes=args.selfplay_probes,
        temperature=float(getattr(train_config, "temperature", 1.0)),
        reward_form=args.selfplay_reward,
        catalog_fraction=args.selfplay_catalog_fraction,
        catalog_families=tuple(train_config.family_list()) if args.selfplay_catalog_fraction else (),
        seed=int(getattr(train_config, "seed", 0)),
    )


def run_selfplay(
    config: Any,
    selfplay_config: SelfPlayConfig,
    language: str,
    *,
    warm_start_steps: int = 0,
    quiet: bool = False,
) -> dict[str, Any]:
    """A self-play run: optional SFT warm start, then ``config.steps`` self-play steps; writes
    ``metrics.jsonl`` (kinds ``eval_sft`` and ``selfplay``), checkpoints whose ``extra`` holds the
    self-play state (buffers, baselines, counters, sampler; ``--resume`` continues from the
    latest) and ``summary.json`` to ``config.output_dir``."""
    from palaestra.agents.checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
    from palaestra.agents.run import _sft_phase
    from palaestra.agents.trainer import GRPOTrainer, write_jsonl

    from .trainer import SelfPlayLoop

    say = (lambda *_: None) if quiet else (lambda msg: print(msg, file=sys.stderr))
    out = Path(config.output_dir)
    trainer = GRPOTrainer(config)
    out.mkdir(parents=True, exist_ok=True)
    sandbox = None
    # the family language offers the proposer exactly the --families of the run
    lang = make_language(
        language, **({"allowed": tuple(config.family_list())} if language == "family" else {})
    )
    if lang.needs_sandbox:
        from palaestra.sandbox import Sandbox

        sandbox = Sandbox(workers=selfplay_config.verify_workers)
    try:
        play = SelfPlay(lang, selfplay_config, sandbox=sandbox)
        loop = SelfPlayLoop(trainer, play)
        resumed = latest_checkpoint(out) if config.resume else None
        sft_eval = None
        if resumed is not None:  # weights, optimizer and self-play state saved together
            extra = load_checkpoint(trainer, resumed)
            play.load_state_dict(extra["selfplay"])
            loop.policy.rng.bit_generator.state = extra["sampler"]
            say(f"resumed from {resumed} at self-play step {play.step_count}")
        else:
            if config.sft_steps > 0:
                sft = _sft_phase(trainer, out / "metrics.jsonl", config, say)
                write_jsonl(out / "metrics.jsonl", {"kind": "sft_done", **sft})
            if warm_start_steps > 0 and language == "arith":  # teach the DSL format to both roles
                from .warmstart import proposer_warm_start

                t0 = time.perf_counter()
                losses = proposer_warm_start(
                    trainer,
                    play.language,
                    steps=warm_start_steps,
                    seed=config.seed,
                    references=selfplay_config.references,
                    replay_families=config.family_list(),  # keep the catalog SFT's skills
                    replay_levels=config.sft_level_list(),
                    replay=WARM_START_REPLAY,
                    easy_fraction=WARM_START_EASY,
                )
                row = {"kind": "selfplay_warm_start", "loss": losses[-1], "loss_first": losses[0]}
                write_jsonl(out / "metrics.jsonl", {**row, "seconds": time.perf_counter() - t0})
            trainer.snapshot_reference()
            trainer.sync()
            sft_eval = trainer.evaluate()  # the starting point self-play is measured against
            write_jsonl(out / "metrics.jsonl", {"kind": "eval_sft", "step": 0, **sft_eval})
        last: dict[str, Any] = {}
        while play.step_count < config.steps:
            t0 = time.perf_counter()
            _, last = loop.step()
            last["time/step_s"] = time.perf_counter() - t0
            trainer.step_count = play.step_count
            write_jsonl(out / "metrics.jsonl", {"kind": "selfplay", **last})
            if config.checkpoint_every and play.step_count % config.checkpoint_every == 0:
                save_checkpoint(trainer, _extra(play, loop))
            say(
                f"step {last['step']}: valid {last['valid_rate']:.2f} learnability {last['mean_learnability']:.2f} "
                f"solver {last['solver_reward']:.2f}"
            )
        final = trainer.evaluate()
        write_jsonl(out / "metrics.jsonl", {"kind": "eval", "step": play.step_count, **final})
        save_checkpoint(trainer, _extra(play, loop))
        summary = {"steps": play.step_count, "last": last, "sft_eval": sft_eval, "eval": final}
        (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
        if config.plots:
            _plot(out, say)
        if not quiet:
            print(_table(summary, language))
        return summary
    finally:
        if sandbox is not None:
            sandbox.close()
        trainer.backend.close()


def _table(summary: dict[str, Any], language: str) -> str:
    """The headline numbers of a self-play run, as a plain table."""
    from palaestra.agents.reporting import summary_table

    last = summary["last"] or {}
    rows: dict[str, Any] = {"mode": f"self-play ({language})", "self-play steps": summary["steps"]}
    if summary["sft_eval"] is not None:
        rows["held-out accuracy before self-play"] = summary["sft_eval"]["eval/accuracy"]
    rows["held-out accuracy after self-play"] = summary["eval"]["eval/accuracy"]
    for key in ("valid_rate", "mean_learnability", "solver_reward"):
        if key in last:
            rows[f"last step {key}"] = float(last[key])
    return summary_table(rows)


def _plot(out: Path, say: Any) -> None:
    """``plots/selfplay.png``: valid-proposal rate, learnability and rewards over the steps."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        say("matplotlib is not installed: no plots")
        return
    from palaestra.agents.reporting import read_jsonl

    rows = [r for r in read_jsonl(out / "metrics.jsonl") if r.get("kind") == "selfplay"]
    keys = ("valid_rate", "mean_learnability", "proposer_reward", "solver_reward")
    fig, axes = plt.subplots(1, len(keys), figsize=(4 * len(keys), 3))
    for ax, key in zip(axes, keys, strict=True):
        ax.plot([r["step"] for r in rows], [r[key] for r in rows], linewidth=1)
        ax.set_title(key)
        ax.set_xlabel("self-play step")
    fig.tight_layout()
    (out / "plots").mkdir(exist_ok=True)
    fig.savefig(out / "plots" / "selfplay.png", dpi=80)
    plt.close(fig)


def _extra(play: SelfPlay, loop: Any) -> dict[str, Any]:
    return {"selfplay": play.state_dict(), "sampler": loop.policy.rng.bit_generator.state}


def run_selfplay_train(args: argparse.Namespace, config: Any) -> int:
    """The ``palaestra train --selfplay`` entry point (``config`` from ``config_from_args``)."""
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        raise ValueError(
            "self-play training needs torch and transformers: pip install 'palaestra[train]'"
        ) from None
    selfplay_config = selfplay_config_from_args(args, config)
    run_selfplay(
        config, selfplay_config, args.selfplay_language, warm_start_steps=args.selfplay_warm_start_steps
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m palaestra.agents.selfplay.cli``: the train flags plus the self-play flags."""
    from palaestra.agents.cli import add_cli, config_from_args

    parser = argparse.ArgumentParser(prog="palaestra-selfplay")
    sub = parser.add_subparsers(dest="command")
    add_cli(sub)  # the train subcommand, self-play flags included
    args = parser.parse_args(["train", *(argv if argv is not None else sys.argv[1:])])
    args.selfplay = True
    return run_selfplay_train(args, config_from_args(args))


if __name__ == "__main__":
    raise SystemExit(main())
