"""latency: open loop at fixed rates, set as fractions of the measured maximum throughput, with
coordinated-omission-free percentiles (a request's latency counts from when it was due, not from
when the driver got round to sending it). A point whose rate the driver could not hold is flagged
driver-bound, not reported as the app's latency."""

from __future__ import annotations

from perflab import stats
from perflab.drivers import oha, wrk
from perflab.instance import Instance
from perflab.lab import Lab
from perflab.scenarios import loadpoint


def max_rps(lab: Lab, inst: Instance, path: str) -> tuple[float, str]:
    """The highest median req/s a sweep series on the same path measured in this run, else a
    short closed-loop probe at the plan's latency connections."""
    app, mode = inst.spec.app.name, inst.spec.mode
    by_point: dict[str, list[float]] = {}
    series_names = [s["name"] for s in lab.plan["sweep"]["series"] if s["path"] == path]
    for f in lab.store.figures(lab.run_id):
        if (f.app, f.mode, f.scenario, f.metric) == (app, mode, "sweep", "rps") and f.point.split(" ")[0] in series_names \
                and "driver-bound" not in f.flags:
            by_point.setdefault(f.point, []).append(f.value)
    if by_point:
        point, values = max(by_point.items(), key=lambda kv: stats.median(kv[1]))
        return stats.median(values), f"sweep {point}"
    conns = lab.plan["latency"]["connections"]
    probe = wrk.run_wrk(inst.base_url + path, connections=conns, threads=max(1, min(conns, len(lab.driver_cpus()))),
                        duration_s=5, warmup_s=int(lab.plan["latency"]["warmup_s"]), cpus=lab.driver_cpus())
    return probe.rps, f"closed-loop probe c={conns}"


def run(lab: Lab, inst: Instance) -> None:
    cfg = lab.plan["latency"]
    app, mode = inst.spec.app.name, inst.spec.mode
    top, source = max_rps(lab, inst, cfg["path"])
    if top <= 0:
        lab.outcome(app, mode, "latency", "failed", "no throughput measured to derive rates from")
        return
    lab.record(app, mode, "latency", "max_rps_reference", top, "req/s", extra={"source": source})
    repeats = lab.plan["repeats"]
    for r in range(repeats):
        for fraction in cfg["fractions"]:
            rate = max(1.0, round(top * fraction))
            lab.progress.update(f"{fraction:.0%} of max = {rate:.0f} req/s r{r + 1}/{repeats}")
            window = loadpoint.open_window(lab)
            result = oha.run_oha(inst.base_url + cfg["path"], rate=rate, duration_s=cfg["duration_s"],
                                 connections=cfg["connections"], cpus=lab.driver_cpus(),
                                 warmup_s=cfg["warmup_s"] if r == 0 else 0)
            loadpoint.record(lab, inst, "latency", f"{fraction:.0%} of max", r, result, window)
    lab.outcome(app, mode, "latency", "ok")
