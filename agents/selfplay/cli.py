"""``palaestra train --selfplay``: self-play flags and the run.

``agents/cli.py`` owns the ``train`` subcommand; it needs two lines to offer self-play::

    add_selfplay_arguments(p)                      # in add_cli, after the TrainConfig flags
    if args.selfplay: return run_selfplay_train(args, config)   # in run_train, after config_from_args

Until then ``python -m palaestra.agents.selfplay.cli --preset tiny`` runs the same thing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .languages import LANGUAGES, make_language
from .loop import SelfPlay, SelfPlayConfig
from .rewards import FORMS, MIN_PROBES


def add_selfplay_arguments(parser: argparse.ArgumentParser) -> None:
    """The self-play flags of ``palaestra train``."""
    g = parser.add_argument_group("self-play (with --selfplay)")
    g.add_argument("--selfplay", action="store_true", help="train by proposer/solver self-play")
    g.add_argument(
        "--selfplay-language",
        choices=sorted(LANGUAGES),
        default="arith",
        help="task language the proposer writes (default: arith)",
    )
    g.add_argument(
        "--selfplay-proposals", type=int, default=8, help="proposals per task type per step (default: 8)"
    )
    g.add_argument(
        "--selfplay-probes",
        type=int,
        default=MIN_PROBES,
        help=f"solver attempts per proposal for its pass rate (>= {MIN_PROBES})",
    )
    g.add_argument(
        "--selfplay-reward", choices=FORMS, default="azr", help="proposer learnability form (default: azr)"
    )
    g.add_argument(
        "--selfplay-warm-start-steps",
        type=int,
        default=0,
        help="arith only: SFT steps on random DSL proposals and their answers before self-play (default: 0)",
    )
    g.add_argument(
        "--selfplay-catalog-fraction",
        type=float,
        default=0.0,
        help="extra catalog tasks per step, as a fraction of valid proposals (default: 0)",
    )


def selfplay_config_from_args(args: argparse.Namespace, train_config: Any) -> SelfPlayConfig:
    """Self-play settings: the flags, with temperature and seed from the training config."""
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
    if make_language(language).needs_sandbox:
        from palaestra.sandbox import Sandbox

        sandbox = Sandbox(workers=selfplay_config.verify_workers)
    try:
        play = SelfPlay(make_language(language), selfplay_config, sandbox=sandbox)
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
                _sft_phase(trainer, out / "metrics.jsonl", config, say)
            if warm_start_steps > 0 and language == "arith":  # teach the DSL format to both roles
                from .warmstart import proposer_warm_start

                losses = proposer_warm_start(trainer, play.language, steps=warm_start_steps, seed=config.seed)
                write_jsonl(out / "metrics.jsonl", {"kind": "selfplay_warm_start", "loss": losses[-1]})
            trainer.snapshot_reference()
            trainer.sync()
            sft_eval = trainer.evaluate()  # the starting point self-play is measured against
            write_jsonl(out / "metrics.jsonl", {"kind": "eval_sft", "step": 0, **sft_eval})
        last: dict[str, Any] = {}
        while play.step_count < config.steps:
            _, last = loop.step()
            trainer.step_count = play.step_count
            write_jsonl(out / "metrics.jsonl", {"kind": "selfplay", **last})
            if config.checkpoint_every and play.step_count % config.checkpoint_every == 0:
                save_checkpoint(trainer, _extra(play, loop))
            say(
                f"step {last['step']}: valid {last['valid_rate']:.2f} learnability {last['mean_learnability']:.2f} "
                f"solver {last['solver_reward']:.2f}"
            )
        final = trainer.evaluate()
        save_checkpoint(trainer, _extra(play, loop))
        summary = {"steps": play.step_count, "last": last, "sft_eval": sft_eval, "eval": final}
        (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
        return summary
    finally:
        if sandbox is not None:
            sandbox.close()
        trainer.backend.close()


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
    run_selfplay(
        config,
        selfplay_config_from_args(args, config),
        args.selfplay_language,
        warm_start_steps=args.selfplay_warm_start_steps,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m palaestra.agents.selfplay.cli``: the train flags plus the self-play flags."""
    from palaestra.agents.cli import add_cli, config_from_args

    parser = argparse.ArgumentParser(prog="palaestra-selfplay")
    sub = parser.add_subparsers(dest="command")
    add_cli(sub)
    train = sub.choices["train"]
    add_selfplay_arguments(train)
    args = parser.parse_args(["train", *(argv if argv is not None else sys.argv[1:])])
    args.selfplay = True
    return run_selfplay_train(args, config_from_args(args))


if __name__ == "__main__":
    raise SystemExit(main())
