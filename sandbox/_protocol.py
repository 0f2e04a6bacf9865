"""Length-prefixed frames between the supervisor and a fork server (standard library only).

A frame is a JSON header plus raw byte blobs: ``u32 count`` then, per part, ``u32 length`` and
the bytes. Program output travels as blobs inside a frame whose length the server wrote, so no
output can imitate the protocol.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time

_U32 = struct.Struct("!I")
MAX_FRAME = 1 << 31


def encode(header: dict, *blobs: bytes) -> bytes:
    parts = [json.dumps(header).encode(), *blobs]
    out = [_U32.pack(len(parts))]
    for part in parts:
        out += [_U32.pack(len(part)), part]
    return b"".join(out)


def write_frame(fd: int, header: dict, *blobs: bytes) -> None:
    data = memoryview(encode(header, *blobs))
    while data:
        data = data[os.write(fd, data) :]


class FrameReader:
    """Reads frames from a pipe fd, optionally under a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = bytearray()

    def _fill(self, n: int, deadline: float | None) -> None:
        while len(self.buf) < n:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                    raise TimeoutError("no answer from the fork server")
            chunk = os.read(self.fd, max(n - len(self.buf), 1 << 16))
            if not chunk:
                raise EOFError("the fork server closed its pipe")
            self.buf += chunk

    def _take(self, n: int, deadline: float | None) -> bytes:
        self._fill(n, deadline)
        data = bytes(self.buf[:n])
        del self.buf[:n]
        return data

    def read(self, deadline: float | None = None) -> tuple[dict, list[bytes]]:
        (count,) = _U32.unpack(self._take(4, deadline))
        parts = []
        for _ in range(count):
            (length,) = _U32.unpack(self._take(4, deadline))
            if length > MAX_FRAME:
                raise ValueError("frame too large")
            parts.append(self._take(length, deadline))
        return json.loads(parts[0]), parts[1:]
