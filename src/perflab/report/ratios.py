"""Measured vs published: for each published claim, the figure measured here for the same app/mode,
and the study's ratios (e.g. Q-JVM / Spring Boot) published and measured, with a verdict on
whether the claim held on this machine.

A ratio is only computed when both sides were measured. Its spread comes from the repeats:
[min(a)/max(b), max(a)/min(b)] is the widest ratio the measured values allow; a claim "held" when
that whole range lies on the published side of 1, "did not hold" when it lies on the other side,
and is "unclear" when the spread crosses 1.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from perflab.report.published import CLAIMS, Claim, Where, target_of
from perflab.report.tables import cell_order
from perflab.results import Cell, RunView

HELD, NOT_HELD, UNCLEAR, NO_RATIO = "held", "did not hold", "unclear", "no ratio"
CAUTION_FLAGS = ("driver-bound", "errors", "no-responses", "noisy", "lower-bound", "instance-lost")


@dataclass
class Measured:
    cell: Cell
    point: str  # the point the figure was taken at (e.g. "fruits c=40")


@dataclass
class Ratio:
    published: float | None
    measured: float | None  # ratio of the medians
    low: float | None  # widest range the repeats allow
    high: float | None
    verdict: str
    why: str = ""


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


def find_measured(view: RunView, where: Where, target: str) -> Measured | None:
    app, mode = target.split("/", 1)
    cells = _candidates(view, where, app, mode)
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

def ratio_of(a: Cell, b: Cell, published: float | None) -> Ratio:
    """a / b measured, with its spread and whether the published ratio's side of 1 held."""
    sa, sb = a.summary, b.summary
    if sb.median <= 0 or sa.median < 0:
        return Ratio(published, None, None, None, NO_RATIO, "a median is zero or negative: no ratio")
    measured = sa.median / sb.median
    low = high = None
    if sb.min > 0 and sa.min >= 0:
        low, high = sa.min / sb.max, sa.max / sb.min
    verdict, why = _verdict(published, measured, low, high)
    if sa.n == 1 or sb.n == 1:
        why = "; ".join(x for x in (why, "a single value: no spread") if x)
    caution = sorted({f for f in a.flags | b.flags if f in CAUTION_FLAGS})
    if caution:
        why = "; ".join(x for x in (why, "flags: " + ", ".join(caution)) if x)
    return Ratio(published, measured, low, high, verdict, why)


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
            published_ratio = value / claim.value(base_label) if claim.value(base_label) else None
            if measured and base:
                row.ratio = ratio_of(measured.cell, base.cell, published_ratio)
            else:
                side = target if not measured else target_of(base_label)
                row.ratio = Ratio(published_ratio, None, None, None, NO_RATIO, f"{side} not measured")
        result.rows.append(row)
    return result


def evaluate_all(view: RunView, scenario: str | None = None) -> list[ClaimResult]:
    return [evaluate(view, c) for c in CLAIMS if scenario is None or c.where.scenario == scenario]


def has_any_measured(result: ClaimResult) -> bool:
    return any(r.measured for r in result.rows)
