"""Which warm-up buys a settled Quarkus / Spring Boot ratio soonest on one CPU per app? Three
warm-ups at quick's point (/fruits, 4 connections, 1 CPU, 1 GB), in interleaved rounds:

- continuous: today's continuous load until the steady-state rule holds;
- cycles: cycles of load and pause first, as the Quarkus team's lab warms up on few cores (its
  compiler threads catch up in the pauses), then the rule (`[steady] warmup_cycles`);
- strict-jit: continuous load, with the JIT limit at 25 ms of compilation a second, not 100.

Each round runs, in a seeded order, one small plan per warm-up (Quarkus and Spring Boot, one fresh
launch each, steady only), so that a slow spell of the host lands on every warm-up alike. Printed
per warm-up: each app's launches that reached steady state (and those whose app the lab saw held back
from its CPU: a busy host), its median time to steady state and the launch-to-launch CV of its throughput, the
round-to-round sd of ln(Quarkus / Spring Boot), and the minutes of launches a ratio settled to
+-10 % would need (the rounds the lab's rule needs at that spread, times a round's launches).

    .venv/bin/python bench/warmup.py ROUNDS [--seed 1]
    .venv/bin/python bench/warmup.py --runs RUN [RUN ...]   # only summarise runs already made

Nothing else may run on the machine meanwhile. A benchmark: it prints figures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from perflab import results, rounds
from perflab.analysis import ratios_ci
from perflab.migrate import open_store
from perflab.paths import REPO_ROOT

PAIR = ("quarkus/jvm", "spring-boot/jvm")
VARIANTS = {
    "continuous": "",
    "cycles": "warmup_cycles = 3\ncycle_load_s = 10\ncycle_pause_s = 10\n",
    "strict-jit": "max_jit_ms_per_s = 25\n",
}


def plan_text(variant: str) -> str:
    return f'''name = "warmup-{variant}"
description = "bench/warmup.py: one fresh launch of Quarkus and Spring Boot at quick's point, warm-up {variant}"
apps = ["quarkus", "spring-boot"]
modes = ["main"]
scenarios = ["steady"]
[rounds]
target = 0
max_rounds = 1
[limits]
cpus = 1
memory_mb = 1024
[steady]
launches = 1
points = [{{ path = "/fruits", connections = 4 }}]
warmup_max_s = 120
window = 10
precision = 0.05
measure_max_s = 30
{VARIANTS[variant]}'''


def run_variant(folder: Path, variant: str) -> str | None:
    path = folder / f"warmup-{variant}.toml"
    path.write_text(plan_text(variant))
    before = {r["id"] for r in open_store().runs()}
    subprocess.run([str(REPO_ROOT / "perflab"), "run", str(path), "--yes"], check=False, stdout=subprocess.DEVNULL)
    new = [r["id"] for r in open_store().runs() if r["id"] not in before]
    return new[0] if new else None


def summarise(run_ids: list[str]) -> None:
    store = open_store()
    by_variant: dict[str, list[results.RunView]] = {}
    for run_id in run_ids:
        view = results.load(store, run_id)
        if view is not None and view.plan.get("name", "").startswith("warmup-"):
            by_variant.setdefault(view.plan["name"].removeprefix("warmup-"), []).append(view)
    print(f"{'warm-up':12} {'app':16} {'launches':>8} {'steady':>6} {'held back':>9} {'to steady s':>12} "
          f"{'req/s':>9} {'CV':>6} {'launch s':>9}")
    for variant, views in by_variant.items():
        logs, launch_s = [], []
        for label in PAIR:
            app, mode = label.split("/")
            ttss = [c.values[0] / 1000 for v in views for c in v.find("steady", "time_to_steady_ms")
                    if c.app == app and c.mode == mode]
            cells = [c for v in views for c in v.find("steady", "rps") if c.app == app and c.mode == mode]
            rps = [c.values[0] for c in cells]
            steady = sum(1 for c in cells if "not-steady" not in c.value_flags[0])
            held = sum(1 for c in cells if "held-back" in c.value_flags[0])
            took = [v.finished_at - v.started_at for v in views if v.finished_at]
            cv = statistics.stdev(rps) / statistics.mean(rps) if len(rps) > 1 else math.nan
            print(f"{variant:12} {label:16} {len(rps):>8} {steady:>6} {held:>9} "
                  f"{statistics.median(ttss) if ttss else math.nan:>12.1f} "
                  f"{statistics.median(rps) if rps else math.nan:>9,.0f} {cv:>6.1%} "
                  f"{statistics.mean(took) / 2 if took else math.nan:>9.0f}")
            launch_s += took
        for v in views:
            q = [c.values[0] for c in v.find("steady", "rps") if f"{c.app}/{c.mode}" == PAIR[0]]
            s = [c.values[0] for c in v.find("steady", "rps") if f"{c.app}/{c.mode}" == PAIR[1]]
            if q and s:
                logs.append(math.log(q[0] / s[0]))
        if len(logs) >= 2:
            sd = statistics.stdev(logs)
            need = rounds.least_rounds(0.10)
            planned = ratios_ci.rounds_needed(sd, 0.10, least=need, df=len(logs) - 1)
            per_round = statistics.mean(launch_s) if launch_s else math.nan
            print(f"{variant:12} ratio: {math.exp(statistics.mean(logs)):.2f}x, round-to-round sd {sd:.3f} "
                  f"({len(logs)} rounds); to settle +-10 %: about {planned} rounds, "
                  f"{(planned or math.nan) * per_round / 60:.0f} min of launches")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rounds", nargs="?", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", nargs="*", default=[])
    args = ap.parse_args(argv)
    made = list(args.runs)
    order = rounds.orders(args.seed, list(VARIANTS), args.rounds)
    with tempfile.TemporaryDirectory(prefix="perflab-warmup-") as tmp:
        for n, variants in enumerate(order, 1):
            for variant in variants:
                print(f"round {n}/{args.rounds}: {variant}", file=sys.stderr, flush=True)
                run_id = run_variant(Path(tmp), variant)
                if run_id:
                    made.append(run_id)
    summarise(made)
    return 0


if __name__ == "__main__":
    sys.exit(main())
