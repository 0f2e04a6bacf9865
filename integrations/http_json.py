"""What the HTTP servers share (``palaestra serve`` and the OpenEnv app; needs FastAPI).

- :class:`Guard`, an ASGI middleware in front of either app: bearer-token authentication, a
  request body cap (413), the client's identity for per-client limits, and a one-line 500 for
  any error that escapes a route (never a traceback).
- :func:`json_body`: the request body as a JSON object, whatever its ``Content-Type``, with a
  nesting bound; anything else is one clear 400. Where ``orjson`` is installed it parses what
  it accepts (the same objects, three times faster); the rest goes to the standard library.
- :class:`Admission`: per-client concurrency caps and bounded waiting queues (429 / 503 with
  ``Retry-After``).
- :func:`load_tokens` and :func:`is_loopback` for the command line's deployment checks.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import itertools
import json
import os
import re
from collections.abc import Iterable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import HTTPException, Request

try:  # an optional accelerator: a small, well-kept wheel that parses JSON in Rust
    import orjson
except ImportError:  # pragma: no cover - the standard library parses everything alone
    orjson = None

TOKEN_ENV = "PALAESTRA_TOKEN"
MAX_BODY_BYTES = 32 << 20
MAX_JSON_DEPTH = 64


def load_tokens(token: str | None = None, token_file: str | None = None) -> list[str]:
    """The accepted bearer tokens: ``token``, else the lines of ``token_file``, else the
    ``PALAESTRA_TOKEN`` environment variable; empty when none is configured. Each token names
    one client (per-client limits count by token)."""
    if token:
        tokens = [token]
    elif token_file:
        with open(token_file, encoding="utf-8") as f:
            tokens = [line.strip() for line in f if line.strip() and not line.startswith("#")]
        if not tokens:
            raise ValueError(f"token file {token_file} holds no token")
    else:
        tokens = [os.environ[TOKEN_ENV]] if os.environ.get(TOKEN_ENV, "").strip() else []
    tokens = [t.strip() for t in tokens]
    short = [t for t in tokens if len(t) < 16]
    if short:
        raise ValueError("a bearer token must be at least 16 characters (e.g. `openssl rand -hex 24`)")
    return tokens


def is_loopback(host: str) -> bool:
    """True when ``host`` only listens on this machine (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def client_of(request: Request) -> str:
    """The client's identity for per-client limits, as :class:`Guard` set it."""
    return request.scope.get("palaestra.client") or "anonymous"


class Guard:
    """ASGI middleware: authentication, body cap and a one-line 500 in front of an app.

    With ``tokens``, every HTTP request and WebSocket needs ``Authorization: Bearer <token>``
    (compared in constant time); the client is then its token's hash, else its address.
    A body longer than ``max_body_bytes`` (declared or streamed) is answered 413 before the
    app sees it.
    """

    def __init__(self, app: Any, *, tokens: Iterable[str] = (), max_body_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.tokens = [t.encode() for t in tokens]
        self.max_body_bytes = int(max_body_bytes)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = self._authenticate(scope)
        if client is None:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008, "reason": "authentication required"})
                return
            await _reply(
                send,
                401,
                "a valid 'Authorization: Bearer <token>' header is required",
                {"www-authenticate": 'Bearer realm="palaestra"'},
            )
            return
        scope["palaestra.client"] = client
        if scope["type"] == "http":
            body = await self._read_body(scope, receive, send)
            if body is None:
                return
            receive = _replay(body)
        sent: dict[str, bool] = {}
        try:
            await self.app(scope, receive, _tracking(send, sent))
        except Exception as exc:  # noqa: BLE001 - a route's bug: one line, never a traceback
            if scope["type"] == "http" and not sent.get("started"):
                await _reply(send, 500, f"internal error: {type(exc).__name__}")
            else:
                raise

    def _authenticate(self, scope: dict) -> str | None:
        if not self.tokens:
            addr = scope.get("client") or ("local", 0)
            return f"addr:{addr[0]}"
        header = dict(scope.get("headers") or []).get(b"authorization", b"")
        scheme, _, given = header.partition(b" ")
        if scheme.lower() != b"bearer":
            return None
        given = given.strip()
        for token in self.tokens:
            if hmac.compare_digest(given, token):
                return "token:" + hashlib.sha256(token).hexdigest()[:16]
        return None

    async def _read_body(self, scope: dict, receive: Any, send: Any) -> bytes | None:
        """The whole body, or None after answering 413 when it passes the cap."""
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await _reply(send, 413, f"the request body is over the {self.max_body_bytes} byte limit")
            return None
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                await _reply(send, 413, f"the request body is over the {self.max_body_bytes} byte limit")
                return None
            chunks.append(chunk)
            if not message.get("more_body"):
                return b"".join(chunks)


def _replay(body: bytes) -> Any:
    done = False

    async def receive() -> dict:
        nonlocal done
        if done:
            await asyncio.Event().wait()  # as a server does: nothing more until disconnect
        done = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _tracking(send: Any, sent: dict) -> Any:
    async def wrapped(message: dict) -> None:
        if message["type"] == "http.response.start":
            sent["started"] = True
        await send(message)

    return wrapped


async def _reply(send: Any, status: int, detail: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


async def json_body(request: Request) -> dict[str, Any]:
    """The request body as a JSON object, whatever its ``Content-Type`` says: ``curl -d`` sends
    JSON labelled as a form, and a body that reads as JSON is taken as JSON. An empty body is
    ``{}``; anything else that is not a JSON object (or nests deeper than ``MAX_JSON_DEPTH``)
    is one clear 400."""
    raw = await request.body()
    if not raw.strip():
        return {}
    body, depth = _fast_parse(raw)
    if depth is None:  # the standard library's parser, behind the nesting bound as always
        if _nesting(raw) > MAX_JSON_DEPTH:
            raise HTTPException(
                status_code=400, detail=f"the request body nests deeper than {MAX_JSON_DEPTH}"
            )
        try:
            body = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise HTTPException(status_code=400, detail=f"the request body is not JSON: {exc}") from None
    elif depth > MAX_JSON_DEPTH:
        raise HTTPException(status_code=400, detail=f"the request body nests deeper than {MAX_JSON_DEPTH}")
    if not isinstance(body, dict):
        raise HTTPException(status_code=400, detail="the request body must be a JSON object")
    return body


def _fast_parse(raw: bytes) -> tuple[Any, int | None]:
    """``(value, its nesting depth)`` parsed by orjson, or ``(None, None)`` where orjson is
    absent or refuses the text (NaN, integers past 64 bits, lone surrogates, nesting past its
    own bound of 1024, bad JSON), or where a number may pass 64 bits: the standard library then
    decides, with its own messages.
    orjson never recurses past that bound, so no nesting can hurt it."""
    if orjson is None or _LONG_DIGITS in raw.translate(_DIGITS_AS_ZERO):
        return None, None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None, None
    return value, _depth(value)


# orjson reads an integer past 64 bits (below -2**63, above 2**64 - 1) as a float where the
# standard library keeps it exact: a text with 19 digits in a row (anywhere) goes to the
# standard library (a translate and a substring search: a regex took 20 times as long)
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 19
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _depth(value: Any) -> int:
    """The deepest nesting of lists and objects in a parsed JSON value (``[]`` is 1, a scalar
    0): the bracket depth :func:`_nesting` reads from its text. Level by level, never recursive;
    stops one level past ``MAX_JSON_DEPTH``."""
    depth, level = 0, [value]
    while depth <= MAX_JSON_DEPTH:
        containers = [v for v in level if type(v) is dict or type(v) is list]
        if not containers:
            return depth
        depth += 1
        level = []
        for container in containers:
            children = container.values() if type(container) is dict else container
            if not _SCALARS.issuperset(map(type, children)):
                level += children
    return depth


# a complete string, escapes included (the unrolled form: runs of plain bytes are matched whole)
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKETS = b"[]{}"
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _BRACKETS)
_STEP = [0] * 256
_STEP[0x5B] = _STEP[0x7B] = 1  # [ {
_STEP[0x5D] = _STEP[0x7D] = -1  # ] }


def _nesting(raw: bytes) -> int:
    """The deepest bracket nesting of a JSON text, outside strings (an upper bound: cheap,
    and run before the recursive parser sees the text).

    Complete strings are cut out by one regex; a quote left after that opens a string that never
    closes, so nothing after it counts; the brackets left are summed in C (1 ms on a 75 KB request,
    where a byte-by-byte loop in Python took 6 ms)."""
    outside = _JSON_STRING.sub(b"", raw)
    unclosed = outside.find(b'"')
    if unclosed >= 0:
        outside = outside[:unclosed]
    brackets = outside.translate(None, _NOT_BRACKETS)
    return max(0, max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0))


class Busy(HTTPException):
    """429 (this client is at its cap) or 503 (the server's queue is full), with Retry-After."""

    def __init__(self, status: int, detail: str, retry_after_s: int = 1) -> None:
        super().__init__(status_code=status, detail=detail, headers={"Retry-After": str(retry_after_s)})


class Admission:
    """Per-client concurrency caps and a bounded queue per lane.

    A request enters a lane (``async with admission.enter(client, lane)``): past
    ``per_client`` requests in flight for one client it is refused 429; when the lane's
    ``capacity`` is busy it waits, but past ``queue`` waiters (or ``max_wait_s`` of waiting) it
    is refused 503. Both carry ``Retry-After``. Lanes keep slow work (programs in the sandbox,
    task generation) from taking the places of fast grading.
    """

    def __init__(
        self, lanes: dict[str, int], *, per_client: int, queue: int, max_wait_s: float = 30.0
    ) -> None:
        self.per_client, self.queue, self.max_wait_s = per_client, queue, max_wait_s
        self._slots = {lane: asyncio.Semaphore(n) for lane, n in lanes.items()}
        self._waiting = dict.fromkeys(lanes, 0)
        self._in_flight: dict[str, int] = {}

    def in_flight(self, client: str) -> int:
        return self._in_flight.get(client, 0)

    @asynccontextmanager
    async def enter(self, client: str, lane: str) -> Any:
        if self.in_flight(client) >= self.per_client:
            raise Busy(429, f"this client already has {self.per_client} requests in flight")
        self._in_flight[client] = self.in_flight(client) + 1
        try:
            slots = self._slots[lane]
            if slots.locked():
                if self._waiting[lane] >= self.queue:
                    raise Busy(503, f"the server's {lane} queue is full", retry_after_s=2)
                self._waiting[lane] += 1
                try:
                    await asyncio.wait_for(slots.acquire(), self.max_wait_s)
                except asyncio.TimeoutError:
                    raise Busy(503, f"no {lane} capacity within {self.max_wait_s:g} s", 5) from None
                finally:
                    self._waiting[lane] -= 1
            else:
                await slots.acquire()
            try:
                yield
            finally:
                slots.release()
        finally:
            left = self._in_flight[client] - 1
            if left:
                self._in_flight[client] = left
            else:
                del self._in_flight[client]
