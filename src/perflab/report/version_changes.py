"""A verdict per change between consecutive versions of an app: faster, slower or within noise.

Each headline figure is judged on its launch-level values (one value per fresh launch), as the
lab's comparisons are: the ratio newer / older with its 95 % interval, paired by round when the
versions' launches ran in interleaved rounds (perflab.rounds, perflab.ratios_ci), so a slow spell
of the host lands on both versions and is not taken for a regression. A change is "slower" (or
"faster") only when the whole interval lies on that side of 1; with fewer than two launches a side
there is no verdict.

The open-loop point is offered a fraction of each launch's own throughput, so two versions whose
throughputs differ were offered different rates there: their latencies at that point are not of one
load, and a change in them is reported "at unequal load" with the two rates, never "slower" (a
faster version, offered more, would otherwise fail a pipeline's gate on its p99).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from perflab import ratios_ci
from perflab.apps.versions import release_key, split_name
from perflab.results import Cell, RunView
from perflab.scenarios.steady_report import headline_cells

FASTER, SLOWER, WITHIN_NOISE, TOO_FEW = "faster", "slower", "within noise", "too few launches"
UNEQUAL_LOAD = "at unequal load"
# offered rates this close count as one load: one build's launches differ by about 5 % in throughput
SAME_LOAD = 0.10


@dataclass(frozen=True)
class Headline:
    key: str
    title: str
    unit: str
    lower_is_better: bool
    cells: Callable[[RunView], dict[str, Cell]]  # target -> its cell of this figure
    load_bound: bool = False  # measured at a rate offered in proportion to each version's own throughput


def _startup(metric: str) -> Callable[[RunView], dict[str, Cell]]:
    return lambda view: {c.target: c for c in view.find("startup", metric, point="warm")}


def _at_headline_point(metric: str) -> Callable[[RunView], dict[str, Cell]]:
    """A steady figure at the point of each target's headline throughput."""
    def cells(view: RunView) -> dict[str, Cell]:
        points = {t: c.point for t, c in headline_cells(view).items()}
        return {c.target: c for c in view.find("steady", metric) if points.get(c.target) == c.point}
    return cells


def _open_loop(metric: str) -> Callable[[RunView], dict[str, Cell]]:
    def cells(view: RunView) -> dict[str, Cell]:
        out: dict[str, Cell] = {}
        for c in view.find("steady", metric):
            if c.params.get("open_loop"):
                out.setdefault(c.target, c)
        return out
    return cells


HEADLINES = [
    Headline("ttfr", "time to first response (warm launches)", "ms", True, _startup("ttfr_ms")),
    Headline("rss", "RSS after the first request (warm launches)", "MB", True, _startup("rss_after_first_mb")),
    Headline("throughput", "steady-state throughput", "req/s", False, headline_cells),
    Headline("cpu", "CPU per request at that throughput", "ms", True, _at_headline_point("app_cpu_ms_per_request")),
    Headline("p99", "p99 latency at the open-loop point", "ms", True, _open_loop("latency_p99_ms"), load_bound=True),
]


@dataclass(frozen=True)
class Verdict:
    verdict: str                                # FASTER, SLOWER, WITHIN_NOISE, TOO_FEW or UNEQUAL_LOAD
    interval: ratios_ci.RatioInterval | None    # newer / older
    why: str = ""                               # UNEQUAL_LOAD: the two rates offered

    @property
    def change_pct(self) -> float | None:
        return None if self.interval is None else 100 * (self.interval.estimate - 1)

    def regression_beyond(self, threshold_pct: float) -> bool:
        """Slower beyond the noise, and by more than threshold_pct percent of the older version."""
        if self.verdict != SLOWER or self.interval is None:
            return False
        worse = self.interval.estimate - 1 if self.interval.estimate >= 1 else 1 / self.interval.estimate - 1
        return 100 * worse > threshold_pct


def judge(older: dict[int, float], newer: dict[int, float], lower_is_better: bool, in_rounds: bool = True) -> Verdict:
    """The verdict on newer against older from their launch values by round (or launch) number;
    paired only when the launches ran in rounds."""
    ci = ratios_ci.interval(newer, older, in_rounds=in_rounds)
    if ci is None:
        return Verdict(TOO_FEW, None)
    if ci.low > 1:
        return Verdict(SLOWER if lower_is_better else FASTER, ci)
    if ci.high < 1:
        return Verdict(FASTER if lower_is_better else SLOWER, ci)
    return Verdict(WITHIN_NOISE, ci)


@dataclass(frozen=True)
class Change:
    app: str        # the app without its version, e.g. "quarkus"
    mode: str
    older: str      # versions
    newer: str
    headline: Headline
    a: Cell
    b: Cell
    verdict: Verdict

    @property
    def older_target(self) -> str:
        return self.a.target

    @property
    def newer_target(self) -> str:
        return self.b.target


def series(view: RunView) -> dict[tuple[str, str], list[str]]:
    """(app, mode) -> the versions measured in this run, in release order."""
    found: dict[tuple[str, str], set[str]] = {}
    for target in view.targets():
        name, _, mode = target.partition("/")
        app, version = split_name(name)
        if version:
            found.setdefault((app, mode), set()).add(version)
    return {k: sorted(v, key=release_key) for k, v in found.items()}


def changes(view: RunView) -> list[Change]:
    """Every consecutive pair of versions of every app/mode, judged on every headline figure both have."""
    out = []
    offered = {(c.target, c.point): c.summary.median for c in view.find("steady", "offered_rate")}
    for headline in HEADLINES:
        cells = headline.cells(view)
        for (app, mode), versions in series(view).items():
            measured = [v for v in versions if f"{app}@{v}/{mode}" in cells]
            for old, new in zip(measured, measured[1:]):
                a, b = cells[f"{app}@{old}/{mode}"], cells[f"{app}@{new}/{mode}"]
                verdict = judge(a.by_repeat(), b.by_repeat(), headline.lower_is_better, view.in_rounds(a))
                unequal = _unequal_load(offered, a, b) if headline.load_bound else ""
                if unequal and verdict.verdict != TOO_FEW:
                    verdict = Verdict(UNEQUAL_LOAD, verdict.interval, unequal)
                out.append(Change(app, mode, old, new, headline, a, b, verdict))
    return out


def _unequal_load(offered: dict[tuple[str, str], float], a: Cell, b: Cell) -> str:
    """Why two cells of an open-loop point were not measured at one load ("" when they were);
    `offered`: the median rate offered per (target, point)."""
    rate_a, rate_b = offered.get((a.target, a.point)), offered.get((b.target, b.point))
    if not rate_a or not rate_b or abs(rate_b / rate_a - 1) <= SAME_LOAD:
        return ""
    return (f"offered {rate_a:,.0f} vs {rate_b:,.0f} req/s, a fraction of each version's own throughput: "
            "latencies of unequal loads")


def unavailable(view: RunView) -> dict[str, str]:
    """app@version -> why it was not measured (the missing artifact or the build's first error)."""
    return {o["app"]: o["reason"] for o in view.outcomes
            if o["status"] == "unavailable" and split_name(o["app"])[1]}
