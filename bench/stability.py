"""How stable perflab's headline figures are: for two runs of the same plan (default: the last two
runs of `quick`), each app/mode's steady-state throughput with its launch-to-launch CV, and how
much the Quarkus / Spring Boot throughput ratio moved from one run to the other.

    .venv/bin/python bench/stability.py [RUN_A RUN_B] [--plan quick]

Targets (the lab's promise): launch-to-launch CV <= 5 % for every JVM app, and the ratio of the
two runs within 10 % of each other. Apps that do not run on a JVM (the Go reference, native
modes) are listed apart as references: the target is not theirs. Two runs measured with
different methods (plan, limits, topology, versions) are refused: their drift would be the
method's. This is a benchmark: it prints figures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import sys

from perflab import results
from perflab.headline import cells as headline_cells, runs_on_jvm
from perflab.migrate import open_store
from perflab.scenarios.steady_report import STABLE_CV, launch_states

PAIR = ("quarkus/jvm", "spring-boot/jvm")
RATIO_DRIFT = 0.10  # the two runs' Quarkus / Spring Boot ratios within 10 % of each other


def headline(view: results.RunView) -> dict[str, results.Cell]:
    return headline_cells(view)


def line(view: results.RunView, c: results.Cell) -> str:
    s = c.summary
    states = launch_states(view, c.target, c.point)
    unsteady = [x for x in states if not x.steady]
    if runs_on_jvm(view, c.target):
        mark = "ok" if s.n > 1 and s.cv <= STABLE_CV and not unsteady else "MISS"
    else:
        mark = "reference"
    steady = f"steady {len(states) - len(unsteady)}/{len(states)}"
    flags = f" [{', '.join(sorted(c.flags))}]" if c.flags else ""
    return f"  {c.target:<26} {s.median:>10,.0f} req/s  launches {s.n}  {steady}  CV {s.cv:6.1%}  {mark}{flags}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="two run ids (default: the last two runs of --plan)")
    parser.add_argument("--plan", default="quick")
    args = parser.parse_args(argv)
    store = open_store()
    ids = args.runs or [r["id"] for r in store.runs() if r["plan_name"] == args.plan and r["status"] == "complete"][:2][::-1]
    if len(ids) != 2:
        print(f"need two complete runs of {args.plan} (found {len(ids)}); run ./perflab {args.plan} twice", file=sys.stderr)
        return 2
    views = [results.load(store, i) for i in ids]
    missing = [i for i, v in zip(ids, views) if v is None]
    if missing:
        print(f"no stored run {', '.join(missing)}: see ./perflab results list", file=sys.stderr)
        return 2
    if views[0].method_hash != views[1].method_hash:
        print(f"runs {views[0].id} and {views[1].id} were measured with different methods (method "
              f"{views[0].method_hash} vs {views[1].method_hash}: plan, limits, topology or versions differ); their "
              f"drift would be the method's, not the lab's: give two runs of the same plan on this machine",
              file=sys.stderr)
        return 2
    print(f"target: launch-to-launch CV of steady throughput <= {STABLE_CV:.0%} for JVM apps (others: reference); "
          f"the Quarkus / Spring Boot ratio within {RATIO_DRIFT:.0%} between the runs")
    ratios = []
    for view in views:
        cells = headline(view)
        print(f"run {view.id} ({view.plan.get('name')}, method {view.method_hash})")
        for jvm in (True, False):
            for target, c in cells.items():
                if runs_on_jvm(view, target) == jvm:
                    print(line(view, c))
        if all(t in cells for t in PAIR):
            ratio = cells[PAIR[0]].summary.median / cells[PAIR[1]].summary.median
            ratios.append(ratio)
            print(f"  {PAIR[0]} / {PAIR[1]} = {ratio:.2f}x")
    if len(ratios) == 2:
        drift = abs(ratios[1] / ratios[0] - 1)
        print(f"ratio drift between the runs: {drift:.1%} ({'ok' if drift <= RATIO_DRIFT else 'MISS'}, "
              f"target <= {RATIO_DRIFT:.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
