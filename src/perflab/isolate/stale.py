"""Leftovers of crashed runs: each run records its owning process, and `cleanup_stale` kills and
removes the groups of runs whose owner is gone. The kill and removal steps serve `Cgroup` too."""

from __future__ import annotations

import errno
import os
import signal
import tempfile
import time
from pathlib import Path
from typing import Sequence

from ._common import CgroupError, _read_pids, _read_text, _write
from .detection import LAB_GROUP, CgroupSetup, detect_cgroups


def owner_dir() -> Path:
    """Where each run records its owning process, so leftovers of crashed runs can be told apart
    from groups of a run still going on. Lives as long as cgroups do (until reboot) where it can."""
    override = os.environ.get("PERFLAB_RUNTIME_DIR")
    if override:
        return Path(override) / "cgroup-owners"
    if os.geteuid() == 0 and os.access("/run", os.W_OK):
        return Path("/run") / LAB_GROUP / "cgroup-owners"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.access(runtime, os.W_OK):
        return Path(runtime) / LAB_GROUP / "cgroup-owners"
    return Path(tempfile.gettempdir()) / f"{LAB_GROUP}-{os.geteuid()}" / "cgroup-owners"


def _claim_run(run_id: str) -> Path:
    """Record this process as the run's owner before any of its groups exist."""
    marker = owner_dir() / run_id
    marker.parent.mkdir(parents=True, exist_ok=True)
    if not _owner_alive(marker):
        marker.write_text(f"{os.getpid()} {_start_ticks(os.getpid())}\n")
    return marker


def _owner_alive(marker: Path) -> bool:
    fields = (_read_text(marker) or "").split()
    if len(fields) != 2 or not fields[0].isdigit():
        return False
    pid, ticks = int(fields[0]), fields[1]
    stat = _read_text(Path(f"/proc/{pid}/stat"))
    if stat is None:
        return False
    rest = stat[stat.rfind(")") + 2:].split()
    return rest[0] not in ("Z", "X") and rest[19] == ticks


def _start_ticks(pid: int) -> str:
    stat = _read_text(Path(f"/proc/{pid}/stat")) or ""
    rest = stat[stat.rfind(")") + 2:].split()
    return rest[19] if len(rest) > 19 else "0"


def cleanup_stale(setup: CgroupSetup | None = None, timeout_s: float = 10.0) -> list[str]:
    """Remove the perflab groups of runs whose owning process is gone (crashed runs), killing
    any process still in them. Groups of live runs are left alone. Returns the run ids removed."""
    setup = setup if setup is not None else detect_cgroups()
    run_ids: set[str] = set()
    for lab in setup.lab_dirs():
        if lab.is_dir():
            run_ids.update(p.name for p in lab.iterdir() if p.is_dir())
    markers = owner_dir()
    if markers.is_dir():
        run_ids.update(p.name for p in markers.iterdir())
    removed = []
    for run_id in sorted(run_ids):
        marker = markers / run_id
        if _owner_alive(marker):
            continue
        run_dirs = [lab / run_id for lab in setup.lab_dirs() if (lab / run_id).is_dir()]
        groups = [d for run_dir in run_dirs for d in _groups_below(run_dir)]
        _kill_group(groups, timeout_s)
        for group in groups:  # deepest first
            _rmdir_retry(group, timeout_s, strict=True)
        marker.unlink(missing_ok=True)
        removed.append(run_id)
    return removed


def _groups_below(directory: Path) -> list[Path]:
    """The directory and every cgroup below it, deepest first (the order rmdir needs)."""
    found = [directory]
    for child in directory.iterdir():
        if child.is_dir():
            found[:0] = _groups_below(child)
    return found


def _kill_group(dirs: Sequence[Path], timeout_s: float) -> int:
    """SIGKILL until no process is left; loops because a process may fork while being killed."""
    for directory in dirs:
        if (directory / "cgroup.kill").exists():
            try:
                _write(directory / "cgroup.kill", 1)  # v2, kernel >= 5.14: atomic
            except OSError:
                pass
    sent = 0
    deadline = time.monotonic() + timeout_s
    while True:
        pids = sorted({p for d in dirs for p in _read_pids(d / "cgroup.procs")})
        if not pids:
            return sent
        if time.monotonic() > deadline:
            raise CgroupError(f"processes {pids} still in {', '.join(map(str, dirs))} "
                              f"after {timeout_s} s of SIGKILL")
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                sent += 1
            except ProcessLookupError:
                pass
        time.sleep(0.01)


def _rmdir_retry(directory: Path, timeout_s: float, strict: bool) -> None:
    # A group just emptied may stay busy for a moment while the kernel finishes the exits.
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            directory.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                if strict:
                    raise CgroupError(f"cannot remove cgroup {directory}: {exc}") from exc
                return
            time.sleep(0.01)
