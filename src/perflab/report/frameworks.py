"""The four JVM frameworks side by side: Quarkus, Spring Boot, Micronaut and Helidon SE (and the
Go reference beside them) on the figures the `frameworks` plan compares, each app/mode's value with
its 95 % interval, as one table and one chart; and what the findings block says beside their ratios
(a headline ratio of the plan the run could not give, and that no published figure exists for the
frameworks no study measured).

Each value is a level, not a ratio: the geometric mean of the app/mode's launch values with Student's
t interval on their logs (one value per fresh launch: the warm launches for start-up, steady's
launches for the load figures). On the log scale, as the ratios are judged (perflab.analysis.ratios_ci): the
quotient of two rows' estimates is the ratio the findings give when every round pairs up, and an
interval never reaches below zero. The interval is that of the app/mode's own launches; a ratio's
interval, paired by round, is narrower when the host's speed moved both sides alike.

The efficiency figure, app CPU per request, is read at the open-loop point when the run offered
every app/mode one rate there ([steady] open_loop_basis): at equal load, which the closed-loop
point, where each app serves what its CPU allows, is not; the findings then give its ratio for every
headline pair and for each framework against the Go reference. A run without that common rate
keeps the closed-loop figure, labelled as such.

Shown when a run measured at least two of the four frameworks, so in `full` too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats as sps

from perflab import headline
from perflab.apps.versions import split_name
from perflab.headline import cells as headline_cells
from perflab.present.charts import Chart, Panel, Point, colors_for, panels_chart
from perflab.present.published import TARGETS
from perflab.present.tables import TextTable, fmt_value
from perflab.report.ratios import interval_of
from perflab.results import Cell, RunView
from perflab.scenarios.steady_report import common_rate, common_rate_text

FRAMEWORKS = {"quarkus": "Quarkus", "spring-boot": "Spring Boot", "micronaut": "Micronaut", "helidon": "Helidon SE"}
REFERENCE = "go-reference"  # beside them, not one of them
CONFIDENCE = 0.95
# the apps some published figure stands for: the studies' (present.published) and the Quarkus team's
# Quarkus / Spring Boot throughput (scenarios.steady_report.PUBLISHED_GAP)
PUBLISHED_APPS = {t.split("/")[0] for t in TARGETS.values()} | {"quarkus", "spring-boot"}


@dataclass(frozen=True)
class Figure:
    key: str
    label: str      # as a column and a panel name it
    unit: str
    scenario: str   # "startup": its warm launches; "steady": each app/mode's headline point
    metric: str


FIGURES = (
    Figure("start", "start-up (the framework's own)", "ms", "startup", "framework_start_ms"),
    Figure("ttfr", "time to first response", "ms", "startup", "ttfr_ms"),
    Figure("rss", "RSS after the first request", "MB", "startup", "rss_after_first_mb"),
    Figure("rps", "throughput", "req/s", "steady", "rps"),
    Figure("p50", "latency p50", "ms", "steady", "latency_p50_ms"),
    Figure("p99", "latency p99", "ms", "steady", "latency_p99_ms"),
    Figure("cpu", "app CPU per request", "ms", "steady", "app_cpu_ms_per_request"),
)
CPU = "app_cpu_ms_per_request"


def open_loop_cell(view: RunView, target: str, at: Cell, metric: str = CPU) -> Cell | None:
    """`target`'s figure at the open-loop point that followed its headline point `at`."""
    return next((c for c in view.find("steady", metric) if c.target == target and c.params.get("open_loop")
                 and c.point.startswith(f"{at.point} open loop")), None)


@dataclass(frozen=True)
class Level:
    """One app/mode's figure from its launches: the geometric mean and its 95 % interval (None
    with one launch: no interval)."""
    estimate: float
    low: float | None
    high: float | None
    n: int

    def text(self) -> str:
        if self.low is None or self.high is None:
            return f"{fmt_value(self.estimate)} (n={self.n}, no interval)"
        return f"{fmt_value(self.estimate)} [{fmt_value(self.low)}-{fmt_value(self.high)}] n={self.n}"


def level(values: list[float], confidence: float = CONFIDENCE) -> Level | None:
    """The geometric mean of the positive values with Student's t interval on their logs (None
    without a positive value)."""
    logs = np.log([v for v in values if v > 0 and math.isfinite(v)])
    n = len(logs)
    if n == 0:
        return None
    mean = float(np.mean(logs))
    if n < 2:
        return Level(math.exp(mean), None, None, n)
    half = float(sps.t.ppf(0.5 + confidence / 2, n - 1)) * float(np.std(logs, ddof=1)) / math.sqrt(n)
    return Level(math.exp(mean), math.exp(mean - half), math.exp(mean + half), n)


def app_of(target: str) -> str:
    """The app of an app/mode, without a framework version ("quarkus@3.37.1/jvm" -> "quarkus")."""
    return split_name(target.partition("/")[0])[0]


def compared(view: RunView) -> list[str]:
    """The run's app/modes of the four frameworks and the Go reference, in the run's order."""
    return [t for t in view.targets() if app_of(t) in FRAMEWORKS or app_of(t) == REFERENCE]


@dataclass
class Row:
    target: str
    cells: dict[str, Cell | None]    # by figure key
    levels: dict[str, Level | None]

    @property
    def reference(self) -> bool:
        return app_of(self.target) == REFERENCE


@dataclass
class SideBySide:
    rows: list[Row]
    points: list[str]       # steady's headline point(s) the load figures come from
    unpublished: str        # that no published figure exists for some of them
    equal: dict | None = None  # the common open-loop rate the CPU per request is read at (common_rate)
    offered_other: int = 0  # launches offered another rate there (before the basis had measured)

    def figures(self) -> list[Figure]:
        """The figures at least one row has, the CPU per request named by the point it is read at."""
        where = " at equal load" if self.equal else " (closed loop)"
        return [replace(f, label=f.label + where) if f.key == "cpu" else f
                for f in FIGURES if any(r.levels.get(f.key) for r in self.rows)]

    def frameworks(self) -> list[str]:
        return list(dict.fromkeys(app_of(r.target) for r in self.rows if not r.reference))


def _cells(view: RunView, target: str, steady: dict[str, Cell], equal: bool) -> dict[str, Cell | None]:
    out: dict[str, Cell | None] = {}
    at = steady.get(target)
    for f in FIGURES:
        if f.scenario == "startup":
            found = view.find("startup", f.metric, "warm")
        elif f.key == "cpu" and equal:
            out[f.key] = open_loop_cell(view, target, at) if at is not None else None
            continue
        else:
            found = view.find("steady", f.metric, at.point) if at is not None else []
        out[f.key] = next((c for c in found if c.target == target), None)
    return out


def side_by_side(view: RunView) -> SideBySide | None:
    """The frameworks' rows, or None when the run measured fewer than two of the four frameworks on
    any of these figures."""
    steady = headline_cells(view)
    equal = common_rate(view)
    rows = []
    for target in compared(view):
        cells = _cells(view, target, steady, equal is not None)
        # steady's figures from the launches that reached steady state only (start-up's are all warm launches)
        levels = {k: level(c.steady_values()) if c is not None else None for k, c in cells.items()}
        if any(levels.values()):
            rows.append(Row(target, cells, levels))
    if len({app_of(r.target) for r in rows if not r.reference}) < 2:
        return None
    points = list(dict.fromkeys(steady[r.target].point for r in rows if r.target in steady))
    other = 0
    if equal is not None:
        offered = [c for r in rows if r.target in steady
                   and (c := open_loop_cell(view, r.target, steady[r.target], "offered_rate")) is not None]
        other = sum(1 for c in offered for v in c.values if abs(v - equal["rate"]) > 0.5)
    return SideBySide(rows, points, unpublished_line([r.target for r in rows]), equal, other)


def equal_load_text(equal: dict, offered_other: int = 0) -> str:
    """The common open-loop rate, and how many launches were offered another."""
    return (common_rate_text(equal)
            + (f"; {offered_other} launch(es) ran before that rate was known and were offered a fraction of their "
               "own throughput" if offered_other else ""))


def unpublished_line(targets: list[str]) -> str:
    """That no published figure exists for the frameworks among `targets` that no study measured
    (empty when every one of them has one)."""
    apps = [a for a in dict.fromkeys(app_of(t) for t in targets) if a in FRAMEWORKS and a not in PUBLISHED_APPS]
    if not apps:
        return ""
    names = " and ".join(FRAMEWORKS[a] for a in apps) if len(apps) <= 2 else \
        ", ".join(FRAMEWORKS[a] for a in apps[:-1]) + f" and {FRAMEWORKS[apps[-1]]}"
    return (f"no published figure exists for {names}: none of the studies this lab sets beside its figures, nor the "
            f"Quarkus team's lab, measured {'it' if len(apps) == 1 else 'them'}, so none is set beside "
            f"{'its' if len(apps) == 1 else 'their'} figures or ratios")


def _heading(f: Figure) -> str:
    return f"{f.label} {f.unit}"


def note(side: SideBySide) -> str:
    at = " and ".join(side.points) if side.points else "the closed-loop point"
    parts = [f"each value: the geometric mean of the app/mode's launches [its {CONFIDENCE:.0%} interval, Student's t "
             f"on the logs] n = launches (start-up: the warm launches; the rest: steady's fresh launches at {at})",
             (f"app CPU per request is measured at the open-loop point after it, at equal load: "
              f"{equal_load_text(side.equal, side.offered_other)}" if side.equal else
              "app CPU per request is measured at that closed-loop point, where each app serves as much as its one "
              "CPU allows (the run offered no common open-loop rate): at equal offered rates it is the efficiency "
              "scenario's figure"),
             "the ratios, paired by round, are in the findings"]
    warming = [f"{r.target} {n}" for r in side.rows if (c := r.cells.get("rps")) is not None
               and (n := len(c.warming_values()))]
    if warming:
        parts.append("steady's figures leave out the launches still warming up (never steady within the warm-up's "
                     f"maximum): {', '.join(warming)} launch(es)")
    if any(r.reference for r in side.rows):
        parts.append(f"{REFERENCE} is the reference beside the frameworks, not one of them")
    if side.unpublished:
        parts.append(side.unpublished)
    return "; ".join(parts)


def table(side: SideBySide) -> TextTable:
    figures = side.figures()
    rows = []
    for r in side.rows:
        label = r.target + (" (reference)" if r.reference else "")
        rows.append([label, *(lvl.text() if (lvl := r.levels.get(f.key)) else "-" for f in figures)])
    return TextTable("frameworks", "The frameworks side by side", ["app/mode", *(_heading(f) for f in figures)],
                     rows, note(side))


def chart(side: SideBySide, colors: dict[str, str]) -> Chart | None:
    """One panel per figure, every app/mode a dot in its colour with its 95 % interval as whiskers."""
    panels = []
    for f in side.figures():
        points = []
        for r in side.rows:
            lvl, cell = r.levels.get(f.key), r.cells.get(f.key)
            if lvl is None:
                continue
            interval = (f"{CONFIDENCE:.0%} interval {fmt_value(lvl.low)}-{fmt_value(lvl.high)}"
                        if lvl.low is not None and lvl.high is not None else "one launch: no interval")
            flags = frozenset(cell.flags - {"single"}) if cell is not None else frozenset()
            points.append((r.target, colors.get(r.target, "#444444"),
                           Point(0, lvl.estimate, lvl.low, lvl.high, flags, f"{interval} (n={lvl.n})")))
        panels.append(Panel(_heading(f), points))
    return panels_chart("The frameworks side by side (whiskers: 95 % interval of each app/mode's launches)", panels,
                        key="frameworks-side-by-side",
                        note="dot: geometric mean of the launches; whiskers: its 95 % interval"
                             + (f"; {side.unpublished}" if side.unpublished else ""))


def table_of(view: RunView) -> TextTable | None:
    """The section's table, or None when it is not shown (the terminal and Markdown have no charts)."""
    side = side_by_side(view)
    return table(side) if side is not None else None


def view_of(view: RunView) -> tuple[TextTable, Chart | None] | None:
    """The section's table and chart, or None when it is not shown."""
    side = side_by_side(view)
    if side is None:
        return None
    return table(side), chart(side, colors_for(view))


def finding_lines(view: RunView, found: list[tuple[str, str]]) -> list[str]:
    """What the findings block adds for the frameworks: each headline ratio the plan names that the
    run could not give, and why; and that no published figure exists for the frameworks among the
    ratios' app/modes that no study measured. `found`: the (numerator, denominator) of the ratios given."""
    out = []
    given = set(found)
    targets = set(view.targets())
    for text in (view.plan.get("rounds") or {}).get("headline") or []:
        a, _, b = text.partition(":")
        if not b or (a, b) in given:
            continue
        why = [w for t in (a, b) if (w := _why_not(view, t, targets))]
        out.append(f"{a} / {b}: no ratio: " + ("; ".join(why) or "no figure of both measured the same way"))
    line = unpublished_line([t for pair in found for t in pair])
    return out + equal_load_ratios(view) + ([line] if line else [])


def equal_load_pairs(view: RunView, targets: list[str]) -> list[tuple[str, str]]:
    """The pairs whose CPU per request at equal load is given: every headline pair among `targets`,
    then each framework against the Go reference (its ratio there needs no load side fast enough to
    drive the Go reference to its limit)."""
    pairs = headline.of_run(view, targets)
    reference = [t for t in targets if app_of(t) == REFERENCE]
    return pairs + [(t, ref) for ref in reference for t in targets if app_of(t) in FRAMEWORKS]


def equal_load_ratios(view: RunView) -> list[str]:
    """Per pair, the ratio of app CPU per request at the common open-loop rate, with its 95 %
    interval paired by round (empty when the run offered no common rate)."""
    equal = common_rate(view)
    if equal is None:
        return []
    steady = headline_cells(view)
    cells = {t: c for t in compared(view) if t in steady and (c := open_loop_cell(view, t, steady[t])) is not None}
    out = []
    for a, b in equal_load_pairs(view, list(cells)):
        ca, cb = cells[a], cells[b]
        ci = interval_of(ca, cb, True, view)
        if ci is not None:
            said = f"{ci.estimate:.2f} [{ci.low:.2f}-{ci.high:.2f}] ({ci.n} {'rounds' if ci.paired else 'launches'})"
        elif cb.summary.median > 0:
            said = f"{ca.summary.median / cb.summary.median:.2f} (no interval: fewer than two launches a side)"
        else:
            continue
        out.append(f"{a} / {b}: app CPU per request at equal load ({equal['rate']:,.0f} req/s) {said}")
    return out


def _why_not(view: RunView, target: str, targets: set[str]) -> str:
    if target not in targets:
        return f"{target} is not in this run"
    failed = [o for o in view.outcomes if f"{o['app']}/{o['mode']}" == target and o["status"] != "ok"]
    if failed:
        o = failed[0]
        return f"{target} {o['status']} in {o['scenario']}" + (f" ({o['reason']})" if o["reason"] else "")
    if target not in headline_cells(view):
        return f"{target} has no steady throughput"
    return ""
