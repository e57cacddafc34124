"""scaleup: time from launch to readiness (/health/ready answering 200, not merely a first
response: a scaled-up replica takes traffic only once it is ready), LAB-2020 2.1 without
Kubernetes. N fresh launches under the app's limits; the first (cold) launch is kept apart as in
startup, the warm launches give the median and spread. A launch that fails after the first one
worked is recorded and the others go on.
"""

from __future__ import annotations

from perflab import procs, probes
from perflab.errors import LabError
from perflab.instance import Instance
from perflab.lab import AppFailed, Lab


def steps(plan, target_label: str, start_s: float) -> list[tuple[str, float]]:
    return [(f"{target_label} scaleup", plan["scaleup"]["runs"] * (start_s + 1.0))]


def _one_launch(lab: Lab, app, mode: str, tag: str) -> tuple[probes.PollResult, str]:
    """(readiness poll, why it ended if the instance is gone)."""
    inst = Instance(lab.spec(app, mode), procs.free_port(), tag=tag)
    try:
        inst.start()
        ready = probes.wait_ready(inst.base_url + app.ready_path, inst.spawn_ns, inst.running.proc,
                                  timeout_s=lab.plan["scaleup"]["timeout_s"],
                                  interval_ms=lab.plan["startup"]["poll_ms"])
        return ready, inst.end_reason()
    finally:
        inst.stop()


def run(lab: Lab, app, mode: str) -> None:
    runs = lab.plan["scaleup"]["runs"]
    failures: list[str] = []
    for i in range(runs):
        point = "cold" if i == 0 else "warm"
        lab.progress.update(f"launch {i + 1}/{runs} ({point}) to readiness")
        try:
            ready, ended = _one_launch(lab, app, mode, tag=f"scaleup{i}")
        except LabError as exc:
            ready, ended = None, str(exc)
        if ready is None or not ready.ok:
            why = ended or (ready.reason if ready else "launch failed")
            if i == 0:
                raise AppFailed(f"scaleup: not ready: {why}")
            failures.append(f"launch {i + 1}: {why}")
            continue
        extra = {"resolution_ms": ready.resolution_ms, "attempts": ready.attempts,
                 "uncertainty_ms": ready.uncertainty_ms, "url": ready.url}
        # one figure per launch: the store's summary of the "warm" repeats is the median and spread
        lab.record(app.name, mode, "scaleup", "ready_ms", ready.elapsed_ms, "ms", point=point, repeat=i, extra=extra)
    if failures:
        lab.outcome(app.name, mode, "scaleup", "failed",
                    f"{len(failures)} of {runs} launches not ready: " + "; ".join(failures))
    else:
        lab.outcome(app.name, mode, "scaleup", "ok")
