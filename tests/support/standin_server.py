"""A tiny HTTP/1.1 server standing in for an app, to test the lab's own measuring code.

Python asyncio, keep-alive, one process (so a test can pin it to a CPU and SIGSTOP it).
Routes:
  GET  /hello            200 text/plain
  GET  /data/{key}       200 {"data": key} or 404 (seeded with "SlimShady")
  POST /data {"data"}    201, 400 (missing or > 100 chars), 409 duplicate, 415 not JSON
  GET  /status/{code}    answers with that status
  GET  /delay/{ms}       200 after ms milliseconds
  GET  /close            closes the connection without answering (a client read error)
Run as a script: prints "PORT <n>" on its first line once listening on 127.0.0.1.
In tests use ``StandinServer`` (a context manager that always stops the process).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Sequence

REASONS = {200: "OK", 201: "Created", 400: "Bad Request", 404: "Not Found", 409: "Conflict",
           415: "Unsupported Media Type", 500: "Internal Server Error",
           503: "Service Unavailable"}


class Store:
    def __init__(self) -> None:
        self.data = {"SlimShady"}


def _response(status: int, body: bytes, content_type: str, keep_alive: bool) -> bytes:
    head = (f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}\r\n"
            f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n")
    return head.encode("latin-1") + body


def _json(status: int, value: object) -> tuple[int, bytes, str]:
    return status, json.dumps(value).encode(), "application/json"


def _error(status: int, message: str) -> tuple[int, bytes, str]:
    return _json(status, {"status": status, "error": message})


async def route(store: Store, method: str, path: str, headers: dict[str, str],
                body: bytes) -> tuple[int, bytes, str] | None:
    """The answer (status, body, content type), or None to drop the connection."""
    if method == "GET" and path == "/hello":
        return 200, b"Hello from standin (python)", "text/plain"
    if path.startswith("/data"):
        if method == "GET" and path.startswith("/data/"):
            key = path[len("/data/"):]
            return _json(200, {"data": key}) if key in store.data else _error(404, "not found")
        if method == "POST" and path == "/data":
            if "json" not in headers.get("content-type", ""):
                return _error(415, "not JSON")
            try:
                key = json.loads(body).get("data")
            except (ValueError, AttributeError):
                return _error(400, "invalid JSON")
            if not isinstance(key, str) or not key or len(key) > 100:
                return _error(400, "data missing or longer than 100 characters")
            if key in store.data:
                return _error(409, "duplicate")
            store.data.add(key)
            return _json(201, {"data": key})
    if method == "GET" and path.startswith("/status/"):
        code = int(path.rsplit("/", 1)[1])
        return _json(code, {"status": code})
    if method == "GET" and path.startswith("/delay/"):
        await asyncio.sleep(int(path.rsplit("/", 1)[1]) / 1000)
        return 200, b"late", "text/plain"
    if path == "/close":
        return None
    return _error(404, "no such route")


async def handle(store: Store, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            line = await reader.readline()
            if not line:
                break
            method, target, version = line.decode("latin-1").split()
            headers: dict[str, str] = {}
            while True:
                header = await reader.readline()
                if header in (b"\r\n", b"\n", b""):
                    break
                name, _, value = header.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length") or 0)
            body = await reader.readexactly(length) if length else b""
            answer = await route(store, method, target.split("?", 1)[0], headers, body)
            if answer is None:
                writer.transport.abort()
                return
            keep_alive = (version == "HTTP/1.1"
                          and headers.get("connection", "").lower() != "close")
            writer.write(_response(*answer, keep_alive=keep_alive))
            await writer.drain()
            if not keep_alive:
                break
    except (ConnectionError, asyncio.IncompleteReadError, ValueError):
        pass
    finally:
        writer.close()


async def serve(port: int) -> None:
    store = Store()
    server = await asyncio.start_server(lambda r, w: handle(store, r, w), "127.0.0.1", port,
                                        backlog=1024)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


class StandinServer:
    """Runs the stand-in in its own process, optionally pinned to ``cpus``; always stopped."""

    def __init__(self, cpus: Sequence[int] | None = None, start_timeout_s: float = 10.0) -> None:
        self.cpus = list(cpus) if cpus is not None else None
        self.start_timeout_s = start_timeout_s
        self.process: subprocess.Popen | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def command(self) -> list[str]:
        """The server's command line (a stand-in of another kind runs its own script)."""
        return [sys.executable, str(Path(__file__).resolve())]

    def start(self) -> "StandinServer":
        cpus = self.cpus

        def pin() -> None:
            if cpus is not None:
                os.sched_setaffinity(0, cpus)

        self.process = subprocess.Popen(self.command(),
                                        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                        preexec_fn=pin, text=True)
        try:
            line = _readline_with_timeout(self.process, self.start_timeout_s)
            if not line.startswith("PORT "):
                raise RuntimeError(f"stand-in server did not start: {line!r}")
            self.port = int(line.split()[1])
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # a stopped process cannot act on TERM
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()
        self.process = None

    def __enter__(self) -> "StandinServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _readline_with_timeout(process: subprocess.Popen, timeout_s: float) -> str:
    import selectors
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout_s):
            raise TimeoutError(f"stand-in server did not report its port in {timeout_s} s")
    return process.stdout.readline()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    port = parser.parse_args().port
    try:
        asyncio.run(serve(port))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    # Exit at once on TERM: nothing to flush, and no noisy tracebacks from cancelled tasks.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    main()
