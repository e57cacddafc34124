"""The terminal summary of a run: the same tables the report shows (each scenario's own
presentation, formatted by the same functions), those meant for the terminal, then what was not
measured and what every mark means."""

from __future__ import annotations

import io
import shutil
import sys

from rich import box
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from perflab import registry
from perflab.present.tables import FLAG_MARK, Table, TextTable, cell_text, flag_help
from perflab.report import findings, frameworks, ratios
from perflab.report.sections import report_scenarios, scenario_tables, scenario_title
from perflab.report import stated_claims
from perflab.results import RunView

CANARY = "canary"  # the host-speed canary's readings (perflab.round_loop), not a scenario of the plan


def _rich(t: Table) -> RichTable:
    out = RichTable(title=Text(t.title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    out.add_column(Text(t.row_header), no_wrap=True)
    for column in t.columns:
        out.add_column(Text(column), overflow="fold")
    # as Text: marks such as "[not-visible]" would otherwise be taken for markup and dropped
    for label, cells in t.rows:
        out.add_row(Text(label), *(Text(cell_text(c)) for c in cells))
    return out


def _rich_words(t: TextTable) -> RichTable:
    out = RichTable(title=Text(t.title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                    caption=Text(t.note) if t.note else None, caption_justify="left")
    for header in t.headers:
        out.add_column(Text(header), overflow="fold")
    for row in t.rows:
        out.add_row(*(Text(c) for c in row))
    return out


def header(view: RunView) -> list[str]:
    env = view.environment
    git = env.get("git") or {}
    limits = view.plan.get("limits", {})
    return [f"run {view.id} ({view.status}) plan {view.plan.get('name')}",
            f"machine: {env.get('cpu_model')}, {env.get('cpus_online')} CPUs, {env.get('memory_mb')} MB, "
            f"kernel {env.get('kernel')}; git {git.get('sha', '')[:12]}{' (dirty)' if git.get('dirty') else ''}",
            f"limits: app {limits.get('cpus')} CPU, {limits.get('memory_mb')} MB; "
            f"topology: {(env.get('topology') or {}).get('description', '?')}"]


def render(view: RunView, width: int | None = None) -> str:
    buffer = io.StringIO()
    # on a terminal, its width (wide cells fold); in a file or a pipe, every figure whole on its line
    if width is None:
        width = shutil.get_terminal_size((0, 0)).columns if sys.stdout.isatty() else 0
    console = Console(file=buffer, width=width or 400, no_color=True, highlight=False, emoji=False, soft_wrap=False)
    for line in header(view):
        console.print(line, markup=False)
    flags: set[str] = set()
    for scenario in report_scenarios(view):
        if scenario == CANARY:
            continue  # its readings are summed up in the findings' host line; the report has them all
        tables = [t for t in scenario_tables(view, scenario) if t.terminal and t.rows]
        sc = registry.get(scenario)
        text_tables, remarks = stated_claims.scenario_words(sc, view) if sc is not None else ([], [])
        if not tables and not text_tables:
            continue
        console.print()
        console.print(scenario_title(scenario), markup=False)
        for t in tables:
            console.print()
            console.print(_rich(t))
            flags |= {f for c in t.cells() for f in c.flags}
        for t in text_tables:
            console.print()
            console.print(_rich_words(t))
        for line in remarks:
            console.print(line, markup=False)
    counts = ratios.count(ratios.evaluate_all(view))
    if counts.checked:
        console.print(f"\npublished claims: {counts.text()} (the report has each one)", markup=False)
    problems = [o for o in view.outcomes if o["status"] != "ok"]
    if problems:
        console.print("\nnot measured or failed:", markup=False)
        for o in problems:
            console.print(f"  {o['app']}/{o['mode']} {o['scenario']}: {o['status']} {o['reason']}", markup=False)
    if flags:
        known = sorted(f for f in flags if f in FLAG_MARK)
        other = sorted(f for f in flags if f not in FLAG_MARK)
        console.print("\nmarks: " + "; ".join([f"{FLAG_MARK[f]} {flag_help(f)}" for f in known]
                                              + [f"[{f}] {flag_help(f)}" for f in other]), markup=False)
    console.print("values: median [min-max] cv n over the repeats or launches", markup=False)
    side = frameworks.table_of(view)
    if side is not None:
        console.print()
        console.print(_rich_words(side))
    found = findings.findings(view)
    if found is not None:  # the answer last, where the terminal leaves the reader
        console.print()
        for line in found.lines():
            console.print(line, markup=False)
    return "\n".join(line.rstrip() for line in buffer.getvalue().rstrip().splitlines()) + "\n"
