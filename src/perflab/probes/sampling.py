"""Resource sampling: RSS and CPU time of a process tree, and its cgroup's memory and CPU, read in
a background thread at >= 10 Hz; the series' summaries give the value at a moment, a true peak and
means.
"""

from __future__ import annotations

import csv
import threading
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from perflab import signals

from .proc import ProcessTree, TreeReading

if TYPE_CHECKING:  # only for hints: probes work without cgroups
    from perflab.isolate import Cgroup


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
        signals.keep_off_this_thread()  # a Ctrl-C must reach the main thread (see perflab.signals)
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
