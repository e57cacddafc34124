"""scaleup: time from launch to readiness (/health/ready answering 200, not merely a first
response: a scaled-up replica takes traffic only once it is ready), LAB-2020 2.1 without
Kubernetes. N fresh launches under the app's limits; the first (cold) launch is kept apart as in
startup, the warm launches give the median and spread. A launch that fails after the first one
worked is recorded and the others go on.
"""

from __future__ import annotations

from perflab.errors import AppFailed, LabError
from perflab.present.tables import Table, by_target_table
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.settings import Settings, setting
from perflab.store import point


class ScaleupSettings(Settings):
    runs: int = setting(3, "fresh launches; the first (cold) one is kept apart", "launches", ge=2)
    timeout_s: float = setting(180.0, "how long a launch may take to become ready", "s", gt=0)
    poll_ms: float = setting(5.0, "readiness poll interval", "ms", gt=0, le=50)


def _one_launch(ctx: Context, tag: str):
    inst = ctx.launch(tag)
    try:
        return inst.wait_until_ready(ctx.settings.timeout_s, ctx.settings.poll_ms)
    finally:
        inst.stop()


def run(ctx: Context) -> None:
    runs = ctx.settings.runs
    failures: list[str] = []
    for i in range(runs):
        at = point("cold", launch="cold") if i == 0 else point("warm", launch="warm")
        ctx.progress.update(f"launch {i + 1}/{runs} ({at.label}) to readiness")
        try:
            ready = _one_launch(ctx, tag=f"scaleup{i}")
        except (AppFailed, LabError) as exc:
            why = exc.message if isinstance(exc, LabError) else str(exc)
            if i == 0:
                raise AppFailed(f"scaleup: {why}") from exc
            failures.append(f"launch {i + 1}: {why}")
            continue
        extra = {"resolution_ms": ready.resolution_ms, "attempts": ready.attempts,
                 "uncertainty_ms": ready.uncertainty_ms, "url": ready.url}
        # one figure per launch: the store's summary of the "warm" repeats is the median and spread
        ctx.record("ready_ms", ready.elapsed_ms, "ms", at=at, repeat=i, extra=extra)
    if failures:
        ctx.outcome("failed", f"{len(failures)} of {runs} launches not ready: " + "; ".join(failures))
    else:
        ctx.outcome("ok")


def tables(view: RunView) -> list[Table]:
    out = []
    for label, title in (("warm", "Launch to /health/ready, warm launches"), ("cold", "Launch to /health/ready, first launch")):
        t = by_target_table(view, f"scaleup-{label}", title, view.find("scaleup", point=label), ["ready_ms"])
        if t:
            t.terminal = label == "warm"
            out.append(t)
    return out


SCENARIO = Scenario(
    name="scaleup", title="Scale-up: launch to readiness", phase=Phase.OWN_BEFORE, settings=ScaleupSettings,
    run=run, estimate_s=lambda e: e.settings.runs * (e.start_s + 1.0), tables=tables,
    legacy_params=lambda label: {"launch": label} if label in ("cold", "warm") else {})
