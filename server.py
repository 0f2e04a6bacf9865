"""``palaestra serve``: tasks, verification and the curriculum over HTTP, for trainers in other
processes or languages (``pip install 'palaestra[server]'``).

    palaestra serve --port 8000 --workers 4 --curriculum sudoku,countdown

    POST /v1/tasks     {"family": "sudoku", "n": 8, "seed": 0, "level": 3}      -> {"tasks": [...]}
    POST /v1/verify    {"items": [{"task": TASK, "response": "..."}], "timeout_s": 10}
                                                          -> {"verdicts": [...], "rewards": [...]}
    POST /verify       NeMo Gym's resource-server verify: the row's fields + "response" -> + "reward"
    POST /seed_session, /aggregate_metrics   NeMo Gym's session start and collection metrics
    POST /openrlhf/reward   OpenRLHF's remote reward: {"query", "prompts", "labels"} -> {"rewards", ...}
    POST /v1/curriculum/next    {"n": 8}                  -> {"tasks": [...]}
    POST /v1/curriculum/record  {"items": [{"task": TASK, "reward": 1.0}]}
    GET  /v1/curriculum  (levels, solve rates)   GET /v1/families   GET /health

``TASK`` is a task as ``/v1/tasks`` returns it, its JSON text, or a row's ``extra_info`` (an
exported dataset's rows need no conversion). An item may name a task the server has already
checked by its id instead, ``{"task_ref": ID, "response": ...}`` (every task of a request that
was answered 200 is checked; the server keeps the last ``_PROVEN_TASKS``): a GRPO group or an
epoch then sends each record once. A reference the server does not hold is a 400 that names
it, and the client sends the record again (:class:`palaestra.client.Client` does this itself). Verification is :func:`palaestra.verify_many`, called
from a thread per request: the requests of every client share its worker processes, each verdict
is bounded by ``timeout_s`` (a verifier that hangs is killed with its worker: ``timeout``), and an
item whose worker died under it (``verifier_error``) is graded once more on a fresh worker, so a
killed worker loses no request. A request not graded within ``max_wait_s`` gets ``timeout``
verdicts: the caller always gets an answer.

:class:`palaestra.client.Client` is a small standard-library client; :func:`palaestra.client.remote_reward` turns a server into a
TRL-style reward function.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import palaestra
from palaestra.core import Task, Verdict

DEFAULT_TIMEOUT_S = 10.0
MAX_ITEMS = 4096  # per request
MAX_TIMEOUT_S = 60.0  # the most a client may ask per verification
GENERATION_TIMEOUT_S = 30.0  # /v1/tasks and task rebuilds: past it the generation is killed
SHUTDOWN_GRACE_S = 10.0  # SIGINT/SIGTERM: requests in flight get this long, then the process exits
_CHECKED_RECORDS = 65536  # records proven to be their own rebuild (GRPO groups repeat them)
_PROVEN_TASKS = 4096  # of those, the tasks kept to answer the same record again (memory-bound)


def create_app(
    *,
    workers: int = 2,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_wait_s: float = 120.0,
    curriculum: Any = None,
    tokens: Sequence[str] = (),
    max_body_bytes: int | None = None,
    max_timeout_s: float = MAX_TIMEOUT_S,
    generation_timeout_s: float = GENERATION_TIMEOUT_S,
    per_client: int = 8,
    max_queue: int = 64,
    generation_workers: int = 1,
) -> Any:
    """The ASGI app; verify_many's ``workers`` processes are warmed when it starts.

    ``tokens``: accepted bearer tokens (none: no authentication, for loopback use).
    ``max_body_bytes``: request body cap (413 past it). ``max_timeout_s``: the most a client may
    ask per verification. ``generation_timeout_s``: the bound of a ``/v1/tasks`` request and of
    rebuilding a request's tasks; the generation is killed past it. ``per_client``: requests
    in flight per client (429 past it); ``max_queue``: requests waiting per lane (503 past it).
    ``max_wait_s``: the bound of one verify request; verdicts not in by then are ``timeout``
    and their work is dropped.
    """
    from contextlib import asynccontextmanager

    from fastapi import Depends, FastAPI, HTTPException
    from fastapi.responses import JSONResponse

    from palaestra.batch import GenerationPool, runs_programs
    from palaestra.batch import warm as warm_workers
    from palaestra.integrations.http_json import MAX_BODY_BYTES, Admission, Guard, client_of, json_body
    from palaestra.rows import completion_text, task_from_record

    JsonBody = Depends(json_body)  # any Content-Type: the README's curl lines send form-labelled JSON
    Client = Depends(client_of)  # who is asking, for the per-client limits (see Guard)

    grade_slots = max(16, 4 * workers)
    code_slots = _sandbox_slots()
    admission = Admission(
        {"grade": grade_slots, "code": code_slots, "generate": generation_workers, "rebuild": 2},
        per_client=per_client,
        queue=max_queue,
        max_wait_s=max_wait_s,
    )
    state: dict[str, Any] = {}
    checked: OrderedDict[str, None] = OrderedDict()  # hashes of records equal to their rebuild
    # records already proven, with their tasks, by the record's own key (its task id, or its
    # text): a GRPO group or an epoch sends the same records again, and building a Task from a
    # record (normalising it, re-hashing its id) costs more than grading it. A record is taken
    # from here only when it equals the one proven; any change makes it a new record.
    proven: OrderedDict[Any, tuple[Any, Task]] = OrderedDict()
    by_id: OrderedDict[str, Task] = OrderedDict()  # the proven tasks, for items' "task_ref"

    @asynccontextmanager
    async def lifespan(app: Any):
        # one thread per admitted request in each lane: a lane never waits for another's threads
        state["threads"] = {
            lane: ThreadPoolExecutor(n, thread_name_prefix=f"palaestra-serve-{lane}")
            for lane, n in (
                ("grade", grade_slots),
                ("code", code_slots),
                ("generate", 4 * generation_workers),
            )
        }
        state["makers"] = GenerationPool(generation_workers)
        state["rebuilders"] = GenerationPool(2)
        loop = asyncio.get_running_loop()
        if workers > 0:  # verify_many's workers start now, not on the first request
            await loop.run_in_executor(state["threads"]["grade"], partial(warm_workers, workers))
        for pool in (state["makers"], state["rebuilders"]):
            await loop.run_in_executor(state["threads"]["generate"], pool.warm)
        yield
        for pool in state["threads"].values():
            pool.shutdown(wait=False, cancel_futures=True)
        for pool in (state["makers"], state["rebuilders"]):
            pool.close()

    fastapi_app = FastAPI(title="palaestra", version=palaestra.__version__, lifespan=lifespan)

    def bad(message: str) -> HTTPException:
        return HTTPException(status_code=400, detail=message)

    async def in_lane(lane: str, fn: Any, *args: Any) -> Any:
        pool = state["threads"]["generate" if lane == "rebuild" else lane]
        return await asyncio.get_running_loop().run_in_executor(pool, partial(fn, *args))

    def records_of(items: Any) -> list[tuple[Any, Any, Task | None]]:
        """(the record's key or None, the record, and its task when already proven) per item."""
        if not isinstance(items, list) or not 0 < len(items) <= MAX_ITEMS:
            raise bad(f"'items' must be a list of 1..{MAX_ITEMS} objects")
        out = []
        for i, item in enumerate(items):
            if isinstance(item, dict) and "task" not in item and "task_ref" in item:
                out.append((None, None, referenced(i, item["task_ref"])))
                continue
            if not isinstance(item, dict) or "task" not in item:
                raise bad(f"item {i} must be an object with 'task' (or 'task_ref')")
            record = item["task"]
            key = _record_lookup_key(record)
            hit = proven.get(key) if key is not None else None
            if hit is not None and hit[0] == record:  # this very record was proven before
                proven.move_to_end(key)
                out.append((key, record, hit[1]))
            else:
                out.append((key, record, None))
        return out

    def referenced(i: int, ref: Any) -> Task:
        task = by_id.get(ref) if isinstance(ref, str) else None
        if task is None:
            raise bad(
                f"item {i}: unknown 'task_ref' {str(ref)[:40]!r}: this server holds no checked task "
                "with that id (send the task record itself)"
            )
        by_id.move_to_end(ref)
        return task

    def built(i: int, record: Any) -> Task:
        try:
            task = task_from_record(record)
            palaestra.get(task.family)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise bad(f"item {i}: {_one_line(exc)}") from None
        return task

    async def checked_tasks(client: str, items: Any) -> list[Task]:
        """The request's tasks, each proven equal to the task its (family, version, difficulty,
        seed) generate: a client cannot choose a task's answer, tests or limits."""
        records = [
            (key, record, task if task is not None else built(i, record), task is not None)
            for i, (key, record, task) in enumerate(records_of(items))
        ]
        tasks = [task for _, _, task, _ in records]
        todo: dict[str, Task] = {}
        for _, _, task, known in records:
            if known:
                continue
            key = _record_key(task)
            if key in checked:
                checked.move_to_end(key)
            else:
                todo.setdefault(key, task)
        if todo:
            async with admission.enter(client, "rebuild"):
                rebuilt = await in_lane(
                    "rebuild",
                    _run_generation,
                    state["rebuilders"],
                    [("rebuild", t) for t in todo.values()],
                    generation_timeout_s,
                )
            for (key, given), made in zip(todo.items(), rebuilt, strict=True):
                if isinstance(made, str):
                    raise bad(
                        f"task {given.id}: cannot be rebuilt from its family, version, difficulty and seed: {made}"
                    )
                differ = _first_difference(given, made)
                if differ:
                    raise bad(
                        f"task {given.id}: the record differs from the task its family, version, "
                        f"difficulty and seed generate (field {differ!r}); send tasks as the server made them"
                    )
                checked[key] = None
                while len(checked) > _CHECKED_RECORDS:
                    checked.popitem(last=False)
        for key, record, task, known in records:  # every record is proven now (a differing one raised)
            if key is not None and not known:
                proven[key] = (record, task)
                while len(proven) > _PROVEN_TASKS:
                    proven.popitem(last=False)
            by_id[task.id] = task
            by_id.move_to_end(task.id)
            while len(by_id) > _PROVEN_TASKS:
                by_id.popitem(last=False)
        return tasks

    def limit_of(body: dict[str, Any]) -> float:
        value = body.get("timeout_s")
        if value is None:
            return timeout_s
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= max_timeout_s:
            raise bad(f"'timeout_s' must be a number in (0, {max_timeout_s:g}]")
        return float(value)

    def count_of(body: dict[str, Any]) -> int:
        n = body.get("n", 1)
        if isinstance(n, bool) or not isinstance(n, int) or not 0 < n <= MAX_ITEMS:
            raise bad(f"'n' must be an integer in 1..{MAX_ITEMS}")
        return n

    async def grade(client: str, tasks: list[Task], responses: list[str], limit: float) -> list[Verdict]:
        families = {t.family for t in tasks}
        lane = "code" if any(runs_programs(palaestra.get(f)) for f in families) else "grade"
        async with admission.enter(client, lane):
            return await in_lane(lane, _grade, tasks, responses, workers, limit, max_wait_s)

    @fastapi_app.get("/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "healthy",
            "palaestra_version": palaestra.__version__,
            "workers": workers,
            "worker_pids": worker_pids(),
            "sandbox_pids": _fork_server_pids(),
        }

    @fastapi_app.get("/v1/families")
    async def families() -> dict[str, Any]:
        return {
            "families": [
                {"name": n, "domain": palaestra.get(n).domain, "version": palaestra.get(n).version}
                for n in palaestra.families()
            ]
        }

    @fastapi_app.post("/v1/tasks")
    async def tasks(body: dict[str, Any] = JsonBody, client: str = Client) -> dict[str, Any]:
        n = count_of(body)
        family, seed, level, knobs = (
            body.get("family"),
            body.get("seed", 0),
            body.get("level"),
            body.get("knobs") or {},
        )
        if family is None:
            raise bad("'family' is required: a family name, as GET /v1/families lists them")
        if not isinstance(family, str) or family not in palaestra.families():
            raise bad(f"'family' must be one of palaestra.families(); got {str(family)[:80]!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 2**63 - 1 - n:
            raise bad("'seed' must be a non-negative integer")
        if level is not None and (isinstance(level, bool) or not isinstance(level, int)):
            raise bad("'level' must be an integer")
        if not isinstance(knobs, dict):
            raise bad("'knobs' must be an object")
        requests = [("make", family, seed + i, level, knobs) for i in range(n)]
        async with admission.enter(client, "generate"):
            made = await in_lane("generate", _run_generation, state["makers"], requests, generation_timeout_s)
        errors = [m for m in made if isinstance(m, str)]
        if errors:
            raise bad(f"could not generate {family}: {errors[0]}")
        return {"tasks": [t.to_dict() for t in made]}

    @fastapi_app.post("/v1/verify")
    async def verify(body: dict[str, Any] = JsonBody, client: str = Client) -> Any:
        limit = limit_of(body)
        items = body.get("items")
        batch = await checked_tasks(client, items)
        responses = [
            _response_text(completion_text, item.get("response", ""), i) for i, item in enumerate(items)
        ]
        verdicts = await grade(client, batch, responses, limit)
        # already plain JSON (Verdict.to_dict): rendered as it is, without FastAPI's encoder
        # walking every value of every verdict again
        return JSONResponse(
            {"verdicts": [v.to_dict() for v in verdicts], "rewards": [float(v.reward) for v in verdicts]}
        )

    @fastapi_app.post("/verify")
    async def nemo_gym_verify(body: dict[str, Any] = JsonBody, client: str = Client) -> dict[str, Any]:
        """NeMo Gym's resource-server route: the request echoed with ``reward`` added."""
        from palaestra.integrations.nemo_gym import parse_verify_request

        try:
            task, text = parse_verify_request(body)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise bad(_one_line(exc)) from None
        (task,) = await checked_tasks(client, [{"task": task}])
        verdict = (await grade(client, [task], [text], timeout_s))[0]
        return {**body, "reward": float(verdict.reward), "palaestra_verdict": verdict.to_dict()}

    @fastapi_app.post("/seed_session")
    async def nemo_gym_seed_session(body: dict[str, Any] = JsonBody, client: str = Client) -> dict[str, Any]:
        """NeMo Gym's per-rollout session start (the task travels in the row: nothing to seed)."""
        from palaestra.integrations.nemo_gym import seed_session_reply

        return seed_session_reply(body)

    @fastapi_app.post("/aggregate_metrics")
    async def nemo_gym_aggregate_metrics(
        body: dict[str, Any] = JsonBody, client: str = Client
    ) -> dict[str, Any]:
        """NeMo Gym's end-of-collection metrics: reward statistics per task and overall."""
        from palaestra.integrations.nemo_gym import aggregate_metrics_reply

        try:
            return aggregate_metrics_reply(body)
        except ValueError as exc:
            raise bad(_one_line(exc)) from None

    @fastapi_app.post("/openrlhf/reward")
    async def openrlhf_reward(body: dict[str, Any] = JsonBody, client: str = Client) -> dict[str, Any]:
        """OpenRLHF's remote reward (``--reward.remote_url http://HOST:PORT/openrlhf/reward``):
        ``{"query", "prompts", "labels"}`` -> ``{"rewards", "scores", "extra_logs"}``. The labels'
        task records are checked like every other client record."""
        from palaestra.integrations.openrlhf import reward_batch, reward_lists

        columns = [body.get(key) for key in ("query", "prompts", "labels")]
        if not all(isinstance(c, list) for c in columns) or not 0 < len(columns[0]) <= MAX_ITEMS:
            raise bad(f"'query', 'prompts' and 'labels' must be lists of 1..{MAX_ITEMS} items")
        try:
            batch = reward_batch(*columns)
        except ValueError as exc:
            raise bad(_one_line(exc)) from None
        verdicts: list[Verdict] = []
        if batch.tasks:
            tasks = await checked_tasks(client, [{"task": task} for task in batch.tasks])
            verdicts = await grade(client, tasks, batch.responses, timeout_s)
        return reward_lists(batch.graded(verdicts))

    if curriculum is not None:

        @fastapi_app.post("/v1/curriculum/next")
        async def curriculum_next(body: dict[str, Any] = JsonBody, client: str = Client) -> dict[str, Any]:
            n = count_of(body)
            family = body.get("family")
            if family is not None and family not in curriculum.families:
                raise bad(f"'family' must be one of this curriculum's {curriculum.families}")
            async with admission.enter(client, "generate"):
                made = await in_lane("generate", lambda: [curriculum.next_task(family) for _ in range(n)])
            return {"tasks": [t.to_dict() for t in made]}

        @fastapi_app.post("/v1/curriculum/record")
        async def curriculum_record(body: dict[str, Any] = JsonBody, client: str = Client) -> dict[str, Any]:
            items = body.get("items")
            batch = await checked_tasks(client, items)
            rewards = []
            for i, item in enumerate(items):
                reward = item.get("reward")
                if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not 0 <= reward <= 1:
                    raise bad(f"item {i}: 'reward' must be a finite number in [0, 1]")
                rewards.append(float(reward))
            try:
                curriculum.record_batch(batch, rewards)
            except (KeyError, TypeError, ValueError) as exc:
                raise bad(_one_line(exc)) from None
            return {"levels": {f: curriculum.level(f) for f in curriculum.families}}

        @fastapi_app.get("/v1/curriculum")
        async def curriculum_state() -> dict[str, Any]:
            metrics = curriculum.metrics()
            return {
                "levels": {f: curriculum.level(f) for f in curriculum.families},
                "metrics": {k: (None if v != v else v) for k, v in metrics.items()},  # NaN -> null
                "events": curriculum.events[-100:],
            }

    app = Guard(fastapi_app, tokens=tokens, max_body_bytes=max_body_bytes or MAX_BODY_BYTES)
    app.fastapi = fastapi_app  # for tests and for mounting more routes
    return app


def _fork_server_pids() -> list[int]:
    from palaestra.generators.code.shared_sandbox import fork_server_pids

    return fork_server_pids()


def _sandbox_slots() -> int:
    from palaestra.generators.code.shared_sandbox import worker_count

    return worker_count()


def _run_generation(pool: Any, requests: list[tuple], deadline_s: float) -> list[Task | str]:
    from fastapi import HTTPException

    try:
        return pool.run(requests, deadline_s)
    except TimeoutError as exc:
        raise HTTPException(status_code=503, detail=str(exc), headers={"Retry-After": "5"}) from None
    except RuntimeError as exc:
        raise HTTPException(status_code=503, detail=str(exc), headers={"Retry-After": "1"}) from None


def _record_key(task: Task) -> str:
    return hashlib.sha256(task.to_json().encode()).hexdigest()


def _record_lookup_key(record: Any) -> Any:
    """Where a client's record may have been proven before: its task id for a task record (also
    inside a row's ``extra_info``), its text for task JSON; None for anything else (a Task
    object). A key finds a candidate only: the record must also equal the one proven."""
    if isinstance(record, str):
        return ("text", record)
    if isinstance(record, dict):
        inner = record.get("task")
        if isinstance(inner, (dict, str)) and "family" not in record:  # a row's extra_info
            key = _record_lookup_key(inner)
            return None if key is None else ("row", key)
        task_id = record.get("id")
        if isinstance(task_id, str):
            return ("id", task_id)
    return None


def _first_difference(given: Task, made: Task) -> str | None:
    a, b = given.to_dict(), made.to_dict()
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            return key
    return None


def _response_text(completion_text: Any, response: Any, index: int) -> str:
    if type(response) is str:  # the text itself (what completion_text returns for it)
        return response
    from fastapi import HTTPException

    try:
        text = completion_text(response)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise HTTPException(
            status_code=400, detail=f"item {index}: bad 'response': {_one_line(exc)}"
        ) from None
    if not isinstance(text, str):
        raise HTTPException(status_code=400, detail=f"item {index}: 'response' must be text or chat messages")
    return text


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def _grade(
    tasks: list[Task],
    responses: list[str],
    workers: int,
    timeout_s: float,
    deadline_s: float | None = None,
) -> list[Verdict]:
    """verify_many (which grades once more a response whose worker died under it), bounded by
    ``deadline_s``: responses not graded by then are ``timeout`` and their work is dropped."""
    return palaestra.verify_many(
        tasks, responses, workers=workers, timeout_s=timeout_s, deadline_s=deadline_s
    )


def worker_pids() -> list[int]:
    """Process ids of verify_many's workers in this process (for operators and load tests)."""
    from palaestra import batch

    return batch.worker_pids()


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    workers: int = 2,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    curriculum: Any = None,
    openenv: str | None = None,
    tokens: Sequence[str] = (),
    ssl_certfile: str | None = None,
    ssl_keyfile: str | None = None,
    shutdown_grace_s: float = SHUTDOWN_GRACE_S,
    **limits: Any,
) -> None:
    """Run the server until SIGINT/SIGTERM; then requests in flight get ``shutdown_grace_s``
    and the process ends (its verify workers and programs with it) within about twice that.

    Refuses to listen on a non-loopback address without ``tokens``."""
    import uvicorn

    from palaestra.integrations.http_json import is_loopback

    if not tokens and not is_loopback(host):
        raise ValueError(
            f"refusing to listen on {host} without authentication: set PALAESTRA_TOKEN or pass "
            "--token-file (anyone reaching the port could run code in the sandbox and move the curriculum)"
        )
    if bool(ssl_certfile) != bool(ssl_keyfile):
        raise ValueError("TLS needs both --ssl-certfile and --ssl-keyfile")
    if openenv:
        from palaestra.integrations.openenv import create_openenv_app

        app = create_openenv_app(openenv, tokens=tokens)
    else:
        app = create_app(workers=workers, timeout_s=timeout_s, curriculum=curriculum, tokens=tokens, **limits)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=shutdown_grace_s,
        ssl_certfile=ssl_certfile,
        ssl_keyfile=ssl_keyfile,
    )
    server = _bounded_server_class()(config, bound_s=2 * shutdown_grace_s + 5)
    server.run()
    from palaestra import batch

    batch.shutdown(wait=False)  # stop the verify workers; no thread waits on a program


def _bounded_server_class() -> Any:
    import uvicorn

    class BoundedServer(uvicorn.Server):
        """uvicorn's server, plus: once SIGINT/SIGTERM arrives the process ends within
        ``bound_s`` whatever still runs (uvicorn waits for its requests, and the interpreter
        would then wait for every worker thread, e.g. one waiting on a sandboxed program)."""

        def __init__(self, config: Any, *, bound_s: float) -> None:
            super().__init__(config)
            self.bound_s = bound_s
            self._timer: threading.Timer | None = None

        def handle_exit(self, sig: int, frame: Any) -> None:
            if self._timer is None:
                self._timer = threading.Timer(self.bound_s, os._exit, args=(0,))
                self._timer.daemon = True
                self._timer.start()
            super().handle_exit(sig, frame)

    return BoundedServer


def _cmd_serve(args: argparse.Namespace) -> int:
    from palaestra.integrations.http_json import load_tokens

    curriculum = None
    if args.curriculum:
        from palaestra.curriculum import Curriculum

        curriculum = Curriculum([f.strip() for f in args.curriculum.split(",") if f.strip()], seed=args.seed)
    if args.workers < 1 or args.timeout_s <= 0:
        raise ValueError("--workers must be positive and --timeout-s greater than 0")
    tokens = load_tokens(token_file=args.token_file)
    started = time.strftime("%H:%M:%S")
    what = (
        f"OpenEnv server for {args.openenv}"
        if args.openenv
        else f"verification server, {args.workers} workers"
    )
    scheme = "https" if args.ssl_certfile else "http"
    auth = f"bearer token ({len(tokens)} client(s))" if tokens else "no authentication (loopback only)"
    print(
        f"[{started}] palaestra {what} on {scheme}://{args.host}:{args.port}, {auth} (Ctrl-C stops)",
        flush=True,
    )
    serve(
        args.host,
        args.port,
        workers=args.workers,
        timeout_s=args.timeout_s,
        curriculum=curriculum,
        openenv=args.openenv,
        tokens=tokens,
        ssl_certfile=args.ssl_certfile,
        ssl_keyfile=args.ssl_keyfile,
        shutdown_grace_s=args.shutdown_grace_s,
        **(
            {}
            if args.openenv
            else {
                "max_body_bytes": int(args.max_body_mb * (1 << 20)),
                "per_client": args.max_concurrency,
                "max_queue": args.max_queue,
                "generation_timeout_s": args.generation_timeout_s,
                "max_timeout_s": args.max_timeout_s,
            }
        ),
    )
    return 0


def add_cli(subparsers: Any) -> None:
    p = subparsers.add_parser("serve", help="serve tasks, verification and the curriculum over HTTP")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=int, default=2, help="verifier worker processes")
    p.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S, help="time bound per verification")
    p.add_argument(
        "--token-file",
        default=None,
        help="bearer tokens, one per line (default: the PALAESTRA_TOKEN environment variable); "
        "required to listen on a non-loopback address",
    )
    p.add_argument("--ssl-certfile", default=None, help="TLS certificate (PEM); with --ssl-keyfile")
    p.add_argument("--ssl-keyfile", default=None, help="TLS private key (PEM)")
    p.add_argument(
        "--shutdown-grace-s",
        type=float,
        default=SHUTDOWN_GRACE_S,
        help="on SIGINT/SIGTERM, time given to requests in flight (the process ends within 2 x this + 5 s)",
    )
    p.add_argument("--max-body-mb", type=float, default=32.0, help="request body cap (413 past it)")
    p.add_argument("--max-concurrency", type=int, default=8, help="requests in flight per client (429)")
    p.add_argument("--max-queue", type=int, default=64, help="requests waiting per lane (503)")
    p.add_argument(
        "--generation-timeout-s",
        type=float,
        default=GENERATION_TIMEOUT_S,
        help="bound of task generation per request (the generation is killed past it)",
    )
    p.add_argument(
        "--max-timeout-s",
        type=float,
        default=MAX_TIMEOUT_S,
        help="the most a client may ask per verification",
    )
    p.add_argument(
        "--curriculum",
        default=None,
        metavar="FAMILIES",
        help="comma-separated families: enables /v1/curriculum",
    )
    p.add_argument("--seed", type=int, default=0, help="curriculum task-stream seed")
    p.add_argument(
        "--openenv",
        default=None,
        metavar="ENV_ID",
        help="serve this Gymnasium id as an OpenEnv server instead",
    )
    p.set_defaults(run=_cmd_serve)
