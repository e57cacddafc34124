"""What the lab measures on a running app, from outside it.

- `time_to_first_response` / `wait_ready`: exec -> first HTTP 200, by tight polling with fresh
  connections; the poll interval is recorded as the resolution.
- `watch_start_log`: the framework's own start time, parsed from its log.
- `ResourceSampler`: RSS and CPU time of the whole process tree, and the cgroup's memory and CPU,
  sampled at >= 10 Hz in a thread; summaries give the value at a moment, a true peak and means.
- `tree_cpu_seconds` / `tree_rss_bytes`: one-off readings for the DB server and the driver.

Standard library only; everything is read from /proc and the cgroup files.
"""

from __future__ import annotations

import csv
import http.client
import os
import re
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Union
from urllib.parse import urlsplit

if TYPE_CHECKING:  # only for hints: probes work without cgroups
    from perflab.isolate import Cgroup

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
Process = Union[subprocess.Popen, int]


# --------------------------------------------------------------------------------------------
# /proc readings
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Process liveness, for failing fast
# --------------------------------------------------------------------------------------------


class _Liveness:
    """Has the watched process exited? Works with a Popen (reaps it) or a bare pid (does not)."""

    def __init__(self, process: Process | None) -> None:
        self.process = process
        stat = read_stat(process) if isinstance(process, int) else None
        self._start = stat.start_ticks if stat else None

    def exited(self) -> tuple[bool, int | None]:
        """(exited?, exit code when known; negative = killed by that signal, as Popen says)."""
        if self.process is None:
            return False, None
        if isinstance(self.process, subprocess.Popen):
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


# --------------------------------------------------------------------------------------------
# Time to first response and readiness
# --------------------------------------------------------------------------------------------


@dataclass
class PollResult:
    """The outcome of polling a URL from a process's start until it answers as expected."""

    ok: bool
    url: str
    elapsed_ms: float | None        # spawn -> expected status received
    attempts: int
    resolution_ms: float            # the poll interval: the finest the figure can be
    uncertainty_ms: float | None    # start of the last failed attempt -> start of the good one
    status: int | None              # last HTTP status seen (None: never got an answer)
    reason: str
    exit_code: int | None = None    # when the process exited meanwhile


def poll_http(url: str, spawn_ns: int, process: Process | None = None, *,
              expect_status: int = 200, timeout_s: float = 120.0, interval_ms: float = 5.0,
              connect_timeout_s: float = 0.1, read_timeout_s: float = 30.0) -> PollResult:
    """Poll `url` with a fresh connection every `interval_ms` until it answers `expect_status`.

    `spawn_ns` is time.monotonic_ns() taken just before the process was started. A refused
    connection costs microseconds, so the interval holds; once a connection is accepted, the
    answer is awaited up to `read_timeout_s` (a first request may be slow, and it is the one
    being timed). Stops early, with the reason, when `process` exits or after `timeout_s`.
    """
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"need an http:// URL, got {url!r}")
    host, port = parts.hostname, parts.port or 80
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    interval_ns = int(interval_ms * 1e6)
    deadline_ns = spawn_ns + int(timeout_s * 1e9)
    watch = _Liveness(process)
    attempts, status = 0, None
    last_failed_start: int | None = None
    next_ns = time.monotonic_ns()

    def result(ok: bool, reason: str, elapsed: float | None = None,
               uncertainty: float | None = None, code: int | None = None) -> PollResult:
        return PollResult(ok=ok, url=url, elapsed_ms=elapsed, attempts=attempts,
                          resolution_ms=interval_ms, uncertainty_ms=uncertainty, status=status,
                          reason=reason, exit_code=code)

    while True:
        start_ns = time.monotonic_ns()
        attempts += 1
        answered, got_ns = _try_once(host, port, target, connect_timeout_s,
                                     min(read_timeout_s, max(0.001, (deadline_ns - start_ns) / 1e9)))
        exited, code = watch.exited()
        if answered is not None:
            status = answered
            if answered == expect_status and exited:
                # Someone answered, but not our process: e.g. a leftover server on the port.
                return result(False, f"{_exit_reason(code)}, yet {url} answered {answered}: "
                              "another process serves this port", code=code)
            if answered == expect_status:
                gap = None if last_failed_start is None else (start_ns - last_failed_start) / 1e6
                return result(True, f"HTTP {answered}", (got_ns - spawn_ns) / 1e6, gap)
        last_failed_start = start_ns
        if exited:
            return result(False, f"{_exit_reason(code)} before answering {expect_status}",
                          code=code)
        if got_ns >= deadline_ns:
            seen = f"last status {status}" if status is not None else "no HTTP answer"
            return result(False, f"timeout after {timeout_s:g} s ({seen})")
        next_ns += interval_ns
        now = time.monotonic_ns()
        if next_ns > now:
            time.sleep((next_ns - now) / 1e9)
        else:
            next_ns = now  # a slow attempt: poll again at once, do not burst to catch up


def _try_once(host: str, port: int, target: str, connect_timeout_s: float,
              read_timeout_s: float) -> tuple[int | None, int]:
    """One GET on a new connection: (status or None without an answer, when the status line
    arrived or the attempt ended, in monotonic ns)."""
    conn = http.client.HTTPConnection(host, port, timeout=connect_timeout_s)
    try:
        conn.connect()
        conn.sock.settimeout(read_timeout_s)
        conn.request("GET", target, headers={"Connection": "close"})
        response = conn.getresponse()
        got_ns = time.monotonic_ns()
        response.read()
        return response.status, got_ns
    except (OSError, http.client.HTTPException):
        return None, time.monotonic_ns()
    finally:
        conn.close()


def time_to_first_response(url: str, spawn_ns: int, process: Process | None = None,
                           **options: Any) -> PollResult:
    """exec -> first 200 of `url` (e.g. /hello), polled at <= 5 ms by default."""
    return poll_http(url, spawn_ns, process, **options)


def wait_ready(url: str, spawn_ns: int, process: Process | None = None,
               **options: Any) -> PollResult:
    """exec -> first 200 of the readiness URL (e.g. /health/ready; 503 means not yet)."""
    return poll_http(url, spawn_ns, process, **options)


# --------------------------------------------------------------------------------------------
# The framework's own start time, from its log
# --------------------------------------------------------------------------------------------


@dataclass
class StartLogMatch:
    ok: bool
    millis: float | None   # the start time the framework states, in ms
    line: str | None
    reason: str


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def watch_start_log(path: Path | str, pattern: str | re.Pattern[str], *, timeout_s: float = 120.0,
                    process: Process | None = None, poll_s: float = 0.01) -> StartLogMatch:
    """Follow a log file until a line matches `pattern`, whose named group "seconds" or
    "millis" holds the framework's start time (e.g. Quarkus "started in (?P<seconds>[\\d.]+)s").

    The file may not exist yet and may grow in pieces. timeout_s=0 scans what is there once.
    """
    regex = re.compile(pattern) if isinstance(pattern, str) else pattern
    if not {"seconds", "millis"} & set(regex.groupindex):
        raise ValueError(f"pattern {regex.pattern!r} needs a group named 'seconds' or 'millis'")
    path = Path(path)
    watch = _Liveness(process)
    deadline = time.monotonic() + timeout_s
    position, pending = 0, b""
    while True:
        exited, code = watch.exited()  # before reading, so a last line is not missed
        try:
            with open(path, "rb") as fh:
                if os.fstat(fh.fileno()).st_size < position:
                    position, pending = 0, b""  # truncated or replaced: start over
                fh.seek(position)
                chunk = fh.read()
                position += len(chunk)
        except FileNotFoundError:
            chunk = b""
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()  # an unfinished line waits for its end
        if exited or time.monotonic() >= deadline:
            lines.append(pending)  # nothing more will come: judge the last piece too
        for raw in lines:
            line = _ANSI.sub("", raw.decode("utf-8", "replace")).rstrip("\r")
            found = regex.search(line)
            if found:
                return StartLogMatch(ok=True, millis=_millis(found), line=line,
                                     reason="matched")
        if exited:
            return StartLogMatch(ok=False, millis=None, line=None,
                                 reason=f"{_exit_reason(code)} before its start line")
        if time.monotonic() >= deadline:
            where = "" if path.exists() else " (file never appeared)"
            return StartLogMatch(ok=False, millis=None, line=None,
                                 reason=f"no start line after {timeout_s:g} s in {path}{where}")
        time.sleep(poll_s)


def _millis(found: re.Match[str]) -> float:
    groups = found.groupdict()
    if groups.get("millis") is not None:
        return float(groups["millis"].replace(",", "."))
    return float(groups["seconds"].replace(",", ".")) * 1000.0  # some locales write 1,234


# --------------------------------------------------------------------------------------------
# Sampling
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    t_ns: int                        # time.monotonic_ns() of the reading
    alive: bool
    procs: int                       # processes in the tree
    rss_bytes: int | None            # tree RSS (None once the root is gone)
    cpu_s: float | None              # tree CPU, cumulative
    cgroup_memory_bytes: int | None  # the cgroup's current memory
    cgroup_cpu_s: float | None       # the cgroup's CPU, cumulative


SAMPLE_FIELDS = [f.name for f in fields(Sample)]


class _Readable(Protocol):
    def memory_current(self) -> int | None: ...
    def cpu_usage_s(self) -> float | None: ...


@dataclass
class SampleSeries:
    """Samples in time order, with the summaries the scenarios need."""

    samples: list[Sample] = field(default_factory=list)
    events: list[tuple[int, str]] = field(default_factory=list)  # (t_ns, what happened)

    def window(self, start_ns: int | None = None, end_ns: int | None = None) -> list[Sample]:
        return [s for s in self.samples
                if (start_ns is None or s.t_ns >= start_ns) and (end_ns is None or s.t_ns <= end_ns)]

    def at(self, t_ns: int) -> Sample | None:
        """The first sample taken at or after `t_ns`: the state just after a moment (e.g. just
        after the first response). None when sampling ended before it."""
        return next((s for s in self.samples if s.t_ns >= t_ns), None)

    def peak(self, name: str = "rss_bytes", start_ns: int | None = None,
             end_ns: int | None = None) -> float | None:
        """The highest sampled value in the window (every sample, not one read at the end)."""
        values = self._values(name, start_ns, end_ns)
        return max(values) if values else None

    def mean(self, name: str = "rss_bytes", start_ns: int | None = None,
             end_ns: int | None = None) -> float | None:
        values = self._values(name, start_ns, end_ns)
        return sum(values) / len(values) if values else None

    def cpu_used(self, name: str = "cpu_s", start_ns: int | None = None,
                 end_ns: int | None = None) -> float | None:
        """CPU seconds spent between the first and last sample of the window."""
        values = self._values(name, start_ns, end_ns)
        return values[-1] - values[0] if len(values) >= 2 else None

    def cpu_share(self, name: str = "cpu_s", start_ns: int | None = None,
                  end_ns: int | None = None) -> float | None:
        """Average CPUs busy over the window (1.0 = one CPU fully used)."""
        chosen = [s for s in self.window(start_ns, end_ns) if getattr(s, name) is not None]
        if len(chosen) < 2 or chosen[-1].t_ns == chosen[0].t_ns:
            return None
        used = getattr(chosen[-1], name) - getattr(chosen[0], name)
        return used / ((chosen[-1].t_ns - chosen[0].t_ns) / 1e9)

    def rows(self, origin_ns: int | None = None) -> list[dict]:
        """One dict per sample for CSV, with t_s relative to `origin_ns` (default: first)."""
        origin = origin_ns if origin_ns is not None else (
            self.samples[0].t_ns if self.samples else 0)
        return [{"t_s": round((s.t_ns - origin) / 1e9, 6), **asdict(s)} for s in self.samples]

    def write_csv(self, path: Path | str, origin_ns: int | None = None) -> None:
        with open(path, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=["t_s", *SAMPLE_FIELDS])
            writer.writeheader()
            writer.writerows(self.rows(origin_ns))

    def _values(self, name: str, start_ns: int | None, end_ns: int | None) -> list[float]:
        if name not in SAMPLE_FIELDS:
            raise ValueError(f"no sample field {name!r}; fields: {', '.join(SAMPLE_FIELDS)}")
        return [v for s in self.window(start_ns, end_ns) if (v := getattr(s, name)) is not None]


class ResourceSampler:
    """Samples a process tree (and its cgroup) in a background thread at `hz`.

    Stops by itself, after one last sample and an event, when the root process exits; errors
    while reading end the sampling with an event rather than silently. `self_cpu_s` is the
    sampler's own CPU time, so its overhead can be reported with the figures.
    """

    def __init__(self, pid: int | None, *, cgroup: "Cgroup | _Readable | None" = None,
                 hz: float = 10.0, rescan_s: float = 10.0) -> None:
        """`pid` None: the cgroup alone (e.g. one budget shared by many instances)."""
        if hz <= 0:
            raise ValueError(f"hz must be > 0, got {hz}")
        if pid is None and cgroup is None:
            raise ValueError("a sampler needs a process or a cgroup")
        self.pid = pid
        self.cgroup = cgroup
        self.period_s = 1.0 / hz
        self.tree = ProcessTree(pid, rescan_s=rescan_s) if pid is not None else None
        self.series = SampleSeries()
        self.exited_ns: int | None = None
        self.self_cpu_s = 0.0
        self.late = 0  # samples taken more than one period late (the sampler was starved)
        self._last_pids: set[int] = set()
        self._stop = threading.Event()
        self._lock = threading.RLock()  # guards the series and the tree's cache
        self._thread = threading.Thread(target=self._run, name=f"sampler-{pid or 'cgroup'}", daemon=True)

    def start(self) -> "ResourceSampler":
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> SampleSeries:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        return self.snapshot()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def snapshot(self) -> SampleSeries:
        """A copy of what was sampled so far (safe while sampling goes on)."""
        with self._lock:
            return SampleSeries(list(self.series.samples), list(self.series.events))

    def sample_now(self) -> Sample:
        """Take one sample at once (e.g. right after the first response) and keep it."""
        return self._take()

    def _take(self) -> Sample:
        with self._lock:
            reading = self.tree.read() if self.tree is not None else TreeReading(alive=True, pids=[], rss_bytes=None,
                                                                                 cpu_s=None)
            memory = cpu = None
            if self.cgroup is not None:
                memory, cpu = self.cgroup.memory_current(), self.cgroup.cpu_usage_s()
            sample = Sample(t_ns=time.monotonic_ns(), alive=reading.alive,
                            procs=len(reading.pids),
                            rss_bytes=reading.rss_bytes if reading.alive else None,
                            cpu_s=reading.cpu_s if reading.alive else None,
                            cgroup_memory_bytes=memory, cgroup_cpu_s=cpu)
            self.series.samples.append(sample)
            left = self._last_pids - set(reading.pids) if reading.alive else set()
            if left:
                self.series.events.append((sample.t_ns, f"left the tree: {sorted(left)}"))
            self._last_pids = set(reading.pids)
            if not reading.alive and self.exited_ns is None:
                self.exited_ns = sample.t_ns
                self.series.events.append((sample.t_ns, f"process {self.pid} exited"))
            return sample

    def _run(self) -> None:
        cpu_start = time.thread_time()
        next_t = time.monotonic()
        try:
            while not self._stop.is_set():
                sample = self._take()
                if not sample.alive:
                    break
                next_t += self.period_s
                delay = next_t - time.monotonic()
                if delay < -self.period_s:
                    self.late += 1
                    next_t = time.monotonic()  # resume the rhythm rather than burst
                    delay = 0.0
                if delay > 0 and self._stop.wait(delay):
                    break
        except Exception as exc:  # noqa: BLE001 - recorded, and the lab goes on
            with self._lock:
                self.series.events.append((time.monotonic_ns(), f"sampling failed: {exc!r}"))
        finally:
            self.self_cpu_s = time.thread_time() - cpu_start

    def __enter__(self) -> "ResourceSampler":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
