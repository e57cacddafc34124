"""The test cluster's one-time Go builds: one package at a time on a shared host, every CPU on a
machine of its own (CI) or as many as PERFLAB_BUILD_JOBS says; a bad value is refused."""

from __future__ import annotations

import os

import pytest

from tools.kubeenv import build


@pytest.fixture
def env(monkeypatch):
    for name in ("CI", "PERFLAB_BUILD_JOBS"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_a_shared_host_compiles_one_package_at_a_time(env):
    assert build.build_jobs() == 1
    assert build.go_env("-mod=mod")["GOFLAGS"] == "-mod=mod -p=1"


def test_ci_compiles_on_every_cpu(env):
    env.setenv("CI", "true")
    assert build.build_jobs() == (os.cpu_count() or 1)
    assert build.go_env()["GOFLAGS"] == f"-p={os.cpu_count() or 1}"


def test_the_jobs_can_be_given_and_a_bad_count_is_refused(env):
    env.setenv("CI", "true")
    env.setenv("PERFLAB_BUILD_JOBS", "3")
    assert build.build_jobs() == 3
    for bad in ("0", "two", "-1"):
        env.setenv("PERFLAB_BUILD_JOBS", bad)
        with pytest.raises(build.BuildFailed, match="PERFLAB_BUILD_JOBS"):
            build.build_jobs()


def test_the_binaries_are_linked_without_symbols_and_keep_their_version():
    flags = build._version_stamp().split()
    assert flags[:2] == ["-s", "-w"]
    assert f"k8s.io/component-base/version.gitVersion={build.KUBERNETES_VERSION}" in flags
