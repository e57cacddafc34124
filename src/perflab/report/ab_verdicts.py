"""The answer of `perflab ab`: per headline figure, head / base with its 95 % interval and a
verdict, and the gate a pipeline puts on it.

The intervals are the run's own (perflab.report.version_changes: paired by round, a round with a
launch still warming up left out), so the figures the verdict gives are those of the report.
A verdict is:
- "slower" or "faster" when the whole interval lies on that side of 1 (the change is real; its
  size is the interval's);
- "no change within +-X %" when the ratio settled by the lab's rule (perflab.analysis.ratios_ci.settled:
  enough rounds, half-width within X at the spread's upper limit) and its whole interval lies
  within a factor 1+X of 1 either way;
- "not settled" otherwise: more rounds (a larger --budget) would tell.
The gate (`--fail-above PCT`) fails only when the whole interval lies beyond PCT on the worse side:
a head worse by a factor of more than 1+PCT/100 (throughput: head / base below 1/(1+PCT/100); a
time, a size or CPU per request: above 1+PCT/100). An estimate beyond PCT whose interval is not
fails nothing, so the host's noise alone fails a build about as often as the interval misses.
"""

from __future__ import annotations

from dataclasses import dataclass

from perflab import rounds
from perflab.analysis import ratios_ci
from perflab.apps.versions import REVISIONS
from perflab.report.version_changes import FASTER, SLOWER, Change, changes
from perflab.results import RunView

BASE, HEAD = REVISIONS
# the figures a change is judged on, in the order they are printed (version_changes.HEADLINES' keys)
FIGURES = ("throughput", "ttfr", "rss", "cpu")
NO_CHANGE, NOT_SETTLED = "no change", "not settled"


@dataclass(frozen=True)
class ABVerdict:
    change: Change
    verdict: str       # FASTER, SLOWER, NO_CHANGE or NOT_SETTLED
    within: float      # X of "no change within +-X"
    least: int         # rounds before a ratio may count as settled

    @property
    def interval(self) -> ratios_ci.RatioInterval | None:
        return self.change.verdict.interval

    def worse_beyond(self, pct: float) -> bool:
        """Whether the whole interval lies beyond pct percent on the worse side."""
        ci, factor = self.interval, 1 + pct / 100
        if ci is None:
            return False
        return ci.low > factor if self.change.headline.lower_is_better else ci.high < 1 / factor

    def text(self) -> str:
        ci, h = self.interval, self.change.headline
        what = f"{self.change.app}/{self.change.mode} {h.title}"
        if ci is None:
            return f"{what}: {NOT_SETTLED} (fewer than two rounds in which both sides were measured steady)"
        how = f"{ci.n} rounds, paired" if ci.paired else f"{ci.n}+ launches a side, unpaired"
        said = f"{what}: head / base {ci.estimate:.3f}x, 95 % interval {ci.low:.3f}-{ci.high:.3f}x ({how}): "
        if self.verdict in (FASTER, SLOWER):
            lo, hi = sorted((100 * (ci.low - 1), 100 * (ci.high - 1)))
            return said + f"{self.verdict.upper()} ({lo:+.1f} % to {hi:+.1f} % in {h.unit})"
        if self.verdict == NO_CHANGE:
            return said + f"no change within +-{self.within:.0%}"
        short = f"{ci.n} of the {self.least} rounds a verdict needs" if ci.n < self.least else \
            f"+-{ci.half_width:.1%} reaches beyond +-{self.within:.0%}"
        return said + f"{NOT_SETTLED} ({short})"


def _verdict(change: Change, within: float, least: int) -> str:
    ci = change.verdict.interval
    if change.verdict.verdict in (FASTER, SLOWER):
        return change.verdict.verdict
    if ci is not None and ratios_ci.settled(ci, within, least) and 1 / (1 + within) <= ci.low \
            and ci.high <= 1 + within:
        return NO_CHANGE
    return NOT_SETTLED


def within_of(view: RunView) -> float:
    """X of "no change within +-X": the target the rounds settled the ratio to."""
    return (view.plan.get("rounds") or {}).get("target") or 0.05


def verdicts(view: RunView) -> list[ABVerdict]:
    within = within_of(view)
    least = rounds.least_rounds(within, floor=(view.plan.get("rounds") or {}).get("min_rounds") or 0)
    found = [c for c in changes(view) if (c.older, c.newer) == (BASE, HEAD) and c.headline.key in FIGURES]
    found.sort(key=lambda c: (c.mode, FIGURES.index(c.headline.key)))
    return [ABVerdict(c, _verdict(c, within, least), within, least) for c in found]


def revisions_line(view: RunView) -> str:
    """Which commits the two sides were."""
    ab = view.plan.get("ab") or {}

    def side(role: str) -> str:
        s = ab.get(role) or {}
        rev = s.get("rev") or "the working tree"
        state = " with changes no commit holds" if s.get("dirty") else ""
        return f"{role} = {rev} ({(s.get('sha') or '?')[:12]}{state})"
    return f"{side(BASE)}; {side(HEAD)}"


def gate_lines(found: list[ABVerdict], pct: float) -> tuple[list[str], bool]:
    """The gate's lines and whether it fails."""
    worse = [v for v in found if v.worse_beyond(pct)]
    if worse:
        return ([f"gate: FAILED: {len(worse)} figure(s) worse by more than {pct:g} % over the whole interval:"]
                + [f"  {v.text()}" for v in worse]), True
    open_ = [v for v in found if v.verdict == NOT_SETTLED]
    tail = (f"; {len(open_)} figure(s) not settled, so a change of {pct:g} % there may have gone unseen"
            if open_ else "")
    return [f"gate: passed: no figure worse by more than {pct:g} % over its whole interval{tail}"], False


def markdown(view: RunView, found: list[ABVerdict], pct: float | None) -> str:
    """The verdicts as a Markdown page (e.g. a pipeline's job summary)."""
    rows = []
    for v in found:
        ci = v.interval
        rows.append(f"| {v.change.app}/{v.change.mode} | {v.change.headline.title} | "
                    + (f"{ci.estimate:.3f}x | {ci.low:.3f}-{ci.high:.3f}x | {ci.n} | " if ci else "- | - | 0 | ")
                    + f"{v.verdict if v.verdict != NO_CHANGE else f'no change within +-{v.within:.0%}'} |")
    out = [f"## perflab ab: run {view.id}", revisions_line(view), "",
           "| app/mode | figure | head / base | 95 % interval | rounds | verdict |", "|---|---|---|---|---|---|", *rows]
    if pct is not None:
        out += ["", *gate_lines(found, pct)[0]]
    out += ["", f"Plan {view.plan.get('name')}: interleaved launch rounds of both revisions; a round with a launch "
                "still warming up is left out of the ratio. The whole report is in the run's report.md/html."]
    return "\n".join(out) + "\n"
