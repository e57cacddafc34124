"""Reports of stored runs: a self-contained HTML file and a Markdown file with the studies' tables,
the published figures and ratios beside them, charts, the cost model, and what is missing; and the
comparison of two runs.

Reports read runs through perflab.results (and the store's files for samples and the per-launch
facts such as whether limits were enforced); they never start processes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from perflab import results
from perflab.errors import LabError
from perflab.migrate import open_store
from perflab.paths import work_dir
from perflab.report import ab_verdicts, compare, facts, gate, html, markdown, profiles, versions
from perflab.store import Store


@dataclass
class ReportPaths:
    run_id: str
    html: Path
    markdown: Path
    versions: Path | None = None  # the report by version, for a run of several framework versions


def default_out_dir(run_id: str) -> Path:
    return work_dir() / "reports" / run_id


def _load(store: Store, run_id: str) -> results.RunView:
    view = results.load(store, run_id)
    if view is None:
        raise LabError(f"no run {run_id!r} in {store.where}", fix="./perflab results list")
    return view


def write_report(store: Store, run_id: str = "last", out_dir: Path | None = None) -> ReportPaths:
    """Render run ``run_id`` (an id, a unique prefix or "last") to report.html and report.md."""
    view = _load(store, run_id)
    extras = facts.load_extras(store, view.id)
    folder = Path(out_dir) if out_dir else default_out_dir(view.id)
    folder.mkdir(parents=True, exist_ok=True)
    html_path, md_path = folder / "report.html", folder / "report.md"
    _write_whole(html_path, html.render(view, extras))
    _write_whole(md_path, markdown.render(view, extras))
    by_version = _write_versions(view, folder, {p.target for p in extras.profiles})
    return ReportPaths(view.id, html_path, md_path, by_version)


def write_ab_summary(view: results.RunView, found: list, fail_above: float | None) -> Path:
    """ab.md beside the run's report: `perflab ab`'s verdicts as Markdown (a pipeline's job summary)."""
    path = default_out_dir(view.id) / "ab.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_whole(path, ab_verdicts.markdown(view, found, fail_above))
    return path


def _write_versions(view: results.RunView, folder: Path, profiled: set[str]) -> Path | None:
    """versions.html beside report.html; `profiled`: the app/modes with profiles, whose differential
    view in report.html a change judged slower links to."""
    if not versions.has_versions(view):
        return None
    path = folder / "versions.html"
    _write_whole(path, versions.render(view, profiled))
    return path


def _write_whole(path: Path, text: str) -> None:
    """A report file as a whole or not at all: written beside it, then put in its place, so Ctrl-C
    or a full disk never leaves half a report where the last whole one was."""
    part = path.with_name(f".{path.name}.part")
    try:
        part.write_text(text, encoding="utf-8")
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def cli_report(args) -> int:
    """`perflab report RUN [--out DIR]`: args.run (default "last"), args.out (optional directory)."""
    paths = write_report(open_store(), getattr(args, "run", None) or "last", getattr(args, "out", None))
    print(f"report of run {paths.run_id}:", flush=True)
    print(f"  {paths.html}", flush=True)
    print(f"  {paths.markdown}", flush=True)
    if paths.versions:
        print(f"  {paths.versions} (by version)", flush=True)
    return 0


def cli_compare(args) -> int:
    """`perflab compare A [B] [--force] [--profile] [--out FILE] [--fail-above PCT]`: args.run_a, args.run_b
    (A is the baseline; without B, A's consecutive framework versions are compared), args.force
    (compare runs of different methods anyway), args.out (the HTML file; default
    reports/compare-A-vs-B.html in the work directory), args.profile (also the profiles' differential
    views, beside it as ...-profiles.html), args.fail_above (exit 1 when a change is worse beyond the
    noise by more than this many percent). Prints the comparison; exit 0 otherwise."""
    store = open_store()
    threshold = getattr(args, "fail_above", None)
    if not getattr(args, "run_b", None):
        view = _load(store, args.run_a)
        if not versions.has_versions(view):
            raise LabError(f"run {view.id} measured no framework versions: compare needs a second run",
                           fix="perflab compare A B, or a run of a plan with versions (e.g. upgrade)")
        print("\n".join(versions.text_lines(view)), flush=True)
        found = gate.version_regressions(view, threshold) if threshold is not None else []
    else:
        a, b = _load(store, args.run_a), _load(store, args.run_b)
        result = compare.compare_runs(a, b, force=bool(getattr(args, "force", False)))
        print(compare.render_text(result), flush=True)
        out = getattr(args, "out", None)
        path = Path(out) if out else work_dir() / "reports" / f"compare-{a.id}-vs-{b.id}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(compare.render_html(result), encoding="utf-8")
        print(f"\nHTML: {path}", flush=True)
        if getattr(args, "profile", False):
            for line in profiles.compare_runs(store, a.id, b.id, path.with_name(path.stem + "-profiles.html")):
                print(line, flush=True)
        found = gate.run_regressions(result, threshold) if threshold is not None else []
    if threshold is None:
        return 0
    print("\n".join(gate.verdict_lines(found, threshold)), flush=True)
    return 1 if found else 0
