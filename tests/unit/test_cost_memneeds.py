"""The cost model on measured memory needs (memneeds' smallest limit keeping 90 % of the best
throughput) instead of RSS, when the plan's [cost] table says rss = "needed"."""

from __future__ import annotations

import pytest

from perflab import results
from perflab.cost_assumptions import assumptions
from perflab.errors import LabError
from perflab.report import cost
from perflab.store import Store


@pytest.fixture
def view(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    run = s.begin_run({"name": "cost", "limits": {"cpus": 1, "memory_mb": 1024}}, {})
    for app, needed, peak in (("spring-boot", 704.0, 420.0), ("quarkus", 320.0, 300.0)):
        s.add_figure(run, app, "jvm", "memneeds", "memory_needed_mb", needed, "MB", point=">= 90% of best")
        s.add_figure(run, app, "jvm", "memory", "rss_peak_mb", peak, "MB", point="load c=10")
    s.add_figure(run, "go-reference", "native", "memory", "rss_peak_mb", 20.0, "MB", point="load c=10")
    s.finish_run(run, "complete")
    yield results.load(s, run)
    s.close()


def test_pods_are_sized_by_the_measured_memory_need(view):
    m = cost.model(view, {"rss": "needed"})
    assert m.rss_label.startswith("memory needed")
    spring, quarkus = m.result("spring-boot/jvm"), m.result("quarkus/jvm")
    # medium class: 1x the need; 15360 MB allocatable -> 21 pods of 704 MB, 48 of 320 MB
    assert [(c.pod_mb, c.pods_per_node) for c in spring.classes][1] == (704.0, 21)
    assert [(c.pod_mb, c.pods_per_node) for c in quarkus.classes][1] == (320.0, 48)
    assert quarkus.savings is not None and quarkus.savings > 0
    # the same run costed by peak RSS gives other pods: the source really is the memory need
    assert cost.model(view).result("quarkus/jvm").classes[1].pod_mb == 300.0


def test_an_app_without_a_measured_need_is_missing_not_filled_in(view):
    m = cost.model(view, {"rss": "needed"})
    assert m.result("go-reference/native") is None
    assert any(line.startswith("go-reference/native: no memory needed") for line in m.missing)


def test_an_unknown_source_names_the_known_ones():
    with pytest.raises(LabError, match="needed"):
        assumptions({"rss": "typo"})
