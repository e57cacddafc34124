"""limits.cpus in cores, fractions included: the CFS quota and cpuset it becomes here, the
millicores it becomes on Kubernetes, and the plan's checks of it."""

from __future__ import annotations

import pytest

from perflab import plan
from perflab.errors import LabError
from perflab.isolate.cpu_quota import cpuset_size, quota_us
from perflab.isolate.topology import online_cpus
from perflab.kube import manifests


def test_a_fraction_is_that_share_of_each_cfs_period():
    assert quota_us(0.5) == 50_000
    assert quota_us(0.25) == 25_000
    assert quota_us(1.5) == 150_000
    assert quota_us(1) == 100_000
    assert quota_us(0.5, period_us=200_000) == 100_000


def test_the_quota_never_goes_under_the_kernels_1_ms():
    assert quota_us(0.001) == 1000


def test_the_cpuset_covers_the_whole_cpus_the_quota_needs():
    assert [cpuset_size(c) for c in (0.25, 0.5, 1, 1.5, 2, 2.001)] == [1, 1, 1, 2, 2, 3]


def test_kubernetes_gets_millicores_for_a_fraction_and_whole_cores_otherwise():
    def cpu(cores):
        return manifests.app_container(image="i", cpus=cores, memory_mb=256, jvm_opts=[], db_env={},
                                       ready_path="/health/ready", mode="jvm")[
            "resources"]["limits"]["cpu"]
    assert [cpu(c) for c in (0.25, 0.5, 1.5, 1, 2)] == ["250m", "500m", "1500m", "1", "2"]


def _limits(cpus) -> dict:
    return plan.validate({"name": "t", "limits": {"cpus": cpus}}).data["limits"]


def test_fractions_are_accepted_and_whole_numbers_stay_whole():
    assert _limits(0.5)["cpus"] == 0.5
    assert _limits(1.5)["cpus"] == 1.5
    whole = _limits(1)["cpus"]
    assert whole == 1 and isinstance(whole, int)  # stored plans keep "1 CPU", not "1.0 CPU"


@pytest.mark.parametrize("cpus, says", [(0, "limits.cpus must be more than 0"),
                                        (-1, "limits.cpus must be more than 0"),
                                        (0.005, "at least 0.01"),
                                        (0.0125, "finer than a millicore"),
                                        ("1", "limits.cpus must be")])
def test_a_limit_no_placement_can_hold_is_refused_with_the_reason(cpus, says):
    with pytest.raises(LabError, match=says):
        _limits(cpus)


def _plan_file(tmp_path, cpus, kind="local"):
    path = tmp_path / "p.toml"
    path.write_text(f'name = "p"\n[limits]\ncpus = {cpus}\n[placement]\nkind = "{kind}"\n')
    return str(path)


def test_a_local_plan_may_not_ask_more_cpus_than_this_machine_has(tmp_path):
    here = len(online_cpus())
    assert plan.load(_plan_file(tmp_path, here - 0.5))["limits"]["cpus"] == here - 0.5
    with pytest.raises(LabError, match=f"more CPUs than this machine has \\({here}\\)") as caught:
        plan.load(_plan_file(tmp_path, here + 0.5))
    assert "lower limits.cpus" in caught.value.fix


def test_a_kubernetes_plan_leaves_the_node_size_to_the_cluster(tmp_path):
    big = len(online_cpus()) + 4
    assert plan.load(_plan_file(tmp_path, big, "kubernetes"))["limits"]["cpus"] == big
