"""What does it take for a JVM on one CPU to be steady? Quarkus and Spring Boot at quick's point
(/fruits, 4 connections, the app on 1 CPU with 1 GB), fresh launches in interleaved rounds, each
loaded without a pause for a fixed warm-up (`--fixed`, the steady-state rule not watched before it)
with the JIT's and GC's counters read every 5 s throughout (steady's jit_trace), then the rule (at
most `--max` seconds in all), then measured as quick measures.

Printed per launch: when the JIT became quiet for good (its compile time under 100 ms a second, the
rule's limit, and under 25 ms; "-" when it never did within the warm-up), the throughput and the
app's CPU per request over the 10 s before 120 and 180 s and the end of the fixed warm-up and after the JIT fell quiet, the
1-s intervals' CV over the warm-up's last minute, the compiled methods thrown away again
(deoptimizations, `sun.ci.totalInvalidates`), GC time a second once quiet, and what the rule then
said. Per app: the launch-to-launch CV of throughput at each checkpoint; per round: ln(Quarkus /
Spring Boot) at each checkpoint and its round-to-round sd.

    .venv/bin/python bench/steady_onecpu.py LAUNCHES [--fixed 300] [--max 600] [--seed 1] [--boost 60]
    .venv/bin/python bench/steady_onecpu.py --runs RUN   # only summarise a run already made

A launch takes about --fixed seconds plus its start and measurement: 6 launches of each app at
300 s take about 75 minutes. Nothing else may run on the machine meanwhile. A benchmark: it
prints figures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from scipy.stats import spearmanr

from perflab.migrate import open_store
from perflab.paths import REPO_ROOT
from perflab.present.timelines import TimelineRow, read_timeline

PAIR = ("quarkus/jvm", "spring-boot/jvm")
POINT = "fruits c=4"
def checkpoints(fixed_s: float) -> tuple[float, ...]:
    """120 s and 180 s after launch, and the end of the fixed warm-up."""
    return tuple(sorted({120.0, 180.0, fixed_s}))
WINDOW_S = 10.0
QUIET = (100.0, 25.0)  # ms of compilation a second: the rule's limit, and a stricter one


def plan_text(launches: int, fixed_s: float, max_s: float, seed: int, boost_s: float = 0.0) -> str:
    return f'''name = "steady-onecpu"
description = "bench/steady_onecpu.py: Quarkus and Spring Boot at quick's point, {fixed_s:g} s fixed warm-up\
{f", the first {boost_s:g} s of it on every CPU" if boost_s else ""}"
apps = ["quarkus", "spring-boot"]
modes = ["main"]
scenarios = ["steady"]
[rounds]
target = 0
max_rounds = {launches}
seed = {seed}
[limits]
cpus = 1
memory_mb = 1024
[steady]
launches = {launches}
points = [{{ path = "/fruits", connections = 4 }}]
warmup_min_s = {fixed_s}
warmup_max_s = {max_s}
jit_trace = true
canary_every_s = 1
warmup_boost_s = {boost_s}
window = 10
precision = 0.05
measure_max_s = 30
'''


@dataclass
class Launch:
    label: str
    launch: int
    quiet_s: dict[str, float | None] = field(default_factory=dict)   # "100", "25" -> seconds from launch
    rps: dict[str, float | None] = field(default_factory=dict)       # checkpoint ("120", ..., "quiet25") -> req/s
    cpu_ms: dict[str, float | None] = field(default_factory=dict)    # the app's CPU ms per request there
    last_minute_cv: float | None = None
    invalidated: int | None = None
    gc_ms_per_s_quiet: float | None = None
    steady: bool = False
    why: str = ""
    measured_rps: float | None = None
    chain_ms: float | None = None            # the canary's chain on the app's CPU, median through the launch
    chain_range: float | None = None         # its 90th / 10th percentile - 1 after 60 s
    chain_rho: float | None = None           # Spearman's rho of 10-s CPU per request against 10-s chain time
    cpu_range: float | None = None           # the app's CPU per request, 90th / 10th percentile - 1 of 10-s windows


def quiet_from(trace: list[dict], limit: float) -> float | None:
    """The start of the first reading after which every reading compiled under `limit` ms/s."""
    last_loud = None
    for i, t in enumerate(trace):
        if t.get("compile_ms_per_s") is None or t["compile_ms_per_s"] > limit:
            last_loud = i
    if last_loud is None:
        return 0.0 if trace else None
    if last_loud == len(trace) - 1:
        return None
    return trace[last_loud].get("t_s")


def window_at(rows: list[TimelineRow], end_s: float) -> tuple[float | None, float | None]:
    """Throughput and CPU ms per request over the intervals ending in (end_s - 10 s, end_s]."""
    got = [r for r in rows if end_s - WINDOW_S < r.t_s <= end_s + 0.5]
    if not got:
        return None, None
    rps = sum(r.requests for r in got) / sum(r.duration_s for r in got)
    shares = [r.app_cpu_share for r in got if r.app_cpu_share is not None]
    cpu = 1000 * statistics.mean(shares) / rps if shares and rps else None
    return rps, cpu


def describe(label: str, launch: int, rows: list[TimelineRow], extra: dict, fixed_s: float) -> Launch:
    out = Launch(label, launch)
    trace = extra.get("jit_trace") or []
    for limit in QUIET:
        out.quiet_s[f"{limit:g}"] = quiet_from(trace, limit)
    warm = [r for r in rows if r.phase == "warmup"]
    for c in checkpoints(fixed_s):
        out.rps[f"{c:g}"], out.cpu_ms[f"{c:g}"] = window_at(warm + [r for r in rows if r.measuring], c)
    q = out.quiet_s.get("25")
    if q is not None:
        out.rps["quiet25"], out.cpu_ms["quiet25"] = window_at(rows, q + WINDOW_S)
        gc = [t["gc_ms_per_s"] for t in trace if (t.get("t_s") or 0) > q and t.get("gc_ms_per_s") is not None]
        out.gc_ms_per_s_quiet = statistics.mean(gc) if gc else None
    minute = [r.rps for r in warm if fixed_s - 60 < r.t_s <= fixed_s + 0.5]
    if len(minute) > 2:
        out.last_minute_cv = statistics.stdev(minute) / statistics.mean(minute)
    inval = [t["invalidated"] for t in trace if t.get("invalidated") is not None]
    out.invalidated = sum(inval) if inval else None
    out.steady, out.why = bool(extra.get("steady")), str(extra.get("why") or "")
    _chain(out, rows, extra.get("canary_pulses") or [])
    return out


def _chain(out: Launch, rows: list[TimelineRow], pulses: list[list[float]]) -> None:
    """Does the app's CPU per request move with the CPU's own speed? 10-s windows from 60 s on (after
    the JIT's first burst): the app's CPU ms per request and the canary chain's median time."""
    if not pulses:
        return
    out.chain_ms = statistics.median(ms for _, ms in pulses)
    pairs = []
    end = 60.0 + WINDOW_S
    while rows and end <= rows[-1].t_s + 0.5:
        _, cpu = window_at(rows, end)
        chain = [ms for t, ms in pulses if end - WINDOW_S < t <= end]
        if cpu is not None and chain:
            pairs.append((cpu, statistics.median(chain)))
        end += WINDOW_S
    if len(pairs) < 5:
        return
    cpus, chains = sorted(c for c, _ in pairs), sorted(c for _, c in pairs)
    decile = lambda xs: xs[int(0.9 * (len(xs) - 1))] / xs[int(0.1 * (len(xs) - 1))] - 1  # noqa: E731
    out.chain_range, out.cpu_range = decile(chains), decile(cpus)
    out.chain_rho = float(spearmanr([c for c, _ in pairs], [c for _, c in pairs]).statistic)


def collect(run_id: str) -> tuple[list[Launch], float]:
    store = open_store()
    row = store.run(run_id)
    if row is None:
        raise SystemExit(f"no run {run_id}")
    plan = json.loads(row["plan_json"]) if "plan_json" in row.keys() else {}
    fixed_s = float((plan.get("steady") or {}).get("warmup_min_s") or 300.0)
    timelines: dict[tuple[str, int], list[TimelineRow]] = {}
    for f in store.files(row["id"]):
        if f["kind"] != "timeline":
            continue
        path = Path(f["path"])
        path = path if path.is_absolute() else store.path.parent / path
        for r in read_timeline(path):
            if r.point == POINT:
                timelines.setdefault((f"{f['app']}/{f['mode']}", r.launch), []).append(r)
    launches = []
    for fig in store.figures(row["id"]):
        if fig.scenario == "steady" and fig.metric == "rps" and fig.point == POINT:
            label = f"{fig.app}/{fig.mode}"
            rows = sorted(timelines.get((label, fig.repeat), []), key=lambda r: r.t_s)
            got = describe(label, fig.repeat, rows, fig.extra, fixed_s)
            got.measured_rps = fig.value
            launches.append(got)
    return launches, fixed_s


def _f(value: float | None, fmt: str) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, fmt)


def cv(values: list[float]) -> float | None:
    return statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else None


def summarise(run_id: str) -> dict:
    launches, fixed_s = collect(run_id)
    keys = [f"{c:g}" for c in checkpoints(fixed_s)] + ["quiet25"]
    print(f"run {run_id}: fixed warm-up {fixed_s:g} s")
    print(f"{'app':16} {'#':>2} {'quiet100':>8} {'quiet25':>7} " + " ".join(f"{'rps@' + k:>11}" for k in keys)
          + " " + " ".join(f"{'cpu@' + k:>10}" for k in keys) + f" {'1s CV':>6} {'deopt':>5} {'gc/s':>5} steady")
    for x in sorted(launches, key=lambda x: (x.label, x.launch)):
        print(f"{x.label:16} {x.launch:>2} {_f(x.quiet_s.get('100'), '8.0f')} {_f(x.quiet_s.get('25'), '7.0f')} "
              + " ".join(f"{_f(x.rps.get(k), '11,.0f')}" for k in keys) + " "
              + " ".join(f"{_f(x.cpu_ms.get(k), '10.3f')}" for k in keys)
              + f" {_f(x.last_minute_cv, '6.1%')} {_f(x.invalidated, '5.0f')} {_f(x.gc_ms_per_s_quiet, '5.1f')} "
              + ("yes" if x.steady else "no: " + x.why[:80]))
    if any(x.chain_ms is not None for x in launches):
        print("the canary's chain on the app's CPU through each launch, against the app's CPU per request "
              "(10-s windows from 60 s on):")
        for x in sorted(launches, key=lambda x: (x.label, x.launch)):
            print(f"  {x.label:16} {x.launch:>2} chain {_f(x.chain_ms, '.3f')} ms, p90/p10 {_f(x.chain_range, '+.1%')}; "
                  f"CPU per request p90/p10 {_f(x.cpu_range, '+.1%')}; Spearman rho {_f(x.chain_rho, '+.2f')}")
    per_app: dict[str, dict] = {}
    for label in PAIR:
        mine = [x for x in launches if x.label == label]
        per_app[label] = {k: cv([x.rps[k] for x in mine if x.rps.get(k)]) for k in keys}
        quiet = [x.quiet_s.get("25") for x in mine]
        print(f"{label}: launch-to-launch CV of throughput " + ", ".join(
            f"at {k}: {_f(per_app[label][k], '.1%')}" for k in keys)
              + f"; JIT quiet (25 ms/s) in {sum(q is not None for q in quiet)} of {len(mine)} launches, median "
              + _f(statistics.median([q for q in quiet if q is not None]) if any(q is not None for q in quiet)
                   else None, '.0f') + " s")
    by_round = {(x.label, x.launch): x for x in launches}
    ratios: dict[str, dict] = {}
    for k in keys:
        logs = [math.log(by_round[(PAIR[0], n)].rps[k] / by_round[(PAIR[1], n)].rps[k])
                for (label, n) in by_round if label == PAIR[0] and (PAIR[1], n) in by_round
                and by_round[(PAIR[0], n)].rps.get(k) and by_round[(PAIR[1], n)].rps.get(k)]
        if logs:
            sd = statistics.stdev(logs) if len(logs) > 1 else None
            ratios[k] = {"ratio": math.exp(statistics.mean(logs)), "sd_log": sd, "rounds": len(logs)}
            print(f"Quarkus / Spring Boot at {k}: {ratios[k]['ratio']:.2f}x, round-to-round sd of the log "
                  f"{_f(sd, '.3f')} ({len(logs)} rounds)")
    return {"run": run_id, "fixed_s": fixed_s, "launches": [asdict(x) for x in launches], "cv": per_app,
            "ratios": ratios}


def run_plan(launches: int, fixed_s: float, max_s: float, seed: int, boost_s: float) -> str | None:
    with tempfile.TemporaryDirectory(prefix="perflab-onecpu-") as tmp:
        path = Path(tmp) / "steady-onecpu.toml"
        path.write_text(plan_text(launches, fixed_s, max_s, seed, boost_s))
        before = {r["id"] for r in open_store().runs()}
        subprocess.run([str(REPO_ROOT / "perflab"), "run", str(path), "--yes"], check=False)
        new = [r["id"] for r in open_store().runs() if r["id"] not in before]
    return new[0] if new else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("launches", nargs="?", type=int, default=0, help="launches of each app")
    ap.add_argument("--fixed", type=float, default=300.0, help="the fixed warm-up, s")
    ap.add_argument("--max", type=float, default=600.0, help="the warm-up's maximum in all, s")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--boost", type=float, default=0.0,
                    help="the first S seconds of the warm-up on every CPU ([steady] warmup_boost_s)")
    ap.add_argument("--runs", nargs="*", default=[])
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    args = ap.parse_args(argv)
    made = list(args.runs)
    if args.launches:
        run_id = run_plan(args.launches, args.fixed, max(args.max, args.fixed), args.seed, args.boost)
        if run_id:
            made.append(run_id)
    found = [summarise(r) for r in made]
    if args.json:
        args.json.write_text(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
