"""steady's warm-up and measurement of one point on a launch: interval after interval until the
steady-state rule holds (or the warm-up's maximum), then until the mean is as precise as asked; with
the readings taken at each interval's end (the database's CPU, the app's contention), the JIT's
state, the warm-up's boost and cycles, and the canary following the launch when asked."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from perflab import dbstats, jvmstat
from perflab.analysis.steadystate import Rule, drift, judge, precision
from perflab.drivers.base import LoadResult
from perflab.errors import LabError
from perflab.instance import Instance
from perflab.probes import canary
from perflab.probes.contention import NOT_LOCAL, Reading, absent, probe_of
from perflab.profiles import recording as profile
from perflab.scenario import Context
from perflab.scenarios.steady_report import NOT_STEADY
from perflab.scenarios.steady_settings import SteadyPoint, SteadySettings


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


def drive(ctx: Context, inst: Instance, p: SteadyPoint, label: str, launch: int) -> PointRun:
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
            ctx.progress.update(f"{who(ctx)} launch {launch} {label}: warm-up on every CPU "
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
        ctx.progress.update(f"{who(ctx)} launch {launch} {label}: warm-up cycle {cycle}/{cfg.warmup_cycles}, "
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
        ctx.progress.update(f"{who(ctx)} launch {launch} {label}: warm-up {elapsed:.0f}s, "
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
    profiling.start()  # over the same intervals; a failed launch's recording goes in drive's finally
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
        ctx.progress.update(f"{who(ctx)} launch {launch} {label}: measuring, "
                            f"{len(run.measured)} intervals" + (f", +-{got.relative:.1%}" if got else ""))
    profiling.stop(run.measured[after_window:])
    if len(run.measured) > after_window:
        run.evidence = _evidence(before, _evidence_now(ctx, jvm_pid), run.measured[after_window:])
    check_measurement(run, rule)
    return run


def check_measurement(run: PointRun, rule: Rule) -> None:
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


def who(ctx: Context) -> str:
    """The app/mode a progress line is about: a round's step runs every app/mode's launch in turn."""
    return f"{ctx.app.name}/{ctx.mode}"
