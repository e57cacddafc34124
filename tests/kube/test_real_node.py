"""The Kubernetes placement on a real node: the test control plane (tools.kubeenv.testenv) with one
node whose kubelet runs the pods under containerd and runc (tools.kubeenv.node), and a PostgreSQL
its pods reach. The Go reference's image, as the lab writes it, is loaded into the node and a plan
runs through the CLI: its pods start, answer the lab through a port-forward and the load from the
run's driver pod, carry the plan's limits down to their cgroups, and nothing is left behind."""

from __future__ import annotations

import json
import os
import re
import signal
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
scenarios = ["startup", "steady", "sweep", "density", "coldstart"]
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
driver_apart = false
[startup]
runs = 2
[steady]
launches = 1
window = 3
warmup_max_s = 8
measure_max_s = 4
points = [{{path = "/fruits", connections = 2}}]
[sweep]
series = [{{name = "fruits", path = "/fruits", connections = [2]}}]
duration_s = 2
warmup_s = 1
[density]
budget_mb = {4 * MEMORY_MB + MEMORY_MB // 2}
max_instances = 6
load_duration_s = 2
warmup_s = 1
rest_s = 12  # the kubelet refreshes its summary every 10-15 s
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


def test_a_plan_runs_startup_steady_sweep_and_density_on_a_real_node_through_the_one_runner(real_cluster, workdir,
                                                                                           tmp_path, monkeypatch):
    """The same scenario modules as on one machine, with the lab's ClusterRole and nothing more: pods
    under the plan's limits, the load from the driver pod, progress, a report, nothing left behind."""
    from kubernetes import client, config

    from perflab.kube import cluster as kube_cluster, coldstart, manifests
    from perflab.kube.objects import Objects
    from perflab.placements.settings import PlacementSettings

    plane, real, url = real_cluster
    plan = tmp_path / "real.toml"
    plan.write_text(PLAN.replace("{url}", url))

    # the lab writes the images, finds the node without them, and says how to load them
    out, _ = _run(plan, plane.kubeconfig).communicate(timeout=900)
    assert "the nodes lack the run's images" in out and f"on {node.NAME}" in out, out
    tarballs = list((workdir / "images").glob("*.tar"))
    assert {t.name.split("-")[1] for t in tarballs} >= {"go", "driver"}, tarballs  # the app's and the driver's
    for tarball in tarballs:
        real.load(tarball)

    monkeypatch.setenv("KUBECONFIG", str(plane.kubeconfig))  # this test's own calls, as the cluster's admin
    admin = Objects(kube_cluster.connect(PlacementSettings(kind="kubernetes")))
    admin.create(manifests.lab_cluster_role())
    admin.create(manifests.lab_role_binding(testenv.LAB_USER))
    try:
        proc = _run(plan, plane.lab_kubeconfig)  # as a user bound to the lab's ClusterRole only
        limits: set[tuple[int, int]] = set()
        while proc.poll() is None:  # the pods' cgroups while they live
            limits |= _pod_limits()
            time.sleep(0.2)
        out = proc.stdout.read()
    finally:
        admin.delete("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", manifests.LAB)
        admin.delete("rbac.authorization.k8s.io/v1", "ClusterRole", manifests.LAB)
    assert proc.returncode == 0, out
    assert (MEMORY_MB * 2**20, int(CPUS * 100_000)) in limits, limits  # CPU time per 100 ms period
    # the runner's progress, with steady's launch in the run's launch rounds as on one machine
    assert re.search(r"\[\d+/\d+\] go-reference/native startup", out), out
    assert re.search(r"\[\d+/\d+\] round 1", out), out
    assert "load driver: pod driver-" in out, out

    run = Store().run("last")
    assert run["status"] == "complete"
    outcomes = {o["scenario"]: (o["status"], o["reason"]) for o in Store().outcomes(run["id"])}
    assert all(outcomes[s][0] == "ok" for s in ("startup", "steady", "sweep:fruits", "density")), outcomes
    # what only the cluster can say, said when the scenario's turn comes: it has no Knative
    assert outcomes["coldstart"] == ("unavailable", f"on kubernetes: {coldstart.NO_KNATIVE}"), outcomes
    figures = Store().figures(run["id"])
    by = {}
    for f in figures:
        by.setdefault((f.scenario, f.metric), []).append(f)
    # the first responses came through the port-forward: an app answered from its pod, twice
    assert len(by[("startup", "ttfr_ms")]) == 2 and all(f.value > 0 for f in by[("startup", "ttfr_ms")])
    # steady and sweep: load from the driver pod, which shared the one node with the app (flagged)
    for scenario in ("steady", "sweep"):
        rps = by[(scenario, "rps")]
        assert rps and all(f.value > 0 for f in rps), rps
        assert all("driver-on-app-node" in f.flags for f in rps), [f.flags for f in rps]
    [instances] = by[("density", "instances")]
    # four 128 MB pods fit 4.5 x 128 MB; the quota refused the fifth (CPU did not: each requests a sliver)
    assert instances.value == 4, (instances.extra, outcomes["density"])
    [rest] = by[("density", "cgroup_memory_mb")]  # the pods' working sets, from the kubelet's summary
    assert 0 < rest.value < 4 * MEMORY_MB, rest.extra
    env = json.loads(run["environment_json"])
    assert env["placement"]["kind"] == "kubernetes" and "driver" in env["topology"]["description"]
    password = urlsplit(url).password
    assert password and password not in run["plan_json"] and ":***@" in run["plan_json"]
    assert (workdir / "reports" / run["id"] / "report.html").is_file()

    with config.new_client_from_config(config_file=str(plane.kubeconfig)) as api:
        core = client.CoreV1Api(api)
        assert [n.metadata.name for n in core.list_namespace().items if n.metadata.name.startswith("perflab-real")] == []
        assert core.list_pod_for_all_namespaces().items == []
    deadline = time.monotonic() + 30  # the kubelet removes a deleted pod's cgroups within seconds
    while _pod_limits() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _pod_limits() == set()


def _startup_only(url: str, runs: int) -> str:
    text = PLAN.replace("{url}", url).replace('"startup", "steady", "sweep", "density", "coldstart"', '"startup"')
    return text.replace("[startup]\nruns = 2", f"[startup]\nruns = {runs}")


def _load_app_image(real) -> None:
    from perflab import apps
    from perflab.kube import images

    app = apps.discover()["go-reference"]
    real.load(images.build(app, "native", images="tarball", registry="", log=lambda line: None).tarball)


def _left_on_cluster(kubeconfig: Path) -> tuple[list[str], list[str]]:
    from kubernetes import client, config

    from perflab.kube import manifests

    with config.new_client_from_config(config_file=str(kubeconfig)) as api:
        core = client.CoreV1Api(api)
        return ([n.metadata.name for n in core.list_namespace(label_selector=manifests.run_selector()).items],
                [p.metadata.name for p in core.list_pod_for_all_namespaces(label_selector=manifests.run_selector()).items])


def test_ctrl_c_during_a_cluster_run_deletes_everything_the_run_created(real_cluster, workdir, tmp_path):
    from kubernetes import client, config

    from perflab.kube import manifests

    plane, real, url = real_cluster
    _load_app_image(real)
    plan = tmp_path / "ctrl-c.toml"
    plan.write_text(_startup_only(url, runs=200))
    proc = _run(plan, plane.kubeconfig)
    try:
        with config.new_client_from_config(config_file=str(plane.kubeconfig)) as api:
            core = client.CoreV1Api(api)
            deadline = time.monotonic() + 300
            while not core.list_pod_for_all_namespaces(label_selector=f"{manifests.ROLE}=app").items:
                assert proc.poll() is None, proc.stdout.read()
                assert time.monotonic() < deadline, "no app pod of the run within 300 s"
                time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0 and "Traceback" not in out, out
    assert Store().run("last")["status"] == "interrupted"
    assert _left_on_cluster(plane.kubeconfig) == ([], []), out


def test_a_fault_of_the_labs_own_mid_run_is_stored_as_failed_and_leaves_nothing(real_cluster, workdir, tmp_path,
                                                                               monkeypatch):
    from perflab import plan as plans, runner

    plane, real, url = real_cluster
    _load_app_image(real)
    monkeypatch.setenv("KUBECONFIG", str(plane.kubeconfig))

    def fault(*args, **kwargs):  # after the run's namespace, database Secret and placement exist
        assert _left_on_cluster(plane.kubeconfig)[0], "the run's namespace should exist by now"
        raise RuntimeError("injected fault")

    monkeypatch.setattr(runner, "run_target", fault)
    path = tmp_path / "fault.toml"
    path.write_text(_startup_only(url, runs=2))
    with pytest.raises(RuntimeError, match="injected fault"):
        runner.run_plan(plans.load(str(path)), say=lambda line: None)
    run = Store().run("last")
    assert run["status"] == "failed" and "injected fault" in run["note"]
    assert _left_on_cluster(plane.kubeconfig) == ([], [])


def test_a_second_real_node_is_refused_and_the_first_keeps_its_network(real_cluster, tmp_path):
    plane, real, _ = real_cluster
    second = node.Node(tmp_path, plane.kubeconfig)
    with pytest.raises(node.NodeFailed, match=f"another real node runs on this machine \\(pid {os.getpid()}"):
        second.start()
    second.stop()  # what a failed start's clean-up does: nothing of the first node's
    assert subprocess.run(["ip", "link", "show", node.BRIDGE], capture_output=True).returncode == 0
    real.check_alive()


def _instance_spec(limits_mb: int):
    from perflab import apps, isolate
    from perflab.instance import InstanceSpec

    app = apps.discover()["go-reference"]
    return InstanceSpec(run_id="pod-instance-test", app=app, mode="native",
                        limits=isolate.Limits(cpus=[0], cpu_quota=CPUS, memory_mb=limits_mb), db_env={},
                        log_dir=Path("."))


def test_a_pod_is_an_instance_the_lab_polls_samples_and_removes(real_cluster, workdir, monkeypatch):
    from perflab.errors import AppFailed
    from perflab.kube import cluster as kube_cluster, images, manifests
    from perflab.kube.objects import Objects
    from perflab.kube.pod_instance import PodInstance
    from perflab.placements.settings import PlacementSettings
    from perflab.postgres import Connection

    plane, real, url = real_cluster
    monkeypatch.setenv("KUBECONFIG", str(plane.kubeconfig))
    spec = _instance_spec(MEMORY_MB)
    built = images.build(spec.app, "native", images="tarball", registry="", log=lambda m: None)
    real.load(built.tarball)
    objs = Objects(kube_cluster.connect(PlacementSettings(kind="kubernetes")))
    namespace = "perflab-pod-instance"
    objs.create_namespace(namespace, spec.run_id)
    container = manifests.app_container(image=built.image, cpus=CPUS, memory_mb=MEMORY_MB, jvm_opts=[],
                                        db_env=Connection.from_url(url).app_env(), ready_path=spec.app.ready_path,
                                        mode="native")
    try:
        inst = PodInstance(objs, namespace, spec.run_id, spec, container, "i1").start()
        try:
            ready = inst.wait_until_ready(120)
            # polled from the pod's creation through the port-forward: the image was on the node
            assert ready.ok and 0 < ready.elapsed_ms < 120_000 and ready.attempts > 1
            first = inst.first_response(spec.app.first_response_path, 30)
            assert first.ok and first.elapsed_ms >= ready.elapsed_ms
            assert inst.load_url.startswith("http://") and inst.load_url.endswith(f":{manifests.CONTAINER_PORT}")
            inst.check_alive()
            time.sleep(12)  # the kubelet's summary has the pod's figures after its next housekeeping pass
            samples = [s for s in inst.sampler.snapshot().samples if s.cgroup_memory_bytes]
            assert samples and 0 < samples[-1].cgroup_memory_bytes < MEMORY_MB * 2**20
            assert inst.pid is None and inst.end_reason() == ""
        finally:
            series = inst.stop()
        assert series is not None and series.samples
        core = objs.cluster.core()
        assert [p.metadata.name for p in core.list_namespaced_pod(namespace).items] == []

        # a pod that cannot run says why at once, not after the time-out
        missing = PodInstance(objs, namespace, spec.run_id, spec, {**container, "image": "perflab-absent:0",
                                                                    "imagePullPolicy": "Never"}, "i2").start()
        try:
            started = time.monotonic()
            with pytest.raises(AppFailed, match="ErrImageNeverPull"):
                missing.wait_until_ready(120)
            assert time.monotonic() - started < 60
        finally:
            missing.stop()
    finally:
        objs.delete_namespace(namespace)
