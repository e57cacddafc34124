"""How stable perflab's headline figures are: for two runs of the same plan (default: the last two
runs of `quick`), each app/mode's steady-state throughput with its launch-to-launch CV, and how
much the Quarkus / Spring Boot throughput ratio moved from one run to the other.

    .venv/bin/python bench/stability.py [RUN_A RUN_B] [--plan quick]

Targets (the lab's promise): launch-to-launch CV <= 5 % for every JVM app, and the ratio of the
two runs within 10 % of each other. This is a benchmark: it prints figures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import sys

from perflab import results
from perflab.store import Store

PAIR = ("quarkus/jvm", "spring-boot/jvm")


def headline(view: results.RunView) -> dict[str, results.Cell]:
    return {c.target: c for c in view.find("steady", "rps") if not c.params.get("open_loop")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="two run ids (default: the last two runs of --plan)")
    parser.add_argument("--plan", default="quick")
    args = parser.parse_args(argv)
    store = Store()
    ids = args.runs or [r["id"] for r in store.runs() if r["plan_name"] == args.plan and r["status"] == "complete"][:2][::-1]
    if len(ids) != 2:
        print(f"need two complete runs of {args.plan} (found {len(ids)}); run ./perflab {args.plan} twice", file=sys.stderr)
        return 2
    views = [results.load(store, i) for i in ids]
    ratios = []
    for view in views:
        cells = headline(view)
        print(f"run {view.id} ({view.plan.get('name')}, method {view.method_hash})")
        for target, c in cells.items():
            s = c.summary
            mark = "ok" if s.n > 1 and s.cv <= 0.05 else "MISS"
            flags = f" [{', '.join(sorted(c.flags))}]" if c.flags else ""
            print(f"  {target:<26} {s.median:>10,.0f} req/s  launches {s.n}  CV {s.cv:6.1%}  {mark}{flags}")
        if all(t in cells for t in PAIR):
            ratio = cells[PAIR[0]].summary.median / cells[PAIR[1]].summary.median
            ratios.append(ratio)
            print(f"  {PAIR[0]} / {PAIR[1]} = {ratio:.2f}x")
    if len(ratios) == 2:
        drift = abs(ratios[1] / ratios[0] - 1)
        print(f"ratio drift between the runs: {drift:.1%} ({'ok' if drift <= 0.10 else 'MISS'}, target <= 10 %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
