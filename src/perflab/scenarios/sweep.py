"""sweep: closed-loop throughput and latency against the number of connections (RT-2019's 1..40 on
/fruits, LAB-2020's 8..56 on /todos). Each series is warmed up once at its highest connection count
(recorded), then the points are measured round-robin, repeat by repeat, so a slow drift (JIT,
GC, the machine) spreads over all points instead of biasing the last ones.

Its result, handed to later scenarios (latency, density): the highest median req/s measured on
each path, with the point it came from."""

from __future__ import annotations

import re
from dataclasses import dataclass

from perflab.analysis import stats
from perflab.drivers import wrk
from perflab.errors import AppFailed
from perflab.present import scenario_charts, timeline_charts
from perflab.present.chart_inputs import ChartInputs
from perflab.present.tables import Table, by_point_table, ordered_targets, percentile_table, sweep_series
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.scenarios import intervals, loadpoint
from perflab.settings import Settings, setting
from perflab.store import point
from pydantic import field_validator


class Series(Settings):
    name: str = setting(..., "the series' name (a table and chart each)")
    path: str = setting(..., "the path loaded")
    connections: list[int] = setting(..., "connection counts, one point each", "connections")

    @field_validator("connections")
    @classmethod
    def _positive(cls, value: list[int]) -> list[int]:
        if not value or any(c < 1 for c in value):
            raise ValueError("must be a list of positive integers")
        return value


class SweepSettings(Settings):
    series: list[Series] = setting([Series(name="fruits", path="/fruits", connections=[1, 5, 10, 20, 40])],
                                   "the curves measured")
    duration_s: float = setting(10.0, "each point's measurement", "s", ge=1)
    warmup_s: float = setting(10.0, "load at the series' highest connection count before its points", "s", ge=0)
    threads: int = setting(0, "wrk threads (0: one per driver CPU, at most one per connection)", ge=0)
    timeout_s: float = setting(2.0, "a request slower than this counts as a time-out", "s", gt=0)
    interval_s: int = setting(1, "each point measured as consecutive wrk runs this long, for the timeline (each "
                                 "interval's throughput, latency and the app's CPU); 0: one run per point, no "
                                 "timeline", "s", ge=0)


@dataclass
class MaxThroughput:
    rps: float
    source: str  # the point it was measured at


def run(ctx: Context) -> dict[str, MaxThroughput]:
    """Every series; returns the highest median req/s per path (driver-bound points left out)."""
    best: dict[str, MaxThroughput] = {}
    timeline: list[list] = []
    try:
        for series in ctx.settings.series:
            try:
                by_point = _series(ctx, series, timeline)
            except (RuntimeError, OSError, ValueError) as exc:
                ctx.outcome("failed", ctx.inst.end_reason() or str(exc), part=series.name)
                if ctx.inst.exited() is not None:
                    raise AppFailed(ctx.inst.end_reason()) from exc
                continue
            ctx.outcome("ok", part=series.name)
            for label, values in by_point.items():
                top = stats.median(values)
                if series.path not in best or top > best[series.path].rps:
                    best[series.path] = MaxThroughput(top, f"sweep {label}")
    finally:  # one timeline per series (its warm-up and every point in time order), kept on failure
        intervals.write(ctx, "timeline.csv", timeline)
    return best


def reuse(ctx: Context) -> dict[str, MaxThroughput]:
    """A resumed run whose sweep ended before: its result again, from the figures it stored (the
    points that were not driver-bound), for the scenarios that read it."""
    rps: dict[str, list[float]] = {}
    paths: dict[str, str] = {}
    for f in ctx.lab.store.figures(ctx.lab.run_id):
        if (f.app, f.mode, f.scenario, f.metric) == (ctx.app.name, ctx.mode, "sweep", "rps") \
                and "driver-bound" not in f.flags:
            rps.setdefault(f.point, []).append(f.value)
            paths[f.point] = f.params.get("path", "")
    best: dict[str, MaxThroughput] = {}
    for label, values in rps.items():
        top = stats.median(values)
        if paths[label] not in best or top > best[paths[label]].rps:
            best[paths[label]] = MaxThroughput(top, f"sweep {label}")
    return best


def _series(ctx: Context, series: Series, timeline: list[list]) -> dict[str, list[float]]:
    cfg: SweepSettings = ctx.settings
    inst = ctx.inst
    url = inst.load_url + series.path
    if cfg.warmup_s >= 1:
        top = max(series.connections)
        ctx.progress.update(f"{series.name} warm-up {cfg.warmup_s:.0f}s")
        shape = dict(connections=top, threads=ctx.load.threads_for(top), duration_s=int(cfg.warmup_s),
                     timeout_s=cfg.timeout_s)
        if cfg.interval_s:
            warm = ctx.load.closed_intervals(url, interval_s=cfg.interval_s, **shape)
            timeline += intervals.wrk_rows(inst, wrk.IntervalRuns(warmup=warm.measured, measured=[]), launch=1,
                                           point=series.name)
        else:
            ctx.load.closed(url, **shape)
    rps: dict[str, list[float]] = {}
    for r in range(ctx.repeats):
        for conns in series.connections:
            if inst.exited() is not None:
                raise RuntimeError(f"the app ended during the sweep: {inst.end_reason()}")
            ctx.progress.update(f"{series.name} c={conns} r{r + 1}/{ctx.repeats}")
            threads = cfg.threads or ctx.load.threads_for(conns)
            at = point(f"{series.name} c={conns}", series=series.name, path=series.path, connections=conns,
                       method="GET")
            window = loadpoint.open_window(ctx.lab)
            result = loadpoint.run_closed(ctx, at, timeline, url=url, connections=conns, threads=min(threads, conns),
                                          duration_s=cfg.duration_s, interval_s=cfg.interval_s,
                                          timeout_s=cfg.timeout_s, timeline_point=series.name)
            if "driver-bound" not in loadpoint.record(ctx, at, r, result, window):
                rps.setdefault(at.label, []).append(result.rps)
    return rps


def estimate_s(e: Estimate) -> float:
    cfg: SweepSettings = e.settings
    return sum(cfg.warmup_s + e.repeats * len(s.connections) * (cfg.duration_s + 0.5) for s in cfg.series)


_SHOWN = (("rps", "throughput, req/s", True), ("latency_mean_ms", "mean latency, ms", True),
          ("latency_max_ms", "max latency, ms", False), ("latency_p99_ms", "p99 latency, ms", True),
          ("errors", "errors (non-2xx, timeouts, socket errors)", False), ("rss_peak_mb", "peak RSS, MB", False),
          ("app_cpu_share", "app CPUs busy (1.0 = one CPU)", False),
          ("driver_cpu_util", "load driver CPU utilisation", False))


def _connections(cell) -> str:
    return str(cell.params.get("connections", cell.point))


def tables(view: RunView) -> list[Table]:
    out = []
    for s in sweep_series(view):
        name = s["name"]
        cells = [c for c in view.find("sweep") if c.params.get("series") == name]
        if not cells:
            continue
        head = f"{name} (GET {s.get('path', '')})"
        for metric, what, terminal in _SHOWN:
            t = by_point_table(view, f"sweep-{name}-{metric}", f"{head}: {what}",
                               [c for c in cells if c.metric == metric], "connections", _connections)
            if t:
                t.terminal = terminal
                out.append(t)
        for target in ordered_targets(view, cells):
            t = percentile_table(f"sweep-{name}-pct-{target}", f"{head}: latency percentiles of {target}",
                                 [c for c in cells if c.target == target], "connections", _connections)
            if t:
                out.append(t)
    return out


def legacy_params(label: str) -> dict:
    found = re.fullmatch(r"(.+) c=(\d+)", label)
    return {"series": found.group(1), "connections": int(found.group(2)), "method": "GET"} if found else {}



def describe(p: dict, plan: dict) -> str:
    return (f"closed loop (wrk), {p.get('duration_s', '?')} s per point after a {p.get('warmup_s', '?')} s warm-up "
            f"per series; points measured round-robin, {plan.get('repeats', '?')} repeats.")


def charts(view: RunView, inputs: ChartInputs, colors: dict) -> list:
    return scenario_charts.sweep_charts(view, colors) + timeline_charts.over_time_charts(view, inputs, colors, "sweep")

SCENARIO = Scenario(
    name="sweep", title="Throughput and latency vs connections (closed loop)", phase=Phase.ON_LOAD,
    sends_load=True,
    settings=SweepSettings, run=run, estimate_s=estimate_s, tables=tables, legacy_params=legacy_params,
    describe=describe, charts=charts, reuse=reuse)
