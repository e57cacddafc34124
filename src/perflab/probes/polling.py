"""HTTP polling from a process's start: time to first response and readiness, by tight polling
with fresh connections; the poll interval is recorded as the resolution.
"""

from __future__ import annotations

import http.client
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .liveness import Process, _Liveness, _exit_reason


@dataclass
class PollResult:
    """The outcome of polling a URL from a process's start until it answers as expected."""

    ok: bool
    url: str
    elapsed_ms: float | None        # spawn -> expected status received
    attempts: int
    resolution_ms: float            # the poll interval: the finest the figure can be
    uncertainty_ms: float | None    # start of the last failed attempt -> start of the good one
    status: int | None              # last HTTP status seen (None: never got an answer)
    reason: str
    exit_code: int | None = None    # when the process exited meanwhile


def poll_http(url: str, spawn_ns: int, process: Process | None = None, *,
              expect_status: int = 200, timeout_s: float = 120.0, interval_ms: float = 5.0,
              connect_timeout_s: float = 0.1, read_timeout_s: float = 30.0) -> PollResult:
    """Poll `url` with a fresh connection every `interval_ms` until it answers `expect_status`.

    `spawn_ns` is time.monotonic_ns() taken just before the process was started. A refused
    connection costs microseconds, so the interval holds; once a connection is accepted, the
    answer is awaited up to `read_timeout_s` (a first request may be slow, and it is the one
    being timed). Stops early, with the reason, when `process` exits or after `timeout_s`.
    """
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"need an http:// URL, got {url!r}")
    host, port = parts.hostname, parts.port or 80
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    interval_ns = int(interval_ms * 1e6)
    deadline_ns = spawn_ns + int(timeout_s * 1e9)
    watch = _Liveness(process)
    attempts, status = 0, None
    last_failed_start: int | None = None
    next_ns = time.monotonic_ns()

    def result(ok: bool, reason: str, elapsed: float | None = None,
               uncertainty: float | None = None, code: int | None = None) -> PollResult:
        return PollResult(ok=ok, url=url, elapsed_ms=elapsed, attempts=attempts,
                          resolution_ms=interval_ms, uncertainty_ms=uncertainty, status=status,
                          reason=reason, exit_code=code)

    while True:
        start_ns = time.monotonic_ns()
        attempts += 1
        answered, got_ns = _try_once(host, port, target, connect_timeout_s,
                                     min(read_timeout_s, max(0.001, (deadline_ns - start_ns) / 1e9)))
        exited, code = watch.exited()
        if answered is not None:
            status = answered
            if answered == expect_status and exited:
                # Someone answered, but not our process: e.g. a leftover server on the port.
                return result(False, f"{_exit_reason(code)}, yet {url} answered {answered}: "
                              "another process serves this port", code=code)
            if answered == expect_status:
                gap = None if last_failed_start is None else (start_ns - last_failed_start) / 1e6
                return result(True, f"HTTP {answered}", (got_ns - spawn_ns) / 1e6, gap)
        last_failed_start = start_ns
        if exited:
            return result(False, f"{_exit_reason(code)} before answering {expect_status}",
                          code=code)
        if got_ns >= deadline_ns:
            seen = f"last status {status}" if status is not None else "no HTTP answer"
            return result(False, f"timeout after {timeout_s:g} s ({seen})")
        next_ns += interval_ns
        now = time.monotonic_ns()
        if next_ns > now:
            time.sleep((next_ns - now) / 1e9)
        else:
            next_ns = now  # a slow attempt: poll again at once, do not burst to catch up


def _try_once(host: str, port: int, target: str, connect_timeout_s: float,
              read_timeout_s: float) -> tuple[int | None, int]:
    """One GET on a new connection: (status or None without an answer, when the status line
    arrived or the attempt ended, in monotonic ns)."""
    conn = http.client.HTTPConnection(host, port, timeout=connect_timeout_s)
    try:
        conn.connect()
        conn.sock.settimeout(read_timeout_s)
        conn.request("GET", target, headers={"Connection": "close"})
        response = conn.getresponse()
        got_ns = time.monotonic_ns()
        response.read()
        return response.status, got_ns
    except (OSError, http.client.HTTPException):
        return None, time.monotonic_ns()
    finally:
        conn.close()


def time_to_first_response(url: str, spawn_ns: int, process: Process | None = None,
                           **options: Any) -> PollResult:
    """exec -> first 200 of `url` (e.g. /hello), polled at <= 5 ms by default."""
    return poll_http(url, spawn_ns, process, **options)


def wait_ready(url: str, spawn_ns: int, process: Process | None = None,
               **options: Any) -> PollResult:
    """exec -> first 200 of the readiness URL (e.g. /health/ready; 503 means not yet)."""
    return poll_http(url, spawn_ns, process, **options)
