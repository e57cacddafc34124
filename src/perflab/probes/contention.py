"""Contention readings from /proc: the host's steal time (/proc/stat) and the run-queue time of a
process's threads (/proc/<pid>/task/<tid>/schedstat), taken at a moment; perflab.analysis.contention
turns two of them into a window's figures.

Every function takes the proc root (``/proc`` on this machine, a directory of synthetic files in
tests). A reading leaves out what this kernel does not give (no schedstat without
CONFIG_SCHED_INFO), and says so, rather than failing.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from .proc import CLOCK_TICKS, process_tree

PROC = Path("/proc")
STEAL_COLUMN = 8  # user nice system idle iowait irq softirq steal: the 8th value after the name


@dataclass(frozen=True)
class Reading:
    t_ns: int                               # time.monotonic_ns() of the reading
    steal_s: dict[str, float]               # "cpu" (the mean of the host's CPUs) and "cpuN" (the app's): cumulative steal
    threads: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)  # (pid, tid) -> run, wait ns
    throttled_s: float | None = None        # the app's cgroup: cumulative time its quota throttled it
    why: str = ""                           # why threads (and, off this machine, steal_s) are empty


def steal_seconds(proc_root: Path, cpus: Sequence[int] = ()) -> dict[str, float]:
    """Cumulative steal, in seconds, of each of `cpus` ("cpuN") and of the host's CPUs on average
    ("cpu": its line sums them all, so a second of it is a share of one CPU only once divided by
    their number); a line the kernel does not give (a CPU offline, no steal column) is left out."""
    wanted = {f"cpu{n}" for n in cpus}
    out: dict[str, float] = {}
    try:
        lines = (proc_root / "stat").read_text().splitlines()
    except OSError:
        return out
    rows = [parts for line in lines if (parts := line.split()) and parts[0].startswith("cpu")
            and len(parts) > STEAL_COLUMN]
    online = sum(1 for parts in rows if parts[0] != "cpu")
    for parts in rows:
        seconds = int(parts[STEAL_COLUMN]) / CLOCK_TICKS
        if parts[0] == "cpu" and online:
            out["cpu"] = seconds / online
        elif parts[0] in wanted:
            out[parts[0]] = seconds
    return out


def thread_times(proc_root: Path, pid: int) -> dict[int, tuple[int, int]] | None:
    """Each live thread of `pid`: (time on a CPU, time runnable on a run queue but not running), in
    ns, from the first two fields of its schedstat. None when the process is gone or the kernel has
    no schedstat; a thread that exits while it is read is left out."""
    task = proc_root / str(pid) / "task"
    try:
        tids = [int(name) for name in os.listdir(task) if name.isdigit()]
    except OSError:
        return None
    out: dict[int, tuple[int, int]] = {}
    for tid in tids:
        try:
            fields = (task / str(tid) / "schedstat").read_text().split()
        except FileNotFoundError:
            if not (task / str(tid)).exists():
                continue  # exited between the listing and the read
            return None  # the thread is there, its schedstat is not: a kernel without it
        except OSError:
            continue
        if len(fields) >= 2:
            out[tid] = (int(fields[0]), int(fields[1]))
    return out


class Probe:
    """Readings of one app: its processes' threads (`pids` gives them at each reading: the JVM may
    run under a shell), the steal of the host and of the CPUs the app is pinned to, and its
    cgroup's throttled time (`throttled`, None when not read)."""

    def __init__(self, pids: Callable[[], list[int]], cpus: Sequence[int] = (),
                 throttled: Callable[[], float | None] = lambda: None, proc_root: Path = PROC) -> None:
        self.pids, self.cpus, self.throttled, self.proc_root = pids, tuple(cpus), throttled, proc_root

    def read(self) -> Reading:
        try:
            return self._read()
        except (OSError, ValueError) as exc:  # a probe never fails the launch it watches
            return absent(f"reading /proc failed: {exc}")

    def _read(self) -> Reading:
        threads: dict[tuple[int, int], tuple[int, int]] = {}
        why = ""
        for pid in self.pids():
            got = thread_times(self.proc_root, pid)
            if got is None:
                if (self.proc_root / str(pid)).exists():
                    why = "this kernel gives no schedstat (CONFIG_SCHED_INFO): no run-queue wait"
                continue
            threads.update({(pid, tid): times for tid, times in got.items()})
        if not threads and not why:
            why = "none of the app's processes could be read"
        return Reading(time.monotonic_ns(), steal_seconds(self.proc_root, self.cpus), {} if why else threads,
                       self.throttled(), why)


def probe_of(inst) -> Probe | None:
    """The probe of a launched instance, or None where the app is no process of this machine (a pod
    on a cluster: this machine's /proc shows neither its threads nor its host's steal)."""
    if getattr(inst, "pid", None) is None:
        return None
    group = getattr(inst, "cgroup", None) if getattr(inst, "owns_cgroup", False) else None
    if group is None or group.mode not in ("v1", "v2"):
        return Probe(lambda: process_tree(inst.pid), getattr(group, "cpus", None) or ())
    # the group's members: the JVM under its shell and whatever it starts, without walking /proc
    return Probe(group.pids, group.cpus or (), group.cpu_throttled_s)


NOT_LOCAL = "the app is no process of this machine (e.g. a pod on a cluster): /proc here does not show it"


def absent(why: str) -> Reading:
    """A reading of nothing, saying why."""
    return Reading(time.monotonic_ns(), {}, {}, None, why)
