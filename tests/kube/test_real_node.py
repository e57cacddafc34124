"""The Kubernetes placement on a real node: the test control plane (tools.kubeenv.testenv) with one
node whose kubelet runs the pods under containerd and runc (tools.kubeenv.node), and a PostgreSQL
its pods reach. The Go reference's image, as the lab writes it, is loaded into the node and a plan
runs through the CLI: its pods start, answer through their Service, carry the plan's limits down
to their cgroups, and nothing is left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tools.kubeenv import build, node, testenv
from perflab.store import Store
from tests.conftest import needs_root

pytestmark = [pytest.mark.slow,
              needs_root("a real node runs containers as root")]
REPO = Path(__file__).resolve().parents[2]
MEMORY_MB = 128
CPUS = 1

PLAN = f"""
name = "kube-real-node-test"
apps = ["go-reference"]
modes = ["native"]
verify = false
scenarios = ["startup", "scaleup", "density"]
repeats = 1
[limits]
cpus = {CPUS}
memory_mb = {MEMORY_MB}
[placement]
kind = "kubernetes"
namespace = "perflab-real"
images = "tarball"
postgres_url = "{{url}}"
timeout_s = 120
[startup]
runs = 2
[scaleup]
runs = 2
[density]
budget_mb = {10 * MEMORY_MB + MEMORY_MB // 2}
max_instances = 12
"""


@pytest.fixture(scope="module")
def real_cluster():
    why = node.missing()
    if why:
        pytest.fail(f"no real node can run here: {why}")
    try:
        build.build_node()
    except build.BuildFailed as exc:
        pytest.fail(f"the kubelet could not be built: {exc}")
    with testenv.running(nodes=0) as plane, node.running(plane.kubeconfig) as real, \
            testenv.database_for_pods() as url:
        yield plane, real, url


def _run(plan: Path, kubeconfig: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "perflab", "run", str(plan)], cwd=REPO, text=True,
                            env=dict(os.environ, KUBECONFIG=str(kubeconfig)),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _pod_limits() -> set[tuple[int, int]]:
    """(memory limit, CPU quota) of every pod cgroup the kubelet made on the node right now."""
    found = set()
    kubepods = Path("/sys/fs/cgroup/memory") / node.CGROUP_ROOT.strip("/") / "kubepods"
    for pod in kubepods.glob("pod*") if kubepods.is_dir() else []:  # Guaranteed pods sit right below
        cpu = Path("/sys/fs/cgroup/cpu") / pod.relative_to("/sys/fs/cgroup/memory")
        try:
            found.add((int((pod / "memory.limit_in_bytes").read_text()), int((cpu / "cpu.cfs_quota_us").read_text())))
        except (OSError, ValueError):  # the pod went away meanwhile
            pass
    return found


def test_a_plan_runs_its_pods_on_a_real_node_with_its_limits_and_leaves_nothing(real_cluster, workdir, tmp_path):
    plane, real, url = real_cluster
    plan = tmp_path / "real.toml"
    plan.write_text(PLAN.format(url=url))

    # the lab writes the image, finds the node without it, and says how to load it
    out, _ = _run(plan, plane.kubeconfig).communicate(timeout=600)
    assert "the nodes lack the run's images" in out and f"on {node.NAME}" in out, out
    [tarball] = list((workdir / "images").glob("perflab-go-reference-native-*.tar"))
    real.load(tarball)

    proc = _run(plan, plane.kubeconfig)
    limits: set[tuple[int, int]] = set()
    while proc.poll() is None:  # the pods' cgroups while they live
        limits |= _pod_limits()
        time.sleep(0.2)
    out = proc.stdout.read()
    assert proc.returncode == 0, out
    assert (MEMORY_MB * 2**20, int(CPUS * 100_000)) in limits, limits  # CPU time per 100 ms period

    run = Store().run("last")
    assert run["status"] == "complete"
    figures = Store().figures(run["id"])
    assert figures and not any("simulated-nodes" in f.flags for f in figures)
    metrics = {(f.scenario, f.metric) for f in figures}
    # the first 200 came through the Service: an app answered from its pod
    assert {("startup", "ready_ms"), ("startup", "ttfr_ms"), ("scaleup", "ready_ms")} <= metrics
    ttfr = [f.value for f in figures if f.metric == "ttfr_ms"]
    assert len(ttfr) == 2 and all(v > 0 for v in ttfr)
    [instances] = [f for f in figures if f.metric == "instances"]
    # ten 1-CPU pods on a two-core node: each requested a sliver of CPU, and the quota refused the 11th
    assert instances.value == 10, instances.extra
    assert "ResourceQuota refused" in instances.extra["stopped_by"]
    ten = [f for f in figures if f.metric == "cgroup_10_instances_mb"]  # read from the kubelet's summary
    assert len(ten) == 1, " | ".join(f"{o['scenario']}: {o['reason']}" for o in Store().outcomes(run["id"]))
    [ten] = ten
    assert "kubelet" in ten.extra["source"] and 0 < ten.value < 10 * MEMORY_MB, (ten.value, ten.extra)
    env = json.loads(run["environment_json"])
    assert env["placement"]["simulated_nodes"] is False
    password = urlsplit(url).password
    assert password and password not in run["plan_json"] and ":***@" in run["plan_json"]

    from kubernetes import client, config

    with config.new_client_from_config(config_file=str(plane.kubeconfig)) as api:
        core = client.CoreV1Api(api)
        assert [n.metadata.name for n in core.list_namespace().items if n.metadata.name.startswith("perflab-real")] == []
        assert core.list_pod_for_all_namespaces().items == []
    deadline = time.monotonic() + 30  # the kubelet removes a deleted pod's cgroups within seconds
    while _pod_limits() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _pod_limits() == set()


def test_a_second_real_node_is_refused_and_the_first_keeps_its_network(real_cluster, tmp_path):
    plane, real, _ = real_cluster
    second = node.Node(tmp_path, plane.kubeconfig)
    with pytest.raises(node.NodeFailed, match=f"another real node runs on this machine \\(pid {os.getpid()}"):
        second.start()
    second.stop()  # what a failed start's clean-up does: nothing of the first node's
    assert subprocess.run(["ip", "link", "show", node.BRIDGE], capture_output=True).returncode == 0
    real.check_alive()
