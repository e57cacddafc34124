"""`perflab site [--out DIR]`: one static site of everything the results file holds, which opens
from the file system with no server.

    index.html                   a row per headline ratio of each run (its estimate, interval, settled or
                                 not; the run's plan, start, machine, status, git, method), sortable
    runs/RUN/report.html         each run's report (`perflab report`), report.md, versions.html by version
    history/PLAN.html            each plan's runs over time, its headline ratios' chart among them, with
                                 their change points (`perflab history`)
    compare/A-vs-B.html          each run against the one before it in its series (`perflab compare A B`)
    assets/plotly.js             plotly.js, once for every page

The pages are the commands' own, each given a line of links back to the index and to its
neighbours; every link is relative. A run is compared with the run before it among the runs of its
plan with its method on its machine: the series `history` seeks change points in, and the runs
`compare` agrees to set side by side (runs of another method it refuses unless forced)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from perflab import results
from perflab.migrate import open_store
from perflab.paths import work_dir
from perflab.present import charts
from perflab.report import compare, history, site_index, write_report
from perflab.report.site_index import compare_page, history_page, link, report_page
from perflab.store import Store

PLOTLY = "assets/plotly.js"
NAV_STYLE = ("font:13px system-ui,sans-serif;padding:6px 16px;background:#eef3fb;border-bottom:1px solid #cbd7f0")


@dataclass
class Site:
    index: Path
    runs: list[str] = field(default_factory=list)
    plans: dict[str, int] = field(default_factory=dict)  # plan -> change points in its history
    comparisons: list[tuple[str, str]] = field(default_factory=list)  # (A, B): B against A


def default_out_dir() -> Path:
    return work_dir() / "site"


def _up(page: str) -> str:
    """The way back to the site's root from a page: "../" per folder it lies in."""
    return "../" * page.count("/")


def _finish(doc: str, page: str, links: list[tuple[str, str]]) -> str:
    """A command's page made a page of the site: a line of links (site paths, made relative to the
    page) opens its body, and plotly.js comes from the one copy in assets/ instead of inline."""
    up = _up(page)
    nav = " · ".join(link(up + href, text) for href, text in [("index.html", "all runs"), *links])
    if "<body>" not in doc:
        raise ValueError(f"{page}: no <body> to put the site's links in")
    doc = doc.replace("<body>", f'<body><nav class="site" style="{NAV_STYLE}">{nav}</nav>', 1)
    return doc.replace(f"<script>{charts.plotly_js()}</script>", f'<script src="{up}{PLOTLY}"></script>')


def _write(out: Path, page: str, text: str) -> None:
    path = out / page
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


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
    _write(out, "index.html", site_index.render(views, site.plans, len(site.comparisons), before, versions))
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
