"""The ``palaestra`` command.

Core commands (list, sample, check) live here. Other rooms contribute subcommands through
an ``add_cli(subparsers)`` function in their own module, listed in ``COMMAND_MODULES``; each
registers its parser with ``set_defaults(run=callable)`` where ``callable(args) -> int``.

Errors are one clear line on stderr and a non-zero exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

# Modules that add subcommands: each defines add_cli(subparsers). Imported lazily so that
# `palaestra list` never pays for torch or datasets.
COMMAND_MODULES: list[str] = [
    "palaestra.calibration",
    "palaestra.catalog",
    "palaestra.export",
    "palaestra.agents.suite_eval",
    "palaestra.agents.cli",
    "palaestra.server",
    "palaestra.dev",
]

EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141  # what a shell reports for a process killed by SIGPIPE (128 + 13)

# Optional imports a command may need -> the extra that installs them (for a one-line hint).
EXTRA_OF_MODULE: dict[str, str] = {
    "yaml": "datasets",
    "pyarrow": "datasets",
    "datasets": "datasets",
    "huggingface_hub": "datasets",
    "tqdm": "datasets",
    "matplotlib": "datasets",
    "ray": "ray",
    "torch": "train",
    "transformers": "train",
    "tokenizers": "train",
    "safetensors": "train",
    "accelerate": "train",
    "trl": "train",
    "fastapi": "server",
    "uvicorn": "server",
    "starlette": "server",
    "websockets": "server",
    "pettingzoo": "pettingzoo",
}

# Optional modules each command needs, checked before any work starts (a calibration run must not
# fail at its final plot, an export not after generating).
COMMAND_NEEDS: dict[str, tuple[str, ...]] = {
    "export": ("pyarrow", "datasets"),
    "verify-dataset": ("pyarrow",),
    "calibrate": ("matplotlib",),
    "eval": ("pyarrow", "matplotlib"),
    "serve": ("fastapi", "uvicorn"),
}


class CommandError(Exception):
    """An error to show the user as one line (exit status 2)."""


def _parse_knob(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"knob must look like name=value, got {text!r}")
    return name.strip(), value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, got {value}")
    return value


def _level(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"level must be an integer in 1..10, got {text!r}") from None


def _add_task_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("family", help="family name (see `palaestra list`)")
    parser.add_argument("--seed", type=_seed, required=True, help="task seed (non-negative integer)")
    parser.add_argument("--level", type=_level, default=None, help="difficulty level 1..10")
    parser.add_argument(
        "--knob",
        type=_parse_knob,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a knob (repeatable)",
    )


def _task_from_args(args: argparse.Namespace):
    import palaestra

    known = palaestra.families()
    if args.family not in known:
        raise ValueError(unknown_family(args.family, known))
    return palaestra.make_task(args.family, seed=args.seed, level=args.level, **dict(args.knob))


def unknown_family(name: str, known: Sequence[str]) -> str:
    """One line for a family name that is not registered: the closest names, not all of them."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    return f"unknown family {name!r}; {hint}`palaestra list` names all {len(known)}"


def cmd_list(args: argparse.Namespace) -> int:
    from palaestra.registry import families, get

    rows = []
    for name in families(args.domain):
        spec = get(name)
        rows.append(
            {
                "name": name,
                "domain": spec.domain,
                "version": spec.version,
                "env_id": spec.env_id,
                "verifier": spec.verifier_kind,
                "description": spec.description,
                "knobs": [k.__dict__ for k in spec.knob_specs()],
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2, default=list))
        return 0
    width = max((len(r["name"]) for r in rows), default=4)
    for row in rows:
        print(f"{row['name']:<{width}}  {row['domain']:<11} {row['description']}")
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    task = _task_from_args(args)
    if args.json:
        data = task.to_dict()
        if not args.show_answer:
            data.pop("answer")
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(task.prompt)
    if args.show_answer:
        # The reference response, exactly as `palaestra check --answer` accepts it (never a repr).
        print(f"\n--- reference answer ---\n{reference_text(task)}")
    return 0


def reference_text(task: Any) -> str:
    """The family's reference response for ``task``: text that its verifier accepts."""
    from palaestra.registry import get

    return get(task.family).impl.reference_response(task)


def cmd_check(args: argparse.Namespace) -> int:
    import palaestra

    task = _task_from_args(args)
    verdict = palaestra.verify(task, args.answer)
    if args.json:
        print(json.dumps(verdict.to_dict(), ensure_ascii=False))
    else:
        status = "correct" if verdict.correct else ("wrong" if verdict.format_ok else "format error")
        # the reason of a right answer is often just "correct": say it once
        line = status if verdict.reason.strip().lower() in ("", status) else f"{status}: {verdict.reason}"
        print(line + (f" (verifier error: {verdict.error})" if verdict.error else ""))
    return 0 if verdict.correct else 1


def cmd_sandbox_info(args: argparse.Namespace) -> int:
    from palaestra.sandbox import sandbox_info_main

    return sandbox_info_main()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="palaestra", description="Verifiable training tasks for language models.")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("list", help="list the registered task families")
    p.add_argument("--domain", default=None, help="only families of this domain")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=cmd_list)

    p = sub.add_parser("sample", help="print a task's prompt")
    _add_task_arguments(p)
    p.add_argument("--show-answer", action="store_true", help="also print the reference answer")
    p.add_argument("--json", action="store_true", help="print the whole task as JSON")
    p.set_defaults(run=cmd_sample)

    p = sub.add_parser("check", help="verify an answer to a task (exit 0 if correct, 1 if not)")
    _add_task_arguments(p)
    p.add_argument("--answer", required=True, help="the response text to verify")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("sandbox-info", help="print the sandbox's protection level on this host")
    p.set_defaults(run=cmd_sandbox_info)

    for module in COMMAND_MODULES:
        importlib.import_module(module).add_cli(sub)
    return parser


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line (exit 2) instead of usage text."""

    def error(self, message: str) -> Any:
        raise CommandError(f"{self.prog}: {message}")


def _version() -> str:
    from palaestra import __version__

    return f"palaestra {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``palaestra`` console script; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        for module in COMMAND_NEEDS.get(args.command, ()):
            importlib.import_module(module)  # ImportError -> one line naming the extra
        status = int(args.run(args) or 0)
        sys.stdout.flush()  # a closed pipe must fail here, inside the handler, not at exit
        return status
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, FileNotFoundError, PermissionError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as exc:
        print(f"error: {missing_extra_message(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def missing_extra_message(exc: ImportError) -> str:
    """One line naming the extra that installs the missing module."""
    module = (exc.name or "").split(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    if extra is None:
        return f"cannot import {module or exc}: {exc}"
    return (
        f"this command needs {module!r}, which the core install leaves out: pip install 'palaestra[{extra}]'"
    )


def _quiet_broken_pipe() -> int:
    # The reader went away (`palaestra list | head`): stop quietly, as Unix tools do. Point stdout
    # at /dev/null so the interpreter's final flush does not raise a second BrokenPipeError.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_BROKEN_PIPE


def entry() -> None:
    """The console script: ``main``, and on Ctrl-C an immediate exit.

    Workers are already stopped when ``main`` returns 130; what is left is the interpreter's
    teardown of sympy, z3 and pyarrow, seconds on a loaded machine, which Ctrl-C should not wait
    for. In-process callers of ``main`` (tests, notebooks) are never cut short.
    """
    status = main()
    if status == 130:
        import gc

        gc.collect()  # the stopped worker pool's semaphores are released by their finalizers
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


if __name__ == "__main__":
    entry()
