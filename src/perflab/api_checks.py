"""The check an app passes before the lab measures it, chosen by the API it serves (the
descriptor's `api`): the contract's read-only cases for contract apps, the API's own check for an
app with an API of its own. Adding an API: write its check (base URL -> problems) and add it to
CHECKS."""

from __future__ import annotations

from typing import Callable

from perflab import contract, kt2020_api
from perflab.apps import CONTRACT_API, App

Check = Callable[[str], list[str]]

CHECKS: dict[str, Check] = {
    CONTRACT_API: contract.verify,
    kt2020_api.API: kt2020_api.verify,
}


def verify(app: App, base_url: str) -> list[str]:
    """The problems the app's check found at base_url (empty: fine to measure)."""
    check = CHECKS.get(app.api)
    if check is None:
        return [f"no check is known for the API {app.api!r} of {app.name}"
                f" (known: {', '.join(sorted(CHECKS))})"]
    return check(base_url)
