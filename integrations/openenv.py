"""Any palaestra env as an OpenEnv server: HTTP ``/reset`` ``/step`` ``/state`` and a ``/ws`` socket
(``pip install 'palaestra[server]'``; ``palaestra serve --openenv palaestra/Sudoku-v0``).

    from palaestra.integrations.openenv import create_openenv_app
    app = create_openenv_app("palaestra/Nim-v0", max_sessions=256)   # uvicorn app

The wire format is OpenEnv's: ``POST /reset {"seed", "episode_id", "options"}`` and
``POST /step {"action": {"message": TEXT}, "episode_id"}`` answer OpenEnv's
``ResetResponse``/``StepResponse``: ``{"observation": {"text", "done", "reward", "metadata"},
"reward", "done"}``, the episode id in ``observation["metadata"]["episode_id"]``;
``GET /state?episode_id=`` answers ``{"episode_id", "step_count", ...}``; ``/ws`` takes ``{"type": "reset"|"step"|"state"|"close", "data": {...}}``
and answers ``{"type": "observation"|"state"|"error", "data": {...}}``, one env per connection.

Sessions: a ``/reset`` opens an episode under an ``episode_id`` the server issues (a random
UUID; an id the client sends is ignored) and later ``/step`` calls name it. The episode belongs
to the client that opened it (its bearer token when the app has ``tokens``): another client's
``/step`` or ``/state`` on it answers 404, as for an unknown id. Many run at once: each client
keeps at most ``max_sessions_per_client`` (its own least recently used evicted), all clients
together ``max_sessions`` (past it a new episode is refused 503).
A ``/step`` without an ``episode_id`` is stateless: it needs ``seed`` (and ``options``), rebuilds
that episode's first state and steps it once, which is all a single-turn task needs.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections import OrderedDict
from typing import Any

import gymnasium
from fastapi import Depends, FastAPI, HTTPException, WebSocket, WebSocketDisconnect

import palaestra
from palaestra.integrations.http_json import Guard, client_of, json_body

ACTION_SCHEMA = {
    "type": "object",
    "properties": {"message": {"type": "string", "description": "the model's text"}},
    "required": ["message"],
}
OBSERVATION_SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "done": {"type": "boolean"},
        "reward": {"type": ["number", "null"]},
        "metadata": {"type": "object"},
    },
}
STATE_SCHEMA = {
    "type": "object",
    "properties": {"episode_id": {"type": ["string", "null"]}, "step_count": {"type": "integer"}},
}


class _Session:
    """One env and its episode bookkeeping (a lock: a session's steps never interleave)."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any]) -> None:
        self.env = gymnasium.make(env_id, **env_kwargs)
        self.lock = threading.Lock()
        self.episode_id: str | None = None
        self.step_count = 0
        self.done = True
        self.total_reward = 0.0

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> dict[str, Any]:
        with self.lock:
            text, info = self.env.reset(seed=seed, options=options or None)
            self.episode_id = str(uuid.uuid4())  # issued here: a client never chooses one
            self.step_count, self.done, self.total_reward = 0, False, 0.0
            return _result(text, None, False, {**_jsonable(info), "episode_id": self.episode_id})

    def step(self, message: str) -> dict[str, Any]:
        with self.lock:
            if self.done:
                raise ValueError("the episode is over: reset it first")
            text, reward, terminated, truncated, info = self.env.step(message)
            self.step_count += 1
            self.total_reward += float(reward)
            self.done = bool(terminated or truncated)
            metadata = {**_jsonable(info), "terminated": bool(terminated), "truncated": bool(truncated)}
            return _result(text, float(reward), self.done, {**metadata, "episode_id": self.episode_id})

    def state(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "step_count": self.step_count,
            "done": self.done,
            "total_reward": self.total_reward,
        }

    def close(self) -> None:
        self.env.close()


def _result(text: str, reward: float | None, done: bool, metadata: dict[str, Any]) -> dict[str, Any]:
    # OpenEnv's ResetResponse/StepResponse forbid extra keys: metadata lives in the observation
    observation = {"text": text, "done": done, "reward": reward, "metadata": metadata}
    return {"observation": observation, "reward": reward, "done": done}


def _jsonable(info: Any) -> dict[str, Any]:
    import json

    return json.loads(json.dumps(info, default=str)) if isinstance(info, dict) else {}


class SessionStore:
    """Sessions by (client, episode id): each client keeps at most ``per_client`` (its own least
    recently used evicted), all clients together at most ``max_sessions``."""

    def __init__(
        self, env_id: str, env_kwargs: dict[str, Any], max_sessions: int, per_client: int | None = None
    ) -> None:
        self.env_id, self.env_kwargs, self.max_sessions = env_id, env_kwargs, max_sessions
        self.per_client = per_client or max_sessions
        self._sessions: dict[str, OrderedDict[str, _Session]] = {}
        self._lock = threading.Lock()

    def new(self) -> _Session:
        return _Session(self.env_id, self.env_kwargs)

    def put(self, client: str, session: _Session) -> None:
        """Keep ``session`` for ``client``; raises LookupError when every place is taken by
        other clients' episodes."""
        evicted = []
        with self._lock:
            mine = self._sessions.setdefault(client, OrderedDict())
            while len(mine) >= self.per_client:  # a client evicts only its own episodes
                evicted.append(mine.popitem(last=False)[1])
            if len(self) >= self.max_sessions:
                raise LookupError(f"the server holds {self.max_sessions} episodes; try again later")
            mine[session.episode_id] = session
        for old in evicted:
            old.close()

    def get(self, client: str, episode_id: str) -> _Session:
        with self._lock:
            mine = self._sessions.get(client) or {}
            session = mine.get(episode_id)
            if session is None:
                raise KeyError(episode_id)
            mine.move_to_end(episode_id)
            return session

    def __len__(self) -> int:
        return sum(len(m) for m in self._sessions.values())


def create_openenv_app(
    env_id: str,
    *,
    max_sessions: int = 256,
    max_sessions_per_client: int = 64,
    tokens: Any = (),
    **env_kwargs: Any,
) -> Any:
    """An ASGI app serving ``env_id`` with OpenEnv's HTTP and WebSocket protocol (``tokens``:
    accepted bearer tokens; none, no authentication)."""
    gymnasium.make(env_id, **env_kwargs).close()  # unknown ids and bad kwargs fail here, not per request
    store = SessionStore(env_id, env_kwargs, max_sessions, max_sessions_per_client)
    app = FastAPI(title=f"palaestra OpenEnv: {env_id}", version=palaestra.__version__)
    Client = Depends(client_of)

    async def in_thread(fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    def message_of(action: Any) -> str:
        if isinstance(action, dict) and isinstance(action.get("message"), str):
            return action["message"]
        raise HTTPException(status_code=422, detail='action must be {"message": "<text>"}')

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "healthy", "sessions": len(store)}

    @app.get("/metadata")
    async def metadata() -> dict[str, Any]:
        return {
            "name": env_id,
            "description": f"palaestra text environment {env_id}",
            "version": palaestra.__version__,
        }

    @app.get("/schema")
    async def schema() -> dict[str, Any]:
        return {"action": ACTION_SCHEMA, "observation": OBSERVATION_SCHEMA, "state": STATE_SCHEMA}

    @app.post("/reset")
    async def reset(body: dict[str, Any] = Depends(json_body), client: str = Client) -> dict[str, Any]:
        session = await in_thread(store.new)
        try:
            result = await in_thread(session.reset, body.get("seed"), body.get("options"))
        except (ValueError, TypeError, KeyError) as exc:
            session.close()
            raise HTTPException(status_code=422, detail=str(exc)) from None
        try:
            store.put(client, session)
        except LookupError as exc:
            session.close()
            raise HTTPException(status_code=503, detail=str(exc), headers={"Retry-After": "5"}) from None
        return result

    @app.post("/step")
    async def step(body: dict[str, Any] = Depends(json_body), client: str = Client) -> dict[str, Any]:
        message = message_of(body.get("action"))
        episode_id = body.get("episode_id")
        if episode_id is None:  # stateless: rebuild the episode from its seed, step it once
            if body.get("seed") is None:
                raise HTTPException(
                    status_code=422, detail="a /step without episode_id needs the episode's seed"
                )
            session = await in_thread(store.new)
            try:
                await in_thread(session.reset, body["seed"], body.get("options"))
                return await in_thread(session.step, message)
            except (ValueError, TypeError, KeyError) as exc:
                raise HTTPException(status_code=422, detail=str(exc)) from None
            finally:
                session.close()
        if not isinstance(episode_id, str):
            raise HTTPException(status_code=422, detail="'episode_id' must be a string")
        try:
            session = store.get(client, episode_id)
        except KeyError:
            raise HTTPException(
                status_code=404, detail=f"no episode {episode_id!r} (reset first, or it was evicted)"
            ) from None
        try:
            return await in_thread(session.step, message)
        except ValueError as exc:
            raise HTTPException(status_code=409, detail=str(exc)) from None

    @app.get("/state")
    async def state(episode_id: str, client: str = Client) -> dict[str, Any]:
        try:
            return store.get(client, episode_id).state()
        except KeyError:
            raise HTTPException(status_code=404, detail=f"no episode {episode_id!r}") from None

    @app.websocket("/ws")
    async def websocket(socket: WebSocket) -> None:
        await socket.accept()
        session = await in_thread(store.new)
        try:
            while True:
                message = await socket.receive_json()
                kind, data = message.get("type"), message.get("data") or {}
                try:
                    if kind == "reset":
                        result = await in_thread(session.reset, data.get("seed"), data.get("options"))
                        await socket.send_json({"type": "observation", "data": result})
                    elif kind == "step":
                        text = data.get("message")
                        if not isinstance(text, str):
                            raise ValueError('step data must be {"message": "<text>"}')
                        await socket.send_json(
                            {"type": "observation", "data": await in_thread(session.step, text)}
                        )
                    elif kind == "state":
                        await socket.send_json({"type": "state", "data": session.state()})
                    elif kind == "close":
                        await socket.close()
                        return
                    else:
                        raise LookupError(f"unknown message type {kind!r}")
                except LookupError as exc:
                    await socket.send_json(
                        {"type": "error", "data": {"message": str(exc), "code": "UNKNOWN_TYPE"}}
                    )
                except (ValueError, TypeError) as exc:
                    await socket.send_json(
                        {"type": "error", "data": {"message": str(exc), "code": "EXECUTION_ERROR"}}
                    )
        except WebSocketDisconnect:
            return
        finally:
            session.close()

    guarded = Guard(app, tokens=tokens)
    guarded.fastapi = app
    return guarded
