"""Verification of an exported dataset: shard hashes, rows, re-verification and rebuilds from seeds."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import palaestra
from palaestra.export.config import MANIFEST, is_training_split
from palaestra.export.jobs import LocalEngine, import_families, progress_bar, sha256
from palaestra.rows import dedup_key, is_test_content, row_to_task


@dataclass
class VerifyReport:
    """Outcome of :func:`verify_dataset`; ``ok`` only when every check passed."""

    rows: int = 0
    verified: int = 0
    rebuilt: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _verify_shard(
    job: tuple[str, str, str, int, tuple[str, ...], bool],
) -> tuple[str, int, int, int, list[str], list[str]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path, arrow_path, split, rebuild_every, modules, check_side = job
    import_families(modules)
    table = pq.read_table(path)
    problems: list[str] = []
    if arrow_path:
        with pa.memory_map(arrow_path) as source:
            if not pa.ipc.open_stream(source).read_all().equals(table):
                problems.append(f"{arrow_path}: the Arrow copy differs from {path}")
    verified = rebuilt = 0
    keys = []
    for i, row in enumerate(table.to_pylist()):
        where = f"{Path(path).name} row {i} ({row.get('family')}, id {row.get('id')})"
        if row["split"] != split:
            problems.append(f"{where}: split column says {row['split']!r}")
        try:
            task = row_to_task(row)
            spec = palaestra.get(task.family)
        except (ValueError, KeyError, TypeError) as exc:
            problems.append(f"{where}: not a valid task row: {exc}")
            continue
        keys.append(dedup_key(task))
        if check_side and is_test_content(task) == is_training_split(split):
            side = "held-out" if is_training_split(split) else "training-side"
            problems.append(f"{where}: {side} content in split {split!r} (palaestra's one split)")
        verdict = palaestra.verify(task, spec.impl.reference_response(task))
        if verdict.correct:
            verified += 1
        else:
            problems.append(
                f"{where}: reference answer does not verify: {verdict.reason} {verdict.error or ''}"
            )
        if rebuild_every and i % rebuild_every == 0:
            try:
                same = palaestra.rebuild(task).to_dict() == task.to_dict()
            except ValueError as exc:
                same, exc_text = False, str(exc)
            else:
                exc_text = "rebuilt task differs"
            if same:
                rebuilt += 1
            else:
                problems.append(f"{where}: rebuild from (family, version, level, seed) failed: {exc_text}")
    return split, len(keys), verified, rebuilt, problems, keys


def verify_dataset(
    path: str | os.PathLike[str],
    *,
    rebuild_fraction: float = 0.05,
    num_proc: int = 1,
    progress: bool | None = None,
) -> VerifyReport:
    """Re-verify every row's reference answer and rebuild a sample of rows from their seeds.

    Also checks the manifest (complete, shard sha256, counts) and that no task is in two splits.
    """
    root = Path(path)
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        raise ValueError(f"{root} is not a finished palaestra export (no {MANIFEST})")
    manifest = json.loads(manifest_path.read_text())
    report = VerifyReport()
    if not 0 <= rebuild_fraction <= 1:
        raise ValueError(f"rebuild fraction must be in [0, 1], got {rebuild_fraction}")
    rebuild_every = 0 if rebuild_fraction == 0 else max(1, round(1 / rebuild_fraction))
    modules = []
    for family in manifest["families"]:
        try:
            modules.append(palaestra.get(family).module)
        except ValueError as exc:
            raise ValueError(f"{root}: {exc}") from None
    jobs = []
    for split, shards in manifest["shards"].items():
        for k, shard in enumerate(shards):
            file = root / shard["file"]
            if not file.is_file():
                report.problems.append(f"missing shard {shard['file']}")
                continue
            if sha256(file) != shard["sha256"]:
                report.problems.append(f"{shard['file']}: sha256 does not match the manifest")
            arrow = root / split / f"data-{k:05d}-of-{len(shards):05d}.arrow"
            arrow_path = str(arrow) if arrow.is_file() else ""
            if manifest.get("arrow_copy") and not arrow_path:
                report.problems.append(f"missing Arrow copy {split}/{arrow.name}")
            # format 3 on: every split holds content of its own side only
            check_side = manifest.get("format_version", 1) >= 3
            jobs.append((str(file), arrow_path, split, rebuild_every, tuple(modules), check_side))
    owner: dict[str, str] = {}
    rows: Counter[str] = Counter()
    progress = sys.stderr.isatty() if progress is None else progress
    with LocalEngine(num_proc) as runner:
        for split, n, verified, rebuilt, problems, keys in progress_bar(
            runner.imap(_verify_shard, jobs), len(jobs), "verify", progress
        ):
            rows[split] += n
            report.rows += n
            report.verified += verified
            report.rebuilt += rebuilt
            report.problems.extend(problems)
            for key in keys:
                if key in owner:
                    report.problems.append(f"duplicate task {key} in {owner[key]} and {split}")
                owner[key] = split
    for split, expected in manifest["counts"].items():
        if rows[split] != expected:
            report.problems.append(f"split {split}: {rows[split]} rows, manifest says {expected}")
    return report
