"""Pushing an export to the Hugging Face Hub."""

from __future__ import annotations

import json
import os
from pathlib import Path

from palaestra.export.config import MANIFEST


def push_to_hub(
    path: str | os.PathLike[str], repo_id: str, *, private: bool = False, token: str | None = None
) -> str:
    """Upload a finished export (parquet shards, card, manifest) as a Hub dataset repo."""
    root = Path(path)
    if not (root / MANIFEST).is_file():
        raise ValueError(f"{root} is not a finished palaestra export (no {MANIFEST})")
    from huggingface_hub import HfApi

    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    api.upload_folder(
        folder_path=str(root),
        repo_id=repo_id,
        repo_type="dataset",
        allow_patterns=["README.md", MANIFEST, "data/*.parquet"],
        commit_message=f"palaestra export {json.loads((root / MANIFEST).read_text())['fingerprint']}",
    )
    return f"https://huggingface.co/datasets/{repo_id}"
