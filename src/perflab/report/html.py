"""The HTML report: one self-contained file (inline CSS and SVG, no script, no external resource)
that opens from disk. Order: the verdicts on the published claims, the environment, how the run
measured and what it could not enforce, what is missing, then a section per scenario with its
tables, charts and the published figures beside them, and the cost model."""

from __future__ import annotations

import time
from html import escape

from perflab.report import charts, cost, ratios
from perflab.report.published import STUDIES
from perflab.report.facts import (RunExtras, environment_rows, method_rows, missing, not_in_plan, reductions,
                                  scenario_intro, unenforced_limits)
from perflab.report.tables import (SCENARIO_TITLES, SERIOUS_FLAGS, Table, flag_help, fmt_published, fmt_ratio,
                                   fmt_value, report_scenarios, scenario_tables, spread_text)
from perflab.results import Cell, RunView

FLAG_BADGE = {"noisy": "noisy", "driver-bound": "driver-bound", "errors": "errors", "no-responses": "no responses",
              "cached-build": "cached"}

CSS = """
:root{--fg:#1d1d1f;--muted:#666;--line:#dcdde1;--head:#f3f4f7;--ok:#1e7d32;--bad:#b3261e;--warn:#8a5a00}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);
margin:0;background:#fafafa}
main{max-width:1240px;margin:0 auto;padding:16px 24px 48px;background:#fff}
h1{font-size:24px;margin:8px 0 4px}h2{font-size:19px;margin:32px 0 8px;padding-top:8px;border-top:2px solid var(--line)}
h3{font-size:15px;margin:18px 0 6px}h4{font-size:14px;margin:12px 0 4px}
.sub{color:var(--muted);margin:0 0 12px}.muted{color:var(--muted)}small{color:var(--muted)}
nav{font-size:13px;margin:8px 0 16px;line-height:1.9}nav a{margin-right:12px;color:#0b57d0;text-decoration:none}
table{border-collapse:collapse;margin:6px 0 14px;font-size:13px}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--head);font-weight:600}tbody th{white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.num b{font-weight:600}.spread{display:block;color:var(--muted);font-size:11px}
td.na{color:#aaa;text-align:center}
td.f-serious{background:#fdecea}td.f-noisy{background:#fff8e1}
.flag{display:inline-block;font-size:10px;font-weight:600;padding:0 4px;border-radius:3px;margin-left:3px;
vertical-align:1px;color:#fff}
.flag.noisy{background:#c98a00}.flag.driver-bound{background:var(--bad)}.flag.errors,.flag.no-responses{background:#7b1fa2}
.flag.cached{background:#607d8b}.flag.other{background:#455a64}
.tables{display:flex;flex-wrap:wrap;gap:4px 28px;align-items:flex-start}
.table,.claim{max-width:100%;overflow-x:auto}
.published{background:#f5f8ff;border:1px solid #cbd7f0;border-radius:6px;padding:6px 12px;margin:8px 0 14px}
.published h3{margin-top:6px}.published table{background:#fff}
.v-held{color:var(--ok);font-weight:600}.v-did-not-hold{color:var(--bad);font-weight:600}
.v-unclear{color:var(--warn);font-weight:600}.v-no-ratio{color:var(--muted)}
.alert{background:#fdecea;border:1px solid #f1b0aa;border-radius:6px;padding:8px 12px;margin:8px 0}
.note{background:#fff8e1;border:1px solid #ecd58c;border-radius:6px;padding:8px 12px;margin:8px 0}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:12px;margin:8px 0}
svg.chart{max-width:100%;height:auto;background:#fff;border:1px solid var(--line);border-radius:6px}
svg .chart-title{font-weight:600;font-size:13px}svg .tick,svg .legend-label,svg .row-label{font-size:11px;fill:#444}
svg .axis-label{font-size:11px;fill:#333}svg .note{font-size:10px;fill:#777}
ul.plain{margin:4px 0 10px;padding-left:20px}
footer{margin-top:32px;color:var(--muted);font-size:12px}
"""


def _e(x: object) -> str:
    return escape(str(x))


def cell_td(cell: Cell | None) -> str:
    if cell is None:
        return '<td class="na">-</td>'
    s = cell.summary
    serious = cell.flags & SERIOUS_FLAGS
    cls = "num" + (" f-serious" if serious else " f-noisy" if "noisy" in cell.flags else "")
    shown = sorted(f for f in cell.flags if f != "single")  # n=1 is in the spread line already
    badges = "".join(f'<span class="flag {_e(FLAG_BADGE.get(f, "other").replace(" ", "-"))}" '
                     f'title="{_e(flag_help(f))}">{_e(FLAG_BADGE.get(f, f))}</span>' for f in shown)
    values = ", ".join(fmt_value(v) for v in cell.values)
    return (f'<td class="{cls}" data-metric="{_e(cell.metric)}" data-median="{s.median:g}" '
            f'title="{_e(cell.unit)}; values: {_e(values)}"><b>{fmt_value(s.median)}</b>{badges}'
            f'<span class="spread">{_e(spread_text(cell))}</span></td>')


def table_html(t: Table) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in [t.row_header, *t.columns])
    body = "".join(f"<tr><th>{_e(lbl)}</th>{''.join(cell_td(c) for c in row)}</tr>" for lbl, row in t.rows)
    note = f'<small>{_e(t.note)}</small>' if t.note else ""
    return (f'<div class="table" id="t-{_e(t.key)}"><h4>{_e(t.title)}</h4>'
            f'<table data-table="{_e(t.key)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}</div>')


def verdict_span(r: ratios.Ratio) -> str:
    why = f' <small>{_e(r.why)}</small>' if r.why else ""
    return f'<span class="v-{r.verdict.replace(" ", "-")}">{_e(r.verdict)}</span>{why}'


def measured_ratio_text(r: ratios.Ratio) -> str:
    if r.measured is None:
        return "-"
    text = fmt_ratio(r.measured)
    if r.low is not None and r.high is not None and r.high > r.low:
        text += f" [{fmt_ratio(r.low)}-{fmt_ratio(r.high)}]"
    return text


def claim_html(res: ratios.ClaimResult) -> str:
    claim = res.claim
    study = STUDIES[claim.study]
    head = (f'<h4>{_e(claim.study)} {_e(claim.what)} <small>({_e(claim.unit)}; compared with '
            f'{_e(claim.where.describe())})</small></h4>')
    if not ratios.has_any_measured(res):
        listed = ", ".join(f"{lbl} {fmt_published(v)}" for lbl, v in claim.figures)
        reasons = [f"{r.target}: {r.missing_reason}" for r in res.rows]
        return (f'<div class="claim" data-claim="{_e(claim.key)}">{head}<p>published: {_e(listed)} {_e(claim.unit)}. '
                f'<span class="muted">Nothing here to compare: {_e("; ".join(reasons))}.</span></p></div>')
    rows = []
    for r in res.rows:
        measured = '<td class="na">-</td>' if r.measured is None else cell_td(r.measured.cell)
        at = "" if r.measured is None or r.measured.point in ("warm", "") else f"<small>{_e(r.measured.point)}</small>"
        why = "" if r.measured else f"<small>{_e(r.missing_reason)}</small>"
        mop = fmt_ratio(r.measured_over_published)
        if r.ratio is None:
            ratio_cells = f'<td colspan="3" class="muted">baseline ({_e(study.baseline)})</td>'
        else:
            ratio_cells = (f'<td class="num">{fmt_ratio(r.ratio.published)}</td>'
                           f'<td class="num">{_e(measured_ratio_text(r.ratio))}</td><td>{verdict_span(r.ratio)}</td>')
        rows.append(f'<tr data-label="{_e(r.label)}"><th>{_e(r.label)}</th><td>{_e(r.target)} {at}{why}</td>'
                    f'<td class="num">{fmt_published(r.published)}</td>{measured}<td class="num">{mop}</td>'
                    f'{ratio_cells}</tr>')
    note = f"<small>{_e(claim.note)}</small>" if claim.note else ""
    return (f'<div class="claim" data-claim="{_e(claim.key)}">{head}<table><thead><tr><th>study</th><th>here</th>'
            f'<th>published</th><th>measured here</th><th>measured / published</th>'
            f'<th>÷ {_e(study.baseline)} published</th><th>÷ {_e(study.baseline)} measured [range]</th>'
            f'<th>claim</th></tr></thead><tbody>{"".join(rows)}</tbody></table>{note}</div>')


def verdict_summary(results: list[ratios.ClaimResult]) -> str:
    rows, unchecked = [], 0
    for res in results:
        for row, ratio in res.verdicts():
            if ratio.measured is None:
                unchecked += 1
                continue
            rows.append(f'<tr><td>{_e(res.claim.study)}</td><td>{_e(res.claim.what)}</td>'
                        f'<td>{_e(row.label)} ÷ {_e(res.baseline_label)}<br><small>{_e(row.target)} ÷ '
                        f'{_e(ratios.target_of(res.baseline_label))}</small></td>'
                        f'<td class="num">{fmt_ratio(ratio.published)}</td>'
                        f'<td class="num">{_e(measured_ratio_text(ratio))}</td>'
                        f'<td>{verdict_span(ratio)}</td></tr>')
    total = sum(len(r.verdicts()) for r in results)
    if not rows:
        return (f'<p class="note">None of the {total} published ratios could be checked: each needs both the study\'s '
                f'framework and its baseline measured in this run (see "What is missing").</p>')
    return (f'<table data-table="verdicts"><thead><tr><th>study</th><th>claim</th><th>ratio</th><th>published</th>'
            f'<th>measured [range]</th><th>held here?</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
            f'<p class="muted">{len(rows)} of {total} published ratios checked; {unchecked} need an app/mode this '
            f'run did not measure. "held": the whole range the repeats allow lies on the published side of 1.</p>')


def _kv_table(rows: list[tuple[str, str]], key: str) -> str:
    return (f'<table data-table="{key}"><tbody>'
            + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows) + "</tbody></table>")


def _list(items: list[str]) -> str:
    return '<ul class="plain">' + "".join(f"<li>{_e(i)}</li>" for i in items) + "</ul>"


def honesty_html(view: RunView, extras: RunExtras) -> str:
    out = [_kv_table(method_rows(view), "method")]
    unenforced = unenforced_limits(view, extras)
    if unenforced:
        out.append('<div class="alert"><b>Limits not enforced</b>' + _list(unenforced) + "</div>")
    elif extras.limits:
        out.append(f'<p class="muted">CPU and memory limits were enforced by cgroups for every app/mode that recorded '
                   f'them ({_e(", ".join(sorted(extras.limits)))}).</p>')
    reds = reductions(view)
    if reds:
        out.append("<h3>Reductions against the studies' method</h3>" + _list(reds))
    if extras.driver_bound:
        out.append('<div class="note"><b>Driver-bound points</b>: there, the load driver, not the app, was the limit; '
                   'their throughput is a lower bound of the app\'s.'
                   + _list([f"{t} {s} {p}: {why or 'no reason recorded'}" for t, s, p, why in extras.driver_bound])
                   + "</div>")
    flags_used = sorted({f for c in view.cells for f in c.flags if f != "single"})
    if flags_used:
        out.append("<h3>Marks</h3>" + _list([f"{FLAG_BADGE.get(f, f)}: {flag_help(f)}" for f in flags_used]))
    out.append('<p class="muted">Every figure: the median of the repeats in bold, below it [min-max], the coefficient '
               'of variation and the number of values n. Hover a cell for all values.</p>')
    return "".join(out)


def missing_html(view: RunView) -> str:
    items = missing(view)
    out = ["<p>Every app/mode ran every scenario of the plan.</p>"] if not items else []
    if items:
        rows = "".join(f"<tr><td>{_e(m.target)}</td><td>{_e(m.scenario)}</td><td>{_e(m.status)}</td>"
                       f"<td>{_e(m.reason)}</td></tr>" for m in items)
        out.append('<table data-table="missing"><thead><tr><th>app/mode</th><th>scenario</th><th>status</th>'
                   f'<th>why</th></tr></thead><tbody>{rows}</tbody></table>')
    absent = not_in_plan(view)
    if absent:
        out.append("<h3>Published figures of scenarios this plan did not run</h3>" + _list(absent))
    return "".join(out)


def scenario_charts(view: RunView, scenario: str, extras: RunExtras, colors: dict[str, str]) -> list[str]:
    if scenario == "startup":
        found = (charts.startup_chart(view, colors), charts.startup_chart(view, colors, "framework_start_ms"))
        return [c for c in found if c]
    if scenario == "memory":
        chart = charts.rss_chart(extras.samples.get("memory", {}), colors)
        return [chart] if chart else []
    if scenario == "soak":
        found = [charts.rss_chart(extras.samples.get("soak", {}), colors, "RSS over the soak", key="rss-soak"),
                 *charts.interval_charts(view, "soak", colors)]
        return [c for c in found if c]
    if scenario == "sweep":
        return charts.sweep_charts(view, colors)
    if scenario == "latency":
        return charts.percentile_charts(view, colors)
    return []


def cost_html(view: RunView) -> str:
    try:
        m = cost.model(view)
    except Exception as exc:  # a bad [cost] table must not cost the whole report
        return f'<p class="alert">The cost model could not be computed: {_e(exc)}</p>'
    a = m.assumptions
    svc = a["services"]
    facts = (f"{sum(svc.values())} services ({svc['high']} high, {svc['medium']} medium, {svc['low']} low memory) x "
             f"{a['replicas']} replica(s) on {a['node_mb']:,} MB nodes with {a['reserved_mb']} MB reserved per node; a pod "
             f"needs the {m.rss_label} x the class factor (high {a['memory_factor']['high']}, medium "
             f"{a['memory_factor']['medium']}, low {a['memory_factor']['low']}) + {a['pod_overhead_mb']} MB; one node "
             f"pool per class (LAB-2020 did not publish its per-class sizes: the factors are this model's "
             f"assumptions). Savings against {a['baseline']}. Override in the plan's [cost] table.")
    out = [f"<p>{_e(facts)}</p>"]
    if m.results:
        rows = []
        for r in m.results:
            per_node = " / ".join(str(c.pods_per_node) for c in r.classes)
            saving = "-" if r.savings is None else f"{r.savings:.0%}"
            if r.savings is not None and r.savings_low is not None and r.savings_high is not None:
                saving += f' <span class="spread">[{r.savings_low:.0%} to {r.savings_high:.0%}]</span>'
            if r.target == a["baseline"]:
                saving = "baseline"
            pub = "-" if r.published_savings is None else f"{r.published_savings:.0%}"
            rows.append(f'<tr data-target="{_e(r.target)}"><th>{_e(r.target)}</th>{cell_td(r.rss)}'
                        f'<td class="num">{per_node}</td>'
                        f'<td class="num">{"-" if r.nodes is None else r.nodes}</td><td class="num">{saving}</td>'
                        f'<td class="num">{pub}</td></tr>')
        out.append(f'<table data-table="cost"><thead><tr><th>app/mode</th><th>{_e(m.rss_label)} MB</th>'
                   f'<th>pods per node (high / medium / low)</th><th>nodes</th><th>savings here [repeats\' range]</th>'
                   f'<th>LAB-2020 published savings</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')
    if m.missing:
        out.append(_list(m.missing))
    return "".join(out)


def render(view: RunView, extras: RunExtras) -> str:
    colors = charts.colors_for(view)
    claim_results = ratios.evaluate_all(view)
    scenarios = report_scenarios(view)
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(view.started_at)) if view.started_at else "?"
    toc = [("environment", "Environment"), ("method", "Method and limits"), ("verdicts", "Published claims"),
           ("missing", "What is missing")] + [(f"s-{s}", s) for s in scenarios] + [("cost", "Cost model")]
    parts = [
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
        f'content="width=device-width,initial-scale=1"><title>perflab report {_e(view.id)}</title>'
        f"<style>{CSS}</style></head><body><main>",
        f'<h1>perflab report: run {_e(view.id)}</h1>'
        f'<p class="sub">plan <b>{_e(view.plan.get("name"))}</b>, status <b>{_e(view.status)}</b>, started {started}; '
        f'apps/modes: {_e(", ".join(view.targets()) or "none")}</p>',
    ]
    if view.status != "complete":
        note = f": {_e(view.note)}" if view.note else ""
        parts.append(f'<p class="alert">This run did not complete ({_e(view.status)}){note}; '
                     f'the figures below are those stored before it ended.</p>')
    parts.append("<nav>" + "".join(f'<a href="#{k}">{_e(v)}</a>' for k, v in toc) + "</nav>")
    parts.append('<section id="environment"><h2>Environment</h2>' + _kv_table(environment_rows(view), "environment")
                 + "</section>")
    parts.append('<section id="method"><h2>Method and limits</h2>' + honesty_html(view, extras) + "</section>")
    parts.append('<section id="verdicts"><h2>Did the published claims hold here?</h2>'
                 '<p class="muted">Each study\'s ratio against its baseline framework, published on the study\'s hardware '
                 'and measured here. Absolute figures differ by machine; ratios are what should carry over.</p>'
                 + verdict_summary(claim_results) + "</section>")
    parts.append('<section id="missing"><h2>What is missing</h2>' + missing_html(view) + "</section>")
    for s in scenarios:
        parts.append(_scenario_section(view, s, extras, colors, [r for r in claim_results if r.claim.where.scenario == s]))
    parts.append('<section id="cost"><h2>Cost model (LAB-2020)</h2>' + cost_html(view) + "</section>")
    parts.append(f'<footer>perflab report of run {_e(view.id)}; studies: '
                 + "; ".join(f"{_e(k)} {_e(s.title)}: {_e(s.setting)}" for k, s in STUDIES.items())
                 + "</footer></main></body></html>")
    return "\n".join(parts)


def _scenario_section(view: RunView, scenario: str, extras: RunExtras, colors: dict[str, str],
                      claims: list[ratios.ClaimResult]) -> str:
    tables = scenario_tables(view, scenario)
    title = SCENARIO_TITLES.get(scenario, scenario)
    out = [f'<section id="s-{_e(scenario)}" data-scenario="{_e(scenario)}"><h2>{_e(title)}</h2>']
    intro = scenario_intro(view, scenario)
    if intro:
        out.append(f'<p class="muted">{_e(intro)}</p>')
    gaps = [m for m in missing(view) if m.scenario.split(":")[0] == scenario]
    if gaps:
        out.append('<p class="note">Not measured: ' + _e("; ".join(m.text() for m in gaps)) + "</p>")
    chart_svgs = scenario_charts(view, scenario, extras, colors)
    if chart_svgs:
        figures = "".join(f'<figure style="margin:0">{svg}</figure>' for svg in chart_svgs)
        out.append(f'<div class="charts">{figures}</div>')
    if tables:
        out.append('<div class="tables">' + "".join(table_html(t) for t in tables) + "</div>")
    elif not gaps:
        out.append('<p class="muted">No figures were stored for this scenario.</p>')
    if claims:
        out.append('<div class="published"><h3>Published figures beside these</h3>' + "".join(claim_html(c) for c in claims)
                   + "</div>")
    out.append("</section>")
    return "".join(out)
