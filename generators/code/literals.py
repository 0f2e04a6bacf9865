"""A small restricted parser for Python literals written by a model (never ``eval``).

Accepts integers, strings (single or double quotes, simple escapes), ``True``/``False``/``None``,
lists, tuples and dicts, nested up to ``MAX_DEPTH``, and decimal floats (``2.5``, ``-1e3``) when
asked. Linear in the text length; anything else (names, calls, operators, ``0x10``, ``inf``) is a
parse error.

Values are compared with :func:`same_value`, which keeps Python's types apart where ``==`` does
not: ``True`` is not ``1``, ``1.0`` is not ``1``, a tuple is not a list.
"""

from __future__ import annotations

import re
from typing import Any

MAX_CHARS = 20_000
MAX_DEPTH = 20
MAX_INT_DIGITS = 60
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"', "r": "\r", "0": "\0"}
_WORDS = {"True": True, "False": False, "None": None}
_NUMBER = re.compile(r"[+-]?[ \t]*(\d*)(\.\d*)?([eE][+-]?\d+)?")


class LiteralError(ValueError):
    """The text is not a literal this parser accepts."""


class _Parser:
    def __init__(self, text: str, floats: bool) -> None:
        self.text, self.pos, self.floats = text, 0, floats

    def error(self, what: str) -> LiteralError:
        return LiteralError(f"{what} at position {self.pos}")

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            raise self.error(f"expected {ch!r}")
        self.pos += 1

    def value(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise self.error("nested too deeply")
        ch = self.peek()
        if ch == "[":
            return self.sequence("[", "]", depth)
        if ch == "(":
            items, trailing = self.items("(", ")", depth)
            if len(items) == 1 and not trailing:
                return items[0]  # parentheses around one value, not a tuple
            return tuple(items)
        if ch == "{":
            return self.mapping(depth)
        if ch in "'\"":
            return self.string(ch)
        if ch and (ch in "+-." or ch.isdigit()):
            return self.number()
        for word, val in _WORDS.items():
            if self.text.startswith(word, self.pos):
                end = self.pos + len(word)
                if end < len(self.text) and (self.text[end].isalnum() or self.text[end] == "_"):
                    break
                self.pos = end
                return val
        raise self.error("unexpected character" if ch else "unexpected end")

    def number(self) -> int | float:
        """An integer (no leading zeros) or a decimal float; ``-`` binds to the number."""
        match = _NUMBER.match(self.text, self.pos)
        assert match is not None  # every part of the pattern is optional
        digits, fraction, exponent = match.groups()
        end = match.end()
        if not digits and (not fraction or len(fraction) < 2):
            raise self.error("expected digits")
        if not (digits + (fraction or "") + (exponent or "")).isascii():
            raise self.error("expected digits")
        if len(digits) + len(fraction or "") > MAX_INT_DIGITS or len(exponent or "") > 5:
            raise self.error("number too long")
        if end < len(self.text) and (self.text[end].isalnum() or self.text[end] in "._"):
            raise self.error("not a number")
        negative = self.text[self.pos] == "-"
        self.pos = end
        if (fraction is not None or exponent is not None) and not self.floats:
            raise self.error("not an integer")
        if fraction is None and exponent is None:
            if len(digits) > 1 and digits[0] == "0":
                raise self.error("leading zero")
            return -int(digits) if negative else int(digits)
        value = float((digits or "0") + (fraction or "") + (exponent or ""))
        return -value if negative else value

    def string(self, quote: str) -> str:
        self.pos += 1
        out: list[str] = []
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == quote:
                self.pos += 1
                return "".join(out)
            if ch == "\n":
                break
            if ch == "\\":
                nxt = self.text[self.pos + 1 : self.pos + 2]
                if nxt not in _ESCAPES:
                    raise self.error("unsupported escape")
                out.append(_ESCAPES[nxt])
                self.pos += 2
                continue
            out.append(ch)
            self.pos += 1
        raise self.error("unterminated string")

    def items(self, open_: str, close: str, depth: int) -> tuple[list[Any], bool]:
        self.expect(open_)
        items: list[Any] = []
        trailing = False
        while self.peek() != close:
            items.append(self.value(depth + 1))
            trailing = False
            if self.peek() == ",":
                self.pos += 1
                trailing = True
            elif self.peek() != close:
                raise self.error(f"expected ',' or {close!r}")
        self.pos += 1
        return items, trailing

    def sequence(self, open_: str, close: str, depth: int) -> list[Any]:
        return self.items(open_, close, depth)[0]

    def mapping(self, depth: int) -> dict[Any, Any]:
        self.expect("{")
        out: dict[Any, Any] = {}
        while self.peek() != "}":
            key = self.value(depth + 1)
            if isinstance(key, (list, dict)):
                raise self.error("unhashable dict key")
            self.expect(":")
            out[key] = self.value(depth + 1)
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != "}":
                raise self.error("expected ',' or '}'")
        self.pos += 1
        return out


def parse_literal(text: str, *, floats: bool = False) -> Any:
    """Parse ``text`` as one restricted Python literal; raises :class:`LiteralError`.

    ``floats``: also read decimal floats (a verifier that must call ``1.0`` a wrong value rather
    than a format error); by default a float is a parse error."""
    if not isinstance(text, str) or len(text) > MAX_CHARS:
        raise LiteralError("not a string or too long")
    parser = _Parser(text, floats)
    value = parser.value(0)
    if parser.peek():
        raise parser.error("trailing text")
    return value


def to_json(value: Any) -> Any:
    """A JSON-able form for comparisons: tuples become tagged lists, dict keys sorted pairs.

    Compare two such forms with :func:`same_value`, not ``==`` (``True == 1`` in Python). Floats
    raise :class:`LiteralError`."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, tuple):
        return {"tuple": [to_json(v) for v in value]}
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {"dict": sorted(([to_json(k), to_json(v)] for k, v in value.items()), key=repr)}
    raise LiteralError(f"unsupported value type {type(value).__name__}")


def same_value(a: Any, b: Any) -> bool:
    """``a == b`` with the types kept apart at every level: a bool is not an int, a float is not
    an int, a tuple is not a list (works on values and on their :func:`to_json` forms)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        keys = {_typed_key(k): k for k in b}
        return all(_typed_key(k) in keys and same_value(v, b[keys[_typed_key(k)]]) for k, v in a.items())
    return a == b


def _typed_key(key: Any) -> Any:
    """A dict key that keeps ``1``, ``True`` and ``1.0`` apart (they are one key in Python)."""
    if isinstance(key, tuple):
        return (type(key), tuple(_typed_key(k) for k in key))
    return (type(key), key)
