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
            store.add_figure(run, app, mode, "startup", "rss_rest_mb", v, "MB", point="warm", repeat=r)
    store.finish_run(run, "complete")
    return results.load(store, run)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    yield s
    s.close()


def test_nodes_and_savings_follow_from_the_measured_peak_rss(store):
    # defaults: 16384 - 1024 = 15360 MB allocatable per node; 120 high (2x RSS), 120 medium (1x),
    # 60 low (0.5x) services, one replica each.
    # spring-boot, median 1000 MB: high 2000 MB pods -> 7 a node -> ceil(120/7) = 18 nodes;
    #   medium 1000 -> 15 -> 8; low 500 -> 30 -> 2. Total 28.
    # quarkus, median 500 MB: high 1000 -> 15 -> 8; medium 500 -> 30 -> 4; low 250 -> 61 -> 1.
    #   Total 13. Savings 1 - 13/28 = 15/28.
    # Least and most favourable repeats (quarkus 505 vs spring 990, quarkus 495 vs spring 1010)
    # land on the same node counts: 505 -> 8 + 4 + 1 (60 low pods a node), 990 -> 18 + 8 + 2
    # (31 low pods a node), 495 -> 8 + 4 + 1 (31 medium pods a node), 1010 -> 18 + 8 + 2.
    view = _view(store, {"spring-boot/jvm": [990.0, 1000.0, 1010.0], "quarkus/jvm": [495.0, 500.0, 505.0]})
    m = cost.model(view)
    spring, quarkus = m.result("spring-boot/jvm"), m.result("quarkus/jvm")
    assert [(c.name, c.pod_mb, c.pods_per_node, c.nodes) for c in spring.classes] == [
        ("high", 2000.0, 7, 18), ("medium", 1000.0, 15, 8), ("low", 500.0, 30, 2)]
    assert [(c.pods_per_node, c.nodes) for c in quarkus.classes] == [(15, 8), (30, 4), (61, 1)]
    assert (spring.nodes, quarkus.nodes) == (28, 13)
    assert quarkus.savings == pytest.approx(15 / 28)
    assert quarkus.savings_low == pytest.approx(15 / 28) and quarkus.savings_high == pytest.approx(15 / 28)
    assert spring.savings is None  # the baseline saves nothing against itself
    assert quarkus.published_savings == pytest.approx(0.37)  # LAB-2020 beside it
    assert m.rss_label == "peak RSS under load"


def test_the_plans_cost_table_overrides_the_assumptions(store):
    # 8192 - 512 = 7680 MB a node, only 100 high-memory services (2x the RSS at rest):
    # spring-boot 300 MB at rest -> 600 MB pods -> 12 a node -> ceil(100/12) = 9 nodes
    # (its peak of 1000 MB would give 2000 MB pods, 3 a node, 34 nodes);
    # quarkus 150 MB -> 300 MB pods -> 25 a node -> 4 nodes. Savings 1 - 4/9 = 5/9.
    overrides = {"rss": "rest", "node_mb": 8192, "reserved_mb": 512, "services": {"high": 100, "medium": 0, "low": 0}}
    view = _view(store, {"spring-boot/jvm": [1000.0]}, plan_extra={"cost": overrides},
                 rest={"spring-boot/jvm": [300.0], "quarkus/jvm": [150.0]})
    m = cost.model(view)
    assert m.rss_label == "RSS at rest"
    assert m.assumptions["services"] == {"high": 100, "medium": 0, "low": 0}
    assert m.assumptions["memory_factor"] == cost.DEFAULTS["memory_factor"]  # what was not overridden stays
    spring, quarkus = m.result("spring-boot/jvm"), m.result("quarkus/jvm")
    assert [(c.pods_per_node, c.nodes) for c in spring.classes] == [(12, 9), (25, 0), (51, 0)]
    assert (spring.nodes, quarkus.nodes) == (9, 4)
    assert quarkus.savings == pytest.approx(5 / 9)


def test_the_savings_range_pairs_the_least_and_most_favourable_repeats(store):
    # defaults as above (15360 MB a node; 120 high 2x, 120 medium 1x, 60 low 0.5x):
    # quarkus 400 MB: high 800 -> 19 a node -> 7; medium 400 -> 38 -> 4; low 200 -> 76 -> 1 = 12
    # quarkus 800 MB: high 1600 -> 9 -> 14; medium 800 -> 19 -> 7; low 400 -> 38 -> 2 = 23
    # spring 900 MB: high 1800 -> 8 -> 15; medium 900 -> 17 -> 8; low 450 -> 34 -> 2 = 25
    # spring 1100 MB: high 2200 -> 6 -> 20; medium 1100 -> 13 -> 10; low 550 -> 27 -> 3 = 33
    # medians 500 and 1000: 13 and 28 nodes (first test)
    view = _view(store, {"spring-boot/jvm": [900.0, 1000.0, 1100.0], "quarkus/jvm": [400.0, 500.0, 800.0]})
    quarkus = cost.model(view).result("quarkus/jvm")
    assert quarkus.savings == pytest.approx(1 - 13 / 28)
    assert quarkus.savings_low == pytest.approx(1 - 23 / 25)  # quarkus at its largest, spring at its smallest
    assert quarkus.savings_high == pytest.approx(1 - 12 / 33)


RSS_GRID = [50.0, 97.0, 128.0, 250.0, 333.0, 512.0, 700.0, 1000.0, 1500.0, 2500.0, 4000.0, 7000.0]


def _nodes(rss_mb: float, **overrides) -> float:
    total = cost.nodes_for(rss_mb, cost.assumptions(overrides))[1]
    return math.inf if total is None else total  # None: a pod does not fit a node


def test_replicas_and_pod_overhead_by_hand():
    # spring-boot-sized pods of 1000 MB RSS with the defaults (28 nodes for one replica):
    # two replicas: high 240 pods at 7 a node -> 35; medium 240 at 15 -> 16; low 120 at 30 -> 4 = 55
    assert _nodes(1000.0, replicas=2) == 55
    # 100 MB overhead a pod: high 2100 -> 7 a node -> 18; medium 1100 -> 13 -> 10; low 600 -> 25 -> 3
    assert _nodes(1000.0, pod_overhead_mb=100) == 31


@pytest.mark.parametrize("overrides", [{}, {"pod_overhead_mb": 64}, {"replicas": 3},
                                       {"node_mb": 4096, "reserved_mb": 512}])
def test_halving_rss_never_needs_more_nodes(overrides):
    for rss in RSS_GRID:
        assert _nodes(rss / 2, **overrides) <= _nodes(rss, **overrides), rss


@pytest.mark.parametrize("overrides", [{}, {"pod_overhead_mb": 64}, {"node_mb": 4096, "reserved_mb": 512}])
def test_more_replicas_never_need_fewer_nodes(overrides):
    for rss in RSS_GRID:
        counts = [_nodes(rss, replicas=r, **overrides) for r in range(1, 6)]
        assert counts == sorted(counts), rss


def test_bigger_nodes_never_need_more_of_them():
    for rss in RSS_GRID:
        counts = [_nodes(rss, node_mb=mb) for mb in (4096, 8192, 16384, 32768, 65536)]
        assert counts == sorted(counts, reverse=True), rss


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
