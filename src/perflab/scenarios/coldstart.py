"""coldstart: an app's time to first response minus the Go reference app's, measured in the same
run under the same conditions (same limits, CPUs, poll interval and database), as LAB-2020 3.2
compared serverless cold starts with a Go function.

Launches are interleaved in pairs so a slow drift of the machine (page cache, thermal, a
neighbour) hits both sides alike, and the order inside a pair alternates (app first, then
reference first, ...) because a launch right after another one is measurably affected by it; each
pair gives one difference, and the differences' median and spread are the result (paired, not a
difference of medians).
"""

from __future__ import annotations

import dataclasses

from perflab import apps
from perflab.errors import AppFailed, LabError
from perflab.present.tables import Table, by_target_table
from perflab.results import RunView
from perflab.scenario import Context, Phase, Scenario
from perflab.settings import Settings, setting
from perflab.store import point

REFERENCE_MODE = "native"
PAIRS = point("pairs", paired=True)


class ColdstartSettings(Settings):
    reference: str = setting("go-reference", "the app whose time to first response is subtracted")
    runs: int = setting(3, "interleaved pairs of launches", "pairs", ge=1)
    timeout_s: float = setting(180.0, "how long a launch may take to answer", "s", gt=0)
    poll_ms: float = setting(5.0, "time-to-first-response poll interval", "ms", gt=0, le=5)
    path: str = setting("", "the first-response path (empty: each app's own)")


def paired_differences(app_ms: list[float], reference_ms: list[float]) -> list[float]:
    """app[i] - reference[i] for each interleaved pair. Their median is the result, which is not
    the difference of the two medians when the pairs drift together."""
    if len(app_ms) != len(reference_ms):
        raise ValueError(f"unpaired launches: {len(app_ms)} app vs {len(reference_ms)} reference")
    return [a - r for a, r in zip(app_ms, reference_ms)]


def reference_mode(ref: apps.App) -> str:
    """The reference's mode: "native" when it has one, else its first."""
    return REFERENCE_MODE if REFERENCE_MODE in ref.modes else next(iter(ref.modes))


def find_reference(name: str) -> tuple[apps.App | None, str, str]:
    """(the reference app, its mode, "") or (None, "", why it is unavailable)."""
    try:
        ref = apps.get(name)
    except LabError as exc:
        return None, "", f"reference app {name!r} not found: {exc}"
    mode = reference_mode(ref)
    built = ref.for_mode(mode)  # a mode may have a build of its own
    if not built.artifact_path.exists():
        why = apps.unavailable(ref, mode) or f"build it with: ./perflab apps build {name}"
        return None, "", f"reference app {name} is not built ({built.artifact} is missing; {why})"
    return ref, mode, ""


def build_reference(settings: ColdstartSettings, say) -> None:
    """The reference is built even when it is not one of the plan's apps."""
    ref = apps.discover().get(settings.reference)
    if ref is None:
        return  # said per app/mode as "unavailable" when the scenario runs
    mode = reference_mode(ref)
    if not apps.unavailable(ref, mode):
        try:
            apps.build(ref.for_mode(mode), log=say)
        except LabError as exc:
            say(f"coldstart reference not built: {exc.message}")


def _ttfr(ctx: Context, app: apps.App, mode: str, tag: str, reference: bool):
    """One launch: the poll result, or why it could not even be launched or answer."""
    cfg: ColdstartSettings = ctx.settings
    spec = ctx.lab.spec(app, mode)
    if reference and not app.mode(mode).is_jvm:
        # same CPUs, quota and memory; the plan's JVM options and JDK mean nothing to a native binary
        spec = dataclasses.replace(spec, jvm_opts=[], jdk=None)
    try:
        inst = ctx.lab.placement.cold(spec, tag)  # a process here; a Knative Service at zero on a cluster
    except LabError as exc:
        return exc.message
    try:
        return inst.first_response(cfg.path or app.first_response_path, cfg.timeout_s, cfg.poll_ms)
    except AppFailed as exc:
        return str(exc)
    finally:
        inst.stop()


def pair_order(i: int) -> tuple[str, str]:
    """Which side launches first in pair i: app first, then reference first, and so on, so that
    whatever the previous launch leaves behind (its teardown, a warmer cache) favours neither."""
    return ("app", "reference") if i % 2 == 0 else ("reference", "app")


def run(ctx: Context) -> None:
    ref, ref_mode, why = find_reference(ctx.settings.reference)
    if ref is None:
        ctx.outcome("unavailable", why)
        return
    runs = ctx.settings.runs
    reference_label = f"{ref.name}/{ref_mode}"
    for i in range(runs):
        got = {}
        for side in pair_order(i):
            label = ctx.app.name if side == "app" else reference_label
            ctx.progress.update(f"pair {i + 1}/{runs}: {label}")
            if side == "app":
                result = _ttfr(ctx, ctx.app, ctx.mode, f"cold{i}", reference=False)
            else:
                result = _ttfr(ctx, ref, ref_mode, f"ref-for-{ctx.app.name}-{ctx.mode}-{i}", reference=True)
            if isinstance(result, str):
                break
            got[side] = result
        if isinstance(result, str):
            if side == "app" and i == 0:
                raise AppFailed(f"coldstart: {result}")
            who = f"launch {i + 1}" if side == "app" else f"reference {reference_label} launch {i + 1}"
            ctx.outcome("failed", f"{who}: {result}")
            break
        mine, theirs = got["app"], got["reference"]
        extra = {"reference": reference_label, "pair": i, "first": pair_order(i)[0],
                 "poll_ms": ctx.settings.poll_ms, "app_url": mine.url, "reference_url": theirs.url}
        # one figure per pair: the store's summary over the repeats is the median paired difference
        # with its spread
        for metric, value in (("ttfr_ms", mine.elapsed_ms), ("reference_ttfr_ms", theirs.elapsed_ms),
                              ("ttfr_minus_reference_ms",
                               paired_differences([mine.elapsed_ms], [theirs.elapsed_ms])[0])):
            ctx.record(metric, value, "ms", at=PAIRS, repeat=i, extra=extra)
    else:
        ctx.outcome("ok", f"{runs} pairs against {reference_label}")


def tables(view: RunView) -> list[Table]:
    t = by_target_table(view, "coldstart", "Time to first response against the reference (ms, paired launches)",
                        view.find("coldstart", point="pairs"),
                        ["ttfr_ms", "reference_ttfr_ms", "ttfr_minus_reference_ms"])
    return [t] if t else []


SCENARIO = Scenario(
    name="coldstart", title="Cold start against the Go reference", phase=Phase.OWN_BEFORE,
    settings=ColdstartSettings, run=run, estimate_s=lambda e: e.settings.runs * (e.start_s + 1.5), tables=tables,
    setup=build_reference, legacy_params=lambda label: {"paired": True} if label == "pairs" else {})
