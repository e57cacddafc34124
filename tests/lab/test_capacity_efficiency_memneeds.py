"""capacity, efficiency and memneeds end to end on a real framework app (the Go reference: the
cheapest to start), through the runner, against the test session's PostgreSQL, CI-sized (short
steps, coarse resolution). Checks what was stored, that the search ended as its steps say, and
that the summary and report show it. memneeds on a JVM: tests/lab/test_memneeds_jvm.py."""

from __future__ import annotations

import pytest

from perflab import capacity_search as cs
from perflab import results
from perflab.report import summary, write_report
from perflab.scenarios.capacity import driver_max_rate
from tests.lab.plan_run import run_plan_on
from tests.conftest import needs_root

pytestmark = needs_root("needs root for cgroups and the DB user")

PLAN = """
name = "capacity-test"
apps = ["go-reference"]
scenarios = ["capacity", "efficiency", "memneeds"]
repeats = 1
reductions = ["test plan"]
[limits]
memory_mb = 256
[capacity]
more_paths = ["/todos"]
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
more_paths = ["/todos"]
window = 4
warmup_max_s = 6
rates = [100, 300]
step_s = 2
step_warmup_s = 0.5
[memneeds]
window = 4
warmup_max_s = 6
limits_mb = [256, 64]
measure_s = 3
"""


@pytest.fixture
def go_run(workdir, database):
    s, run_id = run_plan_on(database, PLAN)
    yield s, run_id
    s.close()


def _figures(s, run_id, scenario, metric, path="/fruits"):
    """A metric's figures on `path` (capacity and efficiency also ran on /todos; None: any path)."""
    return [f for f in s.figures(run_id) if f.scenario == scenario and f.metric == metric
            and (path is None or f.params.get("path", path) == path)]


def test_capacity_efficiency_and_memory_needs_of_the_go_reference(go_run):
    s, run_id = go_run
    assert s.run(run_id)["status"] == "complete"
    bad = [o for o in s.outcomes(run_id) if o["status"] not in ("ok",)]
    assert not bad, bad

    # capacity: the highest passing step, its steps with their percentiles, who ended the search
    [capacity] = _figures(s, run_id, "capacity", "capacity_rps")
    steps = _figures(s, run_id, "capacity", "offered_rate")
    assert len(steps) >= 2
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
    _ended_as_its_steps_say(capacity, steps, votes)
    for metric in ("latency_p50_ms", "latency_p99.9_ms", "rps", "errors"):
        assert len(_figures(s, run_id, "capacity", metric)) == len(steps), metric

    # efficiency: both rates, CPU per request from the app's cgroup, RSS
    cpu = _figures(s, run_id, "efficiency", "app_cpu_ms_per_request")
    assert sorted(f.params["rate"] for f in cpu) == [100, 300]
    assert all(0 < f.value < 50 for f in cpu)
    assert all(f.value > 0 for f in _figures(s, run_id, "efficiency", "rss_mb"))
    own = {f.params["rate"]: f.value for f in _figures(s, run_id, "efficiency", "rate_of_own_capacity_pct")}
    assert own == pytest.approx({r: 100 * r / capacity.value for r in (100, 300)})  # capacity handed over

    # the further path: its own search and its own rates, each figure named after it, its own capacity handed over
    [todos] = _figures(s, run_id, "capacity", "capacity_rps", "/todos")
    assert todos.point.endswith(" /todos") and not capacity.point.endswith(" /todos")
    todo_steps = _figures(s, run_id, "capacity", "offered_rate", "/todos")
    assert len(todo_steps) >= 2 and all(f.point.endswith(" /todos") for f in todo_steps)
    own = {f.params["rate"]: f.value for f in _figures(s, run_id, "efficiency", "rate_of_own_capacity_pct", "/todos")}
    assert own == pytest.approx({r: 100 * r / todos.value for r in (100, 300)})

    # memneeds: a fresh launch per limit, throughput with its spread at each, and the smallest clean
    # step keeping 90 % of the best clean one
    found = _figures(s, run_id, "memneeds", "rps")
    rps = {f.params["memory_mb"]: f.value for f in found}
    # (a step starved by other work on a loaded machine may serve nothing: the larger one must serve)
    assert set(rps) == {256, 64} and rps[256] > 0, [(f.params, f.value, f.flags, f.extra) for f in found]
    assert len(_figures(s, run_id, "memneeds", "oom_kills")) == 2
    assert {f.params["memory_mb"] for f in _figures(s, run_id, "memneeds", "precision_pct")} == \
        {f.params["memory_mb"] for f in found if "failed" not in f.flags}
    # the app's CPU over each served step's measurement, a share of the plan's cpus (1 by default)
    cpu = {f.params["memory_mb"]: f.value for f in _figures(s, run_id, "memneeds", "app_cpu_pct")}
    assert {limit for limit, v in rps.items() if v > 0} <= set(cpu), cpu
    assert all(0 <= v <= 100 * 1 + 5 for v in cpu.values()), cpu
    clean = {f.params["memory_mb"]: f.value for f in found if "excluded" not in f.flags}
    [needed] = _figures(s, run_id, "memneeds", "memory_needed_mb")
    assert needed.value == min(limit for limit, v in clean.items() if v >= 0.9 * max(clean.values()))
    assert ("lower-bound" in needed.flags) == (needed.value == 64)

    view = results.load(s, run_id)
    text = summary.render(view, width=400)
    for words in ("capacity at the latency objective", "app CPU ms per request", "memory needed to keep"):
        assert words in text, words
    ending = {cs.APP: "(search ended by the app's limit)",
              cs.DRIVER: "(search ended by the driver's limit: a lower bound)"}
    assert ending[capacity.params["ended_by"]] in text
    for f in _figures(s, run_id, "efficiency", "rps"):  # a rate the Go app could not hold is named with it
        if "not-held" in f.flags:
            assert f"{f.params['rate']:,.0f} req/s (achieved" in text
    paths = write_report(s, run_id)
    html = paths.html.read_text()
    for key in ("capacity-curve", "capacity-warmup-warm-up /fruits", "efficiency-app_cpu_ms_per_request",
                "memneeds-curve"):
        assert key in html, key
    # every warm-up kept its intervals: the capacity's, efficiency's and one per memory step
    timelines = {(r["scenario"], r["path"].rsplit("/", 1)[-1]) for r in s.files(run_id) if r["kind"] == "timeline"}
    assert {("capacity", "timeline-warmup1.csv"), ("efficiency", "timeline-warmup1.csv"),
            ("capacity", "timeline-warmup1-todos.csv"), ("efficiency", "timeline-warmup1-todos.csv"),
            ("memneeds", "timeline-warmup-256mb.csv"), ("memneeds", "timeline-warmup-64mb.csv"),
            ("memneeds", "timeline-measure-256mb.csv")} <= timelines


def _ended_as_its_steps_say(capacity, steps, votes: dict[float, list[bool]]) -> None:
    """The plan's max_rate (50,000 req/s) lies beyond what the driver's 256 connections carry at 25 ms,
    so the app or the driver ended the search, and its steps show which."""
    ended = capacity.params["ended_by"]
    assert ended in (cs.APP, cs.DRIVER), capacity.extra
    assert ("lower-bound" in capacity.flags) == (ended == cs.DRIVER)
    ceiling = capacity.extra["ceiling"]
    at_ceiling = [f for f in steps if f.value == ceiling]
    if ended == cs.APP:
        # the lowest rate above the capacity failed on most of its measurements, none of them the
        # driver's doing, within the resolution
        assert ceiling is not None and 2 * sum(votes[ceiling]) < len(votes[ceiling]), votes
        assert not any("driver-bound" in f.flags for f in at_ceiling)
        assert min(r for r, v in votes.items() if r > capacity.value and 2 * sum(v) < len(v)) == ceiling
        assert ceiling <= capacity.value * 1.25 + 1
    else:
        # a failing step used the driver's CPUs up, or every rate up to what its connections carry passed
        assert (at_ceiling and "driver-bound" in at_ceiling[-1].flags) or \
            (ceiling is None and capacity.value == pytest.approx(driver_max_rate(256, 25))), capacity.extra
