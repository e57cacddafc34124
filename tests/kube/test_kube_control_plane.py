"""The Kubernetes placement against a real kube-apiserver (+ etcd, controller manager, scheduler)
with kwok-simulated nodes: schemas via server-side dry run, the cluster record, leftover clean-up,
a plan run end to end through the CLI, and Ctrl-C leaving no object behind.

Pods on simulated nodes run no containers: these tests check the lab's own logic (what it creates,
watches, stores and deletes), never a framework's figures."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perflab.kube import cluster, manifests as m
from tools.kubeenv import testenv
from perflab.kube.objects import KindUnavailable, Objects
from perflab.kube.placement import PlacementSettings
from perflab.store import Store

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def objs(kube_env):
    return Objects(cluster.connect(PlacementSettings(kind="kubernetes")))


def _namespace(objs, name, run_id="20260101-000000-test"):
    objs.create_namespace(name, run_id)
    deadline = time.monotonic() + 60
    while not objs.cluster.core().list_namespaced_service_account(name).items:
        assert time.monotonic() < deadline, "no default ServiceAccount"
        time.sleep(0.2)
    return name


def _every_manifest(run_id):
    c = m.app_container(image="perflab-quarkus-jvm:latest", cpus=1, memory_mb=512, jvm_opts=["-Xmx256m"],
                        db_env=m.db_env_in_namespace("ns"), ready_path="/health/ready", mode="jvm", db_secret="postgres")
    return [m.db_secret(run_id, "pw"), *m.postgres(run_id, "postgres:15"), m.app_deployment("quarkus-jvm", run_id, c),
            m.app_service("quarkus-jvm", run_id), m.app_pod("quarkus-jvm-0", run_id, c, "quarkus-jvm"),
            m.driver_job("load", run_id, image="driver:1", args=["-c", "4"], away_from="quarkus-jvm"),
            m.resource_quota(run_id, 2048)]


def test_rendered_manifests_pass_the_api_servers_dry_run(objs):
    ns = _namespace(objs, "perflab-dryrun")
    try:
        assert objs.dry_run(_every_manifest("r1"), ns) == []
        assert objs.cluster.core().list_namespaced_pod(ns).items == []  # a dry run stores nothing
        broken = m.app_deployment("bad", "r1", {"name": "app", "image": "x", "resources": {"limits": {"memory": "lots"}}})
        problems = objs.dry_run([broken], ns)
        assert len(problems) == 1 and "quantities must match" in problems[0]
    finally:
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"  # gone before the next test looks


def test_knative_service_is_unavailable_without_knative(objs):
    assert not objs.serves("serving.knative.dev/v1", "Service")
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
timeout_s = {timeout_s}
{placement}
[startup]
runs = {runs}
[scaleup]
runs = 2
[density]
budget_mb = 2048
max_instances = 5
"""


def _plan(tmp_path, scenarios, runs=2, timeout_s=60, placement="", top="", modes='["jvm"]'):
    path = tmp_path / "kube.toml"
    text = PLAN.format(scenarios=", ".join(f'"{s}"' for s in scenarios), runs=runs, timeout_s=timeout_s,
                       placement=placement)
    path.write_text(top + text.replace('modes = ["jvm"]', f"modes = {modes}"))
    return path


def _lab_namespaces(objs):
    return [ns.metadata.name for ns in objs.lab_namespaces()]


def _cli(plan_path):
    return subprocess.Popen([sys.executable, "-m", "perflab", "run", str(plan_path)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_plan_runs_on_the_cluster_and_leaves_nothing(objs, tmp_path):
    proc = _cli(_plan(tmp_path, ["startup", "scaleup", "density", "coldstart", "sweep"]))
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, out
    run = Store().run("last")
    assert run["status"] == "complete"
    figures = Store().figures(run["id"])
    by = {(f.scenario, f.metric) for f in figures}
    assert {("startup", "ready_ms"), ("scaleup", "ready_ms"), ("density", "instances")} <= by
    assert all("simulated-nodes" in f.flags for f in figures)
    instances = next(f for f in figures if f.metric == "instances")
    assert instances.value == 2048 // 768  # the quota refuses the pod that would exceed the budget
    outcomes = {(o["scenario"], o["status"]): o["reason"] for o in Store().outcomes(run["id"])}
    assert "no Knative" in outcomes[("coldstart", "unavailable")]
    assert ("sweep", "unavailable") in outcomes
    assert ("startup:ttfr", "unavailable") in outcomes
    env = json.loads(run["environment_json"])
    assert env["placement"]["context"] == "perflab-test" and env["placement"]["simulated_nodes"]
    assert any("simulated by kwok" in r for r in env["topology"]["reductions"])  # said in the report
    assert _lab_namespaces(objs) == []


def test_ctrl_c_deletes_everything_the_run_created(objs, tmp_path):
    proc = _cli(_plan(tmp_path, ["startup"], runs=200))
    try:
        deployment = None
        deadline = time.monotonic() + 120
        while deployment is None and time.monotonic() < deadline:
            items = objs.resource("apps/v1", "Deployment").get(label_selector=m.run_selector()).items
            deployment = items[0] if items else None
            time.sleep(0.2)
        assert deployment is not None, "the run created no Deployment"
        container = deployment.spec.template.spec.containers[0]
        assert dict(container.resources.limits) == {"cpu": "1", "memory": "768Mi"}
        assert dict(container.resources.requests) == {"cpu": "1", "memory": "768Mi"}
        assert {"name": "JAVA_TOOL_OPTIONS", "value": "-Xmx300m"} in [dict(e) for e in container.env]
        # named by the build, so a node that has the image uses it instead of pulling
        assert container.imagePullPolicy == "IfNotPresent" and not container.image.endswith(":latest")
        time.sleep(1)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert _lab_namespaces(objs) == [], out
    assert Store().run("last")["status"] == "interrupted"


def test_the_scheduler_puts_the_driver_job_on_another_node_than_the_app(objs):
    from perflab.kube import measure

    ns = _namespace(objs, "perflab-affinity")
    try:
        app = m.app_container(image="app:1", cpus=1, memory_mb=256, jvm_opts=[], db_env={},
                              ready_path="/health/ready", mode="jvm")
        objs.create(m.app_deployment("quarkus-jvm", "r", app, replicas=1), ns)
        app_pod, state = objs.watch_pods(ns, f"{m.WORKLOAD}=quarkus-jvm", measure.settled, 60)
        assert state == "ready"
        objs.create(m.driver_job("load", "r", image="driver:1", args=[], away_from="quarkus-jvm"), ns)
        scheduled = objs.watch_pods(ns, f"{m.WORKLOAD}=load", lambda p: p if p.spec.node_name else None, 60)
        assert scheduled.spec.node_name != app_pod.spec.node_name
        # the rule is a requirement, not a preference: a driver held to the app's node never starts
        held = m.driver_job("load2", "r", image="driver:1", args=[], away_from="quarkus-jvm")
        held["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/hostname": app_pod.spec.node_name}
        objs.create(held, ns)
        _, state = objs.watch_pods(ns, f"{m.WORKLOAD}=load2", measure.settled, 60)
        assert state == "unschedulable"
    finally:
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"  # gone before the next test looks


def test_density_fills_the_budget_and_says_simulated_pods_hold_no_memory(objs):
    from perflab.kube import measure

    ns = _namespace(objs, "perflab-density")
    try:
        app = m.app_container(image="app:1", cpus=1, memory_mb=256, jvm_opts=[], db_env={},
                              ready_path="/health/ready", mode="jvm")
        w = measure.Workload("quarkus", "jvm", ns, "r", app, "/health/ready", "/hello", True, 60)
        out = measure.density(objs, w, budget_mb=11 * 256, max_pods=20)
        instances = next(f for f in out.figures if f["metric"] == "instances")
        assert instances["value"] == 11 and "ResourceQuota refused" in instances["extra"]["stopped_by"]
        # 1 CPU each would have filled the two nodes' 2 x 4 CPUs at 8 pods: each requested a sliver of
        # CPU under its 1-CPU limit, and the memory quota ended the ramp
        assert instances["extra"]["pod_cpu"] == {"request": measure.DENSITY_CPU_REQUEST, "limit": "1"}
        assert ("memory", "unavailable") == out.outcomes[0][:2] and "simulated" in out.outcomes[0][2]
    finally:
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"  # gone before the next test looks


def test_a_failing_run_is_stored_as_failed_and_leaves_nothing(objs, tmp_path, monkeypatch):
    from perflab import plan
    from perflab.kube import run as kube_run

    def fault(*args, **kwargs):  # an unexpected fault of the lab's own, after objects were created
        assert _lab_namespaces(objs), "the run's namespace should exist by now"
        raise RuntimeError("injected fault")

    monkeypatch.setattr(kube_run, "_run_target", fault)
    with pytest.raises(RuntimeError, match="injected fault"):
        kube_run.run_plan(plan.load(str(_plan(tmp_path, ["startup"]))), say=lambda line: None)
    run = Store().run("last")
    assert run["status"] == "failed" and "injected fault" in run["note"]
    assert _lab_namespaces(objs) == []


def test_a_plan_runs_with_only_the_labs_cluster_role(objs, control_plane, tmp_path, monkeypatch):
    """The README's RBAC is enough: the plan runs as a user bound to that role and nothing more."""
    monkeypatch.setenv("KUBECONFIG", str(control_plane.lab_kubeconfig))
    refused = _cli(_plan(tmp_path, ["startup"]))
    out, _ = refused.communicate(timeout=300)
    assert refused.returncode != 0 and "forbidden" in out, out  # the user has no rights of its own
    assert "Traceback" not in out and "ClusterRole" in out, out  # said as a fix, not a crash
    objs.create(m.lab_cluster_role())
    objs.create(m.lab_role_binding(testenv.LAB_USER))
    try:
        proc = _cli(_plan(tmp_path, ["startup", "scaleup", "density", "coldstart", "sweep"]))
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0, out
        failed = [o for o in Store().outcomes(Store().run("last")["id"]) if o["status"] == "failed"]
        assert failed == [], out
    finally:
        objs.delete("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", m.LAB)
        objs.delete("rbac.authorization.k8s.io/v1", "ClusterRole", m.LAB)
    assert _lab_namespaces(objs) == []


def test_a_users_database_url_keeps_its_password_in_the_runs_secret(objs):
    import base64

    from perflab.kube import run as kube_run

    ns = _namespace(objs, "perflab-dburl")
    try:
        placement = PlacementSettings(kind="kubernetes", postgres_url="postgresql://app:s3cret@db.example:5433/shop")
        env, secret = kube_run._database(objs, ns, "r", placement)
        assert env["DB_URL"] == "jdbc:postgresql://db.example:5433/shop" and env["DB_USER"] == "app"
        stored = objs.cluster.core().read_namespaced_secret(secret, ns).data["password"]
        assert base64.b64decode(stored).decode() == "s3cret"
        container = m.app_container(image="i", cpus=1, memory_mb=256, jvm_opts=[], db_env=env,
                                    ready_path="/health/ready", mode="jvm", db_secret=secret)
        assert "s3cret" not in json.dumps(container)
        assert objs.cluster.core().list_namespaced_pod(ns).items == []  # no PostgreSQL of the run's own
    finally:
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"  # gone before the next test looks


def test_a_pod_whose_image_cannot_be_pulled_stops_at_once_naming_the_image(objs, tmp_path):
    """The simulated kubelets cannot pull from testenv.UNPULLABLE_REGISTRY (ErrImagePull, as a real
    node says for a registry it cannot resolve): the scenario fails within seconds, not timeout_s."""
    plan = _plan(tmp_path, ["startup", "scaleup"], timeout_s=600, placement=f'registry = "{testenv.UNPULLABLE_REGISTRY}"')
    started = time.monotonic()
    proc = _cli(plan)
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 1 and "Traceback" not in out, out  # failed scenarios, not a crash
    assert time.monotonic() - started < 200, out  # far below the plan's 600 s
    outcomes = {o["scenario"]: o for o in Store().outcomes(Store().run("last")["id"])}
    for scenario in ("startup", "scaleup"):
        reason = outcomes[scenario]["reason"]
        assert outcomes[scenario]["status"] == "failed", outcomes
        assert f"{testenv.UNPULLABLE_REGISTRY}/perflab-quarkus-jvm:" in reason and "ErrImagePull" in reason, reason
        assert "ctr -n k8s.io images import" in reason, reason  # the fix comes with it
    assert _lab_namespaces(objs) == []


def test_an_object_the_api_server_refuses_stops_the_run_before_anything_is_created(objs, tmp_path):
    """Every rendered object is dry-run on the API server first: an app whose mode sets an
    environment variable the API refuses (a name with '=') stops the run with the server's words."""
    import shutil

    app = tmp_path / "go-copy"
    shutil.copytree(REPO / "apps" / "go-reference", app, ignore=shutil.ignore_patterns("go-reference"))
    descriptor = (app / "perflab.toml").read_text().replace('name = "go-reference"', 'name = "go-copy"')
    (app / "perflab.toml").write_text(descriptor + '\n[modes.native.env]\n"GOGC=off" = "1"\n')
    proc = _cli(_plan(tmp_path, ["startup"], top=f'app_dirs = ["{app}"]\n', modes='["main"]'))
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode != 0, out
    assert "dry run" in out and "nothing was created" in out and "GOGC=off" in out, out
    assert "valid environment variable name" in out, out  # the API server's own message
    assert "Traceback" not in out, out
    assert Store().runs() == []  # refused before the run began
    assert _lab_namespaces(objs) == []


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


def test_the_knative_service_passes_knatives_own_schema_and_coldstart_says_why_it_is_not_run(objs, knative_crd,
                                                                                             tmp_path):
    served = Objects(objs.cluster)  # a fresh discovery: Knative's kind is new
    assert served.serves("serving.knative.dev/v1", "Service")
    container = _every_manifest("r")[3]["spec"]["template"]["spec"]["containers"][0]
    ksvc = m.knative_service("quarkus-jvm", "r", container)
    assert served.dry_run([ksvc], "default") == []
    typo = m.knative_service("quarkus-jvm", "r", {**container, "portz": []})
    assert any('unknown field' in p and "portz" in p for p in served.dry_run([typo], "default"))
    proc = _cli(_plan(tmp_path, ["startup", "coldstart"]))
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    reason = {o["scenario"]: o["reason"] for o in Store().outcomes(Store().run("last")["id"])}["coldstart"]
    # the kind alone is no Knative: its activator, which a cold start goes through, is missing
    assert "Knative's activator (knative-serving/activator-service) is not there" in reason, reason


# -- sweep and latency: the driver Job -----------------------------------------------------------

def test_sweep_and_latency_place_the_driver_job_on_another_node_and_say_no_load_was_generated(objs, tmp_path):
    import re

    proc = _cli(_plan(tmp_path, ["sweep", "latency"]))
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, out
    run = Store().run("last")
    nodes = {n["name"] for n in json.loads(run["environment_json"])["placement"]["nodes"]}
    for scenario in ("sweep", "latency"):
        mine = [o for o in Store().outcomes(run["id"]) if o["scenario"] == scenario]
        assert [o["status"] for o in mine] == ["unavailable"], [dict(o) for o in mine]  # not also "ok"
        reason = mine[0]["reason"]
        assert "simulated nodes run no containers, so no load was generated" in reason, reason
        driver, app = re.search(r"placed on node (\S+), another node than the app's pod \((\S+)\)", reason).groups()
        assert driver != app and {driver, app} <= nodes, reason  # what the scheduler did, read from the pods
    assert Store().figures(run["id"]) == []  # no load, no figure
    images = json.loads(run["environment_json"])["placement"]["images"]
    assert images["load driver"].startswith("perflab-driver-oha:") and not images["load driver"].endswith(":latest")
    assert _lab_namespaces(objs) == []


def _app_workload(objs, ns):
    from perflab.kube import measure

    app = m.app_container(image="app:1", cpus=0.25, memory_mb=256, jvm_opts=[], db_env={},
                          ready_path="/health/ready", mode="jvm")
    w = measure.Workload("quarkus", "jvm", ns, "r", app, "/health/ready", "/hello", True, 60)
    objs.create(m.app_deployment(w.name, "r", app, replicas=0), ns)
    return w


def _gone(ns, what, listing, timeout_s=60):
    deadline = time.monotonic() + timeout_s
    while (left := listing()) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert not left, f"{what} left in {ns}: {[i.metadata.name for i in left]}"


def test_the_driver_job_and_its_pod_are_deleted_once_its_placement_is_checked(objs):
    from perflab.kube import load, loadjob

    ns = _namespace(objs, "perflab-driverjob")
    try:
        w = _app_workload(objs, ns)
        out = load.placed_only(objs, w, "sweep", loadjob.Load("/fruits", 4, 10), loadjob.Driver("driver:1"))
        assert [o[1] for o in out.outcomes] == ["unavailable"] and out.figures == []
        core = objs.cluster.core()
        _gone(ns, "driver Jobs", lambda: objs.resource("batch/v1", "Job").get(namespace=ns).items)
        _gone(ns, "pods", lambda: core.list_namespaced_pod(ns).items)  # the Job's and the app's (scaled to 0)
    finally:
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"


def test_without_a_node_apart_from_the_apps_the_driver_job_does_not_run_and_says_why(objs):
    from perflab.kube import loadjob, measure

    ns = _namespace(objs, "perflab-onenode")
    core = objs.cluster.core()
    others = []
    try:
        w = _app_workload(objs, ns)
        app_node = measure.scale_to_ready(objs, w)["node"]
        others = [n.metadata.name for n in core.list_node().items if n.metadata.name != app_node]
        for name in others:  # as on a one-node cluster
            core.patch_node(name, {"spec": {"unschedulable": True}})
        with pytest.raises(loadjob.Unrunnable, match="cannot be placed on a node apart from the app's pod") as err:
            loadjob.run(objs, w, loadjob.Load("/fruits", 4, 10), loadjob.Driver("driver:1"))
        assert "second node" in err.value.fix
        _gone(ns, "driver Jobs", lambda: objs.resource("batch/v1", "Job").get(namespace=ns).items)
    finally:
        for name in others:
            core.patch_node(name, {"spec": {"unschedulable": False}})
        assert objs.delete_namespace(ns), f"{ns} was not deleted in time"
