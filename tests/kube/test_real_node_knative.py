"""Serverless cold start through a real Knative Serving (tools.kubeenv.knative, compiled from the Go
module proxy) on the real node: the lab's Knative Services scale to zero, and a request sent to
Knative's activator starts a pod and is answered by it. Knative's autoscaler reaches the activator
by a Service's DNS name and cluster IP before it lets a revision go to zero, so this also proves
the node's cluster DNS and kube-proxy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.kubeenv import build, knative, node, testenv
from perflab.store import Store
from tests.conftest import needs_root

pytestmark = [pytest.mark.slow,
              needs_root("a real node runs containers as root")]
REPO = Path(__file__).resolve().parents[2]

PLAN = """
name = "kube-knative-test"
apps = ["go-reference"]
modes = ["native"]
verify = false
scenarios = ["coldstart"]
repeats = 1
[limits]
cpus = 1
memory_mb = 128
[placement]
kind = "kubernetes"
namespace = "perflab-kn"
images = "tarball"
postgres_url = "{url}"
timeout_s = 120
[coldstart]
runs = 1
"""


@pytest.fixture(scope="module")
def knative_cluster():
    why = node.missing()
    if why:
        pytest.fail(f"no real node can run here: {why}")
    try:
        build.build_node()
        knative.build_binaries()
    except build.BuildFailed as exc:
        pytest.fail(f"the node or Knative could not be built: {exc}")
    with testenv.running(nodes=0) as plane, node.running(plane.kubeconfig) as real, \
            testenv.database_for_pods() as url:
        knative.install(plane.kubeconfig, real)
        yield plane, real, url


def _run(plan: Path, kubeconfig: Path) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "perflab", "run", str(plan)], cwd=REPO, text=True, timeout=900,
                          env=dict(os.environ, KUBECONFIG=str(kubeconfig)), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    return done.returncode, done.stdout


def test_a_cold_start_through_knative_starts_a_pod_from_zero_and_leaves_nothing(knative_cluster, workdir, tmp_path):
    plane, real, url = knative_cluster
    plan = tmp_path / "knative.toml"
    plan.write_text(PLAN.format(url=url))
    code, out = _run(plan, plane.kubeconfig)
    assert code != 0 and "the nodes lack the run's images" in out, out
    [tarball] = list((workdir / "images").glob("perflab-go-reference-native-*.tar"))
    real.load(tarball)

    code, out = _run(plan, plane.kubeconfig)
    assert code == 0, out
    run = Store().run("last")
    outcomes = {o["scenario"]: (o["status"], o["reason"]) for o in Store().outcomes(run["id"])}
    assert outcomes["coldstart"][0] == "ok", outcomes
    figures = {f.metric: f for f in Store().figures(run["id"]) if f.scenario == "coldstart"}
    assert {"ttfr_ms", "reference_ttfr_ms", "ttfr_minus_reference_ms"} <= set(figures), figures
    app, ref = figures["ttfr_ms"], figures["reference_ttfr_ms"]
    assert app.value > 0 and ref.value > 0
    assert figures["ttfr_minus_reference_ms"].value == pytest.approx(app.value - ref.value)
    # both sides went through Knative's activator to a revision at zero (a pod older than the request
    # would have failed the launch: perflab.kube.coldstart.ScaleFromZero)
    assert "activator" in app.extra["app_url"] and "activator" in app.extra["reference_url"], app.extra

    from kubernetes import client, config

    with config.new_client_from_config(config_file=str(plane.kubeconfig)) as api:
        core = client.CoreV1Api(api)
        assert [n.metadata.name for n in core.list_namespace().items if n.metadata.name.startswith("perflab-kn")] == []
        assert [p.metadata.name for p in core.list_pod_for_all_namespaces().items
                if p.metadata.namespace != knative.NAMESPACE] == []
