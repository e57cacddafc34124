"""The load on a cluster: the arguments oha gets in the run's driver pod, and the pod kept apart from
the apps' (the real oha's output turned into a load's result is tests/lab/test_kube_driver_output.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from perflab.errors import LabError
from perflab.kube import cluster_load, manifests
from perflab.kube.cluster_load import Load, oha_args, report_json

URL = "http://10.1.0.7:8080/fruits"


def _option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def test_a_closed_loop_gets_connections_duration_json_and_the_pods_address():
    args = oha_args(URL, Load("/fruits", 10, 10.0))
    assert args[-1] == URL
    assert _option(args, "-c") == "10" and _option(args, "-z") == "10000ms"
    assert _option(args, "--output-format") == "json" and "--no-tui" in args
    assert "-q" not in args and "--latency-correction" not in args  # closed loop: as fast as 10 connections go
    assert not args[0].endswith("oha")  # they follow the driver's oha (manifests.DRIVER_OHA) in the exec


def test_an_open_loop_holds_a_rate_with_latency_correction():
    args = oha_args(URL, Load("/fruits", 20, 10.0, rate=250))
    assert _option(args, "-q") == "250" and "--latency-correction" in args and _option(args, "-c") == "20"


def test_the_driver_pod_kept_apart_shuns_every_app_pod_of_the_run_in_any_of_its_namespaces():
    pod = manifests.driver_pod("driver-r1", "r1", image="perflab-driver-oha:1", pull_policy="Never", apart=True)
    [term] = pod["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["labelSelector"] == {"matchLabels": {manifests.ROLE: "app"}}
    assert term["namespaceSelector"] == {"matchLabels": {manifests.RUN: "r1"}}  # density's namespace too
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert pod["metadata"]["labels"][manifests.ROLE] == "driver" and pod["metadata"]["labels"][manifests.RUN] == "r1"
    [container] = pod["spec"]["containers"]
    assert container["imagePullPolicy"] == "Never" and "command" not in container  # its keeper holds it open
    assert "affinity" not in manifests.driver_pod("d", "r1", image="i", apart=False)["spec"]  # a one-node cluster


def test_an_app_pod_is_never_restarted_and_is_what_the_driver_shuns():
    pod = manifests.app_pod("quarkus-jvm-i1", "r1", {"name": "app", "image": "i"}, "quarkus-jvm")
    assert pod["spec"]["restartPolicy"] == "Never"  # a crash ends the instance, as a process's does
    assert pod["metadata"]["labels"][manifests.ROLE] == "app"
    assert pod["metadata"]["labels"][manifests.WORKLOAD] == "quarkus-jvm"


def test_output_without_a_report_is_a_clear_error():
    with pytest.raises(LabError, match="no oha JSON report: Error: connection refused"):
        report_json("Error: connection refused\n")
    with pytest.raises(LabError, match=r"\(empty\)"):
        report_json("")


class _Driver:
    """A driver pod whose exec loses its end `losses` times before it returns."""

    def __init__(self, losses: int) -> None:
        self.losses, self.calls = losses, 0

    def check_apart(self) -> list[str]:
        return []

    def exec(self, argv: list[str], limit_s: float) -> str:
        self.calls += 1
        if self.calls <= self.losses:
            raise cluster_load.DriverTimeout(f"the load driver did not finish within {limit_s:.0f} s")
        return "report"


def test_an_exec_that_lost_its_end_runs_once_more_and_a_second_loss_fails(monkeypatch):
    monkeypatch.setattr(cluster_load, "oha_result",
                        lambda out, url, load, warmup_s=0.0: SimpleNamespace(out=out, placement_flags=[]))
    once = _Driver(losses=1)
    got = cluster_load.ClusterLoad(once).closed(URL, connections=2, threads=1, duration_s=1)
    assert got.out == "report" and once.calls == 2
    twice = _Driver(losses=2)
    with pytest.raises(LabError, match="did not finish within"):
        cluster_load.ClusterLoad(twice).closed(URL, connections=2, threads=1, duration_s=1)
    assert twice.calls == 2
