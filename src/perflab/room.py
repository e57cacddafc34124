"""Room on the work directory's disk. A run checks it before every step and stops while there is
still room to record why: a disk that fills up in the middle of a step would fail a log, a sample
file or the results store itself, and could leave the run without its reason. Every figure measured
so far is kept, and `./perflab run --resume RUN` goes on once there is room again."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from perflab.errors import LabError, RunStopped

MIN_FREE_MB = 200.0  # a step's logs, samples, request records and profile, with room to spare
MIN_FREE_ENV = "PERFLAB_MIN_FREE_MB"


def least_mb() -> float:
    """The free space a step needs: PERFLAB_MIN_FREE_MB when set, else MIN_FREE_MB."""
    text = os.environ.get(MIN_FREE_ENV, "").strip()
    if not text:
        return MIN_FREE_MB
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value < 0:
        raise LabError(f"{MIN_FREE_ENV}={text!r} is not a number of megabytes >= 0",
                       fix=f"unset {MIN_FREE_ENV} (the lab then needs {MIN_FREE_MB:.0f} MB free) or set a number")
    return value


def ensure(folder: Path, run_id: str) -> None:
    """Raise RunStopped when `folder`'s disk has less free space than a step needs."""
    need = least_mb()
    free = shutil.disk_usage(folder).free / 2**20
    if free < need:
        raise RunStopped(f"the disk of {folder} has {free:.0f} MB free, less than the {need:.0f} MB a step may "
                         "write: the run stops here and keeps every figure measured so far",
                         fix=f"free some space on that disk, then ./perflab run --resume {run_id} "
                             f"({MIN_FREE_ENV} sets the least free space a step needs)")
