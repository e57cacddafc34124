"""The warm-up's JIT trace (steady's jit_trace) and the fixed warm-up's bounds."""

from __future__ import annotations

import pytest

from perflab import jvmstat
from perflab.jvmstat import GcCollector, JvmCounters
from perflab.scenarios.steady import SteadySettings


class _Readings:
    """A JVM whose counters grow by a given compile time and collection time per reading."""

    def __init__(self, steps: list[tuple[float, float]]) -> None:
        self.steps, self.calls = steps, 0

    def __call__(self, pid: int, jdk_home=None) -> JvmCounters:
        done = self.steps[:self.calls]
        self.calls += 1
        compile_ms = sum(c for c, _ in done)
        gc_ms = sum(g for _, g in done)
        return JvmCounters(pid, uptime_ms=1000.0 * 5 * len(done), compilations=10 * len(done),
                           compile_invalidated=len(done), compile_ms=compile_ms,
                           collectors=(GcCollector("young", len(done), gc_ms),))


def test_a_trace_reads_every_half_window_and_keeps_each_rate(monkeypatch):
    readings = _Readings([(2500.0, 50.0), (500.0, 5.0), (50.0, 0.0)])
    monkeypatch.setattr(jvmstat, "read", readings)
    watch = jvmstat.JitWatch(4242, SteadySettings(window=10), trace=True)
    for i in range(1, 16):
        watch.follow(i, float(i))
    # the first reading at construction, then one every 5 intervals
    assert readings.calls == 4
    rates = [t["compile_ms_per_s"] for t in watch.trace]
    assert rates == [500.0, 100.0, 10.0]
    assert [t["t_s"] for t in watch.trace] == [5.0, 10.0, 15.0]
    assert watch.trace[0]["gc_ms_per_s"] == 10.0
    assert watch.trace[0]["invalidated"] == 1


def test_the_rule_and_the_trace_share_one_reading_per_interval(monkeypatch):
    readings = _Readings([(2500.0, 0.0), (100.0, 0.0)])
    monkeypatch.setattr(jvmstat, "read", readings)
    watch = jvmstat.JitWatch(4242, SteadySettings(window=10), trace=True)
    watch.follow(5, 5.0)
    assert watch.still_compiling(5) == "JIT still compiling: 500 ms/s"
    assert readings.calls == 2
    watch.follow(10, 10.0)
    assert watch.still_compiling(10) == ""


def test_without_a_trace_the_warm_up_is_not_read(monkeypatch):
    readings = _Readings([(2500.0, 0.0)])
    monkeypatch.setattr(jvmstat, "read", readings)
    watch = jvmstat.JitWatch(4242, SteadySettings(window=10))
    for i in range(1, 11):
        watch.follow(i, float(i))
    assert readings.calls == 1 and watch.trace == []


def test_a_fixed_warm_up_longer_than_the_maximum_is_refused():
    with pytest.raises(ValueError, match="warmup_min_s"):
        SteadySettings(warmup_min_s=300, warmup_max_s=120)
    assert SteadySettings(warmup_min_s=300, warmup_max_s=360).warmup_min_s == 300
