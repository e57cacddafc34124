"""The check an app passes before the lab measures it: its smoke requests when its descriptor
lists some ([[smoke]]: a path and the status it must answer), else the check of the API it serves
(the descriptor's `api`): the contract's read-only cases for contract apps, the API's own check
for an app with an API of its own. Adding an API: write its check (base URL -> problems) and add it
to CHECKS."""

from __future__ import annotations

from typing import Callable

from perflab import contract, httpclient, kt2020_api
from perflab.apps import CONTRACT_API, OWN_API, App, Smoke
from perflab.devloop import stream

Check = Callable[[str], list[str]]


def _ready_only(base_url: str) -> list[str]:
    """An app of its own without smoke requests: answering on its ready path (already waited for) is the check."""
    return []


CHECKS: dict[str, Check] = {
    CONTRACT_API: contract.verify,
    OWN_API: _ready_only,
    "stream": stream.verify,
    kt2020_api.API: kt2020_api.verify,
}


def name(app: App) -> str:
    """What the check is called in messages."""
    return "smoke check" if app.smoke else f"{app.api} check"


def smoke(checks: list[Smoke], base_url: str, timeout_s: float = 10.0) -> list[str]:
    """GET each smoke path: a problem for each other status, or a body without the expected text."""
    problems = []
    for check in checks:
        try:
            resp = httpclient.request(base_url + check.path, timeout=timeout_s)
        except httpclient.NO_ANSWER as exc:
            problems.append(f"GET {check.path}: no answer ({exc})")
            continue
        body = resp.text
        if resp.status != check.status:
            problems.append(f"GET {check.path} answered {resp.status}, expected {check.status}: {body[:200]!r}")
        elif check.contains not in body:
            problems.append(f"GET {check.path}: the body does not contain {check.contains!r}: {body[:200]!r}")
    return problems


def verify(app: App, base_url: str) -> list[str]:
    """The problems the app's check found at base_url (empty: fine to measure)."""
    if app.smoke:
        return smoke(app.smoke, base_url)
    check = CHECKS.get(app.api)
    if check is None:
        return [f"no check is known for the API {app.api!r} of {app.name}"
                f" (known: {', '.join(sorted(CHECKS))}; or list [[smoke]] requests in its perflab.toml)"]
    return check(base_url)
