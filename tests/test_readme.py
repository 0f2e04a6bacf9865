"""The README's set-up commands and CI stay in step; its command examples are right."""

from __future__ import annotations

import shlex
from pathlib import Path

from palaestra.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _commands(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("pip install")]


def test_ci_runs_the_readme_test_command() -> None:
    readme = _commands((ROOT / "README.md").read_text())
    ci = _commands((ROOT / ".ci" / "run").read_text())
    assert len(readme) == 2, "the README has exactly two set-up commands"
    assert ci == [readme[1]]


def _check_examples() -> list[list[str]]:
    """Every `palaestra check ...` line of the README and the user guide, as argv."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    lines = [line.strip() for page in pages for line in page.read_text().splitlines()]
    return [shlex.split(line, comments=True)[1:] for line in lines if line.startswith("palaestra check ")]


def test_check_examples_are_answered_correctly(capsys) -> None:
    """Regression: the README's `palaestra check` example gave a wrong answer for its task."""
    examples = _check_examples()
    assert examples, "the README shows a `palaestra check` example"
    for argv in examples:
        code = main(argv)
        out = capsys.readouterr().out
        assert code == 0 and out.startswith("correct"), (argv, out)
