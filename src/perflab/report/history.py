"""`perflab history PLAN`: the headline figures of every stored run of a plan over time, one chart
per figure with a line per app/mode (each run's median and the median's 95 % interval), so a drift
across many runs is visible, not only the change between two."""

from __future__ import annotations

import json
import time
from html import escape
from pathlib import Path

from perflab import results
from perflab.errors import LabError
from perflab.paths import work_dir
from perflab.report import charts
from perflab.report.version_changes import HEADLINES
from perflab.store import Store


def runs_of(store: Store, plan_name: str) -> list[results.RunView]:
    """The plan's stored runs that measured something, oldest first."""
    views = []
    for row in reversed(store.runs()):
        if json.loads(row["plan_json"]).get("name") != plan_name:
            continue
        view = results.load(store, row["id"])
        if view is not None and view.cells:
            views.append(view)
    return views


def _run_tick(view: results.RunView) -> str:
    return f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(view.started_at))} {view.id[:8]}"


def history_charts(views: list[results.RunView]) -> list[charts.Chart]:
    ticks = [(i, _run_tick(v)) for i, v in enumerate(views)]
    out = []
    for headline in HEADLINES:
        by_target: dict[str, list[charts.Point]] = {}
        for x, view in enumerate(views):
            for target, cell in headline.cells(view).items():
                s = cell.summary
                by_target.setdefault(target, []).append(
                    charts.Point(x, s.median, s.ci_low, s.ci_high, frozenset(cell.flags),
                                 f"run {view.id}: {s.n} values"))
        series = [charts.Series(t, charts.PALETTE[i % len(charts.PALETTE)], pts)
                  for i, (t, pts) in enumerate(sorted(by_target.items()))]
        chart = charts.line_chart(headline.title, series, charts.Axis("run (oldest first)", ticks=ticks),
                                  charts.Axis(f"{headline.title} ({headline.unit})", zero=True),
                                  key=f"history-{headline.key}")
        if chart is not None:
            out.append(chart)
    return out


def render(plan_name: str, views: list[results.RunView]) -> str:
    shown = history_charts(views)
    rows = "".join(f"<tr><td>{escape(v.id)}</td><td>{escape(_run_tick(v))}</td><td>{escape(v.status)}</td>"
                   f"<td>{escape(v.method_hash)}</td></tr>" for v in views)
    body = [f"<h1>History of plan {escape(plan_name)}</h1>",
            f"<p>{len(views)} stored run(s). Runs of another method (plan settings, machine, versions) are drawn "
            "beside the others: their method hash is in the table.</p>",
            f"<table><thead><tr><th>run</th><th>started</th><th>status</th><th>method</th></tr></thead><tbody>{rows}"
            "</tbody></table>"]
    for i, chart in enumerate(shown):
        body.append(f'<div id="hchart-{i}"></div>' + (f"<p class=note>{escape(chart.note)}</p>" if chart.note else ""))
    if shown:
        specs = json.dumps([c.spec() for c in shown]).replace("</", "<\\/")  # no early </script>
        body.append(f"<script>{charts.plotly_js()}</script><script>const specs = {specs};"
                    "specs.forEach((s, i) => Plotly.newPlot('hchart-' + i, s.data, s.layout, s.config));</script>")
    else:
        body.append("<p>None of these runs has a headline figure (start-up, steady state).</p>")
    style = ("body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}.note{color:#555;font-size:90%}")
    return (f"<!doctype html><html><head><meta charset=utf-8><title>perflab history {escape(plan_name)}</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>")


def cli_history(args) -> int:
    """`perflab history PLAN [--out FILE]`."""
    store = Store()
    views = runs_of(store, args.plan)
    if not views:
        names = sorted({json.loads(r["plan_json"]).get("name", "?") for r in store.runs()})
        raise LabError(f"no stored run of plan {args.plan!r} with figures",
                       fix=f"plans with stored runs: {', '.join(names) or '(none)'}")
    path = Path(args.out) if args.out else work_dir() / "reports" / f"history-{args.plan}.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(args.plan, views), encoding="utf-8")
    print(f"history of plan {args.plan}: {len(views)} run(s), {views[0].id} to {views[-1].id}", flush=True)
    print(f"  {path}", flush=True)
    return 0
