"""What the Kubernetes placement measures for one app/mode, from the pods' own conditions and the
lab's watch on them: start-up (pod created until Ready, then the first 200 through the Service),
scale-up (a Deployment scaled 0 -> 1 until its pod is Ready) and density (pods added against the
namespace's ResourceQuota until one is refused, stays Pending or is OOMKilled).

On simulated nodes (kwok) pods turn Ready without running anything: those figures time the
control plane only and carry the flag `simulated-nodes`; nothing is sent through the Service.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from perflab.errors import LabError
from perflab.kube import manifests
from perflab.kube.objects import Objects, api_message
from perflab.scenario import Point
from perflab.scenarios.density import RAMP, TEN_UP
from perflab.scenarios.startup import COLD, WARM

SIMULATED = "simulated-nodes"
NOT_ON_SIMULATED = "simulated nodes run no containers, so nothing answers through the Service"


@dataclass
class Workload:
    """One app/mode on the cluster: its names, namespace and the container the plan asks for."""

    app: str
    mode: str
    namespace: str
    run_id: str
    container: dict[str, Any]
    ready_path: str
    first_path: str
    simulated: bool
    timeout_s: float

    @property
    def name(self) -> str:
        return manifests.workload_name(self.app, self.mode)

    @property
    def selector(self) -> str:
        return f"{manifests.WORKLOAD}={self.name}"


@dataclass
class Figures:
    """Figures and outcomes one scenario produced, stored by the run."""

    scenario: str
    figures: list[dict[str, Any]] = field(default_factory=list)
    outcomes: list[tuple[str, str, str]] = field(default_factory=list)  # (part, status, reason)
    files: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, name, content), e.g. a driver's report
    result: Any = None  # handed to later scenarios of the app/mode, as on one machine (sweep's maxima)

    def add(self, metric: str, value: float, unit: str, *, at: Point = Point(), repeat: int = 0,
            flags: list[str] | None = None, extra: dict | None = None) -> None:
        self.figures.append({"metric": metric, "value": value, "unit": unit, "point": at,
                             "repeat": repeat, "flags": flags or [], "extra": extra or {}})

    def outcome(self, status: str, reason: str = "", part: str = "") -> None:
        self.outcomes.append((part, status, reason))


def _condition(pod, kind: str):
    return next((c for c in (pod.status.conditions or []) if c.type == kind), None) if pod.status else None


def _oom_killed(pod) -> bool:
    for status in (pod.status.container_statuses or []) if pod.status else []:
        state = status.state.terminated if status.state else None
        last = status.last_state.terminated if status.last_state else None
        if any(t is not None and t.reason == "OOMKilled" for t in (state, last)):
            return True
    return False


# the kubelet's reasons for a container that cannot get its image: waiting longer never helps
IMAGE_UNAVAILABLE = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull")
IMAGE_STATE = "without its image"


def _waiting(pod) -> list[tuple[str, Any]]:
    if not pod.status:
        return []
    statuses = [*(pod.status.init_container_statuses or []), *(pod.status.container_statuses or [])]
    return [(s.image, s.state.waiting) for s in statuses if s.state and s.state.waiting]


def image_problem(pod) -> str:
    """Why the pod's image cannot be had, in the kubelet's words ('' when it can)."""
    for image, waiting in _waiting(pod):
        if waiting.reason in IMAGE_UNAVAILABLE:
            return f"image {image}: {waiting.reason}" + (f" ({waiting.message})" if waiting.message else "")
    return ""


def pod_state(pod) -> str:
    """ready | unschedulable | oomkilled | without its image | failed | waiting"""
    ready, scheduled = _condition(pod, "Ready"), _condition(pod, "PodScheduled")
    if _oom_killed(pod):
        return "oomkilled"
    if image_problem(pod):
        return IMAGE_STATE
    if ready is not None and ready.status == "True":
        return "ready"
    if scheduled is not None and scheduled.status == "False" and scheduled.reason == "Unschedulable":
        return "unschedulable"
    if pod.status and pod.status.phase == "Failed":
        return "failed"
    return "waiting"


def not_ready(pod, state: str, what: str) -> LabError:
    """The error for a pod that settled without becoming ready; a missing image says how to provide it."""
    if state != IMAGE_STATE:
        return LabError(f"{what}: pod {pod.metadata.name} {state} instead of ready")
    return LabError(f"{what}: pod {pod.metadata.name} cannot start: {image_problem(pod)}",
                    fix="make the image available to the nodes: push it to placement.registry "
                        "(placement.images = \"push\"), or load the tarball the lab writes (placement.images = "
                        "\"tarball\") into every node: ctr -n k8s.io images import FILE, or kind load image-archive FILE")


def conditions_s(pod) -> dict[str, float]:
    """Seconds from the pod's creation to each condition turning true (the API's 1 s resolution)."""
    created: datetime = pod.metadata.creation_timestamp
    return {c.type: (c.last_transition_time - created).total_seconds()
            for c in (pod.status.conditions or []) if c.status == "True" and c.last_transition_time}


def settled(pod):
    state = pod_state(pod)
    return (pod, state) if state != "waiting" else None


def scale_to_ready(objs: Objects, w: Workload) -> dict[str, Any]:
    """Scale the Deployment 0 -> 1 and watch until its pod is Ready; then back to 0, pod gone."""
    started = time.monotonic()
    objs.patch("apps/v1", "Deployment", w.name, w.namespace, {"spec": {"replicas": 1}})
    pod, state = objs.watch_pods(w.namespace, w.selector, settled, w.timeout_s)
    ready_ms = (time.monotonic() - started) * 1000
    if state != "ready":
        raise not_ready(pod, state, f"{w.app}/{w.mode}")
    result = {"ready_ms": ready_ms, "pod": pod.metadata.name, "node": pod.spec.node_name,
              "conditions_s": conditions_s(pod)}
    return result


def scale_to_zero(objs: Objects, w: Workload) -> None:
    objs.patch("apps/v1", "Deployment", w.name, w.namespace, {"spec": {"replicas": 0}})
    deadline = time.monotonic() + w.timeout_s
    core = objs.cluster.core()
    while core.list_namespaced_pod(w.namespace, label_selector=w.selector).items:
        if time.monotonic() > deadline:
            raise LabError(f"{w.app}/{w.mode}: pods not gone {w.timeout_s:.0f} s after scaling to 0")
        time.sleep(0.2)


def first_response_ms(objs: Objects, w: Workload, since: float) -> float:
    """Poll the first-response path through the Service (via the API server's service proxy, so
    the lab needs no route into the cluster) until it answers 200; ms since `since`."""
    core = objs.cluster.core()
    deadline = since + w.timeout_s
    while time.monotonic() < deadline:
        try:
            core.connect_get_namespaced_service_proxy_with_path(f"{w.name}:http", w.namespace,
                                                               w.first_path.lstrip("/"), _request_timeout=5)
            return (time.monotonic() - since) * 1000
        except Exception:  # noqa: BLE001 - 503 until an endpoint answers
            time.sleep(0.05)
    raise LabError(f"{w.app}/{w.mode}: no 200 on {w.first_path} through the Service within {w.timeout_s:.0f} s")


# The figures keep the names and points of the scenarios on one machine (ready_ms: launch until
# /health/ready answers, here: until the pod's readiness probe passed), so the same tables show them.

def startup(objs: Objects, w: Workload, runs: int) -> Figures:
    out = Figures("startup")
    flags = [SIMULATED] if w.simulated else []
    for i in range(runs):
        at = COLD if i == 0 else WARM
        since = time.monotonic()
        ready = scale_to_ready(objs, w)
        out.add("ready_ms", ready["ready_ms"], "ms", at=at, repeat=i, flags=flags, extra=ready)
        if not w.simulated:
            out.add("ttfr_ms", first_response_ms(objs, w, since), "ms", at=at, repeat=i,
                    extra={"path": w.first_path, "through": "the Service, via the API server's proxy"})
        scale_to_zero(objs, w)
    if w.simulated:
        out.outcome("unavailable", NOT_ON_SIMULATED, part="ttfr")
    return out


def scaleup(objs: Objects, w: Workload, runs: int) -> Figures:
    out = Figures("scaleup")
    flags = [SIMULATED] if w.simulated else []
    for i in range(runs):
        at = COLD if i == 0 else WARM
        ready = scale_to_ready(objs, w)
        out.add("ready_ms", ready["ready_ms"], "ms", at=at, repeat=i, flags=flags,
                extra={**ready, "from": "replicas 0 -> 1 until the pod's Ready condition (watched)"})
        if "Ready" in ready["conditions_s"]:
            out.add("pod_created_to_ready_s", ready["conditions_s"]["Ready"], "s", at=at, repeat=i, flags=flags,
                    extra={"resolution_s": 1, "from": "the pod's creation and Ready condition timestamps"})
        scale_to_zero(objs, w)
    return out


# Density's pods share the node's CPUs, as the instances of density on one machine share the app's:
# each requests only this much CPU (its limit stays the plan's), so the memory budget, not a CPU
# reservation per pod, decides how many fit (a 1-CPU request each filled a two-core node at two).
DENSITY_CPU_REQUEST = "50m"


def density_container(container: dict[str, Any]) -> dict[str, Any]:
    resources = container["resources"]
    return {**container, "resources": {**resources, "requests": {**resources["requests"], "cpu": DENSITY_CPU_REQUEST}}}


def density(objs: Objects, w: Workload, budget_mb: int, max_pods: int) -> Figures:
    """Pods of one app added one by one in a namespace whose quota is the budget."""
    out = Figures("density")
    flags = [SIMULATED] if w.simulated else []
    objs.create(manifests.resource_quota(w.run_id, budget_mb), w.namespace)
    _wait_quota_counted(objs, w)
    container = density_container(w.container)
    ready_pods: list[str] = []
    stop = f"max_instances ({max_pods}) reached"
    for i in range(max_pods):
        body = manifests.app_pod(f"{w.name}-{i}", w.run_id, container, w.name)
        started = time.monotonic()
        try:
            objs.create(body, w.namespace)
        except LabError as exc:
            if "exceeded quota" not in exc.message:
                raise
            stop = "the ResourceQuota refused the next pod (budget used up)"
            break
        try:
            pod, state = objs.watch_pods(w.namespace, f"{manifests.WORKLOAD}={w.name}",
                                         lambda p, n=body["metadata"]["name"]: p.metadata.name == n and settled(p),
                                         w.timeout_s)
        except TimeoutError:
            stop = f"pod {i} not ready within {w.timeout_s:.0f} s"
            break
        if state == IMAGE_STATE:  # not the budget's doing: no pod of this app can start
            raise not_ready(pod, state, f"{w.app}/{w.mode} density")
        if state != "ready":
            stop = f"pod {i} {state}"
            break
        ready_pods.append(pod.metadata.name)
        out.add("ready_ms", (time.monotonic() - started) * 1000, "ms", at=RAMP, repeat=i, flags=flags,
                extra={"pods_up_before": i, "node": pod.spec.node_name})
    resources = container["resources"]
    out.add("instances", len(ready_pods), "count", flags=flags,
            extra={"budget_mb": budget_mb, "stopped_by": stop, "pod_memory": resources["limits"]["memory"],
                   "pod_cpu": {"request": resources["requests"]["cpu"], "limit": resources["limits"].get("cpu")}})
    if len(ready_pods) >= 10 and w.simulated:
        out.outcome("unavailable", "simulated nodes run no containers: the pods hold no memory", part="memory")
    elif len(ready_pods) >= 10:
        memory, source = pods_memory_mb(objs, w.namespace, ready_pods[:10])
        if memory is None:
            out.outcome("unavailable", source, part="memory")
        else:
            # both report the containers' cgroup working set, as the lab's cgroup figure does
            out.add("cgroup_10_instances_mb", memory, "MB", at=TEN_UP, flags=flags, extra={"source": source})
    return out


def _wait_quota_counted(objs: Objects, w: Workload) -> None:
    """Pods are refused ("status unknown for quota") until the quota controller has filled in the
    quota's status: wait for it, so the first refusal is the budget's."""
    core = objs.cluster.core()
    deadline = time.monotonic() + w.timeout_s
    while not (core.read_namespaced_resource_quota(manifests.QUOTA, w.namespace).status.hard or {}):
        if time.monotonic() > deadline:
            raise LabError(f"the density quota in {w.namespace} got no status within {w.timeout_s:.0f} s")
        time.sleep(0.2)


def pods_memory_mb(objs: Objects, namespace: str, pods: list[str]) -> tuple[float | None, str]:
    """The pods' memory (working set, MB) and where it was read: the metrics API when the cluster
    serves it, else each node's kubelet summary (/stats/summary through the API server's node
    proxy, what metrics-server itself reads); (None, why) when neither answers."""
    from kubernetes.utils import parse_quantity

    if objs.serves("metrics.k8s.io/v1beta1", "PodMetrics"):
        total = 0.0
        for name in pods:
            metrics = objs.get("metrics.k8s.io/v1beta1", "PodMetrics", name, namespace)
            total += sum(float(parse_quantity(c["usage"]["memory"])) for c in metrics.containers)
        return total / 2**20, "metrics.k8s.io"
    core = objs.cluster.core()
    nodes = {core.read_namespaced_pod(name, namespace).spec.node_name for name in pods}
    found: dict[str, float] = {}
    for node in sorted(nodes):
        try:
            summary = _node_summary(core, node)
        except Exception as exc:  # noqa: BLE001 - any refusal: say which and why
            return None, (f"no metrics API on the cluster (metrics.k8s.io; install metrics-server), and node "
                          f"{node}'s kubelet summary could not be read through the API server: {_why(exc)}")
        for pod in summary.get("pods", []):
            ref = pod.get("podRef", {})
            # the containers' own figures, as metrics-server sums them: the pod-level one stays 0
            # until the kubelet's first housekeeping pass, 10-15 s after the pod started
            working = [(c.get("memory") or {}).get("workingSetBytes") for c in pod.get("containers", [])]
            if ref.get("namespace") == namespace and ref.get("name") in pods and working and None not in working:
                found[ref["name"]] = float(sum(working))
    missing = sorted(set(pods) - set(found))
    if missing:
        return None, f"the kubelets' summaries lack the memory of pods {', '.join(missing)}"
    return sum(found.values()) / 2**20, "kubelet /stats/summary (containers' memory working set)"


def _node_summary(core, node: str) -> dict:
    import json

    raw = core.connect_get_node_proxy_with_path(node, "stats/summary", _preload_content=False, _request_timeout=30)
    return json.loads(raw.data)


def _why(exc: Exception) -> str:
    """The API server's own words for a refusal (e.g. the node proxy's "lookup NODE: no such
    host"), else the error's first line."""
    from kubernetes.client.exceptions import ApiException

    if isinstance(exc, ApiException):
        return api_message(exc)
    return (str(exc).splitlines() or [type(exc).__name__])[0][:200]
