"""An A/A check of the lab's intervals on this machine: the same build measured against a copy of
itself (`--aa APP`), run after run, and how often the headline interval excludes the true ratio,
1.00. A 95 % interval should exclude it in about 5 % of runs; far more means the intervals claim a
precision this machine does not give (or a launch order that favours one side).

    .venv/bin/python bench/aa.py N [--app go-reference] [--plan quick] [--metric throughput]
    .venv/bin/python bench/aa.py --runs RUN [RUN ...]      # only count runs already made

Each run is `./perflab run PLAN --aa APP --yes`: nothing else may run on the machine meanwhile.
A benchmark: it prints figures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys

from scipy import stats as sps

from perflab import results
from perflab.migrate import open_store
from perflab.paths import REPO_ROOT
from perflab.report import findings
from perflab.store import Store


def intervals(store: Store, run_ids: list[str], metric: str) -> list[tuple[str, findings.RatioFinding]]:
    out = []
    for run_id in run_ids:
        view = results.load(store, run_id)
        found = [r for r in findings.ratio_findings(view) if r.what.startswith(metric) and r.interval is not None]
        out += [(view.id, r) for r in found if r.denominator.split("/")[0].endswith("-aa")]
    return out


def run_once(plan: str, app: str) -> str | None:
    """One A/A run; its id (None when it failed)."""
    before = {r["id"] for r in open_store().runs()}
    subprocess.run([str(REPO_ROOT / "perflab"), "run", plan, "--aa", app, "--yes"], check=False,
                   stdout=subprocess.DEVNULL)
    new = [r["id"] for r in open_store().runs() if r["id"] not in before]
    return new[0] if new else None


def report(rows: list[tuple[str, findings.RatioFinding]]) -> None:
    excluded = 0
    for run_id, r in rows:
        ci = r.interval
        out = not ci.contains(1.0)
        excluded += out
        print(f"{run_id}  {r.numerator} / {r.denominator} {r.what}: {ci.estimate:.3f} [{ci.low:.3f}-{ci.high:.3f}] "
              f"({ci.n} {'rounds' if ci.paired else 'a side'}){'  EXCLUDES 1' if out else ''}")
    n = len(rows)
    if not n:
        print("no A/A interval found")
        return
    low, high = sps.binomtest(excluded, n).proportion_ci(0.95)
    p = sps.binomtest(excluded, n, 0.05, alternative="greater").pvalue
    print(f"{excluded} of {n} intervals exclude 1.00: {excluded / n:.1%} (95 % interval {low:.1%}-{high:.1%}) "
          f"against the 5 % promised; P(at least {excluded} | 5 %) = {p:.3f}"
          + ("" if math.isfinite(p) else ""))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=0, help="runs to make")
    ap.add_argument("--app", default="go-reference")
    ap.add_argument("--plan", default="quick")
    ap.add_argument("--metric", default="throughput", help="which headline ratio: throughput, time, RSS")
    ap.add_argument("--runs", nargs="*", default=[], help="count these runs too (ids or prefixes)")
    args = ap.parse_args(argv)
    made = list(args.runs)
    for i in range(args.n):
        print(f"A/A run {i + 1}/{args.n} ...", file=sys.stderr, flush=True)
        run_id = run_once(args.plan, args.app)
        if run_id:
            made.append(run_id)
    report(intervals(open_store(), made, args.metric))
    return 0


if __name__ == "__main__":
    sys.exit(main())
