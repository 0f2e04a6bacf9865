"""``palaestra train --selfplay``: self-play flags and the run.

``agents/cli.py`` owns the ``train`` subcommand and adds these flags. Self-play is on with
``--selfplay``, off with ``--no-selfplay``, and otherwise on exactly for the presets listed in
``SELFPLAY_PRESETS`` (``--preset tiny``: self-play in the ``arith`` language). Each self-play flag
left out takes the preset's value, else the default in ``SELFPLAY_DEFAULTS``.
``python -m palaestra.agents.selfplay`` runs the same thing with self-play always on.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from palaestra.agents.config import SELFPLAY_PRESETS
from palaestra.agents.reporting import plural

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
    "train_proposer": True,
    "frontier_probes": 0,
    "proposer_loss_share": 0.0,
    "repeat_proposals": False,
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

    g.add_argument(
        "--selfplay-train-proposer",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train on the proposer's samples; --no-selfplay-train-proposer: the frozen-proposer "
        "ablation, the model proposes but learns only from solving (default: on)",
    )
    g.add_argument(
        "--selfplay-frontier-probes",
        type=int,
        default=None,
        help="uniform training-side tasks probed per step, never trained on: the base rate of the "
        f"frontier share (default: the preset's, else {d['frontier_probes']})",
    )
    g.add_argument(
        "--selfplay-proposer-loss-share",
        type=float,
        default=None,
        help="the proposer's share of each update's loss weight, in [0, 1); 0: as its tokens fall "
        f"(default: the preset's, else {d['proposer_loss_share']})",
    )
    g.add_argument(
        "--selfplay-repeat-proposals",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a proposal equal to a buffered task is probed and rewarded again instead of refused "
        f"as a duplicate (default: the preset's, else {'on' if d['repeat_proposals'] else 'off'})",
    )


def selfplay_enabled(args: argparse.Namespace) -> bool:
    """``--selfplay`` / ``--no-selfplay`` if given, else the recipe's mode, else whether the preset
    trains by self-play."""
    flag = getattr(args, "selfplay", None)
    if flag is not None:
        return bool(flag)
    recipe = getattr(args, "recipe", None)
    if recipe:
        return recipe.get("mode") == "selfplay"
    return getattr(args, "preset", None) in SELFPLAY_PRESETS


def resolve_selfplay_args(args: argparse.Namespace) -> argparse.Namespace:
    """Fill every self-play flag left out with the recipe's value, else the preset's, else the default
    (in place)."""
    from_preset = SELFPLAY_PRESETS.get(getattr(args, "preset", None) or "", {})
    from_recipe = (getattr(args, "recipe", None) or {}).get("selfplay") or {}
    for key, default in SELFPLAY_DEFAULTS.items():
        if getattr(args, f"selfplay_{key}", None) is None:
            setattr(args, f"selfplay_{key}", from_recipe.get(key, from_preset.get(key, default)))
    return args


def selfplay_config_from_args(args: argparse.Namespace, train_config: Any) -> SelfPlayConfig:
    """Self-play settings: the flags (resolved), with temperature and seed from the training config."""
    resolve_selfplay_args(args)
    return SelfPlayConfig(
        proposals_per_type=args.selfplay_proposals,
        probes=args.selfplay_probes,
        temperature=float(getattr(train_config, "temperature", 1.0)),
        reward_form=args.selfplay_reward,
        scale_advantages=bool(getattr(train_config, "scale_rewards", True)),
        catalog_fraction=args.selfplay_catalog_fraction,
        catalog_families=tuple(train_config.family_list()) if args.selfplay_catalog_fraction else (),
        train_proposer=bool(args.selfplay_train_proposer),
        frontier_probes=args.selfplay_frontier_probes,
        proposer_loss_share=args.selfplay_proposer_loss_share,
        repeat_proposals=bool(args.selfplay_repeat_proposals),
        seed=int(getattr(train_config, "seed", 0)),
    )


PROPOSER_SHARE = 0.125  # share of each SFT batch that teaches the proposer its format (expression, family)


def make_run_language(language: str, config: Any, space: Any) -> Any:
    """The run's task language: ``expression`` poses catalog problems of the run's task space;
    ``family`` offers the proposer exactly the run's ``--families``."""
    if language == "expression":
        from .languages import ExpressionLanguage

        if "expression" not in space.families:
            raise ValueError("the expression language needs --families to include expression")
        return ExpressionLanguage.for_space(space, level=config.sft_level_list()[0])
    if language == "family":
        return make_language(language, allowed=tuple(config.family_list()), space=space)
    return make_language(language)


def run_selfplay(
    config: Any,
    selfplay_config: SelfPlayConfig,
    language: str,
    *,
    warm_start_steps: int = 0,
    quiet: bool = False,
) -> dict[str, Any]:
    """A self-play run, stage by stage (each with a progress bar): the SFT warm start (for the
    ``expression`` language an eighth of every batch teaches the proposer format), the held-out
    evaluation of that starting point, ``config.steps`` self-play steps, their evaluation, and the
    control: SFT continued from the warm start for as many sequences as self-play generated.
    Writes what :func:`palaestra.agents.run.run_training` writes (rows of kind ``selfplay`` for
    the steps); checkpoints hold the self-play state too (buffers, baselines, counters, sampler),
    so ``--resume`` continues from the latest."""
    from palaestra.agents import run as stages
    from palaestra.agents.checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
    from palaestra.agents.reporting import read_jsonl
    from palaestra.agents.trainer import GRPOTrainer

    from .trainer import SelfPlayLoop
    from .warmstart import family_proposer_examples, proposer_examples

    stages.quiet_third_party(config.verbose)
    stages.cpu_defaults(config)
    config = stages.new_run_dir(config)
    ctx = stages.RunContext(config, quiet=quiet)
    types = len(LANGUAGES[language].task_types) if language in LANGUAGES else 1
    per_step = selfplay_config.proposals_per_type * types * (1 + selfplay_config.probes)
    mode = f"self-play ({language})"
    steps = plural(config.steps, "step")
    ctx.say(stages.plan_line(config, mode, steps, config.steps * per_step, exact=False))
    trainer = GRPOTrainer(config)
    config, ctx = stages.join_run(trainer, config, quiet)
    ctx.out.mkdir(parents=True, exist_ok=True)
    ctx.open_trackers()
    lang = make_run_language(language, config, trainer.space)
    sandbox = None
    if lang.needs_sandbox:
        from palaestra.sandbox import Sandbox

        sandbox = Sandbox(workers=selfplay_config.verify_workers)
    extra_sft: dict[str, Any] = {}
    if language == "expression":
        level = config.sft_level_list()[0]
        extra_sft = {
            "extra": lambda rng, n: proposer_examples(lang, trainer.chat, trainer.space, n, rng, level),
            "extra_share": PROPOSER_SHARE,
        }
    elif language == "family":  # the JSON format, over the run's level range
        levels = range(config.start_level, config.max_level + 1)
        extra_sft = {
            "extra": lambda rng, n: family_proposer_examples(
                lang, trainer.chat, n, rng, levels, selfplay_config.references
            ),
            "extra_share": PROPOSER_SHARE,
        }
    try:
        play = SelfPlay(lang, selfplay_config, sandbox=sandbox)
        loop = SelfPlayLoop(trainer, play)
        resumed = latest_checkpoint(ctx.out) if config.resume else None
        arms: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        sft = sft_state = None
        if resumed is not None:  # weights, optimizer and self-play state saved together
            extra = dict(load_checkpoint(trainer, resumed))
            play.load_state_dict(extra.pop("selfplay"))
            loop.policy.rng.bit_generator.state = extra.pop("sampler")
            loop.policy.generated_tokens = int(extra.pop("generated_tokens", 0))
            ctx.say(f"resumed from {resumed} at self-play step {play.step_count}")
        else:
            if ctx.main:
                ctx.metrics_path.unlink(missing_ok=True)
                (ctx.out / "config.json").write_text(config.to_json())
                stages.write_heldout_suite(trainer, ctx.out)
            sft, info = stages.warm_start_stage(trainer, ctx, **extra_sft)
            extra.update(info)
            if warm_start_steps > 0 and language == "arith":  # the DSL format, after the catalog SFT
                _arith_warm_start(trainer, play, config, selfplay_config, warm_start_steps, ctx)
                if sft is not None:  # the starting point includes the DSL warm start
                    stages.save_sft_checkpoint(trainer, sft)
            if sft is not None and config.control:
                sft_state = stages.snapshot(trainer, sft)
            trainer.snapshot_reference()
            trainer.sync()
            arms["sft"] = stages.eval_stage(trainer, ctx, "eval_sft", "eval SFT-only", 0)
        rows = [r for r in read_jsonl(ctx.metrics_path) if r.get("kind") == "selfplay"]
        sequences = int(rows[-1]["sequences"]) if rows else 0
        bar = ctx.bar(config.steps, "self-play")
        bar.begin_at(play.step_count)
        last: dict[str, Any] = {}
        while play.step_count < config.steps:
            t0, cpu0 = time.perf_counter(), time.process_time()
            result, last = loop.step()
            sequences += len(result.proposer) + len(result.solver)
            last["sequences"] = sequences
            if language == "expression":
                last["teacher_wrong_share"] = teacher_wrong_share(result, lang, trainer.teacher)
            if language == "family":
                last["proposed_levels"] = proposed_levels(result, lang)
            last["time/step_s"] = time.perf_counter() - t0
            last["time/step_cpu_s"] = time.process_time() - cpu0
            trainer.step_count = play.step_count
            ctx.log({"kind": "selfplay", **last})
            if (
                config.eval_every
                and play.step_count % config.eval_every == 0
                and play.step_count < config.steps
            ):
                ctx.log({"kind": "eval", "step": play.step_count, **trainer.evaluate(samples=0)})
            if config.checkpoint_every and play.step_count % config.checkpoint_every == 0:
                save_checkpoint(trainer, {**extra, **_extra(play, loop)})
            bar.update(
                play.step_count,
                f"valid {last['valid_rate']:.2f} learnable {last['mean_learnability']:.2f} "
                f"solver {last['solver_reward']:.2f}",
            )
        bar.close()
        arms["trained"] = stages.eval_stage(trainer, ctx, "eval", "eval after self-play", play.step_count)
        save_checkpoint(trainer, {**extra, **_extra(play, loop)}, name="final")
        if config.control:
            if sft is None:  # resumed: read the warm start back
                sft = stages.sft_runner(trainer, **extra_sft)
                sft_state = stages.load_sft_snapshot(trainer, sft)
                arms["sft"] = stages.reevaluate_sft(trainer, ctx, sft_state)
            arms["control"], info = stages.control_stage(trainer, ctx, sft, sft_state, sequences)
            extra.update(info)
            save_checkpoint(trainer, {"stage": "control"}, name="control")
        extra.update({"steps": play.step_count, "selfplay_sequences": sequences})
        extra.update({f"last_{k}": v for k, v in last.items() if isinstance(v, (int, float))})
        summary = stages.finish(ctx, arms, extra, "self-play", "selfplay", "solver_reward")
        if config.plots and ctx.main:
            _plot(ctx.out, ctx.say)
        return summary
    finally:
        ctx.close_trackers()
        if sandbox is not None:
            sandbox.close()
        trainer.backend.close()


def teacher_wrong_share(result: Any, language: Any, teacher: Any) -> float:
    """The share of a step's valid proposals that land where the SFT teacher errs: whether the
    proposer learns to pose the problems its own solver gets wrong."""
    from palaestra.core import Task

    from .rewards import REWARD_INVALID

    hits = []
    for sample in result.proposer:
        if sample.reward > REWARD_INVALID:
            built = language.build(sample.task_type, sample.completion)
            task = Task.from_json(json.dumps(built.payload["task"]))
            hits.append(teacher.subset(task) != "teacher_right")
    return sum(hits) / len(hits) if hits else 0.0


def proposed_levels(result: Any, language: Any) -> dict[str, int]:
    """Valid proposals per ``family/level`` in one step of the ``family`` language (a proposal by
    knobs counts as ``family/knobs``)."""
    from .rewards import REWARD_INVALID

    counts: dict[str, int] = {}
    for sample in result.proposer:
        if sample.reward > REWARD_INVALID:
            choice = json.loads(language.build(sample.task_type, sample.completion).source)
            key = f"{choice['family']}/{choice.get('level', 'knobs')}"
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def _arith_warm_start(
    trainer: Any, play: SelfPlay, config: Any, selfplay_config: SelfPlayConfig, steps: int, ctx: Any
) -> None:
    """The ``arith`` language's DSL warm start (both roles), after the catalog SFT."""
    from .warmstart import proposer_warm_start

    t0 = time.perf_counter()
    losses = proposer_warm_start(
        trainer,
        play.language,
        steps=steps,
        seed=config.seed,
        references=selfplay_config.references,
        replay_levels=config.sft_level_list(),  # keep the catalog SFT's skills
        replay=WARM_START_REPLAY,
        easy_fraction=WARM_START_EASY,
    )
    row = {"kind": "selfplay_warm_start", "loss": losses[-1], "loss_first": losses[0]}
    ctx.log({**row, "seconds": time.perf_counter() - t0})


def _plot(out: Path, say: Any) -> None:
    """``plots/selfplay.png``: valid-proposal rate, learnability and rewards over the steps."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        say("matplotlib is not installed: no plots")
        return
    from palaestra.agents.reporting import read_jsonl, smooth

    rows = [r for r in read_jsonl(out / "metrics.jsonl") if r.get("kind") == "selfplay"]
    panels = {  # metric: (title, y-axis label)
        "valid_rate": ("valid proposals", "share of proposals"),
        "mean_learnability": ("learnability of valid proposals", "mean learnability"),
        "proposer_reward": ("proposer reward (after penalties)", "mean reward"),
        "solver_reward": ("solver reward", "mean reward"),
    }
    # the frontier beside its base rate, where the run measured it (frontier_probes)
    frontier = any(r.get("frontier_base_rate") is not None for r in rows)
    if frontier:
        panels["frontier_share"] = ("weak-region share: proposals vs uniform", "share solved < 50%")
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.3))
    for ax, (key, (title, ylabel)) in zip(axes, panels.items(), strict=True):
        xs = [r["step"] for r in rows if r.get(key) is not None]
        ys = [r[key] for r in rows if r.get(key) is not None]
        ax.plot(xs, ys, linewidth=1, alpha=0.3, label="per step")
        ax.plot(xs, smooth(ys), linewidth=2, label="smoothed (EMA 0.9)")
        if key == "frontier_share":
            base = [r["frontier_base_rate"] for r in rows if r.get(key) is not None]
            ax.plot(xs, smooth(base), linewidth=2, linestyle="--", label="uniform problems (base rate)")
        ax.set_title(title)
        ax.set_xlabel("self-play step (policy updates before it)", fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=6, loc="best")
    fig.tight_layout()
    (out / "plots").mkdir(exist_ok=True)
    fig.savefig(out / "plots" / "selfplay.png", dpi=80)
    plt.close(fig)


def _extra(play: SelfPlay, loop: Any) -> dict[str, Any]:
    return {
        "selfplay": play.state_dict(),
        "sampler": loop.policy.rng.bit_generator.state,
        "generated_tokens": loop.policy.generated_tokens,
    }


def run_selfplay_train(args: argparse.Namespace, config: Any) -> int:
    """The ``palaestra train --selfplay`` entry point (``config`` from ``config_from_args``)."""
    from palaestra.agents.run import quiet_third_party

    quiet_third_party(config.verbose)  # before torch is imported: it reads its log level then
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
