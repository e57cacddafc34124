"""The report's line on how density counted: what the budget counts differs by placement."""

from perflab.scenarios import density


def _settings() -> dict:
    return density.DensitySettings(budget_mb=2048, max_instances=40).model_dump()


def test_a_cluster_plan_says_the_quota_counts_limits_and_how_many_pods_that_admits():
    text = density.describe(_settings(), {"placement": {"kind": "kubernetes"}, "limits": {"memory_mb": 512}})
    assert "ResourceQuota" in text
    assert "at most 4 pods of 512 MB" in text
    assert "cgroup" not in text


def test_a_cluster_plan_without_a_memory_limit_still_says_limits_decide():
    text = density.describe(_settings(), {"placement": {"kind": "kubernetes"}, "limits": {}})
    assert "limits, not their use" in text
    assert "at most" not in text


def test_a_local_plan_says_the_kernel_judges_by_use_in_one_cgroup():
    text = density.describe(_settings(), {"placement": {"kind": "local"}, "limits": {"memory_mb": 512}})
    assert "one cgroup whose memory limit is 2048 MB" in text
    assert "ResourceQuota" not in text and "pods" not in text
