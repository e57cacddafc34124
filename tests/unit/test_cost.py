"""LAB-2020's cost model from measured RSS: pods per node and nodes per memory class, savings
against Spring Boot, assumptions overridable from the plan's [cost] table."""

from __future__ import annotations

import math

import pytest

from perflab import results
from perflab.errors import LabError
from perflab.report import cost
from perflab.store import Store

ENV = {"cpu_model": "Test CPU", "cpus_online": 2}


def _view(store: Store, rss: dict[str, list[float]], plan_extra: dict | None = None,
          rest: dict[str, list[float]] | None = None) -> results.RunView:
    run = store.begin_run({"name": "cost", "limits": {"cpus": 1, "memory_mb": 1024}, **(plan_extra or {})}, ENV)
    for target, values in rss.items():
        app, mode = target.split("/")
        for r, v in enumerate(values):
            store.add_figure(run, app, mode, "memory", "rss_peak_mb", v, "MB", point="load c=10", repeat=r)
    for target, values in (rest or {}).items():
        app, mode = target.split("/")
        for r, v in enumerate(values):
            store.add_figure(run, app, mode, "memory", "rss_rest_mb", v, "MB", point="warm", repeat=r)
    store.finish_run(run, "complete")
    return results.load(store, run)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    yield s
    s.close()


def expected_nodes(rss_mb: float, a: dict) -> int:
    allocatable = a["node_mb"] - a["reserved_mb"]
    total = 0
    for cls in cost.CLASSES:
        per_node = allocatable // (rss_mb * a["memory_factor"][cls] + a["pod_overhead_mb"])
        total += math.ceil(a["services"][cls] * a["replicas"] / per_node)
    return total


def test_nodes_and_savings_follow_from_the_measured_peak_rss(store):
    view = _view(store, {"spring-boot/jvm": [990.0, 1000.0, 1010.0], "quarkus/jvm": [495.0, 500.0, 505.0]})
    m = cost.model(view)
    a = cost.DEFAULTS
    spring, quarkus = m.result("spring-boot/jvm"), m.result("quarkus/jvm")
    assert spring.nodes == expected_nodes(1000.0, a)
    assert quarkus.nodes == expected_nodes(500.0, a)
    assert quarkus.nodes < spring.nodes
    assert quarkus.savings == pytest.approx(1 - quarkus.nodes / spring.nodes)
    assert quarkus.classes[0].pods_per_node == (a["node_mb"] - a["reserved_mb"]) // (500.0 * a["memory_factor"]["high"])
    assert quarkus.published_savings == pytest.approx(0.37)  # LAB-2020 beside it
    assert quarkus.savings_low <= quarkus.savings <= quarkus.savings_high
    assert m.rss_label == "peak RSS under load"


def test_the_plans_cost_table_overrides_the_assumptions(store):
    overrides = {"rss": "rest", "node_mb": 8192, "reserved_mb": 512, "services": {"high": 10, "medium": 0, "low": 0}}
    view = _view(store, {"spring-boot/jvm": [1000.0]}, plan_extra={"cost": overrides},
                 rest={"spring-boot/jvm": [300.0], "quarkus/jvm": [150.0]})
    m = cost.model(view)
    assert m.rss_label == "RSS at rest"
    assert m.assumptions["services"] == {"high": 10, "medium": 0, "low": 0}
    a = {**cost.DEFAULTS, **overrides}
    assert m.result("spring-boot/jvm").nodes == math.ceil(10 / ((8192 - 512) // (300.0 * 2.0)))
    assert m.result("quarkus/jvm").nodes == math.ceil(10 / ((a["node_mb"] - a["reserved_mb"]) // 300.0))


def test_a_pod_larger_than_a_node_gives_no_node_count(store):
    view = _view(store, {"spring-boot/jvm": [1000.0], "quarkus/jvm": [9000.0]})
    quarkus = cost.model(view).result("quarkus/jvm")
    assert quarkus.classes[0].pods_per_node == 0 and quarkus.nodes is None and quarkus.savings is None


def test_without_the_baseline_no_savings_are_claimed(store):
    view = _view(store, {"quarkus/jvm": [500.0]})
    m = cost.model(view)
    assert m.result("quarkus/jvm").savings is None
    assert any("baseline spring-boot/jvm" in x for x in m.missing)
    assert any("quarkus/native" in x and "64%" in x for x in m.missing)


@pytest.mark.parametrize("bad", [{"nodes": 3}, {"rss": "median"}, {"services": {"huge": 1}},
                                 {"memory_factor": {"high": -1}}, {"node_mb": 512, "reserved_mb": 1024}])
def test_bad_cost_tables_are_clear_errors(bad):
    with pytest.raises(LabError, match=r"\[cost\]"):
        cost.assumptions(bad)
