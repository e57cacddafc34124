"""`perflab history PLAN`: the headline figures of every stored run of a plan over time, one chart
per figure with a line per app/mode (each run's median and the median's 95 % interval), and one of
the headline ratios (each run's estimate and its 95 % interval), so a drift across many runs is
visible, not only the change between two.

Each headline figure of each app/mode, and each headline ratio of the runs in rounds, is also a
series of one value per run (the median of its launches; the ratio's estimate), in which
perflab.analysis.changepoints finds where it moved. A series holds only the runs of one method on one
machine: a run of another method (plan settings, versions, CPU) or on another host starts its own,
so a change of method is never taken for a change of the code. `--fail-on-change` makes that a CI
gate on the newest run. By default each app/mode's figure is taken over its run's reference
app/mode's (perflab.report.history_basis), so a drift of the machine between runs cancels;
`--absolute` takes the figures as measured.

Each headline ratio is also answered across the complete runs of its series since its last change
point (ratios_ci.across_runs: each run one observation): the answer a short plan's runs give
together where none settles alone, never pooled across a change of the code."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, replace
from html import escape
from pathlib import Path

from perflab import results, run_history
from perflab.analysis import changepoints, host_speed, ratios_ci
from perflab.errors import LabError
from perflab.migrate import open_store
from perflab.paths import work_dir
from perflab.present import charts
from perflab.present.fine_print import fine_print
from perflab.report import findings, history_basis
from perflab.report.version_changes import HEADLINES
from perflab.store import Store


def runs_of(store: Store, plan_name: str) -> list[results.RunView]:
    """The plan's stored runs that measured something, oldest first."""
    views = []
    for row in reversed(store.runs()):
        if json.loads(row["plan_json"]).get("name") != plan_name:
            continue
        view = results.load(store, row["id"])
        if view is not None and view.cells:
            views.append(view)
    return views


# a change worse than this, in percent, fails `history --fail-on-change` unless --threshold says otherwise
DEFAULT_THRESHOLD_PCT = 5.0


def machine(view: results.RunView) -> str:
    env = view.environment
    return f"{env.get('hostname') or '?'} ({env.get('cpu_model') or '?'})"


def _git(view: results.RunView) -> str:
    git = view.environment.get("git") or {}
    return (git.get("sha") or "")[:7] + ("+dirty" if git.get("dirty") else "")


def run_tick(view: results.RunView, previous: results.RunView | None) -> str:
    """What tells a run apart from its neighbours on a chart: its start (the id's date, once), the
    id's own suffix, its git commit, and its method and machine when they changed from the run before."""
    started = time.strftime("%m-%d %H:%M", time.localtime(view.started_at))
    parts = [started, view.id.rsplit("-", 1)[-1] if "-" in view.id else view.id]
    if _git(view):
        parts.append(_git(view))
    if previous is not None and previous.method_hash != view.method_hash:
        parts.append(f"method {view.method_hash[:8]}")
    if previous is not None and machine(previous) != machine(view):
        parts.append(f"on {view.environment.get('hostname') or '?'}")
    return " ".join(parts)


def _ticks(views: list[results.RunView]) -> list[tuple[int, str]]:
    return [(i, run_tick(v, views[i - 1] if i else None)) for i, v in enumerate(views)]


@dataclass(frozen=True)
class Change:
    """A change point of one figure in the runs of one method on one machine."""
    figure: str                  # "steady-state throughput, a/jvm / b/jvm" (over the run's reference), or as measured
    unit: str
    headline: str                # the headline's key, or "ratio"
    lower_is_better: bool | None  # None: a ratio, better neither way (its apps' own figures say which moved)
    method: str
    machine: str
    point: changepoints.ChangePoint
    host: str = ""               # the host's shared cache moved at the same runs: what the figure may follow

    def worse_pct(self) -> float | None:
        return None if self.lower_is_better is None else 100 * self.point.worse(self.lower_is_better)

    def text(self) -> str:
        w = self.worse_pct()
        way = "" if w is None or w == 0 else (" (worse)" if w > 0 else " (better)")
        return f"{self.figure}: {self.point.text()}{way}" + (f"; {self.host}" if self.host else "")


def series_groups(views: list[results.RunView]) -> dict[tuple[str, str], list[results.RunView]]:
    """The runs by (method hash, machine), each group oldest first."""
    groups: dict[tuple[str, str], list[results.RunView]] = {}
    for view in views:
        groups.setdefault((view.method_hash, machine(view)), []).append(view)
    return groups


def host_moved(before: list[dict[str, float]], after: list[dict[str, float]]) -> str:
    """Whether the host's shared cache moved at a change point: the runs' pointer-chase medians on
    its two sides do not mix and the sides' medians lie host_speed.APART apart, on a side of the
    canary (why "" if not). Neighbours that contend for a VM host's cache move every memory-bound
    figure, and no commit did that."""
    moved = []
    for metric, where in host_speed.CACHE_SIDES:
        b, a = [h[metric] for h in before if metric in h], [h[metric] for h in after if metric in h]
        if host_speed.sides_apart(b, a):
            moved.append(f"{where} {statistics.median(b):.1f} -> {statistics.median(a):.1f} ms")
    if not moved:
        return ""
    return ("the host's shared cache moved at the same runs (the canary's pointer chase, median of the runs' "
            f"medians: {', '.join(moved)}): the figure may follow the host, not the code")


def changes(views: list[results.RunView], max_pvalue: float = changepoints.MAX_PVALUE, *,
            absolute: bool = False) -> list[Change]:
    """Every change point of every headline figure (over each run's reference, or as measured with
    `absolute`: history_basis.figures), within each (method, machine) group of runs, each with
    whether the host's shared cache moved at the same runs."""
    out = []
    for (method, where), group in series_groups(views).items():
        values = [history_basis.figures(v, absolute) for v in group]
        chase = {v.id: v.canary_medians() for v in group}
        for key in dict.fromkeys(k for vals in values for k in vals):
            series = [(v.id, vals[key]) for v, vals in zip(group, values) if key in vals]
            ids = [run for run, _ in series]
            for cp in changepoints.find(series, max_pvalue):
                host = host_moved([chase[r] for r in ids[cp.index - cp.n_before:cp.index]],
                                  [chase[r] for r in ids[cp.index:cp.index + cp.n_after]])
                out.append(Change(key.name, key.unit, key.headline, key.lower_is_better, method, where, cp, host))
    return out


@dataclass(frozen=True)
class Across:
    """One headline ratio answered across the complete runs of one method on one machine, since the
    ratio's last change point in that series."""
    ratio: str
    method: str
    machine: str
    runs: list[str]              # oldest first
    after_change: bool           # the runs start after a change point (else: the whole series)
    answer: ratios_ci.AcrossRuns
    target: float                # the plan's rounds.target (0: none)

    def state(self) -> str:
        if self.target <= 0:
            return "no precision target"
        if self.answer.settled(self.target):
            return f"settled (within +-{self.target:.0%})"
        return f"NOT settled (+-{self.answer.half_width:.0%}, target +-{self.target:.0%})"

    def text(self) -> str:
        a = self.answer
        since = f"since the change point before run {self.runs[0]}" if self.after_change else "all of them"
        return (f"{self.ratio} across {a.runs} complete runs ({since}; method {self.method[:8]} on {self.machine}): "
                f"{a.estimate:.2f}x, 95 % interval {a.low:.2f}-{a.high:.2f}x, between-run sd {a.tau_log:.3f} (log): "
                f"{self.state()}")


def _stored_interval(state: dict) -> ratios_ci.RatioInterval | None:
    try:
        return run_history.interval_from_dict(state["interval"]) if state.get("interval") else None
    except (KeyError, TypeError, ValueError):  # a record too old to hold the whole interval
        return None


def across(views: list[results.RunView], found: list[Change]) -> list[Across]:
    """Each headline ratio's answer across the complete runs of each (method, machine) series, from
    the first run after the ratio's last change point there (None before three such runs)."""
    out = []
    for (method, where), group in series_groups(views).items():
        stored = [(v, {s["ratio"]: s for s in (v.rounds or {}).get("ratios") or []}) for v in group]
        for label in dict.fromkeys(k for _, states in stored for k in states):
            moved = [c.point.run_after for c in found
                     if c.figure == f"headline ratio {label}" and c.method == method and c.machine == where]
            order = [v.id for v in group]
            start = max((order.index(r) for r in moved if r in order), default=0)
            kept = [(v, ci) for v, states in stored[start:] if v.status == "complete"
                    and (ci := _stored_interval(states.get(label) or {})) is not None]
            answer = ratios_ci.across_runs([ci for _, ci in kept])
            if answer is None:
                continue
            target = float(((kept[-1][0].plan.get("rounds") or {}).get("target")) or 0.0)
            out.append(Across(label, method, where, [v.id for v, _ in kept], start > 0, answer, target))
    return out


def gate(views: list[results.RunView], found: list[Change], threshold_pct: float) -> tuple[list[str], bool]:
    """The change points the newest run starts, as lines, and whether one is worse by more than
    threshold_pct: the gate's verdict. A change for the better, or of a ratio, is reported only."""
    newest = views[-1]
    mine = [c for c in found if c.point.run_after == newest.id]
    failed = [c for c in mine if (c.worse_pct() or 0) > threshold_pct]
    lines = [f"newest run {newest.id}: " + (f"{len(mine)} figure(s) change with it" if mine
                                             else "no figure changes with it")]
    for c in mine:
        verdict = "FAIL" if c in failed else "ok"
        lines.append(f"  {verdict}: {c.text()}")
    lines.append(f"gate: {len(failed)} change(s) worse by more than {threshold_pct:g} % start with the newest run"
                 if failed else f"gate: no change worse by more than {threshold_pct:g} % starts with the newest run")
    return lines, bool(failed)


def _mark(chart: charts.Chart, x: float, text: str, color: str) -> None:
    chart.figure.add_vline(x=x, line={"color": color, "dash": "dot", "width": 1}, annotation_text=text,
                           annotation_position="top", annotation_font={"size": 10, "color": color})


def _over_runs(views: list[results.RunView], found: list[Change] | None, key: str, title: str,
               series: list[charts.Series], y: charts.Axis) -> charts.Chart | None:
    """A chart of one headline's series across the runs, a tick per run, oldest first: a dotted line
    where the method or the machine changed, a red one at each change point of that headline."""
    chart = charts.line_chart(title, series, charts.Axis("run (oldest first)", ticks=_ticks(views)), y,
                              key=f"history-{key}")
    if chart is None:
        return None
    # the labels slant back from their ticks, so the newest run's is not pushed past the page's edge
    chart.figure.update_xaxes(tickangle=-30, ticklabeloverflow="allow")
    for i in range(1, len(views)):
        if (views[i].method_hash, machine(views[i])) != (views[i - 1].method_hash, machine(views[i - 1])):
            _mark(chart, i - 0.5, "method or machine changed", "#888")
    position = {v.id: i for i, v in enumerate(views)}
    for c in found or []:
        if c.headline == key and c.point.run_after in position:
            _mark(chart, position[c.point.run_after] - 0.5,
                  f"{c.figure.rsplit(', ', 1)[-1].removeprefix('headline ratio ')} {c.point.size:+.0%}", "#c0392b")
    return chart


def history_charts(views: list[results.RunView], found: list[Change] | None = None) -> list[charts.Chart]:
    out = []
    for headline in HEADLINES:
        by_target: dict[str, list[charts.Point]] = {}
        for x, view in enumerate(views):
            for target, cell in headline.cells(view).items():
                s = cell.summary
                by_target.setdefault(target, []).append(
                    charts.Point(x, s.median, s.ci_low, s.ci_high, frozenset(cell.flags),
                                 f"run {view.id}: {s.n} values"))
        series = [charts.Series(t, charts.PALETTE[i % len(charts.PALETTE)], pts)
                  for i, (t, pts) in enumerate(sorted(by_target.items()))]
        chart = _over_runs(views, found, headline.key, headline.title, series,
                           charts.Axis(f"{headline.title} ({headline.unit})", zero=True))
        if chart is not None:
            out.append(chart)
    return out


def ratio_chart(views: list[results.RunView], found: list[Change] | None = None) -> charts.Chart | None:
    """Each run's headline ratios as its report gives them (findings.ratio_findings: the estimate and
    its 95 % interval), a line per ratio; None unless two runs have one with an interval, since one
    run is no history. A ratio from one launch a side has no interval and is left out."""
    by_ratio: dict[str, list[charts.Point]] = {}
    for x, view in enumerate(views):
        for r in findings.ratio_findings(view):
            if (ci := r.interval) is not None:
                by_ratio.setdefault(f"{r.numerator} / {r.denominator} {r.what}", []).append(
                    charts.Point(x, ci.estimate, ci.low, ci.high,
                                 note=f"run {view.id} ({'settled' if r.settled else 'not settled'})"))
    if len({p.x for points in by_ratio.values() for p in points}) < 2:
        return None
    # the ratios of one run sit side by side at its tick, so one's interval does not hide another's
    step = min(0.1, 0.6 / len(by_ratio))
    series = [charts.Series(label, charts.PALETTE[i % len(charts.PALETTE)],
                            [replace(p, x=p.x + (i - (len(by_ratio) - 1) / 2) * step) for p in points])
              for i, (label, points) in enumerate(by_ratio.items())]
    # a throughput ratio near 1 beside a start-up ratio of 40 would be a flat line on a linear axis
    log = charts.spans_decades([p.y for points in by_ratio.values() for p in points], factor=10)
    chart = _over_runs(views, found, "ratio", "headline ratios", series, charts.Axis("ratio A / B (x)", log=log))
    if chart is None:
        return None
    chart.figure.update_xaxes(range=[-0.5, len(views) - 0.5])  # room for the ratios set beside each tick
    chart.figure.add_hline(y=1, line={"color": "#888", "width": 1})
    chart.note = ("Each point is a run's estimate of the ratio, its bar the ratio's 95 % interval from the run's "
                  "launches, as the run's report gives them; 1 is parity.")
    return chart


def _method_lines(views: list[results.RunView]) -> list[str]:
    out = []
    for before, after in zip(views, views[1:]):
        what = [f"method {before.method_hash} to {after.method_hash}" if before.method_hash != after.method_hash else "",
                f"machine {machine(before)} to {machine(after)}" if machine(before) != machine(after) else ""]
        if any(what):
            out.append(f"from run {before.id} to run {after.id}: {', '.join(w for w in what if w)}")
    return out


def _basis_html(views: list[results.RunView], absolute: bool) -> str:
    rule = "" if absolute else (
        "each app/mode's figure over the same figure of its run's reference app/mode (the denominator of the run's "
        f"first headline ratio, else {history_basis.GO_REFERENCE}; the table of runs names each run's), so a drift "
        "of the machine that moves both alike cancels; a run with no reference is taken as measured. The newest run: ")
    return (f"<p>The basis of the change points and of the gate (--fail-on-change): "
            f"{escape(rule + '; '.join(history_basis.lines(views, absolute)))}.</p>")


def _changes_html(views: list[results.RunView], found: list[Change], absolute: bool = False) -> list[str]:
    groups = series_groups(views)
    out = ["<h2>Change points</h2>",
           f"<p>Sought in each headline figure's series of runs (the median of each run's launches; a ratio's "
           f"estimate), within the runs of one method on one machine ({len(groups)} such group(s) here), with "
           f"Apache Otava's E-Divisive means at p &lt; {changepoints.MAX_PVALUE:g}. The size is the median after "
           f"over the median before, up to the neighbouring change points; its interval is a "
           f"{100 * changepoints.CONFIDENCE:g} % Student interval on the logs of the runs on either side. About 2 % "
           "of flat series of a dozen runs show a change by chance; a group of fewer than three runs has "
           "none. The p99 at the open-loop point is left out: each run offers it a share of its own "
           "throughput, not one load.</p>", _basis_html(views, absolute)]
    moved = _method_lines(views)
    if moved:
        out.append("<p>Where the method or the machine changed (a new series starts):</p><ul>"
                   + "".join(f"<li>{escape(m)}</li>" for m in moved) + "</ul>")
    if not found:
        out.append("<p>No change point in any series.</p>")
        return out
    rows = "".join(
        f"<tr><td>{escape(c.figure)}</td><td>{c.point.size:+.1%}</td><td>{c.point.low:+.1%} to {c.point.high:+.1%}"
        f"</td><td>{escape(c.point.run_before)}</td><td>{escape(c.point.run_after)}</td>"
        f"<td>{c.point.n_before} / {c.point.n_after}</td><td>{c.point.pvalue:.1g}</td>"
        f"<td>{'' if c.worse_pct() is None else ('worse' if c.worse_pct() > 0 else 'better')}</td>"
        f"<td>{escape(c.method)} on {escape(c.machine)}</td><td>{escape(c.host)}</td></tr>"
        for c in sorted(found, key=lambda c: (c.method, c.point.run_after, c.figure)))
    out.append("<table><thead><tr><th>figure</th><th>size</th><th>interval</th><th>last run before</th>"
               "<th>first run after</th><th>runs before / after</th><th>p</th><th>way</th><th>series</th>"
               f"<th>the host at the same runs</th></tr></thead><tbody>{rows}</tbody></table>")
    return out


def _across_html(answers: list[Across]) -> list[str]:
    out = ["<h2>The answer across runs</h2>",
           "<p>Each headline ratio from the complete runs of one method on one machine since its last change "
           "point, each run one observation (Student's t on their log estimates): the spread of the runs' estimates "
           "holds each run's own error and the variance between runs that no run sees alone, so a plan whose runs "
           "cannot settle a ratio one at a time may settle it together. Three runs at least.</p>"]
    if not answers:
        return out + ["<p>No headline ratio has three complete runs in one series yet.</p>"]
    rows = "".join(f"<tr><td>{escape(a.ratio)}</td><td>{escape(a.method[:8])} on {escape(a.machine)}</td>"
                   f"<td>{a.answer.runs} ({escape(a.runs[0])} to {escape(a.runs[-1])})</td>"
                   f"<td>{a.answer.estimate:.2f}x</td><td>{a.answer.low:.2f}-{a.answer.high:.2f}x</td>"
                   f"<td>{a.answer.tau_log:.3f}</td><td>{escape(a.state())}</td></tr>" for a in answers)
    return out + ["<table><thead><tr><th>ratio</th><th>series</th><th>runs</th><th>estimate</th>"
                  "<th>95 % interval</th><th>between-run sd (log)</th><th>state</th></tr></thead>"
                  f"<tbody>{rows}</tbody></table>"]


def render(plan_name: str, views: list[results.RunView], found: list[Change] | None = None, *,
           absolute: bool = False) -> str:
    """The page; `found` must have been sought on the basis `absolute` names (changes())."""
    found = changes(views, absolute=absolute) if found is None else found
    shown = [c for c in [ratio_chart(views, found)] if c is not None] + history_charts(views, found)
    ticks = dict(_ticks(views))
    rows = "".join(f"<tr><td>{escape(v.id)}</td><td>{escape(ticks[i])}</td><td>{escape(v.status)}</td>"
                   f"<td>{escape(_git(v))}</td><td>{escape(v.method_hash)}</td><td>{escape(machine(v))}</td>"
                   f"<td>{escape(history_basis.of_run(v, absolute))}</td></tr>"
                   for i, v in enumerate(views))
    body = [f"<h1>History of plan {escape(plan_name)}</h1>",
            f"<p>{len(views)} stored run(s). Runs of another method (plan settings, versions, CPU) or machine are "
            "drawn beside the others, a dotted line where it changed; their change points are sought apart.</p>",
            "<table><thead><tr><th>run</th><th>tick</th><th>status</th><th>git</th><th>method</th><th>machine</th>"
            f"<th>figures judged</th></tr></thead><tbody>{rows}</tbody></table>", *_across_html(across(views, found)),
            *_changes_html(views, found, absolute)]
    if shown:
        body.append(charts.plotted(shown, "hchart", fine_print(views)))
    else:
        body.append("<p>None of these runs has a headline figure (start-up, steady state).</p>")
    style = ("body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}.note{color:#555;font-size:90%}"
             ".fineprint{color:#666;font-size:75%;margin-top:0}")
    return (f"<!doctype html><html><head><meta charset=utf-8><title>perflab history {escape(plan_name)}</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>")


def cli_history(args) -> int:
    """`perflab history PLAN [--out FILE] [--fail-on-change [--threshold PCT]] [--absolute]`."""
    store = open_store()
    views = runs_of(store, args.plan)
    if not views:
        names = sorted({json.loads(r["plan_json"]).get("name", "?") for r in store.runs()})
        raise LabError(f"no stored run of plan {args.plan!r} with figures",
                       fix=f"plans with stored runs: {', '.join(names) or '(none)'}")
    path = Path(args.out) if args.out else work_dir() / "reports" / f"history-{args.plan}.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    absolute = bool(getattr(args, "absolute", False))
    found = changes(views, absolute=absolute)
    path.write_text(render(args.plan, views, found, absolute=absolute), encoding="utf-8")
    print(f"history of plan {args.plan}: {len(views)} run(s), {views[0].id} to {views[-1].id}; "
          f"{len(found)} change point(s)", flush=True)
    for line in history_basis.lines(views, absolute):
        print(f"  {line}", flush=True)
    for answer in across(views, found):
        print(f"  {answer.text()}", flush=True)
    print(f"  {path}", flush=True)
    if not getattr(args, "fail_on_change", False):
        return 0
    threshold = DEFAULT_THRESHOLD_PCT if getattr(args, "threshold", None) is None else args.threshold
    lines, failed = gate(views, found, threshold)
    for line in lines:
        print(line, flush=True)
    return 1 if failed else 0
