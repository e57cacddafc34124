"""Has a watched process exited, and why: lets a poll or a log watch fail fast instead of waiting
for its timeout.
"""

from __future__ import annotations

import subprocess
from typing import Protocol, Union

from .proc import read_stat


class Pollable(Protocol):
    """Anything that says, as Popen.poll does, whether it has ended (e.g. a pod's status)."""

    def poll(self) -> int | None: ...


Process = Union[subprocess.Popen, int, Pollable]


class _Liveness:
    """Has the watched process exited? Works with a Popen (reaps it), anything else with poll()
    (e.g. a pod's status), or a bare pid (not reaped)."""

    def __init__(self, process: Process | None) -> None:
        self.process = process
        stat = read_stat(process) if isinstance(process, int) else None
        self._start = stat.start_ticks if stat else None

    def exited(self) -> tuple[bool, int | None]:
        """(exited?, exit code when known; negative = killed by that signal, as Popen says)."""
        if self.process is None:
            return False, None
        if not isinstance(self.process, int):
            code = self.process.poll()
            return code is not None, code
        stat = read_stat(self.process)
        if stat is None or stat.start_ticks != self._start:
            return True, None
        if not stat.gone:
            return False, None
        if stat.exit_code is None:
            return True, None
        status = stat.exit_code  # a wait status: low 7 bits = signal, else code << 8
        return True, (-(status & 0x7F) if status & 0x7F else status >> 8)


def _exit_reason(code: int | None) -> str:
    if code is None:
        return "process exited"
    if code < 0:
        return f"process killed by signal {-code}"
    return f"process exited with code {code}"
