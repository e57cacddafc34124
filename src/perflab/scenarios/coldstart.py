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

from perflab import apps, probes, procs
from perflab.errors import LabError
from perflab.instance import Instance
from perflab.lab import AppFailed, Lab

REFERENCE_MODE = "native"


def steps(plan, target_label: str, start_s: float) -> list[tuple[str, float]]:
    return [(f"{target_label} coldstart", plan["coldstart"]["runs"] * (start_s + 1.5))]


def paired_differences(app_ms: list[float], reference_ms: list[float]) -> list[float]:
    """app[i] - reference[i] for each interleaved pair. Their median is the result, which is not
    the difference of the two medians when the pairs drift together."""
    if len(app_ms) != len(reference_ms):
        raise ValueError(f"unpaired launches: {len(app_ms)} app vs {len(reference_ms)} reference")
    return [a - r for a, r in zip(app_ms, reference_ms)]


def reference_mode(ref: apps.App) -> str:
    """The reference's mode: "native" when it has one, else its first."""
    return REFERENCE_MODE if REFERENCE_MODE in ref.modes else next(iter(ref.modes))


def find_reference(lab: Lab) -> tuple[apps.App | None, str, str]:
    """(the reference app, its mode, "") or (None, "", why it is unavailable)."""
    name = lab.plan["coldstart"]["reference"]
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


def _ttfr(lab: Lab, app: apps.App, mode: str, tag: str, reference: bool) -> probes.PollResult | str:
    """One launch: the poll result, or why it could not even be launched."""
    cfg = lab.plan["startup"]
    spec = lab.spec(app, mode)
    if reference and "{java}" not in " ".join(app.mode(mode).command):
        # same CPUs, quota and memory; the plan's JVM options and JDK mean nothing to a native binary
        spec = dataclasses.replace(spec, jvm_opts=[], jdk=None)
    inst = Instance(spec, procs.free_port(), tag=tag)
    try:
        inst.start()
        path = cfg["path"] or app.first_response_path
        result = probes.time_to_first_response(inst.base_url + path, inst.spawn_ns, inst.running.proc,
                                               timeout_s=cfg["timeout_s"], interval_ms=cfg["poll_ms"])
        if not result.ok:
            return f"no first response: {inst.end_reason() or result.reason}"
        return result
    except LabError as exc:
        return str(exc)
    finally:
        inst.stop()


def pair_order(i: int) -> tuple[str, str]:
    """Which side launches first in pair i: app first, then reference first, and so on, so that
    whatever the previous launch leaves behind (its teardown, a warmer cache) favours neither."""
    return ("app", "reference") if i % 2 == 0 else ("reference", "app")


def run(lab: Lab, app: apps.App, mode: str) -> None:
    ref, ref_mode, why = find_reference(lab)
    if ref is None:
        lab.outcome(app.name, mode, "coldstart", "unavailable", why)
        return
    runs = lab.plan["coldstart"]["runs"]
    reference_label = f"{ref.name}/{ref_mode}"
    for i in range(runs):
        got: dict[str, probes.PollResult] = {}
        for side in pair_order(i):
            label = app.name if side == "app" else reference_label
            lab.progress.update(f"pair {i + 1}/{runs}: {label}")
            if side == "app":
                result = _ttfr(lab, app, mode, f"cold{i}", reference=False)
            else:
                result = _ttfr(lab, ref, ref_mode, f"ref-for-{app.name}-{mode}-{i}", reference=True)
            if isinstance(result, str):
                break
            got[side] = result
        if isinstance(result, str):
            if side == "app" and i == 0:
                raise AppFailed(f"coldstart: {result}")
            who = f"launch {i + 1}" if side == "app" else f"reference {reference_label} launch {i + 1}"
            lab.outcome(app.name, mode, "coldstart", "failed", f"{who}: {result}")
            break
        mine, theirs = got["app"], got["reference"]
        extra = {"reference": reference_label, "pair": i, "first": pair_order(i)[0],
                 "poll_ms": lab.plan["startup"]["poll_ms"], "app_url": mine.url, "reference_url": theirs.url}
        # one figure per pair: the store's summary over the repeats is the median paired difference
        # with its spread
        put = lambda metric, value: lab.record(app.name, mode, "coldstart", metric, value, "ms",  # noqa: E731
                                               point="pairs", repeat=i, extra=extra)
        put("ttfr_ms", mine.elapsed_ms)
        put("reference_ttfr_ms", theirs.elapsed_ms)
        put("ttfr_minus_reference_ms", paired_differences([mine.elapsed_ms], [theirs.elapsed_ms])[0])
    else:
        lab.outcome(app.name, mode, "coldstart", "ok", f"{runs} pairs against {reference_label}")
