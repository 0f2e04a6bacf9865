"""The Python examples in the README and the user guide run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md", "docs/envs.md", "docs/integrations.md"]
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _examples() -> list:
    params = []
    for page in PAGES:
        for k, code in enumerate(_BLOCK.findall((ROOT / page).read_text())):
            params.append(pytest.param(code, id=f"{page}#{k}"))
    return params


@pytest.mark.parametrize("code", _examples())
def test_example_runs(code: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(code)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
