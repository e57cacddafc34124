"""KT-2020's API (the blog's data objects: GET /api/{data}, POST /api with {"data": "..."}) as
the check an app passes before it is measured: found, not found, posted and read back, and bad
bodies answered with a 4xx, never a 5xx.

Values with a quote and SQL in them must round-trip as plain data (no endpoint may be
injectable). The check ends by posting the seed row again: the blog's "as published" service
re-creates its table on every POST, and later launches read the seed row.
"""

from __future__ import annotations

import json
import secrets
from urllib.parse import quote

from perflab.contract import Response, request
from perflab.httpclient import NO_ANSWER

API = "kt2020"
SEED = "SlimShady"
MAX_LENGTH = 100  # the blog's DATA VARCHAR(100)
# A value that breaks out of a concatenated SQL string literal: stored and read back as it is.
TRICKY = "it's'); DROP TABLE DATA_OBJECTS; --"


def get(base_url: str, data: str) -> Response:
    return request(base_url, "GET", "/api/" + quote(data, safe=""))


def post(base_url: str, body: bytes, content_type: str = "application/json") -> Response:
    return request(base_url, "POST", "/api", body, content_type)


def post_data(base_url: str, data: str) -> Response:
    return post(base_url, json.dumps({"data": data}).encode())


def _found(resp: Response, data: str) -> str | None:
    if resp.status != 200:
        return f"answered {resp.status}, expected 200"
    try:
        body = resp.json()
    except ValueError:
        return f"the body is not JSON: {resp.body[:80]!r}"
    return None if body == {"data": data} else f"the body is {body!r}, expected {{'data': {data!r}}}"


def _client_error(resp: Response) -> str | None:
    return None if 400 <= resp.status < 500 else f"answered {resp.status}, expected a 4xx"


def verify(base_url: str) -> list[str]:
    """The problems found at base_url (empty: the app serves KT-2020's API)."""
    token = secrets.token_hex(4)
    new, tricky = f"perflab-{token}", f"{TRICKY} {token}"
    checks = [
        (f"GET /api/{SEED}", lambda: _found(get(base_url, SEED), SEED)),
        ("GET /api/<missing>", lambda: (None if (s := get(base_url, f"missing-{token}").status) == 404
                                        else f"answered {s}, expected 404")),
        ("POST /api", lambda: _posted(base_url, new)),
        ("POST /api with a quote and SQL in the data", lambda: _posted(base_url, tricky)),
        ("POST /api not JSON", lambda: _client_error(post(base_url, b'{"data": '))),
        ("POST /api without data", lambda: _client_error(post(base_url, b"{}"))),
        (f"POST /api data of {MAX_LENGTH + 1} characters",
         lambda: _client_error(post_data(base_url, "k" * (MAX_LENGTH + 1)))),
        ("POST /api as text/plain", lambda: _client_error(post(base_url, b"SlimShady", "text/plain"))),
        (f"POST /api {SEED} (restores the seed row)", lambda: _posted(base_url, SEED)),
    ]
    problems = []
    for name, run in checks:
        try:
            problem = run()
        except NO_ANSWER as exc:
            problem = f"no answer ({exc})"
        if problem:
            problems.append(f"{name}: {problem}")
    return problems


def _posted(base_url: str, data: str) -> str | None:
    resp = post_data(base_url, data)
    if resp.status != 201:
        return f"answered {resp.status}, expected 201"
    problem = _found(get(base_url, data), data)
    return f"reading it back: {problem}" if problem else None
