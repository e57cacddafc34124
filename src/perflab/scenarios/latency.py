"""latency: open loop at fixed rates, set as fractions of the measured maximum throughput, with
coordinated-omission-free percentiles (a request's latency counts from when it was due, not from
when the driver got round to sending it). A point whose rate the driver could not hold is flagged
driver-bound, not reported as the app's latency.

The maximum comes from the sweep of the same run when it measured the path (handed over by the
runner), else from a short closed-loop probe."""

from __future__ import annotations

import re

from perflab.drivers import oha
from perflab.instance import Instance
from perflab.present import scenario_charts, timeline_charts
from perflab.present.chart_inputs import ChartInputs
from perflab.present.tables import PERCENTILES, Table, by_target_table, label, ordered_targets, points_in_order
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.scenarios import intervals, loadpoint
from perflab.scenarios.sweep import MaxThroughput
from perflab.settings import Settings, setting
from perflab.store import NO_POINT, point
from pydantic import field_validator


class LatencySettings(Settings):
    path: str = setting("/fruits", "the path loaded")
    fractions: list[float] = setting([0.25, 0.5, 0.75], "offered rates as fractions of the measured maximum")
    duration_s: float = setting(10.0, "each point's measurement", "s", ge=1)
    connections: int = setting(20, "the open-loop driver's connections at most", "connections", ge=1)
    warmup_s: float = setting(5.0, "load before the first point (not measured)", "s", ge=0)
    interval_s: float = setting(1.0, "the timeline's interval: throughput and latency of each, from every request", "s",
                                gt=0)

    @field_validator("fractions")
    @classmethod
    def _fractions(cls, value: list[float]) -> list[float]:
        if not value or not all(0 < f <= 1.5 for f in value):
            raise ValueError("must be numbers in (0, 1.5] (fractions of the measured max req/s)")
        return value


def max_rps(ctx: Context, inst: Instance, path: str, probe_connections: int, probe_warmup_s: float) -> MaxThroughput:
    """The sweep's highest median req/s on `path` in this run, else a short closed-loop probe."""
    measured = (ctx.results.get("sweep") or {}).get(path)
    if measured is not None:
        return measured
    probe = ctx.load.closed(inst.load_url + path, connections=probe_connections,
                            threads=ctx.load.threads_for(probe_connections), duration_s=5,
                            warmup_s=int(probe_warmup_s))
    return MaxThroughput(probe.rps, f"closed-loop probe c={probe_connections}")


def run(ctx: Context) -> None:
    cfg: LatencySettings = ctx.settings
    inst = ctx.inst
    top = max_rps(ctx, inst, cfg.path, cfg.connections, cfg.warmup_s)
    if top.rps <= 0:
        ctx.outcome("failed", "no throughput measured to derive rates from")
        return
    ctx.record("max_rps_reference", top.rps, "req/s", at=NO_POINT, extra={"source": top.source})
    rows: list[list] = []
    try:
        for r in range(ctx.repeats):
            for i, fraction in enumerate(cfg.fractions):
                rate = max(1.0, round(top.rps * fraction))
                ctx.progress.update(f"{fraction:.0%} of max = {rate:.0f} req/s r{r + 1}/{ctx.repeats}")
                at = point(f"{fraction:.0%} of max", path=cfg.path, fraction=fraction, method="GET")
                warm = cfg.warmup_s if r == 0 and i == 0 else 0  # once, before the first point
                window = loadpoint.open_window(ctx.lab)
                with intervals.request_records() as folder:
                    result = ctx.load.open(inst.load_url + cfg.path, rate=rate, duration_s=cfg.duration_s,
                                           connections=cfg.connections, warmup_s=warm,
                                           requests_db=folder / "measured.db", warmup_requests_db=folder / "warm.db")
                    shape = dict(launch=1, point=at.label, interval_s=cfg.interval_s)
                    rows += intervals.oha_rows(inst, result, folder / "warm.db", warmup=True, **shape)
                    rows += intervals.oha_rows(inst, result, folder / "measured.db", **shape)
                loadpoint.record(ctx, at, r, result, window)
    finally:  # the intervals measured so far are kept, also when a point fails
        intervals.write(ctx, "timeline.csv", rows)
    ctx.outcome("ok")


def ensure_driver(settings: LatencySettings, say) -> None:
    oha.ensure_oha(log=say)  # built once, before anything is launched (a cold build takes minutes)


def estimate_s(e: Estimate) -> float:
    return e.settings.warmup_s + e.repeats * len(e.settings.fractions) * (e.settings.duration_s + 0.5)


def tables(view: RunView) -> list[Table]:
    out = []
    ref = by_target_table(view, "latency-reference", "Maximum throughput the rates are fractions of",
                          view.find("latency", "max_rps_reference"), ["max_rps_reference"])
    if ref:
        ref.terminal = False
        out.append(ref)
    cells = [c for c in view.find("latency") if c.metric != "max_rps_reference"]
    metrics = ["offered_rate", "rps", *(m for m, _ in PERCENTILES), "latency_max_ms", "errors"]
    for target in ordered_targets(view, cells):
        mine = [c for c in cells if c.target == target]
        rows = []
        for label_ in points_in_order(mine):
            by_metric = {c.metric: c for c in mine if c.point == label_}
            rows.append((label_, [by_metric.get(m) for m in metrics]))
        out.append(Table(f"latency-{target}", f"{target}: open-loop latency (from the intended send time)",
                         "rate", [label(m) for m in metrics], rows))
    return out


def legacy_params(label_: str) -> dict:
    found = re.fullmatch(r"(\d+)% of max", label_)
    return {"fraction": int(found.group(1)) / 100, "method": "GET"} if found else {}



def describe(p: dict, plan: dict) -> str:
    return (f"open loop at {', '.join(f'{f:.0%}' for f in p.get('fractions', []))} of each app's maximum "
            f"req/s on {p.get('path', '?')}, {p.get('connections', '?')} connections, {p.get('duration_s', '?')} s "
            f"per rate; latency counted from the intended send time (no coordinated omission).")


def charts(view: RunView, inputs: ChartInputs, colors: dict) -> list:
    return (scenario_charts.percentile_charts(view, colors)
            + timeline_charts.latency_over_time_charts(inputs.timelines, view, colors, scenario="latency"))

SCENARIO = Scenario(
    name="latency", title="Latency at fixed rates (open loop)", phase=Phase.ON_LOAD, settings=LatencySettings,
    sends_load=True,
    run=run, estimate_s=estimate_s, tables=tables, needs=("sweep",), setup=ensure_driver,
    legacy_params=legacy_params, describe=describe, charts=charts)
