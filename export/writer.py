"""The export run: generate chunks, deduplicate in a fixed order, write shards, publish atomically."""

from __future__ import annotations

import errno
import itertools
import json
import math
import os
import shutil
import sys
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import palaestra
from palaestra.core import content_hash
from palaestra.export.card import dataset_card
from palaestra.export.config import FORMAT_VERSION, MANIFEST, MixtureConfig, Unit, plan_units
from palaestra.export.jobs import (
    TMP_MARK,
    ChunkJob,
    LocalEngine,
    RayEngine,
    ShardJob,
    SimulatedCrash,
    import_families,
    make_engine,
    progress_bar,
    read_keys,
    run_chunk,
    run_shard,
)
from palaestra.rows import features, row_to_task


@dataclass
class ExportResult:
    """What an export wrote (also stored in the manifest)."""

    path: Path
    fingerprint: str
    counts: dict[str, int]
    duplicates: dict[str, dict[str, int]]
    candidates: int
    reused_chunks: int
    shards: dict[str, list[dict[str, Any]]]
    already_complete: bool = False


def export(
    config: MixtureConfig | Mapping[str, Any] | str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    num_proc: int = 1,
    engine: str = "local",
    overwrite: bool = False,
    progress: bool | None = None,
    arrow_copy: bool = False,
    _crash_after: tuple[str, int] | None = None,
) -> ExportResult:
    """Generate the mixture into ``out`` (see the module docstring); returns what was written.

    Reruns after a crash resume from the chunks and shards already on disk. Configuration
    mistakes and impossible counts raise ``ValueError`` before anything is published.
    ``arrow_copy`` also writes every split as Arrow files beside the parquet shards, so that
    ``datasets.load_from_disk`` opens the folder (the same rows again: about 8x the parquet's size).
    """
    if not isinstance(config, MixtureConfig):
        if isinstance(config, (str, os.PathLike)):
            config = MixtureConfig.load(config)
        else:
            config = MixtureConfig.from_mapping(config)
    if isinstance(num_proc, bool) or not isinstance(num_proc, int) or num_proc < 1:
        raise ValueError(f"num_proc must be a positive integer, got {num_proc!r}")
    out = Path(out).absolute()
    progress = sys.stderr.isatty() if progress is None else progress
    fingerprint = config.fingerprint()
    done = _existing_export(out, fingerprint, overwrite, arrow_copy)
    if done is not None:
        return done
    work = _prepare_workdir(out, fingerprint)
    try:
        with make_engine(engine, num_proc) as runner:
            result = _run(config, out, work, runner, progress, arrow_copy, _crash_after)
    except ValueError:
        shutil.rmtree(work, ignore_errors=True)  # a config that cannot succeed leaves nothing behind
        raise
    except OSError as exc:
        if not _disk_full(exc):
            raise
        shutil.rmtree(work, ignore_errors=True)  # what is written cannot finish: give the space back
        raise ValueError(
            f"no space left on the device of {out.parent}: the partial export was removed; "
            "free some space (or pass another --out) and run the same command again"
        ) from None
    _publish(work / "staging", out, overwrite)
    shutil.rmtree(work, ignore_errors=True)
    return result


def _disk_full(exc: OSError) -> bool:
    """ENOSPC, also as pyarrow reports it (its IO errors carry the message, not always errno)."""
    return exc.errno == errno.ENOSPC or "No space left on device" in str(exc)


def _existing_export(out: Path, fingerprint: str, overwrite: bool, arrow_copy: bool) -> ExportResult | None:
    if not out.exists():
        return None
    manifest = out / MANIFEST
    if manifest.is_file() and not overwrite:
        data = json.loads(manifest.read_text())
        if data.get("config_fingerprint") == fingerprint:
            if arrow_copy and not (out / "dataset_dict.json").is_file():
                raise ValueError(
                    f"{out} holds this export without its Arrow copy; pass --overwrite with --arrow-copy "
                    "to write it again with one (or load its parquet shards)"
                )
            return _result_from_manifest(out, data, already_complete=True)
        raise ValueError(f"{out} holds a different palaestra export; pass --overwrite to replace it")
    if not overwrite and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"output folder {out} exists and is not an empty palaestra export; pass --overwrite")
    return None


def _prepare_workdir(out: Path, fingerprint: str) -> Path:
    work = out.parent / f".{out.name}.palaestra-partial"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        stamp = work / "config_fingerprint"
        if work.exists() and (not stamp.is_file() or stamp.read_text() != fingerprint):
            shutil.rmtree(work)  # left by a different config: nothing in it is reusable
        for sub in ("chunks", "staging/data"):
            (work / sub).mkdir(parents=True, exist_ok=True)
        for stray in work.rglob(f"*{TMP_MARK}*"):  # a write a killed run left half done
            stray.unlink()
        stamp.write_text(fingerprint)
    except OSError as exc:
        raise ValueError(f"cannot write the output folder {out}: {exc.strerror or exc}") from None
    return work


def _run(
    config: MixtureConfig,
    out: Path,
    work: Path,
    runner: LocalEngine | RayEngine,
    progress: bool,
    arrow_copy: bool,
    crash_after: tuple[str, int] | None,
) -> ExportResult:
    chat = config.format == "chat"
    feats = features()
    chunk_schema = feats.arrow_schema
    units = plan_units(config)
    modules = tuple(sorted({palaestra.get(c.family).module for c in config.cells}))
    finished = _Counter(crash_after)

    # Phase 1: draw candidates until every unit has its count of new keys (deterministic rule).
    pools: dict[int, list[list[str]]] = {u.index: [] for u in units}  # keys per chunk, in order
    reused = 0
    accepted: dict[int, list[int]] = {}
    while True:
        accepted, short, dups = _accept(units, pools)
        _check_feasible(units, pools, short)
        wanted = _next_chunks(units, pools, short)
        if not wanted:
            break
        jobs, keys_of = [], {}
        for unit, start, stop in wanted:
            path = _chunk_path(work, unit, start, stop)
            if os.path.exists(path):  # written atomically by an earlier (crashed) run: reuse it
                keys_of[(unit.index, start)] = read_keys(path)
                reused += 1
            else:
                system = config.system_prompt if chat else None
                jobs.append(ChunkJob(unit, start, stop, path, system, chunk_schema, modules))
        # Largest chunks first: the small ones fill the workers' tail (the order never changes the output).
        jobs.sort(key=lambda job: job.start - job.stop)
        for index, start, keys in progress_bar(runner.imap(run_chunk, jobs), len(jobs), "generate", progress):
            keys_of[(index, start)] = keys
            finished.tick("generate")
        for unit, start, _ in wanted:  # chunks join their pool in index order, however jobs finished
            pools[unit.index].append(keys_of[(unit.index, start)])

    # Phase 2: lay the kept rows out per split (optionally shuffled) and write the shards.
    staging = work / "staging"
    layout = _layout(config, units, accepted, work)
    jobs2 = []
    for split, rows in layout.items():
        n_shards = max(1, math.ceil(len(rows) / config.shard_size))
        if arrow_copy:
            (staging / split).mkdir(exist_ok=True)
        else:  # a copy an earlier (crashed) run with arrow_copy staged is not published
            shutil.rmtree(staging / split, ignore_errors=True)
        for k in range(n_shards):
            name = f"{split}-{k:05d}-of-{n_shards:05d}"
            part = rows[k * config.shard_size : (k + 1) * config.shard_size]
            jobs2.append(
                ShardJob(
                    split=split,
                    name=name,
                    parquet_path=str(staging / "data" / f"{name}.parquet"),
                    arrow_path=str(staging / split / f"data-{k:05d}-of-{n_shards:05d}.arrow")
                    if arrow_copy
                    else "",
                    rows=tuple(part),
                    schema=chunk_schema,
                )
            )
    shards: dict[str, list[dict[str, Any]]] = {s: [] for s in layout}
    for split, name, n, sha in progress_bar(runner.imap(run_shard, jobs2), len(jobs2), "write", progress):
        shards[split].append({"file": f"data/{name}.parquet", "rows": n, "sha256": sha})
        finished.tick("write")
    for split in shards:
        shards[split].sort(key=lambda s: s["file"])

    counts = {split: len(rows) for split, rows in layout.items()}
    fingerprint = content_hash({s: [x["sha256"] for x in shards[s]] for s in sorted(shards)}, length=32)
    result = ExportResult(
        path=out,
        fingerprint=fingerprint,
        counts=counts,
        duplicates=dups,
        candidates=sum(len(k) for p in pools.values() for k in p),
        reused_chunks=reused,
        shards=shards,
    )
    calibration = _calibration(config, units, accepted, work, runner)
    _write_metadata(staging, config, units, result, feats, calibration, arrow_copy)
    return result


class _Counter:
    """Test hook: ``(phase, n)`` crashes after the n-th finished job of "generate" or "write"."""

    def __init__(self, limit: tuple[str, int] | None) -> None:
        self.limit, self.n = limit, Counter()

    def tick(self, phase: str) -> None:
        self.n[phase] += 1
        if self.limit is not None and self.limit == (phase, self.n[phase]):
            raise SimulatedCrash(f"simulated crash after {self.n[phase]} {phase} jobs")


def _accept(
    units: Sequence[Unit], pools: Mapping[int, list[list[str]]]
) -> tuple[dict[int, list[int]], dict[int, int], dict[str, dict[str, int]]]:
    """The sequential rule: visit units in order, keep candidates whose key is new."""
    owner: dict[str, str] = {}  # key -> split that kept it
    accepted: dict[int, list[int]] = {}
    short: dict[int, int] = {}
    dups: dict[str, dict[str, int]] = {}
    for unit in units:
        kept: list[int] = []
        stats = dups.setdefault(unit.split, {"within_split": 0, "across_splits": 0})
        for i, key in enumerate(itertools.chain.from_iterable(pools[unit.index])):
            if len(kept) == unit.count:
                break
            if key in owner:
                stats["within_split" if owner[key] == unit.split else "across_splits"] += 1
                continue
            owner[key] = unit.split
            kept.append(i)
        accepted[unit.index] = kept
        if len(kept) < unit.count:
            short[unit.index] = unit.count - len(kept)
    return accepted, short, dups


def _check_feasible(
    units: Sequence[Unit], pools: Mapping[int, list[list[str]]], short: Mapping[int, int]
) -> None:
    problems = []
    for index, missing in short.items():
        unit = units[index]
        keys = list(itertools.chain.from_iterable(pools[index]))
        distinct = len(set(keys))
        # Every distinct task already drawn ~4 times: the cell's supply is exhausted.
        exhausted = len(keys) >= 4 * distinct and len(keys) >= 64
        if len(keys) >= unit.budget or exhausted:
            problems.append(
                f"{unit.cell.label()} ({unit.split}): asked for {unit.count} unique tasks but "
                f"{len(keys)} draws gave only {distinct} distinct ones ({unit.count - missing} usable); "
                "this level cannot produce that many -- lower the count or add levels/knobs"
            )
    if problems:
        raise ValueError("impossible count: " + "; ".join(problems))


def _next_chunks(
    units: Sequence[Unit], pools: Mapping[int, list[list[str]]], short: Mapping[int, int]
) -> list[tuple[Unit, int, int]]:
    wanted = []
    for unit in units:
        drawn = sum(len(k) for k in pools[unit.index])
        if drawn == 0:
            target = unit.first
        elif unit.index in short:
            # Geometric growth keeps the number of rounds small and makes exhaustion show up fast.
            target = min(drawn + max(short[unit.index] * 2, drawn), unit.budget)
        else:
            continue
        start = drawn
        while start < max(target, drawn + 1):
            start, stop = unit.chunk_range(start)
            wanted.append((unit, start, stop))
            start = stop
    return wanted


def _chunk_of(unit: Unit, i: int, work: Path) -> tuple[str, int]:
    start, stop = unit.chunk_range(i)
    return _chunk_path(work, unit, start, stop), i - start


def _chunk_path(work: Path, unit: Unit, start: int, stop: int) -> str:
    return str(work / "chunks" / f"u{unit.index:05d}-{start:09d}-{stop:09d}.arrow")


def _layout(
    config: MixtureConfig, units: Sequence[Unit], accepted: Mapping[int, list[int]], work: Path
) -> dict[str, list[tuple[str, int]]]:
    layout: dict[str, list[tuple[str, int]]] = {s: [] for s in config.splits}
    for unit in units:
        layout[unit.split].extend(_chunk_of(unit, i, work) for i in accepted[unit.index])
    if config.shuffle:
        for split_index, split in enumerate(config.splits):
            rng = np.random.Generator(np.random.PCG64([config.seed, config.version, 7919, split_index]))
            rows = layout[split]
            layout[split] = [rows[i] for i in rng.permutation(len(rows))]
    return {s: rows for s, rows in layout.items() if rows}


def _publish(staging: Path, out: Path, overwrite: bool) -> None:
    # One rename makes the finished dataset appear; a crash before it leaves `out` untouched.
    if out.exists():
        if not overwrite and any(out.iterdir()):
            raise ValueError(f"output folder {out} appeared while exporting; not replacing it")
        trash = out.parent / f".{out.name}.palaestra-old"
        shutil.rmtree(trash, ignore_errors=True)
        os.replace(out, trash)
        os.replace(staging, out)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        os.replace(staging, out)


def _write_metadata(
    staging: Path,
    config: MixtureConfig,
    units: Sequence[Unit],
    result: ExportResult,
    feats: Any,
    calibration: Mapping[str, Mapping[str, Any]],
    arrow_copy: bool,
) -> None:
    splits = list(result.counts)
    features_dict = feats.to_dict()
    if arrow_copy:
        _write_arrow_metadata(staging, config, result, features_dict)
    families = sorted({u.cell.family for u in units})
    manifest = {
        "format_version": FORMAT_VERSION,
        "complete": True,
        "name": config.name,
        "palaestra_version": palaestra.__version__,
        "families": {f: palaestra.get(f).version for f in families},
        "config": config.raw,
        "config_fingerprint": config.fingerprint(),
        "fingerprint": result.fingerprint,
        "seed": config.seed,
        "version": config.version,
        "splits": splits,
        "counts": result.counts,
        "duplicates_dropped": result.duplicates,
        "candidates_generated": result.candidates,
        "cells": [
            {
                "split": u.split,
                "family": u.cell.family,
                "level": u.cell.level,
                "knobs": dict(u.cell.knobs),
                "count": u.count,
            }
            for u in units
        ],
        "shards": result.shards,
        "arrow_copy": arrow_copy,
        "calibration": calibration,
    }
    (staging / "README.md").write_text(dataset_card(manifest, features_dict))
    # The manifest is written last: its presence marks the folder as a finished export.
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True))


def _write_arrow_metadata(
    staging: Path, config: MixtureConfig, result: ExportResult, features_dict: Mapping[str, Any]
) -> None:
    """The files beside the Arrow copy that make the folder a ``datasets.load_from_disk`` DatasetDict."""
    (staging / "dataset_dict.json").write_text(json.dumps({"splits": list(result.counts)}))
    for split in result.counts:
        names = [Path(s["file"]).name for s in result.shards[split]]
        arrow = [f"data-{k:05d}-of-{len(names):05d}.arrow" for k in range(len(names))]
        split_fp = content_hash([s["sha256"] for s in result.shards[split]])
        state = {
            "_data_files": [{"filename": a} for a in arrow],
            "_fingerprint": split_fp,
            "_format_columns": None,
            "_format_kwargs": {},
            "_format_type": None,
            "_output_all_columns": False,
            "_split": split,
        }
        (staging / split / "state.json").write_text(json.dumps(state, indent=2))
        info = {"description": f"palaestra export {config.name}", "features": features_dict}
        (staging / split / "dataset_info.json").write_text(json.dumps(info, indent=2))


def _result_from_manifest(out: Path, data: Mapping[str, Any], already_complete: bool) -> ExportResult:
    return ExportResult(
        path=out,
        fingerprint=data["fingerprint"],
        counts=dict(data["counts"]),
        duplicates=dict(data["duplicates_dropped"]),
        candidates=int(data["candidates_generated"]),
        reused_chunks=0,
        shards=dict(data["shards"]),
        already_complete=already_complete,
    )


def _calibration(
    config: MixtureConfig,
    units: Sequence[Unit],
    accepted: Mapping[int, list[int]],
    work: Path,
    runner: LocalEngine | RayEngine,
) -> dict[str, dict[str, Any]]:
    """Weak-solver solve rate on a few exported rows per (family, level): a calibration summary."""
    if not config.calibration_samples:
        return {}
    picks: dict[tuple[str, Any], list[tuple[str, int]]] = defaultdict(list)
    for unit in units:
        key = (unit.cell.family, unit.cell.level)
        room = config.calibration_samples - len(picks[key])
        picks[key].extend(_chunk_of(unit, i, work) for i in accepted[unit.index][: max(room, 0)])
    jobs = [
        (family, level, tuple(rows), palaestra.get(family).module)
        for (family, level), rows in sorted(picks.items(), key=_cell_order)
    ]
    table: dict[str, dict[str, Any]] = defaultdict(dict)
    for family, level, solved, n in runner.imap(_calibrate_cell, jobs):
        table[family][str(level)] = {"weak_solved": solved, "n": n}
    return {f: dict(sorted(v.items())) for f, v in sorted(table.items())}


def _cell_order(item: tuple[tuple[str, Any], Any]) -> tuple[str, int]:
    (family, level), _ = item
    return family, -1 if level is None else level


def _calibrate_cell(
    job: tuple[str, Any, tuple[tuple[str, int], ...], str],
) -> tuple[str, Any, int | None, int]:
    import pyarrow as pa

    family, level, rows, module = job
    import_families([module])
    impl = palaestra.get(family).impl
    solved = 0
    for path, i in rows:
        with pa.memory_map(path) as source:
            row = pa.ipc.open_file(source).read_all().slice(i, 1).to_pylist()[0]
        task = row_to_task(row)
        try:
            run = impl.solve_weak(task)
        except NotImplementedError:
            return family, level, None, len(rows)
        except Exception:  # a weak solver crash counts as not solved; calibration is a summary
            continue
        if run.response is not None and palaestra.verify(task, run.response).correct:
            solved += 1
    return family, level, solved, len(rows)
