"""The benches' HTTP client: keep-alive HTTP/1.1 on asyncio streams, as little CPU as a client can take."""

from __future__ import annotations

import asyncio
import json


class Http:
    """A tiny keep-alive HTTP/1.1 client: one connection per simulated participant."""

    def __init__(self, port: int):
        self.port = port
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body=None) -> tuple[int, dict]:
        payload = json.dumps(body).encode() if body is not None else b""
        status, _headers, data = await self.send(method, path, payload, "application/json")
        return status, (json.loads(data) if data else {})

    async def raw(self, method: str, path: str, form: str | None = None):
        """(status, headers, body) of a page or file request, as a browser sends it."""
        payload = form.encode() if form is not None else b""
        kind = "application/x-www-form-urlencoded" if form is not None else ""
        return await self.send(method, path, payload, kind, accept="text/html,*/*")

    async def send(self, method, path, payload: bytes, kind: str, accept="application/json"):
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: {accept}\r\n"
            + (f"Content-Type: {kind}\r\n" if kind else "")
            + f"Content-Length: {len(payload)}\r\n\r\n"
        ).encode()
        for attempt in range(2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            try:
                self.writer.write(head + payload)
                await self.writer.drain()
                status_line = await self.reader.readline()
                if not status_line:
                    raise ConnectionResetError
                status = int(status_line.split()[1])
                headers = {}
                while (line := await self.reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode().partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length") or 0)
                data = await self.reader.readexactly(length) if length else b""
                if headers.get("connection", "").lower() == "close":
                    await self.close()
                return status, headers, data
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                # Only a request that never reached the server is retried; a
                # submit is safe to retry anyway thanks to its idempotency key.
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def close(self):
        if self.writer is not None:
            self.writer.close()
            self.writer = None
