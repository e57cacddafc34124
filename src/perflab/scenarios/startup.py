"""startup: N fresh launches of an app/mode. Each measures time to first response (exec -> first
200, polled at <= 5 ms), the framework's own start time from its log, readiness, RSS just after
the first response and, when startup.rest_s > 0, RSS at rest after a quiet pause.

The first launch is the cold one (page cache, class data): it is stored apart (point "cold") and
the warm launches give the median and spread. The first launch also carries the verify step: its
figures are stored only once the app answered the contract's quick check. With
steady.startup_figures, steady's fresh launches are measured the same way and stored here as warm
launches (a plan then need not launch each app twice as often; startup.runs = 1 keeps the cold one).
"""

from __future__ import annotations

import time

from perflab import api_checks
from perflab.errors import AppFailed, LabError
from perflab.instance import mb
from perflab.present import scenario_charts
from perflab.present.chart_inputs import ChartInputs
from perflab.present.tables import Table, by_target_table
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.settings import Settings, setting
from perflab.store import point

COLD, WARM = point("cold", launch="cold"), point("warm", launch="warm")


class StartupSettings(Settings):
    runs: int = setting(5, "fresh launches; the first (cold) one is kept apart (1: the cold one only, e.g. when "
                           "steady.startup_figures gives the warm ones)", "launches", ge=1)
    timeout_s: float = setting(180.0, "how long a launch may take to answer", "s", gt=0)
    poll_ms: float = setting(5.0, "time-to-first-response poll interval", "ms", gt=0, le=5)
    path: str = setting("", "the first-response path (empty: the app's own, e.g. /hello)")
    rest_s: float = setting(5.0, "quiet pause after the first response before RSS at rest (0: not measured)",
                            "s", ge=0)


def first_figures(ctx: Context, inst, cfg: StartupSettings) -> tuple[dict, dict]:
    """A started instance's start-up figures: time to first response, RSS after it, readiness, the
    framework's own start time and, when cfg.rest_s > 0, RSS at rest. The instance is left running
    (steady's launches go on to load it)."""
    figures: dict[str, float] = {}
    info: dict = {}
    first = inst.first_response(cfg.path or ctx.app.first_response_path, cfg.timeout_s, cfg.poll_ms)
    after_first = inst.sampler.sample_now()
    figures["ttfr_ms"] = first.elapsed_ms
    info["ttfr_resolution_ms"] = first.resolution_ms
    info["ttfr_attempts"] = first.attempts
    figures["rss_after_first_mb"] = mb(after_first.rss_bytes)
    if after_first.cgroup_memory_bytes is not None:
        figures["cgroup_after_first_mb"] = mb(after_first.cgroup_memory_bytes)
    try:
        figures["ready_ms"] = inst.wait_until_ready(cfg.timeout_s, cfg.poll_ms).elapsed_ms
    except AppFailed:
        pass  # answering but never ready: no ready figure (a crash is caught by the caller's check)
    if ctx.app.startup_log_regex:
        said = inst.start_log(ctx.app.startup_log_regex, timeout_s=5)
        if said.ok:
            figures["framework_start_ms"] = said.millis
    if cfg.rest_s > 0:
        rest_from = time.monotonic_ns()
        time.sleep(cfg.rest_s)
        # the mean of the second half of the pause: what the process keeps once it is idle
        rested = inst.sampler.snapshot()
        half = rest_from + int(cfg.rest_s * 0.5e9)
        figures["rss_rest_mb"] = mb(rested.mean("rss_bytes", half))
        cgroup_rest = rested.mean("cgroup_memory_bytes", half)  # what docker stats shows (KT-2020)
        if cgroup_rest is not None:
            figures["cgroup_rest_mb"] = mb(cgroup_rest)
    info["jvm_flags"] = inst.jvm_flags()
    info["limits_enforced"] = inst.limits_enforced
    return figures, info


def record_launch(ctx: Context, figures: dict, info: dict, repeat: int, *, scenario: str | None = None) -> None:
    """One launch's start-up figures; repeat 0 is the cold launch, every other one a warm launch."""
    at = COLD if repeat == 0 else WARM
    for metric, value in figures.items():
        ctx.record(metric, value, _UNITS.get(metric, "MB"), at=at, repeat=repeat, extra=info, scenario=scenario)


def _one_launch(ctx: Context, verify: bool, tag: str) -> tuple[dict, dict]:
    cfg: StartupSettings = ctx.settings
    inst = ctx.launch(tag)
    try:
        figures, info = first_figures(ctx, inst, cfg)
        if verify:
            problems = api_checks.verify(ctx.app, inst.base_url)
            if problems:
                raise AppFailed(f"failed the {api_checks.name(ctx.app)} before measuring: " + "; ".join(problems[:5]))
        inst.check_alive()
    finally:
        inst.stop()
    return figures, info


_UNITS = {"ttfr_ms": "ms", "ready_ms": "ms", "framework_start_ms": "ms"}


def run(ctx: Context) -> None:
    """Raises AppFailed when the app cannot start (or fails verification on the first launch). In
    rounds, only the cold launch runs here: the warm ones come from the rounds (see launch)."""
    runs = 1 if ctx.rounds else ctx.settings.runs
    for i in range(runs):
        at = COLD if i == 0 else WARM
        ctx.progress.update(f"launch {i + 1}/{ctx.settings.runs} ({at.label})")
        figures, info = _one_launch(ctx, ctx.verify and i == 0, tag=f"start{i}")
        record_launch(ctx, figures, info, i)
    if not ctx.rounds or ctx.settings.runs == 1:
        ctx.outcome("ok")


def launch(ctx: Context, n: int) -> None:
    """Warm launch n (1, 2, ...), in the runner's rounds."""
    figures, info = _one_launch(ctx, False, tag=f"start{n}")
    record_launch(ctx, figures, {**info, "round": n}, n)
    return None


def planned_launches(settings: StartupSettings) -> int:
    return settings.runs - 1  # the warm ones; the cold one runs before the rounds


def after_launches(ctx: Context, launches: int, failures: list[str]) -> None:
    ctx.outcome("failed", "; ".join(failures)) if failures else ctx.outcome("ok")


def estimate_s(e: Estimate) -> float:
    return e.settings.runs * (e.start_s + e.settings.rest_s + 1.0)


def tables(view: RunView) -> list[Table]:
    out = []
    for at, title in ((WARM, "Warm launches (median over launches 2..N)"), (COLD, "First (cold) launch")):
        t = by_target_table(view, f"startup-{at.label}", title, view.find("startup", point=at.label),
                            ["ttfr_ms", "framework_start_ms", "ready_ms"])
        if t:
            out.append(t)
    for at, title in ((WARM, "Memory after start (warm launches)"), (COLD, "Memory after start (first launch)")):
        t = by_target_table(view, f"memory-{at.label}", title, view.find("startup", point=at.label),
                            ["rss_after_first_mb", "rss_rest_mb", "cgroup_after_first_mb", "cgroup_rest_mb"])
        if t:
            t.terminal = at is WARM
            out.append(t)
    return out


def legacy_params(label: str) -> dict:
    return {"launch": label} if label in ("cold", "warm") else {}


def describe(p: dict, plan: dict) -> str:
    rest = p.get("rest_s", 0)
    steady = plan.get("steady") or {}
    fed = steady_feeds_startup(plan, plan.get("scenarios", []))
    runs = (f"{p.get('runs', '?')} fresh launch{'' if p.get('runs') == 1 else 'es'} (the first kept apart as the cold "
            f"one) and steady's {steady.get('launches', '?')} fresh launches as warm ones" if fed
            else f"{p.get('runs', '?')} fresh launches")
    return (f"{runs}; time to first response polled every {p.get('poll_ms', '?')} ms "
            f"on {p.get('path') or 'the app’s first-response path'}; the framework's start time from its log; "
            f"RSS after the first request" + (f" and after {rest} s at rest." if rest else "."))


def charts(view: RunView, inputs: ChartInputs, colors: dict) -> list:
    return [scenario_charts.startup_chart(view, colors),
            scenario_charts.startup_chart(view, colors, "framework_start_ms")]


def steady_feeds_startup(data: dict, scenarios: list[str]) -> bool:
    """Whether steady's launches are also startup's warm launches where these scenarios run."""
    steady = data.get("steady") or {}  # a run stored before the setting existed has none
    return bool(steady.get("startup_figures")) and "steady" in scenarios and "startup" in scenarios


def check_warm_launches(data: dict, source: str) -> None:
    """Start-up figures need a warm launch beside the cold one: startup's own, or steady's, in every
    scenario list of the plan (an app's extra modes may run startup without steady)."""
    if data["startup"]["runs"] >= 2:
        return
    for where, scenarios in [("scenarios", data["scenarios"])] + [(f"mode_scenarios.{m}", s)
                                                                   for m, s in data["mode_scenarios"].items()]:
        if "startup" in scenarios and not steady_feeds_startup(data, scenarios):
            raise LabError(f"{source}: startup.runs = {data['startup']['runs']} leaves no warm launch in {where}",
                           fix="set startup.runs to 2 or more, or steady.startup_figures = true with steady "
                               "beside startup")


SCENARIO = Scenario(
    name="startup", title="Start-up: time to first response, framework start, memory after start",
    phase=Phase.OWN_BEFORE, settings=StartupSettings, run=run, estimate_s=estimate_s, tables=tables,
    legacy_params=legacy_params, describe=describe, charts=charts, verifies_contract=True, launch=launch,
    estimate_measured=lambda e: e.start_measured,
    planned_launches=planned_launches, after_launches=after_launches, check_plan=check_warm_launches)
