"""steady: throughput and latency at steady state, from fresh launches (the headline load figures).

Each launch: a fresh instance, ready, then for each point consecutive closed-loop intervals
(interval_s each, one wrk run per interval, so every interval has its own throughput, errors and
latency percentiles, and the app's CPU from its cgroup) - first a warm-up until the steady-state
rule holds (perflab.analysis.steadystate: spread and trend of the last `window` intervals; for JVM modes
also the JIT's compile time per second) or warmup_max_s passes, then measurement until the throughput's 95 % confidence interval is within +-precision or
measure_max_s passes. The window that was judged steady counts as measured. Every interval is
written to the run's timeline file, warm-up included: the warm-up curve from launch is what JVM
and native modes really trade.

Per launch and point, one value of each figure: the launches' spread is the figure's spread
(launch-to-launch variance, which JIT decisions make larger than any in-launch repeat). A launch's
throughput is its measured requests over its measured time; its p50 and p99 are the medians of the
measured intervals' own percentiles (wrk gives percentiles, not histograms to merge). Beside
throughput and latency: time from launch to steady state and requests served until then, the
precision reached, and per request the app's CPU, the database's CPU and, where available, SQL
statements; GC time and JIT compilations during the measurement. The number of measured intervals
behind each launch's value is a figure too (shown beside every steady figure), and each launch's
outcome says whether it reached steady state and the rule's reason (stability() names it for every
launch that did not). The headline point, whose throughput the rounds compare, is the first measured
point at the most connections; later points at as many are further request shapes on the warm launch.
An open-loop point at a fraction of the launch's own steady throughput at the headline point ends
each launch when open_loop_fraction > 0; of several versions of one app/mode, every launch of
every version is offered that fraction of the oldest version's throughput instead, and with
open_loop_basis every app/mode of the run that fraction of the basis app/mode's (open_loop_rate).
The open-loop point records the app's CPU per request too: at one offered rate for every app it is
their efficiency at equal load, which the closed-loop point, where each serves what it can, is not.

A point with measure = false is a warm-up point only (e.g. a few connections that let the JIT
finish before the measured concurrency): its time to steady state is recorded, the next point
follows at once. With startup_figures, each launch's start (time to first response, RSS after it)
is stored as a warm launch of the startup scenario, so a plan need not launch every app twice.
"""

from __future__ import annotations

from perflab.drivers import oha
from perflab.errors import AppFailed
from perflab.instance import Instance
from perflab.present import timeline_charts
from perflab.profiles import recording as profile
from perflab.scenario import Context, Estimate, LaunchResult, Phase, Scenario
from perflab.scenarios import intervals, startup
from perflab.scenarios.startup import steady_feeds_startup
# the parts' names callers use, from the scenario's own module
from perflab.scenarios.steady_loop import Interval, PointRun, check_measurement, drive  # noqa: F401
from perflab.scenarios.steady_open_loop import (COMMON, OLDEST, OWN, measure_open_loop,  # noqa: F401
                                                open_loop_cpu_ms, open_loop_rate)
from perflab.scenarios.steady_record import (held_back, launch_reason, load_gaps, measured_contention,  # noqa: F401
                                             record, record_warmup, timeline_rows, window_pulses)
from perflab.scenarios.steady_report import NOT_STEADY, launch_part, stability, tables  # noqa: F401
from perflab.scenarios.steady_settings import SteadyPoint, SteadySettings, headline_point, point_of  # noqa: F401


def launch(ctx: Context, launch: int) -> LaunchResult | None:
    """One fresh launch with every point; returns the throughput of its headline point
    (headline_point) with that point's measured intervals. Raises AppFailed when the instance fails."""
    cfg: SteadySettings = ctx.settings
    inst = ctx.launch(f"steady{launch}", profile.launch_spec(ctx))
    rows: list[list] = []
    headline = headline_point(cfg.points)
    result: LaunchResult | None = None
    try:
        if _feeds_startup(ctx):
            _startup_figures(ctx, inst, launch)
        inst.wait_until_ready(cfg.timeout_s)
        for p in cfg.points:
            at = point_of(p)
            run = drive(ctx, inst, p, at.label, launch)
            rows += timeline_rows(launch, at.label, run)
            if not p.measure:
                record_warmup(ctx, at, launch, run)
                continue
            got = record(ctx, at, launch, run)
            if p is headline:
                first = run.measured[0] if run.measured else None
                result = LaunchResult(got, tuple(i.result.rps for i in run.measured),
                                      first.t_s - first.result.duration_s if first else 0.0,
                                      steady=run.steady_at_s is not None)
        if cfg.open_loop_fraction > 0 and headline is not None and result is not None and result.value:
            rows += measure_open_loop(ctx, inst, headline, result.value, launch)
        inst.check_alive()
    finally:
        inst.stop()
        intervals.write(ctx, f"timeline-launch{launch}.csv", rows)
    return result


def _feeds_startup(ctx: Context) -> bool:
    """Whether this app/mode runs startup beside steady, with steady's launches as its warm ones."""
    first_mode = ctx.mode == next(iter(ctx.app.modes))
    return steady_feeds_startup(ctx.plan.data, ctx.plan.scenarios_for(ctx.mode, first_mode))


def _startup_figures(ctx: Context, inst: Instance, launch: int) -> None:
    """This launch measured as a warm start-up launch, numbered after the startup scenario's own."""
    cfg = ctx.plan.settings("startup")
    figures, info = startup.first_figures(ctx, inst, cfg)
    inst.check_alive()
    startup.record_launch(ctx, figures, {**info, "launch": f"steady launch {launch}"}, cfg.runs - 1 + launch,
                          scenario="startup")


def run(ctx: Context) -> None:
    """App after app (rounds.interleave = false): every launch of this app/mode now."""
    if ctx.rounds:
        return  # the runner's rounds run the launches (see launch)
    failures = []
    for n in range(1, ctx.settings.launches + 1):
        try:
            launch(ctx, n)
        except AppFailed as exc:
            if n == 1:
                raise
            failures.append(f"launch {n}: {exc}")
        ctx.progress.parts_done(n, ctx.settings.launches)  # the time left follows this step's own pace
    after_launches(ctx, ctx.settings.launches, failures)


def after_launches(ctx: Context, launches: int, failures: list[str]) -> None:
    if failures:
        ctx.outcome("failed", "; ".join(failures))
    else:
        ctx.outcome("ok", f"{launches} fresh launches" + (" in interleaved rounds" if ctx.rounds else ""))


def planned_launches(settings: SteadySettings) -> int:
    return settings.launches


def estimate_s(e: Estimate) -> float:
    cfg: SteadySettings = e.settings
    # at one CPU a JVM's JIT keeps compiling for a minute or more: expect it to use its maximum
    least = min(cfg.measure_max_s, cfg.window * cfg.interval_s)  # the shortest a measurement can be
    # what measuring took here after the warm-up (a noisy machine measures to measure_max_s), else the least
    measure = lambda p: min(cfg.measure_max_s, e.measure_s.get(point_of(p).label, least))  # noqa: E731
    open_loop = cfg.open_loop_s if cfg.open_loop_fraction > 0 else 0.0
    labels = [point_of(p).label for p in cfg.points]
    last = cfg.points[-1]
    if labels and all(label in e.steady_s for label in labels):
        # earlier launches here reached their warm-up's end at every point (steady state, or the
        # limit for those that never did: the median is then capped at it): the last point's time
        # from launch already holds the launch itself and the earlier points' warm-up and measurement
        earlier = sum(measure(p) for p in cfg.points[:-1] if p.measure)
        reached = min(e.steady_s[labels[-1]], e.start_s + sum(p.warmup_max_s or cfg.warmup_max_s for p in cfg.points)
                      + earlier)
        after = (measure(last) if last.measure else cfg.window * cfg.interval_s) * 1.1
        return cfg.launches * (max(e.start_s, reached) + after + open_loop + 2)
    points = 0.0
    for p in cfg.points:
        most = p.warmup_max_s or cfg.warmup_max_s
        warm = most if e.jvm else min(most, cfg.window * cfg.interval_s + 2)
        points += (warm + (measure(p) if p.measure else 0)) * 1.1
    return cfg.launches * (e.start_s + points + open_loop + 2)


def estimate_measured(e: Estimate) -> bool:
    """The estimate above is this machine's when the launch and every point's warm-up were measured here."""
    return e.start_measured and all(point_of(p).label in e.steady_s for p in e.settings.points)


def describe(p: dict, plan: dict) -> str:
    pts = ", ".join(f"{x.get('path')} c={x.get('connections')}"
                    + (f" (warm-up at most {x['warmup_max_s']:g} s)" if x.get("warmup_max_s") else "")
                    + (" (warm-up only: time to steady state, not measured)" if x.get("measure") is False else "")
                    if isinstance(x, dict) else str(x) for x in p.get("points", []))
    return (f"{p.get('launches', '?')} fresh launches; on each, {pts} in {p.get('interval_s', '?')} s intervals: "
            f"warm-up until the last {p.get('window', '?')} intervals vary by at most {p.get('max_cv', 0):.0%} with no "
            f"trend above {p.get('max_trend', 0):.0%}"
            + (f" and the JIT compiles under {p['max_jit_ms_per_s']:g} ms/s" if p.get("max_jit_ms_per_s") else "")
            + f" (at most {p.get('warmup_max_s', '?')} s), then measured until "
            f"the 95 % CI is within +-{p.get('precision', 0):.0%} (at most {p.get('measure_max_s', '?')} s)."
            + (" Each launch's start is also measured as a warm start-up launch." if p.get("startup_figures") else ""))


def ensure_driver(settings: SteadySettings, say) -> None:
    if settings.open_loop_fraction > 0:
        oha.ensure_oha(log=say)


SCENARIO = Scenario(
    name="steady", title="Steady state: throughput and latency from fresh launches, time to steady state",
    sends_load=True,
    phase=Phase.OWN_BEFORE, settings=SteadySettings, run=run, estimate_s=estimate_s, tables=tables,
    describe=describe, setup=ensure_driver, charts=timeline_charts.steady_charts, remarks=stability,
    feeds=("startup",), launch=launch, planned_launches=planned_launches, after_launches=after_launches,
    rounds_only=True, estimate_measured=estimate_measured)
