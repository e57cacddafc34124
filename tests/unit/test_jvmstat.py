"""jvmstat's counters read by name from jstat's output, whatever else the JDK prints (against real
JVMs: tests/lab/test_jvmstat.py)."""

from __future__ import annotations

from perflab import jvmstat

SNAP = """\
java.ci.totalTime=2000000
sun.ci.lastMethod="jdk/internal/event/ThreadSleepEvent isEnabled"
sun.ci.lastFailedMethod=""
sun.ci.totalBailouts=1
sun.ci.totalCompiles=40
sun.ci.totalInvalidates=2
sun.gc.collector.0.invocations=3
sun.gc.collector.0.name="Copy"
sun.gc.collector.0.time=6000000
sun.gc.collector.1.invocations=1
sun.gc.collector.1.name="MSC"
sun.gc.collector.1.time=4000000
sun.gc.policy.name="Copy:MSC"
sun.os.hrt.frequency=1000000000
sun.rt.createVmBeginTime=1000000
not a counter line
"""


def test_counters_are_read_by_name_whatever_else_the_jdk_prints():
    counters = jvmstat.parse_snap(SNAP)
    assert counters["sun.ci.lastMethod"] == "jdk/internal/event/ThreadSleepEvent isEnabled"
    assert counters["sun.ci.lastFailedMethod"] == ""
    before = jvmstat.from_counters(7, counters, now_ms=1_001_000)
    assert before.ok and before.gc == "Copy:MSC" and before.uptime_ms == 1000
    assert [(c.name, c.count, c.time_ms) for c in before.collectors] == [("Copy", 3, 6.0), ("MSC", 1, 4.0)]
    assert (before.gc_count, before.gc_ms) == (4, 10.0)
    assert (before.compilations, before.compile_failed, before.compile_invalidated, before.compile_ms) == (40, 1, 2, 2.0)
    assert before.safepoints is None and before.gc_cpu_ms is None  # not published here: None, not 0

    later = jvmstat.from_counters(7, jvmstat.parse_snap(SNAP.replace("invocations=3", "invocations=5")
                                                        .replace("totalCompiles=40", "totalCompiles=41")),
                                  now_ms=1_003_500)
    d = jvmstat.delta(before, later)
    assert (d["interval_ms"], d["gc_count"], d["compilations"], d["safepoints"]) == (2500, 2, 1, None)

    restarted = jvmstat.from_counters(7, jvmstat.parse_snap(SNAP.replace("BeginTime=1000000", "BeginTime=1002000")),
                                      now_ms=1_003_500)
    assert jvmstat.why_missing(before, restarted) == "the two readings are not of the same JVM run"
    assert set(jvmstat.delta(before, restarted).values()) == {None}
    assert "frequency" in jvmstat.from_counters(7, {"sun.ci.totalCompiles": 3}).reason
