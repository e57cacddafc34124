"""The charts of a run's scenarios: sweep curves beside the studies' published ones, latency by
percentile, per-interval figures and every start-up launch."""

from __future__ import annotations

import math

from perflab.present.charts import Axis, Chart, Point, Series, line_chart, spans_decades, strip_chart
from perflab.present.published.curves import curves
from perflab.present.published.studies import target_of
from perflab.present.tables import PERCENTILES, fmt_value, points_in_order, sweep_series
from perflab.results import Cell, RunView

PUBLISHED_GREY = "#777777"  # a study label with no app/mode in this run


def cell_point(cell: Cell, x: float, note: str = "") -> Point:
    """A cell as one point of a curve at x: its median, its range and its flags."""
    s = cell.summary
    return Point(x, s.median, s.min, s.max, frozenset(cell.flags), note)


def _conns(cell: Cell) -> int | None:
    return cell.params.get("connections")


def sweep_charts(view: RunView, colors: dict[str, str]) -> list[Chart]:
    """Per sweep series: throughput vs connections, latency (mean solid, p99 dashed) vs connections,
    and max latency vs connections; each with the studies' published curves on a second axis."""
    charts = []
    for s in sweep_series(view):
        name, path = s["name"], s.get("path", "")
        cells = [c for c in view.find("sweep") if c.params.get("series") == name]
        if not cells:
            continue
        targets = [t for t in colors if any(c.target == t for c in cells)]

        def points(target: str, metric: str) -> list[Point]:
            return [cell_point(c, _conns(c), c.point) for c in cells if c.target == target and c.metric == metric]

        thr = [Series(t, colors[t], points(t, "rps")) for t in targets]
        published_thr = published_series(path, "rps", colors)
        charts.append(_beside_published(
            line_chart(f"{name} {path}: throughput vs connections", thr + published_thr, Axis("connections"),
                       Axis("req/s (median, whiskers min-max)", zero=True), key=f"throughput-{name}",
                       y2=Axis("published req/s (the study's hardware)", zero=True)), published_thr))
        lat = []
        for t in targets:
            lat.append(Series(f"{t} mean", colors[t], points(t, "latency_mean_ms")))
            lat.append(Series(f"{t} p99", colors[t], points(t, "latency_p99_ms"), dash="dash"))
        published_lat = published_series(path, "latency_mean_ms", colors, " mean")
        charts.append(_beside_published(
            line_chart(f"{name} {path}: latency vs connections", lat + published_lat, Axis("connections"),
                       _latency_axis("latency ms", lat), key=f"latency-{name}",
                       y2=Axis("published mean latency ms (the study's hardware)")), published_lat))
        maxima = [Series(f"{t} max", colors[t], points(t, "latency_max_ms")) for t in targets]
        published_max = published_series(path, "latency_max_ms", colors, " max")
        charts.append(_beside_published(
            line_chart(f"{name} {path}: max latency vs connections", maxima + published_max, Axis("connections"),
                       _latency_axis("max latency ms", maxima), key=f"max-latency-{name}",
                       y2=Axis("published max latency ms (the study's hardware)")), published_max))
    return [c for c in charts if c]


def _latency_axis(label: str, series: list[Series]) -> Axis:
    """A log axis when the measured values span decades, else linear from 0."""
    decades = spans_decades([p.y for s in series for p in s.points])
    return Axis(label, log=decades, zero=not decades)


def _beside_published(chart: Chart | None, published: list[Series]) -> Chart | None:
    """The chart with how to read its published curves added to its note."""
    if chart:
        chart.note = "; ".join(x for x in (chart.note, published_note(published)) if x)
    return chart


def published_series(path: str, metric: str, colors: dict[str, str], suffix: str = "") -> list[Series]:
    """The studies' published curves for this path and metric, dotted against the right axis, in the
    colour of the app/mode they stand for, so shapes compare across machines."""
    out = []
    for c in curves(path, metric):
        target = target_of(c.label)
        pts = [Point(float(x), y, flags=frozenset({"published"}), note=f"c={x} published") for x, y in c.points]
        out.append(Series(f"{c.study} {c.label}{suffix} (published)", colors.get(target, PUBLISHED_GREY), pts,
                          dash="dot", axis="y2"))
    return out


def published_note(series: list[Series]) -> str:
    if not series:
        return ""
    single = all(len(s.points) == 1 for s in series)
    return ("dotted diamonds, right axis: the study's published figures on its own hardware"
            + ("; only its 40-connection row is transcribed, so its curve's shape is not drawn" if single else ""))


def _nines(percentile: float) -> float:
    """x position of a percentile on a "number of nines" axis: p50 -> 0.3, p90 -> 1, p99 -> 2."""
    return -math.log10(1 - percentile / 100)


def percentile_charts(view: RunView, colors: dict[str, str]) -> list[Chart]:
    """Open-loop latency by percentile, one chart per rate (a fraction of each app's maximum)."""
    cells = [c for c in view.find("latency") if c.metric in dict(PERCENTILES)]
    charts = []
    ticks = [(_nines(p), f"p{p:g}") for _, p in PERCENTILES]
    for point in points_in_order(cells):
        series = []
        for t in colors:
            mine = {c.metric: c for c in cells if c.point == point and c.target == t}
            if not mine:
                continue
            rate = next((c.summary.median for c in view.find("latency", "offered_rate", point) if c.target == t), None)
            name = t + (f" @ {fmt_value(rate)} req/s" if rate else "")
            series.append(Series(name, colors[t], [cell_point(mine[m], _nines(p), f"p{p:g}")
                                                   for m, p in PERCENTILES if m in mine]))
        ys = [p.y for s in series for p in s.points]
        chart = line_chart(f"open loop at {point}: latency by percentile", series, Axis("percentile", ticks=ticks),
                           Axis("latency ms", log=spans_decades(ys, 10), zero=not spans_decades(ys, 10)),
                           key=f"percentiles-{point}")
        if chart:
            charts.append(chart)
    return charts


def interval_charts(view: RunView, scenario: str, colors: dict[str, str]) -> list[Chart]:
    """A long run's per-interval figures (stored as the repeats of point "interval", in time order)."""
    out = []
    for metric, what in (("rps", "req/s"), ("latency_p99_ms", "p99 latency ms"), ("rss_mb", "mean RSS MB")):
        series = []
        for t in colors:
            cell = next((c for c in view.find(scenario, metric, "interval") if c.target == t), None)
            if cell:
                series.append(Series(t, colors[t], [Point(i + 1, v, note=f"interval {i + 1}")
                                                    for i, v in enumerate(cell.values)]))
        chart = line_chart(f"{scenario}: {what} per interval", series, Axis("interval"), Axis(what, zero=True),
                           key=f"{scenario}-{metric}")
        if chart:
            out.append(chart)
    return out


def startup_chart(view: RunView, colors: dict[str, str], metric: str = "ttfr_ms") -> Chart | None:
    groups = []
    for t in colors:
        pts = []
        for c in view.find("startup", metric):
            if c.target != t:
                continue
            extra = {"cold"} if c.point == "cold" else set()
            # a dot is one launch: the cell's noise flag belongs to the spread (shown by the dots), not to a dot
            flags = frozenset((c.flags & {"errors", "no-responses"}) | extra)
            pts += [Point(v, 0, flags=flags, note=f"{c.point} launch") for v in c.values]
        if pts:
            groups.append((t, colors[t], pts))
    xs = [p.x for _, _, pts in groups for p in pts]
    what = {"ttfr_ms": "time to first response", "framework_start_ms": "framework-reported start"}.get(metric, metric)
    return strip_chart(f"Start-up: {what}, every launch", groups,
                       Axis(f"{what} ms", log=spans_decades(xs, 10)), key=f"startup-{metric}")
