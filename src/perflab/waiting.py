"""Waiting for a condition: the lab's one poll-until-a-deadline loop (a group's processes gone, a
server listening, a broker started, a namespace deleted)."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")


def wait_until(check: Callable[[], T], timeout_s: float, interval_s: float = 0.05) -> T | None:
    """Call `check` every `interval_s` until it returns something true, which is returned, or
    `timeout_s` passed (None; `check` has then run once more at the deadline). An exception from
    `check` (e.g. the process it waits for exited) ends the wait at once."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() >= deadline:
            return None
        time.sleep(interval_s)
