"""memory (under load): peak RSS of the process tree while a closed-loop load runs, sampled
throughout (not read once afterwards), and requests per second per MB of that peak.

RSS after the first request and at rest are measured on the startup scenario's fresh launches
(see startup.py), where every launch gives one more value for their spread.
"""

from __future__ import annotations

import re

from perflab.errors import AppFailed
from perflab.placements import KUBERNETES
from perflab.present import rss_charts
from perflab.present.chart_inputs import ChartInputs
from perflab.present.tables import Table, by_target_table, points_in_order
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.scenarios import loadpoint
from perflab.settings import Settings, setting
from perflab.store import point


class MemorySettings(Settings):
    load_path: str = setting("/fruits", "the path loaded")
    load_connections: int = setting(10, "closed-loop connections", "connections", ge=1)
    load_duration_s: float = setting(10.0, "each repeat's load", "s", ge=1)
    warmup_s: float = setting(5.0, "load before the first repeat (not measured)", "s", ge=0)
    # a cold JVM hit by many connections at once compiles its first query in every request thread
    # at once: under a small heap on one CPU that alone can exhaust the heap (LAB-2020's -Xmx64m at
    # 40 connections); a few connections first avoid it (LAB-2020's own job ramped up at its full
    # connection count, for a duration it does not give)
    ramp_s: float = setting(0.0, "before the warm-up: this long at ramp_connections (not measured; 0: no ramp)",
                            "s", ge=0)
    ramp_connections: int = setting(2, "the ramp's closed-loop connections", "connections", ge=1)


def run(ctx: Context) -> None:
    cfg: MemorySettings = ctx.settings
    inst = ctx.inst
    conns = cfg.load_connections
    at = point(f"load c={conns}", path=cfg.load_path, connections=conns, method="GET")
    threads = ctx.load.threads_for(conns)
    if cfg.ramp_s >= 1:
        ctx.progress.update(f"ramp: {cfg.ramp_s:g} s at {cfg.ramp_connections} connection(s)")
        ramp = ctx.load.closed(inst.load_url + cfg.load_path, connections=cfg.ramp_connections,
                               threads=ctx.load.threads_for(cfg.ramp_connections), duration_s=int(cfg.ramp_s))
        inst.check_alive()
        if not ramp.requests:
            raise AppFailed(f"no response to {cfg.load_path} during the ramp at {cfg.ramp_connections} connection(s)")
    silent = 0  # repeats that got no response at all: their figures describe no load
    for r in range(ctx.repeats):
        ctx.progress.update(f"load r{r + 1}/{ctx.repeats}")
        window = loadpoint.open_window(ctx.lab)
        result = ctx.load.closed(inst.load_url + cfg.load_path, connections=conns, threads=threads,
                                 duration_s=int(cfg.load_duration_s), warmup_s=int(cfg.warmup_s if r == 0 else 0))
        inst.check_alive()  # an app that died under the load gave no figure of its own
        flags = loadpoint.record(ctx, at, r, result, window)
        silent += not result.requests
        series = inst.sampler.snapshot()
        peak = series.peak("rss_bytes", window.start_ns)
        if peak:
            ctx.record("rps_per_mb", result.rps / (peak / (1024 * 1024)), "req/s/MB", at=at, repeat=r, flags=flags)
        cg_peak = series.peak("cgroup_memory_bytes", window.start_ns)
        if cg_peak:
            ctx.record("cgroup_peak_mb", cg_peak / (1024 * 1024), "MB", at=at, repeat=r, flags=flags)
    if silent:
        ctx.outcome("failed", f"{silent} of {ctx.repeats} repeats got no response (flagged no-responses)")
    else:
        ctx.outcome("ok")


def estimate_s(e: Estimate) -> float:
    return e.settings.ramp_s + e.settings.warmup_s + e.repeats * (e.settings.load_duration_s + 0.5)


def tables(view: RunView) -> list[Table]:
    out = []
    cells = view.find("memory")
    for label in points_in_order(cells):
        mine = [c for c in cells if c.point == label]
        path = mine[0].params.get("path") or view.plan.get("memory", {}).get("load_path", "")
        t = by_target_table(view, f"memory-{label}", f"Under load ({label}, {path})", mine,
                            ["rss_peak_mb", "cgroup_peak_mb", "rps", "rps_per_mb", "latency_mean_ms", "errors"])
        if t:
            out.append(t)
    return out


def legacy_params(label: str) -> dict:
    found = re.fullmatch(r"load c=(\d+)", label)
    return {"connections": int(found.group(1)), "method": "GET"} if found else {}



def describe(p: dict, plan: dict) -> str:
    ramp = (f" after {p['ramp_s']:g} s at {p.get('ramp_connections', 2)} connection(s)" if p.get("ramp_s") else "")
    return (f"peak RSS under load: {p.get('load_path', '?')} with {p.get('load_connections', '?')} connections for "
            f"{p.get('load_duration_s', '?')} s{ramp}, RSS sampled at {plan.get('sample_hz', '?')} Hz.")


def charts(view: RunView, inputs: ChartInputs, colors: dict) -> list:
    return [rss_charts.rss_chart(inputs.samples, colors)]

SCENARIO = Scenario(
    name="memory", title="Memory under load: peak RSS and req/s per MB", phase=Phase.ON_LOAD,
    settings=MemorySettings, run=run, estimate_s=estimate_s, tables=tables, legacy_params=legacy_params,
    describe=describe, charts=charts,
    not_on=((KUBERNETES, "peak RSS under load is sampled from the app's process; the kubelet reports a pod's "
                        "memory every 10-15 s"),))
