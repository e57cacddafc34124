"""The report by version (versions.html beside a run's report): per headline figure a chart over
each app's versions in release order with each version's interval, the table of consecutive
changes with their verdicts (perflab.report.version_changes), and the versions that did not build
here with the build's own reason; a change judged slower links to the differential profile of
its two versions in report.html when the run profiled them."""

from __future__ import annotations

from html import escape

from perflab.analysis import ratios_ci
from perflab.analysis.chance import Chance
from perflab.present import charts
from perflab.present.fine_print import fine_print
from perflab.present.tables import fmt_value
from perflab.report.profiles import diff_anchor
from perflab.report.version_changes import (FASTER, HEADLINES, SLOWER, WITHIN_NOISE, Change, also_changed, changes,
                                            equal_load, series, unavailable)
from perflab.results import RunView


def has_versions(view: RunView) -> bool:
    return bool(series(view)) or bool(unavailable(view))


def version_charts(view: RunView) -> list[charts.Chart]:
    """One chart per headline figure and app/mode: the median of each version's launches, its error
    bar the median's 95 % interval."""
    out = []
    for headline in HEADLINES:
        cells = headline.cells(view)
        for i, ((app, mode), versions) in enumerate(series(view).items()):
            points = []
            for x, version in enumerate(versions):
                cell = cells.get(f"{app}@{version}/{mode}")
                if cell is not None:
                    s = cell.summary
                    points.append(charts.Point(x, s.median, s.ci_low, s.ci_high, frozenset(cell.flags),
                                               f"{version}: {s.n} launches"))
            chart = charts.line_chart(
                f"{app}/{mode}: {headline.title}",
                [charts.Series(f"{app}/{mode}", charts.PALETTE[i % len(charts.PALETTE)], points)],
                charts.Axis("version (release order)", ticks=list(enumerate(versions))),
                charts.Axis(f"{headline.title} ({headline.unit})", zero=True),
                key=f"versions-{headline.key}-{app}-{mode}")
            if chart is not None:
                out.append(chart)
    return out


def change_rows(found: list[Change]) -> list[list[str]]:
    rows = []
    for c in found:
        ci = c.verdict.interval
        rows.append([f"{c.app}/{c.mode}", f"{c.older} -> {c.newer}", c.headline.title,
                     f"{fmt_value(c.a.summary.median)} -> {fmt_value(c.b.summary.median)} {c.headline.unit}",
                     f"{c.verdict.change_pct:+.1f} % [{100 * (ci.low - 1):+.1f}, {100 * (ci.high - 1):+.1f}]"
                     + (" paired" if ci.paired else "") if ci else "-",
                     c.verdict.verdict + (f" ({c.verdict.why})" if c.verdict.why else "")])
    return rows


def chance(found: list[Change]) -> Chance:
    """How many of the changes' verdicts chance alone would give (those judged: not too few launches,
    not at unequal load)."""
    judged = [c for c in found if c.verdict.verdict in (FASTER, SLOWER, WITHIN_NOISE)]
    confidence = judged[0].verdict.interval.confidence if judged else ratios_ci.CONFIDENCE
    return Chance(len(judged), sum(c.verdict.verdict != WITHIN_NOISE for c in judged), round(1 - confidence, 6))


def text_lines(view: RunView) -> list[str]:
    """The changes and the unavailable versions, for the terminal."""
    found = changes(view)
    lines = [f"{r[0]} {r[1]} {r[2]}: {r[3]}, {r[4]}: {r[5]}" for r in change_rows(found)]
    by_chance = chance(found).line("changes")
    lines += [by_chance] if by_chance else []
    lines += equal_load(view)
    lines += [f"also changed: {x.text()}" for x in also_changed(view)]
    lines += [f"{name}: unavailable: {why}" for name, why in unavailable(view).items()]
    return lines


def _table(head: list[str], rows: list[list[str]], marked: set[int] = frozenset(), links: int | None = None) -> str:
    """`links`: the column whose values that end in an anchor are links."""
    def cell(j: int, v: str) -> str:
        if j == links and "#" in v:
            return f'<td><a href="{escape(v)}">differential profile</a></td>'
        return f"<td>{escape(v)}</td>"

    cells = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join("<tr" + (' class="slower"' if i in marked else "") + ">"
                   + "".join(cell(j, v) for j, v in enumerate(row)) + "</tr>" for i, row in enumerate(rows))
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def why_link(change: Change, profiled: set[str]) -> str:
    """A change judged slower links to the differential profile of its two versions in report.html,
    where both were profiled (`perflab run ... --profile`)."""
    if change.verdict.verdict != SLOWER:
        return ""
    if not {change.older_target, change.newer_target} <= profiled:
        return "no profiles (run with --profile)"
    return "report.html#" + diff_anchor(change.older_target, change.newer_target)


def render(view: RunView, profiled: set[str] = frozenset()) -> str:
    found = changes(view)
    by_chance = chance(found).line("changes")
    shown = version_charts(view)
    missing = unavailable(view)
    slower = {i for i, c in enumerate(found) if c.verdict.verdict == SLOWER}
    parts = [f"<h1>Run {escape(view.id)} by version</h1>",
             "<p>Each change is judged on the launch-level values of both versions: the ratio newer / older with "
             "its 95 % interval, paired by round when the versions' launches were interleaved. Slower or faster "
             "only when the whole interval is on that side of 1.</p>",
             f"<p class=note>{escape(by_chance)}</p>" if by_chance else "",
             "".join(f"<p class=note>{escape(line)}</p>" for line in equal_load(view)),
             "<h2>Changes between consecutive versions</h2>",
             _table(["app/mode", "versions", "figure", "medians", "change [95 % interval]", "verdict", "why"],
                    [row + [why_link(c, profiled)] for c, row in zip(found, change_rows(found))], slower,
                    links=6) if found else "<p>No figure was measured on two versions.</p>"]
    also = also_changed(view)
    if also:
        parts += ["<h2>What else changed with each version</h2>",
                  "<p>A change between two versions is the change of everything their builds ship: read from each "
                  "build's artifact, the bundled libraries whose major version or group changed, or that came or "
                  "went (minor and patch changes left out), and the overlay a release line is built from.</p>"]
        for x in also:
            parts.append(f"<h3>{escape(x.app)} {escape(x.older)} -&gt; {escape(x.newer)}</h3>"
                         + (f"<p>{escape(x.overlay)}</p>" if x.overlay else ""))
            if x.libraries is None:
                parts.append(f"<p>{escape(x.unread[0].upper() + x.unread[1:])}.</p>")
            elif x.libraries:
                parts.append(_table(["what", "library (older -> newer)"], [[c.kind, c.text()] for c in x.libraries]))
            else:
                parts.append("<p>No bundled library changed major version or group, came or went.</p>")
    if missing:
        parts += ["<h2>Unavailable versions</h2>",
                  _table(["version", "why"], [[name, why] for name, why in missing.items()])]
    if shown:
        parts.append("<h2>Figures over the versions</h2>")
        parts.append(charts.plotted(shown, "vchart", fine_print([view])))
    style = ("body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}tr.slower td{background:#fde2e2}"
             ".note{color:#555;font-size:90%}.fineprint{color:#666;font-size:75%;margin-top:0}")
    return (f"<!doctype html><html><head><meta charset=utf-8><title>perflab {escape(view.id)} by version</title>"
            f"<style>{style}</style></head><body>{''.join(parts)}</body></html>")
