"""Study-shaped tables from a RunView, as data both renderers (HTML, Markdown) lay out.

Every table cell is a measured Cell (median with its spread and flags) or None (not measured).
Each scenario gets the shape its study used: throughput and latency per connection count with a
column per app/mode, start-up and memory per app/mode, and so on. Scenarios without a dedicated
shape (and figures a dedicated shape does not show) still get a generic table, so no stored
figure is left out of a report.

"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    "unsettled": "a re-measured rate passed once and failed once: the capacity moves with the noise",
    "excluded": "not counted: the app died, was OOM-killed or failed more than the plan's share of requests",
    "near-line": "the 90 % line lies within this step's and the best step's noise",
    "within-noise": "the chosen memory or the next smaller one lies within the steps' noise of the 90 % line",
    "load-side-bound": "the driver and the database, sharing a CPU, were nearly all busy while the app had CPU "
                       "to spare: the figure is a lower bound",
    "profiled": "measured with the CPU and allocation profiler on (plan profile.enabled): not comparable "
                "with an unprofiled run's figure without its overhead (docs/profiles.md)",
    "not-steady": "measured without reaching steady state (the plan's maximum warm-up): see its timeline",
    "held-back": "in some measured intervals the app used well under its usual share of its CPU: something "
                 "outside it (the load side, another process on its CPU, the host) held it back; see its timeline",
    "contended": "over its measured window the hypervisor stole more than 2 % of the app's CPU's time (steal in "
                 "/proc/stat): a CPU-bound app loses about that share of its throughput",
    "host-slow": "the host-speed canary ran more than the plan's host_slow above the run's median just before or "
                 "after this launch, on the app's or the load side's CPU: the host itself was slow",
}
SERIOUS_FLAGS = {"driver-bound", "load-side-bound", "errors", "no-responses", "instance-lost", "crashed", "interrupted"}


@dataclass(frozen=True)
class TextTable:
    """A table of words rather than measured cells (e.g. a study's steps beside the measured
    ones, by name): the summary and the report lay it out as given."""

    key: str
    title: str
    headers: list[str]
    rows: list[list[str]]
    note: str = ""


def flag_help(flag: str) -> str:
    """What a flag means; flags of later scenarios (e.g. lower-bound, drift-*) explain themselves."""
    return FLAG_HELP.get(flag, flag.replace("-", " "))

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
    "ttfr_minus_reference_ms": "TTFR minus the reference ms", "reference_ttfr_ms": "reference TTFR ms",
    "instances_lost": "lost", "instance_rss_mb": "RSS per instance MB", "cgroup_memory_mb": "cgroup MB",
    "aggregate_vs_projection": "measured / projected", "rss_drift_mb_per_h": "RSS drift MB/h",
    "gc_collections": "GCs", "gc_pause_total_ms": "GC pause ms", "latency_p99_worst_ms": "worst p99 ms",
    "aot_cache_mb": "AOT cache MB", "aot_cache_write_s": "cache written in s", "db_cpu_share": "DB CPUs",
    "cgroup_peak_mb": "cgroup peak MB", "single_instance_max_rps": "one instance's max req/s",
    "time_to_steady_ms": "time to steady ms", "requests_to_steady": "requests until steady",
    "precision_pct": "CI +-%", "measured_s": "measured s", "app_cpu_ms_per_request": "app CPU ms/request",
    "db_cpu_ms_per_request": "DB CPU ms/request", "sql_statements_per_request": "SQL statements/request",
    "db_transactions_per_request": "DB transactions/request", "gc_ms_per_s": "GC ms/s",
    "jit_compilations": "JIT compilations", "jit_compile_ms_per_s": "JIT ms/s",
    "cgroup_rest_mb": "cgroup at rest MB", "measured_intervals": "in-launch intervals",
    "interval_gap_ms": "gap between intervals ms", "interval_gap_max_ms": "largest gap ms",
    "unloaded_pct": "span without load %",
    "steal_pct": "steal on its CPU %", "runqueue_wait_ms_per_s": "run-queue wait ms/s",
    "runqueue_wait_pct": "run-queue wait %", "canary_window_ms": "canary chain while measured ms",
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


def count_range(cell: Cell) -> str:
    """A count's values as a range: "12", or "10-14" where they differ."""
    low, high = (fmt_published(round(v)) for v in (cell.summary.min, cell.summary.max))
    return low if low == high else f"{low}-{high}"


def cell_text(cell: Cell | None) -> str:
    """A figure as every renderer shows it: median, spread, marks ("-" when not measured)."""
    if cell is None:
        return "-"
    m = marks(cell)
    median = cell.summary.median
    value = f"{median:,.0f}" if cell.unit == "count" and float(median).is_integer() else fmt_value(median)
    spread = spread_text(cell) if cell.summary.n > 1 or "single" not in cell.flags else ""
    return " ".join(x for x in (value, spread, m) if x)


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
    terminal: bool = True  # also in the terminal summary (detail tables are for the report only)
    # figures the table shows in its row labels rather than as cells (e.g. the in-launch intervals
    # behind each launch's value): shown, so no "other figures" table repeats them
    annotated: list[Cell] = field(default_factory=list)

    def cells(self) -> list[Cell]:
        return [c for _, row in self.rows for c in row if c is not None]

    def without_empty_columns(self) -> "Table":
        keep = [i for i in range(len(self.columns)) if any(row[i] is not None for _, row in self.rows)]
        return Table(self.key, self.title, self.row_header, [self.columns[i] for i in keep],
                     [(lbl, [row[i] for i in keep]) for lbl, row in self.rows], self.note, self.terminal,
                     self.annotated)


def cell_order(cell: Cell) -> tuple:
    """Cells of one scenario in the order of their points' parameters (connections, rate, ...)."""
    return (tuple((k, v) for k, v in cell.params.items() if isinstance(v, (int, float, str))), cell.point)


def points_in_order(cells: list[Cell]) -> list[str]:
    first: dict[str, Cell] = {}
    for c in cells:
        first.setdefault(c.point, c)
    return [p for p, _ in sorted(first.items(), key=lambda kv: cell_order(kv[1]))]


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
                   row_label=lambda c: c.point, note: str = "") -> Table | None:
    """Rows = points (connection counts, rates), columns = app/mode; `row_label(cell)` names a row."""
    if not cells:
        return None
    targets = ordered_targets(view, cells)
    rows = []
    for point in points_in_order(cells):
        mine = {c.target: c for c in cells if c.point == point}
        rows.append((row_label(mine[next(iter(mine))]), [mine.get(t) for t in targets]))
    return Table(key, title, row_header, targets, rows, note)


def percentile_table(key: str, title: str, cells: list[Cell], row_header: str, row_label) -> Table | None:
    """Rows = points, columns = latency percentiles (one app/mode's cells)."""
    metrics = [m for m, _ in PERCENTILES] + ["latency_max_ms"]
    cells = [c for c in cells if c.metric in metrics]
    if not cells:
        return None
    rows = []
    for point in points_in_order(cells):
        mine = {c.metric: c for c in cells if c.point == point}
        rows.append((row_label(next(iter(mine.values()))), [mine.get(m) for m in metrics]))
    return Table(key, title, row_header, [label(m) for m in metrics], rows, terminal=False)


def sweep_series(view: RunView) -> list[dict]:
    """The plan's sweep series, plus any series found only in the figures."""
    series = list(view.plan.get("sweep", {}).get("series", []))
    known = {s["name"] for s in series}
    for c in view.find("sweep"):
        name = c.params.get("series", "")
        if name and name not in known:
            known.add(name)
            series.append({"name": name, "path": c.params.get("path", "")})
    return series
