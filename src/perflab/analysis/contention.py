"""How much the app was kept off its CPU over a window, from two contention readings
(perflab.probes.contention): the steal on its CPU, and its threads' run-queue wait.

Steal is what judges a launch: time the hypervisor ran something else on the app's CPU, which no
process of this machine can cause. The run-queue wait is evidence beside it, not a verdict: on a
one-CPU cpuset most of it is the app's own threads waiting behind each other (with N of them
runnable, each waits while the N-1 others run: 40 request threads, the GC and the JIT), and CFS
throttling by the cgroup's quota counts in it too (a throttled group's threads stay queued). Its
share of the threads' time (wait / (run + wait)) therefore grows with the app's own thread count;
the cgroup's throttled time is given beside it so a reader can tell the quota's part. What is
left when both are accounted for (another process or interrupts on the app's CPU) shows as a
lower CPU share, which `held-back` already flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the readings' type only: the arithmetic here reads no /proc
    from perflab.probes.contention import Reading

# A launch whose CPU lost more than this share of its measured window to steal is flagged contended.
# A one-CPU app under a closed loop is CPU-bound: each stolen second is one it could not serve in,
# so its throughput drops by about the stolen share. 2 % is the precision steady asks of a launch's
# mean (SteadySettings.precision, default): steal beyond it moves the launch by more than its own
# measurement resolves.
CONTENDED_STEAL_PCT = 2.0
CONTENDED = "contended"


@dataclass
class Window:
    figures: dict[str, tuple[float, str]] = field(default_factory=dict)  # metric -> (value, unit)
    details: dict = field(default_factory=dict)   # for the launch's extra: what was counted, and why not

    @property
    def contended(self) -> bool:
        steal = self.figures.get("steal_pct")
        return steal is not None and steal[0] > CONTENDED_STEAL_PCT


def window(a: Reading, b: Reading) -> Window:
    """The figures between readings `a` and `b` of one app."""
    wall_s = (b.t_ns - a.t_ns) / 1e9
    out = Window(details={"window_s": round(wall_s, 3)})
    if wall_s <= 0:
        out.details["why"] = "an empty window"
        return out
    _steal(out, a, b, wall_s)
    _runqueue(out, a, b, wall_s)
    if a.throttled_s is not None and b.throttled_s is not None:
        out.details["throttled_ms_per_s"] = round(1000 * (b.throttled_s - a.throttled_s) / wall_s, 2)
    return out


def _steal(out: Window, a: Reading, b: Reading, wall_s: float) -> None:
    def pct(lines: list[str]) -> float:
        return 100 * sum(max(0.0, b.steal_s[x] - a.steal_s[x]) for x in lines) / len(lines) / wall_s

    read = sorted(a.steal_s.keys() & b.steal_s.keys())
    own = [x for x in read if x != "cpu"]  # the app's CPUs, when it is pinned
    out.details["host_steal_pct"] = round(pct(["cpu"]), 3) if "cpu" in read else None
    if own:
        out.figures["steal_pct"] = (pct(own), "%")
        out.details["steal_on"] = ", ".join(own)
    elif "cpu" in read:
        out.figures["steal_pct"] = (pct(["cpu"]), "%")
        out.details["steal_on"] = "the host's CPUs on average (the app is not pinned)"
    else:
        out.details["steal_why"] = a.why or b.why or "/proc/stat gives no steal column here"
def _runqueue(out: Window, a: Reading, b: Reading, wall_s: float) -> None:
    if a.why or b.why:
        out.details["runqueue_why"] = a.why or b.why
        return
    both = a.threads.keys() & b.threads.keys()
    # a thread that exited in the window took its wait with it, and one born in it has no start:
    # only threads read at both ends count, and how many did not is said
    out.details.update(threads=len(both), threads_appeared=len(b.threads.keys() - both),
                       threads_exited=len(a.threads.keys() - both))
    if not both:
        out.details["runqueue_why"] = "no thread of the app was read at both ends of the window"
        return
    run = sum(b.threads[k][0] - a.threads[k][0] for k in both)
    wait = sum(b.threads[k][1] - a.threads[k][1] for k in both)
    out.details["run_ms_per_s"] = round(run / 1e6 / wall_s, 1)  # the same threads' time on a CPU
    out.figures["runqueue_wait_ms_per_s"] = (wait / 1e6 / wall_s, "ms/s")
    if run + wait > 0:
        out.figures["runqueue_wait_pct"] = (100 * wait / (run + wait), "%")
