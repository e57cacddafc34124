"""Host-speed canary: how fast a CPU of this host was at one moment, from a fixed workload.

On a VM the host's speed drifts (neighbours, frequency, the hypervisor's scheduling) and /proc/stat
may show no steal time, so a slow spell looks like a slower app. The canary (canary.c, compiled
once with ``cc -O2`` into the lab's cache) runs a fixed, deterministic, allocation-free workload
pinned to the CPUs asked for, a few repetitions of ~20 ms each:

- an integer chain (xorshift-multiply, each step depends on the last): sees a CPU that runs
  slower or is shared (frequency, steal, a competing thread on the same CPU or its SMT sibling);
- a pointer chase through a 4 MiB random cycle (small pages): sees the latency of the cache
  levels beyond L2 and of the TLB, and neighbours that evict them. On a busy host it varies far
  more than the chain (bench/README.md): ``alu_ms`` is the steadier measure of the CPU itself.

It does not see memory bandwidth taken by neighbours beyond what its 4 MiB needs, I/O, or a
slowdown on CPUs it did not run on; and it is a single thread, so it says nothing about scaling.
A reading is the median of its repetitions; ``spread`` says how much they disagreed (a busy
spell during the reading itself). perflab.analysis.host_speed judges the readings: ``slow`` flags
a reading more than a threshold above the median of the run's readings.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from perflab.drivers.install import exclusive_lock
from perflab.errors import LabError
from perflab.paths import cache_dir

SOURCE = Path(__file__).with_name("canary.c")
CFLAGS = ("-O2",)
DEFAULT_WORK = 4_000_000  # canary.c's default: ALU steps per repetition (the chase does 1/8)

Log = Callable[[str], None]


@dataclass(frozen=True)
class Reading:
    """One canary reading on ``cpus``: medians over its repetitions, in milliseconds."""

    cpus: tuple[int, ...]
    ms: float                 # median of the repetition totals (alu + mem)
    alu_ms: float             # median of the integer chain's times
    mem_ms: float             # median of the pointer chase's times
    spread: float             # max / min - 1 of the repetition totals
    reps: tuple[float, ...]   # every repetition's total, in order
    work: int                 # ALU steps per repetition: readings compare only at equal work
    build: str                # hash of canary.c and the flags: readings compare only within one

    def to_dict(self) -> dict:
        data = asdict(self)
        data["cpus"] = list(self.cpus)
        data["reps"] = list(self.reps)
        return data


def _build_id(source: Path) -> str:
    digest = hashlib.sha256(source.read_bytes())
    digest.update(" ".join(CFLAGS).encode())
    return digest.hexdigest()[:12]


def ensure(log: Log = print, *, source: Path = SOURCE) -> Path:
    """The compiled canary, built once per source version into ``<cache>/canary/``."""
    build = _build_id(source)
    target = cache_dir() / "canary" / f"canary-{build}"
    if target.is_file():
        return target
    compiler = shutil.which("cc")
    if compiler is None:
        raise LabError("no C compiler ('cc') to build the host-speed canary",
                       fix="apt-get install gcc (or your system's C compiler as 'cc')")
    with exclusive_lock(cache_dir() / "locks" / "canary.lock"):
        if target.is_file():  # another process built it while we waited
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        log(f"building the host-speed canary (once): cc {' '.join(CFLAGS)} {source.name}")
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        os.close(fd)
        try:
            done = subprocess.run([compiler, *CFLAGS, "-o", temporary, str(source)],
                                  capture_output=True, text=True, timeout=120)
            if done.returncode != 0:
                raise LabError("the host-speed canary did not compile",
                               details=(done.stderr or done.stdout).strip()[-2000:],
                               fix=f"check that 'cc {' '.join(CFLAGS)} {source}' works")
            os.replace(temporary, target)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    return target


def measure(cpus: list[int], reps: int = 5, *, work: int = DEFAULT_WORK,
            timeout: float = 5.0, binary: Path | None = None) -> Reading:
    """Run the canary pinned to ``cpus`` (it pins itself before allocating) and read it."""
    if not cpus or reps < 1:
        raise ValueError("measure needs at least one CPU and one repetition")
    path = binary or ensure(log=lambda _: None)
    command = [str(path), str(reps), str(work), ",".join(str(cpu) for cpu in cpus)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise LabError(f"the host-speed canary took over {timeout:g} s on CPUs {cpus}",
                       fix="the host is badly overloaded, or fewer repetitions are needed") from None
    if done.returncode != 0:
        raise LabError(f"the host-speed canary failed on CPUs {cpus}: "
                       f"{done.stderr.strip() or f'exit status {done.returncode}'}")
    alu, mem, checks = _parse(done.stdout, reps)
    if len(set(checks)) != 1:
        raise LabError(f"the host-speed canary computed different results across repetitions "
                       f"({sorted(set(checks))}): the CPU or the build is faulty")
    totals = [a + m for a, m in zip(alu, mem)]
    return Reading(cpus=tuple(cpus), ms=statistics.median(totals),
                   alu_ms=statistics.median(alu), mem_ms=statistics.median(mem),
                   spread=max(totals) / min(totals) - 1, reps=tuple(totals), work=work,
                   build=path.name.rpartition("-")[2])


def _parse(stdout: str, reps: int) -> tuple[list[float], list[float], list[str]]:
    alu: list[float] = []
    mem: list[float] = []
    checks: list[str] = []
    try:
        for line in stdout.splitlines():
            alu_ns, mem_ns, check = line.split()
            alu.append(int(alu_ns) / 1e6)
            mem.append(int(mem_ns) / 1e6)
            checks.append(check)
    except ValueError:
        raise LabError(f"unexpected output from the host-speed canary: {stdout[:200]!r}") from None
    if len(alu) != reps or min(a + m for a, m in zip(alu, mem)) <= 0:
        raise LabError(f"the host-speed canary printed {len(alu)} repetitions of {reps}, "
                       f"or a zero time: {stdout[:200]!r}")
    return alu, mem, checks


FOLLOW_WORK = 1_000_000  # ~2.5 ms of the integer chain a reading: a quarter of a percent of a CPU at one a second


@dataclass(frozen=True)
class Pulse:
    """One reading of a Follower: when it ended (monotonic ns) and the chain's CPU time (ms)."""

    end_ns: int
    alu_ms: float


class Follower:
    """The canary's integer chain on ``cpus`` every ``every_s`` while a launch runs, timed on its own
    CPU clock (canary.c's EVERY_MS mode): the CPU's speed through the warm-up and the measured
    window, where the readings around a launch see only its ends. It shares the app's CPU, so it
    costs the app ``work`` steps a reading (FOLLOW_WORK: about 2.5 ms here). The process dies with
    its parent (PR_SET_PDEATHSIG), so a killed lab leaves none behind; ``stop`` ends it and returns
    the readings in order."""

    def __init__(self, cpus: list[int], every_s: float, *, work: int = FOLLOW_WORK,
                 binary: Path | None = None) -> None:
        if not cpus or every_s <= 0:
            raise ValueError("a follower needs at least one CPU and a period above 0")
        path = binary or ensure(log=lambda _: None)
        self.pulses: list[Pulse] = []
        self.problem = ""
        self._proc = subprocess.Popen(
            [str(path), "100000", str(work), ",".join(str(c) for c in cpus), str(max(1, round(every_s * 1000)))],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read, name="canary-follower", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        checks = set()
        for line in self._proc.stdout:
            try:
                end_ns, alu_ns, check = line.split()
                self.pulses.append(Pulse(int(end_ns), int(alu_ns) / 1e6))
                checks.add(check)
            except ValueError:
                self.problem = f"unexpected output from the host-speed canary: {line[:200]!r}"
                return
            if len(checks) > 1:
                self.problem = "the host-speed canary computed different results across readings"
                return

    def stop(self) -> list[Pulse]:
        if self._proc.poll() is None:
            self._proc.terminate()
        try:
            _, err = self._proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            _, err = self._proc.communicate()
        self._reader.join(timeout=5)
        if self._proc.returncode not in (0, -signal.SIGTERM) and not self.problem:
            self.problem = f"the host-speed canary stopped: {(err or '').strip() or f'exit {self._proc.returncode}'}"
        return list(self.pulses)

    def __enter__(self) -> "Follower":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
