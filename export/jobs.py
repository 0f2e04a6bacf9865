"""The jobs an export runs (module-level, so process pools and Ray can pickle them) and the
engines that run them: in this process, a pool of forkserver workers, or Ray."""

from __future__ import annotations

import hashlib
import importlib
import multiprocessing
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import palaestra
from palaestra.core import GenerationError  # a generator that failed is reported as one line by the CLI
from palaestra.export.config import Unit
from palaestra.rows import dedup_key, task_to_row


@dataclass(frozen=True)
class ChunkJob:
    unit: Unit
    start: int
    stop: int
    path: str
    system_prompt: str | None
    schema: Any  # pyarrow.Schema
    modules: tuple[str, ...] = ()  # modules defining the families (plugins registered at run time)


def import_families(modules: Iterable[str]) -> None:
    for module in modules:
        if module != "__main__":
            importlib.import_module(module)


def run_chunk(job: ChunkJob) -> tuple[int, int, list[str]]:
    """Generate candidates [start, stop) of a unit into an Arrow file; return their keys."""
    import pyarrow as pa

    import_families(job.modules)
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


def read_keys(path: str) -> list[str]:
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
    return job.split, job.name, len(job.rows), sha256(job.parquet_path)


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


TMP_MARK = ".tmp-"  # in the name of a file being written; a rerun deletes such files first


def _atomic_write(path: str, write: Callable[[str], None]) -> None:
    tmp = f"{path}{TMP_MARK}{os.getpid()}"
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def sha256(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class SimulatedCrash(BaseException):
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


def make_engine(engine: str, num_proc: int) -> LocalEngine | RayEngine:
    if engine == "local":
        return LocalEngine(num_proc)
    if engine == "ray":
        return RayEngine(num_proc)
    raise ValueError(f"engine must be 'local' or 'ray', got {engine!r}")


def progress_bar(iterable: Iterable[Any], total: int, desc: str, enabled: bool) -> Iterable[Any]:
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, unit="job", file=sys.stderr)
