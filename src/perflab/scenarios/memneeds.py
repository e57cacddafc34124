"""memneeds: the memory each app really needs - steady throughput across a range of memory settings,
and the smallest one at which the app keeps >= 90 % (`keep`) of its best throughput.

JVM modes step the heap (-Xmx in `heaps_mb`, replacing any -Xmx of the plan) with the container's
memory limit scaled with it: limit = heap + `jvm_overhead_mb` (metaspace, code cache, thread stacks,
direct buffers and the JVM itself live outside the heap). Native and Go modes step the container's
limit only (`limits_mb`). Each step is a fresh launch under that limit, warmed up by the steady-state
rule (at most warmup_max_s), then measured closed loop for measure_s in 1 s intervals (kept as the
step's timeline). Per step: throughput with its 95 % confidence interval from the intervals,
errors, OOM kills counted by the cgroup, peak RSS and, for JVM modes, GC time per second (the JVM's
counters) and the heap the JVM really applied (read back from it). Also per step: the app's CPU
(share of the plan's cpus, and per request) and the database's CPU per request. At the few
connections of the measurement a fast app may not fill its CPU: its throughput and GC cost at that
step are then understated, and the CPU share shows it. A step whose driver and database (sharing a
CPU) were nearly all busy while the app had CPU to spare is flagged load-side-bound, one whose
driver was saturated driver-bound. Steps run from the largest setting down; once one cannot serve
(OOM-killed, not ready), the smaller ones are not tried (said in the outcome).

The judgement is perflab.analysis.memory_need's: only clean steps count (served, no OOM kill, errors at most
`max_error_share` of the requests), each excluded step is named with its reason, and the figure says
when the answer lies within the steps' noise of the line. A load-side-bound step still counts (its
throughput is a lower bound); when it is the best step or the one judged needed, the figure is
flagged load-side-bound: the line may be too low.
"""

from __future__ import annotations

import dataclasses
import math
import time

from pydantic import field_validator

from perflab import jvmflags, jvmstat
from perflab.analysis import memory_need
from perflab.analysis.steadystate import precision
from perflab.drivers import wrk
from perflab.errors import AppFailed
from perflab.instance import Instance, mb
from perflab.placements import KUBERNETES
from perflab.present import charts as plot, scenario_charts
from perflab.present.chart_inputs import ChartInputs
from perflab.present.tables import METRIC_LABELS, Table, by_target_table, fmt_value, label, points_in_order
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.scenarios import intervals
from perflab.scenarios.warmup import WarmupSettings, until_steady
from perflab.settings import setting
from perflab.store import point

STEP_METRICS = ["memory_limit_mb", "heap_mb", "heap_applied_mb", "rps", "precision_pct", "rps_of_best_pct",
                "errors", "oom_kills", "app_cpu_pct", "gc_ms_per_s", "rss_peak_mb"]
# step flags that say why a step was not counted
EXCLUDING = ("failed", "oom-killed", "errors")

# how the report names this scenario's own figures
METRIC_LABELS.update({"memory_needed_mb": "memory needed MB", "heap_needed_mb": "heap needed MB",
                       "memory_limit_mb": "limit MB", "heap_mb": "heap MB", "rps_of_best_pct": "% of best req/s",
                       "oom_kills": "OOM kills", "heap_applied_mb": "heap applied MB", "app_cpu_pct": "app CPU %"})


def _largest_first(value: list[int]) -> list[int]:
    if not value or any(v < 16 for v in value):
        raise ValueError("must list at least one size, each at least 16 MB")
    return sorted(set(value), reverse=True)


class MemneedsSettings(WarmupSettings):
    path: str = setting("/fruits", "the path loaded")
    heaps_mb: list[int] = setting([512, 256, 128, 64], "JVM modes: the heap sizes (-Xmx) stepped", "MB")
    jvm_overhead_mb: int = setting(256, "JVM modes: the container limit is the heap plus this", "MB", ge=0)
    limits_mb: list[int] = setting([512, 256, 128, 64, 32], "native and Go modes: the container limits stepped", "MB")
    measure_s: int = setting(10, "each step's closed-loop measurement, in 1 s intervals (3 at least give its "
                                 "confidence interval)", "s", ge=1)
    keep: float = setting(0.90, "the memory needed keeps at least this share of the best throughput", "ratio",
                          gt=0, le=1)
    max_error_share: float = setting(0.001, "a step counts only with at most this share of its requests failed "
                                            "(5xx, timeouts, socket errors)", "ratio", ge=0, lt=1)
    timeout_s: float = setting(180.0, "how long a launch may take to become ready", "s", gt=0)

    @field_validator("heaps_mb", "limits_mb")
    @classmethod
    def _sizes(cls, value: list[int]) -> list[int]:
        return _largest_first(value)


def _steps(ctx: Context) -> list[tuple[int, int | None]]:
    """(container limit, heap) from the largest down."""
    cfg: MemneedsSettings = ctx.settings
    if ctx.app.modes[ctx.mode].is_jvm:
        return [(heap + cfg.jvm_overhead_mb, heap) for heap in cfg.heaps_mb]
    return [(limit, None) for limit in cfg.limits_mb]


def _at(cfg: MemneedsSettings, limit_mb: int, heap_mb: int | None):
    return point(f"{limit_mb} MB" + (f" (heap {heap_mb} MB)" if heap_mb else ""), memory_mb=limit_mb,
                 heap_mb=heap_mb, path=cfg.path, method="GET")


def _gc_ms_per_s(pid: int | None, before: jvmstat.JvmCounters | None, seconds: float) -> tuple[float | None, str]:
    """GC time per second between `before` (read as the measurement began) and now, or why not."""
    if pid is None or before is None:
        return None, "no java process found"
    after = jvmstat.read(pid)
    change = jvmstat.delta(before, after)
    if change["gc_ms"] is None:
        return None, jvmstat.why_missing(before, after) or "the JVM publishes no GC time"
    span_s = change["interval_ms"] / 1000 if change["interval_ms"] else seconds  # between the two readings
    return change["gc_ms"] / span_s, ""


def _load_side(ctx: Context, inst: Instance, runs: wrk.IntervalRuns, db_s: float | None,
               step: memory_need.Step) -> dict[str, tuple[float | None, str]]:
    """The app's and the database's CPU over the measurement, and whether the load side rather than
    the app set the step's throughput (on `step`)."""
    result = runs.merged
    start_ns, end_ns = runs.measured[0].start_ns, runs.measured[-1].end_ns
    share = intervals.app_cpu_share(inst, start_ns, end_ns)
    cpus = float(ctx.plan["limits"]["cpus"])  # a memory step changes the memory limit only
    # the wall span, not wrk's own durations: the CPU readings also cover each interval's start-up
    seconds = (end_ns - start_ns) / 1e9
    _, step.load_side = ctx.load_side(sum(t.result.driver_cpu_s for t in runs.measured), db_s, seconds, share)
    step.driver_bound = next((t.result.driver_bound_reason or "the driver was saturated"
                              for t in runs.measured if t.result.driver_bound), "")
    figures = {"app_cpu_pct": (None if share is None or not cpus else 100 * share / cpus, "%")}
    if result.requests:
        figures["app_cpu_ms_per_request"] = (None if share is None else 1000 * share * seconds / result.requests,
                                             "ms")
        figures["db_cpu_ms_per_request"] = (None if db_s is None else 1000 * db_s / result.requests, "ms")
    return figures


def _one_step(ctx: Context, limit_mb: int, heap_mb: int | None, step: int) -> memory_need.Step:
    cfg: MemneedsSettings = ctx.settings
    spec = ctx.spec(memory_mb=limit_mb)
    if heap_mb is not None:
        spec = dataclasses.replace(spec, jvm_opts=[o for o in spec.jvm_opts if not o.startswith("-Xmx")]
                                   + [f"-Xmx{heap_mb}m"])
    out = memory_need.Step(limit_mb, heap_mb)
    extra: dict = {}
    figures: dict[str, tuple[float | None, str]] = {}
    inst = ctx.launch(f"mem{limit_mb}", spec)
    try:
        inst.wait_until_ready(cfg.timeout_s)
        pid = None
        if heap_mb is not None:  # read back now: a JVM that will starve under load still answers promptly
            pid = jvmstat.jvm_pid(inst)
            heap, why = jvmflags.max_heap_mb(pid) if pid else (None, "no java process found")
            figures["heap_applied_mb"] = (heap, "MB")
            extra.update({"heap_applied_mb missing": why} if why else {})
        warm = until_steady(ctx, inst, cfg.path, cfg, what=f"{limit_mb} MB: ", launch=step, tag=f"-{limit_mb}mb")
        out.steady = warm.steady
        extra["warmup"] = warm.why
        before = jvmstat.read(pid) if pid else None
        db_before = ctx.lab.db_cpu_s()
        start_ns = time.monotonic_ns()
        runs = ctx.load.closed_intervals(inst.load_url + cfg.path, connections=cfg.warmup_connections,
                                         threads=ctx.load.threads_for(cfg.warmup_connections),
                                         duration_s=cfg.measure_s, interval_s=1)
        db_after = ctx.lab.db_cpu_s()
        db_s = None if None in (db_before, db_after) else db_after - db_before
        intervals.write(ctx, f"timeline-measure-{limit_mb}mb.csv",
                        intervals.wrk_rows(inst, runs, launch=step, point=f"measure {cfg.path}"))
        inst.check_alive()
        result = runs.merged
        out.rps, out.requests, out.errors = result.rps, result.requests, result.errors.total
        spread = precision([t.result.rps for t in runs.measured])
        spread = spread if spread is not None and math.isfinite(spread.relative) else None  # None: < 3 or none served
        out.half_width = None if spread is None else spread.half_width
        extra.update(requests=result.requests, errors=result.errors.__dict__,
                     interval_rps=[round(t.result.rps, 1) for t in runs.measured])
        figures["rps"] = (result.rps, "req/s")
        figures["precision_pct"] = (None if spread is None else 100 * spread.relative, "%")
        figures["errors"] = (result.errors.total, "count")
        if result.requests:
            figures["latency_p99_ms"] = (result.latency.percentile(99), "ms")
        figures.update(_load_side(ctx, inst, runs, db_s, out))
        extra.update(load_side=out.load_side, driver_bound_reason=out.driver_bound)
        out.rss_peak_mb = mb(inst.sampler.snapshot().peak("rss_bytes", start_ns))
        figures["rss_peak_mb"] = (out.rss_peak_mb, "MB")
        if heap_mb is not None:
            gc, why = _gc_ms_per_s(pid, before, result.duration_s)
            figures["gc_ms_per_s"] = (gc, "ms/s")
            extra.update({"gc_ms_per_s missing": why} if why else {})
    except AppFailed as exc:
        out.failed = str(exc)
        figures["rps"] = (0.0, "req/s")
        extra["why"] = out.failed
    finally:
        out.oom_kills = inst.cgroup.oom_kills() if inst.cgroup is not None else None
        inst.stop()
    _record_step(ctx, out, figures, extra)
    return out


def _record_step(ctx: Context, step: memory_need.Step, figures: dict[str, tuple[float | None, str]],
                 extra: dict) -> None:
    """The step's figures (with its setting and OOM kills), flagged with what went wrong and, when
    it does not count, `excluded` and why."""
    cfg: MemneedsSettings = ctx.settings
    flags = ([] if ctx.lab.setup.usable else ["limits-not-enforced"]) + ([] if step.steady else ["not-steady"]) \
        + (["errors"] if step.errors else []) + (["failed"] if step.failed else []) \
        + (["oom-killed"] if step.oom_kills else []) \
        + (["load-side-bound"] if step.load_side else []) + (["driver-bound"] if step.driver_bound else [])
    why_not = memory_need.excluded_because(step, cfg.max_error_share)
    if why_not:
        flags.append("excluded")
        extra = {**extra, "excluded": why_not}
    figures = {**figures, "oom_kills": (step.oom_kills, "count"), "memory_limit_mb": (step.limit_mb, "MB"),
               "heap_mb": (step.heap_mb, "MB")}
    at = _at(cfg, step.limit_mb, step.heap_mb)
    for metric, (value, unit) in figures.items():
        ctx.record(metric, value, unit, at=at, flags=flags, extra=extra)


def _record_judgement(ctx: Context, j: memory_need.Judgement) -> None:
    cfg: MemneedsSettings = ctx.settings
    for s in j.steps:
        if j.best is not None:
            flags = (["excluded"] if j.why_excluded(s) else []) + (["near-line"] if j.is_near(s) else [])
            ctx.record("rps_of_best_pct", 100 * s.rps / j.best.rps, "%", at=_at(cfg, s.limit_mb, s.heap_mb),
                       flags=flags, extra={"verdict": j.verdict(s)})
    if j.needed is None:
        return
    at = point(f">= {cfg.keep:.0%} of best", keep=cfg.keep)
    flags = ([] if ctx.lab.setup.usable else ["limits-not-enforced"]) + (["lower-bound"] if j.lower_bound else []) \
        + (["within-noise"] if j.within_noise else []) \
        + ([] if j.needed.steady and j.best.steady else ["not-steady"]) \
        + (["load-side-bound"] if j.capped else [])
    extra = {"best_rps": j.best.rps, "best": j.best.name, "line_rps": j.line,
             "load_side": [f"{s.name}: {s.capped}" for s in j.capped],
             "excluded": [f"{s.name}: {why}" for s, why in j.excluded],
             "near_line": [s.name for s in j.near_line], "noise_unknown": [s.name for s in j.noise_unknown]}
    ctx.record("memory_needed_mb", j.needed.limit_mb, "MB", at=at, flags=flags, extra=extra)
    if j.needed.heap_mb is not None:
        ctx.record("heap_needed_mb", j.needed.heap_mb, "MB", at=at, flags=flags, extra=extra)


def _capped_note(j: memory_need.Judgement) -> str:
    """The best or needed step whose throughput the load side capped: the line may be too low."""
    roles = [f"{s.name} ({'the best' if s is j.best else 'needed'}: {s.capped})" for s in j.capped]
    return (f"the load side capped the throughput at {', '.join(roles)}, so the {j.keep:.0%} line may be too low "
            f"(the app might need more memory to reach its real best)")


def _outcome_note(j: memory_need.Judgement, skipped: list[int]) -> str:
    parts = [f"not counted: {s.name}: {why}" for s, why in j.excluded]
    if j.within_noise:
        parts.append(f"{j.needed.name} is within the steps' noise of the {j.keep:.0%} line: another "
                     f"measurement could move it one setting up or down")
    if j.noise_unknown:
        parts.append(f"no confidence interval (fewer than 3 intervals): {', '.join(s.name for s in j.noise_unknown)}")
    if j.capped:
        parts.append(_capped_note(j))
    if skipped:
        parts.append(f"not tried below: {', '.join(map(str, skipped))} MB")
    return "; ".join(parts)


def run(ctx: Context) -> None:
    cfg: MemneedsSettings = ctx.settings
    done: list[memory_need.Step] = []
    skipped: list[int] = []
    for limit_mb, heap_mb in _steps(ctx):
        if done and done[-1].failed:
            skipped.append(limit_mb)
            continue
        ctx.progress.update(f"{limit_mb} MB" + (f", heap {heap_mb} MB" if heap_mb else ""))
        done.append(_one_step(ctx, limit_mb, heap_mb, len(done) + 1))
    j = memory_need.judge(done, cfg.keep, cfg.max_error_share)
    _record_judgement(ctx, j)
    note = _outcome_note(j, skipped)
    if j.needed is None:
        ctx.outcome("failed", "no step served cleanly" + (f"; {note}" if note else ""))
    else:
        ctx.outcome("ok", note or "every step served cleanly")


def estimate_s(e: Estimate) -> float:
    cfg: MemneedsSettings = e.settings
    steps = len(cfg.heaps_mb) if e.jvm else len(cfg.limits_mb)
    warm = cfg.warmup_max_s if e.jvm else cfg.window + 2
    # one wrk run per 1 s interval (~0.1 s each to start); JVM modes read their counters and flags (~1 s)
    return steps * (e.start_s + warm + 1.1 * cfg.measure_s + (3 if e.jvm else 2))


def tables(view: RunView) -> list[Table]:
    out = []
    head = by_target_table(view, "memneeds", "The memory each app needs: the smallest setting keeping its throughput",
                           [c for c in view.find("memneeds") if c.params.get("keep") is not None],
                           ["memory_needed_mb", "heap_needed_mb"],
                           note="container limit (JVM modes: heap + the plan's overhead), judged on clean steps "
                                "only (excluded: the app failed, was OOM-killed or had errors); lower-bound: the "
                                "smallest setting tried still kept it; within-noise: that setting or the next "
                                "smaller one lies within its noise of the line; load-side-bound: the load side "
                                "capped the best or the needed step's throughput, so the line may be too low")
    if head:
        out.append(head)
    steps = [c for c in view.find("memneeds") if c.params.get("memory_mb") is not None]
    for target in dict.fromkeys(c.target for c in steps):
        mine = [c for c in steps if c.target == target]
        rows = []
        for lbl in sorted(points_in_order(mine), key=lambda p: -next(c.params["memory_mb"] for c in mine
                                                                         if c.point == p)):
            by_metric = {c.metric: c for c in mine if c.point == lbl}
            rows.append((lbl, [by_metric.get(m) for m in STEP_METRICS]))
        t = Table(f"memneeds-{target}", f"{target}: throughput by memory setting", "memory",
                  [label(m) for m in STEP_METRICS], rows,
                  note="CI +-%: the 95 % confidence interval of the step's throughput from its 1 s intervals; "
                       "near-line: within that noise of the line; excluded: not counted (failed, oom-killed or "
                       "errors beyond the plan's max_error_share); app CPU %: the app's CPU over the measurement, "
                       "as a share of the plan's cpus; load-side-bound: the driver and the database (sharing a "
                       "CPU) were nearly all busy while the app had CPU to spare, so the step's throughput is a "
                       "lower bound")
        t.terminal = False
        out.append(t)
    return out


def _not_counted(view: RunView, target: str) -> list[str]:
    """The target's excluded steps with the flags that excluded them."""
    cells = [c for c in view.find("memneeds", "rps") if c.target == target and "excluded" in c.flags]
    return [f"{c.point} ({', '.join(f for f in EXCLUDING if f in c.flags) or 'excluded'})"
            for c in sorted(cells, key=lambda c: -c.params["memory_mb"])]


def remarks(view: RunView) -> list[str]:
    cells = view.find("memneeds", "memory_needed_mb")
    failed = [f"  {o['app']}/{o['mode']}: {o['reason']}" for o in view.outcomes
              if o["scenario"] == "memneeds" and o["status"] == "failed"]
    if not cells and not failed:
        return []
    heaps = {c.target: c for c in view.find("memneeds", "heap_needed_mb")}
    parts = []
    for c in sorted(cells, key=lambda c: c.summary.median):
        heap = heaps.get(c.target)
        notes = [f"heap {fmt_value(heap.summary.median)} MB"] if heap else []
        notes += ["within noise of the line"] if "within-noise" in c.flags else []
        notes += ["not steady"] if "not-steady" in c.flags else []
        notes += ["the load side capped the throughput at the best or the needed step, so the line may be too "
                  "low"] if "load-side-bound" in c.flags else []
        parts.append(f"{c.target} {fmt_value(c.summary.median)} MB" + (" or less" if "lower-bound" in c.flags else "")
                     + (f" ({', '.join(notes)})" if notes else ""))
    keep = cells[0].params.get("keep", 0.9) if cells else 0.9
    lines = [f"memory needed to keep >= {keep:.0%} of the best clean throughput: {', '.join(parts) or 'none'}"]
    for target in dict.fromkeys(c.target for c in view.find("memneeds", "rps")):
        excluded = _not_counted(view, target)
        if excluded:
            lines.append(f"  {target} not counted: {', '.join(excluded)}")
    return lines + failed


def describe(p: dict, plan: dict) -> str:
    return (f"fresh launches on {p.get('path', '?')} at each memory setting, largest first: JVM modes -Xmx "
            f"{', '.join(map(str, p.get('heaps_mb', [])))} MB with a container limit of heap + "
            f"{p.get('jvm_overhead_mb', '?')} MB; native and Go modes a limit of "
            f"{', '.join(map(str, p.get('limits_mb', [])))} MB; warm-up to steady state (at most "
            f"{p.get('warmup_max_s', '?')} s), then {p.get('measure_s', '?')} s closed loop in 1 s intervals. "
            f"Only steps served without OOM kill or errors (at most {p.get('max_error_share', 0.001):.1%} of "
            f"requests) count. Per step the app's CPU share: at few connections a fast app may not fill its "
            f"CPU, understating its throughput and GC cost there; a step whose driver and database set the "
            f"pace is flagged load-side-bound (still counted, as a lower bound).")


def charts(view: RunView, inputs: ChartInputs, colors: dict) -> list:
    cells = [c for c in view.find("memneeds", "rps") if c.params.get("memory_mb")]
    ci = {(c.target, c.point): c.summary.median for c in view.find("memneeds", "precision_pct")}
    keep = {c.target: c.params.get("keep", 0.9) for c in view.find("memneeds", "memory_needed_mb")}
    series = []
    for t in colors:
        mine = [c for c in cells if c.target == t]
        points = []
        for c in mine:
            p = scenario_charts.cell_point(c, c.params["memory_mb"], c.point)
            half = ci.get((t, c.point))
            if half is not None:  # the step's own noise rather than the (single) repeat's min..max
                p = dataclasses.replace(p, low=p.y * (1 - half / 100), high=p.y * (1 + half / 100))
            points.append(p)
        series.append(plot.Series(t, colors[t], points, group=t))
        clean = [c.summary.median for c in mine if "excluded" not in c.flags]
        if t in keep and clean and mine:
            xs = [c.params["memory_mb"] for c in mine]
            line = keep[t] * max(clean)
            series.append(plot.Series(f"{t} {keep[t]:.0%} of best", colors[t],
                                      [plot.Point(min(xs), line), plot.Point(max(xs), line)], dash="dash",
                                      markers=False, group=t))
    chart = plot.line_chart("Throughput vs memory limit (bars: 95 % CI of each step; dashed: the line to keep)",
                            series, plot.Axis("container memory limit MB", log=True), plot.Axis("req/s", zero=True),
                            key="memneeds-curve")
    return [chart] if chart else []


SCENARIO = Scenario(
    name="memneeds", title="The memory each app needs: throughput across heap and container limits",
    phase=Phase.OWN_AFTER, settings=MemneedsSettings, run=run, estimate_s=estimate_s, tables=tables,
    remarks=remarks, describe=describe, charts=charts,
    not_on=((KUBERNETES, "it steps the app's memory limit and reads the JVM's counters in the app's process on "
                        "this machine"),))
