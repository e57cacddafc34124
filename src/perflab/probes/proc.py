"""/proc readings of a process tree: one process's stat, and the RSS, CPU time and members of a
process and its descendants (the sampler's tree, and one-off readings for the DB server and the
driver).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ProcStat:
    """The fields of /proc/<pid>/stat the lab uses."""

    pid: int
    state: str
    ppid: int
    cpu_ticks: int      # utime + stime + cutime + cstime (own and reaped children)
    start_ticks: int    # identifies the process across pid reuse
    rss_pages: int      # same counter as VmRSS in /proc/<pid>/status
    exit_code: int | None  # wait status, meaningful for a zombie

    @property
    def gone(self) -> bool:
        return self.state in ("Z", "X")


def read_stat(pid: int) -> ProcStat | None:
    """One read of /proc/<pid>/stat; None when the process does not exist."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # The command name may contain blanks and parentheses: split after the last ')'.
    rest = raw[raw.rfind(b")") + 2:].split()
    exit_code = int(rest[49]) if len(rest) > 49 else None
    return ProcStat(pid=pid, state=rest[0].decode(), ppid=int(rest[1]),
                    cpu_ticks=int(rest[11]) + int(rest[12]) + int(rest[13]) + int(rest[14]),
                    start_ticks=int(rest[19]), rss_pages=int(rest[21]), exit_code=exit_code)


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


@dataclass(frozen=True)
class TreeReading:
    alive: bool            # the root process still runs (not a zombie)
    pids: list[int]        # root and live descendants
    rss_bytes: int         # sum of the VmRSS of those processes (shared pages count per process)
    cpu_s: float           # user+system CPU of the tree, including reaped children


class ProcessTree:
    """Finds a process's descendants through the parent pid of every process.

    Kernels without /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN) leave only the
    ppid field, and reading every process's stat at 10-50 Hz is the sampler's main cost. So:
    when no process was created anywhere since the last reading (the last pid in /proc/loadavg
    is unchanged), only the known members are read again; otherwise only processes not yet
    known to be outside the tree are read (a process cannot become a descendant later: orphans
    are reparented to an ancestor of the tree or to init). A pid can only be reused after the
    pid counter wraps, so a wrap (the last pid going down) forces a full rescan, as does
    `rescan_s` as a safety net. rescan_s=0 reads every process every time.
    """

    def __init__(self, root_pid: int, rescan_s: float = 10.0) -> None:
        self.root_pid = root_pid
        self.rescan_s = rescan_s
        first = read_stat(root_pid)
        self.root_start = first.start_ticks if first else None
        self._outside: set[int] = set()
        self._members: list[int] = []
        self._last_pid: int | None = None
        self._last_full = 0.0

    def read(self) -> TreeReading:
        root = read_stat(self.root_pid)
        if root is None or root.gone or root.start_ticks != self.root_start:
            return TreeReading(alive=False, pids=[], rss_bytes=0, cpu_s=0.0)
        now = time.monotonic()
        last_pid = _last_pid()
        wrapped = last_pid is None or self._last_pid is None or last_pid < self._last_pid
        if wrapped or now - self._last_full >= self.rescan_s or self.rescan_s <= 0:
            self._outside.clear()
            self._last_full = now
            candidates = _all_pids()
        elif last_pid == self._last_pid:
            candidates = self._members  # nothing new was born: the tree can only shrink
        else:
            present = _all_pids()
            self._outside.intersection_update(present)
            candidates = [p for p in present if p not in self._outside]
        self._last_pid = last_pid
        stats: dict[int, ProcStat] = {self.root_pid: root}
        children: dict[int, list[int]] = {}
        for pid in candidates:
            if pid == self.root_pid:
                continue
            stat = read_stat(pid)
            if stat is None:
                continue
            stats[pid] = stat
            children.setdefault(stat.ppid, []).append(pid)
        tree, queue = [self.root_pid], [self.root_pid]
        while queue:
            for child in children.get(queue.pop(), []):
                tree.append(child)
                queue.append(child)
        self._outside.update(set(stats) - set(tree))
        self._members = tree
        live = [stats[p] for p in tree if not stats[p].gone]
        # A zombie's CPU still counts: it moves to its parent's cutime once reaped.
        return TreeReading(alive=True, pids=[s.pid for s in live],
                           rss_bytes=sum(s.rss_pages for s in live) * PAGE_SIZE,
                           cpu_s=sum(stats[p].cpu_ticks for p in tree) / CLOCK_TICKS)


def _last_pid() -> int | None:
    """The most recently created pid, system-wide (5th field of /proc/loadavg)."""
    try:
        with open("/proc/loadavg", "rb") as fh:
            return int(fh.read().split()[4])
    except (OSError, IndexError, ValueError):
        return None


def process_tree(pid: int) -> list[int]:
    """The pid and its live descendants (empty when the pid is gone)."""
    return ProcessTree(pid, rescan_s=0).read().pids


def tree_rss_bytes(pid: int) -> int:
    """Sum of VmRSS over the process and its descendants."""
    return ProcessTree(pid, rescan_s=0).read().rss_bytes


def tree_cpu_seconds(pid: int) -> float:
    """User+system CPU seconds of the process and its descendants, including children they have
    already reaped (the DB server's finished backends, for instance). Take it before and after a
    phase and subtract."""
    return ProcessTree(pid, rescan_s=0).read().cpu_s
