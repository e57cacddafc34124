"""efficiency: what a request costs at equal load - every app driven at the same offered rates
(open loop), with the app's CPU per request from its cgroup, the database's CPU per request and
the app's RSS. Efficiency independent of who saturates first.

The rates are absolute and come from the plan, so every app gets exactly the same load and a rerun
the same rates (they are never derived from an earlier run's results). Choosing them: take the
lowest capacity at the objective among the apps compared (the capacity table of a run on this
machine with the same limits) and set the rates at fractions of it, e.g. a quarter, a half and
three quarters, so that every app holds every rate. A rate an app could not hold (achieved < 97 %
of offered) is flagged `not-held`: its cost per request is the cost of an overloaded app and is not
compared, and the summary names the app and the rate. When capacity ran on the same path, each
rate is also given as a share of the app's own capacity. On the long-lived load instance, after it
has been warmed up to steady state (perflab.scenarios.warmup).
"""

from __future__ import annotations

import time

from pydantic import field_validator

from perflab.drivers import oha
from perflab.drivers.base import RATE_SHORTFALL_LIMIT
from perflab.instance import mb
from perflab.placements import KUBERNETES
from perflab.present import charts as plot, scenario_charts
from perflab.present.chart_inputs import ChartInputs
from perflab.present.tables import METRIC_LABELS, Table, by_point_table, fmt_value
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.scenarios import loadpoint
from perflab.scenarios.loadpoint import shape_suffix, slug
from perflab.scenarios.warmup import WarmupSettings, until_steady
from perflab.settings import setting
from perflab.store import point

COST = (("app_cpu_ms_per_request", "app CPU ms per request (its cgroup)"),
        ("db_cpu_ms_per_request", "DB CPU ms per request"),
        ("rss_mb", "app RSS MB (mean over the step)"))

# how the report names this scenario's own figures
METRIC_LABELS.update({"rss_mb": "RSS MB", "rate_of_own_capacity_pct": "% of own capacity"})


class EfficiencySettings(WarmupSettings):
    path: str = setting("/fruits", "the path loaded")
    more_paths: list[str] = setting([], "further paths driven at the same rates after `path`, each warmed to "
                                        "steady state on its own path first; their figures name the path")
    rates: list[float] = setting([250.0, 500.0, 1000.0], "offered rates, the same for every app: fractions (e.g. "
                                                         "1/4, 1/2, 3/4) of the lowest capacity among the apps "
                                                         "compared, from a capacity run on this machine", "req/s")
    step_s: float = setting(10.0, "each rate's measurement", "s", ge=1)
    step_warmup_s: float = setting(2.0, "each rate first runs this long, unmeasured", "s", ge=0)
    connections: int = setting(64, "the open-loop driver's connections at most", "connections", ge=1)

    @field_validator("rates")
    @classmethod
    def _positive(cls, value: list[float]) -> list[float]:
        if not value or any(r <= 0 for r in value):
            raise ValueError("must list at least one rate, each above 0 req/s")
        return sorted(value)


def run(ctx: Context) -> None:
    """The plan's rates on each path, the plan's path first, on the one load instance."""
    cfg: EfficiencySettings = ctx.settings
    paths = list(dict.fromkeys([cfg.path, *cfg.more_paths]))
    not_held = [held for path in paths for held in _rates_on(ctx, path)]
    ctx.outcome("ok", "" if not not_held else "not held: " + ", ".join(not_held))


def _rates_on(ctx: Context, path: str) -> list[str]:
    """Every rate on `path`; returns the rates not held, with what was achieved."""
    cfg: EfficiencySettings = ctx.settings
    inst = ctx.inst
    shape = shape_suffix(cfg, path)
    # a further path's warm-up timeline in a file of its own, beside the first path's
    warm = until_steady(ctx, inst, path, cfg, tag="" if path == cfg.path else f"1-{slug(path)}")
    own_capacity = (ctx.results.get("capacity") or {}).get(path)
    not_held = []
    for rate in cfg.rates:
        ctx.progress.update(f"{rate:,.0f} req/s{shape}")
        at = point(f"{rate:,.0f} req/s{shape}", rate=rate, path=path, method="GET", open_loop=True)
        if cfg.step_warmup_s > 0:  # unmeasured, and outside the CPU window below
            ctx.load.open(inst.load_url + path, rate=rate, duration_s=cfg.step_warmup_s,
                          connections=cfg.connections)
        window = loadpoint.open_window(ctx.lab)
        result = ctx.load.open(inst.load_url + path, rate=rate, duration_s=cfg.step_s,
                               connections=cfg.connections)
        end_ns = time.monotonic_ns()
        db_end = ctx.lab.db_cpu_s()
        series = inst.sampler.snapshot()
        held = result.rps >= RATE_SHORTFALL_LIMIT * rate
        flags = loadpoint.flags_of(result) + ([] if held else ["not-held"]) + ([] if warm.steady else ["not-steady"])
        if not held:
            not_held.append(f"{rate:,.0f} req/s{shape} (achieved {result.rps:,.0f})")
        extra = {"achieved": result.rps, "driver_bound_reason": result.driver_bound_reason, "warmup": warm.why}
        put = lambda metric, value, unit: ctx.record(metric, value, unit, at=at, flags=flags, extra=extra)  # noqa: E731
        if own_capacity:  # how near its own limit each app ran at this shared rate
            put("rate_of_own_capacity_pct", 100 * rate / own_capacity, "%")
        put("rps", result.rps, "req/s")
        put("latency_p99_ms", result.latency.percentile(99), "ms")
        put("errors", result.errors.total, "count")
        cpu = series.cpu_share("cgroup_cpu_s", window.start_ns, end_ns) or series.cpu_share("cpu_s", window.start_ns,
                                                                                              end_ns)
        if result.requests:
            if cpu is not None:
                put("app_cpu_ms_per_request", 1000 * cpu * result.duration_s / result.requests, "ms")
            if window.db_cpu_start is not None and db_end is not None:
                put("db_cpu_ms_per_request", 1000 * (db_end - window.db_cpu_start) / result.requests, "ms")
        put("rss_mb", mb(series.mean("rss_bytes", window.start_ns, end_ns)), "MB")
        inst.check_alive()
    return not_held


def estimate_s(e: Estimate) -> float:
    cfg: EfficiencySettings = e.settings
    warm = cfg.warmup_max_s / 3 if e.jvm else cfg.window + 2  # the load instance is warm by now
    paths = len({cfg.path, *cfg.more_paths})
    return paths * (warm + len(cfg.rates) * (cfg.step_warmup_s + cfg.step_s + 1))


def tables(view: RunView) -> list[Table]:
    out = []
    for metric, title in (*COST, ("rps", "achieved req/s"), ("latency_p99_ms", "p99 ms"), ("errors", "errors"),
                          ("rate_of_own_capacity_pct", "the rate as % of the app's own capacity (this run)")):
        t = by_point_table(view, f"efficiency-{metric}", f"At equal offered rates: {title}",
                           view.find("efficiency", metric), "offered rate",
                           note="the same rates for every app; not-held: the app could not keep the rate")
        if t:
            t.terminal = metric in ("app_cpu_ms_per_request", "db_cpu_ms_per_request")
            out.append(t)
    return out


def _not_held(rps: list) -> dict[str, list[str]]:
    """Per app/mode, the rates of `rps` (its achieved-rate cells) it could not hold with what it
    achieved, lowest first."""
    out: dict[str, list[str]] = {}
    for c in sorted(rps, key=lambda c: c.params.get("rate") or 0):
        if "not-held" in c.flags and c.params.get("rate"):
            out.setdefault(c.target, []).append(f"{fmt_value(c.params['rate'])} req/s (achieved "
                                                f"{fmt_value(c.summary.median)})")
    return out


def remarks(view: RunView) -> list[str]:
    """Per path: the app's CPU per request at the highest rate every app held (else the highest most
    held), cheapest first, then which app could not hold which rate."""
    cells = view.find("efficiency", "app_cpu_ms_per_request")
    rps = view.find("efficiency", "rps")
    paths = list(dict.fromkeys(c.params.get("path") for c in [*cells, *rps]))
    lines = []
    for path in paths:
        shape = "" if len(paths) == 1 or path == paths[0] else f" on {path}"
        lines += _remark([c for c in cells if c.params.get("path") == path],
                         _not_held([c for c in rps if c.params.get("path") == path]), shape)
    return lines


def _remark(cells: list, not_held: dict[str, list[str]], shape: str) -> list[str]:
    held = [c for c in cells if "not-held" not in c.flags and c.params.get("rate")]
    said = "; ".join(f"{t} {' and '.join(rates)}" for t, rates in not_held.items())
    if not held:
        return [f"app CPU ms per request{shape}: no app held any rate; not held: {said}"] if said else []
    targets = {c.target for c in cells} | set(not_held)
    by_rate = {r: [c for c in held if c.params["rate"] == r] for r in sorted({c.params["rate"] for c in held})}
    common = [r for r, at in by_rate.items() if {c.target for c in at} == targets]
    rate = common[-1] if common else max(by_rate, key=lambda r: (len(by_rate[r]), r))
    at = sorted(by_rate[rate], key=lambda c: c.summary.median)
    parts = ", ".join(f"{c.target} {fmt_value(c.summary.median)}" for c in at)
    unmeasured = sorted(targets - {c.target for c in at} - set(not_held))
    reading = (f"; {at[-1].target} spends {at[-1].summary.median / at[0].summary.median:.1f}x the CPU of "
               f"{at[0].target} per request" if len(at) > 1 and at[0].summary.median > 0 else "")
    return [f"app CPU ms per request at {fmt_value(rate)} req/s{shape}: {parts}{reading}"
            + (f" ({', '.join(unmeasured)}: no figure at that rate)" if unmeasured else "")
            + (f"; not held: {said}" if said else "")]


def describe(p: dict, plan: dict) -> str:
    rates = ", ".join(fmt_value(r) for r in p.get("rates", []))
    more = "".join(f", then {path}" for path in p.get("more_paths", []))
    return (f"open loop on {p.get('path', '?')}{more} at {rates} req/s for every app ({p.get('step_s', '?')} s each, after "
            f"warm-up to steady state): the app's CPU per request from its cgroup, the DB's CPU per request, RSS.")


def charts(view: RunView, inputs: ChartInputs, colors: dict) -> list:
    out = []
    for metric, title in COST:
        cells = view.find("efficiency", metric)
        paths = list(dict.fromkeys(c.params.get("path") for c in cells)) or [None]
        # one line per app/mode and path: a further path's dashed and named after it
        series = [plot.Series(t + ("" if path == paths[0] else f" {path}"), colors[t],
                              [scenario_charts.cell_point(c, c.params["rate"], c.point) for c in cells
                               if c.target == t and c.params.get("rate") and c.params.get("path") == path],
                              dash="" if path == paths[0] else "dash")
                  for path in paths for t in colors]
        out.append(plot.line_chart(f"{title} vs offered rate", series, plot.Axis("offered req/s"),
                                   plot.Axis(title, zero=True), key=f"efficiency-{metric}"))
    return out


def ensure_driver(settings: EfficiencySettings, say) -> None:
    oha.ensure_oha(log=say)


SCENARIO = Scenario(
    name="efficiency", title="CPU per request at equal load (open loop, the same rates for every app)",
    phase=Phase.ON_LOAD, settings=EfficiencySettings, run=run, estimate_s=estimate_s, tables=tables,
    remarks=remarks, describe=describe, charts=charts, setup=ensure_driver, needs=("capacity",),
    not_on=((KUBERNETES, "CPU per request reads the app's CPU on this machine"),))
