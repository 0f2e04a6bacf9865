"""Extracting and pre-checking a Python program written by a model (no execution here)."""

from __future__ import annotations

import ast
import re

from palaestra.verifiers.extract import extract_answer

MAX_CODE_CHARS = 20_000
_FENCE = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def extract_code(response: str, function: str) -> tuple[str | None, str]:
    """(source, "") for a syntactically valid program defining ``function``, else (None, reason).

    The program is taken from ``<answer>`` tags (a fenced block inside them is unwrapped) or
    from the fenced code block. ``ast.parse`` only parses the text; nothing runs in-process.
    """
    extraction = extract_answer(response, pattern=_FENCE, allow_bare=False, max_chars=MAX_CODE_CHARS)
    if not extraction.ok or extraction.text is None:
        return None, extraction.error or "no program found"
    code = extraction.text
    fenced = _FENCE.search(code)
    if fenced:
        code = fenced.group(1)
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return None, f"not valid Python: {type(exc).__name__}"
    defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    if function not in defined:
        return None, f"the program must define a top-level function {function}()"
    return code, ""
