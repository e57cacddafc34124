"""What every load driver returns, and how a driver process is run and accounted for.

``LoadResult`` is the one result type of all drivers (closed loop wrk, open loop oha). Latencies
are in milliseconds. ``run_driver`` starts the driver pinned to its CPUs, reaps it with
``os.wait4`` to get the driver's own CPU time, and never leaves it running (timeout, Ctrl-C).
``assess_driver_bound`` flags a point where the driver, not the app, was the limit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from perflab import signals

# Percentiles every driver reports where it can, as strings so they survive JSON unchanged.
PERCENTILES: tuple[str, ...] = ("50", "75", "90", "99", "99.9", "99.99")

# Driver-bound thresholds: CPU share of the driver's own CPUs, achieved/offered rate.
DRIVER_CPU_LIMIT = 0.90
RATE_SHORTFALL_LIMIT = 0.97


@dataclass
class LatencyStats:
    """Latency in milliseconds; None where the driver does not tell."""

    mean_ms: float | None = None
    stdev_ms: float | None = None
    max_ms: float | None = None
    min_ms: float | None = None
    percentiles_ms: dict[str, float] = field(default_factory=dict)  # "99.9" -> ms

    def percentile(self, p: float | str) -> float | None:
        """Latency at percentile ``p`` (e.g. 99 or "99.9"), None if not reported."""
        return self.percentiles_ms.get(percentile_key(p))


@dataclass
class ErrorCounts:
    """Failed requests. ``non_2xx`` counts HTTP status >= 400 (wrk's "Non-2xx or 3xx"):
    redirects count as answers, as in wrk, so every driver reports the same thing."""

    non_2xx: int = 0
    status_counts: dict[str, int] = field(default_factory=dict)  # every status seen, if told
    timeouts: int = 0
    connect: int = 0
    read: int = 0
    write: int = 0
    other: dict[str, int] = field(default_factory=dict)  # driver's own messages -> count
    # In flight when the run's time ran out (open loop): not failures, so not in ``total``.
    aborted_at_deadline: int = 0

    @property
    def total(self) -> int:
        return (self.non_2xx + self.timeouts + self.connect + self.read + self.write
                + sum(self.other.values()))


@dataclass
class LoadResult:
    """One measured load point (the warm-up run, if any, is not in these figures)."""

    driver: str
    driver_version: str
    mode: str  # "closed" (fixed connections, as fast as possible) or "open" (fixed rate)
    url: str
    connections: int
    threads: int | None
    duration_s: float  # measured duration as the driver reports it
    warmup_s: float
    requests: int  # completed responses, whatever their status
    rps: float  # achieved rate: requests / duration_s
    latency: LatencyStats
    errors: ErrorCounts
    offered_rate: float | None = None  # open loop: the rate asked for
    method: str = "GET"
    driver_cpus: list[int] | None = None  # CPUs the driver was pinned to (None: not pinned)
    driver_cpu_s: float = 0.0  # user + sys of the driver process over the measured run
    driver_cpu_utilisation: float = 0.0  # driver_cpu_s / (wall time x CPUs it was given)
    driver_bound: bool = False
    driver_bound_reason: str = ""
    command: list[str] = field(default_factory=list)
    raw_output: str = ""  # the driver's stdout; the caller stores it as a file
    started_ns: int = 0  # time.monotonic_ns() when the measured run was started (0: not known)
    warmup_started_ns: int = 0  # the same for the warm-up run, if there was one
    # where the load came from, when a figure should say so (e.g. a cluster's driver on an app's node)
    placement_flags: list[str] = field(default_factory=list)

    @property
    def achieved_ratio(self) -> float | None:
        """Achieved / offered rate (open loop only)."""
        if not self.offered_rate:
            return None
        return self.rps / self.offered_rate

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "LoadResult":
        values = dict(data)
        values["latency"] = LatencyStats(**values["latency"])
        values["errors"] = ErrorCounts(**values["errors"])
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in names})


def percentile_key(p: float | str) -> str:
    """Canonical key of a percentile: 99 -> "99", 99.90 -> "99.9"."""
    value = float(p)
    return str(int(value)) if value == int(value) else repr(value)


def assess_driver_bound(utilisation: float, offered_rate: float | None = None,
                        achieved_rate: float | None = None, *,
                        cpu_limit: float = DRIVER_CPU_LIMIT,
                        rate_limit: float = RATE_SHORTFALL_LIMIT) -> tuple[bool, str]:
    """Was the driver the bottleneck? Returns (flag, human reason or "")."""
    reasons = []
    if utilisation >= cpu_limit:
        reasons.append(f"driver CPU {utilisation:.0%} of its CPUs (limit {cpu_limit:.0%})")
    if offered_rate and achieved_rate is not None and achieved_rate < rate_limit * offered_rate:
        reasons.append(f"achieved {achieved_rate:.1f} req/s < {rate_limit:.0%} of offered "
                       f"{offered_rate:.1f} req/s")
    return bool(reasons), "; ".join(reasons)


LOAD_SIDE_LIMIT = 0.90  # the driver's and the DB's shared CPUs this busy: they may set the pace
APP_HEADROOM = 0.90     # the app below this share of its CPUs: it had room to serve more


def assess_load_side(driver_cpu_s: float, db_cpu_s: float | None, seconds: float, driver_cpus: list[int],
                     db_cpus: list[int], app_cpu_share: float | None, app_cpus: float) -> tuple[bool, str]:
    """On a small machine the load driver and the database share CPUs: when those were nearly all
    busy while the app still had CPU to spare, the load side, not the app, set the throughput and
    the app's figure is a lower bound. Returns (flag, human reason or "")."""
    if seconds <= 0 or db_cpu_s is None or app_cpu_share is None or not set(driver_cpus) & set(db_cpus):
        return False, ""
    shared = sorted(set(driver_cpus) | set(db_cpus))
    busy = (driver_cpu_s + db_cpu_s) / (seconds * len(shared))
    app = app_cpu_share / app_cpus if app_cpus else 1.0
    if busy >= LOAD_SIDE_LIMIT and app < APP_HEADROOM:
        return True, (f"the driver and the database used {busy:.0%} of CPU {','.join(map(str, shared))} while the "
                      f"app used {app:.0%} of its CPU: the load side set the pace (a lower bound)")
    return False, ""


@dataclass
class DriverRun:
    """A finished driver process: its output and the resources it used."""

    command: list[str]
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_user_s: float
    cpu_sys_s: float
    cpus: list[int] | None
    timed_out: bool = False

    @property
    def cpu_s(self) -> float:
        return self.cpu_user_s + self.cpu_sys_s

    @property
    def cpu_count(self) -> int:
        return len(self.cpus) if self.cpus else len(os.sched_getaffinity(0))

    @property
    def utilisation(self) -> float:
        """Share of the driver's CPUs it kept busy (1.0 = all of them, the whole time)."""
        if self.wall_s <= 0:
            return 0.0
        return self.cpu_s / (self.wall_s * self.cpu_count)


def check_cpus(cpus: Sequence[int] | None) -> list[int] | None:
    """Check a CPU list against the CPUs this process may use (a clear error, not a child crash)."""
    if cpus is None:
        return None
    wanted = sorted(set(int(c) for c in cpus))
    allowed = os.sched_getaffinity(0)
    if not wanted or not set(wanted) <= allowed:
        raise ValueError(f"driver CPUs {wanted} are not within the CPUs allowed here "
                         f"{sorted(allowed)}")
    return wanted


def run_driver(command: Sequence[str], *, cpus: Sequence[int] | None = None,
               timeout_s: float, env: Mapping[str, str] | None = None) -> DriverRun:
    """Run a driver to completion, pinned to ``cpus``, and account its CPU time.

    The child pins itself with sched_setaffinity before exec, so every thread the driver makes
    inherits the pinning. The child is reaped with os.wait4, whose rusage covers the driver and
    the threads it made. Past ``timeout_s`` (or on any exception, e.g. Ctrl-C) the driver's process
    group is killed and reaped: no driver outlives this call.
    """
    pinned = check_cpus(cpus)
    command = [str(part) for part in command]

    def in_child() -> None:
        if pinned is not None:
            os.sched_setaffinity(0, pinned)

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        process = signals.popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                   preexec_fn=in_child, start_new_session=True,
                                   env=dict(env) if env is not None else None)
        timed_out = False
        status = None
        rusage = None
        try:
            deadline = started + timeout_s
            while True:
                pid, status, rusage = os.wait4(process.pid, os.WNOHANG)
                if pid == process.pid:
                    break
                if time.monotonic() > deadline:
                    timed_out = True
                    _kill_group(process.pid)
                    _, status, rusage = os.wait4(process.pid, 0)
                    break
                time.sleep(0.02)
        except BaseException:
            _kill_group(process.pid)
            with contextlib.suppress(ChildProcessError):
                os.wait4(process.pid, 0)
            process.returncode = -9
            raise
        wall = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again
        out.seek(0)
        err.seek(0)
        return DriverRun(command=command, returncode=process.returncode,
                         stdout=out.read().decode("utf-8", "replace"),
                         stderr=err.read().decode("utf-8", "replace"), wall_s=wall,
                         cpu_user_s=rusage.ru_utime, cpu_sys_s=rusage.ru_stime, cpus=pinned,
                         timed_out=timed_out)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass

