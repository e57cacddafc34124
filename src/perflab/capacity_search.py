"""The search for capacity at a latency objective: the highest offered rate at which an app keeps
the chosen latency percentile within the objective, with no errors and the achieved rate within
3 % of the offered one. Pure logic: measuring one rate is the caller's `measure(rate)`.

Fast and safe: the rate grows geometrically (x `growth`) from `start_rate` until a step fails (or
`max_rate` passes) - or, when the first rate already fails, shrinks (/ `growth`) until one passes
(or `min_rate` is passed) - then the gap between the highest passing and the lowest failing rate is
bisected (geometric midpoint) until it is within `resolution`. Every step is kept.

A failing rate is measured again before the search believes it (on a shared machine one step can
catch a neighbour's burst or a GC pause): it fails when the second measurement fails too; when the
two disagree a third decides, and the rate is listed as one whose measurements disagreed.

The search says who ended it. A step that fails while the driver used its CPUs up (the driver's
own headroom check, perflab.drivers.base.assess_driver_bound) ends the search as a driver limit;
so does a rate the driver's connections could not carry at the objective's latency (Little's law:
connections / objective requests a second at most), which is never offered. The capacity is then
only a lower bound, and is said to be.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from perflab.drivers.base import DRIVER_CPU_LIMIT, RATE_SHORTFALL_LIMIT

# how a search ended
APP = "app"                  # a rate failed on latency, errors or throughput: the app's limit
DRIVER = "driver"            # the driver, not the app, could not go higher
MAX_RATE = "max-rate"        # every rate up to the plan's maximum passed
BELOW_MIN = "below-min"      # no rate passed, down to the minimum


@dataclass(frozen=True)
class Objective:
    percentile: float = 99.0   # the percentile judged, e.g. 99 or 99.9
    limit_ms: float = 25.0     # the objective: that percentile at most this
    min_achieved: float = RATE_SHORTFALL_LIMIT  # achieved / offered at least this

    @property
    def name(self) -> str:
        return f"p{self.percentile:g} <= {self.limit_ms:g} ms"


@dataclass(frozen=True)
class Measured:
    """What one step at an offered rate gave."""

    offered: float
    achieved: float
    latency_ms: float | None      # the objective's percentile
    errors: int
    driver_cpu: float = 0.0       # share of the driver's CPUs it used (0..1)


@dataclass(frozen=True)
class Step:
    phase: str                    # "grow", "shrink" or "bisect"; "confirm" and "decide" re-measure a failure
    measured: Measured
    passed: bool
    why: str                      # what failed, or the figures that passed
    driver_limited: bool = False


@dataclass
class Search:
    objective: Objective
    steps: list[Step] = field(default_factory=list)
    capacity: float | None = None     # the highest rate that passed
    ceiling: float | None = None      # the lowest rate that failed (or could not be offered)
    ended_by: str = ""
    why: str = ""
    disagreed: list[float] = field(default_factory=list)  # rates whose re-measurements disagreed

    @property
    def resolution(self) -> float | None:
        """How far above the capacity the real limit may lie (the last gap, relative)."""
        if self.capacity is None or self.ceiling is None:
            return None
        return self.ceiling / self.capacity - 1


def judge(m: Measured, objective: Objective, driver_cpu_limit: float = DRIVER_CPU_LIMIT) -> Step:
    """Did this step pass? A failure with the driver's CPUs used up is the driver's, not the app's."""
    problems = []
    if m.errors:
        problems.append(f"{m.errors} errors")
    if m.latency_ms is None:
        problems.append(f"no p{objective.percentile:g} measured")
    elif m.latency_ms > objective.limit_ms:
        problems.append(f"p{objective.percentile:g} {m.latency_ms:,.1f} ms > {objective.limit_ms:g} ms")
    if m.achieved < objective.min_achieved * m.offered:
        problems.append(f"achieved {m.achieved:,.0f} of {m.offered:,.0f} req/s")
    if not problems:
        return Step("", m, True, f"p{objective.percentile:g} {m.latency_ms:,.1f} ms, achieved {m.achieved:,.0f} req/s")
    driver = m.driver_cpu >= driver_cpu_limit
    why = "; ".join(problems) + (f" (driver CPU {m.driver_cpu:.0%}: the driver's limit)" if driver else "")
    return Step("", m, False, why, driver_limited=driver)


def search(measure: Callable[[float], Measured], objective: Objective, *, start_rate: float, max_rate: float,
           min_rate: float = 1.0, resolution: float = 0.05, growth: float = 2.0, driver_max_rate: float = math.inf,
           driver_cpu_limit: float = DRIVER_CPU_LIMIT, confirm_failures: bool = True,
           on_step: Callable[[Step], None] | None = None) -> Search:
    """Grow, then bisect, to `resolution` (e.g. 0.05: the limit lies within 5 % above the capacity).
    `driver_max_rate`: the highest rate the driver can carry at the objective's latency.
    `confirm_failures`: re-measure a failing rate before believing it (see the module's docstring)."""
    if not 0 < min_rate <= start_rate <= max_rate:
        raise ValueError(f"need 0 < min_rate <= start_rate <= max_rate, got {min_rate}, {start_rate} and {max_rate}")
    if resolution <= 0 or growth <= 1:
        raise ValueError("need resolution > 0 and growth > 1")
    out = Search(objective)

    def measured(rate: float, phase: str) -> Step:
        s = judge(measure(rate), objective, driver_cpu_limit)
        s = Step(phase, s.measured, s.passed, s.why, s.driver_limited)
        out.steps.append(s)
        if on_step is not None:
            on_step(s)
        return s

    def step(rate: float, phase: str) -> Step | None:
        """Measure one rate; None when the search must stop (the driver's limit)."""
        if rate > driver_max_rate:
            out.ceiling, out.ended_by = rate, DRIVER
            out.why = (f"{rate:,.0f} req/s is beyond what the driver's connections carry at the objective's "
                       f"latency ({driver_max_rate:,.0f} req/s)")
            return None
        s = measured(rate, phase)
        if confirm_failures and not s.passed and not s.driver_limited:
            tries = [s, measured(rate, "confirm")]
            if tries[-1].passed:  # one of each: a third measurement decides
                out.disagreed.append(rate)
                tries.append(measured(rate, "decide"))
            s = tries[-1]
            if sum(t.passed for t in tries) * 2 > len(tries):  # a majority passed
                s = next(t for t in reversed(tries) if t.passed)
        if s.passed:
            out.capacity = rate
        elif s.driver_limited:
            out.ceiling, out.ended_by, out.why = rate, DRIVER, s.why
            return None
        else:
            out.ceiling = rate
        return s

    rate = start_rate
    while True:  # grow until a step fails or the maximum passed
        s = step(rate, "grow")
        if s is None:
            return out
        if not s.passed:
            break
        if rate >= max_rate:
            out.ended_by, out.why = MAX_RATE, f"every rate up to the maximum {max_rate:,.0f} req/s passed"
            return out
        if rate >= driver_max_rate:
            out.ceiling, out.ended_by = None, DRIVER
            out.why = (f"every rate up to {driver_max_rate:,.0f} req/s passed: the most the driver's connections "
                       f"carry at the objective's latency")
            return out
        # the last growth step stops at what the driver can carry, so the capacity found is as
        # high as the driver allows rather than the rate before an unofferable one
        rate = min(rate * growth, max_rate, driver_max_rate)
    while out.capacity is None:  # the first rate failed: shrink until one passes, or below the minimum
        rate /= growth
        if rate < min_rate:
            first = out.steps[0].why if out.steps else ""
            out.ended_by, out.why = BELOW_MIN, f"no rate down to {min_rate:,.0f} req/s passed (at {start_rate:,.0f}: {first})"
            return out
        if step(rate, "shrink") is None:
            return out
    while out.ceiling / out.capacity - 1 > resolution:  # bisect the gap
        s = step(math.sqrt(out.capacity * out.ceiling), "bisect")
        if s is None:
            return out
    failed = [x for x in out.steps if not x.passed and x.measured.offered == out.ceiling]  # its last failure
    out.ended_by, out.why = APP, failed[-1].why if failed else ""
    return out
