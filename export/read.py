"""Reading an export's rows back without the `datasets` library (its parquet shards, in order)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from palaestra.export.config import MANIFEST


def read_split(path: str | os.PathLike[str], split: str) -> list[dict[str, Any]]:
    """The rows of ``split`` of the finished export at ``path``, in shard order, as dicts."""
    import pyarrow.parquet as pq

    root = Path(path)
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        raise ValueError(f"{root} is not a finished palaestra export (no {MANIFEST})")
    shards = json.loads(manifest_path.read_text())["shards"]
    if split not in shards:
        raise ValueError(f"the export has no {split!r} split (splits: {', '.join(shards)})")
    rows: list[dict[str, Any]] = []
    for shard in shards[split]:
        rows.extend(pq.read_table(root / shard["file"]).to_pylist())
    return rows
