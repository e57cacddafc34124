"""A verdict per change between consecutive versions of an app: faster, slower or within noise.

Each headline figure is judged on its launch-level values (one value per fresh launch), as the
lab's comparisons are: the ratio newer / older with its 95 % interval, paired by round when the
versions' launches ran in interleaved rounds (perflab.rounds, perflab.analysis.ratios_ci), so a slow spell
of the host lands on both versions and is not taken for a regression. A change is "slower" (or
"faster") only when the whole interval lies on that side of 1; with fewer than two launches a side
there is no verdict.

The open-loop point of every version of one app/mode is offered one rate, a fraction of the oldest
version's measured throughput (perflab.scenarios.steady.open_loop_rate; `equal_load` words it for
the report), so their p99s there are of one load. Where two versions were offered rates more than
10 % apart (a run stored before the versions shared a rate, when each launch was offered a fraction
of its own throughput, or launches that ran before the oldest version had a throughput), a change
in their latencies is reported "at unequal load" with the two rates, never "slower" (a faster
version, offered more, would otherwise fail a pipeline's gate on its p99).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from perflab.analysis import ratios_ci
from perflab.apps.libraries import LibraryChange, changes as library_changes
from perflab.apps.versions import REVISIONS, in_series, release_key, split_name
from perflab.headline import cells as headline_cells
from perflab.results import Cell, RunView

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
    return verdict_of(ratios_ci.interval(newer, older, in_rounds=in_rounds), lower_is_better)


def verdict_of(ci: ratios_ci.RatioInterval | None, lower_is_better: bool) -> Verdict:
    """Faster or slower when the whole interval of newer / older lies on that side of 1."""
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
        if in_series(version):
            found.setdefault((app, mode), set()).add(version)
    return {k: sorted(v, key=release_key) for k, v in found.items()}


def changes(view: RunView) -> list[Change]:
    """Every consecutive pair of versions of every app/mode, judged on every headline figure both have."""
    out = []
    offered = {(c.target, c.point): c.summary.median for c in view.find("steady", "offered_rate")}
    chased = headline_cells(view)
    for headline in HEADLINES:
        cells = headline.cells(view)
        for (app, mode), versions in series(view).items():
            measured = [v for v in versions if f"{app}@{v}/{mode}" in cells]
            for old, new in zip(measured, measured[1:]):
                a, b = cells[f"{app}@{old}/{mode}"], cells[f"{app}@{new}/{mode}"]
                verdict = verdict_of(_interval(view, b, a, chased), headline.lower_is_better)
                unequal = _unequal_load(offered, a, b) if headline.load_bound else ""
                if unequal and verdict.verdict != TOO_FEW:
                    verdict = Verdict(UNEQUAL_LOAD, verdict.interval, unequal)
                out.append(Change(app, mode, old, new, headline, a, b, verdict))
    return out


def _interval(view: RunView, newer: Cell, older: Cell, chased: dict[str, Cell]) -> ratios_ci.RatioInterval | None:
    """newer / older as the run's findings give it: a round with a launch still warming up left out
    (it measured a warm-up, not a steady state), and the ratio the rounds chased pooled with the
    spread of earlier runs they pooled, so one ratio shows one interval wherever it is shown."""
    label = f"{newer.target} / {older.target}"
    prior = view.prior(label) if chased.get(newer.target) is newer and chased.get(older.target) is older else None
    return view.interval(newer, older, prior, without=frozenset(newer.warming() | older.warming()))


def _unequal_load(offered: dict[tuple[str, str], float], a: Cell, b: Cell) -> str:
    """Why two cells of an open-loop point were not measured at one load ("" when they were);
    `offered`: the median rate offered per (target, point)."""
    rate_a, rate_b = offered.get((a.target, a.point)), offered.get((b.target, b.point))
    if not rate_a or not rate_b or abs(rate_b / rate_a - 1) <= SAME_LOAD:
        return ""
    return f"offered {rate_a:,.0f} vs {rate_b:,.0f} req/s: latencies of unequal loads"


def equal_load(view: RunView) -> list[str]:
    """Per app/mode of several versions, the one rate their open-loop points were offered and what it
    is a fraction of; launches offered another rate (before the oldest version had measured a
    throughput) are counted."""
    lines = []
    offered = view.find("steady", "offered_rate")
    for oldest, basis in (view.environment.get("open_loop_rates") or {}).items():
        name, _, mode = oldest.partition("/")
        app, version = split_name(name)
        rate = basis.get("rate")
        if not rate:
            continue
        mine = [c for c in offered if c.mode == mode and split_name(c.app)[0] == app and split_name(c.app)[1]]
        other = sum(1 for c in mine for v in c.values if abs(v - rate) > 0.5)
        lines.append(f"{app}/{mode}: the open-loop point of every version was offered {rate:,.0f} req/s, "
                     f"{basis.get('fraction', 0):.0%} of the oldest version's ({version}) steady throughput in its "
                     f"launch {basis.get('launch', '?')} ({basis.get('rps', 0):,.0f} req/s), so their p99s there "
                     "are of one load"
                     + (f"; {other} launch(es) ran before that rate was known and were offered a fraction of their "
                        "own throughput" if other else ""))
    return lines


@dataclass(frozen=True)
class AlsoChanged:
    """What else changed between two versions of one app's builds, beside the framework's version."""
    app: str
    older: str
    newer: str
    overlay: str                 # how the two builds' sources differ ("" when they do not)
    libraries: list[LibraryChange] | None  # None: not known, for the reason in `unread`
    unread: str = ""

    def text(self) -> str:
        said = [self.overlay] if self.overlay else []
        if self.libraries is None:
            said.append(self.unread)
        elif self.libraries:
            said.append(f"{len(self.libraries)} bundled librar{'y' if len(self.libraries) == 1 else 'ies'} changed "
                        "major version, group, or came or went: " + "; ".join(c.text() for c in self.libraries))
        else:
            said.append("no bundled library changed major version or group, came or went")
        return f"{self.app} {self.older} -> {self.newer}: " + ". ".join(said)


def _overlay_text(older: str, newer: str, overlays: dict) -> str:
    a, b = overlays.get(older), overlays.get(newer)
    if a == b:
        return ""
    def built(name: str, entry: dict | None) -> str:
        version = split_name(name)[1]
        if not entry:
            return f"{version} from the app's own sources"
        return (f"{version} from its {entry['folder']}/ overlay, which replaces or adds "
                + ", ".join(entry.get("files", [])))
    return "sources: " + "; ".join(built(n, e) for n, e in ((older, a), (newer, b)))


def also_changed(view: RunView) -> list[AlsoChanged]:
    """Per app and consecutive pair of its versions measured: the overlay and the bundled libraries
    that differ between their builds (recorded with the run, perflab.version_builds.what_was_built)."""
    libs = view.environment.get("libraries") or {}
    overlays = view.environment.get("overlays") or {}
    missing = unavailable(view)
    out, seen = [], set()
    for (app, _mode), versions in series(view).items():
        built = [v for v in versions if f"{app}@{v}" not in missing]
        for old, new in zip(built, built[1:]):
            if (app, old, new) in seen:
                continue
            seen.add((app, old, new))
            a, b = libs.get(f"{app}@{old}"), libs.get(f"{app}@{new}")
            ab = view.plan.get("ab") or {}
            if old in REVISIONS and (ab.get(old) or {}).get("dir") == (ab.get(new) or {}).get("dir"):
                found, unread = None, "both sides are one build of one commit (an A/A run)"
            elif a is None or b is None:
                found, unread = None, "the libraries its builds bundle were not recorded (a run stored before they were)"
            elif not a and not b:  # for two framework versions of a native app, the toolchain is the change
                found, unread = None, "its builds bundle no jars to read (not a JVM build" + \
                    ("" if old in REVISIONS else ": the toolchain is the change") + ")"
            else:
                found, unread = library_changes(a, b), ""
            out.append(AlsoChanged(app, old, new, _overlay_text(f"{app}@{old}", f"{app}@{new}", overlays), found,
                                   unread))
    return out


def unavailable(view: RunView) -> dict[str, str]:
    """app@version -> why it was not measured (the missing artifact or the build's first error)."""
    return {o["app"]: o["reason"] for o in view.outcomes
            if o["status"] == "unavailable" and split_name(o["app"])[1]}
