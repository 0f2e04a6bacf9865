"""Extracting one program (Python or SQL) written by a model; nothing is executed here.

A response states ONE program. It is taken from the ``<answer>`` tags (a fenced block inside
them is unwrapped), or, with no tags, from the fenced code blocks and a ``\\boxed{}`` that
holds a program (``\\boxed{SELECT name FROM t}``: one line, as the README promises a box works
wherever the answer fits on one line). Several *different* programs
are a format error, never a silent choice of one:

- two fenced programs inside the tags (``<answer>```A``` ... ```B```</answer>``);
- a program in the tags and a different fenced program outside them;
- with no tags, two different fenced programs.

The same program repeated is fine (Python programs are compared by their syntax tree, so
spacing and comments do not matter; SQL queries by their text up to spacing and a final ``;``).
More than ``MAX_FENCES`` code blocks, or a block longer than the program limit, is a format
error too (bounded work on hostile responses).
Outside the tags, only fenced blocks that look like a program count (Python: it defines the
required function, whether or not it parses; SQL: it is a SELECT/WITH statement); a usage example such as
```` ```python\\nprint(f([1, 2]))\\n``` ```` is no second answer.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from palaestra.verifiers.extract import extract_answer, find_answer_tags, normalize_space

MAX_CODE_CHARS = 20_000
MAX_FENCES = 20  # a response with more code fences is a format error (each one may be parsed)
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[ \t]*\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Language:
    """What a program of one language looks like to the extractor."""

    name: str
    fence_tags: frozenset[str]  # fence info strings that mark this language ("" = untagged)
    is_program: Callable[[str], bool]  # does a fenced block outside the tags state a program?
    key: Callable[[str], object]  # equal keys = the same program


def _fenced(text: str, language: Language) -> list[tuple[int, int, str]]:
    """Fenced blocks of ``language`` in ``text`` as (start, end, body)."""
    return [
        (m.start(), m.end(), m.group(2))
        for m in _FENCE.finditer(text)
        if m.group(1).lower() in language.fence_tags
    ]


def _several(programs: list[str], language: Language) -> bool:
    """Do ``programs`` hold two different programs? (stops at the second one)"""
    keys: set[object] = set()
    for program in dict.fromkeys(programs):  # the same text is parsed once
        keys.add(language.key(program))
        if len(keys) > 1:
            return True
    return False


def extract_program(
    response: str, language: Language, max_chars: int = MAX_CODE_CHARS
) -> tuple[str | None, str]:
    """(program text, "") or (None, why not): the rules of the module docstring."""
    if not isinstance(response, str):
        return None, "the response must be a string"
    if response.count("```") > 2 * MAX_FENCES:
        return None, f"more than {MAX_FENCES} code blocks"
    tags, tag_error = find_answer_tags(response)
    if tags or tag_error:
        extraction = extract_answer(response, allow_bare=False, max_chars=max_chars)
        if not extraction.ok or extraction.text is None:
            return None, extraction.error or "no program found"
        inside = [body for _, _, body in _fenced(extraction.text, language)]
        if _several(inside, language):
            return None, f"several different {language.name} programs inside the <answer> tags"
        program = inside[-1] if inside else extraction.text
        outside = [
            body
            for start, _, body in _fenced(response, language)
            if len(body) <= max_chars
            and not any(s <= start < e for s, e, _ in tags)
            and language.is_program(body)
        ]
        if any(language.key(body) != language.key(program) for body in outside):
            return None, f"a different {language.name} program outside the <answer> tags"
        return program, ""
    blocks = [body for _, _, body in _fenced(response, language)]
    if any(len(body) > max_chars for body in blocks):
        return None, f"a code block is longer than {max_chars} characters"
    programs = [body for body in blocks if language.is_program(body)] or blocks
    boxed = _boxed_program(response, language, max_chars)
    if boxed is not None:  # \boxed{SELECT ...}: a one-line program in a box is a final answer too
        programs.append(boxed)
    if not programs:
        return None, f"no program found: put the {language.name} code in <answer>...</answer> tags"
    if _several(programs, language):
        return None, f"several different {language.name} programs in fenced blocks or boxes"
    return programs[-1], ""


def _boxed_program(response: str, language: Language, max_chars: int) -> str | None:
    """The program of a response whose final answer is a ``\\boxed{}`` holding one, else None
    (several different boxes are the shared extraction's format error, reported by the caller
    as no program)."""
    extraction = extract_answer(response, max_chars=max_chars, one_line=True)
    if (
        extraction.ok
        and extraction.source == "boxed"
        and extraction.text
        and language.is_program(extraction.text)
    ):
        return extraction.text
    return None


# ------------------------------------------------------------------------------ Python


@lru_cache(maxsize=64)
def _python_tree(code: str) -> ast.Module | None:
    """The parsed program (cached: a response's blocks are looked at more than once)."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _python_key(code: str) -> object:
    tree = _python_tree(code)
    return ast.dump(tree) if tree is not None else normalize_space(code)


def python_language(function: str) -> Language:
    """Python programs that must define a top-level ``function``."""

    defines = re.compile(rf"(?m)^[ \t]*def[ \t]+{re.escape(function)}[ \t]*\(")

    def is_program(code: str) -> bool:
        tree = _python_tree(code)
        # a block that defines the function states a program, even one that does not parse
        return function in _defined(tree) if tree is not None else bool(defines.search(code))

    return Language("Python", frozenset({"", "python", "py", "python3"}), is_program, _python_key)


def _defined(tree: ast.Module) -> set[str]:
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def extract_code(response: str, function: str) -> tuple[str | None, str]:
    """(source, "") for a syntactically valid program defining ``function``, else (None, reason).

    ``ast.parse`` only parses the text; nothing runs in-process.
    """
    code, reason = extract_program(response, python_language(function))
    if code is None:
        return None, reason
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return None, f"not valid Python: {type(exc).__name__}"
    if function not in _defined(tree):
        return None, f"the program must define a top-level function {function}()"
    return code, ""


# ------------------------------------------------------------------------------ SQL

_SQL_START = re.compile(r"(?is)^\s*(select|with)\b")


def _sql_key(query: str) -> object:
    return normalize_space(query).rstrip(";").rstrip()


SQL = Language("SQL", frozenset({"", "sql", "sqlite"}), lambda q: bool(_SQL_START.match(q)), _sql_key)
