"""capacity, efficiency and memneeds end to end on a real framework app (the Go reference: the
cheapest to start), through the runner, against the test session's PostgreSQL, CI-sized (short
steps, coarse resolution). Checks what was stored and that the summary and report show it."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import pytest

from perflab import capacity_search as cs
from perflab import plan, results, runner, store
from perflab.paths import REPO_ROOT
from perflab.report import summary, write_report

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for cgroups and the DB user")

PLAN = """
name = "capacity-test"
apps = ["go-reference"]
scenarios = ["capacity", "efficiency", "memneeds"]
repeats = 1
reductions = ["test plan"]
[limits]
memory_mb = 256
[capacity]
window = 4
warmup_max_s = 10
objective_ms = 25
start_rate = 200
growth = 3
resolution_pct = 25
step_s = 2
step_warmup_s = 0.5
pause_s = 0.5
[efficiency]
window = 4
warmup_max_s = 6
rates = [100, 300]
step_s = 2
step_warmup_s = 0.5
[memneeds]
window = 4
warmup_max_s = 6
limits_mb = [256, 64]
measure_s = 2
"""


@pytest.fixture
def go_run(workdir, database):
    _, conn = database
    out = subprocess.run([sys.executable, "-m", "perflab", "db", "start", "--url", conn.url], cwd=REPO_ROOT,
                         env=dict(os.environ), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    run_id = runner.run_plan(plan.validate(tomllib.loads(PLAN), "test"), say=lambda m: None)
    s = store.Store()
    yield s, run_id
    s.close()


def _figures(s, run_id, scenario, metric):
    return [f for f in s.figures(run_id) if f.scenario == scenario and f.metric == metric]


def test_capacity_efficiency_and_memory_needs_of_the_go_reference(go_run):
    s, run_id = go_run
    assert s.run(run_id)["status"] == "complete"
    bad = [o for o in s.outcomes(run_id) if o["status"] not in ("ok",)]
    assert not bad, bad

    # capacity: the highest passing step, its steps with their percentiles, who ended the search
    [capacity] = _figures(s, run_id, "capacity", "capacity_rps")
    steps = _figures(s, run_id, "capacity", "offered_rate")
    assert len(steps) >= 2 and capacity.params["ended_by"] in (cs.APP, cs.DRIVER, cs.MAX_RATE)
    passed = [f for f in steps if f.params["passed"]]
    # a failing rate is measured again (confirm, then decide when the two disagree): the rate's verdict
    # is what most of its measurements said, so one passing re-measurement of a failed rate is no capacity
    votes: dict[float, list[bool]] = {}
    for f in steps:
        votes.setdefault(f.value, []).append(f.params["passed"])
    held = [rate for rate, v in votes.items() if 2 * sum(v) > len(v)]
    assert capacity.value == max(held), votes
    assert set(capacity.extra["disagreed"]) == {rate for rate, v in votes.items() if len(set(v)) == 2}
    p99 = {f.params["step"]: f.value for f in _figures(s, run_id, "capacity", "latency_p99_ms")}
    assert all(p99[f.params["step"]] <= 25 for f in passed)
    if capacity.params["ended_by"] == cs.APP:  # a rate above the capacity failed, within the resolution
        failed = [rate for rate, v in votes.items() if 2 * sum(v) < len(v)]
        assert min(v for v in failed if v > capacity.value) <= capacity.value * 1.25 + 1
    for metric in ("latency_p50_ms", "latency_p99.9_ms", "rps", "errors"):
        assert len(_figures(s, run_id, "capacity", metric)) == len(steps), metric

    # efficiency: both rates, CPU per request from the app's cgroup, RSS
    cpu = _figures(s, run_id, "efficiency", "app_cpu_ms_per_request")
    assert sorted(f.params["rate"] for f in cpu) == [100, 300]
    assert all(0 < f.value < 50 for f in cpu)
    assert all(f.value > 0 for f in _figures(s, run_id, "efficiency", "rss_mb"))
    own = {f.params["rate"]: f.value for f in _figures(s, run_id, "efficiency", "rate_of_own_capacity_pct")}
    assert own == pytest.approx({r: 100 * r / capacity.value for r in (100, 300)})  # capacity handed over

    # memneeds: a fresh launch per limit, throughput at each, and the smallest keeping 90 % of the best
    rps = {f.params["memory_mb"]: f.value for f in _figures(s, run_id, "memneeds", "rps")}
    # (a step starved by other work on a loaded machine may serve nothing: the larger one must serve)
    assert set(rps) == {256, 64} and rps[256] > 0, \
        [(f.params, f.value, f.flags, f.extra) for f in _figures(s, run_id, "memneeds", "rps")]
    assert len(_figures(s, run_id, "memneeds", "oom_kills")) == 2
    [needed] = _figures(s, run_id, "memneeds", "memory_needed_mb")
    best = max(rps.values())
    assert needed.value == min(limit for limit, v in rps.items() if v >= 0.9 * best)

    view = results.load(s, run_id)
    text = summary.render(view, width=160)
    for words in ("capacity at the latency objective", "app CPU ms per request", "memory needed to keep"):
        assert words in text, words
    paths = write_report(s, run_id)
    html = paths.html.read_text()
    for key in ("capacity-curve", "capacity-warmup-warm-up /fruits", "efficiency-app_cpu_ms_per_request",
                "memneeds-curve"):
        assert key in html, key
    # every warm-up kept its intervals: the capacity's, efficiency's and one per memory step
    timelines = {(r["scenario"], r["path"].rsplit("/", 1)[-1]) for r in s.files(run_id) if r["kind"] == "timeline"}
    assert {("capacity", "timeline-warmup1.csv"), ("efficiency", "timeline-warmup1.csv"),
            ("memneeds", "timeline-warmup-256mb.csv"), ("memneeds", "timeline-warmup-64mb.csv")} <= timelines
