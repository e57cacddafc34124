"""memneeds: the memory each app really needs - steady throughput across a range of memory settings,
and the smallest one at which the app keeps >= 90 % (`keep`) of its best throughput.

JVM modes step the heap (-Xmx in `heaps_mb`, replacing any -Xmx of the plan) with the container's
memory limit scaled with it: limit = heap + `jvm_overhead_mb` (metaspace, code cache, thread stacks,
direct buffers and the JVM itself live outside the heap). Native and Go modes step the container's
limit only (`limits_mb`). Each step is a fresh launch under that limit, warmed up by the steady-state
rule (at most warmup_max_s), then measured closed loop for measure_s; per step: throughput, errors,
OOM kills counted by the cgroup, GC time per second (JVM modes, from the JVM's counters) and peak
RSS. Steps run from the largest setting down; once one cannot serve (OOM-killed, not ready), the
smaller ones are not tried (said in the outcome).
"""

from __future__ import annotations

import dataclasses
import time

from pydantic import field_validator

from perflab import jvmstat
from perflab.drivers import wrk
from perflab.errors import AppFailed
from perflab.instance import mb
from perflab.report.facts import ChartInputs
from perflab.report.tables import METRIC_LABELS, Table, by_target_table, fmt_value, label, points_in_order
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario, point
from perflab.scenarios.steady import _jvm_pid
from perflab.scenarios.warmup import WarmupSettings, until_steady
from perflab.settings import setting

STEP_METRICS = ["memory_limit_mb", "heap_mb", "rps", "rps_of_best_pct", "errors", "oom_kills", "gc_ms_per_s",
                "rss_peak_mb"]

# how the report names this scenario's own figures
METRIC_LABELS.update({"memory_needed_mb": "memory needed MB", "heap_needed_mb": "heap needed MB",
                       "memory_limit_mb": "limit MB", "heap_mb": "heap MB", "rps_of_best_pct": "% of best req/s",
                       "oom_kills": "OOM kills"})


def _largest_first(value: list[int]) -> list[int]:
    if not value or any(v < 16 for v in value):
        raise ValueError("must list at least one size, each at least 16 MB")
    return sorted(set(value), reverse=True)


class MemneedsSettings(WarmupSettings):
    path: str = setting("/fruits", "the path loaded")
    heaps_mb: list[int] = setting([512, 256, 128, 64], "JVM modes: the heap sizes (-Xmx) stepped", "MB")
    jvm_overhead_mb: int = setting(192, "JVM modes: the container limit is the heap plus this", "MB", ge=0)
    limits_mb: list[int] = setting([512, 256, 128, 64, 32], "native and Go modes: the container limits stepped", "MB")
    measure_s: int = setting(10, "each step's closed-loop measurement", "s", ge=1)
    keep: float = setting(0.90, "the memory needed keeps at least this share of the best throughput", "ratio",
                          gt=0, le=1)
    timeout_s: float = setting(180.0, "how long a launch may take to become ready", "s", gt=0)

    @field_validator("heaps_mb", "limits_mb")
    @classmethod
    def _sizes(cls, value: list[int]) -> list[int]:
        return _largest_first(value)


@dataclasses.dataclass
class StepOutcome:
    limit_mb: int
    heap_mb: int | None
    rps: float = 0.0
    failed: str = ""


def _steps(ctx: Context) -> list[tuple[int, int | None]]:
    """(container limit, heap) from the largest down."""
    cfg: MemneedsSettings = ctx.settings
    if ctx.app.modes[ctx.mode].is_jvm:
        return [(heap + cfg.jvm_overhead_mb, heap) for heap in cfg.heaps_mb]
    return [(limit, None) for limit in cfg.limits_mb]


def _at(cfg: MemneedsSettings, limit_mb: int, heap_mb: int | None):
    return point(f"{limit_mb} MB" + (f" (heap {heap_mb} MB)" if heap_mb else ""), memory_mb=limit_mb,
                 heap_mb=heap_mb, path=cfg.path, method="GET")


def _one_step(ctx: Context, limit_mb: int, heap_mb: int | None, step: int) -> StepOutcome:
    cfg: MemneedsSettings = ctx.settings
    spec = ctx.spec(memory_mb=limit_mb)
    if heap_mb is not None:
        spec = dataclasses.replace(spec, jvm_opts=[o for o in spec.jvm_opts if not o.startswith("-Xmx")]
                                   + [f"-Xmx{heap_mb}m"])
    at = _at(cfg, limit_mb, heap_mb)
    out = StepOutcome(limit_mb, heap_mb)
    flags: list[str] = [] if ctx.lab.setup.usable else ["limits-not-enforced"]
    extra: dict = {}
    figures: dict[str, tuple[float | None, str]] = {}
    inst = ctx.launch(f"mem{limit_mb}", spec)
    oom = None
    try:
        inst.wait_until_ready(cfg.timeout_s)
        warm = until_steady(ctx, inst, cfg.path, cfg, what=f"{limit_mb} MB: ", launch=step, tag=f"-{limit_mb}mb")
        flags += [] if warm.steady else ["not-steady"]
        extra["warmup"] = warm.why
        pid = _jvm_pid(inst)
        before = jvmstat.read(pid) if pid else None
        start_ns = time.monotonic_ns()
        cpus = ctx.lab.driver_cpus()
        result = wrk.run_wrk(inst.base_url + cfg.path, connections=cfg.warmup_connections,
                             threads=max(1, min(cfg.warmup_connections, len(cpus))), duration_s=cfg.measure_s,
                             cpus=cpus)
        inst.check_alive()
        out.rps = result.rps
        extra.update(requests=result.requests, errors=result.errors.__dict__)
        figures["rps"] = (result.rps, "req/s")
        figures["errors"] = (result.errors.total, "count")
        if result.requests:
            figures["latency_p99_ms"] = (result.latency.percentile(99), "ms")
        figures["rss_peak_mb"] = (mb(inst.sampler.snapshot().peak("rss_bytes", start_ns)), "MB")
        if before is not None:
            gc = jvmstat.delta(before, jvmstat.read(pid)).get("gc_ms")
            figures["gc_ms_per_s"] = (None if gc is None else gc / result.duration_s, "ms/s")
        if result.errors.total:
            flags.append("errors")
    except AppFailed as exc:
        out.failed = str(exc)
        figures["rps"] = (0.0, "req/s")
        flags.append("failed")
        extra["why"] = out.failed
    finally:
        oom = inst.cgroup.oom_kills() if inst.cgroup is not None else None
        inst.stop()
    if oom:
        flags.append("oom-killed")
    figures["oom_kills"] = (oom, "count")
    figures["memory_limit_mb"] = (limit_mb, "MB")
    figures["heap_mb"] = (heap_mb, "MB")
    for metric, (value, unit) in figures.items():
        ctx.record(metric, value, unit, at=at, flags=flags, extra=extra)
    return out


def needed(steps: list[StepOutcome], keep: float) -> StepOutcome | None:
    """The smallest setting whose throughput is at least `keep` of the best one's."""
    best = max((s.rps for s in steps), default=0.0)
    if best <= 0:
        return None
    return min((s for s in steps if s.rps >= keep * best), key=lambda s: s.limit_mb)


def run(ctx: Context) -> None:
    cfg: MemneedsSettings = ctx.settings
    done: list[StepOutcome] = []
    skipped: list[int] = []
    for limit_mb, heap_mb in _steps(ctx):
        if done and done[-1].failed:
            skipped.append(limit_mb)
            continue
        ctx.progress.update(f"{limit_mb} MB" + (f", heap {heap_mb} MB" if heap_mb else ""))
        done.append(_one_step(ctx, limit_mb, heap_mb, len(done) + 1))
    best = max((s.rps for s in done), default=0.0)
    for s in done:
        if best > 0:
            ctx.record("rps_of_best_pct", 100 * s.rps / best, "%", at=_at(cfg, s.limit_mb, s.heap_mb))
    found = needed(done, cfg.keep)
    at = point(f">= {cfg.keep:.0%} of best", keep=cfg.keep)
    flags = [] if ctx.lab.setup.usable else ["limits-not-enforced"]
    if found is not None:
        # the smallest step tried kept the throughput: the real need may be lower still
        if found is done[-1] and not found.failed:
            flags.append("lower-bound")
        ctx.record("memory_needed_mb", found.limit_mb, "MB", at=at, flags=flags, extra={"best_rps": best})
        if found.heap_mb is not None:
            ctx.record("heap_needed_mb", found.heap_mb, "MB", at=at, flags=flags)
    failures = [f"{s.limit_mb} MB: {s.failed}" for s in done if s.failed]
    note = "; ".join(failures + ([f"not tried below: {', '.join(map(str, skipped))} MB"] if skipped else []))
    ctx.outcome("ok" if found is not None else "failed", note or "every step served")


def estimate_s(e: Estimate) -> float:
    cfg: MemneedsSettings = e.settings
    steps = len(cfg.heaps_mb) if e.jvm else len(cfg.limits_mb)
    warm = cfg.warmup_max_s if e.jvm else cfg.window + 2
    return steps * (e.start_s + warm + cfg.measure_s + 2)


def tables(view: RunView) -> list[Table]:
    out = []
    head = by_target_table(view, "memneeds", "The memory each app needs: the smallest setting keeping its throughput",
                           [c for c in view.find("memneeds") if c.params.get("keep") is not None],
                           ["memory_needed_mb", "heap_needed_mb"],
                           note="container limit (JVM modes: heap + the plan's overhead); lower-bound: the "
                                "smallest setting tried still kept it")
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
                  [label(m) for m in STEP_METRICS], rows)
        t.terminal = False
        out.append(t)
    return out


def remarks(view: RunView) -> list[str]:
    cells = view.find("memneeds", "memory_needed_mb")
    if not cells:
        return []
    heaps = {c.target: c for c in view.find("memneeds", "heap_needed_mb")}
    parts = []
    for c in sorted(cells, key=lambda c: c.summary.median):
        heap = heaps.get(c.target)
        parts.append(f"{c.target} {fmt_value(c.summary.median)} MB" + (f" (heap {fmt_value(heap.summary.median)} MB)"
                                                                        if heap else "")
                     + (" or less" if "lower-bound" in c.flags else ""))
    keep = cells[0].params.get("keep", 0.9)
    return [f"memory needed to keep >= {keep:.0%} of the best throughput: {', '.join(parts)}"]


def describe(p: dict, plan: dict) -> str:
    return (f"fresh launches on {p.get('path', '?')} at each memory setting, largest first: JVM modes -Xmx "
            f"{', '.join(map(str, p.get('heaps_mb', [])))} MB with a container limit of heap + "
            f"{p.get('jvm_overhead_mb', '?')} MB; native and Go modes a limit of "
            f"{', '.join(map(str, p.get('limits_mb', [])))} MB; warm-up to steady state (at most "
            f"{p.get('warmup_max_s', '?')} s), then {p.get('measure_s', '?')} s closed loop.")


def charts(view: RunView, inputs: ChartInputs, colors: dict) -> list:
    from perflab.report import charts as plot

    cells = [c for c in view.find("memneeds", "rps") if c.params.get("memory_mb")]
    series = [plot.Series(t, colors[t], [plot._point(c, c.params["memory_mb"], c.point) for c in cells
                                         if c.target == t]) for t in colors]
    return [plot.line_chart("Throughput vs memory limit", series, plot.Axis("container memory limit MB", log=True),
                            plot.Axis("req/s", zero=True), key="memneeds-curve")]


SCENARIO = Scenario(
    name="memneeds", title="The memory each app needs: throughput across heap and container limits",
    phase=Phase.OWN_AFTER, settings=MemneedsSettings, run=run, estimate_s=estimate_s, tables=tables,
    remarks=remarks, describe=describe, charts=charts)
