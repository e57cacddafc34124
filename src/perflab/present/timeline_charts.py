"""Charts of fresh launches over time (the `steady` scenario's timelines): throughput and latency
per interval against the seconds since the process was spawned, so the warm-up shows as it is: a
JVM climbs for tens of seconds before it serves at its steady rate, a native binary is flat from
its first interval. The x axis is linear seconds: the gap before the first interval is the
start-up, and the length of the climb is what it costs.

The charts share the page's layout, axes and marks with perflab.present.charts.
"""

from __future__ import annotations

import plotly.graph_objects as go

from perflab.present.chart_inputs import ChartInputs
from perflab.present.charts import LINE_HEIGHT, PALETTE, Axis, Chart, _axis, _figure, _flag_traces, spans_decades
from perflab.present.tables import fmt_value
from perflab.present.timelines import TimelineRow, by_point
from perflab.results import RunView

SCENARIO = "steady"
X_AXIS = Axis("seconds from launch (end of each interval)", zero=True)
MEASURE_MARKER = 6  # measurement intervals are dots on the line; warm-up intervals are line only
NOTE_UNREAD = "not shown (the file could not be read): "


def _phase(row: TimelineRow) -> str:
    return "measurement" if row.measuring else "warm-up"


def _tip(target: str, row: TimelineRow) -> str:
    """An interval as hovering it shows: where it lies, its throughput, latency, errors and CPU."""
    lines = [f"{target} launch {row.launch}",
             f"{fmt_value(row.start_s)}-{fmt_value(row.t_s)} s from launch ({_phase(row)})",
             f"{fmt_value(row.rps)} req/s ({fmt_value(row.requests)} requests)"]
    latency = [f"{name} {fmt_value(v)}" for name, v in (("p50", row.latency_p50_ms), ("p99", row.latency_p99_ms),
                                                         ("max", row.latency_max_ms)) if v is not None]
    if latency:
        lines.append("latency ms: " + ", ".join(latency))
    if row.errors:
        lines.append(f"errors: {row.errors}")
    if row.app_cpu_share is not None:
        lines.append(f"app CPU: {row.app_cpu_share:.2f}")
    return "<br>".join(lines)


def _line(name: str, target: str, color: str, rows: list[TimelineRow], ys: list[float], *, first: bool,
          dash: str = "solid") -> go.Scatter:
    """One launch's intervals as a line; the measurement intervals carry dots. Later launches are thin
    and dotted, in the legend group of their app/mode's first launch."""
    return go.Scatter(
        x=[r.t_s for r in rows], y=ys, name=name, legendgroup=target, showlegend=first,
        mode="lines+markers", opacity=1.0 if first else 0.6,
        line={"color": color, "width": 2 if first else 1, "dash": dash if first else "dot"},
        marker={"color": color, "size": [MEASURE_MARKER if r.measuring and first else
                                         MEASURE_MARKER - 2 if r.measuring else 0 for r in rows]},
        hovertext=[_tip(target, r) for r in rows], hoverinfo="text")


def _steady_start(view: RunView, scenario: str, point: str, target: str,
                  rows: list[TimelineRow]) -> tuple[float | None, str]:
    """Seconds from launch to the start of the first launch's steady window, and its hover text:
    from the scenario's time_to_steady_ms figure (the first value stored: the first launch), else
    the start of the first measurement interval; None when there is neither."""
    cell = next((c for c in view.find(scenario, "time_to_steady_ms", point) if c.target == target), None)
    if cell is not None and cell.values:
        start = cell.values[0] / 1000
        which = "the first launch stored" if "not-steady" in cell.flags else f"launch {rows[0].launch}"
        text = f"{target}: steady window from {fmt_value(start)} s ({which})"
        if len(cell.values) > 1:
            text += f"<br>median over {len(cell.values)} launches: {fmt_value(cell.summary.median / 1000)} s"
        needed = next((c for c in view.find(scenario, "requests_to_steady", point) if c.target == target), None)
        if needed is not None and needed.values:
            text += f"<br>{fmt_value(needed.values[0])} requests before it"
        return start, text
    first = next((r for r in rows if r.measuring), None)
    if first is None:
        return None, ""
    return first.start_s, f"{target}: measurement from {fmt_value(first.start_s)} s (launch {first.launch})"


def _not_steady(view: RunView, scenario: str, point: str, target: str) -> bool:
    return any("not-steady" in c.flags for c in view.find(scenario, point=point) if c.target == target)


def _marker_line(target: str, color: str, x: float, low: float, high: float, text: str) -> go.Scatter:
    """A vertical dash-dot line at x from low to high, in the legend group of its app/mode."""
    return go.Scatter(x=[x, x], y=[low, high], mode="lines", name=f"{target}: steady window", legendgroup=target,
                      showlegend=False, line={"color": color, "width": 1.5, "dash": "dashdot"},
                      hovertext=[text, text], hoverinfo="text")


def _targets(by_target: dict, colors: dict[str, str]) -> list[tuple[str, str]]:
    """(app/mode, colour) in the report's order; app/modes without figures get the next free colour."""
    known = [t for t in colors if t in by_target]
    extra = [t for t in by_target if t not in colors]
    return [(t, colors[t]) for t in known] + [(t, PALETTE[(len(colors) + i) % len(PALETTE)])
                                              for i, t in enumerate(extra)]


def _key(scenario: str, kind: str, point: str) -> str:
    """steady's charts keep their plain keys; another scenario's are prefixed with its name."""
    return f"{kind}-{point}" if scenario == SCENARIO else f"{scenario}-{kind}-{point}"


def _note(parts: list[str], unread: list[str]) -> str:
    return "; ".join(parts + ([NOTE_UNREAD + "; ".join(unread)] if unread else []))


def warmup_charts(timelines: dict[str, list[TimelineRow]], view: RunView, colors: dict[str, str], *,
                  scenario: str = SCENARIO, unread: list[str] | None = None) -> list[Chart]:
    """Per point: req/s of every interval of every launch against the seconds from launch, one colour
    per app/mode, with where its steady window starts."""
    out = []
    for point, by_target in by_point(timelines).items():
        fig = _figure(f"Throughput from launch: {point}", _axis(X_AXIS, [0.0]),
                      _axis(Axis("req/s per interval", zero=True), [0.0]), LINE_HEIGHT)
        peak = max(r.rps for launches in by_target.values() for rows in launches.values() for r in rows) or 1.0
        errors, unsettled = False, []
        for target, color in _targets(by_target, colors):
            launches = by_target[target]
            never = _not_steady(view, scenario, point, target)
            if never:
                unsettled.append(target)
            for i, (launch, rows) in enumerate(launches.items()):
                first = i == 0
                name = (target + (" (not steady)" if never else "")) if first else f"{target} launch {launch}"
                fig.add_trace(_line(name, target, color, rows, [r.rps for r in rows], first=first))
            bad = [(r.t_s, r.rps, frozenset({"errors"}), _tip(target, r))
                   for rows in launches.values() for r in rows if r.errors]
            errors |= bool(bad)
            fig.add_traces(_flag_traces(target, bad))
            first_rows = next(iter(launches.values()))
            start, text = _steady_start(view, scenario, point, target, first_rows)
            if start is not None:
                fig.add_trace(_marker_line(target, color, start, 0.0, peak * 1.05, text))
        if scenario == SCENARIO:
            parts = ["thick line: each app/mode's first launch, thin dotted: its later launches (hover for the launch)",
                     "dots: measurement intervals, line only: warm-up",
                     "dash-dot vertical line: where the first launch's steady window starts",
                     "the gap before a line's first interval is its start-up"]
        else:
            parts = ["one line per app/mode on its long-lived instance, in the order the points ran (hover for the "
                     "point)", "dots: measurement intervals, line only: warm-up",
                     "dash-dot vertical line: where measurement starts"]
        if errors:
            parts.append("red cross: an interval with errors")
        if unsettled:
            parts.append(f"(not steady): the warm-up did not settle in a launch of {', '.join(unsettled)}")
        out.append(Chart(_key(scenario, "warmup", point), f"Throughput from launch: {point}", fig,
                         _note(parts, unread or [])))
    return out


def latency_over_time_charts(timelines: dict[str, list[TimelineRow]], view: RunView, colors: dict[str, str], *,
                             scenario: str = SCENARIO) -> list[Chart]:
    """Per point: p50 (solid) and p99 (dashed) of every interval of each app/mode's first launch
    against the seconds from launch."""
    out = []
    for point, by_target in by_point(timelines).items():
        traces, ys, marks = [], [], []
        for target, color in _targets(by_target, colors):
            rows = next(iter(by_target[target].values()))
            for metric, dash in (("latency_p50_ms", "solid"), ("latency_p99_ms", "dash")):
                shown = [r for r in rows if getattr(r, metric) is not None]
                if not shown:
                    continue
                values = [getattr(r, metric) for r in shown]
                ys += values
                traces.append(_line(f"{target} {metric.split('_')[1]}", target, color, shown, values, first=True,
                                    dash=dash))
            start, text = _steady_start(view, scenario, point, target, rows)
            if start is not None:
                marks.append((target, color, start, text))
        if not traces:
            continue
        log = spans_decades(ys)
        fig = _figure(f"Latency from launch: {point}", _axis(X_AXIS, [0.0]),
                      _axis(Axis("latency ms", log=log, zero=not log), ys), LINE_HEIGHT)
        fig.add_traces(traces)
        low = min(y for y in ys if y > 0) if log else 0.0
        for target, color, start, text in marks:
            fig.add_trace(_marker_line(target, color, start, low, max(ys) * 1.05, text))
        note = ("the first launch of each app/mode only (the warm-up chart shows every launch): p50 solid, p99 "
                "dashed; dots: measurement intervals; dash-dot vertical line: where the steady window starts"
                if scenario == SCENARIO else
                "p50 solid, p99 dashed, per interval from the driver's record of every request (latency from the "
                "intended send time); line only: the warm-up; dash-dot vertical line: where measurement starts")
        out.append(Chart(_key(scenario, "latency-over-time", point), f"Latency from launch: {point}", fig, note))
    return out


def steady_charts(view: RunView, inputs: ChartInputs, colors: dict[str, str]) -> list[Chart]:
    """The `steady` scenario's charts: per point, the warm-up curve and the latency over time."""
    return over_time_charts(view, inputs, colors, SCENARIO)


def over_time_charts(view: RunView, inputs: ChartInputs, colors: dict[str, str], scenario: str) -> list[Chart]:
    """A scenario's timelines as charts: throughput and latency per interval from the launch."""
    return (warmup_charts(inputs.timelines, view, colors, scenario=scenario, unread=inputs.unread)
            + latency_over_time_charts(inputs.timelines, view, colors, scenario=scenario))
