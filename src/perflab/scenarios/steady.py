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

import time
from dataclasses import dataclass, field

from pydantic import field_validator, model_validator

from perflab import dbstats, jvmstat
from perflab.analysis import contention, stats
from perflab.analysis.steadystate import Rule, drift, judge, precision
from perflab.drivers import oha
from perflab.drivers.base import LoadResult
from perflab.errors import AppFailed, LabError
from perflab.instance import Instance
from perflab.probes import canary
from perflab.probes.contention import NOT_LOCAL, Reading, absent, probe_of
from perflab.present import timeline_charts
from perflab.profiles import recording as profile
from perflab.scenario import Context, Estimate, LaunchResult, Phase, Scenario
from perflab.scenarios import intervals, startup
from perflab.scenarios.startup import steady_feeds_startup
from perflab.scenarios.steady_report import NOT_STEADY, launch_part, stability, tables
from perflab.settings import Settings, setting
from perflab.store import Point, point

class SteadyPoint(Settings):
    path: str = setting("/fruits", "the path loaded")
    connections: int = setting(40, "closed-loop connections", "connections", ge=1)
    # a first point at a few connections warms a JVM up much sooner than the measured concurrency:
    # on one CPU, 40 busy request threads leave the JIT's compiler threads a small share of it
    warmup_max_s: float | None = setting(None, "this point's own warm-up maximum (empty: the scenario's "
                                               "warmup_max_s)", "s", gt=0)
    measure: bool = setting(True, "measure it once steady (false: a warm-up point only: its time to steady "
                                  "state is recorded, the next point follows at once)")


class SteadySettings(Settings):
    launches: int = setting(3, "fresh launches; each gives one value of every figure", "launches", ge=1)
    points: list[SteadyPoint] = setting([SteadyPoint()], "the points measured on each launch, in order")
    interval_s: int = setting(1, "one interval: its own throughput, latency and CPU", "s", ge=1)
    window: int = setting(10, "intervals judged together for steady state", "intervals", ge=3)
    max_cv: float = setting(0.10, "steady: the window's spread at most (1 s intervals of a JVM on one CPU vary "
                                  "by 5-10 % at steady state: GC, the driver sharing a CPU with the DB)", "ratio", gt=0)
    max_trend: float = setting(0.02, "steady: a significant trend may change throughput this much across the window",
                               "ratio", gt=0)
    max_step: float = setting(0.075, "steady: the last window's mean throughput within this of the window before it "
                                    "(the 90 % interval of the difference: a slow climb the trend test cannot see)",
                              "ratio", gt=0)
    max_jit_ms_per_s: float = setting(100.0, "steady (JVM modes): the JIT compiles at most this many ms a second "
                                             "(0: not checked)", "ms/s", ge=0)
    warmup_max_s: float = setting(120.0, "give up waiting for steady state after this (the point is marked)", "s",
                                  gt=0)
    warmup_min_s: float = setting(0.0, "watch the steady-state rule only after this much warm-up (a fixed "
                                       "warm-up first, as JMH's; 0: from the first interval)", "s", ge=0)
    jit_trace: bool = setting(False, "read the JIT's and GC's counters every half window through the warm-up too, "
                                     "and keep them with the launch (each reading costs the load side about 0.15 s "
                                     "of CPU: for studying warm-ups, bench/steady_onecpu.py)")
    warmup_cycles: int = setting(0, "before the steady-state rule is watched, this many cycles of load and pause "
                                    "(as the Quarkus team's lab warms up on few cores: the JIT's compiler threads "
                                    "catch up in the pauses; 0: continuous load)", "cycles", ge=0)
    warmup_boost_s: float = setting(0.0, "the launch's first point warms up this long on every CPU of the machine "
                                         "(its cgroup's cpuset and quota, and its threads), then gets its own limit "
                                         "back before the steady-state rule is watched (as Kubernetes' startup CPU "
                                         "boost, but after the JVM started: it sizes itself for its own CPUs; "
                                         "0: off)", "s", ge=0)
    canary_every_s: float = setting(0.0, "read the host-speed canary's integer chain on the app's CPU every this "
                                         "many seconds through the warm-up and measurement, timed on its own CPU "
                                         "clock (the CPU's speed inside the launch, where the readings around it "
                                         "see only its ends; about 2.5 ms of the app's CPU a reading; 0: off)",
                                    "s", ge=0)
    cycle_load_s: int = setting(15, "one warm-up cycle's load", "s", ge=1)
    cycle_pause_s: float = setting(15.0, "one warm-up cycle's pause", "s", ge=0)
    precision: float = setting(0.02, "measure until the 95 % CI of throughput is within +- this", "ratio", gt=0)
    measure_max_s: float = setting(60.0, "measure at most this long (the precision reached is stored)", "s", gt=0)
    open_loop_fraction: float = setting(0.0, "then an open-loop point at this fraction of the launch's steady "
                                             "throughput (of several versions of one app: of the oldest "
                                             "version's, the same rate for every version; 0: none)", "ratio",
                                        ge=0, le=1.5)
    open_loop_basis: str = setting("", "an app/mode of the run (e.g. \"spring-boot/jvm\") whose throughput sets "
                                       "every app/mode's open-loop rate: open_loop_fraction of it in its first launch "
                                       "that measured one, the same rate for all, so their CPU per request there is "
                                       "at equal load (the rounds launch it first; empty: each launch's own "
                                       "throughput, or the oldest version's)")
    open_loop_s: float = setting(10.0, "the open-loop point's duration", "s", ge=1)
    timeout_s: float = setting(180.0, "how long a launch may take to become ready", "s", gt=0)
    startup_figures: bool = setting(False, "each launch also gives the startup scenario's figures as a warm "
                                           "launch (time to first response, RSS after it), when the plan has "
                                           "startup: fewer launches for the same figures")

    @model_validator(mode="after")
    def _min_below_max(self) -> "SteadySettings":
        if self.warmup_min_s > self.warmup_max_s:
            raise ValueError(f"warmup_min_s ({self.warmup_min_s:g}) must not exceed warmup_max_s "
                             f"({self.warmup_max_s:g})")
        return self

    @field_validator("points")
    @classmethod
    def _some(cls, value: list[SteadyPoint]) -> list[SteadyPoint]:
        if not any(p.measure for p in value):
            raise ValueError("must list at least one measured point")
        return value

    def rule(self) -> Rule:
        return Rule(window=self.window, max_cv=self.max_cv, max_trend=self.max_trend, precision=self.precision,
                    max_step=self.max_step)


def point_of(p: SteadyPoint) -> Point:
    name = p.path.strip("/").split("/")[0] or "root"
    return point(f"{name} c={p.connections}", path=p.path, connections=p.connections, method="GET")


def headline_point(points: list[SteadyPoint]) -> SteadyPoint | None:
    """The point whose throughput a launch gives the rounds and whose rate the open-loop point
    takes a fraction of: the first measured one at the most connections (as the report's
    headline.cells reads them). Later points at as many connections are further request shapes
    on the warm launch; a point before it at fewer may be the JIT's warm-up."""
    measured = [p for p in points if p.measure]
    return max(measured, key=lambda p: p.connections) if measured else None


@dataclass
class Interval:
    phase: str
    t_s: float              # from the launch to the end of the interval
    result: LoadResult
    cpu_share: float | None
    db_cpu_s: float | None  # the database's CPU during the interval
    contention: Reading | None = None  # steal and the app's run-queue time at the interval's end


@dataclass
class PointRun:
    warmup: list[Interval] = field(default_factory=list)
    measured: list[Interval] = field(default_factory=list)
    steady_at_s: float | None = None   # from the launch to the start of the steady window
    why: str = ""
    jit_trace: list[dict] = field(default_factory=list)  # the JIT's and GC's work through the warm-up, when traced
    evidence: dict = field(default_factory=dict)  # GC, JIT and SQL over the intervals after the window
    opened: Reading | None = None  # the contention reading before the point's first interval
    pulses: list[tuple[float, float]] = field(default_factory=list)  # (s from launch, chain CPU ms), when followed
    boost: dict = field(default_factory=dict)  # the warm-up's boost on every CPU, when the plan asks for one


def _evidence_now(ctx: Context, jvm_pid: int | None) -> tuple:
    return (jvmstat.read(jvm_pid) if jvm_pid else None, dbstats.snapshot(ctx.lab.db_for(ctx.app)))


def _evidence(before: tuple, after: tuple, intervals: list[Interval]) -> dict:
    """Per request (SQL statements, transactions) and per second (GC, JIT) between two readings."""
    requests = sum(i.result.requests for i in intervals)
    seconds = sum(i.result.duration_s for i in intervals)
    out: dict = {"requests": requests, "seconds": seconds}
    (jvm_a, db_a), (jvm_b, db_b) = before, after
    out.update(dbstats.per_request(db_a, db_b, requests))
    out["db_why"] = dbstats.why_missing(db_a, db_b, requests)
    if jvm_a is not None and jvm_b is not None:
        d = jvmstat.delta(jvm_a, jvm_b)
        out["jvm_why"] = jvmstat.why_missing(jvm_a, jvm_b)
        if d.get("gc_ms") is not None and seconds:
            out["gc_ms_per_s"] = d["gc_ms"] / seconds
        if d.get("compilations") is not None:
            out["compilations"] = d["compilations"]
            out["compile_ms_per_s"] = (d.get("compile_ms") or 0.0) / seconds if seconds else None
        # what the JIT had built by the end of the measurement: launches of one build that compiled
        # different amounts of code may have settled on different code (the launch-to-launch spread)
        out["compiled_total"] = jvm_b.compilations
        out["code_kb"] = jvm_b.compiled_code_bytes / 1024 if jvm_b.compiled_code_bytes is not None else None
    else:
        out["jvm_why"] = "not a JVM mode"
    return out


class _Boundary:
    """What is read at every interval boundary. The database's CPU: reading it walks the server's
    process tree in /proc on the driver's CPU, so the end of one interval is the start of the next.
    The app's contention (steal, its threads' run-queue time): which interval opens the measured
    window is known only once the window was judged steady."""

    def __init__(self, ctx: Context, inst: Instance) -> None:
        self.read = ctx.lab.db_cpu_s
        self.last = self.read()
        self.probe = probe_of(inst)
        self.opened = self.contention()

    def contention(self) -> Reading:
        return self.probe.read() if self.probe is not None else absent(NOT_LOCAL)

    def lap(self) -> float | None:
        now = self.read()
        spent = None if None in (self.last, now) else now - self.last
        self.last = now
        return spent


def _interval(ctx: Context, inst: Instance, p: SteadyPoint, phase: str, db: _Boundary) -> Interval:
    cfg: SteadySettings = ctx.settings
    start_ns = time.monotonic_ns()
    result = ctx.load.closed(inst.load_url + p.path, connections=p.connections,
                             threads=ctx.load.threads_for(p.connections), duration_s=cfg.interval_s)
    end_ns = time.monotonic_ns()
    if result.requests == 0 or result.errors.total >= result.requests:
        ctx.lab.check_database()  # a dead database fails every request: say so at once, not after the warm-up
    spent = db.lap()
    seen = db.contention()
    series = inst.sampler.snapshot()
    cpu = series.cpu_share("cgroup_cpu_s", start_ns, end_ns) or series.cpu_share("cpu_s", start_ns, end_ns)
    return Interval(phase, (end_ns - inst.spawn_ns) / 1e9, result, cpu, spent, seen)


def _drive(ctx: Context, inst: Instance, p: SteadyPoint, label: str, launch: int) -> PointRun:
    cfg: SteadySettings = ctx.settings
    rule = cfg.rule()
    run = PointRun()
    jvm_pid = jvmstat.jvm_pid(inst)
    jit = jvmstat.JitWatch(jvm_pid, cfg, trace=cfg.jit_trace)
    db = _Boundary(ctx, inst)
    run.opened = db.opened
    profiling = profile.Window(ctx, inst, launch, label, jvm_pid)  # over the measured intervals, when asked
    profiling.prime()
    follower = _follower(ctx, db)
    try:
        return _warm_and_measure(ctx, inst, p, label, launch, run, rule, jvm_pid, jit, db, profiling)
    finally:
        profiling.abandon()  # what the window did not stop: the primer, a failed launch's recording
        if follower is not None:
            run.pulses = [((pulse.end_ns - inst.spawn_ns) / 1e9, pulse.alu_ms) for pulse in follower.stop()]
            if follower.problem:
                ctx.lab.warn(follower.problem)


def _follower(ctx: Context, db: _Boundary) -> canary.Follower | None:
    """The canary on the app's CPUs through this point, when the plan asks and the app runs here."""
    cfg: SteadySettings = ctx.settings
    cpus = list(db.probe.cpus) if db.probe is not None else []
    if not cfg.canary_every_s or not cpus:
        return None
    try:
        return canary.Follower(cpus, cfg.canary_every_s)
    except (LabError, OSError) as exc:
        ctx.lab.warn(f"host-speed canary through the launch: {exc}")
        return None


def _boosted(ctx: Context, inst: Instance, p: SteadyPoint, label: str, launch: int, run: PointRun, db) -> None:
    """The warm-up's boost, when the plan asks for one (warmup_boost_s): the launch's first point loaded
    on every CPU for that long, then the app's own CPUs again. The JIT's compiler threads, which share
    one CPU with the request threads otherwise, get the other CPU too (beside the load side)."""
    cfg: SteadySettings = ctx.settings
    group = getattr(inst, "cgroup", None) if getattr(inst, "owns_cgroup", False) else None
    if not cfg.warmup_boost_s or p is not cfg.points[0] or group is None or not hasattr(group, "move_cpus"):
        return
    if not group.move_cpus(None, None):  # every online CPU, no quota
        run.boost = {"s": 0.0, "why": "no thread of the app in its cgroup to move"}
        return
    began = time.monotonic()
    try:
        while time.monotonic() - began < cfg.warmup_boost_s:
            inst.check_alive()
            run.warmup.append(_interval(ctx, inst, p, "warmup", db))
            ctx.progress.update(f"{_who(ctx)} launch {launch} {label}: warm-up on every CPU "
                                f"{time.monotonic() - began:.0f}/{cfg.warmup_boost_s:g}s, "
                                f"{run.warmup[-1].result.rps:,.0f} req/s")
    finally:
        group.move_cpus(group.cpus, group.limits.cpu_quota)
    run.boost = {"s": round(time.monotonic() - began, 1), "cpus": "every online CPU", "intervals": len(run.warmup)}


def _cycles(ctx: Context, inst: Instance, p: SteadyPoint, label: str, launch: int, run: PointRun, db) -> None:
    """The warm-up's cycles of load and pause, when the plan asks for them (warmup_cycles)."""
    cfg: SteadySettings = ctx.settings
    for cycle in range(1, cfg.warmup_cycles + 1):
        for _ in range(max(1, cfg.cycle_load_s // cfg.interval_s)):
            inst.check_alive()
            run.warmup.append(_interval(ctx, inst, p, "warmup", db))
        ctx.progress.update(f"{_who(ctx)} launch {launch} {label}: warm-up cycle {cycle}/{cfg.warmup_cycles}, "
                            f"{run.warmup[-1].result.rps:,.0f} req/s, pause {cfg.cycle_pause_s:g}s")
        time.sleep(cfg.cycle_pause_s)


def _warm_and_measure(ctx: Context, inst: Instance, p: SteadyPoint, label: str, launch: int, run: PointRun,
                      rule: Rule, jvm_pid: int | None, jit: jvmstat.JitWatch, db: _Boundary,
                      profiling: profile.Window) -> PointRun:
    cfg: SteadySettings = ctx.settings
    started = time.monotonic()
    _boosted(ctx, inst, p, label, launch, run, db)
    _cycles(ctx, inst, p, label, launch, run, db)
    watched_from = len(run.warmup)  # the rule judges the load after the cycles, not across their pauses
    while True:  # warm-up: until the last window is steady, or the maximum
        inst.check_alive()
        iv = _interval(ctx, inst, p, "warmup", db)
        run.warmup.append(iv)
        jit.follow(len(run.warmup), iv.t_s)
        verdict = judge([i.result.rps for i in run.warmup[watched_from:]], rule)
        compiling = jit.still_compiling(len(run.warmup)) if verdict.steady else ""
        elapsed = time.monotonic() - started
        early = elapsed < cfg.warmup_min_s
        why = f"fixed warm-up of {cfg.warmup_min_s:g} s" if early else compiling or verdict.why
        ctx.progress.update(f"{_who(ctx)} launch {launch} {label}: warm-up {elapsed:.0f}s, "
                            f"{iv.result.rps:,.0f} req/s ({why})")
        run.jit_trace = jit.trace
        if verdict.steady and not compiling and not early:
            # the level held over the last two windows: steady from the first of them, and both are
            # steady intervals, measured
            window = run.warmup[-2 * rule.window:]
            run.steady_at_s = window[0].t_s - window[0].result.duration_s
            run.why = verdict.why
            if p.measure:
                run.warmup = run.warmup[:-2 * rule.window]
                for w in window:
                    w.phase = "measure"
                run.measured = window
            break
        if elapsed >= (p.warmup_max_s or cfg.warmup_max_s):
            run.why = f"{NOT_STEADY} after {elapsed:.0f} s of warm-up: {why}"
            break
    if not p.measure:
        return run
    started = time.monotonic()
    # GC, JIT and SQL are read over the intervals after the window (reading them costs a few
    # hundred ms of the driver's CPU: not on every interval); at least half a window of them
    before, after_window = _evidence_now(ctx, jvm_pid), len(run.measured)
    profiling.start()  # over the same intervals; a failed launch's recording goes in _drive's finally
    while True:  # measurement: until the mean is as precise as asked, or the maximum
        got = precision([i.result.rps for i in run.measured])
        enough = len(run.measured) - after_window >= max(3, rule.window // 2)
        if got is not None and got.relative <= cfg.precision and len(run.measured) >= rule.window and enough:
            break
        if ctx.measure_intervals is not None and len(run.measured) >= ctx.measure_intervals and enough:
            break  # launches differ far more than intervals do: more intervals would buy little
        if time.monotonic() - started >= cfg.measure_max_s:
            break
        inst.check_alive()
        run.measured.append(_interval(ctx, inst, p, "measure", db))
        ctx.progress.update(f"{_who(ctx)} launch {launch} {label}: measuring, "
                            f"{len(run.measured)} intervals" + (f", +-{got.relative:.1%}" if got else ""))
    profiling.stop(run.measured[after_window:])
    if len(run.measured) > after_window:
        run.evidence = _evidence(before, _evidence_now(ctx, jvm_pid), run.measured[after_window:])
    _check_measurement(run, rule)
    return run


def _check_measurement(run: PointRun, rule: Rule) -> None:
    """The level must hold over the whole measurement, not only over the window that started it: a
    JVM on one CPU can hold a plateau for a window and then climb again when a late compilation
    lands, and the mean of such a measurement describes neither level. The mean of a drift lies
    half its change away from the level the measurement ended at, so a significant trend (p <
    0.05) whose half-change exceeds the precision asked of the mean makes the launch not steady,
    and it says so (its time to steady state is dropped: the rule's verdict was premature). The
    trend is the robust one of steadystate.drift: a window opened an interval early on the tail
    of a ramp is no drift. Only the trend is judged here: the intervals' spread is what the
    precision of the mean already accounts for."""
    if run.steady_at_s is None or len(run.measured) <= rule.window:
        return
    found = drift([i.result.rps for i in run.measured])
    if found is None:
        return
    if found.p < 0.05 and abs(found.change) / 2 > max(rule.max_trend, rule.precision):
        run.why = (f"{NOT_STEADY} over its measurement: the rule held {run.steady_at_s:.0f} s after launch, but "
                   f"the {len(run.measured)} measured intervals were still "
                   f"{'rising' if found.change > 0 else 'falling'} ({found.change:+.1%} across them, "
                   f"p={found.p:.3f}; their mean lies {abs(found.change) / 2:.1%} from where they ended, "
                   f"more than the {rule.precision:.0%} asked)")
        run.steady_at_s = None


def _timeline_rows(launch: int, label: str, run: PointRun) -> list[list]:
    rows = []
    for iv in run.warmup + run.measured:
        r = iv.result
        rows.append(intervals.row(launch=launch, point=label, phase=iv.phase, t_s=iv.t_s, duration_s=r.duration_s,
                                  requests=r.requests, errors=r.errors.total, mean_ms=r.latency.mean_ms,
                                  p50_ms=r.latency.percentile("50"), p90_ms=r.latency.percentile("90"),
                                  p99_ms=r.latency.percentile("99"), max_ms=r.latency.max_ms,
                                  cpu_share=iv.cpu_share))
    return rows


def _record(ctx: Context, at: Point, launch: int, run: PointRun) -> float:
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


def _record_warmup(ctx: Context, at: Point, launch: int, run: PointRun) -> None:
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


def _who(ctx: Context) -> str:
    """The app/mode a progress line is about: a round's step runs every app/mode's launch in turn."""
    return f"{ctx.app.name}/{ctx.mode}"


def launch_reason(run: PointRun) -> str:
    if run.steady_at_s is None:
        return run.why  # "not steady after N s of warm-up: ..."
    return f"steady {run.steady_at_s:.0f} s after launch: {run.why}"


def _median_of(intervals: list[Interval], pct: str) -> float | None:
    values = [v for i in intervals if (v := i.result.latency.percentile(pct)) is not None]
    return stats.median(values) if values else None


OWN, OLDEST, COMMON = "own throughput", "oldest version", "common basis"  # what an open-loop rate is a fraction of


def open_loop_rate(ctx: Context, rps: float, launch: int) -> tuple[float, dict]:
    """The rate a launch's open-loop point is offered, and what it is a fraction of. Alone, an
    app/mode is offered a fraction of the launch's own steady throughput. Of several versions of one
    app/mode, every launch of every version is offered the same rate, that fraction of the oldest
    version's throughput in its first launch that measured one (the rounds launch it first,
    rounds.orders): a faster version is not offered more, so its p99 there is judged at the same
    load. With [steady] open_loop_basis, every app/mode of the run is offered that fraction of the
    basis app/mode's throughput the same way, so their CPU per request there is at equal load.
    Until the basis has one (its first launch failed), a launch falls back to its own."""
    fraction = ctx.settings.open_loop_fraction
    own = max(1.0, round(rps * fraction))
    label = f"{ctx.app.name}/{ctx.mode}"
    basis_label = ctx.lab.open_loop_basis.get(label)
    if not basis_label:
        return own, {"rate_basis": OWN}
    kind = COMMON if ctx.settings.open_loop_basis else OLDEST
    rates = ctx.lab.open_loop_rates
    fixed = rates.get(basis_label) or _stored_rate(ctx, kind, basis_label)
    if fixed is None:
        if label != basis_label:
            whose = "every app/mode's" if kind == COMMON else "every version's"
            return own, {"rate_basis": OWN, "rate_why": f"{basis_label}, whose throughput sets {whose} rate, "
                                                        "had measured none yet"}
        fixed = {"of": basis_label, "rate": own, "rps": round(rps, 1), "launch": launch, "fraction": fraction}
        if kind == OLDEST:
            fixed["oldest"] = basis_label
    rates[basis_label] = fixed
    return fixed["rate"], {"rate_basis": kind, "basis": fixed}


def _stored_rate(ctx: Context, kind: str, basis_label: str) -> dict | None:
    """The common rate as an earlier part of this run set it (a resumed run's new Lab)."""
    for f in ctx.lab.store.figures(ctx.lab.run_id):
        if f.scenario == "steady" and f.metric == "offered_rate" and f.extra.get("rate_basis") == kind:
            basis = f.extra.get("basis") or {}
            if basis.get("of", basis.get("oldest")) == basis_label:
                return {"of": basis_label, **basis}  # a versions' basis stored before "of" named it
    return None


def _open_loop(ctx: Context, inst: Instance, p: SteadyPoint, rps: float, launch: int) -> list[list]:
    """The open-loop point of a launch; returns its timeline rows."""
    cfg: SteadySettings = ctx.settings
    rate, basis = open_loop_rate(ctx, rps, launch)
    at = point(f"{point_of(p).label} open loop {cfg.open_loop_fraction:.0%}", path=p.path,
               fraction=cfg.open_loop_fraction, method="GET", open_loop=True)
    shared = {OLDEST: "every version", COMMON: "every app/mode"}.get(basis["rate_basis"])
    ctx.progress.update(f"{_who(ctx)} launch {launch}: open loop at {rate:,.0f} req/s"
                        + (f" ({cfg.open_loop_fraction:.0%} of {basis['basis']['of']}'s throughput, as {shared})"
                           if shared else ""))
    with intervals.request_records() as folder:
        start_ns = time.monotonic_ns()
        result = ctx.load.open(inst.load_url + p.path, rate=rate, duration_s=cfg.open_loop_s,
                               connections=p.connections, requests_db=folder / "measured.db")
        end_ns = time.monotonic_ns()
        rows = intervals.oha_rows(inst, result, folder / "measured.db", launch=launch, point=at.label,
                                  interval_s=cfg.interval_s)
    flags = (["driver-bound"] if result.driver_bound else []) + (["errors"] if result.errors.total else [])
    extra = {"launch": launch, "driver_bound_reason": result.driver_bound_reason, "offered_rate": rate, **basis}
    for metric, value, unit in (("offered_rate", rate, "req/s"), ("rps", result.rps, "req/s"),
                                ("latency_p50_ms", result.latency.percentile("50"), "ms"),
                                ("latency_p99_ms", result.latency.percentile("99"), "ms"),
                                ("latency_p99.9_ms", result.latency.percentile("99.9"), "ms"),
                                ("app_cpu_ms_per_request", open_loop_cpu_ms(inst, result, start_ns, end_ns), "ms")):
        ctx.record(metric, value, unit, at=at, repeat=launch, flags=flags, extra=extra)  # None: not stored
    return rows


def open_loop_cpu_ms(inst: Instance, result: LoadResult, start_ns: int, end_ns: int) -> float | None:
    """The app's CPU per request over an open-loop run: its CPU seconds from its cgroup (else its
    processes) between the run's start and end, over the requests completed (None without both)."""
    series = inst.sampler.snapshot()
    share = series.cpu_share("cgroup_cpu_s", start_ns, end_ns) or series.cpu_share("cpu_s", start_ns, end_ns)
    if share is None or not result.requests:
        return None
    return 1000 * share * (end_ns - start_ns) / 1e9 / result.requests


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
            run = _drive(ctx, inst, p, at.label, launch)
            rows += _timeline_rows(launch, at.label, run)
            if not p.measure:
                _record_warmup(ctx, at, launch, run)
                continue
            got = _record(ctx, at, launch, run)
            if p is headline:
                first = run.measured[0] if run.measured else None
                result = LaunchResult(got, tuple(i.result.rps for i in run.measured),
                                      first.t_s - first.result.duration_s if first else 0.0,
                                      steady=run.steady_at_s is not None)
        if cfg.open_loop_fraction > 0 and headline is not None and result is not None and result.value:
            rows += _open_loop(ctx, inst, headline, result.value, launch)
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
