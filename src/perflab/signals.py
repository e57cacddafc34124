"""Turn SIGTERM/SIGHUP into KeyboardInterrupt so every exit path runs the same cleanup, keep a
second Ctrl-C from interrupting that cleanup half-way, and never lose the first one.

Two places could swallow the first Ctrl-C. Python runs its fork hooks in the parent after a
``subprocess`` fork with ``preexec_fn`` (the lab forks a driver every second), and a
KeyboardInterrupt raised inside a hook is printed as "Exception ignored" and dropped: popen()
holds the signals during the fork, so they arrive a moment later in ordinary code. That holds only
if the kernel gives the signal to the main thread: a signal it gives to another thread (the lab's
samplers) still runs the Python handler in the main thread, inside the hook. So the lab's own
threads keep the signals off (keep_off_this_thread()). And a
shielded cleanup in the middle of a run would ignore it: the shield remembers it and raises it
when the cleanup is done, unless the run is already stopping."""

from __future__ import annotations

import signal
import subprocess
from typing import Callable

_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_raised = False  # an interrupt reached the lab's code: the run is stopping, later signals change nothing
_held: str | None = None  # a signal that arrived during a shield, while the run was not stopping


def _interrupt(signum, frame):  # noqa: ARG001
    global _raised
    _raised = True
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def _remember(signum, frame):  # noqa: ARG001
    global _held
    if not _raised:
        _held = signal.Signals(signum).name


def install() -> None:
    # also when started with SIGINT ignored (e.g. as a background job of a script): Ctrl-C or a
    # SIGINT must always mean "stop cleanly", never "ignore"
    global _raised, _held
    _raised, _held = False, None
    for s in _SIGNALS:
        signal.signal(s, _interrupt)


class shielded:
    """`with signals.shielded():` cleanup that a Ctrl-C must not cut short. Where the lab handles
    signals (install()), one arriving meanwhile is raised once the cleanup is done, unless the run
    is already stopping; elsewhere (a library caller) it is ignored, as before."""

    def __enter__(self) -> "shielded":
        self._saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        for s, handler in self._saved.items():
            signal.signal(s, _remember if handler is _interrupt else signal.SIG_IGN)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        global _held
        for s, handler in self._saved.items():
            signal.signal(s, handler)
        if _held is not None and exc_type is None and self._saved[signal.SIGINT] is _interrupt:
            name, _held = _held, None
            _interrupt(signal.Signals[name], None)


def keep_off_this_thread() -> None:
    """Block the lab's signals in the calling thread (one the lab started, never the main one), so
    the kernel delivers them to the main thread, where popen() can hold them during a fork."""
    signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)


def popen(argv, preexec_fn: Callable[[], None] | None = None, **kwargs) -> subprocess.Popen:
    """subprocess.Popen with a preexec_fn, the lab's signals held during the fork (see the module's
    docstring) and the child starting with none of them blocked."""

    def in_child() -> None:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
        if preexec_fn is not None:
            preexec_fn()

    before = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        return subprocess.Popen(argv, preexec_fn=in_child, **kwargs)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
