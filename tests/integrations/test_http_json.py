"""The request-body guard of the HTTP servers: the nesting it measures before parsing is the
byte-by-byte reading it replaced (kept here as the oracle), on any bytes, valid JSON or not."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.integrations.http_json import _nesting


def nesting_byte_by_byte(raw: bytes) -> int:
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


@settings(max_examples=5000, deadline=None)
@given(st.binary(max_size=60) | st.text(alphabet='[]{}"\\ a,:\n', max_size=60).map(str.encode))
def test_nesting_reads_any_bytes_as_the_byte_loop(raw: bytes) -> None:
    assert _nesting(raw) == nesting_byte_by_byte(raw)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(st.none() | st.text() | st.integers(), lambda c: st.lists(c) | st.dictionaries(st.text(), c))
)
def test_nesting_of_json_documents(value: object) -> None:
    raw = json.dumps(value).encode()
    assert _nesting(raw) == nesting_byte_by_byte(raw)


def test_deep_and_string_hidden_brackets() -> None:
    assert _nesting(b"[" * 500 + b"]" * 500) == 500
    hidden = b'{"a": "[[[[[[", "b": [1, {"c": "\\"]]]"}]}'
    assert _nesting(hidden) == nesting_byte_by_byte(hidden) == 3  # { [ { outside the strings
    assert _nesting(b'"unclosed [[[[') == 0
