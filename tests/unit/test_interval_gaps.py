"""The time between steady's measured intervals in which no load was sent: measured per launch,
stated under the figures, and on a cluster, where each interval is an exec of oha into the driver
pod, explained."""

from __future__ import annotations

import pytest

from perflab import results
from perflab.drivers.base import ErrorCounts, LatencyStats, LoadResult
from perflab.scenarios import steady
from perflab.scenarios.steady_report import CLUSTER_GAP, gap_line
from perflab.store import Store

POINT, PARAMS = "fruits c=4", {"path": "/fruits", "connections": 4}


def _interval(end_s: float, load_s: float) -> steady.Interval:
    result = LoadResult(driver="oha", driver_version="1", mode="closed", url="u", connections=4, threads=None,
                        duration_s=load_s, warmup_s=0.0, requests=100, rps=100 / load_s,
                        latency=LatencyStats(), errors=ErrorCounts())
    return steady.Interval("measure", end_s, result, None, None)


def test_each_gap_is_the_time_between_two_intervals_ends_less_the_next_ones_load():
    measured = [_interval(10.0, 1.0), _interval(11.25, 1.0), _interval(12.30, 1.0), _interval(13.30, 1.0)]
    assert steady.load_gaps(measured) == pytest.approx([0.25, 0.05, 0.0])
    assert steady.load_gaps(measured[:1]) == []


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "results.sqlite")
    yield s
    s.close()


def _view(store: Store, placement: dict | None, gaps_ms: list[float]) -> results.RunView:
    plan = {"scenarios": ["steady"], **({"placement": placement} if placement else {})}
    run = store.begin_run(plan, {})
    for k, gap in enumerate(gaps_ms, start=1):
        at = dict(point=POINT, params=PARAMS, repeat=k)
        for metric, value in (("rps", 1000.0 + k), ("measured_intervals", 10), ("interval_gap_ms", gap),
                              ("interval_gap_max_ms", 3 * gap), ("unloaded_pct", gap / 10)):
            store.add_figure(run, "quarkus", "jvm", "steady", metric, value, "", **at)
    store.finish_run(run, "complete")
    return results.load(store, run)


def test_a_cluster_run_explains_why_its_intervals_have_gaps_and_states_each_one(store):
    view = _view(store, {"kind": "kubernetes"}, [180.0, 220.0])
    lines = [x.strip() for x in steady.stability(view)]
    assert CLUSTER_GAP in lines
    line = gap_line(view, "quarkus/jvm", POINT)
    assert line in lines
    assert "median 200 ms" in line and "largest 660 ms" in line and "20.0 % of the measured span" in line


def test_a_run_on_one_machine_states_its_gaps_without_the_clusters_explanation(store):
    view = _view(store, None, [2.0, 4.0])
    lines = [x.strip() for x in steady.stability(view)]
    assert CLUSTER_GAP not in lines
    assert any(x.startswith("gaps between measured intervals (no load sent): median 3") for x in lines)


def test_a_run_stored_before_gaps_were_measured_says_nothing_of_them(store):
    run = store.begin_run({"scenarios": ["steady"], "placement": {"kind": "kubernetes"}}, {})
    store.add_figure(run, "quarkus", "jvm", "steady", "rps", 1000.0, "", point=POINT, params=PARAMS, repeat=1)
    store.finish_run(run, "complete")
    view = results.load(store, run)
    assert gap_line(view, "quarkus/jvm", POINT) == ""
    assert CLUSTER_GAP not in [x.strip() for x in steady.stability(view)]
