"""The jobs an export runs (module-level, so worker processes and Ray can pickle them) and the
engines that run them: in this process, in worker processes of its own, or on Ray."""

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
from palaestra.core import (
    GenerationError,  # a generator that failed is reported as one line by the CLI
    Task,
)
from palaestra.export.config import SPLIT_REDRAWS, Unit
from palaestra.rows import dedup_key, is_test_content, task_to_row


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
    rows, keys = [], []
    for i in range(job.start, job.stop):
        task = _candidate(job.unit, i)
        rows.append(task_to_row(task, job.unit.split, job.system_prompt))
        keys.append(dedup_key(task))
    table = pa.Table.from_pylist(rows, schema=job.schema).append_column("_key", pa.array(keys, pa.string()))
    _atomic_write(job.path, lambda tmp: _write_ipc_file(tmp, table))
    return job.unit.index, job.start, keys


def _candidate(unit: Unit, i: int) -> Task:
    """Candidate ``i`` of a unit: the first of its draws whose content lies on its split's side of
    palaestra's one split (:func:`palaestra.rows.is_test_content`), so that no held-out problem
    reaches a training split and no training problem a held-out one."""
    cell = unit.cell
    for draw in range(SPLIT_REDRAWS):
        seed = unit.seed(i, draw)
        try:
            task = palaestra.make_task(cell.family, seed=seed, level=cell.level, **cell.knobs)
        except Exception as exc:  # a generator bug: deterministic, so a rerun would fail the same way
            raise GenerationError(f"{cell.label()} seed {seed}: the generator failed: {exc!r}") from exc
        if is_test_content(task) == unit.heldout:
            return task
    side = "held-out" if unit.heldout else "training"
    raise GenerationError(
        f"{cell.label()} ({unit.split}): no {side}-side task in {SPLIT_REDRAWS} seeds: this "
        f"family-level's content lies on the other side of palaestra's train/held-out split"
    )


def read_keys(path: str) -> list[str]:
    import pyarrow as pa

    with pa.memory_map(path) as source:
        return pa.ipc.open_file(source).read_all().column("_key").to_pylist()


@dataclass(frozen=True)
class ShardJob:
    split: str
    name: str  # data-00000-of-00004
    parquet_path: str
    arrow_path: str  # "" writes no Arrow copy
    rows: tuple[tuple[str, int], ...]  # (chunk path, row index) in final order
    schema: Any


def run_shard(job: ShardJob) -> tuple[str, str, int, str]:
    """Assemble one shard from chunk files; write its parquet file (and Arrow copy); return its sha256."""
    wanted = [p for p in (job.parquet_path, job.arrow_path) if p]
    if not all(os.path.exists(p) for p in wanted):
        table = _gather_rows(job.rows, job.schema)
        _atomic_write(job.parquet_path, lambda tmp: _write_parquet(tmp, table))
        if job.arrow_path:
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
    'num_proc > 1 from a script, put the call under `if __name__ == "__main__":` (where workers are '
    "spawned, as on macOS and Windows, they import the script, and without the guard each one starts "
    "the export again)"
)


# Linux forks workers from this process: they start in microseconds with everything already
# imported (plugins registered in __main__ included), and need no helper process. Elsewhere fork is
# unsafe (macOS system libraries) or absent (Windows), so workers are spawned.
START_METHOD = "fork" if sys.platform.startswith("linux") else "spawn"


@dataclass
class _Worker:
    process: Any  # multiprocessing.Process
    conn: Any  # the parent's end of its pipe


class LocalEngine:
    """Runs jobs in this process (``num_proc=1``) or in ``num_proc`` worker processes.

    Workers are this process's own children, fed one job at a time through a pipe. Every job writes
    its output file itself and sends back only small results (keys, a checksum): rows never travel
    between processes. Leaving the ``with`` block stops and reaps every worker, so nothing outlives
    the call (no fork server, no resource tracker, no zombie). A worker that dies (killed, or a
    spawned worker re-running a script without a ``__main__`` guard) fails the run with one clear
    ``ValueError`` instead of hanging.
    """

    def __init__(self, num_proc: int = 1, start_method: str = START_METHOD) -> None:
        self.num_proc = num_proc
        self.start_method = start_method
        self._workers: list[_Worker] = []

    def __enter__(self) -> LocalEngine:
        if self.num_proc > 1:
            # Start now, before this process starts threads of its own (a progress bar's monitor).
            self._start()
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        self.close(graceful=exc_type is None)

    def imap(self, fn: Callable[[Any], Any], jobs: Sequence[Any]) -> Iterator[Any]:
        """Results of ``fn`` over ``jobs``, in the order they finish (in order for one process)."""
        if self.num_proc == 1:
            return map(fn, jobs)
        return self._dispatch(fn, list(jobs))

    def _dispatch(self, fn: Callable[[Any], Any], jobs: list[Any]) -> Iterator[Any]:
        from multiprocessing.connection import wait

        if not jobs:
            return
        if not self._workers:
            self._start()
        pending = list(reversed(jobs))  # pop() takes them in the given order
        idle, busy = list(self._workers), []
        finished = False
        try:
            while pending or busy:
                while idle and pending:
                    worker = idle.pop()
                    try:
                        worker.conn.send((fn, pending.pop()))
                    except OSError:  # a broken pipe: the worker is gone
                        raise ValueError(WORKER_DIED) from None
                    busy.append(worker)
                ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
                for worker in list(busy):
                    if worker.conn in ready:  # a reply; read it even if the worker died after sending
                        try:
                            ok, value = worker.conn.recv()
                        except (EOFError, OSError):
                            raise ValueError(WORKER_DIED) from None
                        busy.remove(worker)
                        idle.append(worker)
                        if not ok:
                            raise value
                        yield value
                    elif worker.process.sentinel in ready:
                        raise ValueError(WORKER_DIED)
            finished = True
        finally:
            if not finished:  # an error, or a caller that stopped early: workers may hold stale jobs
                self.close(graceful=False)

    def _start(self) -> None:
        ctx = multiprocessing.get_context(self.start_method)
        for _ in range(self.num_proc):
            parent, child = ctx.Pipe()
            # A forked worker closes the parent's pipe ends it inherited, so that it sees the
            # parent go; a spawned one inherits nothing.
            inherited = [parent, *(w.conn for w in self._workers)] if self.start_method == "fork" else []
            process = ctx.Process(
                target=_serve, args=(child, inherited), daemon=True, name="palaestra-export-worker"
            )
            process.start()
            child.close()
            self._workers.append(_Worker(process, parent))

    def close(self, graceful: bool = True) -> None:
        """Stop every worker and wait for it: after this, none of them exists (idempotent)."""
        workers, self._workers = self._workers, []
        for worker in workers:
            if graceful:
                try:
                    worker.conn.send(None)  # finish: the worker exits after its current job
                except OSError:
                    pass
            else:
                worker.process.terminate()
        for worker in workers:
            worker.process.join(timeout=10 if graceful else 2)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
            worker.process.close()


def _serve(conn: Any, inherited: Sequence[Any]) -> None:
    """A worker's loop: run ``(fn, job)`` messages until ``None``, the pipe closes or the parent dies."""
    import signal

    # Ctrl-C reaches the whole process group: the parent alone handles it (stopping the workers),
    # so workers neither print tracebacks nor delay the exit.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for other in inherited:
        other.close()
    parent = os.getppid()
    while True:
        while not conn.poll(1.0):
            if os.getppid() != parent:  # the parent was killed: its jobs have nobody to go to
                return
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        fn, job = message
        try:
            reply = (True, fn(job))
        except Exception as exc:  # the parent re-raises it (a GenerationError, a bad file)
            reply = (False, exc)
        try:
            conn.send(reply)
        except Exception as exc:  # an exception that does not pickle: its text still reaches the parent
            conn.send((False, RuntimeError(f"{type(reply[1]).__name__}: {reply[1]} ({exc!r})")))


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
