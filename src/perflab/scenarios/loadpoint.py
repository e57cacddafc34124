"""Recording one measured load point the same way in every scenario: throughput, latency,
errors, driver CPU and the driver-bound verdict, the app's and the DB's CPU, RSS during the
point, and the driver's raw output as a file."""

from __future__ import annotations

import time
from dataclasses import dataclass

from perflab.drivers.base import LoadResult
from perflab.instance import mb
from perflab.lab import Lab
from perflab.scenario import Context
from perflab.scenarios import intervals
from perflab.store import Point


@dataclass
class Window:
    start_ns: int
    db_cpu_start: float | None


def slug(path: str) -> str:
    """A path as part of a file name or a table's key: /fruit-prices -> fruit-prices."""
    return path.strip("/").replace("/", "-") or "root"


def shape_suffix(cfg, path: str) -> str:
    """What a figure's point label adds for a path beyond a scenario's own `path` (a further request
    shape, `more_paths`): the path; nothing for its own, whose labels stay as they always were."""
    return "" if path == cfg.path else f" {path}"


def open_window(lab: Lab) -> Window:
    return Window(time.monotonic_ns(), lab.db_cpu_s())


def flags_of(result: LoadResult) -> list[str]:
    flags = list(result.placement_flags)
    if result.driver_bound:
        flags.append("driver-bound")
    if result.errors.total:
        flags.append("errors")
    if result.requests == 0:
        flags.append("no-responses")
    return flags


def record(ctx: Context, at: Point, repeat: int, result: LoadResult, window: Window) -> list[str]:
    """Store the figures of one load point (on the context's instance); returns its flags."""
    inst = ctx.inst
    end_ns = time.monotonic_ns()
    series = inst.sampler.snapshot() if inst.sampler else None
    db_cpu_end = ctx.lab.db_cpu_s()
    flags = flags_of(result)
    extra = {
        "connections": result.connections, "threads": result.threads, "offered_rate": result.offered_rate,
        "driver": f"{result.driver} {result.driver_version}", "driver_cpus": result.driver_cpus,
        "driver_bound_reason": result.driver_bound_reason, "errors": result.errors.__dict__,
        "warmup_s": result.warmup_s, "duration_s": result.duration_s, "url": result.url, "method": result.method,
    }
    put = lambda metric, value, unit: ctx.record(metric, value, unit, at=at,  # noqa: E731
                                                 repeat=repeat, flags=flags, extra=extra)
    put("rps", result.rps, "req/s")
    put("requests", result.requests, "count")
    put("errors", result.errors.total, "count")
    put("latency_mean_ms", result.latency.mean_ms, "ms")
    put("latency_max_ms", result.latency.max_ms, "ms")
    for p in ("50", "90", "99", "99.9"):
        put(f"latency_p{p}_ms", result.latency.percentile(p), "ms")
    put("driver_cpu_util", result.driver_cpu_utilisation, "ratio")
    if result.offered_rate:
        put("offered_rate", result.offered_rate, "req/s")
    if series is not None:
        put("app_cpu_share", series.cpu_share("cgroup_cpu_s", window.start_ns, end_ns)
            or series.cpu_share("cpu_s", window.start_ns, end_ns), "cpus")
        put("rss_peak_mb", mb(series.peak("rss_bytes", window.start_ns, end_ns)), "MB")
    if window.db_cpu_start is not None and db_cpu_end is not None:
        put("db_cpu_s", db_cpu_end - window.db_cpu_start, "s")
    ctx.add_file("driver-output", f"{at.label or 'point'}-r{repeat}.txt".replace("/", "_").replace(" ", "_"),
                 result.raw_output)
    return flags


def run_closed(ctx: Context, at: Point, timeline: list[list], *, url: str, connections: int, threads: int,
               duration_s: float, interval_s: int, warmup_s: float = 0, timeout_s: float = 2.0,
               script: str | None = None, timeline_point: str | None = None) -> LoadResult:
    """A closed-loop point on the context's instance with wrk. interval_s > 0: measured interval by
    interval, its rows (warm-up included) appended to ``timeline`` under ``timeline_point`` (the
    point's label by default); 0: one run, no timeline."""
    shape = dict(connections=connections, threads=threads, duration_s=int(duration_s), warmup_s=int(warmup_s),
                 timeout_s=timeout_s, script=script)
    if not interval_s:
        return ctx.load.closed(url, **shape)
    runs = ctx.load.closed_intervals(url, interval_s=interval_s, **shape)
    timeline += intervals.wrk_rows(ctx.inst, runs, launch=1, point=timeline_point or at.label)
    return runs.merged
