"""GC time and JIT work of a running JVM, from its own performance counters, without attaching.

Why: to explain why one framework serves more requests than another at steady state, the lab needs
per interval how long the JVM spent collecting garbage and whether the JIT is still compiling.

How: HotSpot publishes its counters in a memory-mapped perf data file (/tmp/hsperfdata_<user>/<pid>).
The JDK's jstat reads that file; nothing is loaded into the JVM and no attach thread is woken.
`jstat -gcutil` and `jstat -compiler` are tables built from these same counters (sun.gc.collector.N.*,
sun.ci.*), but they need one jstat process each and -compiler rounds its time to 10 ms. `-snap` with
unsupported counters shown prints every counter as `name=value` from one process at tick
resolution, and is read by name, so it does not depend on the columns a JDK version prints (11, 17
and 25 differ: CGC/CGCT are new, JDK 25 prints "-" for an unused survivor space).

Cost: one read starts one jstat, itself a small JVM: measured on a busy 2-core machine, 0.15 s CPU
and 0.15-0.3 s wall with JDK 17 or 25, twice that with the trimmed JDK 11 runtime. Read at the ends
of an interval, not in a tight loop; the CPU is spent in the caller's cgroup, not the app's.

Not available (a reason, never an exception): no jstat in the app's JDK (a trimmed runtime) or on
PATH, the process is gone, it is not a HotSpot JVM, it runs with -XX:-UsePerfData, or its /tmp is
not the one jstat sees (another mount namespace).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from perflab import probes, procs

if TYPE_CHECKING:
    from perflab.instance import Instance

JSTAT_ARGS = ["-J-Djstat.showUnsupported=true", "-J-XX:-UsePerfData", "-J-XX:TieredStopAtLevel=1", "-snap"]
TIMEOUT_S = 15.0

# delta()'s figures and the JvmCounters attribute each is the change of.
_DELTAS = {"interval_ms": "uptime_ms", "gc_count": "gc_count", "gc_ms": "gc_ms", "gc_cpu_ms": "gc_cpu_ms",
           "compilations": "compilations", "compile_failed": "compile_failed",
           "compile_invalidated": "compile_invalidated", "compile_ms": "compile_ms",
           "compiled_code_bytes": "compiled_code_bytes", "safepoints": "safepoints", "safepoint_ms": "safepoint_ms"}
_COLLECTOR = re.compile(r"^sun\.gc\.collector\.(\d+)\.(name|invocations|time)$")


@dataclass(frozen=True)
class GcCollector:
    name: str       # the JVM's name, e.g. "G1 young collection pauses", "G1 full collection pauses"
    count: int      # collections (pauses) since the JVM started
    time_ms: float  # their total time since the JVM started


@dataclass(frozen=True)
class JvmCounters:
    """Cumulative counters of one JVM at one moment. `reason` says why nothing was read (the
    other fields are then None/empty); a counter the JVM does not publish is None."""

    pid: int
    reason: str = ""
    vm_start_ms: int | None = None           # when the JVM began (epoch ms): tells one run from another
    uptime_ms: float | None = None           # JVM age when jstat returned (within its run time)
    gc: str | None = None                    # the collector in use, e.g. "GarbageFirst", "Copy:MSC"
    collectors: tuple[GcCollector, ...] = ()
    compilations: int | None = None          # JIT compilations (-compiler's Compiled)
    compile_failed: int | None = None        # bailouts (Failed)
    compile_invalidated: int | None = None   # compiled code thrown away again (Invalid)
    compile_ms: float | None = None          # time spent compiling (Time)
    compiled_code_bytes: int | None = None   # size of the compiled code made so far
    safepoints: int | None = None            # stop-the-world pauses of any cause, GC included
    safepoint_ms: float | None = None
    gc_cpu_ms: float | None = None           # CPU time of all GC threads, concurrent work included (JDK 24+)

    @property
    def ok(self) -> bool:
        return not self.reason

    @property
    def gc_count(self) -> int | None:
        return sum(c.count for c in self.collectors) if self.collectors else None

    @property
    def gc_ms(self) -> float | None:
        return sum(c.time_ms for c in self.collectors) if self.collectors else None


def find_jstat(pid: int, jdk_home: str | Path | None = None) -> tuple[str | None, str]:
    """(jstat, "") from the app's JDK: jdk_home, else next to the process's own executable
    (/proc/<pid>/exe is <home>/bin/java), else PATH; or (None, why not)."""
    if jdk_home is not None:
        path = Path(jdk_home) / "bin" / "jstat"
        return (str(path), "") if path.exists() else (None, f"no jstat in {Path(jdk_home) / 'bin'} (a trimmed runtime?)")
    try:
        beside = Path(os.path.realpath(f"/proc/{pid}/exe")).parent / "jstat"
        if beside.exists():
            return str(beside), ""
    except OSError:
        pass
    on_path = shutil.which("jstat")
    return (on_path, "") if on_path else (None, "no jstat next to the process's java nor on PATH")


def parse_snap(text: str) -> dict[str, int | str]:
    """`name=value` lines of `jstat -snap`: integers as int, quoted strings without their quotes."""
    counters: dict[str, int | str] = {}
    for line in text.splitlines():
        name, sep, value = line.partition("=")
        if not sep or not name.strip():
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            counters[name.strip()] = value[1:-1]
        else:
            try:
                counters[name.strip()] = int(value)
            except ValueError:
                counters[name.strip()] = value
    return counters


def from_counters(pid: int, counters: dict[str, int | str], now_ms: float | None = None) -> JvmCounters:
    """JvmCounters from parsed perf counters (read at now_ms, epoch); times are ticks of
    sun.os.hrt.frequency."""
    freq = counters.get("sun.os.hrt.frequency")
    if not isinstance(freq, int) or freq <= 0:
        return JvmCounters(pid, reason="the JVM's counters lack sun.os.hrt.frequency")

    def num(name: str) -> int | None:
        value = counters.get(name)
        return value if isinstance(value, int) else None

    def ms(name: str) -> float | None:
        ticks = num(name)
        return None if ticks is None else ticks * 1000.0 / freq

    parts: dict[int, dict[str, int | str]] = {}
    for name, value in counters.items():
        m = _COLLECTOR.match(name)
        if m:
            parts.setdefault(int(m.group(1)), {})[m.group(2)] = value
    collectors = tuple(
        GcCollector(str(p.get("name", f"collector {i}")), p["invocations"], p["time"] * 1000.0 / freq)
        for i, p in sorted(parts.items())
        if isinstance(p.get("invocations"), int) and isinstance(p.get("time"), int))
    gc = counters.get("sun.gc.policy.name")
    began = num("sun.rt.createVmBeginTime")  # epoch ms, the clock time.time() reads
    now_ms = time.time() * 1000.0 if now_ms is None else now_ms
    return JvmCounters(
        pid, vm_start_ms=began, uptime_ms=None if began is None else now_ms - began, gc=gc if isinstance(gc, str) else None, collectors=collectors,
        compilations=num("sun.ci.totalCompiles"), compile_failed=num("sun.ci.totalBailouts"),
        compile_invalidated=num("sun.ci.totalInvalidates"), compile_ms=ms("java.ci.totalTime"),
        compiled_code_bytes=num("sun.ci.nmethodCodeSize"), safepoints=num("sun.rt.safepoints"),
        safepoint_ms=ms("sun.rt.safepointTime"), gc_cpu_ms=ms("sun.threads.total_gc_cpu_time"))


def read(pid: int, jdk_home: str | Path | None = None) -> JvmCounters:
    """The JVM's cumulative GC and JIT counters now; never raises (see JvmCounters.reason)."""
    if not procs.alive(pid):
        return JvmCounters(pid, reason=f"process {pid} is gone")
    jstat, why = find_jstat(pid, jdk_home)
    if jstat is None:
        return JvmCounters(pid, reason=why)
    try:
        res = subprocess.run([jstat, *JSTAT_ARGS, str(pid)], capture_output=True, text=True, timeout=TIMEOUT_S,
                             env=dict(os.environ, LC_ALL="C"))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return JvmCounters(pid, reason=f"{jstat} failed: {exc}")
    counters = parse_snap(res.stdout) if res.returncode == 0 else {}
    if not counters:
        said = (res.stderr or res.stdout).strip().splitlines()
        return JvmCounters(pid, reason=f"jstat cannot read process {pid}'s perf data (not a HotSpot JVM, "
                                       f"-XX:-UsePerfData, or another /tmp): {said[0] if said else 'no output'}")
    return from_counters(pid, counters)


def why_missing(before: JvmCounters, after: JvmCounters) -> str:
    """Why delta(before, after) has no figures ("" when it has them)."""
    if before.reason or after.reason:
        return before.reason or after.reason
    if before.pid != after.pid or before.vm_start_ms != after.vm_start_ms:
        return "the two readings are not of the same JVM run"
    return ""


def delta(before: JvmCounters, after: JvmCounters) -> dict[str, float | None]:
    """What happened between two readings of one JVM (keys: _DELTAS): interval, GC count, time
    and CPU, compilations and their time, compiled code growth, safepoints. All None when
    why_missing() says why; one None where the JVM does not publish that counter."""
    missing = bool(why_missing(before, after))
    out: dict[str, float | None] = {}
    for key, attr in _DELTAS.items():
        a, b = getattr(before, attr), getattr(after, attr)
        out[key] = None if missing or a is None or b is None else float(b - a)
    return out


def jvm_pid(inst: Instance) -> int | None:
    """The java process of the instance (its command may start it through a shell); None where the
    instance is no process of this machine (a pod on a cluster)."""
    if inst.pid is None:
        return None
    for pid in probes.process_tree(inst.pid):
        try:
            if os.path.basename(os.readlink(f"/proc/{pid}/exe")) == "java":
                return pid
        except OSError:
            continue
    return None


class JitLimits(Protocol):
    """The settings a JitWatch reads (steady's and warmup's)."""

    max_jit_ms_per_s: float  # the JIT's compile time per second above which it is "still compiling"
    window: int  # intervals in the steady-state window; the JIT is read every half window


class JitWatch:
    """Whether the JIT is still at work: its compile time per second since the last reading,
    read at most every few intervals (a reading costs ~0.2 s of the driver's CPU). Throughput can
    look flat for a while with the compiler still taking a large share of a one-CPU quota."""

    def __init__(self, pid: int | None, cfg: JitLimits, trace: bool = False) -> None:
        self.pid, self.limit, self.every = pid, cfg.max_jit_ms_per_s, max(1, cfg.window // 2)
        self.last = read(pid) if pid else None
        self.last_at = 0
        self.verdict = ""
        self.tracing = trace and self.readable
        self.trace: list[dict] = []  # one entry per reading, when tracing

    @property
    def readable(self) -> bool:
        return self.pid is not None and self.last is not None and self.last.ok

    def still_compiling(self, intervals: int) -> str:
        """"" when the JIT is quiet enough (or cannot be read: not a JVM), else why not."""
        if not self.readable or self.limit <= 0:
            return ""
        self._read(intervals)
        return self.verdict

    def follow(self, intervals: int, t_s: float) -> None:
        """With a trace, read every few intervals whatever the throughput does, so the warm-up's
        JIT and GC work is kept beside its throughput (a reading costs the load side's CPU)."""
        if self.tracing:
            self._read(intervals, t_s)

    def _read(self, intervals: int, t_s: float | None = None) -> None:
        if intervals - self.last_at < self.every:
            return
        now = read(self.pid)
        d = delta(self.last, now)
        self.last, self.last_at = now, intervals
        if d.get("compile_ms") is None or not d.get("interval_ms"):
            self.verdict = ""
            return
        rate = 1000 * d["compile_ms"] / d["interval_ms"]
        self.verdict = f"JIT still compiling: {rate:,.0f} ms/s" if rate > self.limit else ""
        if self.tracing:
            per_s = 1000 / d["interval_ms"]
            self.trace.append({"t_s": round(t_s, 1) if t_s is not None else None,
                               "compile_ms_per_s": round(rate, 2), "compilations": d.get("compilations"),
                               "invalidated": d.get("compile_invalidated"),
                               "gc_ms_per_s": round(d["gc_ms"] * per_s, 2) if d.get("gc_ms") is not None else None})
