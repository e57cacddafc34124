"""The gate a pipeline puts on an upgrade: which changes are worse beyond the noise and by more
than a threshold the user sets (`perflab compare ... --fail-above PCT` exits 1 when any are)."""

from __future__ import annotations

from perflab.report import compare
from perflab.report.version_changes import changes
from perflab.results import RunView


def run_regressions(cmp: compare.RunComparison, threshold_pct: float) -> list[str]:
    """Figures of run B worse than run A beyond the noise, by more than threshold_pct of A's median."""
    return [f"{c.name}: {100 * c.result.relative_change:+.1f} %" for c in cmp.changes
            if c.verdict == compare.WORSE and abs(100 * c.result.relative_change) > threshold_pct]


def version_regressions(view: RunView, threshold_pct: float) -> list[str]:
    """Changes between consecutive versions in one run judged slower, by more than threshold_pct."""
    return [f"{c.app}/{c.mode} {c.older} -> {c.newer} {c.headline.title}: {c.verdict.change_pct:+.1f} %"
            for c in changes(view) if c.verdict.regression_beyond(threshold_pct)]


def verdict_lines(found: list[str], threshold_pct: float) -> list[str]:
    if not found:
        return [f"gate: no change worse beyond the noise by more than {threshold_pct:g} %"]
    return [f"gate: {len(found)} change(s) worse beyond the noise by more than {threshold_pct:g} %:"] + \
        [f"  {line}" for line in found]
