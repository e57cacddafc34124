"""Study-shaped tables from a RunView, as data both renderers (HTML, Markdown) lay out.

Every table cell is a measured Cell (median with its spread and flags) or None (not measured).
Each scenario gets the shape its study used: throughput and latency per connection count with a
column per app/mode, start-up and memory per app/mode, and so on. Scenarios without a dedicated
shape (and figures a dedicated shape does not show) still get a generic table, so no stored
figure is left out of a report.

"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perflab.plan import SCENARIOS
from perflab.results import Cell, RunView

FLAG_MARK = {"noisy": "~", "driver-bound": "D", "errors": "E", "single": "1", "cached-build": "c",
             "no-responses": "0"}
FLAG_HELP = {
    "noisy": "the repeats' CV is above the plan's threshold",
    "driver-bound": "the load driver, not the app, was the limit",
    "errors": "non-2xx responses, timeouts or socket errors",
    "single": "a single value: no spread",
    "cached-build": "build time of the cached build (not rebuilt for this run)",
    "no-responses": "no responses at all",
}
SERIOUS_FLAGS = {"driver-bound", "errors", "no-responses", "instance-lost", "crashed", "interrupted"}


def flag_help(flag: str) -> str:
    """What a flag means; flags of later scenarios (e.g. lower-bound, drift-*) explain themselves."""
    return FLAG_HELP.get(flag, flag.replace("-", " "))

SCENARIO_TITLES = {
    "footprint": "Footprint: artifact size and build time",
    "startup": "Start-up: time to first response and framework start",
    "memory": "Memory: RSS after the first request, at rest, and under load",
    "sweep": "Throughput and latency vs connections (closed loop)",
    "latency": "Latency at fixed rates (open loop)",
    "write": "Read by key and create (GET /data/{key}, POST /data)",
    "density": "Density: instances in a memory budget",
    "scaleup": "Scale-up: launch to readiness",
    "coldstart": "Cold start against the Go reference",
    "soak": "Soak: a long run",
}

METRIC_LABELS = {
    "artifact_mb": "artifact MB", "build_s": "build s", "ttfr_ms": "time to first response ms",
    "framework_start_ms": "framework start ms", "ready_ms": "ready ms",
    "rss_after_first_mb": "RSS after 1st request MB", "cgroup_after_first_mb": "cgroup after 1st request MB",
    "rss_rest_mb": "RSS at rest MB", "rss_peak_mb": "peak RSS MB", "cgroup_peak_mb": "cgroup peak MB",
    "rps": "req/s", "rps_per_mb": "req/s per MB", "latency_mean_ms": "mean ms", "latency_max_ms": "max ms",
    "latency_p50_ms": "p50 ms", "latency_p90_ms": "p90 ms", "latency_p99_ms": "p99 ms",
    "latency_p99.9_ms": "p99.9 ms", "errors": "errors", "requests": "requests", "offered_rate": "offered req/s",
    "driver_cpu_util": "driver CPU", "app_cpu_share": "app CPUs", "db_cpu_s": "DB CPU s",
    "max_rps_reference": "max req/s (reference)", "instances": "instances", "total_rss_mb": "total RSS MB",
    "per_instance_rss_mb": "RSS per instance MB", "rss_10_instances_mb": "RSS of 10 instances MB",
    "aggregate_rps": "aggregate req/s", "projected_rps": "projected req/s",
    "ttfr_minus_reference_ms": "TTFR minus the reference ms",
}
LOAD_METRICS = ["rps", "latency_mean_ms", "latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "latency_p99.9_ms",
                "latency_max_ms", "errors", "rss_peak_mb", "app_cpu_share", "driver_cpu_util"]
PERCENTILES = [("latency_p50_ms", 50.0), ("latency_p90_ms", 90.0), ("latency_p99_ms", 99.0),
               ("latency_p99.9_ms", 99.9)]


# --- formatting shared by both renderers -------------------------------------------------------

def fmt_value(v: float) -> str:
    a = abs(v)
    if 10 <= a < 1000 and float(v).is_integer():
        return str(int(v))
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 0.1 or a == 0:
        return f"{v:.2f}"
    return f"{v:.3g}"


def fmt_published(v: float) -> str:
    """A published figure as the study wrote it: counts and whole numbers without decimals."""
    return f"{v:,.0f}" if float(v).is_integer() else fmt_value(v)


def fmt_ratio(r: float | None) -> str:
    if r is None:
        return "-"
    return f"{r:.2f}x" if abs(r) >= 0.1 else f"{r:.2g}x"  # small ratios keep two significant digits


def spread_text(cell: Cell) -> str:
    """[min-max] cv n, or "n=1" for a single value."""
    s = cell.summary
    if s.n == 1:
        return "n=1"
    return f"[{fmt_value(s.min)}-{fmt_value(s.max)}] cv {s.cv * 100:.0f}% n={s.n}"


def marks(cell: Cell) -> str:
    known = "".join(sorted(FLAG_MARK[f] for f in cell.flags if f in FLAG_MARK))
    other = " ".join(f"[{f}]" for f in sorted(cell.flags) if f not in FLAG_MARK)
    return " ".join(x for x in (known, other) if x)


def label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric)


# --- tables ------------------------------------------------------------------------------------

@dataclass
class Table:
    key: str
    title: str
    row_header: str
    columns: list[str]
    rows: list[tuple[str, list[Cell | None]]]
    note: str = ""

    def cells(self) -> list[Cell]:
        return [c for _, row in self.rows for c in row if c is not None]

    def without_empty_columns(self) -> "Table":
        keep = [i for i in range(len(self.columns)) if any(row[i] is not None for _, row in self.rows)]
        return Table(self.key, self.title, self.row_header, [self.columns[i] for i in keep],
                     [(lbl, [row[i] for i in keep]) for lbl, row in self.rows], self.note)


def point_key(point: str) -> tuple:
    m = re.search(r"c=(\d+)", point)
    pct = re.match(r"(\d+)% of max", point)
    return (re.sub(r"c=\d+", "", point), int(m.group(1)) if m else 0, int(pct.group(1)) if pct else 0, point)


def ordered_targets(view: RunView, cells: list[Cell]) -> list[str]:
    order = view.targets()
    present = dict.fromkeys(c.target for c in cells)
    return sorted(present, key=lambda t: order.index(t) if t in order else len(order))


def by_target_table(view: RunView, key: str, title: str, cells: list[Cell], metrics: list[str],
                    note: str = "") -> Table | None:
    """Rows = app/mode, columns = metrics."""
    cells = [c for c in cells if c.metric in metrics]
    if not cells:
        return None
    rows = []
    for target in ordered_targets(view, cells):
        mine = {c.metric: c for c in cells if c.target == target}
        rows.append((target, [mine.get(m) for m in metrics]))
    used = [i for i in range(len(metrics)) if any(row[i] is not None for _, row in rows)]
    rows = [(t, [row[i] for i in used]) for t, row in rows]
    return Table(key, title, "app/mode", [label(metrics[i]) for i in used], rows, note)


def by_point_table(view: RunView, key: str, title: str, cells: list[Cell], row_header: str = "point",
                   row_label=lambda p: p, note: str = "") -> Table | None:
    """Rows = points (connection counts, rates), columns = app/mode."""
    if not cells:
        return None
    targets = ordered_targets(view, cells)
    rows = []
    for point in sorted({c.point for c in cells}, key=point_key):
        mine = {c.target: c for c in cells if c.point == point}
        rows.append((row_label(point), [mine.get(t) for t in targets]))
    return Table(key, title, row_header, targets, rows, note)


def _footprint(view: RunView) -> list[Table]:
    cells = view.find("footprint")
    if not cells:
        return []
    rows = []
    for app in dict.fromkeys(c.app for c in cells):
        mine = {c.metric: c for c in cells if c.app == app}
        modes = sorted({c.mode for c in cells if c.app == app})
        rows.append((app if modes == ["all"] else f"{app} ({', '.join(modes)})",
                     [mine.get("artifact_mb"), mine.get("build_s")]))
    return [Table("footprint", "Artifact and build", "app", ["artifact MB", "build s"], rows,
                  "the build's artifact (for the JVM apps the jar); c = time of a cached build")]


def _startup(view: RunView) -> list[Table]:
    out = []
    for point, title in (("warm", "Warm launches (median over launches 2..N)"), ("cold", "First (cold) launch")):
        t = by_target_table(view, f"startup-{point}", title, view.find("startup", point=point),
                            ["ttfr_ms", "framework_start_ms", "ready_ms"])
        if t:
            out.append(t)
    return out


def _memory(view: RunView) -> list[Table]:
    out = []
    for point, title in (("warm", "After start (warm launches)"), ("cold", "After start (first launch)")):
        t = by_target_table(view, f"memory-{point}", title, view.find("memory", point=point),
                            ["rss_after_first_mb", "rss_rest_mb", "cgroup_after_first_mb"])
        if t:
            out.append(t)
    for point in sorted({c.point for c in view.find("memory") if c.point.startswith("load")}, key=point_key):
        path = view.plan.get("memory", {}).get("load_path", "")
        t = by_target_table(view, f"memory-{point}", f"Under load ({point}, {path})", view.find("memory", point=point),
                            ["rss_peak_mb", "cgroup_peak_mb", "rps", "rps_per_mb", "latency_mean_ms", "errors"])
        if t:
            out.append(t)
    return out


def _conns(point: str) -> str:
    return point.rsplit("c=", 1)[-1] if "c=" in point else point


def _sweep(view: RunView) -> list[Table]:
    out = []
    for s in sweep_series(view):
        name = s["name"]
        cells = [c for c in view.find("sweep") if c.point.startswith(name + " c=")]
        if not cells:
            continue
        head = f"{name} (GET {s.get('path', '')})"
        for metric, what in (("rps", "throughput, req/s"), ("latency_mean_ms", "mean latency, ms"),
                             ("latency_max_ms", "max latency, ms"), ("latency_p99_ms", "p99 latency, ms"),
                             ("errors", "errors (non-2xx, timeouts, socket errors)"),
                             ("rss_peak_mb", "peak RSS, MB"),
                             ("app_cpu_share", "app CPUs busy (1.0 = one CPU)"),
                             ("driver_cpu_util", "load driver CPU utilisation")):
            t = by_point_table(view, f"sweep-{name}-{metric}", f"{head}: {what}",
                               [c for c in cells if c.metric == metric], "connections", _conns)
            if t:
                out.append(t)
        for target in ordered_targets(view, cells):
            mine = [c for c in cells if c.target == target]
            t = _percentile_table(f"sweep-{name}-pct-{target}", f"{head}: latency percentiles of {target}", mine,
                                  "connections", _conns)
            if t:
                out.append(t)
    return out


def _percentile_table(key: str, title: str, cells: list[Cell], row_header: str, row_label) -> Table | None:
    metrics = [m for m, _ in PERCENTILES] + ["latency_max_ms"]
    cells = [c for c in cells if c.metric in metrics]
    if not cells:
        return None
    rows = []
    for point in sorted({c.point for c in cells}, key=point_key):
        mine = {c.metric: c for c in cells if c.point == point}
        rows.append((row_label(point), [mine.get(m) for m in metrics]))
    return Table(key, title, row_header, [label(m) for m in metrics], rows)


def _latency(view: RunView) -> list[Table]:
    out = []
    ref = by_target_table(view, "latency-reference", "Maximum throughput the rates are fractions of",
                          view.find("latency", "max_rps_reference"), ["max_rps_reference"])
    if ref:
        out.append(ref)
    cells = [c for c in view.find("latency") if c.metric != "max_rps_reference"]
    for target in ordered_targets(view, cells):
        mine = [c for c in cells if c.target == target]
        metrics = ["offered_rate", "rps", *(m for m, _ in PERCENTILES), "latency_max_ms", "errors"]
        rows = []
        for point in sorted({c.point for c in mine}, key=point_key):
            by_metric = {c.metric: c for c in mine if c.point == point}
            rows.append((point, [by_metric.get(m) for m in metrics]))
        out.append(Table(f"latency-{target}", f"{target}: open-loop latency (from the intended send time)",
                         "rate", [label(m) for m in metrics], rows))
    return out


def _write(view: RunView) -> list[Table]:
    out = []
    cells = view.find("write")
    for metric, what in (("rps", "req/s"), ("latency_mean_ms", "mean latency, ms"), ("latency_p99_ms", "p99 latency, ms"),
                         ("errors", "errors")):
        t = by_point_table(view, f"write-{metric}", what, [c for c in cells if c.metric == metric], "request")
        if t:
            out.append(t)
    return out


def _generic(view: RunView, scenario: str, cells: list[Cell], title: str = "") -> list[Table]:
    """Whatever the scenario stored: one row per app/mode when every figure is at one point,
    else one table per app/mode with a row per point."""
    if not cells:
        return []
    metrics = list(dict.fromkeys(c.metric for c in cells))
    points = sorted({c.point for c in cells}, key=point_key)
    if len(points) == 1:
        heading = f"{title}{' at ' + points[0] if points[0] else ''}" if title else (points[0] or "figures")
        if len(metrics) <= 4:
            t = by_target_table(view, f"{scenario}-all", heading, cells, metrics)
            return [t] if t else []
        # many figures at one point: a row per figure reads better than a very wide row per app/mode
        targets = ordered_targets(view, cells)
        rows = [(label(m), [next((c for c in cells if c.metric == m and c.target == t), None) for t in targets])
                for m in metrics]
        return [Table(f"{scenario}-all", heading, "figure", targets, rows)]
    out = []
    for target in ordered_targets(view, cells):
        mine = [c for c in cells if c.target == target]
        rows = []
        for point in points:
            by_metric = {c.metric: c for c in mine if c.point == point}
            if by_metric:
                rows.append((point or "(run)", [by_metric.get(m) for m in metrics]))
        out.append(Table(f"{scenario}-{target}", f"{title + ': ' if title else ''}{target}", "point",
                         [label(m) for m in metrics], rows))
    return out


_SHAPED = {"footprint": _footprint, "startup": _startup, "memory": _memory, "sweep": _sweep, "latency": _latency,
           "write": _write}


def scenario_tables(view: RunView, scenario: str) -> list[Table]:
    """The scenario's tables in its study's shape, plus a generic table of any figure that shape
    leaves out."""
    shaped = _SHAPED.get(scenario)
    tables = shaped(view) if shaped else _generic(view, scenario, view.find(scenario))
    shown = {id(c) for t in tables for c in t.cells()}
    left = [c for c in view.find(scenario) if id(c) not in shown]
    if left and shaped:
        tables += _generic(view, scenario + "-more", left, "other figures")
    return [t.without_empty_columns() for t in tables]


def sweep_series(view: RunView) -> list[dict]:
    """The plan's sweep series, plus any series found only in the figures."""
    series = list(view.plan.get("sweep", {}).get("series", []))
    known = {s["name"] for s in series}
    for c in view.find("sweep"):
        name = c.point.split(" c=")[0]
        if name not in known:
            known.add(name)
            series.append({"name": name, "path": ""})
    return series


def report_scenarios(view: RunView) -> list[str]:
    """Scenarios in the lab's order: those planned, and any with figures."""
    present = set(view.plan.get("scenarios", [])) | {c.scenario for c in view.cells}
    extra = sorted(present - set(SCENARIOS))
    return [s for s in SCENARIOS if s in present] + extra
