"""The Markdown report: the same content as the HTML report in pipe tables (no charts), for
reading in a terminal, a pull request or a wiki."""

from __future__ import annotations

import itertools
import time

from perflab import registry
from perflab.present.published import NOT_TRANSCRIBED, STUDIES, contradiction_rows, methods
from perflab.present.published import projection as published_projection
from perflab.present.published.worded import worded_rows
from perflab.present.tables import (FLAG_MARK, Table, flag_help, fmt_published, fmt_ratio, fmt_value, cell_text, marks,
                                    spread_text)
from perflab.present.tables import TextTable
from perflab.report import cost, findings, frameworks, profiles, ratios
from perflab.report.facts import (RunExtras, environment_rows, method_rows, missing, not_in_plan, reductions,
                                  scenario_intro, unenforced_limits)
from perflab.report.sections import report_scenarios, scenario_tables, scenario_title
from perflab.report import stated_claims
from perflab.results import Cell, RunView


def _esc(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def cell_md(cell: Cell | None) -> str:
    if cell is None:
        return "-"
    median, _, rest = cell_text(cell).partition(" ")  # the median in bold, its spread and marks after it
    return f"**{median}** {rest}".rstrip()


def md_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(_esc(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def table_md(t: Table) -> str:
    body = md_table([t.row_header, *t.columns], [[lbl, *(cell_md(c) for c in row)] for lbl, row in t.rows])
    return f"#### {t.title}\n\n{body}" + (f"\n\n_{t.note}_" if t.note else "")


def text_table_md(t: TextTable) -> str:
    return f"#### {t.title}\n\n{md_table(t.headers, t.rows)}" + (f"\n\n_{t.note}_" if t.note else "")


def _ratio_text(r: ratios.Ratio) -> str:
    if r.measured is None:
        return "-"
    text = fmt_ratio(r.measured)
    if r.low is not None and r.high is not None and r.high > r.low:
        text += f" [{fmt_ratio(r.low)}-{fmt_ratio(r.high)}]"
    return text


def _verdict(r: ratios.Ratio) -> str:
    return f"**{r.verdict}**" + (f" ({r.why})" if r.why else "")


def claim_md(res: ratios.ClaimResult) -> str:
    c = res.claim
    base = c.baseline  # the study's, or the variant of it the claim divides by (KT-2020's "Spring fixed")
    head = f"**{c.study} {c.what}** ({c.unit}; compared with {c.where.describe()})"
    if not ratios.has_any_measured(res):
        listed = ", ".join(f"{lbl} {fmt_published(v)}" for lbl, v in c.figures)
        reasons = "; ".join(f"{r.target}: {r.missing_reason}" for r in res.rows)
        return f"{head}: published {listed}. Nothing here to compare: {reasons}."
    rows = []
    for r in res.rows:
        here = r.target + (f" ({r.measured.point})" if r.measured and r.measured.point not in ("", "warm") else "")
        if not r.measured:
            here += f" ({r.missing_reason})"
        none = "baseline" if c.ratios else "no ratio drawn by the study"
        ratio = [none, "", "", ""] if r.ratio is None else [fmt_ratio(r.ratio.published), _ratio_text(r.ratio),
                                                            _verdict(r.ratio), r.ratio.size_text()]
        rows.append([r.label, here, fmt_published(r.published), cell_md(r.measured.cell if r.measured else None),
                     fmt_ratio(r.measured_over_published), *ratio])
    table = md_table(["study", "here", "published", "measured here", "measured / published",
                      f"÷ {base} published", f"÷ {base} measured [range]", "direction", "size"], rows)
    return f"{head}\n\n{table}" + (f"\n\n_{c.note}_" if c.note else "") + f"\n\n_{c.provenance()}_"


def verdicts_md(results: list[ratios.ClaimResult]) -> str:
    rows = []
    for res in results:
        for row, ratio in res.verdicts():
            if ratio.measured is not None:
                rows.append([res.claim.study, res.claim.what, f"{row.label} ÷ {res.baseline_label} ({row.target})",
                             fmt_ratio(ratio.published), _ratio_text(ratio), _verdict(ratio), ratio.size_text()])
    counts = ratios.count(results)
    per_study = "\n".join(f"- {t.text()}" for t in ratios.by_study(results))
    if not rows:
        return (f"None of the {counts.total} published ratios could be checked: each needs both the study's framework "
                f"and its baseline measured in this run (see What is missing).\n\n{per_study}")
    return (md_table(["study", "claim", "ratio", "published", "measured [95 % interval]", "direction", "size"], rows)
            + f"\n\n{counts.text()}. Direction \"held\": the ratio's whole 95 % interval from the launch-level values "
              f"(with one value a side: the whole range the values allow) lies on the published side of 1. Size: that "
              f"interval within ±{ratios.SIZE_TOLERANCE:.0%} of the published ratio, outside it (off, by how far), or "
              f"across the band's edge (undecided)."
              f"\n\n{per_study}")


def contradictions_md() -> str:
    rows = [[c["study"], c["topic"], c["wording"], c["finding"], c["compared"]] for c in contradiction_rows()]
    table = md_table(["study", "on", "the study says", "its own figures give", "perflab compares with"], rows)
    worded = md_table(["study", "on", "the study says", "as a value", "its own figures give"],
                      [[w["study"], w["what"], w["wording"], w["stated"], w["figures"]] for w in worded_rows()])
    untranscribed = "\n".join(f"- {n.study}: {n.what}: not transcribed: {n.why}" for n in NOT_TRANSCRIBED)
    return f"{table}\n\n### Stated in words\n\n{worded}\n\n### Not transcribed\n\n{untranscribed}"


def cost_md(view: RunView) -> str:
    try:
        m = cost.model(view)
    except Exception as exc:  # a bad [cost] table must not cost the whole report
        return f"The cost model could not be computed: {exc}"
    a = m.assumptions
    svc = a["services"]
    out = [f"{sum(svc.values())} services ({svc['high']} high, {svc['medium']} medium, {svc['low']} low memory) x "
           f"{a['replicas']} replica(s) on {a['node_mb']:,} MB nodes, {a['reserved_mb']} MB reserved per node; a pod "
           f"needs the {m.rss_label} x the class factor (high {a['memory_factor']['high']}, medium "
           f"{a['memory_factor']['medium']}, low {a['memory_factor']['low']}) + {a['pod_overhead_mb']} MB; one node pool "
           f"per class (LAB-2020 did not publish its per-class sizes: the factors are this model's assumptions); "
           f"savings against {a['baseline']}. Override in the plan's [cost] table."]
    if m.results:
        rows = []
        for r in m.results:
            saving = "baseline" if r.target == a["baseline"] else ("-" if r.savings is None else f"{r.savings:.0%}")
            if r.savings is not None and r.savings_low is not None and r.savings_high is not None:
                saving += f" [{r.savings_low:.0%} to {r.savings_high:.0%}]"
            rows.append([r.target, cell_md(r.rss), " / ".join(str(c.pods_per_node) for c in r.classes),
                         "-" if r.nodes is None else str(r.nodes), saving,
                         "-" if r.published_savings is None else f"{r.published_savings:.0%}"])
        out.append(md_table(["app/mode", f"{m.rss_label} MB", "pods per node (high / medium / low)", "nodes",
                             "savings here [repeats' range]", "LAB-2020 published savings"], rows))
    out += [f"- {x}" for x in m.missing]
    return "\n\n".join(out)


def profiles_md(extras: RunExtras) -> list[str]:
    """The profiles' tables and the differential views' sentences (their flame graphs are in the HTML)."""
    found = profiles.section(extras.profiles, itertools.count(1))
    if found is None:
        return []
    out = ["## Where the CPU goes: profiles", "_Flame graphs are in the HTML report; docs/profiles.md explains them._"]
    for block in found["blocks"]:
        out += [f"### {block['title']}"] + [text_table_md(t) for t in block["tables"]]
    for d in found["diffs"]:
        out += [f"### {d['title']}", d["sentence"]] + [text_table_md(t) for t in d["tables"]]
    return out


def render(view: RunView, extras: RunExtras) -> str:
    claim_results = ratios.evaluate_all(view)
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(view.started_at)) if view.started_at else "?"
    out = [f"# perflab report: run {view.id}",
           f"plan **{view.plan.get('name')}**, status **{view.status}**, started {started}; apps/modes: "
           f"{', '.join(view.targets()) or 'none'}. Charts are in the HTML report beside this file."]
    if view.status != "complete":
        out.append(f"> **This run did not complete ({view.status})**{': ' + view.note if view.note else ''}; the figures "
                   f"are those stored before it ended.")
    found = findings.findings(view)
    if found is not None:
        out += ["## What this run found", "\n".join(f"- {line.strip()}" for line in found.lines()[1:])]
    side = frameworks.table_of(view)
    if side is not None:
        out += ["## The frameworks side by side", md_table(side.headers, side.rows), f"_{side.note}_",
                "_Its chart, a panel per figure with each interval as whiskers, is in the HTML report._"]
    out += ["## Environment", md_table(["", ""], [[k, v] for k, v in environment_rows(view)])]
    out += ["## Method and limits", md_table(["", ""], [[k, v] for k, v in method_rows(view)])]
    unenforced = unenforced_limits(view, extras)
    if unenforced:
        out.append("**Limits not enforced:**\n\n" + "\n".join(f"- {x}" for x in unenforced))
    against = methods.against_study(view.plan)
    if against:
        out.append(f"Settings against {against[0]}'s recorded method:\n\n" + "\n".join(f"- {x}" for x in against[1]))
    reds = reductions(view)
    if reds:
        out.append("Reductions against the studies' method:\n\n" + "\n".join(f"- {x}" for x in reds))
    if extras.driver_bound:
        out.append("Driver-bound points (the load driver, not the app, was the limit):\n\n"
                   + "\n".join(f"- {t} {s} {p}: {why or 'no reason recorded'}" for t, s, p, why in extras.driver_bound))
    used = sorted({f for c in view.cells for f in c.flags})
    keys = [f"{FLAG_MARK.get(f, '[' + f + ']')} {f}: {flag_help(f)}" for f in used]
    out.append("Every figure: **median** [min-max] cv n over the repeats."
               + (" Marks: " + "; ".join(keys) + "." if keys else ""))
    out += ["## Did the published claims hold here?", verdicts_md(claim_results)]
    projection = ratios.projection_rows(view)
    if projection:
        out += ["### RT-2019's processes per 2048 MB, computed the study's way", ratios.PROJECTION_NOTE,
                md_table(ratios.PROJECTION_HEADERS, projection), "The study's own 2048 MB table, as printed:",
                md_table(published_projection.PRINTED_HEADERS, published_projection.printed_rows())]
    out += ["## What the studies contradict themselves on", contradictions_md()]
    out.append("## What is missing")
    gaps = missing(view)
    rows = [[m.target, m.scenario, m.status, m.reason] for m in gaps]
    out.append(md_table(["app/mode", "scenario", "status", "why"], rows) if gaps
               else "Every app/mode ran every scenario of the plan.")
    absent = not_in_plan(view)
    if absent:
        out.append("Published figures of scenarios this plan did not run:\n\n" + "\n".join(f"- {x}" for x in absent))
    for s in report_scenarios(view):
        out.append(f"## {scenario_title(s)}")
        intro = scenario_intro(view, s)
        if intro:
            out.append(f"_{intro}_")
        mine = [m for m in gaps if m.scenario.split(":")[0] == s]
        if mine:
            out.append("Not measured: " + "; ".join(m.text() for m in mine))
        tables = scenario_tables(view, s)
        out += [table_md(t) for t in tables]
        sc = registry.get(s)
        text_tables, remarks = stated_claims.scenario_words(sc, view) if sc is not None else ([], [])
        out += [text_table_md(t) for t in text_tables]
        if any(line.strip() for line in remarks):
            out.append("\n".join(f"- {line.strip()}" for line in remarks if line.strip()))
        claims = [r for r in claim_results if r.claim.where.scenario == s]
        if claims:
            out.append("### Published figures beside these")
            out += [claim_md(r) for r in claims]
    out += profiles_md(extras)
    out += ["## Cost model (LAB-2020)", cost_md(view)]
    out.append("---\nStudies: " + "; ".join(f"{k} {s.title}: {s.setting}" for k, s in STUDIES.items()))
    return "\n\n".join(out) + "\n"
