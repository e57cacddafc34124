"""The placement on a cluster (perflab.placements): each instance a pod of the run's namespace
(perflab.kube.pod_instance), the load from the run's driver pod (perflab.kube.cluster_load), and
density's budget a namespace of its own whose ResourceQuota is the budget."""

from __future__ import annotations

import base64
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Callable

from perflab.errors import LabError
from perflab.instance import InstanceSpec
from perflab.kube import manifests, pod_state
from perflab.kube.cluster import REQUEST_TIMEOUT_S
from perflab.kube.cluster_load import ClusterLoad
from perflab.kube.coldstart import KnativeService, ScaleFromZero
from perflab.kube.objects import Objects
from perflab.kube.pod_instance import PodInstance
from perflab.placements import KUBERNETES

GROUP_FRESH_S = 1.0  # one look at the budget's pods and their nodes' summaries serves a second of samples
# a density pod requests a sliver of CPU under its limit: memory, the budget, decides how many fit, not the
# nodes' CPUs (ten 1-CPU pods on a two-core node)
DENSITY_CPU_REQUEST = "50m"


@dataclass
class ClusterPlacement:
    objs: Objects
    namespace: str
    run_id: str
    container_for: Callable[[InstanceSpec], dict]  # the pod's container for an instance's spec (image, limits, env)
    driver_load: ClusterLoad | None  # None when no planned scenario sends load (Scenario.sends_load)
    timeout_s: float = 300.0
    cold_unavailable: str = ""  # why cold start cannot be measured here ("": Knative Serving is there)
    kind: str = KUBERNETES
    _tags: itertools.count = field(default_factory=lambda: itertools.count(1))
    _knative: dict[str, KnativeService] = field(default_factory=dict)

    @property
    def load(self) -> ClusterLoad:
        if self.driver_load is None:
            raise LabError("no load driver in this run: a scenario sends load without declaring it (Scenario.sends_load)")
        return self.driver_load

    def instance(self, spec: InstanceSpec, *, tag: str = "", port: int | None = None) -> PodInstance:
        """A pod of the app/mode (`port` has no part: every pod listens on the container's port)."""
        return PodInstance(self.objs, self.namespace, self.run_id, spec, self.container_for(spec),
                           tag or f"i{next(self._tags)}")

    def budget(self, name: str, budget_mb: int, spec: InstanceSpec) -> "QuotaBudget":
        return QuotaBudget(self, name, budget_mb)

    def unable(self, scenario: str) -> str:
        """Why this cluster cannot run `scenario` beyond what the scenario declares ("" where it can)."""
        return f"on kubernetes: {self.cold_unavailable}" if scenario == "coldstart" and self.cold_unavailable else ""

    def cold(self, spec: InstanceSpec, tag: str) -> ScaleFromZero:
        """A cold-start launch: the app/mode's Knative Service (made on its first launch), every one
        of the run's at zero."""
        if self.cold_unavailable:
            raise LabError(f"cold start on this cluster: {self.cold_unavailable}")
        name = manifests.dns_label(f"cold-{manifests.workload_name(spec.app.name, spec.mode)}")
        for other in self._knative.values():
            other.wait_zero()
        if name not in self._knative:
            self._knative[name] = KnativeService(self.objs, self.namespace, self.run_id, name,
                                                 self.container_for(spec), self.timeout_s).create()
        return ScaleFromZero(self._knative[name])


class QuotaBudget:
    """Density's budget on a cluster: a namespace of the run whose ResourceQuota is the budget, the
    run's database Secret copied into it, each instance a pod there under the plan's own limits that
    requests only DENSITY_CPU_REQUEST of its CPU limit.
    The quota counts the pods' memory limits: it refuses a pod once their sum would pass the budget,
    and within its limit a pod's OOM kill is the kernel's verdict. Its memory is the pods' working
    set from their nodes' kubelet summaries."""

    enforced = True

    def __init__(self, placement: ClusterPlacement, name: str, budget_mb: int):
        self.placement, self.budget_mb = placement, budget_mb
        objs = placement.objs
        self.namespace = manifests.dns_label(f"{placement.namespace}-{name}")
        objs.create_namespace(self.namespace, placement.run_id)
        try:
            secret = objs.cluster.core().read_namespaced_secret(manifests.POSTGRES, placement.namespace)
            password = base64.b64decode(secret.data["password"]).decode()
            objs.create(manifests.db_secret(placement.run_id, password), self.namespace)
            objs.create(manifests.resource_quota(placement.run_id, budget_mb), self.namespace)
            self._wait_counted()
        except BaseException:
            self.close()
            raise
        self._read_at, self._pods, self._usage = 0.0, [], {}

    def _wait_counted(self) -> None:
        """Pods are refused ("status unknown for quota") until the quota controller has filled in
        the quota's status: wait for it, so the first refusal is the budget's."""
        core = self.placement.objs.cluster.core()
        deadline = time.monotonic() + self.placement.timeout_s
        while not (core.read_namespaced_resource_quota(manifests.QUOTA, self.namespace).status.hard or {}):
            if time.monotonic() > deadline:
                raise LabError(f"the density quota in {self.namespace} got no status within "
                               f"{self.placement.timeout_s:.0f} s")
            time.sleep(0.2)

    def instance(self, spec: InstanceSpec, *, tag: str, port: int | None = None) -> PodInstance:
        p = self.placement
        container = p.container_for(spec)
        resources = container["resources"]
        container = {**container, "resources": {**resources, "requests": {**resources["requests"],
                                                                          "cpu": DENSITY_CPU_REQUEST}}}
        return PodInstance(p.objs, self.namespace, p.run_id, spec, container, tag)

    def _look(self) -> None:
        if time.monotonic() - self._read_at < GROUP_FRESH_S:
            return
        core = self.placement.objs.cluster.core()
        self._pods = core.list_namespaced_pod(self.namespace, _request_timeout=REQUEST_TIMEOUT_S).items
        usage: dict[str, float] = {}
        for node in sorted({p.spec.node_name for p in self._pods if p.spec.node_name}):
            try:
                raw = core.connect_get_node_proxy_with_path(node, "stats/summary", _preload_content=False,
                                                            _request_timeout=REQUEST_TIMEOUT_S)
                summary = json.loads(raw.data)
            except Exception:  # noqa: BLE001 - a node that gives no summary this time: its pods' memory unknown
                continue
            for pod in summary.get("pods", []):
                ref = pod.get("podRef", {})
                if ref.get("namespace") != self.namespace:
                    continue
                containers = pod.get("containers", [])
                usage[ref.get("name")] = sum((c.get("memory") or {}).get("workingSetBytes") or 0 for c in containers)
        self._usage, self._read_at = usage, time.monotonic()

    def memory_current(self) -> int | None:
        self._look()
        return int(sum(self._usage.values())) if self._usage else None

    def cpu_usage_s(self) -> float | None:
        return None  # the summaries' CPU time moves every 10-15 s: no share over a load's seconds (see PodStats)

    def oom_kills(self) -> int | None:
        self._look()
        return sum(1 for p in self._pods if pod_state.pod_state(p) == "oomkilled")

    def describe(self) -> dict:
        return {"budget": f"ResourceQuota of {self.budget_mb} MB (the pods' memory limits) in {self.namespace}",
                "pod_cpu_request": DENSITY_CPU_REQUEST}

    def close(self) -> None:
        self.placement.objs.delete_namespace(self.namespace, wait_s=0)
