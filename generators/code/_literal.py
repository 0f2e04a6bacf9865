"""A small restricted parser for Python literals written by a model (never ``eval``).

Accepts integers, strings (single or double quotes, simple escapes), ``True``/``False``/``None``,
lists, tuples and dicts, nested up to ``MAX_DEPTH``. Linear in the text length; anything else
(names, calls, operators, floats) is a parse error.
"""

from __future__ import annotations

from typing import Any

MAX_CHARS = 20_000
MAX_DEPTH = 20
MAX_INT_DIGITS = 60
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"', "r": "\r", "0": "\0"}
_WORDS = {"True": True, "False": False, "None": None}


class LiteralError(ValueError):
    """The text is not a literal this parser accepts."""


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

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
        if ch == "-" or ch == "+" or ch.isdigit():
            return self.integer()
        for word, val in _WORDS.items():
            if self.text.startswith(word, self.pos):
                end = self.pos + len(word)
                if end < len(self.text) and (self.text[end].isalnum() or self.text[end] == "_"):
                    break
                self.pos = end
                return val
        raise self.error("unexpected character" if ch else "unexpected end")

    def integer(self) -> int:
        start = self.pos
        if self.text[self.pos] in "+-":
            self.pos += 1
            self.skip()
        digits = self.pos
        while self.pos < len(self.text) and self.text[self.pos].isdigit():
            self.pos += 1
        body = self.text[digits : self.pos]
        if not body or not body.isascii():
            raise self.error("expected digits")
        if len(body) > MAX_INT_DIGITS:
            raise self.error("integer too long")
        if len(body) > 1 and body[0] == "0":
            raise self.error("leading zero")
        if self.pos < len(self.text) and (self.text[self.pos].isalpha() or self.text[self.pos] in "._"):
            raise self.error("not an integer")
        value = int(body)
        return -value if self.text[start] == "-" else value

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


def parse_literal(text: str) -> Any:
    """Parse ``text`` as one restricted Python literal; raises :class:`LiteralError`."""
    if not isinstance(text, str) or len(text) > MAX_CHARS:
        raise LiteralError("not a string or too long")
    parser = _Parser(text)
    value = parser.value(0)
    if parser.peek():
        raise parser.error("trailing text")
    return value


def to_json(value: Any) -> Any:
    """A JSON-able form for comparisons: tuples become tagged lists, dict keys sorted pairs."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, tuple):
        return {"tuple": [to_json(v) for v in value]}
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {"dict": sorted(([to_json(k), to_json(v)] for k, v in value.items()), key=repr)}
    raise LiteralError(f"unsupported value type {type(value).__name__}")
