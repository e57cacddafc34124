"""One HTTP/1.1 request on a new connection, as the lab's checks send them (the contract and API
checks, smoke requests, readiness, devloop's round trips): the one place that speaks HTTP to an
app. Time-to-first-response polling (probes.polling) times its own connections and stays apart."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

NO_ANSWER = (OSError, http.client.HTTPException)  # refused, reset, timed out, or not HTTP


@dataclass
class Response:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes

    @property
    def media_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


def request(url: str, method: str = "GET", body: bytes | None = None, content_type: str | None = None,
            timeout: float = 10.0, accept: str = "*/*") -> Response:
    """The whole response; raises one of NO_ANSWER when nothing (or no HTTP) answers."""
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    headers = {"Accept": accept, **({"Content-Type": content_type} if content_type else {})}
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request(method, target, body=body, headers=headers)
        resp = conn.getresponse()
        return Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
    finally:
        conn.close()


def answer(url: str, timeout: float, method: str = "GET", body: bytes | None = None,
           content_type: str | None = None, accept: str = "*/*") -> Response | None:
    """The response, or None when nothing answers."""
    try:
        return request(url, method, body, content_type, timeout, accept)
    except NO_ANSWER:
        return None
