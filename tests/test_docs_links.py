"""Docs point only to files that exist (regression: docs/training.md named a
`vllm-cpu-known-good.txt` that is not in the repository, and pages pointed to a design document
outside it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the README too: it carried a pointer outside the repository as well
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# repository paths in backticks (run outputs such as `plots/training.png` are not repository files)
_TOP = "requirements|benchmarks|docs|tests|generators|envs|agents|integrations|verifiers|sandbox"
_PATH = re.compile(rf"`((?:{_TOP})/(?:[\w.-]+/)*[\w.-]+\.(?:txt|md|py|json|yaml|yml|toml|png))`")
_OUTSIDE = ("shared/DESIGN.md", "vllm-cpu-known-good")


def referenced(page: Path) -> list[tuple[str, Path]]:
    text = page.read_text()
    found = [(m, page.parent / m) for m in _LINK.findall(text) if "://" not in m]
    found += [(m, ROOT / m) for m in _PATH.findall(text)]
    return found


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_referenced_file_exists(page: Path) -> None:
    missing = [name for name, path in referenced(page) if not path.exists()]
    assert not missing, f"{page.name} points to files that do not exist: {missing}"
    text = page.read_text()
    assert not [o for o in _OUTSIDE if o in text], f"{page.name} points outside the repository"


def test_trl_vllm_note_matches_the_pinned_stack() -> None:
    """TRL + vLLM on CPU fails on the pinned stack (TRL supports vLLM <= 0.31): the integrations
    page must say so, for the vllm-cpu version actually pinned, and give the working path."""
    pins = dict(
        line.split("==", 1)
        for line in (ROOT / "requirements" / "vllm-cpu.txt").read_text().splitlines()
        if "==" in line
    )
    vllm = pins["vllm-cpu"].rsplit(".", 1)[0]  # 0.32.0 -> 0.32
    page = (ROOT / "docs" / "integrations.md").read_text()
    note = page[page.index("**TRL with vLLM on CPU.**") :].split("\n\n", 1)[0]
    assert f"vllm-cpu {vllm}" in note and "use_vllm=False" in note and "palaestra train" in note
