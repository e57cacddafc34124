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


def _fit_table(store, plan: dict):
    from perflab import results

    run = store.begin_run(plan, {})
    store.add_figure(run, "quarkus", "jvm", "density", "instances", 4.0, "count", point="", repeat=1)
    store.finish_run(run, "complete")
    return next(t for t in density.tables(results.load(store, run)) if t.key == "density-fit")


def test_a_cluster_runs_density_table_says_it_counts_memory_limits_against_a_quota(tmp_path):
    from perflab.store import Store

    store = Store(tmp_path / "results.sqlite")
    try:
        cluster = _fit_table(store, {"scenarios": ["density"], "placement": {"kind": "kubernetes"},
                                     "limits": {"memory_mb": 512}, "density": {"budget_mb": 2048}})
        assert "memory limits (512 MB each) against a ResourceQuota of 2048 MB" in cluster.note
        assert "not the memory they use" in cluster.note
        local = _fit_table(store, {"scenarios": ["density"], "limits": {"memory_mb": 512}})
        assert "ResourceQuota" not in local.note and "quota" not in local.title
    finally:
        store.close()
