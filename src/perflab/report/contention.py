"""The steady launches' contention probe in the reports, beside the canary: the steal on the app's
CPU over each launch's measured window and its threads' run-queue wait (perflab.analysis.contention),
in the findings of one run and in the comparison of two."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from perflab.analysis.contention import CONTENDED_STEAL_PCT
from perflab.results import RunView


@dataclass(frozen=True)
class Summary:
    steal: list[float]       # steal_pct of every launch at every measured point
    wait: list[float]        # runqueue_wait_ms_per_s
    wait_pct: list[float]    # runqueue_wait_pct
    contended: int           # launch windows flagged contended


def summary(view: RunView) -> Summary:
    def values(metric: str) -> list[float]:
        return [v for c in view.find("steady", metric) for v in c.values]

    # a cell's flags are the union of its launches': the launches above the threshold are the flagged ones
    flagged = {(c.target, c.point, r) for c in view.find("steady", "steal_pct")
               for r, v in zip(c.repeats or range(len(c.values)), c.values) if v > CONTENDED_STEAL_PCT}
    return Summary(values("steal_pct"), values("runqueue_wait_ms_per_s"), values("runqueue_wait_pct"), len(flagged))


def findings_line(view: RunView) -> str:
    """One line for the findings, right after the canary's host-speed line ("" when no launch had it)."""
    s = summary(view)
    if not s.steal and not s.wait:
        return ""
    parts = []
    if s.steal:
        parts.append(f"steal on the app's CPU median {statistics.median(s.steal):.2f} %, at most {max(s.steal):.2f} % "
                     f"({len(s.steal)} windows), {s.contended} above {CONTENDED_STEAL_PCT:g} %"
                     + (" (their launches are flagged contended)" if s.contended else ""))
    if s.wait:
        parts.append(f"its threads' run-queue wait median {statistics.median(s.wait):.0f} ms/s"
                     + (f" ({statistics.median(s.wait_pct):.0f} % of their time)" if s.wait_pct else "")
                     + ", which counts its own threads queueing behind each other: evidence, not a verdict")
    return "contention (over each steady launch's measured window): " + "; ".join(parts)


def compare_line(a: RunView, b: RunView) -> str:
    """The two runs' steal on the app's CPU, beside the canary ("" unless both have it)."""
    sa, sb = summary(a), summary(b)
    if not sa.steal or not sb.steal:
        return ""
    return (f"host: steal on the app's CPU (each launch's measured window): A median {statistics.median(sa.steal):.2f} % "
            f"[{min(sa.steal):.2f}-{max(sa.steal):.2f}], {sa.contended} window(s) above {CONTENDED_STEAL_PCT:g} %; B median "
            f"{statistics.median(sb.steal):.2f} % [{min(sb.steal):.2f}-{max(sb.steal):.2f}], {sb.contended} above")
