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

Sessions: a ``/reset`` opens an episode under its ``episode_id`` (made up when not given) and
later ``/step`` calls name it; many run at once (``max_sessions``, least recently used evicted).
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
from palaestra.integrations.http_json import json_body

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

    def reset(
        self, seed: int | None, options: dict[str, Any] | None, episode_id: str | None
    ) -> dict[str, Any]:
        with self.lock:
            text, info = self.env.reset(seed=seed, options=options or None)
            self.episode_id = episode_id or str(uuid.uuid4())
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
    """Sessions by episode id, least recently used evicted past ``max_sessions``."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any], max_sessions: int) -> None:
        self.env_id, self.env_kwargs, self.max_sessions = env_id, env_kwargs, max_sessions
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._lock = threading.Lock()

    def new(self) -> _Session:
        return _Session(self.env_id, self.env_kwargs)

    def put(self, session: _Session) -> None:
        with self._lock:
            self._sessions[session.episode_id] = session
            self._sessions.move_to_end(session.episode_id)
            while len(self._sessions) > self.max_sessions:
                _, old = self._sessions.popitem(last=False)
                old.close()

    def get(self, episode_id: str) -> _Session:
        with self._lock:
            session = self._sessions.get(episode_id)
            if session is None:
                raise KeyError(episode_id)
            self._sessions.move_to_end(episode_id)
            return session

    def __len__(self) -> int:
        return len(self._sessions)


def create_openenv_app(env_id: str, *, max_sessions: int = 256, **env_kwargs: Any) -> Any:
    """A FastAPI app serving ``env_id`` with OpenEnv's HTTP and WebSocket protocol."""
    gymnasium.make(env_id, **env_kwargs).close()  # unknown ids and bad kwargs fail here, not per request
    store = SessionStore(env_id, env_kwargs, max_sessions)
    app = FastAPI(title=f"palaestra OpenEnv: {env_id}", version=palaestra.__version__)

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
    async def reset(body: dict[str, Any] = Depends(json_body)) -> dict[str, Any]:
        session = await in_thread(store.new)
        try:
            result = await in_thread(
                session.reset, body.get("seed"), body.get("options"), body.get("episode_id")
            )
        except (ValueError, TypeError) as exc:
            raise HTTPException(status_code=422, detail=str(exc)) from None
        store.put(session)
        return result

    @app.post("/step")
    async def step(body: dict[str, Any] = Depends(json_body)) -> dict[str, Any]:
        message = message_of(body.get("action"))
        episode_id = body.get("episode_id")
        if episode_id is None:  # stateless: rebuild the episode from its seed, step it once
            if body.get("seed") is None:
                raise HTTPException(
                    status_code=422, detail="a /step without episode_id needs the episode's seed"
                )
            session = await in_thread(store.new)
            await in_thread(session.reset, body["seed"], body.get("options"), None)
            try:
                return await in_thread(session.step, message)
            finally:
                session.close()
        try:
            session = store.get(episode_id)
        except KeyError:
            raise HTTPException(
                status_code=404, detail=f"no episode {episode_id!r} (reset first, or it was evicted)"
            ) from None
        try:
            return await in_thread(session.step, message)
        except ValueError as exc:
            raise HTTPException(status_code=409, detail=str(exc)) from None

    @app.get("/state")
    async def state(episode_id: str) -> dict[str, Any]:
        try:
            return store.get(episode_id).state()
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
                        result = await in_thread(
                            session.reset, data.get("seed"), data.get("options"), data.get("episode_id")
                        )
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

    return app
