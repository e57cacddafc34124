"""The index of `perflab site` (index.html) and the names of the pages it links: a row per run with
its plan, start, git, method, machine, status and headline ratios, and each plan's history."""

from __future__ import annotations

import re
import time
from html import escape

from perflab import results
from perflab.report import findings, history

STYLE = ("body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1240px;padding:0 16px;color:#1d1d1f}"
         "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
         "vertical-align:top}th{background:#f3f4f7}ul.ratios{margin:0;padding-left:16px}.muted{color:#666}"
         "td.failed,td.interrupted{color:#b3261e}")


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "_"


def history_page(plan: str) -> str:
    return f"history/{_file_name(plan)}.html"


def compare_page(a: str, b: str) -> str:
    return f"compare/{_file_name(a)}-vs-{_file_name(b)}.html"


def report_page(run_id: str, name: str = "report.html") -> str:
    return f"runs/{_file_name(run_id)}/{name}"


def link(href: str, text: str) -> str:
    return f'<a href="{escape(href)}">{escape(text)}</a>'


def _git(view: results.RunView) -> str:
    git = view.environment.get("git") or {}
    return (git.get("sha") or "?")[:10] + (" (uncommitted changes)" if git.get("dirty") else "")


def ratio_lines(view: results.RunView) -> list[str]:
    """The run's headline ratios, each with its 95 % interval and whether it settled."""
    out = []
    for r in findings.ratio_findings(view):
        name = f"{r.numerator} / {r.denominator} {r.what}"
        if r.interval is None:
            out.append(f"{name}: {r.a.summary.median / r.b.summary.median:.2f}x, no interval (one launch a side)")
        else:
            ci = r.interval
            out.append(f"{name}: {ci.estimate:.2f}x [{ci.low:.2f}-{ci.high:.2f}], {r.state()}")
    return out


def render(views: list[results.RunView], plans: dict[str, int], comparisons: int,
           before: dict[str, results.RunView], versions: set[str]) -> str:
    """The index of `views` (newest first); `plans`: each plan with a history page and its change
    points; `before`: each run's predecessor in its series; `versions`: the runs with a versions page."""
    rows = []
    for v in views:
        plan = v.plan.get("name") or "?"
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(v.started_at)) if v.started_at else "?"
        ratios = ratio_lines(v)
        pages = [link(report_page(v.id), "report")]
        if v.id in versions:
            pages.append(link(report_page(v.id, "versions.html"), "by version"))
        if v.id in before:
            pages.append(link(compare_page(before[v.id].id, v.id), f"against {before[v.id].id}"))
        rows.append(
            f"<tr data-run=\"{escape(v.id)}\"><td>{link(report_page(v.id), v.id)}</td>"
            f"<td>{link(history_page(plan), plan) if plan in plans else escape(plan)}</td>"
            f"<td>{started}</td><td>{escape(_git(v))}</td><td>{escape(v.method_hash)}</td>"
            f"<td>{escape(history.machine(v))}</td><td class=\"{escape(v.status)}\">{escape(v.status)}</td>"
            "<td>" + ("<ul class=ratios>" + "".join(f"<li>{escape(x)}</li>" for x in ratios) + "</ul>" if ratios
                      else "<span class=muted>none</span>") + "</td>"
            f"<td>{' · '.join(pages)}</td></tr>")
    plan_items = "".join(f"<li>{link(history_page(p), p)}: {sum(v.plan.get('name') == p for v in views)} run(s), "
                         f"{n} change point(s)</li>" for p, n in plans.items())
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>perflab: {len(views)} runs</title>"
            f"<style>{STYLE}</style></head><body><h1>perflab results</h1>"
            f"<p>{len(views)} stored run(s), newest first; {len(plans)} plan(s) with figures; "
            f"{comparisons} comparison(s) of a run with the one before it (same plan, method and machine). "
            "A ratio's interval is its 95 % interval from the run's launches; settled means within the plan's "
            "target.</p>"
            + (f"<h2>Plans over time</h2><ul>{plan_items}</ul>" if plan_items else "")
            + "<h2>Runs</h2><table><thead><tr><th>run</th><th>plan</th><th>started</th><th>git</th><th>method</th>"
            "<th>machine</th><th>status</th><th>headline ratios [95 % interval]</th><th>pages</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></body></html>")
