"""Measured vs published: for each published claim, the figure measured here for the same app/mode,
and the study's ratios (e.g. Q-JVM / Spring Boot) published and measured, with a verdict in two
parts on whether the claim held on this machine.

A ratio is only computed when both sides were measured. Its spread is the 95 % confidence interval
of the ratio from the launch-level values (perflab.analysis.ratios_ci: paired by round or repeat number where
both sides have one, else Welch on the logs) when both sides have at least two values; with a single
value on a side, [min(a)/max(b), max(a)/min(b)], the widest ratio the measured values allow.
Direction: a claim "held" when that whole interval lies on the published side of 1, "did not hold"
when it lies on the other side, and is "unclear" when it crosses 1.
Size: the measured ratio is "within" SIZE_TOLERANCE of the published one (by factor: within ±25 %
means between published / 1.25 and published x 1.25) when its whole interval is, "off" when its
whole interval lies outside that band, and "undecided" when the interval reaches across the band's
edge (more launches would tell). A claim can hold in direction and be off in size (KT-2020's memory
at rest: 0.34x published, 0.72x here).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from perflab import headline
from perflab.analysis import ratios_ci, stats
from perflab.present.published import (CLAIMS, NOT_TRANSCRIBED, RT2019_BUDGET_MB, Claim, Where, claim, projection,
                                       target_of)
from perflab.present.published.claims import published_figure
from perflab.present.tables import cell_order, fmt_published, fmt_value
from perflab.results import Cell, RunView, launch_interval

HELD, NOT_HELD, UNCLEAR, NO_RATIO = "held", "did not hold", "unclear", "no ratio"
SIZE_WITHIN, SIZE_OFF, SIZE_UNDECIDED = "within", "off", "undecided"
SIZE_TOLERANCE = 0.25  # the measured ratio within a factor 1.25 of the published one either way
CAUTION_FLAGS = ("driver-bound", "errors", "no-responses", "noisy", "lower-bound", "instance-lost",
                 "unsettled")


@dataclass
class Measured:
    cell: Cell
    point: str  # the point the figure was taken at (e.g. "fruits c=40")


@dataclass
class Ratio:
    published: float | None
    measured: float | None  # ratio of the medians
    low: float | None  # its 95 % interval, or with one value a side the widest range the values allow
    high: float | None
    verdict: str  # the direction: held / did not hold / unclear / no ratio
    why: str = ""
    size: str = ""  # within / off / "" (no measured ratio)
    size_factor: float | None = None  # measured ratio / published ratio

    @property
    def direction(self) -> str:
        return self.verdict

    def size_text(self) -> str:
        if not self.size:
            return "-"
        if self.size == SIZE_WITHIN:
            return f"within ±{SIZE_TOLERANCE:.0%} ({self.size_factor:.2f}x published)"
        if self.size == SIZE_UNDECIDED:
            return (f"undecided: {self.size_factor:.2f}x published, its interval reaches across the "
                    f"±{SIZE_TOLERANCE:.0%} band")
        return f"off: {self.size_factor:.2f}x the published ratio"


@dataclass
class ClaimRow:
    label: str  # the study's name (e.g. "Q-JVM")
    target: str  # the lab's app/mode
    published: float
    measured: Measured | None
    missing_reason: str = ""
    ratio: Ratio | None = None  # vs the study's baseline; None for the baseline itself

    @property
    def measured_over_published(self) -> float | None:
        if self.measured is None or self.published == 0:
            return None
        return self.measured.cell.summary.median / self.published


@dataclass
class ClaimResult:
    claim: Claim
    rows: list[ClaimRow] = field(default_factory=list)

    @property
    def baseline_label(self) -> str:
        return self.claim.baseline

    def verdicts(self) -> list[tuple[ClaimRow, Ratio]]:
        return [(r, r.ratio) for r in self.rows if r.ratio is not None]


# --- finding the measured figure ---------------------------------------------------------------

def _series_names(view: RunView, path: str) -> set[str]:
    return {s["name"] for s in view.plan.get("sweep", {}).get("series", []) if s.get("path") == path}


def _matches(cell: Cell, where: Where, series: set[str]) -> bool:
    """A claim's place against a figure's point parameters: a path (for a sweep, any series of the
    plan on that path), connections, or an exact point label ("*" or "" with a path: any)."""
    params = cell.params
    if where.path and params.get("path", "") != where.path and params.get("series") not in series:
        return False
    if where.connections is not None and params.get("connections") != where.connections:
        return False
    return where.path != "" or where.point == "*" or cell.point == where.point


def _candidates(view: RunView, where: Where, app: str, mode: str) -> list[Cell]:
    series = _series_names(view, where.path) if where.path else set()
    return [c for c in view.find(where.scenario, where.metric)
            if c.app == app and c.mode == mode and _matches(c, where, series)]


def _footprint_fallback(view: RunView, app: str, mode: str) -> bool:
    """Footprint is stored per app (mode "all"): the build artifact, which is the JVM mode's
    (or the only mode's); a native mode's own artifact is not that one."""
    modes = {t.split("/", 1)[1] for t in view.targets() if t.split("/", 1)[0] == app}
    return mode == "jvm" or modes <= {mode}


def _joined_with_first(view: RunView, where: Where, warm: Cell) -> Cell:
    """The warm launches' cell with the first (cold) launch's values joined in: the median a study
    took over all its runs."""
    cold = [c for c in view.find(where.scenario, where.metric, "cold") if c.target == warm.target]
    if not cold:
        return warm
    values = [*cold[0].values, *warm.values]
    summary = stats.summarize(values, cv_threshold=warm.summary.cv_threshold)
    flags = (warm.flags | cold[0].flags) - {"single", "noisy"} | ({"noisy"} if summary.noisy else set())
    return Cell(warm.app, warm.mode, warm.scenario, "all launches", warm.metric, warm.unit, values, summary, flags,
                warm.params)


def find_measured(view: RunView, where: Where, target: str) -> Measured | None:
    app, mode = target.split("/", 1)
    cells = _candidates(view, where, app, mode)
    if where.with_first:
        cells = [_joined_with_first(view, where, c) for c in cells]
    if not cells and where.scenario == "footprint" and _footprint_fallback(view, app, mode):
        cells = _candidates(view, where, app, "all")
    if not cells:
        return None
    if where.best:
        chosen = max(cells, key=lambda c: c.summary.median)
    else:
        chosen = sorted(cells, key=cell_order)[0]
    return Measured(chosen, chosen.point)


def missing_reason(view: RunView, claim: Claim, target: str) -> str:
    """Why a claim's target has no measured figure in this run."""
    app, mode = target.split("/", 1)
    scenario = claim.where.scenario
    if scenario not in view.plan.get("scenarios", []):
        return f"{scenario} is not in plan {view.plan.get('name')!r}"
    for o in view.outcomes:
        o_scenario = o["scenario"].split(":", 1)[0]
        if o["status"] != "ok" and o_scenario == scenario and o["app"] in (app, "*") and o["mode"] in (mode, "*", "all"):
            return f"{o['status']}: {o['reason']}" if o["reason"] else o["status"]
    if not any(c.target == target for c in view.cells):
        for o in view.outcomes:  # a mode that could not run at all says why in any scenario
            if o["status"] != "ok" and o["app"] == app and o["mode"] == mode:
                return f"{o['status']}: {o['reason']}" if o["reason"] else o["status"]
    if target not in view.targets() and not any(c.app == app for c in view.cells):
        return "not in this run"
    if claim.where.path and not _series_names(view, claim.where.path):
        return f"no sweep series on {claim.where.path} in this plan"
    if claim.where.connections:
        return f"no point at c={claim.where.connections} on {claim.where.path} in this plan"
    return "no figure recorded"


# --- ratios ------------------------------------------------------------------------------------

def ratio_of(a: Cell, b: Cell, published: float | None, in_rounds: bool = False, view: RunView | None = None) -> Ratio:
    """a / b measured, with its spread and whether the published ratio's side of 1 held. With the
    cells' `view`, its interval is the view's (computed once per run view; in rounds as the view says)."""
    sa, sb = a.summary, b.summary
    if sb.median <= 0 or sa.median < 0:
        return Ratio(published, None, None, None, NO_RATIO, "a median is zero or negative: no ratio")
    measured = sa.median / sb.median
    low = high = None
    ci = interval_of(a, b, in_rounds, view)
    if ci is not None:
        low, high = ci.low, ci.high
    elif sb.min > 0 and sa.min >= 0:
        low, high = sa.min / sb.max, sa.max / sb.min
    verdict, why = _verdict(published, measured, low, high)
    size, factor = size_of(published, measured, low=low if ci else None, high=high if ci else None)
    if sa.n == 1 or sb.n == 1:
        why = "; ".join(x for x in (why, "a single value: no spread") if x)
    caution = sorted({f for f in a.flags | b.flags if f in CAUTION_FLAGS})
    if caution:
        why = "; ".join(x for x in (why, "flags: " + ", ".join(caution)) if x)
    return Ratio(published, measured, low, high, verdict, why, size, factor)


def interval_of(a: Cell, b: Cell, in_rounds: bool = True, view: RunView | None = None) -> ratios_ci.RatioInterval | None:
    """The 95 % interval of a / b from the cells' launch-level values, paired by repeat number when
    the launches ran in rounds (None with fewer than two values a side); with the cells' `view`,
    the view's interval, which for the headline throughput cells pools the earlier runs' spread as
    the findings do (the same ratio shows one interval wherever the report gives it)."""
    if a.summary.n < 2 or b.summary.n < 2 or min(a.values + b.values) <= 0:
        return None
    if view is None:
        return launch_interval(a, b, in_rounds)
    chased = headline.cells(view)
    prior = view.prior(f"{a.target} / {b.target}") if chased.get(a.target) is a and chased.get(b.target) is b else None
    return view.interval(a, b, prior)


def size_of(published: float | None, measured: float, tolerance: float = SIZE_TOLERANCE, *,
            low: float | None = None, high: float | None = None) -> tuple[str, float | None]:
    """Whether the measured ratio is the published one's size: within a factor 1 + tolerance of it;
    with an interval, the whole interval must be (undecided when it reaches across the band)."""
    if published is None or published <= 0 or measured <= 0:
        return "", None
    factor = measured / published
    band = (published / (1 + tolerance), published * (1 + tolerance))
    if low is not None and high is not None:
        if band[0] <= low and high <= band[1]:
            return SIZE_WITHIN, factor
        if high < band[0] or low > band[1]:
            return SIZE_OFF, factor
        return SIZE_UNDECIDED, factor
    return (SIZE_WITHIN if 1 / (1 + tolerance) <= factor <= 1 + tolerance else SIZE_OFF), factor


def _verdict(published: float | None, measured: float, low: float | None, high: float | None) -> tuple[str, str]:
    if published is None or published <= 0 or math.isclose(published, 1.0):
        return NO_RATIO, "the study shows no difference to hold"
    lo, hi = (low, high) if low is not None else (measured, measured)
    claim_above = published > 1
    if (lo > 1 and hi > 1 and claim_above) or (lo < 1 and hi < 1 and not claim_above):
        return HELD, ""
    if (lo > 1 and hi > 1) or (lo < 1 and hi < 1):
        return NOT_HELD, ""
    if lo == hi:
        return UNCLEAR, "equal here"
    return UNCLEAR, "the spread of the repeats crosses 1"


def evaluate(view: RunView, claim: Claim) -> ClaimResult:
    result = ClaimResult(claim)
    base_label = claim.baseline
    base = find_measured(view, claim.where, target_of(base_label)) if claim.has_baseline() else None
    for label, value in claim.figures:
        target = target_of(label)
        measured = find_measured(view, claim.where, target)
        row = ClaimRow(label, target, value, measured,
                       "" if measured else missing_reason(view, claim, target))
        if label != base_label and claim.has_baseline():
            published_ratio = claim.published_ratio(label)
            if measured and base:
                row.ratio = ratio_of(measured.cell, base.cell, published_ratio, view=view)
            else:
                side = target if not measured else target_of(base_label)
                row.ratio = Ratio(published_ratio, None, None, None, NO_RATIO, f"{side} not measured")
        result.rows.append(row)
    return result


def evaluate_all(view: RunView, scenario: str | None = None) -> list[ClaimResult]:
    return [evaluate(view, c) for c in CLAIMS if scenario is None or c.where.scenario == scenario]


def has_any_measured(result: ClaimResult) -> bool:
    return any(r.measured for r in result.rows)


@dataclass
class Counts:
    """How many published ratios were checked, and what each part of the verdict said."""

    total: int = 0  # published ratios (both sides named by the study)
    checked: int = 0  # both sides measured here
    direction: dict[str, int] = field(default_factory=dict)
    size: dict[str, int] = field(default_factory=dict)

    def text(self) -> str:
        return (f"{self.checked} of {self.total} published ratios checked; direction: "
                f"{_tally(self.direction, (HELD, NOT_HELD, UNCLEAR, NO_RATIO))}; size (±{SIZE_TOLERANCE:.0%}): "
                f"{_tally(self.size, (SIZE_WITHIN, SIZE_OFF, SIZE_UNDECIDED))}")


def _tally(counts: dict[str, int], order: tuple[str, ...]) -> str:
    return ", ".join(f"{k} {counts[k]}" for k in order if counts.get(k)) or "none"


def count(results: list[ClaimResult]) -> Counts:
    out = Counts()
    for res in results:
        for _, ratio in res.verdicts():
            out.total += 1
            if ratio.measured is None:
                continue
            out.checked += 1
            out.direction[ratio.verdict] = out.direction.get(ratio.verdict, 0) + 1
            if ratio.size:
                out.size[ratio.size] = out.size.get(ratio.size, 0) + 1
    return out


# --- per study: what the run compared, and why the rest was not ---------------------------------

def not_planned(reason: str) -> bool:
    """Whether a missing figure's reason (missing_reason) is the plan's: its scenario, app/mode or
    point is not in this plan, rather than something that did not work or is not available here."""
    return " is not in plan " in reason or reason == "not in this run" or reason.endswith(" in this plan")


@dataclass
class StudyTally:
    """One study's published figures in this run: compared, held, and not compared with why."""

    study: str
    figures: int = 0  # the published figures of its claims, each once however many claims compare it
    compared: int = 0  # measured here
    ratios: int = 0  # ratios to its baseline with both sides measured
    held: int = 0  # ... whose direction held
    within: int = 0  # ... whose size was within SIZE_TOLERANCE
    unavailable: int = 0  # planned, but no figure here (not built, failed, not recorded)
    not_planned: int = 0  # its scenario, app/mode or point is not in this plan
    not_in_text: int = 0  # what the study's text does not give (published.NOT_TRANSCRIBED)

    def text(self) -> str:
        out = f"{self.study}: {self.compared} of its {self.figures} published figures compared here"
        if self.ratios:
            out += (f"; of {self.ratios} ratio{'s' * (self.ratios != 1)} to its baseline, {self.held} held in "
                    f"direction and {self.within} in size (±{SIZE_TOLERANCE:.0%})")
        missing = [f"{n} {why}" for n, why in ((self.unavailable, "unavailable here"),
                                               (self.not_planned, "not in the plan")) if n]
        out += f"; not compared: {', '.join(missing)}" if missing else "; none left out"
        if self.not_in_text:
            out += (f"; {self.not_in_text} item{'s' * (self.not_in_text != 1)} not in the text (listed as not "
                    f"transcribed)")
        return out + "."


def by_study(results: list[ClaimResult]) -> list[StudyTally]:
    """A tally per study, in the order of its first claim."""
    tallies: dict[str, StudyTally] = {}
    rows_of: dict[tuple, list[ClaimRow]] = {}  # each published figure, with every row that compares it
    for res in results:
        t = tallies.setdefault(res.claim.study, StudyTally(res.claim.study))
        for row in res.rows:
            rows_of.setdefault(published_figure(res.claim, row.label), []).append(row)
        for _, ratio in res.verdicts():
            if ratio.measured is not None:
                t.ratios += 1
                t.held += ratio.verdict == HELD
                t.within += ratio.size == SIZE_WITHIN
    for figure, rows in rows_of.items():  # compared if any row measured it; unavailable if one planned it
        t = tallies[figure[0]]
        t.figures += 1
        if any(r.measured is not None for r in rows):
            t.compared += 1
        elif all(not_planned(r.missing_reason) for r in rows):
            t.not_planned += 1
        else:
            t.unavailable += 1
    for t in tallies.values():
        t.not_in_text = sum(n.study == t.study for n in NOT_TRANSCRIBED)
    return list(tallies.values())


# --- RT-2019's projection, computed the study's way --------------------------------------------

@dataclass
class Projection:
    """RT-2019's processes per 2048 MB as the study computed them (floor(budget / max RSS) x one
    process's best req/s), from this run's figures, beside what density measured."""

    label: str
    target: str
    max_rss_mb: float | None  # memory's peak RSS here
    per_process_rps: float | None  # the best req/s on /fruits in the sweep here
    processes: int | None
    projected_rps: float | None
    measured_instances: float | None  # density: processes that really fitted
    measured_projected_rps: float | None  # density's own projection
    published_processes: float | None
    published_per_process_rps: float | None  # the study's max over its Table 1
    published_rps: float | None


def _median(view: RunView, where: Where, target: str) -> float | None:
    found = find_measured(view, where, target)
    return found.cell.summary.median if found else None


def study_projection(view: RunView) -> list[Projection]:
    processes_claim, rps_claim = claim("rt2019-density"), claim("rt2019-density-rps")
    out = []
    for label, published_processes in processes_claim.figures:
        target = target_of(label)
        rss = _median(view, claim("rt2019-max-rss").where, target)
        per = _median(view, Where("sweep", "rps", path="/fruits", best=True), target)
        processes = math.floor(RT2019_BUDGET_MB / rss) if rss else None
        out.append(Projection(label, target, rss, per, processes,
                              processes * per if processes is not None and per is not None else None,
                              _median(view, processes_claim.where, target), _median(view, rps_claim.where, target),
                              published_processes, projection.printed(label).per_process_rps, rps_claim.value(label)))
    return out


PROJECTION_NOTE = ("The study did not start its processes: it divided 2048 MB by each one's max RSS, rounded down, "
                   "and multiplied by one process's req/s. The same computation from this run's figures, beside the "
                   "processes density really fitted. The study's req/s per process is each one's maximum over "
                   "its Table 1, as the best req/s on /fruits is here.")
PROJECTION_HEADERS = ["study", "here", "max RSS MB", "best req/s on /fruits", f"⌊{RT2019_BUDGET_MB} / max RSS⌋",
                      "projected req/s", "published processes",
                      "published req/s per process", "published req/s", "density: processes that fitted",
                      "density: projected req/s"]


def projection_rows(view: RunView) -> list[list[str]]:
    """The projection as table rows; empty when this run has no max RSS for any of the study's apps."""
    rows = study_projection(view)
    if not any(p.max_rss_mb for p in rows):
        return []

    def text(v: float | None) -> str:
        return "-" if v is None else fmt_value(v)

    return [[p.label, p.target, text(p.max_rss_mb), text(p.per_process_rps), "-" if p.processes is None else str(p.processes), text(p.projected_rps),
             fmt_published(p.published_processes), fmt_published(p.published_per_process_rps),
             fmt_published(p.published_rps), text(p.measured_instances),
             text(p.measured_projected_rps)] for p in rows]
