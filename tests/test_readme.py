"""The README's set-up commands and CI stay in step."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("pip install")]


def test_ci_runs_the_readme_test_command() -> None:
    readme = _commands((ROOT / "README.md").read_text())
    ci = _commands((ROOT / ".ci" / "run").read_text())
    assert len(readme) == 2, "the README has exactly two set-up commands"
    assert ci == [readme[1]]
