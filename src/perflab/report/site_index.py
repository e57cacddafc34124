"""The index of `perflab site` (index.html) and the names of the pages it links.

A row per headline ratio of each run, as the run's report gives it (findings.ratio_findings): its
estimate, 95 % interval and whether it settled, each in a column of its own beside the run's plan,
start, machine, status, git and method, so that the table sorts by any of them (a click on a
column's header; numbers by the value each cell carries, not its text). A run without a headline
ratio still has its row. Each plan's history page, linked from the list of plans and from every
row, charts its runs' ratios over time."""

from __future__ import annotations

import re
import time
from html import escape

from perflab import results
from perflab.report import findings, history

STYLE = ("body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1400px;padding:0 16px;color:#1d1d1f}"
         "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
         "vertical-align:top}th{background:#f3f4f7}th[data-sort]{cursor:pointer}td.num{text-align:right}"
         "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}"
         ".muted{color:#666}td.failed,td.interrupted{color:#b3261e}")
# A click on a sortable header sorts the rows by that column, a second click the other way. A number
# is read from the cell's data-value (the text is rounded and "1.2-1.4"); cells without one go last
# either way. The sort is stable, so sorting by one column and then another keeps the first within ties.
SORT_SCRIPT = """document.querySelectorAll("table.sortable th[data-sort]").forEach(th =>
 th.addEventListener("click", () => {
  const body = th.closest("table").tBodies[0], col = th.cellIndex, num = th.dataset.sort === "num";
  const way = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
  th.parentNode.querySelectorAll("th").forEach(h => h.removeAttribute("aria-sort"));
  th.setAttribute("aria-sort", way > 0 ? "ascending" : "descending");
  const key = tr => num ? parseFloat(tr.cells[col].dataset.value) : tr.cells[col].textContent.trim();
  body.append(...[...body.rows].sort((a, b) => {
    const x = key(a), y = key(b);
    if (num && (isNaN(x) || isNaN(y))) return isNaN(x) - isNaN(y);
    return way * (num ? x - y : x.localeCompare(y));
  }));
}));"""
# (header, how it sorts: "num", "text", or "" not at all); an interval sorts by its low end
COLUMNS = [("run", "text"), ("plan", "text"), ("started", "num"), ("machine", "text"), ("status", "text"),
           ("ratio", "text"), ("figure", "text"), ("estimate", "num"), ("95 % interval", "num"),
           ("settled", "text"), ("git", "text"), ("method", "text"), ("pages", "")]


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


def _number(value: float, text: str) -> str:
    """A cell sorted by `value`, not by its text."""
    return f'<td class=num data-value="{value!r}">{escape(text)}</td>'


def _ratio_cells(view: results.RunView) -> list[str]:
    """The ratio, figure, estimate, interval and settled cells of each headline ratio of the run; one
    row of empty cells but "none" for a run without one."""
    out = []
    for r in findings.ratio_findings(view):
        ci = r.interval
        # no interval (one launch a side, or too few steady rounds): the ratio of the two medians
        estimate = ci.estimate if ci is not None else r.a.summary.median / r.b.summary.median
        out.append(f"<td>{escape(r.numerator)} / {escape(r.denominator)}</td><td>{escape(r.what)}</td>"
                   + _number(estimate, f"{estimate:.2f}x")
                   + (_number(ci.low, f"{ci.low:.2f}-{ci.high:.2f}") if ci is not None
                      else "<td class=muted>none</td>")
                   + f'<td title="{escape(r.state())}">{"settled" if r.settled else "not settled"}</td>')
    return out or ["<td class=muted>none</td><td></td><td></td><td></td><td></td>"]


def render(views: list[results.RunView], plans: dict[str, int], comparisons: int,
           before: dict[str, results.RunView], versions: set[str]) -> str:
    """The index of `views` (newest first); `plans`: each plan with a history page and its change
    points; `before`: each run's predecessor in its series; `versions`: the runs with a versions page."""
    rows = []
    for v in views:
        plan = v.plan.get("name") or "?"
        started = (_number(v.started_at, time.strftime("%Y-%m-%d %H:%M", time.localtime(v.started_at)))
                   if v.started_at else "<td>?</td>")
        pages = [link(report_page(v.id), "report")]
        if v.id in versions:
            pages.append(link(report_page(v.id, "versions.html"), "by version"))
        if v.id in before:
            pages.append(link(compare_page(before[v.id].id, v.id), f"against {before[v.id].id}"))
        # each row names its run in full: sorted, it stands apart from the run's other rows
        head = (f"<td>{link(report_page(v.id), v.id)}</td>"
                f"<td>{link(history_page(plan), plan) if plan in plans else escape(plan)}</td>{started}"
                f"<td>{escape(history.machine(v))}</td><td class=\"{escape(v.status)}\">{escape(v.status)}</td>")
        tail = f"<td>{escape(_git(v))}</td><td>{escape(v.method_hash)}</td><td>{' · '.join(pages)}</td>"
        rows += [f'<tr data-run="{escape(v.id)}">{head}{ratio}{tail}</tr>' for ratio in _ratio_cells(v)]
    plan_items = "".join(f"<li>{link(history_page(p), p)}: {sum(v.plan.get('name') == p for v in views)} run(s), "
                         f"{n} change point(s)</li>" for p, n in plans.items())
    header = "".join(f'<th data-sort="{how}">{name}</th>' if how else f"<th>{name}</th>" for name, how in COLUMNS)
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>perflab: {len(views)} runs</title>"
            f"<style>{STYLE}</style></head><body><h1>perflab results</h1>"
            f"<p>{len(views)} stored run(s), newest first; {len(plans)} plan(s) with figures; "
            f"{comparisons} comparison(s) of a run with the one before it (same plan, method and machine).</p>"
            + (f"<h2>Plans over time</h2><p>Each plan's history: its runs' headline figures and ratios charted "
               f"over time, with their change points.</p><ul>{plan_items}</ul>" if plan_items else "")
            + "<h2>Runs</h2><p>A row per headline ratio of each run, as its report gives it; a run without one has "
            "a row of its own. A ratio's interval is its 95 % interval from the run's launches; settled means "
            "within the plan's target (the mark's tooltip says why not). Click a column's header to sort by it, "
            "again to reverse.</p>"
            f"<table class=sortable><thead><tr>{header}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<script>{SORT_SCRIPT}</script></body></html>")
