"""soak: a long run (RT-2019: native for >3 h, 51.89 M requests, "stable"), closed loop (wrk with
soak.connections) or at a fixed rate (the open-loop driver at soak.rate req/s when rate > 0).

The run is cut into consecutive driver runs of soak.interval_s, so each interval has its own
requests, errors and latency percentiles, and each is stored the moment it finishes: stopping
early (Ctrl-C) keeps every finished interval and records the soak as interrupted.

RSS is sampled throughout (the samples are stored as CSV) and judged for drift: the
least-squares slope of the intervals' mean RSS per hour with its 95 % interval (drift.py); the
first interval (JIT, heap sizing) is left out of the fit when there are at least 4. JVM modes are
launched with a GC log (-Xlog:gc) whose collections and pauses are counted per interval and in
total.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import time
from dataclasses import dataclass

from pydantic import model_validator

from perflab import apps, probes, signals
from perflab.drivers import oha
from perflab.drivers.base import LoadResult
from perflab.errors import AppFailed, LabError
from perflab.instance import Instance, mb
from perflab.placements import KUBERNETES
from perflab.present import rss_charts, scenario_charts
from perflab.present.chart_inputs import ChartInputs
from perflab.present.tables import Table, by_target_table
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.scenarios import drift, gclog, loadpoint
from perflab.settings import Settings, setting
from perflab.store import NO_POINT, point

PERCENTILES = ("50", "90", "99", "99.9")
MAX_SAMPLES = 20_000  # RSS samples over the whole soak, at most (and at least 1 a second)


INTERVAL = point("interval", interval=True)


class SoakSettings(Settings):
    duration_s: float = setting(120.0, "the whole soak", "s", gt=0)
    path: str = setting("/fruits", "the path loaded")
    connections: int = setting(10, "connections (closed loop; the open-loop driver's at most)", "connections", ge=1)
    rate: float = setting(0.0, "a fixed offered rate (0: closed loop)", "req/s", ge=0)
    interval_s: float = setting(10.0, "each interval's measurement (its own figures)", "s", gt=0)
    timeout_s: float = setting(180.0, "how long the launch may take to become ready", "s", gt=0)

    @model_validator(mode="after")
    def _interval_fits(self):
        if self.interval_s > self.duration_s:
            raise ValueError("soak.interval_s must be at most soak.duration_s")
        return self


def is_jvm_mode(app: apps.App, mode: str) -> bool:
    return "{jvm_opts}" in app.mode(mode).command


def interval_plan(duration_s: float, interval_s: float, whole_seconds: bool) -> tuple[int, float]:
    """(number of intervals, length of each): as many whole intervals as fit the duration."""
    length = max(1.0, float(round(interval_s))) if whole_seconds else max(0.1, interval_s)
    return max(1, int(duration_s / length + 1e-9)), length


@dataclass
class Interval:
    index: int
    t_start_s: float     # from the start of the soak
    t_end_s: float
    result: LoadResult
    rss_mean_mb: float | None
    gc: gclog.GcSummary | None


def _driver(ctx: Context):
    """A function (url, seconds) -> LoadResult, and a description of the load."""
    cfg: SoakSettings = ctx.settings
    load = ctx.load
    if cfg.rate > 0:
        def fixed_rate(url: str, seconds: float) -> LoadResult:
            return load.open(url, rate=cfg.rate, duration_s=seconds, connections=cfg.connections)
        return fixed_rate, f"open loop at {cfg.rate:g} req/s (oha, {cfg.connections} connections at most)"
    conns = cfg.connections
    threads = load.threads_for(conns)

    def closed_loop(url: str, seconds: float) -> LoadResult:
        return load.closed(url, connections=conns, threads=threads, duration_s=int(seconds))
    return closed_loop, f"closed loop, wrk -c{conns} -t{threads}"


def _record_interval(ctx: Context, inst: Instance, iv: Interval, start_ns: int, end_ns: int, driver: str) -> None:
    r = iv.result
    series = inst.sampler.snapshot()
    flags = loadpoint.flags_of(r)
    extra = {"t_start_s": round(iv.t_start_s, 3), "t_end_s": round(iv.t_end_s, 3), "driver": driver,
             "connections": r.connections, "offered_rate": r.offered_rate, "duration_s": r.duration_s,
             "errors": r.errors.__dict__, "driver_bound_reason": r.driver_bound_reason}
    put = lambda metric, value, unit: ctx.record(metric, value, unit, at=INTERVAL,  # noqa: E731
                                                 repeat=iv.index, flags=flags, extra=extra)
    put("rps", r.rps, "req/s")
    put("requests", r.requests, "count")
    put("errors", r.errors.total, "count")
    put("latency_mean_ms", r.latency.mean_ms, "ms")
    for p in PERCENTILES:
        put(f"latency_p{p}_ms", r.latency.percentile(p), "ms")
    put("latency_max_ms", r.latency.max_ms, "ms")
    put("driver_cpu_util", r.driver_cpu_utilisation, "ratio")
    if r.offered_rate:
        put("offered_rate", r.offered_rate, "req/s")
    put("rss_mb", iv.rss_mean_mb, "MB")
    put("rss_peak_mb", mb(series.peak("rss_bytes", start_ns, end_ns)), "MB")
    put("cgroup_memory_mb", mb(series.mean("cgroup_memory_bytes", start_ns, end_ns)), "MB")
    cpu = series.cpu_share("cgroup_cpu_s", start_ns, end_ns) or series.cpu_share("cpu_s", start_ns, end_ns)
    put("app_cpu_share", cpu, "cpus")
    if iv.gc is not None:
        put("gc_collections", iv.gc.collections, "count")
        put("gc_pause_ms", iv.gc.pause_total_ms, "ms")


def rss_drift(intervals: list[Interval]) -> drift.Drift:
    """Drift of the intervals' mean RSS; the first interval (warm-up) is left out when >= 4."""
    points = [(iv.t_start_s + iv.t_end_s) / 2 for iv in intervals], [iv.rss_mean_mb for iv in intervals]
    pairs = [(t, v) for t, v in zip(*points) if v is not None]
    if len(pairs) >= 4:
        pairs = pairs[1:]
    return drift.fit([t for t, _ in pairs], [v for _, v in pairs])


def _samples_csv(series: probes.SampleSeries, origin_ns: int) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["t_s", *probes.SAMPLE_FIELDS])
    writer.writeheader()
    writer.writerows(series.rows(origin_ns))
    return out.getvalue()


def _finish(ctx: Context, inst: Instance, series: probes.SampleSeries | None, intervals: list[Interval],
            soak_start_ns: int, status: str, reason: str, startup_gc: gclog.GcSummary | None,
            gc_path, outputs: list[str], planned: int) -> None:
    """Totals, drift, GC totals and the raw files; the outcome."""
    if series is not None:
        ctx.add_file("samples", "samples.csv", _samples_csv(series, inst.spawn_ns))
    if gc_path is not None and gc_path.exists():
        ctx.add_file("gc-log", "gc.log", gc_path.read_bytes())
    if outputs:
        ctx.add_file("driver-output", "intervals.txt", "\n".join(outputs))
    flags = {"ok": [], "interrupted": ["interrupted"], "failed": ["crashed"]}.get(status, [status])
    verdict_text = "no interval finished"
    if intervals:
        d = rss_drift(intervals)
        requests = sum(iv.result.requests for iv in intervals)
        errors = sum(iv.result.errors.total for iv in intervals)
        measured_s = sum(iv.result.duration_s for iv in intervals)
        extra = {"intervals": len(intervals), "planned_intervals": planned, "status": status,
                 "sample_hz": inst.spec.sample_hz,
                 "soak_start_s": round((soak_start_ns - inst.spawn_ns) / 1e9, 3),
                 "wall_s": round(intervals[-1].t_end_s, 3), "drift": d.to_dict()}
        total_flags = flags + (["errors"] if errors else [])

        def put(metric: str, value: float | None, unit: str, fl: list[str] = total_flags) -> None:
            ctx.record(metric, value, unit, at=NO_POINT, flags=fl, extra=extra)

        put("requests", requests, "count")
        put("errors", errors, "count")
        put("rps", requests / measured_s if measured_s > 0 else 0.0, "req/s")
        put("duration_s", intervals[-1].t_end_s, "s")
        put("intervals", len(intervals), "count")
        put("latency_max_ms", max((iv.result.latency.max_ms or 0.0) for iv in intervals), "ms")
        put("latency_p99_worst_ms", max((iv.result.latency.percentile("99") or 0.0) for iv in intervals), "ms")
        rss = [iv.rss_mean_mb for iv in intervals if iv.rss_mean_mb is not None]
        if rss:
            put("rss_first_interval_mb", rss[0], "MB")
            put("rss_last_interval_mb", rss[-1], "MB")
        put("rss_drift_mb_per_h", d.slope_per_h, "MB/h", total_flags + [f"drift-{d.verdict}"])
        verdict_text = (f"RSS {d.verdict}" + (f" ({d.slope_per_h:+.1f} MB/h, 95% CI [{d.ci_low_per_h:+.1f}, "
                                               f"{d.ci_high_per_h:+.1f}])" if d.slope_per_h is not None else "")
                        + f": {d.reason}")
        gcs = [iv.gc for iv in intervals if iv.gc is not None]
        if gcs:
            gc_extra = {**extra, "collector": gcs[0].collector,
                        "startup": startup_gc.to_dict() if startup_gc else None}
            for metric, value, unit in (
                    ("gc_collections", sum(g.collections for g in gcs), "count"),
                    ("gc_pauses", sum(g.pauses for g in gcs), "count"),
                    ("gc_pause_total_ms", sum(g.pause_total_ms for g in gcs), "ms"),
                    ("gc_pause_max_ms", max(g.pause_max_ms for g in gcs), "ms"),
                    ("gc_full_pauses", sum(g.full_pauses for g in gcs), "count")):
                ctx.record(metric, value, unit, at=NO_POINT, flags=flags, extra=gc_extra)
    text = f"{len(intervals)} of {planned} intervals; {verdict_text}"
    ctx.outcome(status, f"{reason}; {text}" if reason else text)


def run(ctx: Context) -> None:
    cfg: SoakSettings = ctx.settings
    lab, app, mode = ctx.lab, ctx.app, ctx.mode
    drive, driver_text = _driver(ctx)
    count, length = interval_plan(cfg.duration_s, cfg.interval_s, whole_seconds=cfg.rate <= 0)
    spec = ctx.spec()
    # a few samples a second are plenty for drift; hours at the plan's rate would be a huge CSV
    spec = dataclasses.replace(spec, sample_hz=min(spec.sample_hz, max(1.0, MAX_SAMPLES / cfg.duration_s)))
    gc_path = None
    if is_jvm_mode(app, mode):
        gc_path = lab.log_dir / f"{app.name}-{mode}-soak-gc.log"
        gc_path.parent.mkdir(parents=True, exist_ok=True)
        gc_path.unlink(missing_ok=True)
        spec = dataclasses.replace(spec, jvm_opts=[*spec.jvm_opts, gclog.jvm_gc_log_option(gc_path)])
    inst = ctx.instance("soak", spec)
    intervals: list[Interval] = []
    outputs: list[str] = []
    status, reason = "ok", ""
    soak_start_ns: int | None = None
    startup_gc = None
    try:
        try:
            inst.start()
        except LabError as exc:
            raise AppFailed(f"soak: {exc}") from exc
        try:
            inst.wait_until_ready(cfg.timeout_s)
        except AppFailed as exc:
            raise AppFailed(f"soak: {exc}") from exc
        follower = gclog.GcLogFollower(gc_path) if gc_path is not None else None
        startup_gc = follower.read_new() if follower else None
        url = inst.load_url + cfg.path
        soak_start_ns = time.monotonic_ns()
        for i in range(count):
            if inst.exited() is not None:
                status, reason = "failed", f"the app ended during the soak: {inst.end_reason()}"
                break
            elapsed = (time.monotonic_ns() - soak_start_ns) / 1e9
            ctx.progress.update(f"interval {i + 1}/{count} ({elapsed:.0f}/{count * length:.0f} s, {driver_text})")
            start_ns = time.monotonic_ns()
            try:
                result = drive(url, length)
            except (RuntimeError, OSError, ValueError) as exc:  # incl. a driver that cannot be installed
                status, reason = "failed", f"interval {i + 1}: {inst.end_reason() or exc}"
                break
            end_ns = time.monotonic_ns()
            snapshot = inst.sampler.snapshot()
            iv = Interval(i, (start_ns - soak_start_ns) / 1e9, (end_ns - soak_start_ns) / 1e9, result,
                          mb(snapshot.mean("rss_bytes", start_ns, end_ns)), follower.read_new() if follower else None)
            intervals.append(iv)
            outputs.append(f"=== interval {i} t={iv.t_start_s:.3f}-{iv.t_end_s:.3f} s\n{result.raw_output}")
            _record_interval(ctx, inst, iv, start_ns, end_ns, driver_text)
        else:
            if inst.exited() is not None:
                status, reason = "failed", f"the app ended during the soak: {inst.end_reason()}"
    except KeyboardInterrupt:
        status, reason = "interrupted", "stopped early (interrupted)"
        raise
    except Exception as exc:
        status, reason = "failed", f"the soak stopped: {exc}"
        raise
    finally:
        with signals.shielded():
            series = inst.stop()
            if soak_start_ns is not None:
                try:
                    _finish(ctx, inst, series, intervals, soak_start_ns, status, reason, startup_gc, gc_path,
                            outputs, count)
                except Exception as exc:  # noqa: BLE001 - the finished intervals are stored already
                    lab.warn(f"{app.name}/{mode} soak: could not store its totals: {exc}")


def ensure_driver(settings: SoakSettings, say) -> None:
    if settings.rate > 0:
        oha.ensure_oha(log=say)  # a fixed-rate soak needs the open-loop driver, built before any launch


def tables(view: RunView) -> list[Table]:
    totals = by_target_table(view, "soak-totals", "The whole soak", view.find("soak", point=""),
                             ["requests", "errors", "rps", "rss_drift_mb_per_h", "gc_collections", "gc_pause_total_ms",
                              "latency_p99_worst_ms"])
    return [totals] if totals else []



def charts(view: RunView, inputs: ChartInputs, colors: dict) -> list:
    return [rss_charts.rss_chart(inputs.samples, colors, "RSS over the soak", key="rss-soak"),
            *scenario_charts.interval_charts(view, "soak", colors)]

SCENARIO = Scenario(
    name="soak", title="Soak: a long run", phase=Phase.OWN_AFTER, settings=SoakSettings, run=run,
    estimate_s=lambda e: e.start_s + e.settings.duration_s + 3.0, tables=tables, setup=ensure_driver,
    legacy_params=lambda label: {"interval": True} if label == "interval" else {}, charts=charts,
    not_on=((KUBERNETES, "a soak's drift readings sample the app's process and its GC log on this machine"),))
