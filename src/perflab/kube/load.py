"""sweep and latency on a cluster, with the load from a driver Job on another node than the app's
pod (perflab.kube.loadjob), as RT-2019 drove load from a separate machine.

The figures keep the local scenarios' names, points, metrics and units (perflab.scenarios.sweep,
latency), so the same tables show them; each carries the flags `on-kubernetes` and
`driver-on-another-node`, and the nodes of the driver and of the app in its extra. What the pod
cannot tell is left out: the driver's CPU, and the app's CPU and RSS during the point.

sweep: per series a warm-up Job at its highest connection count (warmup_s), then one closed-loop
Job per point, round-robin over the repeats. latency: the maximum is the same run's sweep on the
cluster when it measured the path, else a closed-loop Job at `connections` for 5 s after a warm-up
Job; then a warm-up Job at the first rate (warmup_s) and one open-loop Job per rate.

On simulated nodes (kwok) no container runs: the first Job is created and its placement checked
(another node than the app's pod), then the scenario is recorded as unavailable, saying so.
"""

from __future__ import annotations

from typing import Any

from perflab import stats
from perflab.drivers.base import LoadResult
from perflab.errors import LabError
from perflab.kube import loadjob, measure
from perflab.kube.loadjob import Driver, Load, Placed
from perflab.kube.objects import Objects
from perflab.scenario import NO_POINT, Point, point
from perflab.scenarios.latency import LatencySettings
from perflab.scenarios.loadpoint import flags_of
from perflab.scenarios.sweep import MaxThroughput, SweepSettings

SCENARIOS = ("sweep", "latency")
CLUSTER_FLAGS = ("on-kubernetes", "driver-on-another-node")
PROBE_S = 5  # the closed-loop Job latency's rates are fractions of, as the local probe
NO_LOAD_ON_SIMULATED = ("simulated nodes run no containers, so no load was generated: the driver Job {job} was "
                        "placed on node {driver}, another node than the app's pod ({app}); nothing was measured")


def first_load(name: str, settings: Any) -> Load:
    """The scenario's first Job (what a dry run renders and simulated nodes place)."""
    if name == "sweep":
        first = settings.series[0]
        return Load(first.path, max(first.connections), settings.duration_s, timeout_s=settings.timeout_s)
    return Load(settings.path, settings.connections, settings.duration_s)


def run(objs: Objects, w: measure.Workload, name: str, settings: Any, repeats: int, driver: Driver,
        results: dict[str, Any]) -> measure.Figures:
    if w.simulated:
        return placed_only(objs, w, name, first_load(name, settings), driver)
    measure.scale_to_ready(objs, w)
    out = sweep(objs, w, settings, repeats, driver) if name == "sweep" else \
        latency(objs, w, settings, repeats, driver, results.get("sweep"))
    measure.scale_to_zero(objs, w)
    return out


def placed_only(objs: Objects, w: measure.Workload, name: str, load: Load, driver: Driver) -> measure.Figures:
    out = measure.Figures(name)
    measure.scale_to_ready(objs, w)
    with loadjob.started(objs, w, load, driver) as (placed, _):
        reason = NO_LOAD_ON_SIMULATED.format(job=placed.job, driver=placed.driver_node, app=", ".join(placed.app_nodes))
    measure.scale_to_zero(objs, w)
    out.outcome("unavailable", reason)
    return out


def add_point(out: measure.Figures, at: Point, repeat: int, result: LoadResult, placed: Placed) -> list[str]:
    """Store one point's figures as the local scenarios do (perflab.scenarios.loadpoint); its flags."""
    flags = [*flags_of(result), *CLUSTER_FLAGS]
    extra = {"connections": result.connections, "offered_rate": result.offered_rate,
             "driver": f"{result.driver} {result.driver_version}", "driver_bound_reason": result.driver_bound_reason,
             "errors": result.errors.__dict__, "warmup_s": result.warmup_s, "duration_s": result.duration_s,
             "url": result.url, "method": result.method, "driver_job": placed.job, "driver_node": placed.driver_node,
             "app_nodes": placed.app_nodes, "driver_cpu": "not measured (the driver runs in a pod of its own)"}
    values = [("rps", result.rps, "req/s"), ("requests", result.requests, "count"),
              ("errors", result.errors.total, "count"), ("latency_mean_ms", result.latency.mean_ms, "ms"),
              ("latency_max_ms", result.latency.max_ms, "ms"),
              *((f"latency_p{p}_ms", result.latency.percentile(p), "ms") for p in ("50", "90", "99", "99.9")),
              ("offered_rate", result.offered_rate, "req/s")]
    for metric, value, unit in values:
        if value is not None:
            out.add(metric, value, unit, at=at, repeat=repeat, flags=flags, extra=extra)
    out.files.append(("driver-output", f"{at.label or 'point'}-r{repeat}.txt".replace("/", "_").replace(" ", "_"),
                      result.raw_output))
    return flags


def _measured(objs: Objects, w: measure.Workload, out: measure.Figures, at: Point, repeat: int, load: Load,
              driver: Driver) -> LoadResult | None:
    """One point's Job; a failed or late one is a failed point (its reason stored), not a figure.
    What would fail every point alike (Unrunnable) stops the scenario."""
    try:
        result, placed = loadjob.run(objs, w, load, driver)
    except loadjob.Unrunnable:
        raise
    except LabError as exc:
        out.outcome("failed", exc.message, part=f"{at.label} r{repeat + 1}")
        return None
    return result if "driver-bound" not in add_point(out, at, repeat, result, placed) else None


def _warm_up(objs: Objects, w: measure.Workload, load: Load, driver: Driver, seconds: float) -> None:
    """Unmeasured load before the points, as the local scenarios' warmup_s (a failed one is an error)."""
    if seconds >= 1:
        loadjob.run(objs, w, Load(load.path, load.connections, seconds, load.rate, load.timeout_s), driver)


def sweep(objs: Objects, w: measure.Workload, cfg: SweepSettings, repeats: int, driver: Driver) -> measure.Figures:
    out = measure.Figures("sweep")
    best: dict[str, MaxThroughput] = {}
    for series in cfg.series:
        def load(conns: int, s=series) -> Load:
            return Load(s.path, conns, cfg.duration_s, timeout_s=cfg.timeout_s)

        try:
            _warm_up(objs, w, load(max(series.connections)), driver, cfg.warmup_s)
        except loadjob.Unrunnable:
            raise
        except LabError as exc:
            out.outcome("failed", f"warm-up: {exc.message}", part=series.name)
            continue
        rps: dict[str, list[float]] = {}
        failed = len(out.outcomes)
        for r in range(repeats):
            for conns in series.connections:
                at = point(f"{series.name} c={conns}", series=series.name, path=series.path, connections=conns,
                           method="GET")
                result = _measured(objs, w, out, at, r, load(conns), driver)
                if result is not None:
                    rps.setdefault(at.label, []).append(result.rps)
        failed = len(out.outcomes) - failed
        out.outcome("failed" if failed else "ok", f"{failed} point(s) failed" if failed else "", part=series.name)
        for label, values in rps.items():
            top = stats.median(values)
            if series.path not in best or top > best[series.path].rps:
                best[series.path] = MaxThroughput(top, f"sweep {label} (driver Jobs on the cluster)")
    out.result = best
    return out


def _probe(objs: Objects, w: measure.Workload, cfg: LatencySettings, driver: Driver) -> MaxThroughput:
    load = Load(cfg.path, cfg.connections, PROBE_S)
    _warm_up(objs, w, load, driver, cfg.warmup_s)
    result, placed = loadjob.run(objs, w, load, driver)
    return MaxThroughput(result.rps, f"closed-loop Job c={cfg.connections} for {PROBE_S} s on node "
                                     f"{placed.driver_node}")


def latency(objs: Objects, w: measure.Workload, cfg: LatencySettings, repeats: int, driver: Driver,
            swept: dict[str, MaxThroughput] | None) -> measure.Figures:
    out = measure.Figures("latency")
    top = (swept or {}).get(cfg.path) or _probe(objs, w, cfg, driver)
    if top.rps <= 0:
        out.outcome("failed", "no throughput measured to derive rates from")
        return out
    out.add("max_rps_reference", top.rps, "req/s", at=NO_POINT, flags=list(CLUSTER_FLAGS), extra={"source": top.source})
    for r in range(repeats):
        for i, fraction in enumerate(cfg.fractions):
            load = Load(cfg.path, cfg.connections, cfg.duration_s, rate=max(1.0, round(top.rps * fraction)))
            if r == 0 and i == 0:
                _warm_up(objs, w, load, driver, cfg.warmup_s)
            at = point(f"{fraction:.0%} of max", path=cfg.path, fraction=fraction, method="GET")
            _measured(objs, w, out, at, r, load, driver)
    return out
