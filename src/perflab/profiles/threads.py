"""CPU time of a JVM's threads by kind, read from /proc/PID/task/*: the garbage collector's and
the JIT compiler's threads, which execution samples never see, and all threads together.

A thread's name is its `comm` (HotSpot names its native threads, cut to 15 characters). With one
CPU the JVM picks the Serial collector, which collects in the "VM Thread" at safepoints: that
thread counts as GC (its other safepoint work is small beside collections under load)."""

from __future__ import annotations

import os
from dataclasses import dataclass

GC_PREFIXES = ("GC Thread", "G1 ", "VM Thread", "ZDriver", "ZWorker", "ZDirector", "ZStat", "Shenandoah",
               "Parallel GC", "PSYoung", "Concurrent Mark", "ConcurrentGC")
JIT_PREFIXES = ("C1 CompilerThre", "C2 CompilerThre", "Compiler", "JVMCI")
# the JVM's own service threads (and the recorder's): neither the app's work nor GC or JIT
VM_PREFIXES = ("VM Periodic", "Service Thread", "Signal Dispatch", "Sweeper thread", "JFR ", "Reference Handl",
               "Finalizer", "Common-Cleaner", "Monitor Deflati", "Notification Th", "Attach Listener")
TICKS = os.sysconf("SC_CLK_TCK")


def kind_of(name: str) -> str:
    if name.startswith(JIT_PREFIXES):
        return "jit"
    if name.startswith(GC_PREFIXES):
        return "gc"
    if name.startswith(VM_PREFIXES):
        return "vm"
    return "java"


def _thread_cpu_s(task: str) -> float | None:
    """On-CPU seconds of one thread: schedstat's nanoseconds, else stat's clock ticks."""
    try:
        with open(f"{task}/schedstat") as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"{task}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS
    except (OSError, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class ThreadCpu:
    by_thread: dict[int, tuple[str, float]]  # tid -> (name, CPU seconds)

    def seconds(self, kind: str | None = None) -> float:
        return sum(s for name, s in self.by_thread.values() if kind is None or kind_of(name) == kind)


def read(pid: int) -> ThreadCpu:
    """Every live thread's name and CPU seconds (threads that ended are gone from /proc)."""
    out: dict[int, tuple[str, float]] = {}
    base = f"/proc/{pid}/task"
    try:
        tids = os.listdir(base)
    except OSError:
        return ThreadCpu({})
    for tid in tids:
        task = f"{base}/{tid}"
        try:
            with open(f"{task}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        cpu = _thread_cpu_s(task)
        if cpu is not None:
            out[int(tid)] = (name, cpu)
    return ThreadCpu(out)


def delta(before: ThreadCpu, after: ThreadCpu) -> dict[str, float]:
    """CPU seconds per kind (java, gc, jit, vm) between two readings; a thread born between them
    counts from zero."""
    out = {"java": 0.0, "gc": 0.0, "jit": 0.0, "vm": 0.0}
    for tid, (name, cpu) in after.by_thread.items():
        start = before.by_thread.get(tid)
        spent = cpu - (start[1] if start and start[0] == name else 0.0)
        out[kind_of(name)] += max(0.0, spent)
    return out
