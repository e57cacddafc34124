"""The Kubernetes placement against a real kube-apiserver (+ etcd, controller manager, scheduler)
with kwok-simulated nodes: schemas via server-side dry run, the cluster record, leftover clean-up,
the refusal of a run on simulated nodes, and the parts of a cluster run that need no container:
where the scheduler puts the driver pod, density's quota, a pod that cannot get its image.

Pods on simulated nodes run no containers: these tests check the lab's own logic (what it creates,
watches and deletes), never a framework's figures; whole runs are tests/kube/test_real_node.py's."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from perflab.errors import AppFailed, BudgetRefused, LabError
from perflab.kube import cluster, coldstart, manifests as m, pod_state, prepare, site
from perflab.kube.cluster_load import DriverPod
from perflab.kube.objects import KindUnavailable, Objects
from perflab.kube.on_cluster import ClusterPlacement
from perflab.kube.pod_instance import PodInstance
from perflab.placements.settings import PlacementSettings
from perflab.store import Store
from tools.kubeenv import testenv

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def objs(kube_env):
    return Objects(cluster.connect(PlacementSettings(kind="kubernetes")))


def _namespace(objs, name, run_id="20260101-000000-test"):
    objs.create_namespace(name, run_id)  # once it takes pods
    return name


def _app_container():
    return m.app_container(image="perflab-quarkus-jvm:1", cpus=1, memory_mb=512, jvm_opts=["-Xmx256m"],
                           db_env=m.db_env_in_namespace("ns"), ready_path="/health/ready", mode="jvm", db_secret="postgres")


def _every_manifest(run_id):
    c = _app_container()
    return [m.db_secret(run_id, "pw"), *m.postgres(run_id, "postgres:15"), m.app_pod("quarkus-jvm-i1", run_id, c, "quarkus-jvm"),
            m.driver_pod("driver-r", run_id, image="driver:1"), m.resource_quota(run_id, 2048)]


def test_rendered_manifests_pass_the_api_servers_dry_run(objs):
    ns = _namespace(objs, "perflab-dryrun")
    try:
        assert objs.dry_run(_every_manifest("r1"), ns) == []
        assert objs.cluster.core().list_namespaced_pod(ns).items == []  # a dry run stores nothing
        broken = m.app_pod("bad", "r1", {"name": "app", "image": "x", "resources": {"limits": {"memory": "lots"}}},
                           "bad")
        problems = objs.dry_run([broken], ns)
        assert len(problems) == 1 and "quantities must match" in problems[0]
    finally:
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"  # gone before the next test looks


def test_knative_service_is_unavailable_without_knative(objs):
    assert not objs.serves("serving.knative.dev/v1", "Service")
    assert coldstart.unavailable(objs) == coldstart.NO_KNATIVE  # what a run records for cold start here
    with pytest.raises(KindUnavailable, match="Knative|serving.knative.dev"):
        objs.create(m.knative_service("q", "r", {"name": "app", "image": "x"}), "default")


def test_the_cluster_record_names_nodes_and_no_credential(objs, control_plane):
    env = cluster.environment(objs.cluster)
    assert env["context"] == "perflab-test" and env["version"].startswith("v1.")
    assert len(env["nodes"]) == 2 and env["simulated_nodes"]
    assert {n["cpus"] for n in env["nodes"]} == {testenv.NODE_CPUS} and all(n["memory_mb"] == 8192 for n in env["nodes"])
    assert control_plane.token not in json.dumps(env)


def test_a_crashed_runs_namespace_is_removed_a_live_ones_kept(objs):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    crashed = m.namespace("perflab-crashed", "20260101-000000-dead", f"{socket.gethostname()}:{dead.pid}")
    live = m.namespace("perflab-live", "20260101-000000-live", f"{socket.gethostname()}:{os.getpid()}")
    objs.create(crashed)
    objs.create(live)
    try:
        said = []
        assert objs.remove_leftovers(said.append) == ["perflab-crashed"]
        assert any("perflab-crashed" in line for line in said)
        assert objs.cluster.core().read_namespace("perflab-live").status.phase == "Active"
    finally:
        objs.delete_namespace("perflab-live")
        objs.delete_namespace("perflab-crashed")


PLAN = """
name = "kube-test"
apps = ["quarkus"]
modes = ["jvm"]
scenarios = [{scenarios}]
repeats = 1
[limits]
cpus = 1
memory_mb = 768
jvm_opts = ["-Xmx300m"]
[placement]
kind = "kubernetes"
namespace = "perflab-t"
timeout_s = 60
"""


def _plan(tmp_path, scenarios):
    path = tmp_path / "kube.toml"
    path.write_text(PLAN.format(scenarios=", ".join(f'"{s}"' for s in scenarios)))
    return path


def _lab_namespaces(objs):
    return [ns.metadata.name for ns in objs.lab_namespaces()]


def _cli(plan_path):
    return subprocess.Popen([sys.executable, "-m", "perflab", "run", str(plan_path)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_run_on_simulated_nodes_is_refused_at_once_with_the_fix_and_nothing_created(objs, tmp_path):
    started = time.monotonic()
    proc = _cli(_plan(tmp_path, ["startup", "steady"]))
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode != 0 and "Traceback" not in out, out
    assert "simulated (kwok)" in out and "--real-node" in out, out  # why, and where a real node comes from
    assert "building" not in out, out  # before any image is made
    assert time.monotonic() - started < 60, out
    assert Store().runs() == [] and _lab_namespaces(objs) == []


def test_without_rights_the_run_stops_with_the_labs_cluster_role_as_the_fix(objs, control_plane, tmp_path,
                                                                            monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(control_plane.lab_kubeconfig))  # a user bound to nothing
    refused = _cli(_plan(tmp_path, ["startup"]))
    out, _ = refused.communicate(timeout=300)
    assert refused.returncode != 0 and "forbidden" in out, out
    assert "Traceback" not in out and "ClusterRole" in out, out  # said as a fix, not a crash


def test_a_users_database_url_keeps_its_password_in_the_runs_secret(objs):
    ns = _namespace(objs, "perflab-dburl")
    closing = []
    try:
        placement = PlacementSettings(kind="kubernetes", postgres_url="postgresql://app:s3cret@db.example:5433/shop")
        lab_db, apps_db = site._database(objs, ns, "r", placement, closing)
        assert (lab_db.host, lab_db.port, lab_db.user, lab_db.password) == ("db.example", 5433, "app", "s3cret")
        assert apps_db == ("db.example", 5433) and closing == []  # no port-forward to a database of the run's
        stored = objs.cluster.core().read_namespaced_secret(m.POSTGRES, ns).data["password"]
        assert base64.b64decode(stored).decode() == "s3cret"
        container = m.app_container(image="i", cpus=1, memory_mb=256, jvm_opts=[], db_env=lab_db.app_env(),
                                    ready_path="/health/ready", mode="jvm", db_secret=m.POSTGRES)
        assert "s3cret" not in json.dumps(container)
        assert objs.cluster.core().list_namespaced_pod(ns).items == []  # no PostgreSQL of the run's own
    finally:
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"  # gone before the next test looks


def test_an_object_the_api_server_refuses_stops_the_run_with_its_words_before_anything_is_created(objs):
    """An app whose mode sets an environment variable the API refuses (a name with '=')."""
    bad = m.app_container(image="i", cpus=1, memory_mb=256, jvm_opts=[], db_env={}, ready_path="/health/ready",
                          mode="main", mode_env={"GOGC=off": "1"})
    with pytest.raises(LabError) as err:
        prepare.dry_run(objs, [m.app_pod("go-copy-main-i1", "r", bad, "go-copy-main")])
    assert "nothing was created" in err.value.message and "GOGC=off" in err.value.message
    assert "valid environment variable name" in err.value.message  # the API server's own message
    assert objs.cluster.core().list_pod_for_all_namespaces(label_selector=m.run_selector()).items == []


# -- pods, the driver pod and density's quota, on simulated nodes --------------------------------

def _spec(name="quarkus", mode="jvm", memory_mb=256):
    return SimpleNamespace(app=SimpleNamespace(name=name, ready_path="/health/ready"), mode=mode,
                           limits=SimpleNamespace(memory_mb=memory_mb, cpu_quota=1.0))


def _container(image="perflab-quarkus-jvm:1", memory_mb=256):
    return m.app_container(image=image, cpus=1, memory_mb=memory_mb, jvm_opts=[], db_env={},
                           ready_path="/health/ready", mode="jvm")


def test_a_pod_whose_image_cannot_be_pulled_fails_at_once_naming_the_image_and_the_fix(objs):
    """The simulated kubelets cannot pull from testenv.UNPULLABLE_REGISTRY (ErrImagePull, as a real
    node says for a registry it cannot resolve): the instance fails within seconds, not its timeout."""
    ns = _namespace(objs, "perflab-nopull")
    image = f"{testenv.UNPULLABLE_REGISTRY}/perflab-quarkus-jvm:1"
    inst = PodInstance(objs, ns, "r", _spec(), _container(image), "i1")
    try:
        started = time.monotonic()
        inst.start()
        with pytest.raises(AppFailed) as err:
            inst.wait_until_ready(600)
        assert time.monotonic() - started < 120
        assert image in str(err.value) and "ErrImagePull" in str(err.value), err.value
        assert "ctr -n k8s.io images import" in str(err.value)  # the fix comes with it
        inst.stop()
        assert objs.cluster.core().list_namespaced_pod(ns).items == []  # stop waits until it is gone
    finally:
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"


def test_the_driver_pod_and_the_apps_pods_never_share_a_node(objs):
    ns = _namespace(objs, "perflab-apart", run_id="r")
    try:
        driver = DriverPod(objs, ns, "r", "driver:1", "IfNotPresent", apart=True, timeout_s=60).start()
        assert driver.node
        app = PodInstance(objs, ns, "r", _spec(), _container(), "i1").start()
        placed = objs.watch_pods(ns, f"{m.WORKLOAD}=quarkus-jvm", lambda p: p if p.spec.node_name else None, 60)
        assert placed.spec.node_name != driver.node
        assert driver.check_apart() == []  # no flag: the load comes from another node
        app.stop()
        # the rule binds both ways: an app pod held to the driver's node is never placed
        held = m.app_pod("held", "r", _container(), "quarkus-jvm")
        held["spec"]["nodeSelector"] = {"kubernetes.io/hostname": driver.node}
        objs.create(held, ns)
        _, state = objs.watch_pods(ns, f"{m.WORKLOAD}=quarkus-jvm", pod_state.settled, 60)
        assert state == "unschedulable"
        driver.stop()
    finally:
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"


def test_on_one_open_node_a_driver_kept_apart_stops_before_any_load_with_the_fix(objs):
    ns = _namespace(objs, "perflab-onenode", run_id="r")
    core = objs.cluster.core()
    others = [n.metadata.name for n in core.list_node().items][1:]
    try:
        for name in others:  # as on a one-node cluster
            core.patch_node(name, {"spec": {"unschedulable": True}})
        with pytest.raises(LabError, match="needs a node apart") as err:
            DriverPod(objs, ns, "r", "driver:1", "IfNotPresent", apart=True, timeout_s=60).start()
        assert "placement.driver_apart = false" in err.value.fix
        assert core.list_namespaced_pod(ns).items == []  # refused before it was created
    finally:
        for name in others:
            core.patch_node(name, {"spec": {"unschedulable": False}})
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"


def test_densitys_quota_refuses_the_pod_that_would_pass_the_budget(objs):
    ns = _namespace(objs, "perflab-quota", run_id="r")
    objs.create(m.db_secret("r", "pw"), ns)  # the budget's namespace gets a copy, as an app's DB_PASSWORD needs
    placement = ClusterPlacement(objs, ns, "r", lambda spec: _container(memory_mb=spec.limits.memory_mb), None, 60)
    budget = placement.budget("density", 2 * 256 + 128, _spec())
    started = []
    try:
        for i in range(2):
            started.append(budget.instance(_spec(), tag=f"d{i}").start())
        with pytest.raises(BudgetRefused, match="ResourceQuota"):
            budget.instance(_spec(), tag="d2").start()
        assert budget.oom_kills() == 0 and budget.enforced
        assert "ResourceQuota of 640 MB" in budget.describe()["budget"]
    finally:
        for inst in started:
            inst.stop()
        budget.close()
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"


@pytest.fixture
def knative_crd(objs):
    """Knative Serving's own Service CRD (from its Go module) installed on the API server, removed after."""
    import yaml

    from tools.kubeenv import build

    crd = yaml.safe_load(build.knative_service_crd().read_text())
    objs.create(crd)
    try:
        deadline = time.monotonic() + 60
        while not any(c.type == "Established" and c.status == "True" for c in
                      objs.get(crd["apiVersion"], crd["kind"], crd["metadata"]["name"]).status.conditions or []):
            assert time.monotonic() < deadline, "the Knative CRD was not established"
            time.sleep(0.3)
        yield crd
    finally:
        objs.delete(crd["apiVersion"], crd["kind"], crd["metadata"]["name"])
        deadline = time.monotonic() + 60
        while Objects(objs.cluster).serves("serving.knative.dev/v1", "Service"):
            assert time.monotonic() < deadline, "the Knative CRD is still served"
            time.sleep(0.3)


def test_the_knative_service_passes_knatives_own_schema_and_coldstart_says_why_it_is_not_run(objs, knative_crd):
    served = Objects(objs.cluster)  # a fresh discovery: Knative's kind is new
    assert served.serves("serving.knative.dev/v1", "Service")
    container = _app_container()
    ksvc = m.knative_service("quarkus-jvm", "r", container)
    assert served.dry_run([ksvc], "default") == []
    typo = m.knative_service("quarkus-jvm", "r", {**container, "portz": []})
    assert any('unknown field' in p and "portz" in p for p in served.dry_run([typo], "default"))
    # the kind alone is no Knative: its activator, which a cold start goes through, is missing
    assert coldstart.unavailable(served) == coldstart.NO_ACTIVATOR


