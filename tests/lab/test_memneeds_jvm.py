"""memneeds on a real JVM framework (Quarkus, jvm mode), through the runner against the test
session's PostgreSQL, CI-sized: two heaps (256 and 48 MB) with a short warm-up and a 3 s
measurement each. What must hold whatever the machine's speed: each step is recorded with its
container limit, the heap the JVM really applied (read back from it: the plan's own -Xmx512m is
replaced), its GC time, OOM kills and throughput spread, and the memory needed follows from the
clean steps. About a minute and a half (Quarkus is built once per checkout, as the other tests
build it)."""

from __future__ import annotations

import pytest

from perflab import results
from perflab.report import summary
from tests.lab.plan_run import run_plan_on
from tests.conftest import needs_root

pytestmark = [pytest.mark.slow,
              needs_root("needs root for cgroups and the DB user")]

OVERHEAD_MB = 256  # above the plan's 192: a Quarkus JVM's non-heap memory alone nearly filled 48 + 192 MB
HEAPS = (256, 48)
CPUS = 1  # the plan's limits.cpus (its default)
PLAN = f"""
name = "memneeds-jvm-test"
apps = ["quarkus"]
modes = ["jvm"]
scenarios = ["memneeds"]
repeats = 1
reductions = ["test plan"]
[limits]
memory_mb = 512
jvm_opts = ["-Xmx512m"]          # memneeds replaces it with each step's heap
[memneeds]
window = 4
warmup_max_s = 8
heaps_mb = {list(HEAPS)}
jvm_overhead_mb = {OVERHEAD_MB}
measure_s = 3
"""


@pytest.fixture
def quarkus_run(workdir, database, monkeypatch):
    # the checkout's build stamps, not the private ones: Quarkus is built once (a Maven build is minutes)
    monkeypatch.delenv("PERFLAB_BUILD_STAMPS")
    s, run_id = run_plan_on(database, PLAN)
    yield s, run_id
    s.close()


def _by_heap(s, run_id, metric) -> dict[int, object]:
    return {f.params["heap_mb"]: f for f in s.figures(run_id) if f.scenario == "memneeds" and f.metric == metric}


def test_memneeds_steps_the_heap_of_a_quarkus_jvm(quarkus_run):
    s, run_id = quarkus_run
    assert s.run(run_id)["status"] == "complete"
    [outcome] = [o for o in s.outcomes(run_id) if o["scenario"] == "memneeds"]

    # every step recorded with its setting: the heap stepped, the container limit beside it
    limits = _by_heap(s, run_id, "memory_limit_mb")
    assert {h: f.value for h, f in limits.items()} == {h: h + OVERHEAD_MB for h in HEAPS}, outcome["reason"]
    rps = _by_heap(s, run_id, "rps")
    assert set(rps) == set(HEAPS) and "failed" not in rps[256].flags, rps[256].extra
    assert set(_by_heap(s, run_id, "oom_kills")) == set(HEAPS)
    served = {h for h, f in rps.items() if "failed" not in f.flags}

    # what the JVM applied, read back from it: each step's own heap, not the plan's -Xmx512m
    applied = _by_heap(s, run_id, "heap_applied_mb")  # read once the JVM is ready, also for a step that fails later
    assert served <= set(applied) and all(f.value == h for h, f in applied.items()), applied
    # GC time over the measurement, from the JVM's counters; the spread from the 1 s intervals
    gc = _by_heap(s, run_id, "gc_ms_per_s")
    assert set(gc) == served and all(f.value >= 0 for f in gc.values())
    assert set(_by_heap(s, run_id, "precision_pct")) == {h for h in served if rps[h].value > 0}
    assert all(len(rps[h].extra["interval_rps"]) == 3 for h in served)
    # the app's CPU over the measurement, a share of the plan's cpus (1 by default): whether it filled its quota
    cpu = _by_heap(s, run_id, "app_cpu_pct")
    assert {h for h in served if rps[h].value > 0} <= set(cpu) <= served, cpu
    assert all(0 <= f.value <= 100 * CPUS + 5 for f in cpu.values()), {h: f.value for h, f in cpu.items()}

    # the memory needed follows from the clean steps; an excluded one is named in the outcome
    clean = {h: f for h, f in rps.items() if "excluded" not in f.flags}
    for h, f in rps.items():
        if "excluded" in f.flags:
            assert f"{f.point}: {f.extra['excluded']}" in outcome["reason"]
    needed = [f for f in s.figures(run_id) if f.metric == "memory_needed_mb"]
    if not clean or max(f.value for f in clean.values()) <= 0:
        assert not needed and outcome["status"] == "failed"
        return
    best = max(f.value for f in clean.values())
    keeping = [h for h, f in clean.items() if f.value >= 0.9 * best]
    [memory] = needed
    [heap] = [f for f in s.figures(run_id) if f.metric == "heap_needed_mb"]
    assert heap.value == min(keeping) and memory.value == min(keeping) + OVERHEAD_MB
    assert ("lower-bound" in memory.flags) == (heap.value == 48)
    # within noise exactly when the step chosen or the next smaller clean one is near the line
    near = {f.params["heap_mb"] for f in s.figures(run_id) if f.metric == "rps_of_best_pct" and "near-line" in f.flags}
    smaller = [h for h in clean if h < heap.value]
    assert ("within-noise" in memory.flags) == bool({heap.value, max(smaller, default=None)} & near)

    text = summary.render(results.load(s, run_id), width=400)
    assert f"quarkus/jvm {memory.value:,.0f} MB" in text and f"heap {heap.value:,.0f} MB" in text
