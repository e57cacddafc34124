"""What `perflab history` seeks change points in, and so what `--fail-on-change` judges: each run's
headline figures relative to a reference app/mode measured in the same run (by default), or the
figures as measured (`--absolute`).

Runs hours apart on one machine move with the machine: 40 A/A runs of the Go reference showed
three change points of -8.6 % to -9.1 % in warm time to first response where the build had not
changed. Each app/mode's figure over the same figure of an app/mode launched in the same run cancels
a drift that moves both alike; a change of one against the other is left.

The rule (`reference`): a run's reference is the denominator of its first headline ratio as
headline.of_run finds it (the pair its rounds settled, the plan's rounds.headline, an upgrade's
oldest version, the plan's second JVM app by default); failing that, go-reference/native when the
run measured it (one framework beside the Go reference makes no headline pair); failing both, none,
and the run's figures are judged as measured. The headline denominator comes first: its launches
alternate with the others' in the same rounds, on the same kind of runtime, so more of a drift lands
on both alike. The reference's own figures make no series on this basis (each is 1): a change of
the reference shows as every other app/mode moving the other way, and `--absolute` judges it.
"""

from __future__ import annotations

from typing import NamedTuple

from perflab import headline
from perflab.report.version_changes import HEADLINES
from perflab.results import Cell, RunView

GO_REFERENCE = "go-reference/native"

# the open-loop p99 is left out: each run offers it a share of its own throughput, not one load across runs
FIGURES = [h for h in HEADLINES if not h.load_bound]


class Figure(NamedTuple):
    """One series' figure: a value per run."""
    name: str                     # "steady-state throughput, a/jvm / b/jvm", or "..., a/jvm" as measured
    unit: str
    headline: str                 # the headline's key, or "ratio"
    lower_is_better: bool | None  # None: a headline ratio, better neither way


def reference(view: RunView) -> str | None:
    """The app/mode whose figures the run's others are divided by (the module's rule); None: none."""
    measured = list(dict.fromkeys([*headline.cells(view), *(t for h in FIGURES for t in h.cells(view))]))
    pairs = headline.of_run(view, measured)
    if pairs:
        return pairs[0][1]
    return GO_REFERENCE if GO_REFERENCE in measured else None


def _base(cells: dict[str, Cell], ref: str | None) -> Cell | None:
    """The reference's cell of one figure, when it has one to divide by."""
    cell = cells.get(ref) if ref else None
    return cell if cell is not None and cell.summary.median > 0 else None


def figures(view: RunView, absolute: bool = False) -> dict[Figure, float]:
    """The run's value of each series' figure: the median of its launches over the reference's (as
    measured with `absolute`, or where the reference lacks that figure), and each headline ratio of
    its rounds (its estimate)."""
    ref = None if absolute else reference(view)
    out: dict[Figure, float] = {}
    for h in FIGURES:
        cells = h.cells(view)
        base = _base(cells, ref)
        for target, cell in cells.items():
            if base is None:
                out[Figure(f"{h.title}, {target}", h.unit, h.key, h.lower_is_better)] = cell.summary.median
            elif target != ref:
                out[Figure(f"{h.title}, {target} / {ref}", "x", h.key, h.lower_is_better)] = \
                    cell.summary.median / base.summary.median
    for ratio in (view.rounds or {}).get("ratios") or []:
        if ratio.get("interval"):
            out[Figure(f"headline ratio {ratio['ratio']}", "x", "ratio", None)] = ratio["interval"]["estimate"]
    return out


def of_run(view: RunView, absolute: bool = False) -> str:
    """A run's basis in a few words, for the page's table of runs."""
    if absolute:
        return "as measured (--absolute)"
    ref = reference(view)
    return f"over {ref}" if ref else "as measured: no reference"


def lines(views: list[RunView], absolute: bool = False) -> list[str]:
    """What the newest run's change points, and so the gate, judge, in plain words."""
    drift = "so a drift of the machine between runs reads as a change of the code"
    if absolute:
        return [f"judged on absolute figures (--absolute), each app/mode's own across runs, {drift}"]
    newest = views[-1]
    ref = reference(newest)
    if ref is None:
        return [f"the newest run {newest.id} has no reference app/mode to divide by (no headline ratio, no "
                f"{GO_REFERENCE}): its figures are judged absolute across runs, {drift}"]
    out = [f"judged relative to {ref} measured in the same run (each app/mode's figure over {ref}'s in run "
           f"{newest.id}), so a drift of the machine that moves both alike cancels; {ref}'s own figures are not "
           "judged (--absolute judges them)"]
    lacking = [h.title for h in FIGURES if h.cells(newest) and _base(h.cells(newest), ref) is None]
    if lacking:
        out.append(f"{ref} has no {', '.join(lacking)} in run {newest.id}: those are judged absolute across "
                   f"runs, {drift}")
    return out
