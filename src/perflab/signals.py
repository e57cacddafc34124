"""Turn SIGTERM/SIGHUP into KeyboardInterrupt so every exit path runs the same cleanup, and keep a
second Ctrl-C from interrupting that cleanup half-way."""

from __future__ import annotations

import contextlib
import signal
from typing import Iterator


def _interrupt(signum, frame):  # noqa: ARG001
    raise KeyboardInterrupt(f"signal {signum}")


def install() -> None:
    # also when started with SIGINT ignored (e.g. as a background job of a script): Ctrl-C or a
    # SIGINT must always mean "stop cleanly", never "ignore"
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """Ignore SIGINT/SIGTERM while cleaning up; restore the handlers afterwards."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        for s in saved:
            signal.signal(s, signal.SIG_IGN)
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
