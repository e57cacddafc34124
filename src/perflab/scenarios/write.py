"""write: KT-2020's read-by-key and create mix, measured apart: GET /data/{key} and POST /data
(unique keys), wrk -t2 -c10 by default."""

from __future__ import annotations

from perflab.apps import CONTRACT_API
from perflab.placements import KUBERNETES
from perflab.present import timeline_charts
from perflab.present.tables import Table, by_point_table
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.scenarios import intervals, loadpoint
from perflab.settings import Settings, setting
from perflab.store import point

REQUESTS = (point("GET /data/{key}", method="GET", path="/data/{key}"),
            point("POST /data", method="POST", path="/data"))
_SCRIPTS = {"GET": "get_data", "POST": "post_data"}


class WriteSettings(Settings):
    connections: int = setting(10, "closed-loop connections", "connections", ge=1)
    threads: int = setting(2, "wrk threads (KT-2020: 2)", ge=1)
    duration_s: float = setting(10.0, "each request kind's measurement", "s", ge=1)
    warmup_s: float = setting(5.0, "load before the first repeat of each kind (not measured)", "s", ge=0)
    interval_s: int = setting(1, "each measurement as consecutive wrk runs this long, for the timeline; 0: one run",
                              "s", ge=0)


def run(ctx: Context) -> None:
    cfg: WriteSettings = ctx.settings
    conns, threads = cfg.connections, min(cfg.threads, cfg.connections)
    timeline: list[list] = []
    try:
        for r in range(ctx.repeats):
            for at in REQUESTS:
                ctx.progress.update(f"{at.label} r{r + 1}/{ctx.repeats}")
                window = loadpoint.open_window(ctx.lab)
                result = loadpoint.run_closed(ctx, at, timeline, url=ctx.inst.load_url, connections=conns,
                                              threads=threads, duration_s=cfg.duration_s, interval_s=cfg.interval_s,
                                              warmup_s=cfg.warmup_s if r == 0 else 0,
                                              script=_SCRIPTS[at.params["method"]])
                loadpoint.record(ctx, at, r, result, window)
    finally:
        intervals.write(ctx, "timeline.csv", timeline)
    ctx.outcome("ok")


def estimate_s(e: Estimate) -> float:
    return len(REQUESTS) * (e.settings.warmup_s + e.repeats * (e.settings.duration_s + 0.5))


def tables(view: RunView) -> list[Table]:
    out = []
    cells = view.find("write")
    for metric, what, terminal in (("rps", "req/s", True), ("latency_mean_ms", "mean latency, ms", True),
                                   ("latency_p99_ms", "p99 latency, ms", False), ("errors", "errors", False)):
        t = by_point_table(view, f"write-{metric}", what, [c for c in cells if c.metric == metric], "request")
        if t:
            t.terminal = terminal
            out.append(t)
    return out

def charts(view: RunView, inputs, colors: dict) -> list:
    return timeline_charts.over_time_charts(view, inputs, colors, "write")


def describe(p: dict, plan: dict) -> str:
    return f"wrk -t{p.get('threads', '?')} -c{p.get('connections', '?')} for {p.get('duration_s', '?')} s per request kind."

SCENARIO = Scenario(
    name="write", title="Read by key and create (GET /data/{key}, POST /data)", phase=Phase.ON_LOAD,
    settings=WriteSettings, run=run, estimate_s=estimate_s, tables=tables,
    legacy_params=lambda label: next((dict(r.params) for r in REQUESTS if r.label == label), {}), describe=describe,
    charts=charts, applies=lambda app, mode: app.api == CONTRACT_API,
    applies_why="sends the contract's GET /data/{key} and POST /data; this app serves an API of its own",
    not_on=((KUBERNETES, "KT-2020's create mix is a wrk script on this machine; the cluster's driver pod runs oha"),))
