"""Inline SVG charts: no script, no library, no network, so a report opens from disk anywhere.

Every measured point is a ``<circle class="pt">`` carrying its series, x, y and flags as data
attributes (and a hover title); the whiskers span the repeats' min..max. Noisy points are drawn
hollow, driver-bound points get a dashed red ring, points with errors a red cross, so a chart
never shows a doubtful point like a sound one.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from perflab.report.tables import PERCENTILES, fmt_value, points_in_order, sweep_series
from perflab.results import Cell, RunView

PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#444444", "#B8860B"]
FLAG_RED = "#C00000"
MAX_LINE_POINTS = 400


@dataclass
class Point:
    x: float
    y: float
    low: float | None = None
    high: float | None = None
    flags: frozenset[str] = frozenset()
    note: str = ""


@dataclass
class Series:
    name: str
    color: str
    points: list[Point]
    dash: str = ""
    markers: bool = True
    legend: bool = True


@dataclass
class Axis:
    label: str
    log: bool = False
    ticks: list[tuple[float, str]] | None = None  # fixed ticks, e.g. percentiles
    zero: bool = False  # start a linear axis at 0


@dataclass
class _Scale:
    lo: float
    hi: float
    log: bool
    start: float  # pixels
    end: float
    ticks: list[tuple[float, str]] = field(default_factory=list)

    def __call__(self, v: float) -> float:
        if self.log:
            v, lo, hi = math.log10(max(v, 1e-12)), math.log10(self.lo), math.log10(self.hi)
        else:
            lo, hi = self.lo, self.hi
        frac = 0.5 if hi == lo else (v - lo) / (hi - lo)
        return self.start + frac * (self.end - self.start)


def colors_for(view: RunView) -> dict[str, str]:
    return {t: PALETTE[i % len(PALETTE)] for i, t in enumerate(view.targets())}


# --- axes ----------------------------------------------------------------------------------------

def nice_step(span: float, count: int = 5) -> float:
    raw = span / max(count, 1)
    if raw <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power


def linear_ticks(lo: float, hi: float, count: int = 5) -> tuple[float, float, list[float]]:
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    step = nice_step(hi - lo, count)
    start, end = math.floor(lo / step) * step, math.ceil(hi / step) * step
    ticks, v = [], start
    while v <= end + step / 2:
        ticks.append(round(v, 12))
        v += step
    return start, end, ticks


def log_ticks(lo: float, hi: float) -> tuple[float, float, list[float]]:
    lo_e, hi_e = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if hi_e == lo_e:
        hi_e += 1
    ticks = []
    for e in range(lo_e, hi_e + 1):
        for m in ((1, 2, 5) if hi_e - lo_e <= 2 else (1,)):
            v = m * 10 ** e
            if 10 ** lo_e <= v <= 10 ** hi_e:
                ticks.append(v)
    return 10 ** lo_e, 10 ** hi_e, ticks


def _scale(axis: Axis, values: list[float], start: float, end: float) -> _Scale:
    if axis.ticks:
        xs = [v for v, _ in axis.ticks]
        lo, hi = min(xs + values), max(xs + values)
        pad = (hi - lo) * 0.05 or 1
        return _Scale(lo - pad, hi + pad, False, start, end, list(axis.ticks))
    positive = [v for v in values if v > 0]
    if axis.log and positive:
        lo, hi, ticks = log_ticks(min(positive), max(positive))
        return _Scale(lo, hi, True, start, end, [(t, _tick_text(t)) for t in ticks])
    lo = min(values) if values else 0.0
    hi = max(values) if values else 1.0
    if axis.zero and lo > 0:
        lo = 0.0
    lo, hi, ticks = linear_ticks(lo, hi)
    return _Scale(lo, hi, False, start, end, [(t, _tick_text(t)) for t in ticks])


def _tick_text(v: float) -> str:
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e4:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


# --- the generic charts --------------------------------------------------------------------------

WIDTH, PLOT_H, LEFT, RIGHT, TOP, LEGEND_GAP = 640, 240, 64, 16, 34, 56


def _marker_key(flags: set[str]) -> str:
    """What the doubtful markers in a chart mean (only those it shows)."""
    parts = []
    if "noisy" in flags:
        parts.append("hollow: noisy (CV above threshold)")
    if "driver-bound" in flags:
        parts.append("dashed red ring: driver-bound")
    if {"errors", "no-responses"} & flags:
        parts.append("red cross: errors")
    return "; ".join(parts)


def line_chart(title: str, series: list[Series], x: Axis, y: Axis, *, key: str = "") -> str | None:
    """Lines with markers and min..max whiskers; None when there is nothing to draw."""
    series = [s for s in series if s.points]
    if not series:
        return None
    xs = [p.x for s in series for p in s.points]
    ys = [v for s in series for p in s.points for v in (p.y, p.low, p.high) if v is not None]
    legend_rows = _legend_rows([s for s in series if s.legend])
    flags = {f for s in series for p in s.points for f in p.flags}
    key_text = _marker_key(flags)
    height = TOP + PLOT_H + LEGEND_GAP + 18 * len(legend_rows) + (16 if key_text else 0)
    sx = _scale(x, xs, LEFT, WIDTH - RIGHT)
    sy = _scale(y, ys, TOP + PLOT_H, TOP)
    out = [_open(title, key, height), *_grid(sx, sy, x, y)]
    for s in series:
        pts = sorted(s.points, key=lambda p: p.x)
        if len(pts) > 1:
            coords = " ".join(f"{sx(p.x):.1f},{sy(p.y):.1f}" for p in pts)
            out.append(f'<polyline class="line" data-series="{escape(s.name)}" data-points="{len(pts)}" '
                       f'points="{coords}" fill="none" stroke="{s.color}" stroke-width="2"'
                       f'{f" stroke-dasharray={chr(34)}{s.dash}{chr(34)}" if s.dash else ""}/>')
        if s.markers:
            for p in pts:
                out.extend(_marker(s, p, sx, sy))
    out.extend(_legend(legend_rows, TOP + PLOT_H + LEGEND_GAP))
    if key_text:
        out.append(f'<text class="note" x="{LEFT}" y="{height - 8}">{escape(key_text)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def strip_chart(title: str, groups: list[tuple[str, str, list[Point]]], x: Axis, *, key: str = "") -> str | None:
    """One row per group (label, color, points): every value a dot, the median a bar."""
    groups = [g for g in groups if g[2]]
    if not groups:
        return None
    row_h = 34
    left = 150
    height = TOP + row_h * len(groups) + 56
    xs = [p.x for _, _, pts in groups for p in pts]
    sx = _scale(x, xs, left, WIDTH - RIGHT)
    bottom = TOP + row_h * len(groups)
    out = [_open(title, key, height)]
    for v, text in sx.ticks:
        px = sx(v)
        out.append(f'<line class="grid" x1="{px:.1f}" y1="{TOP}" x2="{px:.1f}" y2="{bottom}" stroke="#e3e3e3"/>')
        out.append(f'<text class="tick" x="{px:.1f}" y="{bottom + 14}" text-anchor="middle">{escape(text)}</text>')
    out.append(f'<text class="axis-label" x="{(left + WIDTH - RIGHT) / 2:.0f}" y="{bottom + 32}" '
               f'text-anchor="middle">{escape(x.label)}</text>')
    for i, (name, color, pts) in enumerate(groups):
        cy = TOP + row_h * i + row_h / 2
        out.append(f'<text class="row-label" x="{left - 8}" y="{cy + 4:.1f}" text-anchor="end">{escape(name)}</text>')
        warm = sorted(p.x for p in pts if "cold" not in p.flags)
        if warm:
            med = warm[len(warm) // 2] if len(warm) % 2 else (warm[len(warm) // 2 - 1] + warm[len(warm) // 2]) / 2
            out.append(f'<line class="median" x1="{sx(med):.1f}" y1="{cy - 11:.1f}" x2="{sx(med):.1f}" '
                       f'y2="{cy + 11:.1f}" stroke="{color}" stroke-width="3">'
                       f'<title>median {fmt_value(med)}</title></line>')
        for j, p in enumerate(pts):
            jitter = ((j % 5) - 2) * 2.5
            out.extend(_marker(Series(name, color, []), Point(p.x, cy + jitter, flags=p.flags, note=p.note),
                               sx, lambda v: v, data_y=p.x))
    out.append(f'<text class="note" x="{left}" y="{height - 6}">filled: warm launches; hollow: the first '
               f'(cold) launch; bar: median of the warm launches</text>')
    out.append("</svg>")
    return "\n".join(out)


def _open(title: str, key: str, height: int) -> str:
    return (f'<svg class="chart" data-chart="{escape(key)}" '
            f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" role="img" '
            f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
            f'<text class="chart-title" x="{LEFT}" y="20">{escape(title)}</text>')


def _grid(sx: _Scale, sy: _Scale, x: Axis, y: Axis) -> list[str]:
    out = []
    for v, text in sy.ticks:
        py = sy(v)
        out.append(f'<line class="grid" x1="{LEFT}" y1="{py:.1f}" x2="{WIDTH - RIGHT}" y2="{py:.1f}" stroke="#e3e3e3"/>')
        out.append(f'<text class="tick" x="{LEFT - 6}" y="{py + 4:.1f}" text-anchor="end">{escape(text)}</text>')
    for v, text in sx.ticks:
        px = sx(v)
        out.append(f'<line class="grid" x1="{px:.1f}" y1="{TOP}" x2="{px:.1f}" y2="{TOP + PLOT_H}" stroke="#f0f0f0"/>')
        out.append(f'<text class="tick" x="{px:.1f}" y="{TOP + PLOT_H + 16}" text-anchor="middle">{escape(text)}</text>')
    bottom = TOP + PLOT_H
    out.append(f'<line class="axis" x1="{LEFT}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}" stroke="#888"/>')
    out.append(f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + PLOT_H}" stroke="#888"/>')
    out.append(f'<text class="axis-label" x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{TOP + PLOT_H + 34}" '
               f'text-anchor="middle">{escape(x.label + (" (log)" if x.log else ""))}</text>')
    out.append(f'<text class="axis-label" transform="translate(14,{TOP + PLOT_H / 2:.0f}) rotate(-90)" '
               f'text-anchor="middle">{escape(y.label + (" (log)" if y.log else ""))}</text>')
    return out


def _marker(s: Series, p: Point, sx, sy, data_y: float | None = None) -> list[str]:
    cx, cy = sx(p.x), sy(p.y)
    out = []
    if p.low is not None and p.high is not None and p.high > p.low:
        y1, y2 = sy(p.low), sy(p.high)
        out.append(f'<path class="whisker" d="M{cx:.1f},{y1:.1f}V{y2:.1f}M{cx - 3:.1f},{y1:.1f}h6M{cx - 3:.1f},'
                   f'{y2:.1f}h6" stroke="{s.color}" stroke-opacity="0.55" fill="none"/>')
    hollow = bool({"noisy", "cold"} & p.flags)
    flags = " ".join(sorted(p.flags))
    tip = f"{s.name}: {p.note or fmt_value(p.x)} -> {fmt_value(data_y if data_y is not None else p.y)}"
    if p.low is not None and p.high is not None:
        tip += f" [{fmt_value(p.low)}-{fmt_value(p.high)}]"
    if flags:
        tip += f" ({flags})"
    out.append(f'<circle class="pt" cx="{cx:.1f}" cy="{cy:.1f}" r="4" data-series="{escape(s.name)}" '
               f'data-x="{p.x:g}" data-y="{(data_y if data_y is not None else p.y):g}" data-flags="{escape(flags)}" '
               f'fill="{"#fff" if hollow else s.color}" stroke="{s.color}" stroke-width="1.6">'
               f'<title>{escape(tip)}</title></circle>')
    if "driver-bound" in p.flags:
        out.append(f'<circle class="flag-driver-bound" cx="{cx:.1f}" cy="{cy:.1f}" r="8" fill="none" '
                   f'stroke="{FLAG_RED}" stroke-dasharray="2 2"/>')
    if {"errors", "no-responses"} & p.flags:
        out.append(f'<path class="flag-errors" d="M{cx - 5:.1f},{cy - 5:.1f}l10,10M{cx - 5:.1f},{cy + 5:.1f}l10,-10" '
                   f'stroke="{FLAG_RED}" stroke-width="2"/>')
    return out


def _legend_rows(series: list[Series]) -> list[list[Series]]:
    rows, row, width = [], [], 0
    for s in series:
        w = 34 + 7 * len(s.name)
        if row and width + w > WIDTH - LEFT:
            rows.append(row)
            row, width = [], 0
        row.append(s)
        width += w
    if row:
        rows.append(row)
    return rows


def _legend(rows: list[list[Series]], top: float) -> list[str]:
    out = []
    for i, row in enumerate(rows):
        x, y = LEFT, top + 18 * i
        for s in row:
            dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
            out.append(f'<line class="legend" x1="{x}" y1="{y - 4}" x2="{x + 22}" y2="{y - 4}" stroke="{s.color}" '
                       f'stroke-width="2"{dash}/>')
            out.append(f'<text class="legend-label" x="{x + 27}" y="{y}">{escape(s.name)}</text>')
            x += 34 + 7 * len(s.name)
    return out


# --- the report's charts -------------------------------------------------------------------------

def _point(cell: Cell, x: float, note: str = "") -> Point:
    s = cell.summary
    return Point(x, s.median, s.min, s.max, frozenset(cell.flags), note)


def _conns(cell: Cell) -> int | None:
    return cell.params.get("connections")


def _spans_decades(values: list[float], factor: float = 30.0) -> bool:
    positive = [v for v in values if v > 0]
    return bool(positive) and max(positive) / min(positive) > factor


def sweep_charts(view: RunView, colors: dict[str, str]) -> list[str]:
    """Per sweep series: throughput vs connections, and latency (mean solid, p99 dashed) vs connections."""
    charts = []
    for s in sweep_series(view):
        name, path = s["name"], s.get("path", "")
        cells = [c for c in view.find("sweep") if c.params.get("series") == name]
        if not cells:
            continue
        targets = [t for t in colors if any(c.target == t for c in cells)]
        thr = [Series(t, colors[t], [_point(c, _conns(c), c.point) for c in cells
                                     if c.target == t and c.metric == "rps"]) for t in targets]
        chart = line_chart(f"{name} {path}: throughput vs connections", thr, Axis("connections"),
                           Axis("req/s (median, whiskers min-max)", zero=True), key=f"throughput-{name}")
        if chart:
            charts.append(chart)
        lat = []
        for t in targets:
            lat.append(Series(f"{t} mean", colors[t], [_point(c, _conns(c), c.point) for c in cells
                                                       if c.target == t and c.metric == "latency_mean_ms"]))
            lat.append(Series(f"{t} p99", colors[t], [_point(c, _conns(c), c.point) for c in cells
                                                      if c.target == t and c.metric == "latency_p99_ms"], dash="5 4"))
        ys = [p.y for s_ in lat for p in s_.points]
        chart = line_chart(f"{name} {path}: latency vs connections", lat, Axis("connections"),
                           Axis("latency ms", log=_spans_decades(ys), zero=not _spans_decades(ys)),
                           key=f"latency-{name}")
        if chart:
            charts.append(chart)
    return charts


def _nines(percentile: float) -> float:
    """x position of a percentile on a "number of nines" axis: p50 -> 0.3, p90 -> 1, p99 -> 2."""
    return -math.log10(1 - percentile / 100)


def percentile_charts(view: RunView, colors: dict[str, str]) -> list[str]:
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
            series.append(Series(name, colors[t], [_point(mine[m], _nines(p), f"p{p:g}")
                                                   for m, p in PERCENTILES if m in mine]))
        ys = [p.y for s in series for p in s.points]
        chart = line_chart(f"open loop at {point}: latency by percentile", series, Axis("percentile", ticks=ticks),
                           Axis("latency ms", log=_spans_decades(ys, 10), zero=not _spans_decades(ys, 10)),
                           key=f"percentiles-{point}")
        if chart:
            charts.append(chart)
    return charts


def read_samples(path: Path, column: str = "rss_bytes") -> list[tuple[float, float]]:
    """(seconds, MB) from a samples CSV; rows without the column are skipped."""
    out = []
    try:
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                try:
                    out.append((float(row["t_s"]), float(row[column]) / (1024 * 1024)))
                except (KeyError, TypeError, ValueError):
                    continue
    except OSError:
        return []
    return out


def downsample(points: list[tuple[float, float]], limit: int = MAX_LINE_POINTS) -> list[tuple[float, float]]:
    """At most ``limit`` points; each bucket keeps its highest value so peaks survive."""
    if len(points) <= limit:
        return points
    size = math.ceil(len(points) / limit)
    return [max(points[i:i + size], key=lambda p: p[1]) for i in range(0, len(points), size)]


def rss_chart(samples: dict[str, Path], colors: dict[str, str],
              title: str = "RSS over time of the load instance (memory, sweep, latency, write)",
              key: str = "rss") -> str | None:
    series = []
    for target, path in samples.items():
        data = downsample(read_samples(path))
        if not data:
            continue
        color = colors.get(target, PALETTE[len(series) % len(PALETTE)])
        pts = [Point(t, mb) for t, mb in data]
        peak = max(pts, key=lambda p: p.y)
        series.append(Series(f"{target} (peak {fmt_value(peak.y)} MB)", color, pts, markers=False))
        series.append(Series(f"{target} peak", color, [Point(peak.x, peak.y, note=f"{peak.x:.1f} s")], legend=False))
    return line_chart(title, series, Axis("seconds since launch"), Axis("RSS MB", zero=True), key=key)


def interval_charts(view: RunView, scenario: str, colors: dict[str, str]) -> list[str]:
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


def startup_chart(view: RunView, colors: dict[str, str], metric: str = "ttfr_ms") -> str | None:
    groups = []
    for t in colors:
        pts = []
        for c in view.find("startup", metric):
            if c.target != t:
                continue
            extra = {"cold"} if c.point == "cold" else set()
            # a dot is one launch: the cell's noise flag belongs to the spread (shown by the dots), not to a dot
            flags = frozenset((c.flags & {"errors", "no-responses"}) | extra)
            pts += [Point(v, 0, flags=flags, note=c.point) for v in c.values]
        if pts:
            groups.append((t, colors[t], pts))
    xs = [p.x for _, _, pts in groups for p in pts]
    what = {"ttfr_ms": "time to first response", "framework_start_ms": "framework-reported start"}.get(metric, metric)
    return strip_chart(f"Start-up: {what}, every launch", groups,
                       Axis(f"{what} ms", log=_spans_decades(xs, 10)), key=f"startup-{metric}")
