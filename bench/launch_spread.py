"""Why launches of one build differ: for stored runs of one plan (default: every complete run of
`quick` with the method of the newest), each JVM app/mode's steady launches side by side with what
might explain their spread, and how well each explains it.

    .venv/bin/python bench/launch_spread.py [RUN ...] [--plan quick]

Per launch: throughput, the host-speed canary around it (integer chain and pointer chase on the
app's CPU, the mean of the readings before and after), the app's CPU per request, GC ms per
second, JIT compile ms per second during the measurement, compiled methods and compiled code
size at its end, and time to steady state. Then, per app/mode and candidate cause, Spearman's rank
correlation with throughput over all launches (with its p), and the share of the launches'
variance that lies between runs (a host that changed speed between runs shows up there).

A benchmark: it prints figures and asserts nothing. Correlation over a dozen launches is a hint,
not proof; read it beside the timelines.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict

from scipy import stats as sps

from perflab import results
from perflab.headline import cells as headline_cells, runs_on_jvm
from perflab.migrate import open_store
from perflab.store import Store

CAUSES = [("canary_cpu_ms", "canary CPU ms"), ("canary_cache_ms", "canary cache ms"),
          ("app_cpu_ms_per_request", "app CPU ms/req"), ("gc_ms_per_s", "GC ms/s"),
          ("jit_compile_ms_per_s", "JIT ms/s"), ("jit_compiled_methods", "compiled methods"),
          ("jit_code_kb", "code KB"), ("time_to_steady_ms", "to steady ms")]


def launches(store: Store, run_id: str) -> dict[str, dict[int, dict[str, float]]]:
    """target -> launch -> figure -> value, for the headline point of each JVM target."""
    view = results.load(store, run_id)
    heads = headline_cells(view)
    out: dict[str, dict[int, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for f in store.figures(run_id):
        target = f"{f.app}/{f.mode}"
        if target not in heads or not runs_on_jvm(view, target):
            continue
        if f.scenario == "steady" and f.point == heads[target].point:
            out[target][f.repeat][f.metric] = f.value
        elif f.scenario == "canary" and f.metric in ("app_cpu_ms", "app_cache_ms"):
            key = "canary_cpu_ms" if f.metric == "app_cpu_ms" else "canary_cache_ms"
            seen = out[target][f.repeat]
            seen[key] = (seen[key] + f.value) / 2 if key in seen else f.value  # before and after
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="run ids (default: the complete runs of --plan with the newest's method)")
    parser.add_argument("--plan", default="quick")
    args = parser.parse_args(argv)
    store = open_store()
    complete = [r for r in store.runs() if r["plan_name"] == args.plan and r["status"] == "complete"]
    if args.runs:
        ids = args.runs
    else:
        newest = max(complete, key=lambda r: r["started_at"], default=None)
        ids = [r["id"] for r in complete if newest is not None and r["method_hash"] == newest["method_hash"]]
    if not ids:
        print(f"no complete run of {args.plan}: run ./perflab {args.plan} first", file=sys.stderr)
        return 2
    rows: dict[str, list[tuple[str, int, dict[str, float]]]] = defaultdict(list)
    for run_id in sorted(ids):
        for target, by_launch in launches(store, run_id).items():
            rows[target] += [(run_id, n, figs) for n, figs in sorted(by_launch.items()) if "rps" in figs]
    print(f"runs: {', '.join(sorted(ids))}")
    for target, found in sorted(rows.items()):
        print(f"\n{target}: {len(found)} launches")
        print("  run                   launch      req/s  " + "  ".join(f"{label:>15}" for _, label in CAUSES)
              + "  steady")
        for run_id, n, figs in found:
            cells = "  ".join(f"{figs[k]:>15,.4g}" if k in figs else f"{'-':>15}" for k, _ in CAUSES)
            print(f"  {run_id:<22}{n:>6} {figs['rps']:>10,.0f}  {cells}  {'no' if 'time_to_steady_ms' not in figs else 'yes'}")
        rps = [figs["rps"] for _, _, figs in found]
        if len(rps) >= 4:
            cv = statistics.stdev(rps) / statistics.mean(rps)
            by_run = defaultdict(list)
            for run_id, _, figs in found:
                by_run[run_id].append(figs["rps"])
            means = [statistics.mean(v) for v in by_run.values()]
            grand = statistics.mean(rps)
            between = sum(len(v) * (m - grand) ** 2 for v, m in zip(by_run.values(), means))
            total = sum((x - grand) ** 2 for x in rps)
            print(f"  throughput CV over launches {cv:.1%}; share of its variance between runs "
                  f"{between / total if total else 0:.0%} ({len(by_run)} runs)")
            for key, label in CAUSES:
                pairs = [(figs["rps"], figs[key]) for _, _, figs in found if key in figs]
                if len(pairs) >= 4:
                    rho, p = sps.spearmanr(*zip(*pairs))
                    print(f"    {label:<18} Spearman rho {rho:+.2f} (p {p:.3f}, {len(pairs)} launches)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
