"""The objects the lab creates on a cluster, rendered as plain dicts (what `kubectl apply` takes).

Every object carries the run's labels, so a run's objects can be listed and deleted by label even
when the lab that made them crashed. The app's pod has the plan's CPU and memory as both requests
and limits (a guaranteed pod, as the cgroup limits are on one machine), the plan's JVM options in
JAVA_TOOL_OPTIONS (read by every JVM, whatever the image's entrypoint), and probes on the
contract's /health/ready and /health/live.
"""

from __future__ import annotations

import re
from typing import Any

MANAGED_BY = "app.kubernetes.io/managed-by"
LAB = "perflab"
RUN = "perflab.dev/run"
WORKLOAD = "perflab.dev/workload"
OWNER = "perflab.dev/owner"  # host:pid of the lab that made a namespace (leftover detection)
CONTAINER_PORT = 8080
DB_PORT = 5432
DB_NAME = "perflab"
DB_USER = "perflab"
POSTGRES = "postgres"
LIVE_PATH = "/health/live"
DRIVER = "driver"  # the driver pod's container, which the lab execs oha in
DRIVER_OHA = "/app/oha"  # oha in the driver's image (its entrypoint is the keeper that holds a pod open)
ROLE = "perflab.dev/role"  # "app" on the apps' pods, "driver" on the load driver's: what keeps them apart

Manifest = dict[str, Any]


def run_labels(run_id: str, **more: str) -> dict[str, str]:
    return {MANAGED_BY: LAB, RUN: run_id, **more}


def run_selector(run_id: str | None = None) -> str:
    """A label selector for everything the lab made (of one run, when given)."""
    return f"{MANAGED_BY}={LAB}" + (f",{RUN}={run_id}" if run_id else "")


def dns_label(text: str) -> str:
    """A name Kubernetes accepts (DNS-1123 label) from an app/mode name like 'spring-boot/jvm-jdk25'."""
    name = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")
    return name[:63].rstrip("-") or "x"


def workload_name(app: str, mode: str) -> str:
    return dns_label(f"{app}-{mode}")


def image_name(app: str, mode: str, registry: str, tag: str) -> str:
    """Where the app/mode's image is pushed (or, without a registry, the name it is loaded under).
    The tag is the build's (perflab.kube.images.tag): never `latest`, which nodes always pull."""
    if not tag or tag == "latest":
        raise ValueError("an image tag must name the build, not 'latest'")
    repo = f"perflab-{dns_label(app)}-{dns_label(mode)}"
    return f"{registry.rstrip('/')}/{repo}:{tag}" if registry else f"{repo}:{tag}"


def namespace(name: str, run_id: str, owner: str) -> Manifest:
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": run_labels(run_id), "annotations": {OWNER: owner}}}


def _metadata(name: str, run_id: str, **labels: str) -> dict[str, Any]:
    return {"name": name, "labels": run_labels(run_id, **labels)}


def _http_probe(path: str, period_s: int, failures: int) -> dict[str, Any]:
    return {"httpGet": {"path": path, "port": CONTAINER_PORT}, "periodSeconds": period_s,
            "failureThreshold": failures, "timeoutSeconds": 2}


def app_container(*, image: str, cpus: float, memory_mb: int, jvm_opts: list[str], db_env: dict[str, str],
                  ready_path: str, mode: str, db_secret: str = "", mode_env: dict[str, str] | None = None,
                  pull_policy: str = "IfNotPresent", args: list[str] | None = None) -> dict[str, Any]:
    env = [{"name": "HTTP_PORT", "value": str(CONTAINER_PORT)}, {"name": "PERFLAB_MODE", "value": mode},
           {"name": "DB_POOL_MIN", "value": "5"}, {"name": "DB_POOL_MAX", "value": "20"}]
    for key, value in db_env.items():
        if key == "DB_PASSWORD" and db_secret:  # the run's own database: its password stays in a Secret
            env.append({"name": key, "valueFrom": {"secretKeyRef": {"name": db_secret, "key": "password"}}})
        else:
            env.append({"name": key, "value": value})
    env.extend({"name": key, "value": value} for key, value in (mode_env or {}).items())
    if jvm_opts:
        env.append({"name": "JAVA_TOOL_OPTIONS", "value": " ".join(jvm_opts)})
    resources = {"cpu": _cpu(cpus), "memory": f"{memory_mb}Mi"}
    extra = {"args": list(args)} if args else {}  # after the image's entrypoint (a native executable's options)
    return {
        # IfNotPresent: a tag names one build, so an image loaded into the node (or pulled once) is used as is
        "name": "app", "image": image, "imagePullPolicy": pull_policy,
        "ports": [{"name": "http", "containerPort": CONTAINER_PORT}], "env": env,
        "resources": {"requests": dict(resources), "limits": dict(resources)},
        # ready probed often: start-up is measured from it; live only after start-up has had its chance
        "readinessProbe": _http_probe(ready_path, 1, 3),
        "livenessProbe": {**_http_probe(LIVE_PATH, 10, 3), "initialDelaySeconds": 60}, **extra,
    }


def _cpu(cpus: float) -> str:
    return str(int(cpus)) if float(cpus).is_integer() else f"{round(cpus * 1000)}m"


def app_pod(name: str, run_id: str, container: dict[str, Any], workload: str) -> Manifest:
    """One instance of an app/mode (`workload`): a bare pod, never restarted (a crash is the instance's end,
    as a process's is on one machine)."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": run_labels(run_id, **{WORKLOAD: workload, ROLE: "app"})},
            "spec": {"containers": [container], "enableServiceLinks": False, "restartPolicy": "Never"}}


def db_secret(run_id: str, password: str) -> Manifest:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": _metadata(POSTGRES, run_id),
            "type": "Opaque", "stringData": {"password": password}}


def db_env_in_namespace(namespace_name: str) -> dict[str, str]:
    """The contract's DB variables for the run's own PostgreSQL (the password comes from its Secret)."""
    host = f"{POSTGRES}.{namespace_name}.svc"
    return {"DB_URL": f"jdbc:postgresql://{host}:{DB_PORT}/{DB_NAME}", "DB_USER": DB_USER, "DB_PASSWORD": ""}


def postgres(run_id: str, image: str, memory_mb: int = 512) -> list[Manifest]:
    """PostgreSQL as a one-replica StatefulSet behind a Service named `postgres` (data on an
    emptyDir: a run's database lives and dies with its namespace)."""
    labels = {WORKLOAD: POSTGRES}
    container = {
        "name": POSTGRES, "image": image, "ports": [{"name": "pg", "containerPort": DB_PORT}],
        "env": [{"name": "POSTGRES_DB", "value": DB_NAME}, {"name": "POSTGRES_USER", "value": DB_USER},
                {"name": "POSTGRES_PASSWORD", "valueFrom": {"secretKeyRef": {"name": POSTGRES, "key": "password"}}},
                {"name": "PGDATA", "value": "/var/lib/postgresql/data/pgdata"}],
        "resources": {"requests": {"cpu": "500m", "memory": f"{memory_mb}Mi"}, "limits": {"memory": f"{memory_mb}Mi"}},
        "readinessProbe": {"exec": {"command": ["pg_isready", "-U", DB_USER, "-d", DB_NAME]}, "periodSeconds": 2},
        "volumeMounts": [{"name": "data", "mountPath": "/var/lib/postgresql/data"}],
    }
    statefulset = {
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": _metadata(POSTGRES, run_id, **labels),
        "spec": {"serviceName": POSTGRES, "replicas": 1, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": run_labels(run_id, **labels)},
                              "spec": {"containers": [container], "volumes": [{"name": "data", "emptyDir": {}}]}}}}
    service = {"apiVersion": "v1", "kind": "Service", "metadata": _metadata(POSTGRES, run_id, **labels),
               "spec": {"selector": labels, "ports": [{"name": "pg", "port": DB_PORT, "targetPort": DB_PORT}]}}
    return [statefulset, service]


def driver_pod(name: str, run_id: str, *, image: str, pull_policy: str = "IfNotPresent", apart: bool = True) -> Manifest:
    """The run's long-lived load driver: its keeper holds the pod open and the lab runs oha in it
    by exec. `apart`: a required anti-affinity keeps it off every node with an app pod of the run,
    and, as the scheduler applies such a term both ways, every app pod off its node."""
    spec: dict[str, Any] = {"restartPolicy": "Never", "enableServiceLinks": False, "terminationGracePeriodSeconds": 1,
                            "containers": [{"name": DRIVER, "image": image, "imagePullPolicy": pull_policy}]}
    if apart:  # the app pods of every namespace of the run (density's has its own)
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {ROLE: "app"}}, "namespaceSelector": {"matchLabels": {RUN: run_id}},
             "topologyKey": "kubernetes.io/hostname"}]}}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": run_labels(run_id, **{WORKLOAD: name, ROLE: "driver"})},
            "spec": spec}


# the shortest autoscaling window Knative accepts: a revision without requests reaches zero sooner
# (after the window and the cluster's scale-to-zero grace period); it has no part in a cold start
KNATIVE_WINDOW = "6s"


def knative_service(name: str, run_id: str, container: dict[str, Any]) -> Manifest:
    """A Knative Service scaling to zero (cold start is the first request after scale-down).
    Knative sets the port itself and forbids liveness on another port: keep the readiness probe."""
    kn_container = {k: v for k, v in container.items() if k not in ("livenessProbe",)}
    kn_container["ports"] = [{"containerPort": CONTAINER_PORT}]
    return {"apiVersion": "serving.knative.dev/v1", "kind": "Service", "metadata": _metadata(name, run_id),
            "spec": {"template": {"metadata": {"labels": run_labels(run_id, **{WORKLOAD: name}),
                                               "annotations": {"autoscaling.knative.dev/min-scale": "0",
                                                               "autoscaling.knative.dev/window": KNATIVE_WINDOW}},
                                  "spec": {"containers": [kn_container]}}}}


QUOTA = "density-budget"


def resource_quota(run_id: str, memory_mb: int) -> Manifest:
    """The density budget: the namespace may hold pods whose memory limits add up to this."""
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": _metadata(QUOTA, run_id),
            "spec": {"hard": {"limits.memory": f"{memory_mb}Mi", "requests.memory": f"{memory_mb}Mi"}}}


# What the lab does on a cluster, as RBAC rules (the README shows them as a ClusterRole; the tests
# run a plan as a user bound to exactly these)
LAB_RULES = [
    {"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get", "list", "create", "delete"]},
    {"apiGroups": [""], "resources": ["pods", "services", "secrets", "serviceaccounts", "resourcequotas"],
     "verbs": ["get", "list", "watch", "create", "delete", "deletecollection"]},
    {"apiGroups": [""], "resources": ["services/proxy", "pods/log"], "verbs": ["get"]},
    # the lab's own polls reach a pod through a port-forward; the load driver runs oha by exec
    {"apiGroups": [""], "resources": ["pods/portforward", "pods/exec"], "verbs": ["get", "create"]},
    {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list"]},
    # a pod's memory from its node's kubelet summary
    {"apiGroups": [""], "resources": ["nodes/proxy"], "verbs": ["get"]},
    {"apiGroups": ["apps"], "resources": ["statefulsets"], "verbs": ["get", "list", "watch", "create", "delete"]},
    {"apiGroups": ["serving.knative.dev"], "resources": ["services"],
     "verbs": ["get", "list", "watch", "create", "delete"]},
]


def lab_cluster_role(name: str = LAB) -> Manifest:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": name},
            "rules": LAB_RULES}


def lab_role_binding(user: str, name: str = LAB) -> Manifest:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]}
