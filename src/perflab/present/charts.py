"""The chart kit: charts as Plotly figures with hover values, zoom and legend toggles, no network.

A Chart is a Plotly figure with the key and title the report files it under; the page embeds
plotly.js once (``plotly_js``) and draws each chart from its JSON (``Chart.spec``), so the report
stays one file that opens from disk. Every measured point is a marker with a hover text (series,
x, median, min-max, flags); error bars span the repeats' min..max. Noisy points are drawn hollow,
driver-bound points get a red ring and points with errors a red cross, so a chart never shows a
doubtful point like a sound one. The charts of a run's scenarios are drawn with it in
scenario_charts and rss_charts.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from functools import cache
from html import escape

import plotly.graph_objects as go
import plotly.offline
from plotly.subplots import make_subplots

from perflab.present.tables import fmt_value
from perflab.results import RunView

PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#444444", "#B8860B"]
FLAG_RED = "#C00000"
LINE_HEIGHT = 400
FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
# what Plotly.newPlot gets besides data and layout: resize with the page, no vendor logo, no cloud
PLOTLY_CONFIG = {"responsive": True, "displaylogo": False, "showSendToCloud": False,
                 "modeBarButtonsToRemove": ["lasso2d", "select2d"],
                 "toImageButtonOptions": {"format": "png", "scale": 2}}
TITLE_TOP = 34  # pixels above the title: the mode bar (zoom, pan, download) sits there, not over the title


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
    dash: str = ""  # a Plotly dash style ("dash", "dot", ...); solid when empty
    markers: bool = True
    legend: bool = True
    group: str = ""  # legend group, so one legend entry toggles related series; the name when empty
    axis: str = ""  # "y2": drawn against a second y axis on the right (a study's published figures)


@dataclass
class Axis:
    label: str
    log: bool = False
    ticks: list[tuple[float, str]] | None = None  # fixed ticks, e.g. percentiles
    zero: bool = False  # start a linear axis at 0


@dataclass
class Chart:
    key: str
    title: str
    figure: go.Figure
    note: str = ""  # how to read the marks, shown under the chart

    def spec(self) -> dict:
        """The figure as plain JSON data: {"data": [...], "layout": {...}, "config": {...}}."""
        return {**json.loads(self.figure.to_json()), "config": PLOTLY_CONFIG}


@cache
def plotly_js() -> str:
    """plotly.js as shipped in the plotly package: the report inlines it, so it loads nothing.
    A "</script" inside it would end the inline script early; in JavaScript "<\\/" reads the same."""
    return plotly.offline.get_plotlyjs().replace("</script", "<\\/script")


def plotted(shown: list[Chart], prefix: str, fine: str) -> str:
    """The charts of a page written without the report's templates (history, versions): a place per
    chart with its note and fine print under it, then plotly.js and the script that draws them."""
    out = []
    for i, chart in enumerate(shown):
        out.append(f'<div id="{prefix}-{i}" class="chart"></div>'
                   + (f"<p class=note>{escape(chart.note)}</p>" if chart.note else "")
                   + f'<p class="fineprint">{escape(fine)}</p>')
    specs = json.dumps([c.spec() for c in shown]).replace("</", "<\\/")  # no early </script>
    out.append(f"<script>{plotly_js()}</script><script>const specs = {specs};"
               f"specs.forEach((s, i) => Plotly.newPlot('{prefix}-' + i, s.data, s.layout, s.config));</script>")
    return "".join(out)


def colors_for(view: RunView) -> dict[str, str]:
    return {t: PALETTE[i % len(PALETTE)] for i, t in enumerate(view.targets())}


# --- the generic charts --------------------------------------------------------------------------

def _marker_key(flags: set[str]) -> str:
    """What the doubtful markers in a chart mean (only those it shows)."""
    parts = []
    if "noisy" in flags:
        parts.append("hollow: noisy (CV above threshold)")
    if "driver-bound" in flags:
        parts.append("red ring: driver-bound")
    if {"errors", "no-responses"} & flags:
        parts.append("red cross: errors")
    return "; ".join(parts)


def _log_ticks(values: list[float]) -> list[float]:
    """1-2-5 ticks over the decades the positive values span (only powers of ten beyond three decades)."""
    positive = [v for v in values if v > 0] or [1.0]
    lo, hi = math.floor(math.log10(min(positive))), math.ceil(math.log10(max(positive)))
    steps = (1, 2, 5) if hi - lo <= 3 else (1,)
    return [m * 10.0 ** e for e in range(lo, max(hi, lo + 1) + 1) for m in steps]


def _tick_text(v: float) -> str:
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e4:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def _axis(axis: Axis, values: list[float]) -> dict:
    out = {"title": {"text": axis.label + (" (log)" if axis.log else "")}, "type": "log" if axis.log else "linear",
           "rangemode": "tozero" if axis.zero and not axis.log else "normal", "automargin": True,
           "showline": True, "linecolor": "#888", "ticks": "outside", "tickcolor": "#888",
           "gridcolor": "#e6e6e6", "zeroline": False}
    if axis.ticks:
        fixed = [v for v, _ in axis.ticks]
        pad = (max(fixed) - min(fixed)) * 0.05 or 1
        out.update(tickmode="array", tickvals=fixed, ticktext=[t for _, t in axis.ticks],
                   range=[min(fixed) - pad, max(fixed) + pad])
    elif axis.log:
        ticks = _log_ticks(values)
        out.update(tickmode="array", tickvals=ticks, ticktext=[_tick_text(t) for t in ticks])
    return out


def _figure(title: str, x: dict, y: dict, height: int, legend: bool = True) -> go.Figure:
    return go.Figure(layout={
        "template": "none", "height": height, "margin": {"l": 64, "r": 20, "t": TITLE_TOP + 32, "b": 48},
        "title": {"text": title, "x": 0.01, "xanchor": "left", "yref": "container", "y": 1 - TITLE_TOP / height,
                  "yanchor": "top", "font": {"size": 14}},
        "font": {"family": FONT, "size": 12, "color": "#333"}, "paper_bgcolor": "#fff", "plot_bgcolor": "#fff",
        "xaxis": x, "yaxis": y, "hovermode": "closest", "showlegend": legend,
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "yref": "container", "y": 0, "yanchor": "bottom"},
    })


def _symbol(flags: frozenset[str]) -> str:
    if "published" in flags:
        return "diamond-open"
    return "circle-open" if {"noisy", "cold"} & flags else "circle"


def _tip(name: str, p: Point, value: float | None = None) -> str:
    tip = f"{name}<br>{p.note or fmt_value(p.x)}: {fmt_value(p.y if value is None else value)}"
    if p.low is not None and p.high is not None:
        tip += f"<br>min-max {fmt_value(p.low)}-{fmt_value(p.high)}"
    if p.flags:
        tip += f"<br>({' '.join(sorted(p.flags))})"
    return tip


def _flag_traces(group: str, marked: list[tuple[float, float, frozenset[str], str]]) -> list[go.Scatter]:
    """A red ring round driver-bound points and a red cross on points with errors, in the legend
    group of their series (hiding a series hides its marks)."""
    out = []
    for what, flags, marker in (
            ("driver-bound", {"driver-bound"}, {"symbol": "circle-open", "size": 18, "color": FLAG_RED,
                                                "line": {"width": 1.5}}),
            ("errors", {"errors", "no-responses"}, {"symbol": "x-thin-open", "size": 12, "color": FLAG_RED,
                                                    "line": {"width": 2.5, "color": FLAG_RED}})):
        hits = [m for m in marked if flags & m[2]]
        if hits:
            out.append(go.Scatter(x=[m[0] for m in hits], y=[m[1] for m in hits], mode="markers",
                                  name=f"{group}: {what}", legendgroup=group, showlegend=False, marker=marker,
                                  hovertext=[m[3] for m in hits], hoverinfo="text"))
    return out


def _error_bars(points: list[Point], color: str) -> dict | None:
    if not any(p.low is not None and p.high is not None and p.high > p.low for p in points):
        return None
    return {"type": "data", "symmetric": False, "color": color, "thickness": 1.2, "width": 4,
            "array": [p.high - p.y if p.high is not None else 0 for p in points],
            "arrayminus": [p.y - p.low if p.low is not None else 0 for p in points]}


def line_chart(title: str, series: list[Series], x: Axis, y: Axis, *, key: str = "",
               y2: Axis | None = None) -> Chart | None:
    """Lines with markers and min..max error bars; None when there is nothing measured to draw.
    Series with axis "y2" are drawn against a second y axis on the right, described by ``y2``."""
    series = [s for s in series if s.points]
    if not any(s.axis != "y2" for s in series):
        return None
    xs = [p.x for s in series for p in s.points]
    ys = [v for s in series if s.axis != "y2" for p in s.points for v in (p.y, p.low, p.high) if v is not None]
    fig = _figure(title, _axis(x, xs), _axis(y, ys), LINE_HEIGHT)
    right = [p.y for s in series if s.axis == "y2" for p in s.points]
    if right and y2 is not None:
        fig.update_layout(yaxis2={**_axis(y2, right), "overlaying": "y", "side": "right", "showgrid": False},
                          margin={"r": 64})
    flags: set[str] = set()
    for s in series:
        pts = sorted(s.points, key=lambda p: p.x)
        flags |= {f for p in pts for f in p.flags}
        tips = [_tip(s.name, p) for p in pts]
        group = s.group or s.name
        mode = "lines" if not s.markers else "markers" if len(pts) == 1 else "lines+markers"
        fig.add_trace(go.Scatter(
            x=[p.x for p in pts], y=[p.y for p in pts], name=s.name, legendgroup=group, showlegend=s.legend,
            yaxis="y2" if s.axis == "y2" and y2 is not None else "y",
            mode=mode, line={"color": s.color, "width": 2, "dash": s.dash or "solid"},
            marker={"color": s.color, "size": 8, "symbol": [_symbol(p.flags) for p in pts], "line": {"width": 1.6}},
            error_y=_error_bars(pts, s.color), hovertext=tips, hoverinfo="text"))
        fig.add_traces(_flag_traces(group, [(p.x, p.y, p.flags, t) for p, t in zip(pts, tips)]))
    return Chart(key, title, fig, _marker_key(flags))


def strip_chart(title: str, groups: list[tuple[str, str, list[Point]]], x: Axis, *, key: str = "") -> Chart | None:
    """One row per group (label, color, points): every value a dot, the median of the warm ones a bar."""
    groups = [g for g in groups if g[2]]
    if not groups:
        return None
    rows = {"tickmode": "array", "tickvals": list(range(len(groups))), "ticktext": [g[0] for g in groups],
            "range": [len(groups) - 0.4, -0.6], "showgrid": False, "zeroline": False, "automargin": True}
    xs = [p.x for _, _, pts in groups for p in pts]
    fig = _figure(title, _axis(x, xs), rows, 130 + 48 * len(groups), legend=False)
    flags: set[str] = set()
    for i, (name, color, pts) in enumerate(groups):
        flags |= {f for p in pts for f in p.flags}
        ys = [i + ((j % 5) - 2) * 0.07 for j in range(len(pts))]
        tips = [_tip(name, p, p.x) for p in pts]
        fig.add_trace(go.Scatter(x=[p.x for p in pts], y=ys, mode="markers", name=name, legendgroup=name,
                                 marker={"color": color, "size": 9, "symbol": [_symbol(p.flags) for p in pts],
                                         "line": {"width": 1.6}}, hovertext=tips, hoverinfo="text"))
        warm = [p.x for p in pts if "cold" not in p.flags]
        if warm:
            med = statistics.median(warm)
            fig.add_trace(go.Scatter(x=[med], y=[i], mode="markers", name=f"{name} median", legendgroup=name,
                                     marker={"symbol": "line-ns", "size": 26, "line": {"width": 3, "color": color}},
                                     hovertext=[f"{name}<br>median of the warm launches: {fmt_value(med)}"],
                                     hoverinfo="text"))
        fig.add_traces(_flag_traces(name, [(p.x, y_, p.flags, t) for p, y_, t in zip(pts, ys, tips)]))
    note = "filled: warm launches; hollow: the first (cold) launch; bar: median of the warm launches"
    errors = _marker_key(flags & {"errors", "no-responses"})
    return Chart(key, title, fig, f"{note}; {errors}" if errors else note)


@dataclass
class Panel:
    """One figure of a panels chart: its axis label and one labelled point per group (name, color,
    point); a point's low and high are its interval, its note says what the interval is."""
    label: str
    points: list[tuple[str, str, Point]]


PANEL_HEIGHT = 250
PANEL_COLUMNS = 4


def panels_chart(title: str, panels: list[Panel], *, key: str = "", note: str = "") -> Chart | None:
    """Several figures of different units side by side, one small panel each, the groups (app/modes)
    in the same place and colour in every panel, each point with its interval as a whisker; one
    legend entry per group toggles it in every panel. None when no panel has a point."""
    panels = [p for p in panels if p.points]
    if not panels:
        return None
    cols = min(PANEL_COLUMNS, len(panels))
    rows = math.ceil(len(panels) / cols)
    height = TITLE_TOP + 80 + rows * PANEL_HEIGHT
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[p.label for p in panels],
                        horizontal_spacing=0.07, vertical_spacing=0.5 / rows)
    fig.update_layout(_figure(title, {}, {}, height).layout)
    order = list(dict.fromkeys(name for p in panels for name, _, _ in p.points))
    flags: set[str] = set()
    shown: set[str] = set()
    for i, panel in enumerate(panels):
        row, col = i // cols + 1, i % cols + 1
        for name, color, p in panel.points:
            flags |= p.flags
            tip = f"{name}<br>{panel.label}: {fmt_value(p.y)}" + (f"<br>{p.note}" if p.note else "")
            fig.add_trace(go.Scatter(
                x=[order.index(name)], y=[p.y], mode="markers", name=name, legendgroup=name,
                showlegend=name not in shown, error_y=_error_bars([p], color), hovertext=[tip], hoverinfo="text",
                marker={"color": color, "size": 9, "symbol": _symbol(p.flags), "line": {"width": 1.6}}),
                row=row, col=col)
            fig.add_traces(_flag_traces(name, [(order.index(name), p.y, p.flags, tip)]), rows=row, cols=col)
            shown.add(name)
        values = [v for _, _, p in panel.points for v in (p.y, p.low, p.high) if v is not None]
        fig.update_yaxes(_axis(Axis("", zero=True), values), row=row, col=col)
        fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, range=[-0.6, len(order) - 0.4],
                         row=row, col=col)
    for caption in fig.layout.annotations:  # the panels' titles: smaller than the chart's own
        caption.font = {"size": 12}
    return Chart(key, title, fig, "; ".join(x for x in (note, _marker_key(flags)) if x))


def spans_decades(values: list[float], factor: float = 30.0) -> bool:
    """Whether the positive values span more than `factor` (a log axis then reads them better)."""
    positive = [v for v in values if v > 0]
    return bool(positive) and max(positive) / min(positive) > factor
