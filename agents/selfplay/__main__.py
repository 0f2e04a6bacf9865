"""``python -m palaestra.agents.selfplay ARGS``: ``palaestra train --selfplay ARGS``.

It lives here, not in :mod:`palaestra.agents.selfplay.cli`, because it needs the train command
(:mod:`palaestra.agents.cli`), which itself imports the self-play flags: a module nobody imports
can use both without an import cycle.
"""

from __future__ import annotations

import argparse
import sys

from palaestra.agents.cli import add_cli, config_from_args
from palaestra.agents.selfplay.cli import run_selfplay_train


def main(argv: list[str] | None = None) -> int:
    """The train flags plus the self-play flags, with self-play always on."""
    parser = argparse.ArgumentParser(prog="python -m palaestra.agents.selfplay")
    sub = parser.add_subparsers(dest="command")
    add_cli(sub)  # the train subcommand, self-play flags included
    args = parser.parse_args(["train", *(argv if argv is not None else sys.argv[1:])])
    args.selfplay = True
    return run_selfplay_train(args, config_from_args(args))


if __name__ == "__main__":
    raise SystemExit(main())
