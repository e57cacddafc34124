"""A real control plane for the Kubernetes tests: built once per machine by the project's own
build (perflab.kube.build, tens of minutes the first time), started once per pytest run."""

from __future__ import annotations

import pytest

from perflab.kube import build, testenv


@pytest.fixture(scope="session")
def control_plane():
    try:
        build.build()
    except build.BuildFailed as exc:
        pytest.fail(f"the test control plane could not be built: {exc}")
    with testenv.running(nodes=2) as plane:
        yield plane


@pytest.fixture
def kube_env(control_plane, monkeypatch, workdir):
    """KUBECONFIG pointing at the test control plane, and a private lab work directory."""
    monkeypatch.setenv("KUBECONFIG", str(control_plane.kubeconfig))
    return control_plane
