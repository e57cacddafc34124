"""What the lab's own instruments cost the apps it measures, from A/B runs of the lab: the same
plan (quick's steady point by default) run alternately with the instrument off (A) and on (B), in
pairs whose order alternates so a host that drifts touches both sides alike; then per app/mode the
throughput and p99 of each side with their spread over the pairs, and B/A per pair with its range.
Figures come from the store (run ids printed), never from the command's output.

    .venv/bin/python bench/own_cost.py profiling  [--pairs 3] [--apps quarkus spring-boot] [--short]
    .venv/bin/python bench/own_cost.py statements [--pairs 3] [--apps quarkus spring-boot] [--short]

- profiling: the profiler (`--profile`: JFR on JVM modes, pprof on the Go reference) off and on.
  Profiling stays opt-in unless B/A of throughput is within 3 % for every app.
- statements: pg_stat_statements, loaded into the lab's private PostgreSQL for every run, whose
  bookkeeping takes database CPU on the CPU the database shares with the load driver: loaded (A)
  and not (B, PERFLAB_STATEMENT_STATS=off). Above 2 % of any app's throughput, statement counting
  belongs in the profiling pass only.

A benchmark: it prints figures and their run ids and asserts nothing. --short (one launch of a few
seconds) only checks that it runs: no figure from it means anything. The plan's steady launches
run app after app here, not in quick's interleaved rounds.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from perflab import plan as plans  # noqa: E402
from perflab.migrate import open_store  # noqa: E402
from perflab.postgres import STATEMENT_STATS_ENV  # noqa: E402

METRICS = (("rps", "req/s"), ("latency_p99_ms", "p99 ms"))


def steady_plan(base: str, apps: list[str] | None, short: bool) -> dict:
    """The base plan's steady scenario alone (its point, launches and rules); `short`: one launch,
    a few seconds of warm-up and measurement, only to check the benchmark runs end to end."""
    data = {k: v for k, v in plans.load(base).data.items()}
    data.update({"name": f"{data['name']}-ab", "scenarios": ["steady"], "mode_scenarios": {},
                 "rounds": {**data["rounds"], "interleave": False}})
    if apps:
        data["apps"] = apps
    if short:
        data["steady"] = {**data["steady"], "launches": 1, "warmup_max_s": 5.0, "measure_max_s": 3.0, "window": 3,
                          "points": [p for p in data["steady"]["points"] if p.get("measure", True)][-1:]}
    return data


def _toml(value) -> str:
    """A TOML value (JSON's string escapes are TOML's too)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items() if v is not None) + "}"


def write_plan(data: dict, folder: Path) -> Path:
    lines = []
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    for key, value in data.items():
        if key not in tables and value is not None:
            lines.append(f"{key} = {_toml(value)}")
    for key, table in tables.items():
        lines.append(f"\n[{key}]")
        lines += [f"{json.dumps(k)} = {_toml(v)}" for k, v in table.items() if v is not None]
    path = folder / f"{data['name']}.toml"
    path.write_text("\n".join(lines) + "\n")
    tomllib.loads(path.read_text())  # written as TOML the plan loader reads
    return path


def run(plan_path: Path, extra_args: list[str], env: dict[str, str]) -> str:
    """One run of the lab; returns its run id (the newest stored run after it)."""
    subprocess.run([str(ROOT / "perflab"), "run", str(plan_path), *extra_args], cwd=ROOT, env={**os.environ, **env},
                   check=False)
    last = open_store().run("last")
    if last is None:
        raise SystemExit("the lab stored no run")
    return last["id"]


@dataclass
class Side:
    name: str
    runs: list[str]


def figures(run_id: str) -> dict[tuple[str, str], float]:
    """(app/mode, metric) -> the median over the run's launches of its headline steady figures, at
    the closed-loop point only: the open-loop point is offered half of each side's own throughput,
    so its figures differ with the instrument's cost by design and would hide it."""
    store = open_store()
    found: dict[tuple[str, str], list[float]] = {}
    for f in store.figures(run_id):
        if f.scenario == "steady" and f.metric in dict(METRICS) and not f.extra.get("warmup_only") \
                and "open loop" not in f.point:
            found.setdefault((f"{f.app}/{f.mode}", f.metric), []).append(f.value)
    return {k: statistics.median(v) for k, v in found.items()}


def compare(a: Side, b: Side) -> list[str]:
    """Per app/mode and metric: each side's mean over its runs [min-max], and B/A per pair with its range."""
    fa, fb = [figures(r) for r in a.runs], [figures(r) for r in b.runs]
    keys = sorted({k for f in fa + fb for k in f})
    lines = [f"A = {a.name}: runs {', '.join(a.runs)}", f"B = {b.name}: runs {', '.join(b.runs)}", "",
             f"{'app/mode':<26} {'figure':<8} {'A mean [min-max]':>26} {'B mean [min-max]':>26} {'B/A per pair':>24}"]
    for key in keys:
        va = [f[key] for f in fa if key in f]
        vb = [f[key] for f in fb if key in f]
        ratios = [y / x for x, y in zip((f.get(key) for f in fa), (f.get(key) for f in fb)) if x and y]
        side = lambda v: f"{statistics.mean(v):,.1f} [{min(v):,.1f}-{max(v):,.1f}]" if v else "-"  # noqa: E731
        ratio = (f"{statistics.mean(ratios):.3f} [{min(ratios):.3f}-{max(ratios):.3f}]" if ratios else "-")
        lines.append(f"{key[0]:<26} {dict(METRICS)[key[1]]:<8} {side(va):>26} {side(vb):>26} {ratio:>24}")
    return lines


# instrument -> (A's name, B's name, A's extra arguments and environment, B's)
INSTRUMENTS = {
    "profiling": ("profiling off", "profiling on (--profile)", ([], {}), (["--profile"], {})),
    "statements": ("pg_stat_statements loaded", "pg_stat_statements off", ([], {STATEMENT_STATS_ENV: "on"}),
                   ([], {STATEMENT_STATS_ENV: "off"})),
}


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("instrument", choices=sorted(INSTRUMENTS))
    p.add_argument("--plan", default="quick", help="the plan whose steady point is run (default quick)")
    p.add_argument("--apps", nargs="*", help="only these apps (default: the plan's)")
    p.add_argument("--pairs", type=int, default=3, help="A/B pairs of runs (default 3)")
    p.add_argument("--short", action="store_true", help="one launch of a few seconds: only to check it runs")
    args = p.parse_args(argv)
    a_name, b_name, a_how, b_how = INSTRUMENTS[args.instrument]
    a, b = Side(a_name, []), Side(b_name, [])
    with tempfile.TemporaryDirectory(prefix="perflab-ab-") as tmp:
        plan_path = write_plan(steady_plan(args.plan, args.apps, args.short), Path(tmp))
        for n in range(args.pairs):
            order = [(a, a_how), (b, b_how)] if n % 2 == 0 else [(b, b_how), (a, a_how)]
            for side, (extra, env) in order:  # neither side always runs second
                side.runs.append(run(plan_path, extra, env))
    print("\n".join(compare(a, b)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
