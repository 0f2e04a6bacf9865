"""Small readers for the answer formats the families print."""

from __future__ import annotations

import re
from typing import Any

# --------------------------------------------------------------------------------------------
# Small readers for the answer formats the families print
# --------------------------------------------------------------------------------------------

_INT = r"[+-]?\d+"


def read_assignment(text: str, names: list[str], values: str = "bool") -> dict[str, Any]:
    """``x1=true, x2=false`` (or ``x1 = 3``) with every name exactly once; ValueError otherwise."""
    out: dict[str, Any] = {}
    for part in re.split(r"\s*,\s*", text.strip()):
        match = re.fullmatch(r"\s*([A-Za-z]\w*)\s*=\s*(\S+)\s*", part)
        if not match:
            raise ValueError(part)
        name, raw = match.groups()
        if name in out or name not in names:
            raise ValueError(name)
        if values == "bool":
            if raw.lower() not in ("true", "false"):
                raise ValueError(raw)
            out[name] = raw.lower() == "true"
        else:
            if not re.fullmatch(_INT, raw):
                raise ValueError(raw)
            out[name] = int(raw)
    if set(out) != set(names):
        raise ValueError("not every variable")
    return out


def read_arrow_path(text: str, sep: str = "->") -> list[str]:
    items = [t.strip() for t in text.split(sep)]
    if any(not t for t in items):
        raise ValueError(text)
    return items
