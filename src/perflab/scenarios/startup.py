"""startup: N fresh launches of an app/mode. Each measures time to first response (exec -> first
200, polled at <= 5 ms), the framework's own start time from its log, readiness, RSS just after
the first response and, when the memory scenario is planned, RSS at rest after a quiet pause.

The first launch is the cold one (page cache, class data): it is stored apart (point "cold") and
the warm launches give the median and spread. The first launch also carries the verify step: its
figures are stored only once the app answered the contract's quick check.
"""

from __future__ import annotations

import time

from perflab import contract, probes
from perflab.instance import Instance, mb
from perflab.lab import AppFailed, Lab


def _one_launch(lab: Lab, app, mode: str, rest_s: float | None, verify: bool, tag: str) -> tuple[dict, dict]:
    spec = lab.spec(app, mode)
    cfg = lab.plan["startup"]
    inst = Instance(spec, tag=tag).start()
    figures: dict[str, float] = {}
    info: dict = {}
    try:
        path = cfg["path"] or app.first_response_path
        first = probes.time_to_first_response(inst.base_url + path, inst.spawn_ns, inst.running.proc,
                                              timeout_s=cfg["timeout_s"], interval_ms=cfg["poll_ms"])
        after_first = inst.sampler.sample_now()
        if not first.ok:
            raise AppFailed(f"no first response: {inst.end_reason() or first.reason}")
        figures["ttfr_ms"] = first.elapsed_ms
        info["ttfr_resolution_ms"] = first.resolution_ms
        info["ttfr_attempts"] = first.attempts
        figures["rss_after_first_mb"] = mb(after_first.rss_bytes)
        if after_first.cgroup_memory_bytes is not None:
            figures["cgroup_after_first_mb"] = mb(after_first.cgroup_memory_bytes)
        ready = probes.wait_ready(inst.base_url + app.ready_path, inst.spawn_ns, inst.running.proc,
                                  timeout_s=cfg["timeout_s"], interval_ms=cfg["poll_ms"])
        if ready.ok:
            figures["ready_ms"] = ready.elapsed_ms
        if app.startup_log_regex:
            said = probes.watch_start_log(inst.log_path, app.startup_log_regex, timeout_s=5, process=inst.running.proc)
            if said.ok:
                figures["framework_start_ms"] = said.millis
        if rest_s is not None:
            rest_from = time.monotonic_ns()
            time.sleep(rest_s)
            series = inst.sampler.snapshot()
            # the mean of the second half of the pause: what the process keeps once it is idle
            figures["rss_rest_mb"] = mb(series.mean("rss_bytes", rest_from + int(rest_s * 0.5e9)))
        info["jvm_flags"] = inst.jvm_flags()
        info["limits_enforced"] = inst.cgroup.enforced if inst.cgroup else None
        if verify:
            problems = contract.verify(inst.base_url)
            if problems:
                raise AppFailed("failed the contract check before measuring: " + "; ".join(problems[:5]))
        reason = inst.end_reason()
        if reason:
            raise AppFailed(reason)
    finally:
        inst.stop()
    return figures, info


_MEMORY_METRICS = {"rss_after_first_mb", "cgroup_after_first_mb", "rss_rest_mb"}


def run(lab: Lab, app, mode: str, *, verify: bool) -> None:
    """Raises AppFailed when the app cannot start (or fails verification on the first launch)."""
    cfg = lab.plan["startup"]
    # memory at start and at rest come from these launches: also for modes that get no load scenarios
    with_memory = "memory" in lab.plan["scenarios"]
    rest_s = lab.plan["memory"]["rest_s"] if with_memory else None
    for i in range(cfg["runs"]):
        point = "cold" if i == 0 else "warm"
        lab.progress.update(f"launch {i + 1}/{cfg['runs']} ({point})")
        figures, info = _one_launch(lab, app, mode, rest_s, verify and i == 0, tag=f"start{i}")
        for metric, value in figures.items():
            scenario = "memory" if metric in _MEMORY_METRICS else "startup"
            lab.record(app.name, mode, scenario, metric, value, "MB" if metric.endswith("_mb") else "ms",
                       point=point, repeat=i, extra=info)
    lab.outcome(app.name, mode, "startup", "ok")
