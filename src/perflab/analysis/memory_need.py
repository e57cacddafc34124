"""The memory an app needs, judged from the memneeds scenario's steps (one fresh launch per memory
setting): the smallest setting at which the app keeps at least `keep` of its best throughput.
Pure logic: the scenario measures, this module decides.

Only clean steps count, for the best throughput and for keeping it. A step is clean when the app
really served it: it became ready and stayed alive, its cgroup counted no OOM kill, and at most
`max_error_share` of its requests failed. wrk counts a 5xx answer as a request, and an app that
fails fast can answer more of them a second than a healthy one serves: such a step, an OOM-killed
one or one whose app died would otherwise "keep" the throughput. Every excluded step is listed
with its reason; one whose peak RSS filled the container says so (for a JVM mode the memory outside
the heap ran out, not the heap: the plan's jvm_overhead_mb is too small for that app).

Each step's throughput comes with its noise: the 95 % confidence interval of the mean of its 1 s
intervals (perflab.analysis.steadystate.precision, corrected for correlated intervals). The line a step must
reach is keep x the best step's throughput, itself measured with noise, so a step is near the line
when the line lies within the two intervals combined (sqrt(own^2 + (keep x best's)^2)): another
measurement could turn its verdict. The needed memory is within noise when the step chosen or the
next smaller clean one is near the line: the answer could be one setting up or down.

A step whose throughput the load side set (the driver and the database busy on their shared CPU
while the app had CPU to spare, or the driver itself saturated) still counts: its throughput is a
lower bound for that setting. When that step is the best one or the one judged needed, the line
drawn from the best may be too low (the app might need more memory to reach its real best), and
the judgement says so (`capped`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

AT_THE_LIMIT = 0.95  # a peak RSS this close to the container limit: the process filled it


@dataclass
class Step:
    """What one memory setting gave."""

    limit_mb: int
    heap_mb: int | None = None        # JVM modes: the -Xmx of the step
    rps: float = 0.0                  # throughput over the measured intervals
    half_width: float | None = None   # the 95 % CI of rps (absolute req/s); None: too few intervals
    requests: int = 0                 # responses, whatever their status
    errors: int = 0                   # non-2xx, timeouts and socket errors
    oom_kills: int | None = None      # counted by the step's cgroup (None: no cgroup to ask)
    failed: str = ""                  # why the app could not serve (not ready, died)
    steady: bool = True               # warm-up reached steady state
    rss_peak_mb: float | None = None  # during the measurement
    load_side: str = ""               # why the driver and the database, not the app, set the pace
    driver_bound: str = ""            # why the driver itself was the bottleneck

    @property
    def capped(self) -> str:
        """Why the step's throughput is only a lower bound ("" when the app set it)."""
        return self.load_side or self.driver_bound

    @property
    def name(self) -> str:
        return f"{self.limit_mb} MB" + (f" (heap {self.heap_mb} MB)" if self.heap_mb is not None else "")


def excluded_because(step: Step, max_error_share: float) -> str:
    """Why the step cannot count ("" when it is clean)."""
    if step.failed:
        return f"the app did not serve: {step.failed}"
    if step.oom_kills:
        return f"{step.oom_kills} OOM kill{'s' if step.oom_kills > 1 else ''}"
    if step.requests <= 0:
        return "no responses" + _at_the_limit(step)
    if step.errors > max_error_share * step.requests:
        return (f"{step.errors:,} errors in {step.requests:,} requests (more than {max_error_share:.1%})"
                + _at_the_limit(step))
    return ""


def _at_the_limit(step: Step) -> str:
    """A JVM whose process fills the container is short of memory outside the heap: say so."""
    if step.rss_peak_mb is None or step.rss_peak_mb < AT_THE_LIMIT * step.limit_mb:
        return ""
    return (f" (peak RSS {step.rss_peak_mb:,.0f} of {step.limit_mb} MB"
            + (": the container limit, not the heap, ran out)" if step.heap_mb is not None else ")"))


@dataclass
class Judgement:
    keep: float
    steps: list[Step] = field(default_factory=list)
    best: Step | None = None                 # the clean step with the highest throughput
    needed: Step | None = None               # the smallest clean step keeping keep x best
    excluded: list[tuple[Step, str]] = field(default_factory=list)
    near_line: list[Step] = field(default_factory=list)     # clean steps within their noise of the line
    noise_unknown: list[Step] = field(default_factory=list)  # clean steps without a confidence interval
    lower_bound: bool = False                # the smallest setting tried kept it: the need may be lower

    @property
    def line(self) -> float | None:
        return None if self.best is None else self.keep * self.best.rps

    @property
    def clean(self) -> list[Step]:
        return [s for s in self.steps if not self.why_excluded(s)]

    def why_excluded(self, step: Step) -> str:
        return next((why for s, why in self.excluded if s is step), "")

    def is_near(self, step: Step) -> bool:
        return any(s is step for s in self.near_line)

    @property
    def within_noise(self) -> bool:
        """The step chosen or the next smaller clean step is near the line."""
        if self.needed is None:
            return False
        below = [s for s in self.clean if s.limit_mb < self.needed.limit_mb]
        nearest = max(below, key=lambda s: s.limit_mb, default=None)
        return self.is_near(self.needed) or (nearest is not None and self.is_near(nearest))

    @property
    def capped(self) -> list[Step]:
        """The best and the needed step when the load side capped their throughput: the line (and
        with it the memory needed) may be too low."""
        chosen = [self.best] + ([self.needed] if self.needed is not self.best else [])
        return [s for s in chosen if s is not None and s.capped]

    def verdict(self, step: Step) -> str:
        """One step against the line: excluded (why), keeps or below, and whether within noise."""
        why = self.why_excluded(step)
        if why:
            return f"excluded: {why}"
        if self.line is None:
            return ""
        return ("keeps" if step.rps >= self.line else "below") + (" (within noise of the line)"
                                                                   if self.is_near(step) else "")


def near(step: Step, best: Step, keep: float) -> bool | None:
    """Is keep x best within the step's and the best step's noise of the step's throughput? None
    when either has no confidence interval."""
    if step.half_width is None or best.half_width is None:
        return None
    noise = math.hypot(step.half_width, keep * best.half_width)
    return abs(step.rps - keep * best.rps) <= noise


def judge(steps: list[Step], keep: float, max_error_share: float) -> Judgement:
    """The memory needed from the steps measured (any order)."""
    out = Judgement(keep, steps=list(steps))
    for s in steps:
        why = excluded_because(s, max_error_share)
        if why:
            out.excluded.append((s, why))
    clean = out.clean
    out.best = max(clean, key=lambda s: s.rps, default=None)
    if out.best is None or out.best.rps <= 0:
        out.best = None
        return out
    for s in clean:
        close = near(s, out.best, keep)
        if close is None:
            out.noise_unknown.append(s)
        elif close:
            out.near_line.append(s)
    keeping = [s for s in clean if s.rps >= keep * out.best.rps]
    out.needed = min(keeping, key=lambda s: s.limit_mb)
    out.lower_bound = out.needed.limit_mb == min(s.limit_mb for s in steps)
    return out
