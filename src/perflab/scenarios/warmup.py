"""Warming an instance up to steady state before measuring it, by the steady scenario's rule
instead of a fixed sleep: closed-loop one-second intervals until the last `window` of them are
steady (perflab.analysis.steadystate.judge) and, for JVM modes, the JIT compiles less than its limit a
second (the steady scenario's JIT watch), or until a maximum. The settings are a table part that
the capacity, efficiency and memneeds scenarios share. Every interval is kept as a timeline file of
the scenario (perflab.scenarios.intervals), so the report can show how the warm-up went.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from perflab import jvmstat
from perflab.analysis.steadystate import Rule, judge
from perflab.instance import Instance
from perflab.scenario import Context
from perflab.scenarios import intervals
from perflab.settings import Settings, setting


class WarmupSettings(Settings):
    warmup_connections: int = setting(40, "closed-loop connections while warming up", "connections", ge=1)
    window: int = setting(10, "one-second intervals judged together for steady state", "intervals", ge=3)
    max_cv: float = setting(0.10, "steady: the window's spread at most", "ratio", gt=0)
    max_trend: float = setting(0.02, "steady: a significant trend may change throughput this much across the window",
                               "ratio", gt=0)
    max_jit_ms_per_s: float = setting(100.0, "steady (JVM modes): the JIT compiles at most this many ms a second "
                                             "(0: not checked)", "ms/s", ge=0)
    warmup_max_s: float = setting(90.0, "give up waiting for steady state after this (the figures are marked "
                                        "not-steady)", "s", gt=0)

    def rule(self) -> Rule:
        return Rule(window=self.window, max_cv=self.max_cv, max_trend=self.max_trend)


@dataclass(frozen=True)
class WarmedUp:
    steady: bool
    seconds: float
    rps: float      # closed-loop throughput over the last window: where the app stands
    why: str


def until_steady(ctx: Context, inst: Instance, path: str, cfg: WarmupSettings, what: str = "",
                 launch: int = 1, tag: str = "") -> WarmedUp:
    """Warm `inst` up on `path`; its intervals are stored as the timeline of warm-up number `launch`
    (a scenario that warms several fresh instances up numbers them; `tag` names the file)."""
    rows: list[list] = []
    try:
        return _until_steady(ctx, inst, path, cfg, what, launch, rows)
    finally:  # also when the app dies mid-warm-up: the timeline shows how far it got
        intervals.write(ctx, f"timeline-warmup{tag or launch}.csv", rows)


def _until_steady(ctx: Context, inst: Instance, path: str, cfg: WarmupSettings, what: str, launch: int,
                  rows: list[list]) -> WarmedUp:
    rule = cfg.rule()
    jit = jvmstat.JitWatch(jvmstat.jvm_pid(inst), cfg)
    values: list[float] = []
    started = time.monotonic()
    point = f"warm-up {path} c={cfg.warmup_connections}"
    while True:
        inst.check_alive()
        begin_ns = time.monotonic_ns()
        result = ctx.load.closed(inst.load_url + path, connections=cfg.warmup_connections,
                                 threads=ctx.load.threads_for(cfg.warmup_connections), duration_s=1)
        end_ns = time.monotonic_ns()
        rows.append(intervals.row(
            launch=launch, point=point, phase="warmup", t_s=(end_ns - inst.spawn_ns) / 1e9,
            duration_s=result.duration_s, requests=result.requests, errors=result.errors.total,
            mean_ms=result.latency.mean_ms, p50_ms=result.latency.percentile("50"),
            p90_ms=result.latency.percentile("90"), p99_ms=result.latency.percentile("99"),
            max_ms=result.latency.max_ms, cpu_share=intervals.app_cpu_share(inst, begin_ns, end_ns)))
        values.append(result.rps)
        verdict = judge(values, rule)
        compiling = jit.still_compiling(len(values)) if verdict.steady else ""
        elapsed = time.monotonic() - started
        why = compiling or verdict.why
        ctx.progress.update(f"{what}warm-up {elapsed:.0f}s, {result.rps:,.0f} req/s ({why})")
        last = values[-rule.window:]
        if (verdict.steady and not compiling) or elapsed >= cfg.warmup_max_s:
            steady = verdict.steady and not compiling
            return WarmedUp(steady, elapsed, sum(last) / len(last),
                            why if steady else f"not steady after {elapsed:.0f} s: {why}")
