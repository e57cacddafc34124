"""The terminal summary of a run: per scenario a table with median [min-max] and CV for every
app/mode, flags spelled out, then outcomes that were not ok and what was not measured."""

from __future__ import annotations

import re

from perflab.results import Cell, RunView

FLAG_MARK = {"noisy": "~", "driver-bound": "D", "errors": "E", "single": "1", "cached-build": "c", "no-responses": "0"}
FLAG_HELP = {"~": "noisy (CV above threshold)", "D": "driver-bound: the load driver, not the app, was the limit",
             "E": "errors (non-2xx, timeouts or socket errors)", "1": "a single value: no spread",
             "c": "build time from the cached build", "0": "no responses"}


def fmt_value(v: float) -> str:
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_cell(cell: Cell | None) -> str:
    if cell is None:
        return "-"
    s = cell.summary
    text = fmt_value(s.median)
    if s.n > 1:
        text += f" [{fmt_value(s.min)}-{fmt_value(s.max)}] cv{s.cv * 100:.0f}%"
    marks = "".join(sorted(FLAG_MARK[f] for f in cell.flags if f in FLAG_MARK))
    return text + (f" {marks}" if marks else "")


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = lambda cols: "  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip()  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def _point_key(point: str):
    m = re.search(r"c=(\d+)", point)
    return (re.sub(r"c=\d+", "", point), int(m.group(1)) if m else 0, point)


def metric_table(view: RunView, scenario: str, metrics: list[tuple[str, str]], point: str | None = None) -> str | None:
    """Rows = app/mode, columns = metrics."""
    rows = []
    found = view.find(scenario, point=point)
    targets = [t for t in dict.fromkeys(c.target for c in found)]
    for target in sorted(targets, key=lambda t: view.targets().index(t) if t in view.targets() else -1):
        cells = {c.metric: c for c in found if c.target == target}
        if cells:
            rows.append([target, *(fmt_cell(cells.get(m)) for m, _ in metrics)])
    return table(["app/mode", *(label for _, label in metrics)], rows) if rows else None


def point_table(view: RunView, scenario: str, metric: str, prefix: str = "") -> str | None:
    """Rows = points (e.g. connection counts), columns = app/mode."""
    cells = [c for c in view.find(scenario, metric) if c.point.startswith(prefix)]
    if not cells:
        return None
    targets = [t for t in view.targets() if any(c.target == t for c in cells)]
    points = sorted({c.point for c in cells}, key=_point_key)
    rows = []
    for p in points:
        by_target = {c.target: c for c in cells if c.point == p}
        rows.append([p, *(fmt_cell(by_target.get(t)) for t in targets)])
    return table(["point", *targets], rows)


def render(view: RunView) -> str:
    env = view.environment
    out = [f"run {view.id} ({view.status}) plan {view.plan.get('name')}",
           f"machine: {env.get('cpu_model')}, {env.get('cpus_online')} CPUs, {env.get('memory_mb')} MB, "
           f"kernel {env.get('kernel')}; git {(env.get('git') or {}).get('sha', '')[:12]}"
           f"{' (dirty)' if (env.get('git') or {}).get('dirty') else ''}",
           f"limits: app {view.plan['limits']['cpus']} CPU, {view.plan['limits']['memory_mb']} MB; "
           f"topology: {(env.get('topology') or {}).get('description', '?')}"]
    sections = [
        ("footprint", metric_table(view, "footprint", [("artifact_mb", "artifact MB"), ("build_s", "build s")])),
        ("startup, cold (first launch)", metric_table(view, "startup", [("ttfr_ms", "TTFR ms"), ("framework_start_ms", "framework ms"), ("ready_ms", "ready ms")], point="cold")),
        ("startup, warm launches", metric_table(view, "startup", [("ttfr_ms", "TTFR ms"), ("framework_start_ms", "framework ms"), ("ready_ms", "ready ms")], point="warm")),
        ("memory at start (warm launches, RSS MB)", metric_table(view, "memory", [("rss_after_first_mb", "after 1st request"), ("rss_rest_mb", "at rest")], point="warm")),
    ]
    load_points = sorted({c.point for c in view.find("memory", "rps_per_mb")})
    for p in load_points:
        sections.append((f"memory under load ({p})", metric_table(view, "memory", [("rss_peak_mb", "peak RSS MB"), ("rps", "req/s"), ("rps_per_mb", "req/s per MB")], point=p)))
    for s in view.plan.get("sweep", {}).get("series", []):
        sections.append((f"sweep {s['name']} ({s['path']}): req/s", point_table(view, "sweep", "rps", s["name"] + " ")))
        sections.append((f"sweep {s['name']}: mean latency ms", point_table(view, "sweep", "latency_mean_ms", s["name"] + " ")))
        sections.append((f"sweep {s['name']}: p99 latency ms", point_table(view, "sweep", "latency_p99_ms", s["name"] + " ")))
    sections.append(("latency (open loop): p50 ms", point_table(view, "latency", "latency_p50_ms")))
    sections.append(("latency (open loop): p99 ms", point_table(view, "latency", "latency_p99_ms")))
    sections.append(("write: req/s", point_table(view, "write", "rps")))
    sections.append(("write: mean latency ms", point_table(view, "write", "latency_mean_ms")))
    sections.append(("scaleup: launch to /health/ready, warm launches (ms)",
                     metric_table(view, "scaleup", [("ready_ms", "ready ms")], point="warm")))
    sections.append(("coldstart: time to first response vs the Go reference (ms)",
                     metric_table(view, "coldstart", [("ttfr_ms", "TTFR"), ("reference_ttfr_ms", "reference TTFR"),
                                                      ("ttfr_minus_reference_ms", "difference")], point="pairs")))
    sections.append(("density: instances in the budget", metric_table(view, "density", [("instances", "instances"), ("instances_lost", "lost")], point="")))
    sections.append(("density: memory at rest (MB)", metric_table(view, "density", [("instance_rss_mb", "per instance"), ("total_rss_mb", "total RSS"), ("cgroup_memory_mb", "cgroup")], point="rest")))
    sections.append(("density: all instances loaded together (req/s)", metric_table(view, "density", [("aggregate_rps", "measured"), ("projected_rps", "RT-2019 projection"), ("aggregate_vs_projection", "measured / projected")], point="load")))
    sections.append(("soak", metric_table(view, "soak", [("requests", "requests"), ("errors", "errors"), ("rss_drift_mb_per_h", "RSS drift MB/h"), ("gc_collections", "GCs"), ("gc_pause_total_ms", "GC pause ms")], point="")))
    for title, body in sections:
        if body:
            out += ["", title, body]
    problems = [o for o in view.outcomes if o["status"] != "ok"]
    if problems:
        out += ["", "not measured or failed:"]
        out += [f"  {o['app']}/{o['mode']} {o['scenario']}: {o['status']} {o['reason']}" for o in problems]
    used = {m for c in view.cells for f in c.flags if (m := FLAG_MARK.get(f))}
    if used:
        out += ["", "marks: " + "; ".join(f"{m} {FLAG_HELP[m]}" for m in sorted(used))]
    out.append("values: median [min-max] cvN% over the repeats")
    return "\n".join(out)
