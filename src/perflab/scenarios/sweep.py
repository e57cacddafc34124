"""sweep: closed-loop throughput and latency against the number of connections (RT-2019's 1..40 on
/fruits, LAB-2020's 8..56 on /todos). Each series is warmed up once at its highest connection count
(recorded), then the points are measured round-robin, repeat by repeat, so a slow drift (JIT,
GC, the machine) spreads over all points instead of biasing the last ones."""

from __future__ import annotations

from perflab.drivers import wrk
from perflab.instance import Instance
from perflab.lab import Lab
from perflab.scenarios import loadpoint


def run(lab: Lab, inst: Instance, series: dict) -> None:
    cfg = lab.plan["sweep"]
    app, mode = inst.spec.app.name, inst.spec.mode
    url = inst.base_url + series["path"]
    driver_cpus = lab.driver_cpus()
    if cfg["warmup_s"] >= 1:
        top = max(series["connections"])
        lab.progress.update(f"{series['name']} warm-up {cfg['warmup_s']:.0f}s")
        wrk.run_wrk(url, connections=top, threads=max(1, min(top, len(driver_cpus))), duration_s=int(cfg["warmup_s"]),
                    cpus=driver_cpus, timeout_s=cfg["timeout_s"])
    repeats = lab.plan["repeats"]
    for r in range(repeats):
        for conns in series["connections"]:
            if inst.exited() is not None:
                raise RuntimeError(f"the app ended during the sweep: {inst.end_reason()}")
            lab.progress.update(f"{series['name']} c={conns} r{r + 1}/{repeats}")
            threads = cfg["threads"] or max(1, min(conns, len(driver_cpus)))
            window = loadpoint.open_window(lab)
            result = wrk.run_wrk(url, connections=conns, threads=min(threads, conns), duration_s=int(cfg["duration_s"]),
                                 cpus=driver_cpus, timeout_s=cfg["timeout_s"])
            loadpoint.record(lab, inst, "sweep", f"{series['name']} c={conns}", r, result, window)
    lab.outcome(app, mode, f"sweep:{series['name']}", "ok")
