"""The test cluster's one-time Go builds: one package at a time on a shared host, every CPU on a
machine of its own (CI) or as many as PERFLAB_BUILD_JOBS says; a bad value is refused. Two builds
of one release (PERFLAB_KUBE_BUILD): optimized, or without optimizations for the tests, each in a
directory of its own and the latter saying so in its version."""

from __future__ import annotations

import os

import pytest

from tools.kubeenv import build


@pytest.fixture
def env(monkeypatch):
    for name in ("CI", "PERFLAB_BUILD_JOBS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(build.FLAVOUR_ENV, "optimized")
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


def test_the_binaries_are_linked_without_symbols_and_keep_their_version(env):
    flags = build._version_stamp().split()
    assert flags[:2] == ["-s", "-w"]
    assert f"k8s.io/component-base/version.gitVersion={build.KUBERNETES_VERSION}" in flags


def test_the_unoptimized_build_has_a_directory_of_its_own_and_says_so_in_its_version(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", str(tmp_path))
    optimized = build.root()
    env.setenv(build.FLAVOUR_ENV, "unoptimized")
    assert build.root() != optimized and build.root().parent == optimized.parent
    assert f"k8s.io/component-base/version.gitVersion={build.KUBERNETES_VERSION}+unoptimized" in build._version_stamp()
    assert "-gcflags=all=-N -l" in build.go_env()["GOFLAGS"]


def test_either_takes_the_optimized_build_only_once_it_is_complete(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", str(tmp_path))
    optimized = build.root()
    env.setenv(build.FLAVOUR_ENV, "either")
    assert build.flavour() == "unoptimized"
    (optimized / "bin").mkdir(parents=True)
    for name in build.BINARIES[:-1]:
        (optimized / "bin" / name).write_text("")
    assert build.flavour() == "unoptimized"  # one binary and the stages still missing
    (optimized / "bin" / build.BINARIES[-1]).write_text("")
    (optimized / "bin" / "kwok-stages.yaml").write_text("")
    assert build.flavour() == "optimized" and build.root() == optimized and build.built()


def test_an_unknown_build_is_refused(env):
    env.setenv(build.FLAVOUR_ENV, "fast")
    with pytest.raises(build.BuildFailed, match="PERFLAB_KUBE_BUILD must be one of"):
        build.root()
