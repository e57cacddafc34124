"""memory (under load): peak RSS of the process tree while a closed-loop load runs, sampled
throughout (not read once afterwards), and requests per second per MB of that peak.

RSS after the first request and at rest are measured on the startup scenario's fresh launches
(see startup.py), where every launch gives one more value for their spread.
"""

from __future__ import annotations

from perflab.drivers import wrk
from perflab.instance import Instance
from perflab.lab import Lab
from perflab.scenarios import loadpoint


def run(lab: Lab, inst: Instance) -> None:
    cfg = lab.plan["memory"]
    app, mode = inst.spec.app.name, inst.spec.mode
    conns = cfg["load_connections"]
    threads = max(1, min(conns, len(lab.driver_cpus())))
    for r in range(lab.plan["repeats"]):
        lab.progress.update(f"load r{r + 1}/{lab.plan['repeats']}")
        window = loadpoint.open_window(lab)
        result = wrk.run_wrk(inst.base_url + cfg["load_path"], connections=conns, threads=threads,
                             duration_s=int(cfg["load_duration_s"]), warmup_s=int(cfg["warmup_s"] if r == 0 else 0),
                             cpus=lab.driver_cpus())
        flags = loadpoint.record(lab, inst, "memory", f"load c={conns}", r, result, window)
        series = inst.sampler.snapshot()
        peak = series.peak("rss_bytes", window.start_ns)
        if peak:
            peak_mb = peak / (1024 * 1024)
            lab.record(app, mode, "memory", "rps_per_mb", result.rps / peak_mb, "req/s/MB", point=f"load c={conns}",
                       repeat=r, flags=flags)
        cg_peak = series.peak("cgroup_memory_bytes", window.start_ns)
        if cg_peak:
            lab.record(app, mode, "memory", "cgroup_peak_mb", cg_peak / (1024 * 1024), "MB", point=f"load c={conns}",
                       repeat=r, flags=flags)
    lab.outcome(app, mode, "memory", "ok")
