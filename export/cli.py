"""``palaestra export`` and ``palaestra verify-dataset``."""

from __future__ import annotations

import argparse
from typing import Any

from palaestra.export.hub import push_to_hub
from palaestra.export.verify import verify_dataset
from palaestra.export.writer import export


def _cmd_export(args: argparse.Namespace) -> int:
    result = export(
        args.config,
        args.out,
        num_proc=args.num_proc,
        engine=args.engine,
        overwrite=args.overwrite,
        progress=not args.quiet and None,
        arrow_copy=args.arrow_copy,
    )
    dropped = {s: d["within_split"] + d["across_splits"] for s, d in result.duplicates.items()}
    status = "already complete" if result.already_complete else "exported"
    print(
        f"{status}: {result.path} rows={result.counts} duplicates_dropped={dropped} "
        f"fingerprint={result.fingerprint}"
    )
    if args.format == "lm-eval":
        from palaestra.export.lm_eval import write_lm_eval_task

        folder, name = write_lm_eval_task(result.path, args.lm_eval_split)
        print(f"lm-eval task: lm_eval --include_path {folder} --tasks {name} --model ...")
    if args.push_to_hub:
        try:
            url = push_to_hub(result.path, args.push_to_hub, private=args.private)
        except (ValueError, ImportError):
            raise
        except Exception as exc:  # network, auth, quota: the Hub's message, one line
            first = (str(exc).strip().splitlines() or [""])[0]
            raise ValueError(
                f"push to {args.push_to_hub} failed ({type(exc).__name__}: {first}); the export at "
                f"{result.path} is complete: rerun the same command to retry the upload"
            ) from None
        print(f"pushed: {url}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    report = verify_dataset(
        args.dir,
        rebuild_fraction=args.rebuild_fraction,
        num_proc=args.num_proc,
        progress=not args.quiet and None,
    )
    for problem in report.problems[:50]:
        print(f"problem: {problem}")
    state = "ok" if report.ok else f"FAILED ({len(report.problems)} problems)"
    print(
        f"{state}: {report.rows} rows, {report.verified} reference answers verified, "
        f"{report.rebuilt} rows rebuilt from their seeds"
    )
    return 0 if report.ok else 1


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def add_cli(subparsers: Any) -> None:
    """Register ``palaestra export`` and ``palaestra verify-dataset``."""
    p = subparsers.add_parser("export", help="export a mixture of tasks as a Hugging Face dataset")
    p.add_argument("--config", required=True, help="mixture config (YAML or JSON)")
    p.add_argument("--out", required=True, help="output folder (created atomically)")
    p.add_argument("--num-proc", type=_positive, default=1, help="worker processes (output is identical)")
    p.add_argument("--engine", choices=("local", "ray"), default="local", help="where jobs run")
    p.add_argument("--overwrite", action="store_true", help="replace an existing export at --out")
    p.add_argument("--push-to-hub", metavar="REPO", default=None, help="upload to this Hub dataset repo")
    p.add_argument("--private", action="store_true", help="create the Hub repo as private")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--arrow-copy",
        action="store_true",
        help="also write the rows as Arrow files, for datasets.load_from_disk (about 8x the parquet's size)",
    )
    p.add_argument(
        "--format",
        choices=("hf", "lm-eval"),
        default="hf",
        help="hf: the dataset only; lm-eval: also an lm-evaluation-harness task folder in OUT/lm_eval",
    )
    p.add_argument(
        "--lm-eval-split", default="test", help="the split the lm-eval task evaluates (default test)"
    )
    p.set_defaults(run=_cmd_export)

    p = subparsers.add_parser("verify-dataset", help="re-verify and rebuild the rows of an export")
    p.add_argument("dir", help="an exported dataset folder")
    p.add_argument("--rebuild-fraction", type=float, default=0.05, help="share of rows rebuilt from seeds")
    p.add_argument("--num-proc", type=_positive, default=1, help="worker processes")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_verify)
