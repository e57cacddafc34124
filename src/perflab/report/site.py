"""`perflab site [--out DIR]`: one static site of everything the results file holds, which opens
from the file system with no server.

    index.html                   every run: plan, start, git, method, machine, status, headline ratios
    runs/RUN/report.html         each run's report (`perflab report`), report.md, versions.html by version
    history/PLAN.html            each plan's runs over time with their change points (`perflab history`)
    compare/A-vs-B.html          each run against the one before it in its series (`perflab compare A B`)
    assets/plotly.js             plotly.js, once for every page

The pages are the commands' own, each given a line of links back to the index and to its
neighbours; every link is relative. A run is compared with the run before it among the runs of its
plan with its method on its machine: the series `history` seeks change points in, and the runs
`compare` agrees to set side by side (runs of another method it refuses unless forced)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from perflab import results
from perflab.migrate import open_store
from perflab.paths import work_dir
from perflab.present import charts
from perflab.report import compare, findings, history, write_report
from perflab.store import Store

PLOTLY = "assets/plotly.js"
STYLE = ("body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1240px;padding:0 16px;color:#1d1d1f}"
         "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
         "vertical-align:top}th{background:#f3f4f7}ul.ratios{margin:0;padding-left:16px}.muted{color:#666}"
         "td.failed,td.interrupted{color:#b3261e}")
NAV_STYLE = ("font:13px system-ui,sans-serif;padding:6px 16px;background:#eef3fb;border-bottom:1px solid #cbd7f0")


@dataclass
class Site:
    index: Path
    runs: list[str] = field(default_factory=list)
    plans: dict[str, int] = field(default_factory=dict)  # plan -> change points in its history
    comparisons: list[tuple[str, str]] = field(default_factory=list)  # (A, B): B against A


def default_out_dir() -> Path:
    return work_dir() / "site"


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "_"


def history_page(plan: str) -> str:
    return f"history/{_file_name(plan)}.html"


def compare_page(a: str, b: str) -> str:
    return f"compare/{_file_name(a)}-vs-{_file_name(b)}.html"


def report_page(run_id: str, name: str = "report.html") -> str:
    return f"runs/{_file_name(run_id)}/{name}"


def _link(href: str, text: str) -> str:
    return f'<a href="{escape(href)}">{escape(text)}</a>'


def _up(page: str) -> str:
    """The way back to the site's root from a page: "../" per folder it lies in."""
    return "../" * page.count("/")


def _finish(doc: str, page: str, links: list[tuple[str, str]]) -> str:
    """A command's page made a page of the site: a line of links (site paths, made relative to the
    page) opens its body, and plotly.js comes from the one copy in assets/ instead of inline."""
    up = _up(page)
    nav = " · ".join(_link(up + href, text) for href, text in [("index.html", "all runs"), *links])
    if "<body>" not in doc:
        raise ValueError(f"{page}: no <body> to put the site's links in")
    doc = doc.replace("<body>", f'<body><nav class="site" style="{NAV_STYLE}">{nav}</nav>', 1)
    return doc.replace(f"<script>{charts.plotly_js()}</script>", f'<script src="{up}{PLOTLY}"></script>')


def _write(out: Path, page: str, text: str) -> None:
    path = out / page
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


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


def _runs_by_plan(views: list[results.RunView]) -> dict[str, list[results.RunView]]:
    """The runs with figures by plan, oldest first (as `perflab history` takes them)."""
    plans: dict[str, list[results.RunView]] = {}
    for view in sorted((v for v in views if v.cells), key=lambda v: v.started_at):
        plans.setdefault(view.plan.get("name") or "?", []).append(view)
    return plans


def _before(plans: dict[str, list[results.RunView]]) -> dict[str, results.RunView]:
    """Each run's predecessor in its series (plan, method, machine), for the compare pages."""
    out = {}
    for views in plans.values():
        for series in history.series_groups(views).values():
            out.update({b.id: a for a, b in zip(series, series[1:])})
    return out


def _index(views: list[results.RunView], site: Site, before: dict[str, results.RunView],
           versions: set[str]) -> str:
    rows = []
    for v in views:
        plan = v.plan.get("name") or "?"
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(v.started_at)) if v.started_at else "?"
        ratios = ratio_lines(v)
        pages = [_link(report_page(v.id), "report")]
        if v.id in versions:
            pages.append(_link(report_page(v.id, "versions.html"), "by version"))
        if v.id in before:
            pages.append(_link(compare_page(before[v.id].id, v.id), f"against {before[v.id].id}"))
        rows.append(
            f"<tr data-run=\"{escape(v.id)}\"><td>{_link(report_page(v.id), v.id)}</td>"
            f"<td>{_link(history_page(plan), plan) if plan in site.plans else escape(plan)}</td>"
            f"<td>{started}</td><td>{escape(_git(v))}</td><td>{escape(v.method_hash)}</td>"
            f"<td>{escape(history.machine(v))}</td><td class=\"{escape(v.status)}\">{escape(v.status)}</td>"
            "<td>" + ("<ul class=ratios>" + "".join(f"<li>{escape(x)}</li>" for x in ratios) + "</ul>" if ratios
                      else "<span class=muted>none</span>") + "</td>"
            f"<td>{' · '.join(pages)}</td></tr>")
    plans = "".join(f"<li>{_link(history_page(p), p)}: {sum(v.plan.get('name') == p for v in views)} run(s), "
                    f"{n} change point(s)</li>" for p, n in site.plans.items())
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>perflab: {len(views)} runs</title>"
            f"<style>{STYLE}</style></head><body><h1>perflab results</h1>"
            f"<p>{len(views)} stored run(s), newest first; {len(site.plans)} plan(s) with figures; "
            f"{len(site.comparisons)} comparison(s) of a run with the one before it (same plan, method and machine). "
            "A ratio's interval is its 95 % interval from the run's launches; settled means within the plan's "
            "target.</p>"
            + (f"<h2>Plans over time</h2><ul>{plans}</ul>" if plans else "")
            + "<h2>Runs</h2><table><thead><tr><th>run</th><th>plan</th><th>started</th><th>git</th><th>method</th>"
            "<th>machine</th><th>status</th><th>headline ratios [95 % interval]</th><th>pages</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></body></html>")


def build(store: Store, out: Path) -> Site:
    """Write the site of every run `store` holds to `out` and return what it holds."""
    out.mkdir(parents=True, exist_ok=True)
    views = [v for v in (results.load(store, row["id"]) for row in store.runs()) if v is not None]  # newest first
    site = Site(out / "index.html")
    _write(out, PLOTLY, charts.plotly_js())
    plans = _runs_by_plan(views)
    before = _before(plans)
    for plan, plan_views in plans.items():
        found = history.changes(plan_views)
        site.plans[plan] = len(found)
        _write(out, history_page(plan), _finish(history.render(plan, plan_views, found), history_page(plan), []))
    versions = set()
    for v in views:
        plan = v.plan.get("name") or "?"
        folder = out / report_page(v.id, "")
        paths = write_report(store, v.id, folder)
        links = [(history_page(plan), f"history of {plan}")] if plan in site.plans else []
        if paths.versions:
            versions.add(v.id)
            links.append((report_page(v.id, "versions.html"), "by version"))
        if v.id in before:
            links.append((compare_page(before[v.id].id, v.id), f"against {before[v.id].id}"))
        for path in (paths.html, paths.versions):
            if path is not None:
                page = report_page(v.id, path.name)
                path.write_text(_finish(path.read_text(encoding="utf-8"), page,
                                        [(report_page(v.id), "report")] + links), encoding="utf-8")
        site.runs.append(v.id)
    for b_id, a in before.items():
        b = next(v for v in views if v.id == b_id)
        page = compare_page(a.id, b.id)
        html = compare.render_html(compare.compare_runs(a, b))
        _write(out, page, _finish(html, page, [(report_page(a.id), f"A: {a.id}"), (report_page(b.id), f"B: {b.id}"),
                                              (history_page(b.plan.get("name") or "?"), "history")]))
        site.comparisons.append((a.id, b.id))
    _write(out, "index.html", _index(views, site, before, versions))
    return site


def cli_site(args) -> int:
    """`perflab site [--out DIR]`."""
    store = open_store()
    out = Path(args.out) if getattr(args, "out", None) else default_out_dir()
    site = build(store, out)
    print(f"site of {len(site.runs)} run(s), {len(site.plans)} plan history(ies), {len(site.comparisons)} "
          f"comparison(s):", flush=True)
    print(f"  {site.index}", flush=True)
    print(f"  open it in a browser: {site.index.resolve().as_uri()}", flush=True)
    return 0
