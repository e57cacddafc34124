"""steady's open-loop point after a launch's measurement: the rate it is offered (a fraction of the
launch's own throughput, of the oldest version's, or of a common basis app/mode's) and its figures."""

from __future__ import annotations

import time

from perflab.drivers.base import LoadResult
from perflab.instance import Instance
from perflab.scenario import Context
from perflab.scenarios import intervals
from perflab.scenarios.steady_loop import who
from perflab.scenarios.steady_settings import SteadyPoint, SteadySettings, point_of
from perflab.store import point


OWN, OLDEST, COMMON = "own throughput", "oldest version", "common basis"  # what an open-loop rate is a fraction of


def open_loop_rate(ctx: Context, rps: float, launch: int) -> tuple[float, dict]:
    """The rate a launch's open-loop point is offered, and what it is a fraction of. Alone, an
    app/mode is offered a fraction of the launch's own steady throughput. Of several versions of one
    app/mode, every launch of every version is offered the same rate, that fraction of the oldest
    version's throughput in its first launch that measured one (the rounds launch it first,
    rounds.orders): a faster version is not offered more, so its p99 there is judged at the same
    load. With [steady] open_loop_basis, every app/mode of the run is offered that fraction of the
    basis app/mode's throughput the same way, so their CPU per request there is at equal load.
    Until the basis has one (its first launch failed), a launch falls back to its own."""
    fraction = ctx.settings.open_loop_fraction
    own = max(1.0, round(rps * fraction))
    label = f"{ctx.app.name}/{ctx.mode}"
    basis_label = ctx.lab.open_loop_basis.get(label)
    if not basis_label:
        return own, {"rate_basis": OWN}
    kind = COMMON if ctx.settings.open_loop_basis else OLDEST
    rates = ctx.lab.open_loop_rates
    fixed = rates.get(basis_label) or _stored_rate(ctx, kind, basis_label)
    if fixed is None:
        if label != basis_label:
            whose = "every app/mode's" if kind == COMMON else "every version's"
            return own, {"rate_basis": OWN, "rate_why": f"{basis_label}, whose throughput sets {whose} rate, "
                                                        "had measured none yet"}
        fixed = {"of": basis_label, "rate": own, "rps": round(rps, 1), "launch": launch, "fraction": fraction}
        if kind == OLDEST:
            fixed["oldest"] = basis_label
    rates[basis_label] = fixed
    return fixed["rate"], {"rate_basis": kind, "basis": fixed}


def _stored_rate(ctx: Context, kind: str, basis_label: str) -> dict | None:
    """The common rate as an earlier part of this run set it (a resumed run's new Lab)."""
    for f in ctx.lab.store.figures(ctx.lab.run_id):
        if f.scenario == "steady" and f.metric == "offered_rate" and f.extra.get("rate_basis") == kind:
            basis = f.extra.get("basis") or {}
            if basis.get("of", basis.get("oldest")) == basis_label:
                return {"of": basis_label, **basis}  # a versions' basis stored before "of" named it
    return None


def measure_open_loop(ctx: Context, inst: Instance, p: SteadyPoint, rps: float, launch: int) -> list[list]:
    """The open-loop point of a launch; returns its timeline rows."""
    cfg: SteadySettings = ctx.settings
    rate, basis = open_loop_rate(ctx, rps, launch)
    at = point(f"{point_of(p).label} open loop {cfg.open_loop_fraction:.0%}", path=p.path,
               fraction=cfg.open_loop_fraction, method="GET", open_loop=True)
    shared = {OLDEST: "every version", COMMON: "every app/mode"}.get(basis["rate_basis"])
    ctx.progress.update(f"{who(ctx)} launch {launch}: open loop at {rate:,.0f} req/s"
                        + (f" ({cfg.open_loop_fraction:.0%} of {basis['basis']['of']}'s throughput, as {shared})"
                           if shared else ""))
    with intervals.request_records() as folder:
        start_ns = time.monotonic_ns()
        result = ctx.load.open(inst.load_url + p.path, rate=rate, duration_s=cfg.open_loop_s,
                               connections=p.connections, requests_db=folder / "measured.db")
        end_ns = time.monotonic_ns()
        rows = intervals.oha_rows(inst, result, folder / "measured.db", launch=launch, point=at.label,
                                  interval_s=cfg.interval_s)
    flags = (["driver-bound"] if result.driver_bound else []) + (["errors"] if result.errors.total else [])
    extra = {"launch": launch, "driver_bound_reason": result.driver_bound_reason, "offered_rate": rate, **basis}
    for metric, value, unit in (("offered_rate", rate, "req/s"), ("rps", result.rps, "req/s"),
                                ("latency_p50_ms", result.latency.percentile("50"), "ms"),
                                ("latency_p99_ms", result.latency.percentile("99"), "ms"),
                                ("latency_p99.9_ms", result.latency.percentile("99.9"), "ms"),
                                ("app_cpu_ms_per_request", open_loop_cpu_ms(inst, result, start_ns, end_ns), "ms")):
        ctx.record(metric, value, unit, at=at, repeat=launch, flags=flags, extra=extra)  # None: not stored
    return rows


def open_loop_cpu_ms(inst: Instance, result: LoadResult, start_ns: int, end_ns: int) -> float | None:
    """The app's CPU per request over an open-loop run: its CPU seconds from its cgroup (else its
    processes) between the run's start and end, over the requests completed (None without both)."""
    series = inst.sampler.snapshot()
    share = series.cpu_share("cgroup_cpu_s", start_ns, end_ns) or series.cpu_share("cpu_s", start_ns, end_ns)
    if share is None or not result.requests:
        return None
    return 1000 * share * (end_ns - start_ns) / 1e9 / result.requests
