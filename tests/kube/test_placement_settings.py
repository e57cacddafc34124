"""The plan's [placement] table: defaults, validation, and the errors a user sees without a cluster."""

from __future__ import annotations

import json

import pytest

from perflab import plan
from perflab.errors import LabError
from perflab.kube import cluster
from perflab.placements.settings import PlacementSettings


def _placement(**table):
    return plan.validate({"name": "p", "placement": table}).model.placement


def test_local_is_the_default_and_is_stored_with_the_plan():
    p = plan.validate({"name": "p"})
    assert p.data["placement"]["kind"] == "local"
    assert not p.model.placement.on_kubernetes


def test_kubernetes_placement_keeps_its_keys():
    placed = _placement(kind="kubernetes", context="lab", namespace="bench", registry="reg.example:5000")
    assert placed.on_kubernetes and placed.context == "lab" and placed.registry == "reg.example:5000"


@pytest.mark.parametrize("table, words", [
    ({"kind": "k8s"}, "placement.kind"),
    ({"namespace": "Bad_Name"}, "placement.namespace"),
    ({"namespace": "x" * 60}, "at most"),
    ({"contxt": "lab"}, "unknown key placement.contxt"),
    ({"timeout_s": 0}, "placement.timeout_s"),
    ({"postgres_url": "mysql://u@db/x"}, "placement.postgres_url must be postgresql://"),
    ({"images": "push"}, "placement.images = \"push\" needs placement.registry"),
    ({"images": "docker"}, "placement.images"),
])
def test_bad_placement_is_named(table, words):
    with pytest.raises(LabError) as err:
        _placement(**table)
    assert words in err.value.message


def test_no_kubeconfig_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing"))
    with pytest.raises(LabError) as err:
        cluster.connect(PlacementSettings(kind="kubernetes"))
    assert "no kubeconfig" in err.value.message and "missing" in err.value.message


def _kubeconfig(path, server: str, contexts=("a",), current="a"):
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": current,
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": n, "context": {"cluster": "c", "user": "u"}} for n in contexts]}))
    return path


def test_unknown_context_lists_the_known_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(_kubeconfig(tmp_path / "cfg", "https://127.0.0.1:1", ("a", "b"))))
    with pytest.raises(LabError) as err:
        cluster.connect(PlacementSettings(kind="kubernetes", context="prod"))
    assert "'prod' not found" in err.value.message and "a, b" in err.value.fix


def test_unreachable_api_server_is_named(tmp_path, monkeypatch):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("KUBECONFIG", str(_kubeconfig(tmp_path / "cfg", f"https://127.0.0.1:{port}")))
    with pytest.raises(LabError) as err:
        cluster.connect(PlacementSettings(kind="kubernetes"))
    assert "unreachable" in err.value.message and str(port) in err.value.message
