"""Which steady-state rule? Stored timelines replayed through variants of the rule, offline.

Each stored steady timeline (one launch at one point, every 1-s interval from the first loaded one)
is fed interval by interval to `perflab.analysis.steadystate.judge` under each variant, as the
warm-up loop feeds it; where the launch kept its JIT trace, the JIT must also be under the rule's
100 ms/s. The first interval at which a variant calls the launch steady is its time to steady; the
"level" is then the mean throughput of the two windows that made the verdict and the MEASURE
intervals after them (as the lab measures: the windows are measured intervals). A
variant is better when more launches are steady sooner, and its levels agree no worse between launches
of one app/mode (launch-to-launch CV) or between rounds (the round-to-round sd of ln(A / B) for the
pair given). A level needs MEASURE intervals after the verdict: a timeline the lab stopped soon after
its own verdict gives none for a later one, so only runs with a fixed warm-up (bench/steady_onecpu.py)
compare every variant.

    .venv/bin/python bench/steady_rules.py RUN... [--point "fruits c=4"] [--pair quarkus/jvm:spring-boot/jvm]
        [--limit 120]

Reads the results store only; runs nothing. A benchmark: it prints figures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from perflab.analysis.steadystate import Rule, judge
from perflab.migrate import open_store
from perflab.present.timelines import TimelineRow, read_timeline

MEASURE = 10          # intervals measured after the verdict
JIT_LIMIT = 100.0     # ms of compilation a second: the rule's limit for JVM modes

NOW = Rule(window=10, max_cv=0.10, max_trend=0.02, precision=0.05, max_step=0.075)


@dataclass(frozen=True)
class Variant:
    name: str
    rule: Rule
    bin_s: int = 1    # intervals merged into one value before judging (5: 5-s means)


VARIANTS = (
    Variant("today: 10 x 1 s, spread <= 10 %", NOW),
    Variant("no spread gate (trend, climb and level only)", replace(NOW, max_cv=math.inf)),
    Variant("spread <= 20 %", replace(NOW, max_cv=0.20)),
    Variant("20 x 1 s windows", replace(NOW, window=20)),
    Variant("6 x 5-s means", replace(NOW, window=6), bin_s=5),
)


@dataclass
class Launch:
    label: str
    round: int
    rps: list[float]
    t_s: list[float]
    jit: list[tuple[float, float]]  # (t_s, compile ms/s) from the launch's trace, when kept
    boosted: int = 0                # intervals of a warm-up boost on every CPU: the rule is watched after them


def _quiet(launch: Launch, t_s: float) -> bool:
    """The JIT under its limit at t_s: the last trace reading before it (no trace: not judged)."""
    before = [rate for t, rate in launch.jit if t <= t_s]
    return not launch.jit or (bool(before) and before[-1] <= JIT_LIMIT)


def steady_at(launch: Launch, variant: Variant, limit_s: float) -> int | None:
    """The index of the interval after which the variant calls the launch steady, within limit_s."""
    for end in range(1, len(launch.rps) + 1):
        if launch.t_s[end - 1] > limit_s:
            return None
        if (end - launch.boosted) % variant.bin_s:
            continue
        if end <= launch.boosted:
            continue
        values = [statistics.mean(launch.rps[i:i + variant.bin_s]) for i in range(launch.boosted, end, variant.bin_s)]
        if judge(values, variant.rule).steady and _quiet(launch, launch.t_s[end - 1]):
            return end
    return None


def collect(run_ids: list[str], point: str) -> list[Launch]:
    store = open_store()
    out = []
    for run_id in run_ids:
        row = store.run(run_id)
        if row is None:
            raise SystemExit(f"no run {run_id}")
        extras = {(f"{f.app}/{f.mode}", f.repeat): f.extra for f in store.figures(row["id"])
                  if f.scenario == "steady" and f.metric == "rps" and f.point == point}
        for f in store.files(row["id"]):
            if f["kind"] != "timeline":
                continue
            path = Path(f["path"])
            path = path if path.is_absolute() else store.path.parent / path
            rows: list[TimelineRow] = sorted((r for r in read_timeline(path) if r.point == point), key=lambda r: r.t_s)
            if not rows:
                continue
            label = f"{f['app']}/{f['mode']}"
            extra = extras.get((label, rows[0].launch), {})
            trace = extra.get("jit_trace") or []
            jit = [(t["t_s"], t["compile_ms_per_s"]) for t in trace
                   if t.get("t_s") is not None and t.get("compile_ms_per_s") is not None]
            out.append(Launch(f"{run_id[-4:]} {label}", rows[0].launch, [r.rps for r in rows],
                              [r.t_s for r in rows], jit, (extra.get("boost") or {}).get("intervals", 0)))
    return out


def _cv(values: list[float]) -> float | None:
    return statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else None


def _f(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--point", default="fruits c=4")
    ap.add_argument("--pair", default="quarkus/jvm:spring-boot/jvm")
    ap.add_argument("--limit", type=float, default=120.0, help="the warm-up's maximum, s from launch")
    args = ap.parse_args(argv)
    launches = collect(args.runs, args.point)
    if not launches:
        print(f"no timelines at {args.point} in {', '.join(args.runs)}")
        return 1
    a, b = args.pair.split(":")
    print(f"{len(launches)} launches at {args.point}, warm-up limit {args.limit:g} s, level = mean of the "
          f"two windows of the verdict and the {MEASURE} intervals after them")
    for variant in VARIANTS:
        print(f"\n{variant.name}")
        levels: dict[tuple[str, int], float] = {}
        for label in sorted({x.label for x in launches}):
            mine = [x for x in launches if x.label == label]
            times, got = [], []
            for x in mine:
                end = steady_at(x, variant, args.limit)
                if end is None:
                    continue
                times.append(x.t_s[end - 1])
                span = x.rps[max(0, end - 2 * variant.rule.window * variant.bin_s):end + MEASURE]
                if len(x.rps) >= end + MEASURE:
                    got.append(statistics.mean(span))
                    levels[(label, x.round)] = got[-1]
            print(f"  {label:30} steady {len(times)}/{len(mine)}, median at "
                  f"{_f(statistics.median(times) if times else None, '.0f')} s; level "
                  f"{_f(statistics.median(got) if got else None, ',.0f')} req/s, CV {_f(_cv(got), '.1%')} "
                  f"({len(got)} levels)")
        runs = sorted({x.label.split()[0] for x in launches})
        logs = [math.log(levels[(f"{r} {a}", n)] / levels[(f"{r} {b}", n)]) for r in runs
                for n in sorted({x.round for x in launches})
                if (f"{r} {a}", n) in levels and (f"{r} {b}", n) in levels]
        if logs:
            print(f"  {a} / {b}: {math.exp(statistics.mean(logs)):.2f}x over {len(logs)} rounds with both steady, "
                  f"round-to-round sd of the log {_f(statistics.stdev(logs) if len(logs) > 1 else None, '.3f')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
