"""Free text (instruction_following): every constraint re-read from the prompt's wording and
counted by the family's test file's own code (not the family's checker), plus the two format
rules the prompt states: no control characters, and the text ends with a complete sentence."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from palaestra.core import Task

from ._registry import judge

_CHECKER = "palaestra_tests_instruction_following"


def _prompt_checks():
    # The independent checker lives with the family's tests; loaded by path (tests are no package).
    if _CHECKER not in sys.modules:
        path = Path(__file__).resolve().parents[2] / "generators" / "test_instruction_following.py"
        spec = importlib.util.spec_from_file_location(_CHECKER, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[_CHECKER] = module
        spec.loader.exec_module(module)
    return sys.modules[_CHECKER].prompt_checks


@judge("instruction_following")
def _instruction_following(task: Task, text: str) -> bool:
    if any(ord(c) < 32 and c not in "\n\t\r" for c in text):
        return False
    if text.rstrip()[-1:] not in (".", "!", "?"):
        return False
    return all(check(text) for check in _prompt_checks()(task.prompt))
