"""write: KT-2020's read-by-key and create mix, measured apart: GET /data/{key} and POST /data
(unique keys), wrk -t2 -c10 by default."""

from __future__ import annotations

from perflab.drivers import wrk
from perflab.instance import Instance
from perflab.lab import Lab
from perflab.scenarios import loadpoint


def run(lab: Lab, inst: Instance) -> None:
    cfg = lab.plan["write"]
    app, mode = inst.spec.app.name, inst.spec.mode
    conns, threads = cfg["connections"], min(cfg["threads"], cfg["connections"])
    for r in range(lab.plan["repeats"]):
        for name, script in (("GET /data/{key}", "get_data"), ("POST /data", "post_data")):
            lab.progress.update(f"{name} r{r + 1}/{lab.plan['repeats']}")
            window = loadpoint.open_window(lab)
            result = wrk.run_wrk(inst.base_url, connections=conns, threads=threads, duration_s=int(cfg["duration_s"]),
                                 warmup_s=int(cfg["warmup_s"]) if r == 0 else 0, cpus=lab.driver_cpus(), script=script)
            loadpoint.record(lab, inst, "write", name, r, result, window)
    lab.outcome(app, mode, "write", "ok")
