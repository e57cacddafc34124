"""One measured instance of an app as a pod on a cluster, behind the interface an instance has on
one machine (perflab.instance): start, wait until ready, time the first response, sample, check
that it lives, stop.

The pod is a bare pod of the run (restartPolicy Never, the plan's limits as its requests and
limits). The lab reaches it through a port-forward on 127.0.0.1 (perflab.kube.relay), so readiness
and the first response are polled as they are locally, from the moment the pod was created; a load
generator inside the cluster reaches it at its pod IP (`load_url`). Its memory and CPU are the
containers' own figures in the node's kubelet summary (/stats/summary through the API server),
which the kubelet refreshes every few seconds: coarser than a process's, and said so where they are
shown. How it ended comes from the pod's status: OOM-killed, the container's exit code, or why it
never ran (no node, no image).
"""

from __future__ import annotations

import json
import time
from typing import Any

from kubernetes.client.exceptions import ApiException

from perflab import probes, signals
from perflab.errors import AppFailed, BudgetRefused, LabError
from perflab.kube import manifests, pod_state
from perflab.kube.cluster import REQUEST_TIMEOUT_S
from perflab.kube.objects import Objects
from perflab.kube.relay import PortRelay
from perflab.waiting import wait_until

STATUS_FRESH_S = 0.5  # how long one read of the pod's status answers "has it ended?"
SUMMARY_FRESH_S = 0.5  # one kubelet summary serves a sample's memory and CPU reads
SAMPLE_HZ = 1.0  # the kubelet refreshes its figures every few seconds: more often reads the same ones
GONE_TIMEOUT_S = 120.0
IP_TIMEOUT_S = 30.0  # from a pod that answers to its IP in the status: the kubelet's next status update
# each poll opens a port-forward through the API server and the kubelet (tens of ms): polling faster
# would not time the start any finer, only load the control plane while the app starts
MIN_POLL_MS = 50.0


class PodStatus:
    """The pod's status, read at most every STATUS_FRESH_S; `poll()` answers as a process's would
    (None while it may still run, else a code: the container's exit code, or -1 when it never ran
    or was removed), so the lab's polls stop as soon as the pod has ended."""

    def __init__(self, core, namespace: str, name: str):
        self.core, self.namespace, self.name = core, namespace, name
        self.pod: Any = None
        self.gone = False
        self._read_at = 0.0

    def read(self) -> Any:
        if time.monotonic() - self._read_at >= STATUS_FRESH_S:
            try:
                self.pod = self.core.read_namespaced_pod(self.name, self.namespace, _request_timeout=REQUEST_TIMEOUT_S)
            except ApiException as exc:
                if exc.status != 404:
                    raise
                self.gone = True
            self._read_at = time.monotonic()
        return self.pod

    def poll(self) -> int | None:
        pod = self.read()
        if self.gone:
            return -1
        if pod is None:
            return None
        code = terminated_code(pod)
        if code is not None:
            return code
        return None if pod_state.pod_state(pod) in ("ready", "waiting") else -1


def terminated_code(pod) -> int | None:
    """The app container's exit code once it has ended (its current state or its last one)."""
    for status in (pod.status.container_statuses or []) if pod.status else []:
        for state in (status.state, status.last_state):
            ended = state.terminated if state else None
            if ended is not None:
                return ended.exit_code
    return None


class PodStats:
    """The pod's containers' memory working set from its node's kubelet summary (what metrics-server
    reads), as a cgroup would give it to a sampler on one machine."""

    def __init__(self, core, status: PodStatus):
        self.core, self.status = core, status
        self._summary: dict | None = None
        self._read_at = 0.0

    def _containers(self) -> list[dict]:
        if time.monotonic() - self._read_at >= SUMMARY_FRESH_S:
            pod = self.status.read()
            node = pod.spec.node_name if pod is not None and pod.spec else None
            self._summary = None
            if node:
                try:
                    raw = self.core.connect_get_node_proxy_with_path(node, "stats/summary", _preload_content=False,
                                                                     _request_timeout=REQUEST_TIMEOUT_S)
                    self._summary = json.loads(raw.data)
                except Exception:  # noqa: BLE001 - no answer this time: a missing sample, sampling goes on
                    self._summary = None
            self._read_at = time.monotonic()
        for pod in (self._summary or {}).get("pods", []):
            ref = pod.get("podRef", {})
            if ref.get("namespace") == self.status.namespace and ref.get("name") == self.status.name:
                return pod.get("containers", [])
        return []

    def memory_current(self) -> int | None:
        values = [(c.get("memory") or {}).get("workingSetBytes") for c in self._containers()]
        return int(sum(values)) if values and None not in values else None

    def cpu_usage_s(self) -> float | None:
        """Not given: the summary's CPU time moves every 10-15 s, so its share over a second's
        interval (steady's) would read 0 or a burst; the app's CPU per request is not shown on a
        cluster rather than shown wrong."""
        return None


class PodInstance:
    def __init__(self, objs: Objects, namespace: str, run_id: str, spec, container: dict[str, Any], tag: str):
        self.objs, self.namespace, self.run_id, self.spec = objs, namespace, run_id, spec
        self.workload = manifests.workload_name(spec.app.name, spec.mode)
        self.tag = tag
        self.name = manifests.dns_label(f"{self.workload}-{tag}")
        self.container = container
        self.port = manifests.CONTAINER_PORT
        core = objs.cluster.core()
        self.status = PodStatus(core, namespace, self.name)
        self.relay: PortRelay | None = None
        self.sampler: probes.ResourceSampler | None = None
        self.spawn_ns = 0
        self.stopped_by_lab = False
        self.created = False

    pid = None  # no process of this machine: what is read from /proc (JIT, GC, the start log) is not readable

    # --- lifecycle ------------------------------------------------------------------------------

    def start(self) -> "PodInstance":
        core = self.objs.cluster.core()
        self.spawn_ns = time.monotonic_ns()
        try:
            self.objs.create(manifests.app_pod(self.name, self.run_id, self.container, self.workload), self.namespace)
        except LabError as exc:
            if "exceeded quota" in exc.message:  # density's budget: the quota refused one more pod
                raise BudgetRefused(f"the namespace's ResourceQuota refused the pod (budget used up): "
                                    f"{exc.message}") from None
            raise
        self.created = True
        try:
            self.relay = PortRelay(self.objs.cluster, self.namespace, self.name, self.port).start()
            self.sampler = probes.ResourceSampler(None, cgroup=PodStats(core, self.status), hz=SAMPLE_HZ).start()
        except BaseException:
            self.stop()
            raise
        return self

    @property
    def base_url(self) -> str:
        """Where the lab reaches the app: a port on this machine forwarded to the pod's."""
        return self.relay.url

    @property
    def load_url(self) -> str:
        """Where a load generator inside the cluster reaches the app: its pod IP. The kubelet reports
        it in the pod's status a moment after the app may already answer through the port-forward."""

        def ip() -> str | None:
            if self.exited() is not None:
                return None
            pod = self.status.read()
            return pod.status.pod_ip if pod is not None and pod.status else None

        found = wait_until(ip, IP_TIMEOUT_S, interval_s=STATUS_FRESH_S) if self.created else None
        if not found:
            raise AppFailed(f"pod {self.name} has no IP (not running: {self.end_reason() or 'not yet placed'})")
        return f"http://{found}:{self.port}"

    def exited(self) -> int | None:
        return self.status.poll() if self.created else None

    def end_reason(self) -> str:
        """Why the pod is gone or never ran ('' while it may run): OOM kill, exit code, no node, no image."""
        if self.exited() is None:
            return ""
        if self.status.gone:
            return "the pod was removed"
        pod = self.status.pod
        state = pod_state.pod_state(pod)
        if state == "oomkilled":
            return f"OOM-killed under the {self.spec.limits.memory_mb} MB memory limit"
        if state == pod_state.IMAGE_STATE:
            refused = pod_state.not_ready(pod, state, f"{self.spec.app.name}/{self.spec.mode}")
            return f"{refused.message}; fix: {refused.fix}"
        if state == "unschedulable":
            why = next((c.message for c in pod.status.conditions or [] if c.type == "PodScheduled"), "")
            return f"no node can take the pod: {why}"
        code = terminated_code(pod)
        return f"exited with code {code}" if code is not None else f"pod {state}"

    def _poll(self, path: str, timeout_s: float, interval_ms: float, failure: str) -> probes.PollResult:
        result = probes.poll_http(self.base_url + path, self.spawn_ns, self.status, timeout_s=timeout_s,
                                  interval_ms=max(interval_ms, MIN_POLL_MS), connect_timeout_s=2.0)
        if not result.ok:
            raise AppFailed(f"{failure}: {self.end_reason() or result.reason}")
        return result

    def wait_until_ready(self, timeout_s: float, interval_ms: float = 20.0) -> probes.PollResult:
        return self._poll(self.spec.app.ready_path, timeout_s, interval_ms, "not ready")

    def first_response(self, path: str, timeout_s: float, interval_ms: float = 5.0) -> probes.PollResult:
        return self._poll(path, timeout_s, interval_ms, "no first response")

    def check_alive(self) -> None:
        reason = self.end_reason()
        if reason:
            raise AppFailed(reason)

    def _log(self, limit_bytes: int = 256 * 1024) -> str:
        try:
            answer = self.objs.cluster.core().read_namespaced_pod_log(
                self.name, self.namespace, limit_bytes=limit_bytes, _preload_content=False,
                _request_timeout=REQUEST_TIMEOUT_S)
        except ApiException:
            return ""
        try:
            return answer.data.decode("utf-8", "replace")
        finally:
            answer.release_conn()

    def start_log(self, pattern: str, timeout_s: float) -> probes.StartLogMatch:
        """The framework's start line in the pod's log, read through the API until it appears."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = probes.find_start(self._log(), pattern)
            if found.ok or self.exited() is not None or time.monotonic() >= deadline:
                return found
            time.sleep(0.5)

    @property
    def limits_enforced(self) -> bool:
        return True  # the kubelet sets the pod's cgroup limits (requests = limits: a Guaranteed pod)

    def jvm_flags(self) -> str:
        """The flags the JVM printed (GC, heap) at the top of the pod's log, if it did."""
        return next((line.strip() for line in self._log(8192).splitlines()[:20] if line.startswith("-XX:")), "")

    def stop(self) -> probes.SampleSeries | None:
        """Delete the pod and wait until it is gone (the next launch gets the node to itself);
        stop the relay and the sampler; returns the samples."""
        series = None
        with signals.shielded():
            self.stopped_by_lab = True
            if self.sampler is not None:
                series = self.sampler.stop()
            if self.relay is not None:
                self.relay.close()
            if self.created:
                self.objs.delete("v1", "Pod", self.name, self.namespace)
                self._wait_gone()
        return series

    def _wait_gone(self) -> None:
        core = self.objs.cluster.core()
        deadline = time.monotonic() + GONE_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                core.read_namespaced_pod(self.name, self.namespace, _request_timeout=REQUEST_TIMEOUT_S)
            except ApiException as exc:
                if exc.status == 404:
                    return
                raise
            time.sleep(0.2)

    def __enter__(self) -> "PodInstance":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
