"""capacity: the highest offered rate an app serves while a latency percentile stays within an
objective (p99 <= 25 ms by default), with no errors and the achieved rate within 3 % of the offered
one - the figure a service is sized with, not closed-loop maximum throughput.

On the long-lived load instance, first warmed up to steady state (perflab.scenarios.warmup), then
the open-loop driver (oha, latency from the intended send time) searches the rate: geometric growth,
then bisection to `resolution_pct` (perflab.capacity_search). Every step is stored with its offered
and achieved rate, p50/p99/p99.9 and errors: the latency-vs-offered-rate curve up to and just beyond
capacity. Each step runs `step_warmup_s` unmeasured at its rate first, after a pause that lets the
queue of an overloaded step drain. When the driver, not the app, ended the search (its CPUs used up,
or a rate its connections could not carry at the objective's latency), the capacity is a lower
bound and is marked so.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

from pydantic import field_validator, model_validator

from perflab import capacity_search as cs
from perflab.drivers import oha
from perflab.drivers.base import LoadResult
from perflab.placements import KUBERNETES, LoadGenerator
from perflab.present import charts as plot, scenario_charts, timeline_charts
from perflab.present.chart_inputs import ChartInputs
from perflab.present.tables import METRIC_LABELS, Table, by_target_table, fmt_value, label, points_in_order
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.scenarios.loadpoint import shape_suffix, slug
from perflab.scenarios.warmup import WarmupSettings, until_steady
from perflab.settings import setting
from perflab.store import point

OHA_PERCENTILES = (50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99)  # what oha reports
CURVE = (("latency_p50_ms", "p50", "dot"), ("latency_p99_ms", "p99", "solid"), ("latency_p99.9_ms", "p99.9", "dash"))

# how the report names this scenario's own figures
METRIC_LABELS.update({"capacity_rps": "capacity req/s", "capacity_resolution_pct": "resolution %",
                       "search_steps": "steps", "search_s": "search s"})


class CapacitySettings(WarmupSettings):
    path: str = setting("/fruits", "the path loaded")
    more_paths: list[str] = setting([], "further paths searched after `path` on the same instance, each warmed "
                                        "to steady state on its own path first (request shapes such as "
                                        "/fruit-prices); their figures name the path")
    percentile: float = setting(99.0, "the latency percentile the objective is set on", "%")
    objective_ms: float = setting(25.0, "the objective: that percentile at most this", "ms", gt=0)
    resolution_pct: float = setting(5.0, "bisect until the limit lies within this much above the capacity", "%",
                                    gt=0, le=50)
    growth: float = setting(2.0, "each growth step offers this times the last rate", "ratio", gt=1, le=10)
    start_rate: float = setting(100.0, "the first rate offered", "req/s", gt=0)
    min_rate: float = setting(10.0, "when the first rate fails, shrink down to this before giving up", "req/s", gt=0)
    max_rate: float = setting(50000.0, "the highest rate offered", "req/s", gt=0)
    step_s: float = setting(10.0, "each step's measurement", "s", ge=1)
    step_warmup_s: float = setting(2.0, "each step first runs this long at its rate, unmeasured", "s", ge=0)
    pause_s: float = setting(1.0, "pause before each step (an overloaded step's queue drains)", "s", ge=0)
    confirm_failures: bool = setting(True, "measure a failing rate again before believing it; when the two "
                                           "disagree a third decides and the capacity is marked unsettled")
    max_connections: int = setting(256, "the open-loop driver's connections at most: it carries at most "
                                        "max_connections / objective req/s at the objective's latency",
                                   "connections", ge=1)

    @field_validator("percentile")
    @classmethod
    def _reported(cls, value: float) -> float:
        if value not in OHA_PERCENTILES:
            raise ValueError(f"must be one the driver reports: {', '.join(f'{p:g}' for p in OHA_PERCENTILES)}")
        return value

    @model_validator(mode="after")
    def _range(self) -> "CapacitySettings":
        if not self.min_rate <= self.start_rate <= self.max_rate:
            raise ValueError(f"capacity needs min_rate <= start_rate <= max_rate, got {self.min_rate:g}, "
                             f"{self.start_rate:g} and {self.max_rate:g}")
        return self

    def objective(self) -> cs.Objective:
        return cs.Objective(self.percentile, self.objective_ms)


@dataclass
class OhaSteps:
    """Measuring one rate with oha; keeps every step's full result for the curve."""

    url: str
    objective: cs.Objective
    step_s: float
    load: LoadGenerator  # the run's placement's: never a driver on the app's CPUs by default
    warmup_s: float = 0.0
    pause_s: float = 0.0
    max_connections: int = 256
    results: list[LoadResult] = field(default_factory=list)

    def connections(self, rate: float) -> int:
        """Twice what the rate needs in flight at the objective's latency (Little's law), within the
        maximum: each connection's first request pays for the connect, so no more than needed."""
        return max(2, min(self.max_connections, math.ceil(2 * rate * self.objective.limit_ms / 1000)))

    def __call__(self, rate: float) -> cs.Measured:
        time.sleep(self.pause_s)
        r = self.load.open(self.url, rate=rate, duration_s=self.step_s, warmup_s=self.warmup_s,
                           connections=self.connections(rate))
        self.results.append(r)
        # the requests of the step's last (median latency) seconds are still in flight when its time
        # runs out: the rate answered is judged over the time before that, else a slow app that keeps
        # up would miss the rate by latency / step_s
        answering_s = r.duration_s - (r.latency.percentile(50) or 0.0) / 1000
        achieved = r.requests / answering_s if answering_s > 0 else 0.0
        return cs.Measured(offered=rate, achieved=achieved, latency_ms=r.latency.percentile(self.objective.percentile),
                           errors=r.errors.total, driver_cpu=r.driver_cpu_utilisation)


def driver_max_rate(connections: int, objective_ms: float) -> float:
    """Little's law: `connections` in flight at the objective's latency carry this many req/s."""
    return connections / (objective_ms / 1000)


def searcher(url: str, cfg: CapacitySettings, load: LoadGenerator,
             on_step: Callable[[cs.Step, LoadResult], None] | None = None) -> tuple[cs.Search, list[LoadResult]]:
    """The search with oha on `url` as the settings say (the scenario's and the tests' one way in);
    `on_step` gets each judged step with the driver's full result."""
    steps = OhaSteps(url, cfg.objective(), cfg.step_s, load, warmup_s=cfg.step_warmup_s, pause_s=cfg.pause_s,
                     max_connections=cfg.max_connections)
    found = cs.search(steps, cfg.objective(), start_rate=cfg.start_rate, max_rate=cfg.max_rate, min_rate=cfg.min_rate,
                      resolution=cfg.resolution_pct / 100, growth=cfg.growth,
                      driver_max_rate=driver_max_rate(cfg.max_connections, cfg.objective_ms),
                      confirm_failures=cfg.confirm_failures, on_step=None if on_step is None else lambda step: on_step(step, steps.results[-1]))
    return found, steps.results


def _record_step(ctx: Context, path: str, n: int, step: cs.Step, r: LoadResult) -> None:
    cfg: CapacitySettings = ctx.settings
    rate = step.measured.offered
    at = point(f"step {n}: {rate:,.0f} req/s{shape_suffix(cfg, path)}", step=n, path=path, rate=round(rate, 1),
               phase=step.phase, passed=step.passed, method="GET", open_loop=True)
    flags = (["driver-bound"] if step.driver_limited else []) + (["errors"] if r.errors.total else []) + \
        ([] if step.passed else ["step-failed"])
    extra = {"why": step.why, "driver_cpu": r.driver_cpu_utilisation, "connections": r.connections,
             "driver": f"{r.driver} {r.driver_version}"}
    figures = [("offered_rate", rate, "req/s"), ("rps", r.rps, "req/s"),
               *((metric, r.latency.percentile(name[1:]), "ms") for metric, name, _ in CURVE),
               ("errors", r.errors.total, "count"), ("driver_cpu_util", r.driver_cpu_utilisation, "ratio")]
    judged = f"latency_p{cfg.percentile:g}_ms"
    if judged not in {m for m, _, _ in CURVE}:  # the objective's own percentile, when the curve lacks it
        figures.append((judged, step.measured.latency_ms, "ms"))
    for metric, value, unit in figures:
        ctx.record(metric, value, unit, at=at, flags=flags, extra=extra)
    name = f"step{n}.json" if path == cfg.path else f"step{n}-{slug(path)}.json"
    ctx.add_file("driver-output", name, r.raw_output)


def run(ctx: Context) -> dict[str, float | None]:
    """One search per path, the plan's path first, on the one load instance."""
    cfg: CapacitySettings = ctx.settings
    found = {path: _search(ctx, path) for path in dict.fromkeys([cfg.path, *cfg.more_paths])}
    several = len(found) > 1

    def named(path: str, text: str) -> str:
        return f"{path}: {text}" if several else text

    failed = [named(path, search.why) for path, search in found.items() if search.capacity is None]
    if failed:
        ctx.outcome("failed", f"no rate met {cfg.objective().name}: " + "; ".join(failed))
    else:
        ctx.outcome("ok", "; ".join(named(path, f"ended by {search.ended_by}: {search.why}")
                                    for path, search in found.items()))
    return {path: search.capacity for path, search in found.items()}


def _search(ctx: Context, path: str) -> cs.Search:
    cfg: CapacitySettings = ctx.settings
    inst = ctx.inst
    # a further path's warm-up timeline in a file of its own, beside the first path's
    warm = until_steady(ctx, inst, path, cfg, tag="" if path == cfg.path else f"1-{slug(path)}")
    started = time.monotonic()
    done: list[cs.Step] = []

    def on_step(step: cs.Step, result: LoadResult) -> None:
        done.append(step)
        _record_step(ctx, path, len(done), step, result)
        ctx.progress.update(f"{path} step {len(done)} ({step.phase}) {step.measured.offered:,.0f} req/s: "
                            f"{'pass' if step.passed else 'fail'}, {step.why}")

    found, _ = searcher(inst.load_url + path, cfg, ctx.load, on_step)
    spent = time.monotonic() - started
    at = point(cfg.objective().name + shape_suffix(cfg, path), path=path, percentile=cfg.percentile,
               objective_ms=cfg.objective_ms, ended_by=found.ended_by)
    flags = ([] if warm.steady else ["not-steady"]) + (["driver-bound"] if found.ended_by == cs.DRIVER else []) + \
        (["lower-bound"] if found.ended_by in (cs.DRIVER, cs.MAX_RATE) else []) + \
        (["unsettled"] if found.disagreed else [])
    extra = {"ended_by": found.ended_by, "why": found.why, "ceiling": found.ceiling, "warmup": warm.why,
             "warmup_s": round(warm.seconds, 1), "steps": len(found.steps), "disagreed": found.disagreed}
    put = lambda metric, value, unit: ctx.record(metric, value, unit, at=at, flags=flags, extra=extra)  # noqa: E731
    put("capacity_rps", found.capacity, "req/s")
    if found.resolution is not None:
        put("capacity_resolution_pct", 100 * found.resolution, "%")
    put("search_steps", len(found.steps), "count")
    put("search_s", spent, "s")
    return found


def estimate_s(e: Estimate) -> float:
    cfg: CapacitySettings = e.settings
    warm = cfg.warmup_max_s if e.jvm else cfg.window + 2
    # before anything is measured: guess the capacity at a few thousand req/s (one app CPU)
    guess = max(cfg.start_rate, min(cfg.max_rate, 3000.0))
    grow = 2 + math.ceil(math.log(guess / cfg.start_rate, cfg.growth))
    bisect = max(1, math.ceil(math.log2(math.log(cfg.growth) / math.log1p(cfg.resolution_pct / 100))))
    # about half the bisection steps fail, and so does the last growth step: each failure is measured again
    confirms = (1 + bisect // 2) if cfg.confirm_failures else 0
    search = (grow + bisect + confirms) * (cfg.pause_s + cfg.step_warmup_s + cfg.step_s + 0.5)
    # a further path's warm-up finds the instance warm: a third of the first one's (as efficiency's)
    more = len(set(cfg.more_paths) - {cfg.path})
    return warm + search + more * (warm / 3 + search)


def tables(view: RunView) -> list[Table]:
    out = []
    cells = view.find("capacity")
    summaries = [c for c in cells if c.params.get("objective_ms") is not None]
    paths = list(dict.fromkeys(c.params.get("path") for c in summaries))
    for n, path in enumerate(paths):  # the plan's path first, as its table always was; then each further one
        summary = by_target_table(view, "capacity" if n == 0 else f"capacity-{slug(path)}",
                                  "Capacity at the latency objective (open loop, at steady state)"
                                  + ("" if len(paths) == 1 else f": {path}"),
                                  [c for c in summaries if c.params.get("path") == path],
                                  ["capacity_rps", "capacity_resolution_pct", "search_steps", "search_s"],
                                  note="the highest offered rate whose percentile stayed within the objective with no "
                                       "errors and >= 97 % of the rate achieved; the real limit lies within the "
                                       "resolution above it; lower-bound: the driver or the plan's maximum ended the "
                                       "search; a failing rate was measured again before it counted (unsettled: the "
                                       "two disagreed and a third decided)")
        if summary:
            out.append(summary)
    steps = [c for c in cells if c.params.get("step") is not None]
    metrics = ["offered_rate", "rps", *(m for m, _, _ in CURVE), "errors", "driver_cpu_util"]
    for target in dict.fromkeys(c.target for c in steps):
        mine = [c for c in steps if c.target == target]
        rows = []
        for label_ in points_in_order(mine):
            by_metric = {c.metric: c for c in mine if c.point == label_}
            first = next(iter(by_metric.values()))
            verdict = "pass" if first.params.get("passed") else "fail"
            rows.append((f"{label_} ({first.params.get('phase')}, {verdict})", [by_metric.get(m) for m in metrics]))
        t = Table(f"capacity-steps-{target}", f"{target}: the search, step by step", "step",
                  [label(m) for m in metrics], rows, note="every step at its offered rate, in the order run")
        t.terminal = False
        out.append(t)
    return out


def _reading(c) -> str:
    ended = {cs.APP: "the app's limit", cs.DRIVER: "the driver's limit: a lower bound",
             cs.MAX_RATE: "the plan's maximum rate: a lower bound",
             cs.BELOW_MIN: "no rate passing down to the minimum"}.get(c.params.get("ended_by", ""), "")
    return f"{c.target}: {fmt_value(c.summary.median)} req/s at {c.point}" + (f" (search ended by {ended})"
                                                                                if ended else "")


def remarks(view: RunView) -> list[str]:
    cells = view.find("capacity", "capacity_rps")
    failed = [f"  {o['app']}/{o['mode']}: {o['reason']}" for o in view.outcomes
              if o["scenario"] == "capacity" and o["status"] == "failed"]
    if not cells and not failed:
        return []
    lines = ["capacity at the latency objective:", *(f"  {_reading(c)}" for c in cells), *failed]
    for path in dict.fromkeys(c.params.get("path") for c in cells):  # apps compared on one path at a time
        mine = [c for c in cells if c.params.get("path") == path]
        if len(mine) > 1:
            best = max(mine, key=lambda c: c.summary.median)
            lines.append(f"  reading: {best.target} serves the most requests a second within the objective"
                         + (f" on {path}" if len(cells) > len(mine) else "")
                         + "; size by these rates, not by closed-loop maximum throughput")
    return lines


def describe(p: dict, plan: dict) -> str:
    more = "".join(f", then {path}" for path in p.get("more_paths", []))
    return (f"open loop on {p.get('path', '?')}{more} after warm-up to steady state: rates grow x{p.get('growth', '?')} "
            f"from {p.get('start_rate', '?')} req/s (at most {p.get('max_rate', '?')}), then bisect to "
            f"{p.get('resolution_pct', '?')} %; a {p.get('step_s', '?')} s step passes when p{p.get('percentile', 99):g} "
            f"<= {p.get('objective_ms', '?')} ms, no errors and >= 97 % of the rate achieved. One search per "
            f"app/mode{' and path' if more else ''}: its steps are its evidence.")


def charts(view: RunView, inputs: ChartInputs, colors: dict) -> list:
    steps = [c for c in view.find("capacity") if c.params.get("step") is not None]
    paths = list(dict.fromkeys(c.params.get("path") for c in steps))
    series = []
    for t in colors:
        for path in paths:  # one curve per app/mode and path: a further path's named after it
            shape = "" if path == paths[0] else f" {path}"
            for metric, name, dash in CURVE:
                pts = [scenario_charts.cell_point(c, c.params["rate"], c.point) for c in steps
                       if c.target == t and c.metric == metric and c.params.get("path") == path]
                if pts or not shape:
                    series.append(plot.Series(f"{t}{shape} {name}", colors[t], pts, dash=dash, group=t))
    rates = [c.params["rate"] for c in steps]
    if not rates:
        return []
    for ms in sorted({c.params.get("objective_ms") for c in view.find("capacity", "capacity_rps")} - {None}):
        series.append(plot.Series(f"objective {ms:g} ms", "#888888", [plot.Point(min(rates), ms),
                                                                       plot.Point(max(rates), ms)],
                                  dash="dashdot", markers=False))
    ys = [p.y for s in series for p in s.points]
    curve = plot.line_chart("Latency vs offered rate (p50 dotted, p99 solid, p99.9 dashed)", series,
                            plot.Axis("offered req/s", log=plot.spans_decades(rates)),
                            plot.Axis("latency ms", log=plot.spans_decades(ys, 10)), key="capacity-curve")
    # the warm-up before each search, every app/mode on one chart
    return timeline_charts.warmup_charts(inputs.timelines, view, colors, scenario="capacity",
                                         unread=inputs.unread) + [curve]


def ensure_driver(settings: CapacitySettings, say) -> None:
    oha.ensure_oha(log=say)


def reuse(ctx: Context) -> dict[str, float | None]:
    """A resumed run whose capacity search ended before: its result again, from the figure it stored."""
    return {f.params.get("path"): f.value for f in ctx.lab.store.figures(ctx.lab.run_id)
            if (f.app, f.mode, f.scenario, f.metric) == (ctx.app.name, ctx.mode, "capacity", "capacity_rps")}


SCENARIO = Scenario(
    name="capacity", title="Capacity at a latency objective (open loop, at steady state)", phase=Phase.ON_LOAD,
    settings=CapacitySettings, run=run, estimate_s=estimate_s, tables=tables, charts=charts, remarks=remarks,
    describe=describe, setup=ensure_driver, reuse=reuse,
    not_on=((KUBERNETES, "each step reads the app's CPU and oha's per-request records on this machine"),))
