"""Reproducible Hugging Face dataset export: ``palaestra export --config MIX.yaml --out DIR``.

A *mixture config* lists families x levels (or knob grids) x counts per split, a base seed and a
dataset version::

    name: arith-mix
    seed: 1234
    version: 1
    splits: [test, train]        # priority order for deduplication (earlier splits claim first)
    format: plain                # or "chat": `prompt` starts with a system turn (system_prompt)
    mixture:
      - family: expression
        levels: [1, 2, 3]        # an int, a list, "2-7" or "all"
        counts: {train: 1000, test: 100}   # per cell (each level x knob combination)
      - family: expression
        knobs: {digits: [2, 3], operands: {low: 2, high: 4}}   # lists/ranges become a grid
        counts: {train: 50}

How the export stays honest:

* **Seeds** -- candidate ``i`` of a cell in split number ``s`` gets the task seed
  ``s * 2**58 + h`` where ``h < 2**58`` is drawn from ``SeedSequence((base seed, version, cell,
  i))``: splits use disjoint seed ranges by construction, and any row is reachable by index.
* **Deduplication** -- a task's key is ``family/canonical_hash`` (``task.id`` when the family has no
  canonical form). Cells are visited in a fixed order (split priority, entry, cell); a candidate is
  kept only if no earlier kept row has its key, so no task appears twice in a split or in two
  splits. Short cells draw more candidates until the counts are met; duplicates are reported. A
  cell that cannot reach its count (its level has fewer distinct tasks) fails fast.
* **Reproducibility** -- the result is defined by that sequential rule alone; generation runs in
  parallel chunks whose boundaries do not depend on the number of processes, so shards are
  byte-identical and the fingerprint is the same for any ``--num-proc`` or engine.
* **Crash safety** -- work happens in ``.<out>.palaestra-partial/`` next to the output: every chunk
  and shard is written to a temp file and renamed, a rerun reuses what exists, and the finished
  dataset appears at ``--out`` by one atomic rename with its manifest (``palaestra_export.json``)
  already inside. A folder without that manifest is never a palaestra dataset.

Output layout (both loaders work)::

    DIR/README.md                  dataset card (mixture table, seeds, calibration, loading snippet)
    DIR/palaestra_export.json      manifest: config, counts, duplicates, shard sha256, fingerprint
    DIR/data/<split>-00000-of-000NN.parquet    -> load_dataset("parquet", data_files=...) / the Hub
    DIR/dataset_dict.json, DIR/<split>/*.arrow -> datasets.load_from_disk(DIR)
"""

from __future__ import annotations

import argparse
import bisect
import functools
import hashlib
import importlib
import itertools
import json
import math
import multiprocessing
import os
import shutil
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import palaestra
from palaestra.core import canonical_json, content_hash
from palaestra.rows import dedup_key, features, row_to_task, task_to_row

MANIFEST = "palaestra_export.json"
FORMAT_VERSION = 2  # 2: conversational `prompt`, `extra_info.task`, trainer columns, palaestra_version
SPLIT_BITS = 58  # split s owns task seeds [s * 2**58, (s + 1) * 2**58)
MAX_SPLITS = 16
DEFAULT_SYSTEM_PROMPT = "Solve the task. Give your final answer in exactly the format the task asks for."
_CONFIG_KEYS = {
    "name",
    "seed",
    "version",
    "splits",
    "format",
    "system_prompt",
    "shard_size",
    "chunk_size",
    "shuffle",
    "calibration_samples",
    "mixture",
}
_ENTRY_KEYS = {"family", "level", "levels", "knobs", "counts"}


# --------------------------------------------------------------------------------------------
# Mixture config
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One family x level x knob combination and the rows it contributes to each split."""

    family: str
    level: int | None
    knobs: Mapping[str, Any]
    counts: Mapping[str, int]
    entry: int  # index of the mixture entry it came from (for messages)

    def label(self) -> str:
        knobs = ",".join(f"{k}={v}" for k, v in sorted(self.knobs.items()))
        where = f"level {self.level}" if self.level is not None else "custom knobs"
        return f"{self.family} {where}" + (f" [{knobs}]" if knobs else "")


@dataclass(frozen=True)
class MixtureConfig:
    """A validated mixture: what to generate, how many, from which seed."""

    name: str
    seed: int
    version: int
    splits: tuple[str, ...]
    cells: tuple[Cell, ...]
    format: str = "plain"
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    shard_size: int = 10_000
    chunk_size: int = 1000
    shuffle: bool = True
    calibration_samples: int = 8
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MixtureConfig:
        """Read a YAML (or JSON) mixture file."""
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"mixture config {str(path)!r} does not exist")
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            data = json.loads(text)
        else:
            import yaml

            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                raise ValueError(f"{path} is not valid YAML: {_yaml_problem(exc)}") from None
        return cls.from_mapping(data)

    @classmethod
    def from_mapping(cls, data: Any) -> MixtureConfig:
        """Validate a mapping; every mistake is a ``ValueError`` that says what to fix."""
        if not isinstance(data, Mapping):
            raise ValueError("mixture config must be a mapping with a 'mixture' list")
        unknown = sorted(set(data) - _CONFIG_KEYS)
        if unknown:
            raise ValueError(f"unknown config key(s) {unknown}; valid keys: {sorted(_CONFIG_KEYS)}")
        entries = data.get("mixture")
        if not isinstance(entries, list) or not entries:
            raise ValueError("mixture config needs a non-empty 'mixture' list of entries")
        seed = _nonneg_int(data.get("seed", 0), "seed")
        version = _nonneg_int(data.get("version", 1), "version")
        named = [s for e in entries if isinstance(e, Mapping) for s in (e.get("counts") or {})]
        splits = data.get("splits") or _default_split_order(named)
        if not isinstance(splits, list) or not all(isinstance(s, str) and s.isidentifier() for s in splits):
            raise ValueError(f"splits must be a list of identifier names, got {splits!r}")
        if len(set(splits)) != len(splits) or not 0 < len(splits) <= MAX_SPLITS:
            raise ValueError(f"splits must be 1..{MAX_SPLITS} distinct names, got {splits!r}")
        fmt = data.get("format", "plain")
        if fmt not in ("plain", "chat"):
            raise ValueError(f"format must be 'plain' or 'chat', got {fmt!r}")
        cells = tuple(c for i, e in enumerate(entries) for c in _entry_cells(i, e, splits))
        if not any(n for c in cells for n in c.counts.values()):
            raise ValueError("the mixture asks for zero rows")
        return cls(
            name=str(data.get("name", "palaestra-mixture")),
            seed=seed,
            version=version,
            splits=tuple(splits),
            cells=cells,
            format=fmt,
            system_prompt=str(data.get("system_prompt", DEFAULT_SYSTEM_PROMPT)),
            shard_size=_positive_int(data.get("shard_size", 10_000), "shard_size"),
            chunk_size=_positive_int(data.get("chunk_size", 1000), "chunk_size"),
            shuffle=_bool(data.get("shuffle", True), "shuffle"),
            calibration_samples=_nonneg_int(data.get("calibration_samples", 8), "calibration_samples"),
            raw=json.loads(json.dumps(data, default=str)),
        )

    def counts(self) -> dict[str, int]:
        """Total rows per split."""
        return {s: sum(c.counts.get(s, 0) for c in self.cells) for s in self.splits}

    def fingerprint(self) -> str:
        """Hash of everything that decides the output bytes (config, palaestra and family versions)."""
        families = sorted({c.family for c in self.cells})
        return content_hash(
            {
                "format_version": FORMAT_VERSION,
                "palaestra": palaestra.__version__,
                "families": {f: palaestra.get(f).version for f in families},
                "name": self.name,
                "seed": self.seed,
                "version": self.version,
                "splits": list(self.splits),
                "format": self.format,
                "system_prompt": self.system_prompt if self.format == "chat" else None,
                "shard_size": self.shard_size,
                "chunk_size": self.chunk_size,
                "shuffle": self.shuffle,
                "cells": [[c.family, c.level, dict(c.knobs), dict(c.counts)] for c in self.cells],
            },
            length=32,
        )


def _yaml_problem(exc: Exception) -> str:
    """One line: what the YAML parser objected to, and where."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark else str(problem)


def _default_split_order(names: Iterable[str]) -> list[str]:
    # Held-out splits claim tasks first, so growing the train split never changes the test split.
    seen = list(dict.fromkeys(str(n) for n in names))
    preferred = [s for s in ("test", "validation", "train") if s in seen]
    return preferred + sorted(s for s in seen if s not in preferred)


def _entry_cells(index: int, entry: Any, splits: Sequence[str]) -> list[Cell]:
    where = f"mixture entry {index}"
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where} must be a mapping with 'family' and 'counts'")
    unknown = sorted(set(entry) - _ENTRY_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; valid keys: {sorted(_ENTRY_KEYS)}")
    name = entry.get("family")
    if not isinstance(name, str):
        raise ValueError(f"{where}: 'family' must be a family name (see `palaestra list`)")
    spec = palaestra.get(name)  # unknown family -> ValueError listing the valid ones
    where = f"mixture entry {index} ({name})"
    if "level" in entry and "levels" in entry:
        raise ValueError(f"{where}: give 'level' or 'levels', not both")
    levels = _parse_levels(entry.get("levels", entry.get("level")), where)
    knob_grid = _parse_knob_grid(entry.get("knobs") or {}, spec, where)
    if levels == [None] and not knob_grid:
        levels = list(sorted(spec.levels))
    counts = entry.get("counts")
    if not isinstance(counts, Mapping) or not counts:
        raise ValueError(f"{where}: 'counts' must map split names to row counts, e.g. {{train: 100}}")
    for split, n in counts.items():
        if split not in splits:
            raise ValueError(f"{where}: split {split!r} is not in splits {list(splits)}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"{where}: count for split {split!r} must be a non-negative integer, got {n!r}")
    cells = []
    names = sorted(knob_grid)
    for level in levels:
        for values in itertools.product(*(knob_grid[k] for k in names)):
            knobs = dict(zip(names, values, strict=True))
            try:  # validates level and knobs (types, ranges, cross-knob rules) before any work
                palaestra.make_task(name, seed=0, level=level, **knobs)
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
            cells.append(Cell(name, level, knobs, {s: int(counts.get(s, 0)) for s in splits}, index))
    return cells


def _parse_levels(value: Any, where: str) -> list[int | None]:
    if value is None:
        return [None]
    if value == "all":
        return list(range(1, 11))
    if isinstance(value, str) and "-" in value:
        lo, _, hi = value.partition("-")
        try:
            value = list(range(int(lo), int(hi) + 1))
        except ValueError:
            raise ValueError(f"{where}: levels {value!r} must look like '2-7'") from None
    values = value if isinstance(value, list) else [value]
    for level in values:
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 10:
            raise ValueError(f"{where}: levels must be integers in 1..10, got {level!r}")
    if not values or len(set(values)) != len(values):
        raise ValueError(f"{where}: levels must be a non-empty list of distinct levels, got {value!r}")
    return list(values)


def _parse_knob_grid(knobs: Any, spec: Any, where: str) -> dict[str, list[Any]]:
    if not isinstance(knobs, Mapping):
        raise ValueError(f"{where}: 'knobs' must map knob names to values, lists or {{low, high}} ranges")
    valid = spec.knobs.names()
    grid = {}
    for name, value in knobs.items():
        if name not in valid:
            raise ValueError(f"{where}: unknown knob {name!r}; valid knobs: {valid}")
        if isinstance(value, Mapping):
            if set(value) != {"low", "high"} or not all(isinstance(value[k], int) for k in value):
                raise ValueError(f"{where}: knob range for {name!r} must be {{low: int, high: int}}")
            grid[name] = list(range(value["low"], value["high"] + 1))
        elif isinstance(value, list):
            grid[name] = list(value)
        else:
            grid[name] = [value]
        if not grid[name]:
            raise ValueError(f"{where}: knob {name!r} has no values")
    return grid


def _nonneg_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def _positive_int(value: Any, name: str) -> int:
    if _nonneg_int(value, name) == 0:
        raise ValueError(f"{name} must be positive, got 0")
    return value


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


# --------------------------------------------------------------------------------------------
# The plan: cells x splits -> units with their own seed streams
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """The rows one cell contributes to one split, drawn from its own seed stream."""

    index: int
    split: str
    split_index: int
    cell: Cell
    count: int
    stream: tuple[int, ...]  # SeedSequence entropy words (base seed, version, cell key, occurrence)
    first: int  # candidates drawn in the first round: the count and a small margin for duplicates
    chunk: int  # largest chunk (the config's chunk_size)

    def seed(self, i: int) -> int:
        """Task seed of candidate ``i``: inside this split's disjoint range."""
        words = np.random.SeedSequence([*self.stream, i]).generate_state(2, np.uint32)
        low = (int(words[0]) | int(words[1]) << 32) & ((1 << SPLIT_BITS) - 1)
        return (self.split_index << SPLIT_BITS) | low

    @property
    def budget(self) -> int:
        """Most candidates drawn before the count is declared impossible."""
        return 3 * self.count + 64

    def chunk_range(self, i: int) -> tuple[int, int]:
        """The chunk ``[start, stop)`` holding candidate ``i``.

        Boundaries depend on the count and the config only (never on the number of processes):
        the first round's candidates split into near-equal chunks, later ones into fixed steps.
        """
        if i < self.first:
            bounds = _even_bounds(self.first, math.ceil(self.first / self.chunk))
            j = bisect.bisect_right(bounds, i) - 1
            return bounds[j], bounds[j + 1]
        step = min(self.chunk, max(16, math.ceil(self.first / 10)))
        start = self.first + (i - self.first) // step * step
        return start, start + step


@functools.lru_cache(maxsize=4096)
def _even_bounds(total: int, parts: int) -> tuple[int, ...]:
    return tuple(total * j // parts for j in range(parts + 1))


def plan_units(config: MixtureConfig) -> list[Unit]:
    """Units in priority order: split priority, then mixture entry, then cell."""
    units: list[Unit] = []
    occurrences: Counter[str] = Counter()
    for split_index, split in enumerate(config.splits):
        for cell in config.cells:
            count = cell.counts.get(split, 0)
            key = canonical_json([split, cell.family, cell.level, dict(cell.knobs)])
            occurrences[key] += 1
            if not count:
                continue
            digest = hashlib.sha256(key.encode()).digest()
            cell_words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
            stream = (config.seed, config.version, *cell_words, occurrences[key])
            first = count + math.ceil(count / 100) + 2
            units.append(Unit(len(units), split, split_index, cell, count, stream, first, config.chunk_size))
    return units


# --------------------------------------------------------------------------------------------
# Worker jobs (module-level so that process pools and Ray can pickle them)
# --------------------------------------------------------------------------------------------


class GenerationError(ValueError):
    """A family's generator raised while exporting (reported as one line by the CLI)."""


@dataclass(frozen=True)
class ChunkJob:
    unit: Unit
    start: int
    stop: int
    path: str
    system_prompt: str | None
    schema: Any  # pyarrow.Schema
    modules: tuple[str, ...] = ()  # modules defining the families (plugins registered at run time)


def _import_families(modules: Iterable[str]) -> None:
    for module in modules:
        if module != "__main__":
            importlib.import_module(module)


def run_chunk(job: ChunkJob) -> tuple[int, int, list[str]]:
    """Generate candidates [start, stop) of a unit into an Arrow file; return their keys."""
    import pyarrow as pa

    _import_families(job.modules)
    cell = job.unit.cell
    rows, keys = [], []
    for i in range(job.start, job.stop):
        seed = job.unit.seed(i)
        try:
            task = palaestra.make_task(cell.family, seed=seed, level=cell.level, **cell.knobs)
        except Exception as exc:  # a generator bug: deterministic, so a rerun would fail the same way
            raise GenerationError(f"{cell.label()} seed {seed}: the generator failed: {exc!r}") from exc
        rows.append(task_to_row(task, job.unit.split, job.system_prompt))
        keys.append(dedup_key(task))
    table = pa.Table.from_pylist(rows, schema=job.schema).append_column("_key", pa.array(keys, pa.string()))
    _atomic_write(job.path, lambda tmp: _write_ipc_file(tmp, table))
    return job.unit.index, job.start, keys


def _read_keys(path: str) -> list[str]:
    import pyarrow as pa

    with pa.memory_map(path) as source:
        return pa.ipc.open_file(source).read_all().column("_key").to_pylist()


@dataclass(frozen=True)
class ShardJob:
    split: str
    name: str  # data-00000-of-00004
    parquet_path: str
    arrow_path: str
    rows: tuple[tuple[str, int], ...]  # (chunk path, row index) in final order
    schema: Any


def run_shard(job: ShardJob) -> tuple[str, str, int, str]:
    """Assemble one shard from chunk files; write parquet and Arrow copies; return its sha256."""
    if not (os.path.exists(job.parquet_path) and os.path.exists(job.arrow_path)):
        table = _gather_rows(job.rows, job.schema)
        _atomic_write(job.parquet_path, lambda tmp: _write_parquet(tmp, table))
        _atomic_write(job.arrow_path, lambda tmp: _write_ipc_stream(tmp, table))
    return job.split, job.name, len(job.rows), _sha256(job.parquet_path)


def _gather_rows(rows: Sequence[tuple[str, int]], schema: Any):
    import pyarrow as pa

    by_chunk: dict[str, list[int]] = defaultdict(list)
    for pos, (path, _) in enumerate(rows):
        by_chunk[path].append(pos)
    pieces, order = [], []
    for path in sorted(by_chunk):
        positions = by_chunk[path]
        with pa.memory_map(path) as source:
            table = pa.ipc.open_file(source).read_all()
        pieces.append(table.take([rows[p][1] for p in positions]).select(schema.names))
        order.extend(positions)
    table = pa.concat_tables(pieces)
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
    return table.take(pa.array(inverse)).cast(schema).combine_chunks()


def _write_ipc_file(path: str, table: Any) -> None:
    import pyarrow as pa

    with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


def _write_ipc_stream(path: str, table: Any) -> None:
    # datasets.load_from_disk memory-maps Arrow *stream* files.
    import pyarrow as pa

    with pa.OSFile(path, "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=1000)


def _write_parquet(path: str, table: Any) -> None:
    import pyarrow.parquet as pq

    pq.write_table(table, path, compression="zstd", row_group_size=1000, write_statistics=False)


def _atomic_write(path: str, write: Callable[[str], None]) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _sha256(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --------------------------------------------------------------------------------------------
# Engines: where the jobs run
# --------------------------------------------------------------------------------------------


class _SimulatedCrash(BaseException):
    """Raised by the test hook ``_crash_after``: behaves like a kill (no cleanup)."""


WORKER_DIED = (
    "a worker process died before finishing its job. If you call export() or verify_dataset() with "
    'num_proc > 1 from a script, put the call under `if __name__ == "__main__":` (worker processes '
    "import the script, and without the guard each one starts the export again)"
)


class LocalEngine:
    """Runs jobs in this process (``num_proc=1``) or a pool of forkserver worker processes.

    A worker that dies (killed, or a script without a ``__main__`` guard whose workers re-run
    the export on import) fails the run with one clear ``ValueError`` instead of hanging:
    ``multiprocessing.Pool`` would replace the worker and wait forever for the lost job.
    """

    def __init__(self, num_proc: int = 1) -> None:
        self.num_proc = num_proc
        self._pool = None

    def __enter__(self) -> LocalEngine:
        if self.num_proc > 1:
            # forkserver: workers fork from a clean server (no pyarrow threads, no tqdm monitor),
            # with palaestra and pyarrow preloaded so each fork starts warm.
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["palaestra", "palaestra.export", "pyarrow"])
            self._pool = ctx.Pool(self.num_proc, initializer=_ignore_sigint)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()

    def imap(self, fn: Callable[[Any], Any], jobs: Sequence[Any]) -> Iterator[Any]:
        if self._pool is None:
            return map(fn, jobs)
        return self._watched(self._pool.imap_unordered(fn, jobs))

    def _watched(self, results: Any) -> Iterator[Any]:
        workers = self._workers()
        while True:
            try:
                yield results.next(timeout=1.0)
            except StopIteration:
                return
            except multiprocessing.TimeoutError:
                # Pool workers never exit on their own here (no maxtasksperchild): a changed
                # set (an exited worker leaves it; the pool adds a replacement) means a worker
                # died and its job is lost.
                if self._workers() != workers:
                    raise ValueError(WORKER_DIED) from None

    @staticmethod
    def _workers() -> set[int]:
        """The live pool workers: this process's children that multiprocessing names *PoolWorker-N."""
        return {p.pid for p in multiprocessing.active_children() if "PoolWorker" in p.name}


def _ignore_sigint() -> None:
    # Ctrl-C reaches the whole process group: the parent alone handles it (terminating the
    # pool), so workers neither print tracebacks nor delay the exit.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


class RayEngine:
    """Runs jobs as Ray tasks (``--engine ray``); joins ``RAY_ADDRESS`` or starts a local Ray.

    On a cluster, the output folder must be on storage that every node can write.
    """

    def __init__(self, num_proc: int = 1) -> None:
        self.num_proc = num_proc
        self._started = False

    def __enter__(self) -> RayEngine:
        try:
            import ray
        except ImportError:
            raise ValueError("--engine ray needs Ray: pip install 'palaestra[ray]'") from None
        if not ray.is_initialized():
            address = os.environ.get("RAY_ADDRESS")
            kwargs = {} if address else {"num_cpus": self.num_proc, "include_dashboard": False}
            ray.init(address=address, log_to_driver=False, **kwargs)
            self._started = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._started:
            import ray

            ray.shutdown()

    def imap(self, fn: Callable[[Any], Any], jobs: Sequence[Any]) -> Iterator[Any]:
        import ray

        remote = ray.remote(num_cpus=1, max_retries=2)(fn)
        pending = [remote.remote(job) for job in jobs]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])


def _make_engine(engine: str, num_proc: int) -> LocalEngine | RayEngine:
    if engine == "local":
        return LocalEngine(num_proc)
    if engine == "ray":
        return RayEngine(num_proc)
    raise ValueError(f"engine must be 'local' or 'ray', got {engine!r}")


def _progress(iterable: Iterable[Any], total: int, desc: str, enabled: bool) -> Iterable[Any]:
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, unit="job", file=sys.stderr)


# --------------------------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------------------------


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
    _crash_after: tuple[str, int] | None = None,
) -> ExportResult:
    """Generate the mixture into ``out`` (see the module docstring); returns what was written.

    Reruns after a crash resume from the chunks and shards already on disk. Configuration
    mistakes and impossible counts raise ``ValueError`` before anything is published.
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
    done = _existing_export(out, fingerprint, overwrite)
    if done is not None:
        return done
    work = _prepare_workdir(out, fingerprint)
    try:
        with _make_engine(engine, num_proc) as runner:
            result = _run(config, out, work, runner, progress, _crash_after)
    except ValueError:
        shutil.rmtree(work, ignore_errors=True)  # a config that cannot succeed leaves nothing behind
        raise
    _publish(work / "staging", out, overwrite)
    shutil.rmtree(work, ignore_errors=True)
    return result


def _existing_export(out: Path, fingerprint: str, overwrite: bool) -> ExportResult | None:
    if not out.exists():
        return None
    manifest = out / MANIFEST
    if manifest.is_file() and not overwrite:
        data = json.loads(manifest.read_text())
        if data.get("config_fingerprint") == fingerprint:
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
                keys_of[(unit.index, start)] = _read_keys(path)
                reused += 1
            else:
                system = config.system_prompt if chat else None
                jobs.append(ChunkJob(unit, start, stop, path, system, chunk_schema, modules))
        for index, start, keys in _progress(runner.imap(run_chunk, jobs), len(jobs), "generate", progress):
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
        (staging / split).mkdir(exist_ok=True)
        for k in range(n_shards):
            name = f"{split}-{k:05d}-of-{n_shards:05d}"
            part = rows[k * config.shard_size : (k + 1) * config.shard_size]
            jobs2.append(
                ShardJob(
                    split=split,
                    name=name,
                    parquet_path=str(staging / "data" / f"{name}.parquet"),
                    arrow_path=str(staging / split / f"data-{k:05d}-of-{n_shards:05d}.arrow"),
                    rows=tuple(part),
                    schema=chunk_schema,
                )
            )
    shards: dict[str, list[dict[str, Any]]] = {s: [] for s in layout}
    for split, name, n, sha in _progress(runner.imap(run_shard, jobs2), len(jobs2), "write", progress):
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
    _write_metadata(staging, config, units, result, feats, calibration)
    return result


class _Counter:
    """Test hook: ``(phase, n)`` crashes after the n-th finished job of "generate" or "write"."""

    def __init__(self, limit: tuple[str, int] | None) -> None:
        self.limit, self.n = limit, Counter()

    def tick(self, phase: str) -> None:
        self.n[phase] += 1
        if self.limit is not None and self.limit == (phase, self.n[phase]):
            raise _SimulatedCrash(f"simulated crash after {self.n[phase]} {phase} jobs")


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


# --------------------------------------------------------------------------------------------
# Manifest, datasets metadata, dataset card
# --------------------------------------------------------------------------------------------


def _write_metadata(
    staging: Path,
    config: MixtureConfig,
    units: Sequence[Unit],
    result: ExportResult,
    feats: Any,
    calibration: Mapping[str, Mapping[str, Any]],
) -> None:
    splits = list(result.counts)
    features_dict = feats.to_dict()
    (staging / "dataset_dict.json").write_text(json.dumps({"splits": splits}))
    for split in splits:
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
        "calibration": calibration,
    }
    (staging / "README.md").write_text(dataset_card(manifest, features_dict))
    # The manifest is written last: its presence marks the folder as a finished export.
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True))


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
    _import_families([module])
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


CARD_LICENSE = "apache-2.0"  # generated by Apache-2.0 code from seeds: no third-party content


def dataset_card(manifest: Mapping[str, Any], features_dict: Mapping[str, Any]) -> str:
    """The README.md of an export: Hub metadata, mixture table, seeds, calibration, loading."""
    import yaml

    splits = manifest["splits"]
    header = {
        "configs": [
            {
                "config_name": "default",
                "data_files": [{"split": s, "path": f"data/{s}-*.parquet"} for s in splits],
            }
        ],
        "license": CARD_LICENSE,
        "language": ["en"],
        "task_categories": ["text-generation", "question-answering"],
        "pretty_name": manifest["name"],
        "tags": ["palaestra", "synthetic", "verifiable-rewards", "reasoning"],
        "size_categories": [_size_category(sum(manifest["counts"].values()))],
    }
    lines = ["---", yaml.safe_dump(header, sort_keys=False).strip(), "---", ""]
    lines += [f"# {manifest['name']}", ""]
    lines += [
        f"Procedurally generated, verifiable tasks made with palaestra {manifest['palaestra_version']} "
        f"(`palaestra export`, base seed {manifest['seed']}, dataset version {manifest['version']}).",
        "Every row can be re-verified and rebuilt byte for byte from `(family, family_version, level, "
        "knobs, seed)`; run `palaestra verify-dataset <dir>` to check.",
        "",
        f"Fingerprint: `{manifest['fingerprint']}`",
        "",
        "## Splits",
        "",
        "| split | rows | duplicates dropped (within split) | duplicates dropped (across splits) |",
        "|---|---:|---:|---:|",
    ]
    for s in splits:
        d = manifest["duplicates_dropped"].get(s, {})
        lines.append(
            f"| {s} | {manifest['counts'][s]} | {d.get('within_split', 0)} | {d.get('across_splits', 0)} |"
        )
    lines += ["", "No task (by its family's canonical hash) appears twice in a split or in two splits.", ""]
    lines += ["## Mixture", "", "| family | version | level | knobs | " + " | ".join(splits) + " |"]
    lines.append("|---|---:|---:|---|" + "---:|" * len(splits))
    grouped: dict[tuple[str, Any, str], dict[str, int]] = defaultdict(dict)
    for cell in manifest["cells"]:
        key = (cell["family"], cell["level"], canonical_json(cell["knobs"]) if cell["knobs"] else "")
        grouped[key][cell["split"]] = grouped[key].get(cell["split"], 0) + cell["count"]
    for (fam, level, knobs), counts in grouped.items():
        cols = " | ".join(str(counts.get(s, 0)) for s in splits)
        lines.append(
            f"| {fam} | {manifest['families'][fam]} | {level if level is not None else '-'} | "
            f"{knobs.replace('|', '/')} | {cols} |"
        )
    lines += ["", "## Calibration", ""]
    if manifest["calibration"]:
        lines += [
            "Solve rate of each family's weak reference solver on a sample of this dataset's rows "
            "(it should fall as the level rises):",
            "",
            "| family | level: solved/n |",
            "|---|---|",
        ]
        for fam, levels in manifest["calibration"].items():
            cells = ", ".join(
                f"{lv}: " + ("n/a" if v["weak_solved"] is None else f"{v['weak_solved']}/{v['n']}")
                for lv, v in levels.items()
            )
            lines.append(f"| {fam} | {cells} |")
    else:
        lines.append("Not measured for this export (`calibration_samples: 0`).")
    cols = ", ".join(f"`{k}`" for k in features_dict)
    lines += [
        "",
        "## Columns",
        "",
        f"{cols}.",
        "",
        "`prompt` is a list of chat messages (TRL, verl and OpenRLHF apply the chat template); "
        "`knobs`, `answer` and `extra_info.task` (the whole task record) hold JSON text. "
        "`data_source`, `reward_model.ground_truth` and `extra_info` are the columns verl's reward "
        "functions read. Feed the rows to a trainer as they are:",
        "",
        "```python",
        "from palaestra.integrations.trl import palaestra_reward   # TRL: reward_funcs=[palaestra_reward]",
        "from palaestra.integrations.verl import compute_score     # verl: custom_reward_function",
        "```",
        "",
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset, load_from_disk",
        "",
        'ds = load_from_disk("path/to/this/folder")            # the folder as exported',
        'ds = load_dataset("parquet", data_files={'
        + ", ".join(f'"{s}": "path/to/this/folder/data/{s}-*.parquet"' for s in splits)
        + "})",
        "```",
        "",
        "Grading a model answer:",
        "",
        "```python",
        "import palaestra",
        "from palaestra.rows import row_to_task",
        "",
        f'row = ds["{splits[0]}"][0]',
        "verdict = palaestra.verify(row_to_task(row), model_response)",
        "```",
        "",
    ]
    return "\n".join(lines)


def _size_category(n: int) -> str:
    for limit, name in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
        (10_000_000, "1M<n<10M"),
    ):
        if n < limit:
            return name
    return "10M<n<100M"


# --------------------------------------------------------------------------------------------
# Verification of an exported dataset
# --------------------------------------------------------------------------------------------


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
    job: tuple[str, str, str, int, tuple[str, ...]],
) -> tuple[str, int, int, int, list[str], list[str]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path, arrow_path, split, rebuild_every, modules = job
    _import_families(modules)
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
            if _sha256(file) != shard["sha256"]:
                report.problems.append(f"{shard['file']}: sha256 does not match the manifest")
            arrow = root / split / f"data-{k:05d}-of-{len(shards):05d}.arrow"
            arrow_path = str(arrow) if arrow.is_file() else ""
            jobs.append((str(file), arrow_path, split, rebuild_every, tuple(modules)))
    owner: dict[str, str] = {}
    rows: Counter[str] = Counter()
    progress = sys.stderr.isatty() if progress is None else progress
    with LocalEngine(num_proc) as runner:
        for split, n, verified, rebuilt, problems, keys in _progress(
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


# --------------------------------------------------------------------------------------------
# Hub
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def _cmd_export(args: argparse.Namespace) -> int:
    result = export(
        args.config,
        args.out,
        num_proc=args.num_proc,
        engine=args.engine,
        overwrite=args.overwrite,
        progress=not args.quiet and None,
    )
    dropped = {s: d["within_split"] + d["across_splits"] for s, d in result.duplicates.items()}
    status = "already complete" if result.already_complete else "exported"
    print(
        f"{status}: {result.path} rows={result.counts} duplicates_dropped={dropped} "
        f"fingerprint={result.fingerprint}"
    )
    if args.push_to_hub:
        try:
            url = push_to_hub(result.path, args.push_to_hub, private=args.private)
        except (ValueError, ImportError):
            raise
        except Exception as exc:  # network, auth, quota: the Hub's message, one line
            first = (str(exc).strip().splitlines() or [""])[0]
            raise ValueError(
                f"push to {args.push_to_hub} failed ({type(exc).__name__}: {first}); the export at "
                f"{result.path} is complete: rerun the same command to retry the upload"
            ) from None
        print(f"pushed: {url}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    report = verify_dataset(
        args.dir,
        rebuild_fraction=args.rebuild_fraction,
        num_proc=args.num_proc,
        progress=not args.quiet and None,
    )
    for problem in report.problems[:50]:
        print(f"problem: {problem}")
    state = "ok" if report.ok else f"FAILED ({len(report.problems)} problems)"
    print(
        f"{state}: {report.rows} rows, {report.verified} reference answers verified, "
        f"{report.rebuilt} rows rebuilt from their seeds"
    )
    return 0 if report.ok else 1


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def add_cli(subparsers: Any) -> None:
    """Register ``palaestra export`` and ``palaestra verify-dataset``."""
    p = subparsers.add_parser("export", help="export a mixture of tasks as a Hugging Face dataset")
    p.add_argument("--config", required=True, help="mixture config (YAML or JSON)")
    p.add_argument("--out", required=True, help="output folder (created atomically)")
    p.add_argument("--num-proc", type=_positive, default=1, help="worker processes (output is identical)")
    p.add_argument("--engine", choices=("local", "ray"), default="local", help="where jobs run")
    p.add_argument("--overwrite", action="store_true", help="replace an existing export at --out")
    p.add_argument("--push-to-hub", metavar="REPO", default=None, help="upload to this Hub dataset repo")
    p.add_argument("--private", action="store_true", help="create the Hub repo as private")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_export)

    p = subparsers.add_parser("verify-dataset", help="re-verify and rebuild the rows of an export")
    p.add_argument("dir", help="an exported dataset folder")
    p.add_argument("--rebuild-fraction", type=float, default=0.05, help="share of rows rebuilt from seeds")
    p.add_argument("--num-proc", type=_positive, default=1, help="worker processes")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_verify)
