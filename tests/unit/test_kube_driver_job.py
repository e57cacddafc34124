"""The driver Job of sweep and latency on a cluster: the arguments oha gets there (its real report
turned into figures is tests/lab/test_kube_driver_job.py)."""

from __future__ import annotations

import pytest

from perflab.errors import LabError
from perflab.kube import loadjob, manifests, measure
from perflab.kube.loadjob import Driver, Load, Placed

DRIVER = Driver("perflab-driver-oha:1.16.0", "Never")
APART = Placed("quarkus-jvm-load-abc123", "quarkus-jvm-load-abc123-x1", "node-b", ["node-a"])


def _workload(timeout_s: float = 60) -> measure.Workload:
    return measure.Workload("quarkus", "jvm", "perflab-r1", "r1", {"name": "app"}, "/health/ready", "/hello", False,
                            timeout_s)


def _option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def test_a_closed_loop_jobs_oha_has_connections_duration_json_and_the_services_name():
    job = loadjob.job("j", _workload(), Load("/fruits", 10, 10.0), DRIVER)
    container = job["spec"]["template"]["spec"]["containers"][0]
    args = container["args"]
    assert args[-1] == "http://quarkus-jvm.perflab-r1.svc/fruits"  # the Service's DNS name, inside the cluster
    assert _option(args, "-c") == "10" and _option(args, "-z") == "10000ms"
    assert _option(args, "--output-format") == "json" and "--no-tui" in args
    assert "-q" not in args and "--latency-correction" not in args  # closed loop: as fast as 10 connections go
    assert not args[0].endswith("oha")  # oha is the image's entrypoint: these follow it
    assert container["image"] == DRIVER.image and container["imagePullPolicy"] == "Never"


def test_an_open_loop_jobs_oha_holds_a_rate_with_latency_correction():
    args = loadjob.job("j", _workload(), Load("/fruits", 20, 10.0, rate=250), DRIVER)["spec"]["template"]["spec"][
        "containers"][0]["args"]
    assert _option(args, "-q") == "250" and "--latency-correction" in args and _option(args, "-c") == "20"


def test_the_job_is_bounded_tried_once_and_kept_off_the_apps_node():
    job = loadjob.job("j", _workload(timeout_s=60), Load("/fruits", 10, 10.0, timeout_s=2), DRIVER)
    assert job["spec"]["backoffLimit"] == 0
    assert job["spec"]["activeDeadlineSeconds"] == 60 + 10 + 2 + loadjob.MARGIN_S
    term = job["spec"]["template"]["spec"]["affinity"]["podAntiAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["labelSelector"] == {"matchLabels": {manifests.WORKLOAD: "quarkus-jvm"}}
    assert job["metadata"]["labels"][manifests.RUN] == "r1"


def test_load_is_never_reported_as_from_another_node_when_it_shared_the_apps():
    loadjob.check_apart(APART)
    with pytest.raises(loadjob.Unrunnable, match="node-a, which runs the app's pod"):
        loadjob.check_apart(Placed("j", "p", "node-a", ["node-a"]))
    with pytest.raises(loadjob.Unrunnable, match="no pod of the app"):
        loadjob.check_apart(Placed("j", "p", "node-a", []))


def test_a_log_without_a_report_is_a_clear_error():
    with pytest.raises(LabError, match="no oha JSON report: Error: connection refused"):
        loadjob.report_json("Error: connection refused\n")
    with pytest.raises(LabError, match=r"\(empty\)"):
        loadjob.report_json("")
