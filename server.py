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
exported dataset's rows need no conversion). Verification is :func:`palaestra.verify_many`, called
from a thread per request: the requests of every client share its worker processes, each verdict
is bounded by ``timeout_s`` (a verifier that hangs is killed with its worker: ``timeout``), and an
item whose worker died under it (``verifier_error``) is graded once more on a fresh worker, so a
killed worker loses no request. A request not graded within ``max_wait_s`` gets ``timeout``
verdicts: the caller always gets an answer.

:class:`palaestra.client.Client` is a small standard-library client; :func:`palaestra.client.remote_reward`
turns a server into a TRL-style reward function.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import palaestra
from palaestra.core import Task, Verdict

DEFAULT_TIMEOUT_S = 10.0
MAX_ITEMS = 4096  # per request


def create_app(
    *,
    workers: int = 2,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_wait_s: float = 120.0,
    curriculum: Any = None,
) -> Any:
    """The FastAPI app; verify_many's ``workers`` processes are warmed when it starts."""
    from contextlib import asynccontextmanager

    from fastapi import Depends, FastAPI, HTTPException

    from palaestra.integrations.http_json import json_body
    from palaestra.rows import completion_text, task_from_record

    JsonBody = Depends(json_body)  # any Content-Type: the README's curl lines send form-labelled JSON

    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: Any):
        # one thread per request in flight (each waits on verify_many's shared workers)
        state["threads"] = ThreadPoolExecutor(max(32, 4 * workers), thread_name_prefix="palaestra-serve")
        warm = [palaestra.make_task("expression", seed=0)]
        await asyncio.get_running_loop().run_in_executor(
            state["threads"], partial(_grade, warm, [""], workers, timeout_s)
        )
        yield
        state["threads"].shutdown(wait=False, cancel_futures=True)

    async def grade(tasks: list[Task], responses: list[str], limit: float) -> list[Verdict]:
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(state["threads"], partial(_grade, tasks, responses, workers, limit))
        try:
            return await asyncio.wait_for(asyncio.shield(job), max_wait_s)
        except asyncio.TimeoutError:
            busy = Verdict.timed_out(f"the server could not grade this within {max_wait_s:g} s (busy)")
            return [busy] * len(tasks)

    app = FastAPI(title="palaestra", version=palaestra.__version__, lifespan=lifespan)

    def bad(message: str) -> HTTPException:
        return HTTPException(status_code=400, detail=message)

    def tasks_of(items: Any) -> list[Task]:
        if not isinstance(items, list) or not 0 < len(items) <= MAX_ITEMS:
            raise bad(f"'items' must be a list of 1..{MAX_ITEMS} objects")
        tasks = []
        for i, item in enumerate(items):
            if not isinstance(item, dict) or "task" not in item:
                raise bad(f"item {i} must be an object with 'task'")
            try:
                tasks.append(task_from_record(item["task"]))
            except (ValueError, KeyError, TypeError) as exc:
                raise bad(f"item {i}: {exc}") from None
        return tasks

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "healthy",
            "palaestra_version": palaestra.__version__,
            "workers": workers,
            "worker_pids": worker_pids(),
        }

    @app.get("/v1/families")
    async def families() -> dict[str, Any]:
        return {
            "families": [
                {"name": n, "domain": palaestra.get(n).domain, "version": palaestra.get(n).version}
                for n in palaestra.families()
            ]
        }

    @app.post("/v1/tasks")
    async def tasks(body: dict[str, Any] = JsonBody) -> dict[str, Any]:
        n = body.get("n", 1)
        if not isinstance(n, int) or not 0 < n <= MAX_ITEMS:
            raise bad(f"'n' must be an integer in 1..{MAX_ITEMS}")
        seed, knobs = body.get("seed", 0), body.get("knobs") or {}
        if body.get("family") is None:
            raise bad("'family' is required: a family name, as GET /v1/families lists them")

        def make() -> list[dict[str, Any]]:
            return [
                palaestra.make_task(
                    body.get("family"), seed=seed + i, level=body.get("level"), **knobs
                ).to_dict()
                for i in range(n)
            ]

        try:
            return {"tasks": await asyncio.get_running_loop().run_in_executor(None, make)}
        except (ValueError, TypeError) as exc:
            raise bad(str(exc)) from None

    @app.post("/v1/verify")
    async def verify(body: dict[str, Any] = JsonBody) -> dict[str, Any]:
        items = body.get("items")
        batch = tasks_of(items)
        limit = float(body.get("timeout_s") or timeout_s)
        if not 0 < limit <= 600:
            raise bad("'timeout_s' must be in (0, 600]")
        responses = [completion_text(item.get("response", "")) for item in items]
        verdicts = await grade(batch, responses, limit)
        return {"verdicts": [v.to_dict() for v in verdicts], "rewards": [float(v.reward) for v in verdicts]}

    @app.post("/verify")
    async def nemo_gym_verify(body: dict[str, Any] = JsonBody) -> dict[str, Any]:
        """NeMo Gym's resource-server route: the request echoed with ``reward`` added."""
        from palaestra.integrations.nemo_gym import parse_verify_request

        try:
            task, text = parse_verify_request(body)
        except (ValueError, KeyError, TypeError) as exc:
            raise bad(str(exc)) from None
        verdict = (await grade([task], [text], timeout_s))[0]
        return {**body, "reward": float(verdict.reward), "palaestra_verdict": verdict.to_dict()}

    @app.post("/openrlhf/reward")
    async def openrlhf_reward(body: dict[str, Any] = JsonBody) -> dict[str, Any]:
        """OpenRLHF's remote reward (``--reward.remote_url http://HOST:PORT/openrlhf/reward``):
        ``{"query", "prompts", "labels"}`` -> ``{"rewards", "scores", "extra_logs"}``."""
        from palaestra.integrations.openrlhf import reward_batch, reward_lists

        columns = [body.get(key) for key in ("query", "prompts", "labels")]
        if not all(isinstance(c, list) for c in columns) or not 0 < len(columns[0]) <= MAX_ITEMS:
            raise bad(f"'query', 'prompts' and 'labels' must be lists of 1..{MAX_ITEMS} items")
        try:
            batch = reward_batch(*columns)
        except ValueError as exc:
            raise bad(str(exc)) from None
        verdicts = await grade(batch.tasks, batch.responses, timeout_s) if batch.tasks else []
        return reward_lists(batch.graded(verdicts))

    @app.post("/seed_session")
    async def nemo_gym_seed_session(body: dict[str, Any] = JsonBody) -> dict[str, Any]:
        """NeMo Gym's per-rollout session start (the task travels in the row: nothing to seed)."""
        from palaestra.integrations.nemo_gym import seed_session_reply

        return seed_session_reply(body)

    @app.post("/aggregate_metrics")
    async def nemo_gym_aggregate_metrics(body: dict[str, Any] = JsonBody) -> dict[str, Any]:
        """NeMo Gym's end-of-collection metrics: reward statistics per task and overall."""
        from palaestra.integrations.nemo_gym import aggregate_metrics_reply

        try:
            return aggregate_metrics_reply(body)
        except ValueError as exc:
            raise bad(str(exc)) from None

    if curriculum is not None:

        @app.post("/v1/curriculum/next")
        async def curriculum_next(body: dict[str, Any] = JsonBody) -> dict[str, Any]:
            n = body.get("n", 1)
            if not isinstance(n, int) or not 0 < n <= MAX_ITEMS:
                raise bad(f"'n' must be an integer in 1..{MAX_ITEMS}")
            family = body.get("family")
            made = await asyncio.get_running_loop().run_in_executor(
                None, lambda: [curriculum.next_task(family) for _ in range(n)]
            )
            return {"tasks": [t.to_dict() for t in made]}

        @app.post("/v1/curriculum/record")
        async def curriculum_record(body: dict[str, Any] = JsonBody) -> dict[str, Any]:
            items = body.get("items")
            batch = tasks_of(items)
            try:
                curriculum.record_batch(batch, [float(item["reward"]) for item in items])
            except (KeyError, TypeError, ValueError) as exc:
                raise bad(f"every item needs 'task' and a numeric 'reward': {exc}") from None
            return {"levels": {f: curriculum.level(f) for f in curriculum.families}}

        @app.get("/v1/curriculum")
        async def curriculum_state() -> dict[str, Any]:
            metrics = curriculum.metrics()
            return {
                "levels": {f: curriculum.level(f) for f in curriculum.families},
                "metrics": {k: (None if v != v else v) for k, v in metrics.items()},  # NaN -> null
                "events": curriculum.events[-100:],
            }

    return app


def _grade(tasks: list[Task], responses: list[str], workers: int, timeout_s: float) -> list[Verdict]:
    """verify_many, then once more for items whose worker died under them (``verifier_error``)."""
    verdicts = palaestra.verify_many(tasks, responses, workers=workers, timeout_s=timeout_s)
    again = [i for i, v in enumerate(verdicts) if v.status == "verifier_error"]
    if again:
        retried = palaestra.verify_many(
            [tasks[i] for i in again], [responses[i] for i in again], workers=workers, timeout_s=timeout_s
        )
        for i, verdict in zip(again, retried, strict=True):
            verdicts[i] = verdict
    return verdicts


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
) -> None:
    """Run the server until interrupted (Ctrl-C stops it and its workers)."""
    import uvicorn

    if openenv:
        from palaestra.integrations.openenv import create_openenv_app

        app = create_openenv_app(openenv)
    else:
        app = create_app(workers=workers, timeout_s=timeout_s, curriculum=curriculum)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _cmd_serve(args: argparse.Namespace) -> int:
    curriculum = None
    if args.curriculum:
        from palaestra.curriculum import Curriculum

        curriculum = Curriculum([f.strip() for f in args.curriculum.split(",") if f.strip()], seed=args.seed)
    if args.workers < 1 or args.timeout_s <= 0:
        raise ValueError("--workers must be positive and --timeout-s greater than 0")
    started = time.strftime("%H:%M:%S")
    what = (
        f"OpenEnv server for {args.openenv}"
        if args.openenv
        else f"verification server, {args.workers} workers"
    )
    print(f"[{started}] palaestra {what} on http://{args.host}:{args.port} (Ctrl-C stops)", flush=True)
    serve(
        args.host,
        args.port,
        workers=args.workers,
        timeout_s=args.timeout_s,
        curriculum=curriculum,
        openenv=args.openenv,
    )
    return 0


def add_cli(subparsers: Any) -> None:
    p = subparsers.add_parser("serve", help="serve tasks, verification and the curriculum over HTTP")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=int, default=2, help="verifier worker processes")
    p.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S, help="time bound per verification")
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
