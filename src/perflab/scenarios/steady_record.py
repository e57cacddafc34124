"""steady's figures of one point on a launch: throughput, latency, CPU and SQL per request, the
evidence beside them and the flags that qualify them (not steady, held back, contended), its
timeline rows, and the launch's outcome."""

from __future__ import annotations

from perflab.analysis import contention, stats
from perflab.analysis.steadystate import precision
from perflab.profiles import recording as profile
from perflab.scenario import Context
from perflab.scenarios import intervals
from perflab.scenarios.steady_loop import Interval, PointRun
from perflab.scenarios.steady_report import launch_part
from perflab.store import Point


def timeline_rows(launch: int, label: str, run: PointRun) -> list[list]:
    rows = []
    for iv in run.warmup + run.measured:
        r = iv.result
        rows.append(intervals.row(launch=launch, point=label, phase=iv.phase, t_s=iv.t_s, duration_s=r.duration_s,
                                  requests=r.requests, errors=r.errors.total, mean_ms=r.latency.mean_ms,
                                  p50_ms=r.latency.percentile("50"), p90_ms=r.latency.percentile("90"),
                                  p99_ms=r.latency.percentile("99"), max_ms=r.latency.max_ms,
                                  cpu_share=iv.cpu_share))
    return rows


def record(ctx: Context, at: Point, launch: int, run: PointRun) -> float:
    """The launch's figures at this point; returns its steady throughput."""
    measured = run.measured
    requests = sum(i.result.requests for i in measured)
    seconds = sum(i.result.duration_s for i in measured)
    rps = requests / seconds if seconds else 0.0
    got = precision([i.result.rps for i in measured])
    steady = run.steady_at_s is not None
    flags = ([] if steady else ["not-steady"]) + (["profiled"] if profile.enabled(ctx) else [])
    if any(i.result.errors.total for i in measured):
        flags.append("errors")
    if any(i.result.driver_bound for i in measured):
        flags.append("driver-bound")
    flags += sorted({f for i in measured for f in i.result.placement_flags})
    cpu = [i.cpu_share for i in measured if i.cpu_share is not None]
    db = [i.db_cpu_s for i in measured if i.db_cpu_s is not None]
    load_side, load_why = ctx.load_side(
        sum(i.result.driver_cpu_s for i in measured), sum(db) if db and len(db) == len(measured) else None,
        seconds, stats.mean(cpu) if cpu else None)
    if load_side:
        flags.append("load-side-bound")
    held = held_back(measured)
    if held:
        flags.append("held-back")
    seen = measured_contention(run)
    if seen.contended:
        flags.append(contention.CONTENDED)
    extra = {"launch": launch, "intervals": len(measured), "warmup_intervals": len(run.warmup),
             "interval_s": ctx.settings.interval_s, "steady": steady, "why": run.why,
             "rule": ctx.settings.rule().to_dict(), "precision": None if got is None else round(got.relative, 4),
             **({"boost": run.boost} if run.boost else {}),
             "driver": f"{measured[0].result.driver} {measured[0].result.driver_version}" if measured else "",
             "load_side": load_why, "held_back": held, "contention": seen.details}
    put = lambda metric, value, unit: ctx.record(metric, value, unit, at=at, repeat=launch, flags=flags,  # noqa: E731
                                                 extra=extra)
    # the warm-up's trace and the canary's readings once per launch, with its throughput, not with every figure
    traces = {**({"jit_trace": run.jit_trace} if run.jit_trace else {}),
              **({"canary_pulses": [[round(t, 3), round(ms, 4)] for t, ms in run.pulses]} if run.pulses else {})}
    ctx.record("rps", rps, "req/s", at=at, repeat=launch, flags=flags, extra={**extra, **traces})
    put("latency_p50_ms", _median_of(measured, "50"), "ms")
    put("latency_p99_ms", _median_of(measured, "99"), "ms")
    put("errors", sum(i.result.errors.total for i in measured), "count")
    put("measured_s", seconds, "s")
    put("measured_intervals", len(measured), "count")
    gaps = load_gaps(measured)
    if gaps:  # the time between measured intervals in which no load was sent (the driver's turnaround)
        put("interval_gap_ms", 1000 * stats.median(gaps), "ms")
        put("interval_gap_max_ms", 1000 * max(gaps), "ms")
        put("unloaded_pct", 100 * sum(gaps) / (sum(gaps) + sum(i.result.duration_s for i in measured[1:])), "%")
    if got is not None:
        put("precision_pct", 100 * got.relative, "%")
    if steady:
        put("time_to_steady_ms", run.steady_at_s * 1000, "ms")
        put("requests_to_steady", sum(i.result.requests for i in run.warmup), "count")
    if cpu and requests:
        put("app_cpu_ms_per_request", 1000 * stats.mean(cpu) * seconds / requests, "ms")
    if db and len(db) == len(measured) and requests:
        put("db_cpu_ms_per_request", 1000 * sum(db) / requests, "ms")
    for metric, (value, unit) in seen.figures.items():
        put(metric, value, unit)
    in_window = window_pulses(run)
    if in_window:  # the CPU's own speed while measured: a slow spell of the host shows as a longer chain
        put("canary_window_ms", stats.median(in_window), "ms")
    ev = run.evidence
    extra["evidence"] = ev
    for key, metric, unit in (("statements_per_request", "sql_statements_per_request", "count"),
                              ("transactions_per_request", "db_transactions_per_request", "count"),
                              ("gc_ms_per_s", "gc_ms_per_s", "ms/s"), ("compilations", "jit_compilations", "count"),
                              ("compile_ms_per_s", "jit_compile_ms_per_s", "ms/s"),
                              ("compiled_total", "jit_compiled_methods", "count"), ("code_kb", "jit_code_kb", "KB")):
        if ev.get(key) is not None:
            put(metric, ev[key], unit)
    # whether this launch reached steady state and why (or why not), for the stability lines
    ctx.outcome("ok", launch_reason(run), part=launch_part(at.label, launch))
    return rps


def window_pulses(run: PointRun) -> list[float]:
    """The canary's chain times (ms) that ended within the measured window."""
    if not run.measured or not run.pulses:
        return []
    first = run.measured[0]
    start, end = first.t_s - first.result.duration_s, run.measured[-1].t_s
    return [ms for t, ms in run.pulses if start <= t <= end]


def load_gaps(measured: list[Interval]) -> list[float]:
    """The seconds between consecutive measured intervals in which no load was sent: from the end
    of one to the end of the next, less the next one's own load. Each interval is a driver run of
    its own, so the driver's start, its report and the readings taken at each boundary (the app's
    samples, the database's CPU) fall between two loads: a few milliseconds for wrk on this
    machine, an exec into the driver pod and back on a cluster. Empty below two intervals."""
    return [max(0.0, (b.t_s - a.t_s) - b.result.duration_s) for a, b in zip(measured, measured[1:])]


HELD_BACK = 0.8  # an interval whose app CPU share fell below this share of the launch's median


def held_back(measured: list[Interval]) -> dict:
    """Measured intervals in which the app used well under its usual share of its CPU: under a
    closed loop that keeps it busy, something outside the app held it back (the driver or the
    database on their shared CPU, another process on the app's CPU, or the host). Empty when none.
    Such intervals are kept in the mean (excluding them would be choosing the figure); the flag and
    the stability line name them, so a spread they cause is not taken for the app's."""
    shares = [i.cpu_share for i in measured if i.cpu_share is not None]
    if len(shares) < 3:
        return {}
    usual = stats.median(shares)
    low = [i for i in measured if i.cpu_share is not None and i.cpu_share < HELD_BACK * usual]
    if not low:
        return {}
    return {"intervals": len(low), "of": len(measured), "lowest_share": round(min(i.cpu_share for i in low), 3),
            "usual_share": round(usual, 3), "at_s": [round(i.t_s, 1) for i in low]}


def measured_contention(run: PointRun) -> contention.Window:
    """The contention over the measured window: from the reading that ends the interval before its
    first (the point's opening reading when the window starts the point) to its last interval's."""
    start = run.warmup[-1].contention if run.warmup else run.opened
    end = run.measured[-1].contention if run.measured else None
    if start is None or end is None:
        return contention.Window(details={"why": "no reading at an end of the measured window"})
    return contention.window(start, end)


def record_warmup(ctx: Context, at: Point, launch: int, run: PointRun) -> None:
    """A warm-up point's figures: when it reached steady state and the requests served until then."""
    steady = run.steady_at_s is not None
    flags = [] if steady else ["not-steady"]
    extra = {"launch": launch, "warmup_only": True, "warmup_intervals": len(run.warmup), "steady": steady,
             "why": run.why, "rule": ctx.settings.rule().to_dict()}
    if steady:
        before = [i for i in run.warmup if i.t_s <= run.steady_at_s + 1e-6]  # up to the steady window
        ctx.record("time_to_steady_ms", run.steady_at_s * 1000, "ms", at=at, repeat=launch, flags=flags, extra=extra)
        ctx.record("requests_to_steady", sum(i.result.requests for i in before), "count", at=at, repeat=launch,
                   flags=flags, extra=extra)
    ctx.outcome("ok", launch_reason(run), part=launch_part(at.label, launch))


def launch_reason(run: PointRun) -> str:
    if run.steady_at_s is None:
        return run.why  # "not steady after N s of warm-up: ..."
    return f"steady {run.steady_at_s:.0f} s after launch: {run.why}"


def _median_of(intervals: list[Interval], pct: str) -> float | None:
    values = [v for i in intervals if (v := i.result.latency.percentile(pct)) is not None]
    return stats.median(values) if values else None
