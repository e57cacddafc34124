"""One process at a time per run: a run holds an exclusive lock on a file in its folder while it
runs, so `perflab run --resume RUN` is refused while the run is still going (or another resume of it
is), instead of two processes measuring and removing figures of one run at once. The lock is the
kernel's (flock): it goes with the process that held it, so a run that crashed or was killed can be
resumed at once, with no stale lock file to remove by hand."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from perflab.errors import LabError

LOCK_NAME = ".lock"  # kept after the run: removing it would let two later processes lock two files


class RunLock:
    def __init__(self, run_folder: Path, run_id: str) -> None:
        self.path = run_folder / LOCK_NAME
        self.run_id = run_id
        self._file = None

    def acquire(self) -> "RunLock":
        handle = open(self.path, "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise LabError(f"run {self.run_id} is running now (process {holder}): one process at a time goes on "
                           "with a run", fix=f"wait for it to end, or stop it (Ctrl-C, or kill {holder}) and "
                           f"resume then: ./perflab run --resume {self.run_id}") from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._file = handle
        return self

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing drops the lock
            self._file = None

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
