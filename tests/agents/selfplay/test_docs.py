"""The scripted example in docs/selfplay.md runs as written and prints what it says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_docs_example_runs(tmp_path: Path) -> None:
    (code,) = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "selfplay.md").read_text(), re.S)
    script = tmp_path / "example.py"
    script.write_text(code)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:2] == ["[0.625, -1.0]", "8"]
