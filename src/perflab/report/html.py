"""The HTML report: one self-contained file that opens from disk and works offline (inline CSS,
plotly.js embedded once, each chart's figure as JSON beside its place, no external resource).
Order: what the run found, the frameworks side by side (a run with two of the four or more), the
environment, how the run measured and what it could not enforce, the verdicts on the published
claims, what is missing, then a section per scenario with its charts, tables and the published
figures beside them, and the cost model.

The markup lives in the Jinja2 templates beside this module (templates/, autoescaped); this module
gathers what they show from the run's tables, facts, ratios and cost model."""

from __future__ import annotations

import itertools
import time

from markupsafe import Markup

from perflab import registry
from perflab.present import charts
from perflab.present.fine_print import fine_print
from perflab.present.published import NOT_TRANSCRIBED, STUDIES, contradiction_rows, methods, projection
from perflab.present.published.worded import worded_rows
from perflab.present.tables import flag_help, fmt_published, fmt_ratio
from perflab.present.templating import FLAG_BADGE, templates
from perflab.report import cost, findings, frameworks, profiles, ratios
from perflab.report.facts import (RunExtras, environment_rows, method_rows, missing, not_in_plan, reductions,
                                  scenario_intro, unenforced_limits)
from perflab.report.sections import report_scenarios, scenario_tables, scenario_title
from perflab.report import stated_claims
from perflab.results import RunView

def measured_ratio_text(r: ratios.Ratio) -> str:
    if r.measured is None:
        return "-"
    text = fmt_ratio(r.measured)
    if r.low is not None and r.high is not None and r.high > r.low:
        text += f" [{fmt_ratio(r.low)}-{fmt_ratio(r.high)}]"
    return text


def claim_view(res: ratios.ClaimResult) -> dict:
    """A published claim beside this run's figures: one row per study label, or why none compares."""
    claim = res.claim
    out = {"key": claim.key, "study": claim.study, "what": claim.what, "unit": claim.unit,
           "where": claim.where.describe(), "note": claim.note, "baseline": claim.baseline, "rows": [],
           "provenance": claim.provenance(), "ratios": claim.ratios}
    if not ratios.has_any_measured(res):
        out["listed"] = ", ".join(f"{lbl} {fmt_published(v)}" for lbl, v in claim.figures)
        out["reasons"] = "; ".join(f"{r.target}: {r.missing_reason}" for r in res.rows)
        return out
    for r in res.rows:
        out["rows"].append({
            "label": r.label, "target": r.target, "cell": None if r.measured is None else r.measured.cell,
            "at": "" if r.measured is None or r.measured.point in ("warm", "") else r.measured.point,
            "why": "" if r.measured else r.missing_reason, "published": fmt_published(r.published),
            "mop": fmt_ratio(r.measured_over_published), "ratio": r.ratio,
            "ratio_published": "" if r.ratio is None else fmt_ratio(r.ratio.published),
            "ratio_measured": "" if r.ratio is None else measured_ratio_text(r.ratio),
            "size": "" if r.ratio is None else r.ratio.size_text()})
    return out


def verdict_view(results: list[ratios.ClaimResult]) -> dict:
    """Every published ratio both of whose app/modes were measured, and how many could not be checked."""
    rows, unchecked = [], 0
    for res in results:
        for row, ratio in res.verdicts():
            if ratio.measured is None:
                unchecked += 1
                continue
            rows.append({"study": res.claim.study, "what": res.claim.what, "label": row.label,
                         "baseline_label": res.baseline_label, "target": row.target,
                         "baseline_target": ratios.target_of(res.baseline_label),
                         "published": fmt_ratio(ratio.published), "measured": measured_ratio_text(ratio),
                         "ratio": ratio, "size": ratio.size_text()})
    return {"rows": rows, "unchecked": unchecked, "total": sum(len(r.verdicts()) for r in results),
            "counts": ratios.count(results).text(), "by_study": [t.text() for t in ratios.by_study(results)]}


def projection_view(view: RunView) -> dict:
    return {"headers": ratios.PROJECTION_HEADERS, "rows": ratios.projection_rows(view), "note": ratios.PROJECTION_NOTE,
            "printed_headers": projection.PRINTED_HEADERS, "printed": projection.printed_rows()}


def method_view(view: RunView, extras: RunExtras) -> dict:
    flags_used = sorted({f for c in view.cells for f in c.flags if f != "single"})
    return {
        "rows": method_rows(view), "unenforced": unenforced_limits(view, extras), "limits": sorted(extras.limits),
        "reductions": reductions(view), "against_study": methods.against_study(view.plan),
        "driver_bound": [f"{t} {s} {p}: {why or 'no reason recorded'}" for t, s, p, why in extras.driver_bound],
        "marks": [f"{FLAG_BADGE.get(f, f)}: {flag_help(f)}" for f in flags_used],
    }


def scenario_charts(view: RunView, scenario: str, extras: RunExtras, colors: dict[str, str]) -> list[charts.Chart]:
    """The charts the scenario declares for itself (see perflab.scenario.Scenario.charts), given
    its own files: RSS samples and launch timelines."""
    sc = registry.get(scenario)
    if sc is None or sc.charts is None:
        return []
    return [c for c in sc.charts(view, extras.chart_inputs(scenario), colors) if c]


def cost_view(view: RunView) -> dict:
    try:
        m = cost.model(view)
    except Exception as exc:  # a bad [cost] table must not cost the whole report
        return {"error": str(exc)}
    a = m.assumptions
    svc = a["services"]
    facts = (f"{sum(svc.values())} services ({svc['high']} high, {svc['medium']} medium, {svc['low']} low memory) x "
             f"{a['replicas']} replica(s) on {a['node_mb']:,} MB nodes with {a['reserved_mb']} MB reserved per node; a pod "
             f"needs the {m.rss_label} x the class factor (high {a['memory_factor']['high']}, medium "
             f"{a['memory_factor']['medium']}, low {a['memory_factor']['low']}) + {a['pod_overhead_mb']} MB; one node "
             f"pool per class (LAB-2020 did not publish its per-class sizes: the factors are this model's "
             f"assumptions). Savings against {a['baseline']}. Override in the plan's [cost] table.")
    rows = []
    for r in m.results:
        saving, spread = "-" if r.savings is None else f"{r.savings:.0%}", ""
        if r.savings is not None and r.savings_low is not None and r.savings_high is not None:
            spread = f"[{r.savings_low:.0%} to {r.savings_high:.0%}]"
        if r.target == a["baseline"]:
            saving, spread = "baseline", ""
        rows.append({"target": r.target, "rss": r.rss, "per_node": " / ".join(str(c.pods_per_node) for c in r.classes),
                     "nodes": "-" if r.nodes is None else r.nodes, "saving": saving, "saving_range": spread,
                     "published": "-" if r.published_savings is None else f"{r.published_savings:.0%}"})
    return {"error": "", "facts": facts, "rss_label": m.rss_label, "rows": rows, "missing": m.missing}


def scenario_view(view: RunView, scenario: str, extras: RunExtras, colors: dict[str, str],
                  claims: list[ratios.ClaimResult], ids: itertools.count) -> dict:
    """One scenario's section: its intro, what was not measured, charts (with page-unique ids), tables,
    its remarks, claims."""
    gaps = [m for m in missing(view) if m.scenario.split(":")[0] == scenario]
    sc = registry.get(scenario)
    text_tables, remarks = stated_claims.scenario_words(sc, view) if sc is not None else ([], [])
    return {
        "name": scenario, "title": scenario_title(scenario), "intro": scenario_intro(view, scenario),
        "gaps": "; ".join(m.text() for m in gaps),
        "charts": [(f"chart-{next(ids)}", c) for c in scenario_charts(view, scenario, extras, colors)],
        "tables": scenario_tables(view, scenario), "text_tables": text_tables,
        "remarks": [line.strip() for line in remarks if line.strip()],  # the terminal's indents mean nothing here
        "claims": [claim_view(c) for c in claims],
    }


def findings_view(view: RunView, extras: RunExtras, colors: dict[str, str], ids) -> dict | None:
    """The report's opening block: the headline ratios with their intervals, and the two charts that
    show them (the ratio per round; throughput from launch)."""
    found = findings.findings(view)
    if found is None:
        return None
    rows = [{"ratio": f"{r.numerator} / {r.denominator}", "what": r.what,
             "estimate": f"{r.interval.estimate:.2f}x" if r.interval else
             f"{r.a.summary.median / r.b.summary.median:.2f}x",
             "interval": f"{r.interval.low:.2f}-{r.interval.high:.2f}x" if r.interval else "none (one launch a side)",
             "n": (f"{r.interval.n} rounds, paired" if r.interval.paired else f"{r.interval.n} a side") if r.interval
             else "1", "settled": r.settled,
             "state": r.state(), "sql": r.sql, "across": r.across_text()} for r in found.ratios]
    steady = scenario_charts(view, "steady", extras, colors)[:1]
    shown = [c for c in [findings.ratio_chart(found), *steady] if c is not None]
    first = found.ratios[0] if found.ratios else None  # none: only failures under the plan's heap flags
    return {"conditions": found.conditions, "rows": rows,
            "target": f"+-{first.target if first else findings.DEFAULT_TARGET:.0%}", "least": first.least if first else 2,
            "behind": found.behind, "notes": found.notes(), "failures": found.failures, "warnings": found.warnings(),
            "charts": [(f"chart-{next(ids)}", c) for c in shown]}


def frameworks_view(view: RunView, ids) -> dict | None:
    """The frameworks side by side: one table and one chart (None when the run has fewer than two)."""
    shown = frameworks.view_of(view)
    if shown is None:
        return None
    table, chart = shown
    return {"table": table, "charts": [(f"chart-{next(ids)}", chart)] if chart else []}


def render(view: RunView, extras: RunExtras) -> str:
    colors = charts.colors_for(view)
    claim_results = ratios.evaluate_all(view)
    scenarios = report_scenarios(view)
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(view.started_at)) if view.started_at else "?"
    toc = [("findings", "What this run found"), ("environment", "Environment"), ("method", "Method and limits"), ("verdicts", "Published claims"),
           ("contradictions", "Study contradictions"), ("missing", "What is missing")] + [(f"s-{s}", s) for s in scenarios] + [("cost", "Cost model")]
    ids = itertools.count(1)
    found = findings_view(view, extras, colors, ids)
    side = frameworks_view(view, ids)
    if side:
        toc.insert(1, ("frameworks", "The frameworks side by side"))
    sections = [scenario_view(view, s, extras, colors, [r for r in claim_results if r.claim.where.scenario == s], ids)
                for s in scenarios]
    profiled = profiles.section(extras.profiles, ids)
    if profiled:
        toc.insert(-1, ("profiles", "Profiles"))
    has_charts = (any(s["charts"] for s in sections) or bool(found and found["charts"]) or bool(profiled)
                  or bool(side and side["charts"]))
    return templates().get_template("report.html.j2").render(
        view=view, started=started, targets=", ".join(view.targets()) or "none", toc=toc, findings=found, frameworks=side,
        environment=environment_rows(view), method=method_view(view, extras), verdicts=verdict_view(claim_results),
        contradictions=contradiction_rows(), worded=worded_rows(), projection=projection_view(view),
        not_transcribed=NOT_TRANSCRIBED,
        missing=missing(view), not_in_plan=not_in_plan(view), scenarios=sections, cost=cost_view(view),
        studies=list(STUDIES.items()), profiles=profiled, fine_print=fine_print([view]),
        plotly_js=Markup(charts.plotly_js()) if has_charts else "")
