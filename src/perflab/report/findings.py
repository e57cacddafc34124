"""What a run found, first: the headline ratios with their 95 % intervals and whether each is
settled, the conditions they hold under, the figures behind them, how the rounds ended and how
fast the host itself was. The terminal summary ends with it; the HTML and Markdown reports begin
with it. This module puts the findings together; each kind of finding has a module of its own
(ratio_findings, ratio_notes, host_findings, heap_failures).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from perflab import rounds
from perflab.present.charts import Axis, Chart, Point, Series, line_chart
from perflab.report import contention, frameworks
from perflab.report.heap_failures import heap_failures
from perflab.report.host_findings import cache_lines, host_line
from perflab.report.ratio_findings import DEFAULT_TARGET, RatioFinding, ratio_findings
from perflab.report.ratio_notes import advice_lines, behind_lines, published_line
from perflab.results import Cell, RunView

__all__ = ["DEFAULT_TARGET", "Findings", "RatioFinding", "findings", "level_lines", "ratio_chart", "ratio_findings"]


@dataclass
class Findings:
    conditions: str
    ratios: list[RatioFinding]
    behind: list[str]         # the figures behind the ratios, one line per app/mode
    rounds: str               # how the launches were scheduled and how the rounds ended
    host: str                 # the canary: how much the host's speed moved
    advice: list[str]         # what budget would settle an unsettled ratio
    published: str            # a published figure beside the headline, with the differences stated
    levels: list[str] = field(default_factory=list)  # where the variance is: launches or intervals
    failures: list[str] = field(default_factory=list)  # app/modes that failed under the plan's heap flags
    frameworks: list[str] = field(default_factory=list)  # a headline ratio not given; frameworks never published
    cache: str = ""           # the canary's pointer chase, beside the earlier runs'
    host_differs: str = ""    # the host's shared cache beyond every earlier run's: why figures may have moved
    contention: str = ""      # steal and run-queue wait over the steady launches' measured windows

    def warnings(self) -> list[str]:
        """What must be read before the ratios: an estimate the earlier runs do not allow, and then
        whether the host itself was in another state than in all of them."""
        disagree = [w for r in self.ratios if (w := r.against_earlier())]
        return disagree + ([f"beside it: {self.host_differs}"] if disagree and self.host_differs else [])

    def notes(self) -> list[str]:
        across = [t for r in self.ratios if (t := r.history_text())]
        return [x for x in (*across, self.rounds, *self.levels, self.host, self.contention, self.cache, *self.advice, self.published,
                            *self.frameworks) if x]

    def lines(self) -> list[str]:
        out = ["what this run found", *(f"  {w}" for w in self.warnings()), f"  conditions: {self.conditions}"]
        out += [f"  {x}" for x in self.failures]
        for r in self.ratios:
            out += [f"  {r.text()}"] + [f"    {x}" for x in (r.across_text(), r.sql) if x]
        out += [f"    {line}" for line in self.behind]
        out += [f"  {x}" for x in self.notes()]
        return out


def _conditions(view: RunView, cell: Cell | None) -> str:
    limits = view.plan.get("limits", {})
    heap = " ".join(limits.get("jvm_opts") or []) or "the frameworks' default heap"
    load = (f"{cell.params.get('path')} at {cell.params.get('connections')} connections (closed loop), "
            if cell is not None else "")
    return f"{load}the app on {limits.get('cpus')} CPU(s) with {limits.get('memory_mb')} MB, {heap}"


def _rounds_line(view: RunView) -> str:
    rec = view.rounds
    if not rec:
        return "launches: app after app (not in rounds): a slow spell of the host lands on one app"
    count = rec.get("rounds", len(rec.get("orders", [])))
    return (f"launches in {count} interleaved rounds, {rounds.order_text(rec)}; "
            f"ended: {rec.get('ended_why') or rec.get('ended') or 'not recorded'}")


def level_lines(view: RunView) -> list[str]:
    """Per app/mode in the rounds, how much of a launch's value varies from launch to launch rather
    than from interval to interval, and what the rounds made of it (Kalibera and Jones)."""
    out = []
    for label, two in sorted(((view.rounds or {}).get("two_levels") or {}).items()):
        if not two:
            continue
        cap = two.get("optimal_intervals")
        out.append(f"where the variance is, {label}: {two.get('launch_share', 0):.0%} of a launch's value varies "
                   f"between launches ({two.get('launches')} launches, {two.get('intervals_per_launch', 0):.0f} "
                   f"intervals each)" + (f"; about {cap} interval(s) per launch buy the most precision per second"
                                         if cap else ""))
    return out


def findings(view: RunView) -> Findings | None:
    ratios = ratio_findings(view)
    failures = heap_failures(view)
    if not ratios:  # no headline ratio: a failure under the plan's heap flags is still a finding
        return Findings(_conditions(view, None), [], [], "", "", [], "", failures=failures) if failures else None
    steady = next((r.a for r in ratios if r.what.startswith("throughput")), None)
    cache, differs = cache_lines(view)
    return Findings(_conditions(view, steady), ratios, behind_lines(view, ratios), _rounds_line(view),
                    host_line(view), advice_lines(view, ratios), published_line(view, ratios), level_lines(view),
                    failures, frameworks.finding_lines(view, [(r.numerator, r.denominator) for r in ratios]), cache,
                    differs, contention.findings_line(view))


def ratio_chart(found: Findings) -> Chart | None:
    """Each throughput ratio per round, with its interval as a band: a ratio that wanders from
    round to round is what an interval this wide means."""
    series = []
    palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7"]
    for i, r in enumerate(x for x in found.ratios if x.what.startswith("throughput") and x.per_round):
        color = palette[i % len(palette)]
        name = f"{r.numerator} / {r.denominator}"
        series.append(Series(name, color, [Point(n, v) for n, v in r.per_round]))
        if r.interval is not None:
            xs = [n for n, _ in r.per_round]
            for edge, value in (("low", r.interval.low), ("high", r.interval.high)):
                series.append(Series(f"{name} 95 % {edge}", color, [Point(x, value) for x in (min(xs), max(xs))],
                                     dash="dot", markers=False, legend=False, group=name))
    if not series:
        return None
    rounds = sorted({p.x for s in series for p in s.points})
    return line_chart("Throughput ratio per round (dotted: its 95 % interval)", series,
                      Axis("round", ticks=[(n, f"{n:g}") for n in rounds]), Axis("ratio (x)"),
                      key="findings-ratio-per-round")
