"""The lines beside a run's headline ratios: the figures behind them, what would settle them, a published one."""

from __future__ import annotations

import statistics

from perflab.analysis import ratios_ci, stats
from perflab.report.ratio_findings import RatioFinding
from perflab.results import RunView
from perflab.scenarios.steady_report import PUBLISHED_GAP, PUBLISHED_GAP_CONDITIONS, against_sweep


def behind_lines(view: RunView, ratios: list[RatioFinding]) -> list[str]:
    """The figures behind the throughput ratios: each app/mode's req/s, its marks, and the sweep beside it."""
    seen, out = set(), []
    swept = {(x.steady.target, x.steady.point): x for x in against_sweep(view)}
    for r in ratios:
        if not r.what.startswith("throughput"):
            continue
        for cell in (r.a, r.b):
            if cell.target in seen:
                continue
            seen.add(cell.target)
            flagged = sorted(cell.flags & {"host-slow", "held-back", "contended", "driver-bound", "errors"})
            steady, warming = cell.steady_values(), cell.warming_values()
            if steady:
                s = stats.summarize(steady)
                out.append(f"{cell.target}: {s.median:,.0f} req/s median [{s.min:,.0f}-{s.max:,.0f}], CV {s.cv:.1%}, "
                           f"{s.n} steady launch(es)")
            else:
                out.append(f"{cell.target}: no launch reached steady state")
            if warming:
                out[-1] += (f"; still warming up: {len(warming)} launch(es), {statistics.median(warming):,.0f} req/s "
                            f"median [{min(warming):,.0f}-{max(warming):,.0f}] (not steady-state figures)")
            out[-1] += f"; marks: {', '.join(flagged)}" if flagged else ""
            if (x := swept.get((cell.target, cell.point))) is not None:
                out[-1] += (f"; the sweep at this point: {x.sweep.summary.median:,.0f} req/s ({x.apart:+.0%}), one "
                            f"long-lived instance against fresh launches of at most {x.warmup_max_s:.0f} s warm-up")
    return out


def _added_round_s(rec: dict, labels: tuple[str, str]) -> float | None:
    """What a round of just these two app/modes took in this run (the median of each one's launches,
    added): the round the lab adds to settle their ratio, not a planned round of every app/mode."""
    took: dict[str, list[float]] = {}
    for launch in rec.get("launches") or []:
        if launch.get("took_s"):
            took.setdefault(launch["label"], []).append(launch["took_s"])
    if not all(took.get(label) for label in labels):
        return None
    return sum(statistics.median(took[label]) for label in labels)


def advice_lines(view: RunView, ratios: list[RatioFinding]) -> list[str]:
    """For each unsettled throughput ratio, the rounds (and about the time) that would settle it."""
    rec = view.rounds or {}
    seconds = rec.get("round_s") or []
    done = rec.get("rounds") or len(seconds)
    out = []
    for r in ratios:
        if r.settled or r.interval is None or not r.what.startswith("throughput"):
            continue
        need = r.rounds_needed
        if need is None:
            out.append(f"{r.numerator} / {r.denominator} {r.what}: no affordable number of rounds reaches "
                       f"+-{r.target:.0%} at the spread measured")
            continue
        added = _added_round_s(rec, (r.numerator, r.denominator))
        if added:
            cost = (f" (about {max(0, need - done) * added / 60:.0f} min more: a round of {r.numerator} and "
                    f"{r.denominator} takes about {added / 60:.1f} min here; --budget gives a run the time)")
        elif seconds:
            cost = f" (about {need * statistics.mean(seconds) / 60:.0f} min of rounds at this run's pace)"
        else:
            cost = ""
        out.append(f"to settle {r.numerator} / {r.denominator} {r.what} to +-{r.target:.0%}: about {need} rounds{cost}, from "
                   f"the round-to-round spread measured (sd of the log ratio {r.interval.sd_log:.3f}, planned at its "
                   f"80 % upper limit {ratios_ci.sd_upper(r.interval.sd_log, r.interval.df):.3f}: "
                   f"{r.interval.df:.0f} degrees of freedom)")
    return out


def published_line(view: RunView, ratios: list[RatioFinding]) -> str:
    """The Quarkus team's published throughput ratio beside ours, with the differences of conditions."""
    for r in ratios:
        if (r.numerator, r.denominator) == ("quarkus/jvm", "spring-boot/jvm") and r.what.startswith("throughput"):
            conns, cpus = r.a.params.get("connections"), view.plan.get("limits", {}).get("cpus")
            return (f"beside it: the Quarkus team's lab publishes {PUBLISHED_GAP}x for Quarkus / Spring Boot "
                    f"throughput, measured {PUBLISHED_GAP_CONDITIONS}; here {conns} connections on {cpus} CPU(s): "
                    f"other conditions, so a reference, not a check")
    return ""
