"""Serverless cold start on a cluster with Knative Serving, as LAB-2020 3.2 measured it on
OpenShift Serverless: on a cluster, a cold-start launch of the coldstart scenario
(perflab.scenarios.coldstart) is a request to the app/mode's Knative Service while its revision
has no pod, timed until it is answered with a 200 (Knative holds it, has a pod started, and
forwards it once the pod is ready). The scenario pairs and orders the launches as on one machine.

The request goes where Knative's ingress sends a request for a revision at zero: to Knative's
activator, naming the revision in the headers the ingress sets (Knative-Serving-Revision and
-Namespace). The lab reaches the activator through the API server's service proxy, so it needs
no route into the cluster; the proxy hop replaces the ingress's. (The revision's own Service is
no way in: at zero its endpoint is the activator in another namespace, which the API server's
proxy refuses to reach.)

Before each cold start every Knative Service of the run is at zero, not even a terminating pod
left, so each start has the node to itself; a launch's stop waits for its revision to get there.
"""

from __future__ import annotations

import time

from kubernetes.client.exceptions import ApiException

from perflab.errors import AppFailed, LabError
from perflab.kube import manifests
from perflab.kube.objects import Objects, api_message
from perflab.probes import PollResult

# Knative's own names: its namespace, the activator's Service and port
ACTIVATOR_NAMESPACE, ACTIVATOR_SERVICE, ACTIVATOR_PORT = "knative-serving", "activator-service", "http"
REVISION_LABEL = "serving.knative.dev/revision"
# how long a revision may take to reach zero pods: the autoscaler's window (6 s, set on the
# lab's revisions), the cluster's scale-to-zero grace period (30 s by default) and the pod's
# drain (queue-proxy waits for requests in flight)
ZERO_TIMEOUT_S = 300.0
THROUGH = "Knative's activator, via the API server's service proxy"
NO_KNATIVE = "no Knative: the cluster does not serve serving.knative.dev/v1 Service; serverless cold start is " \
             "measured through Knative Serving"
NO_ACTIVATOR = (f"the cluster serves Knative's Service kind, but Knative's activator ({ACTIVATOR_NAMESPACE}/"
                f"{ACTIVATOR_SERVICE}) is not there: is Knative Serving installed whole?")


def unavailable(objs: Objects) -> str:
    """Why cold start cannot be measured on this cluster ("" when it can)."""
    if not objs.serves("serving.knative.dev/v1", "Service"):
        return NO_KNATIVE
    try:
        objs.cluster.core().read_namespaced_service(ACTIVATOR_SERVICE, ACTIVATOR_NAMESPACE)
    except ApiException as exc:
        if exc.status == 404:
            return NO_ACTIVATOR
        raise
    return ""


class KnativeService:
    """One Knative Service of the run (an app/mode that scales to zero) and its revision."""

    def __init__(self, objs: Objects, namespace: str, run_id: str, name: str, container: dict, timeout_s: float):
        self.objs, self.namespace, self.run_id, self.name = objs, namespace, run_id, name
        self.container, self.timeout_s = container, timeout_s
        self.revision = ""

    def create(self) -> "KnativeService":
        """Created, its first revision ready (Knative starts one pod to check it), then back at zero."""
        self.objs.create(manifests.knative_service(self.name, self.run_id, self.container), self.namespace)
        self.wait_revision()
        self.wait_zero()
        return self

    def wait_revision(self) -> str:
        """The revision's name once Knative made it ready (its first pod passed the probes)."""
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            ksvc = self.objs.get("serving.knative.dev/v1", "Service", self.name, self.namespace)
            status = ksvc.to_dict().get("status", {})
            self.revision = status.get("latestReadyRevisionName") or ""
            if self.revision:
                return self.revision
            failed = [c for c in status.get("conditions", [])
                      if c["type"] == "ConfigurationsReady" and c["status"] == "False"]
            if failed:
                raise LabError(f"Knative Service {self.name}: {failed[0].get('reason')}: "
                               f"{failed[0].get('message', '')}")
            time.sleep(0.5)
        raise LabError(f"Knative Service {self.name}: no ready revision within placement.timeout_s = "
                       f"{self.timeout_s:g} s")

    def pods(self) -> list:
        return self.objs.cluster.core().list_namespaced_pod(self.namespace,
                                                             label_selector=f"{REVISION_LABEL}={self.revision}").items

    def wait_zero(self, timeout_s: float = ZERO_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while self.revision and self.pods():
            if time.monotonic() > deadline:
                raise LabError(f"Knative revision {self.revision} still has pods {timeout_s:.0f} s after its "
                               "last request: it does not scale to zero (min-scale, or the autoscaler's settings)")
            time.sleep(0.5)

    def cold_request_ms(self, path: str, timeout_s: float) -> float:
        """A request to the revision at zero, retried on errors (as a first-response poll is)
        until a 200; ms from the first send."""
        core = self.objs.cluster.core()
        headers = {"Knative-Serving-Revision": self.revision, "Knative-Serving-Namespace": self.namespace}
        since = time.monotonic()
        deadline = since + timeout_s
        last = ""
        while time.monotonic() < deadline:
            try:
                core.connect_get_namespaced_service_proxy_with_path(
                    f"{ACTIVATOR_SERVICE}:{ACTIVATOR_PORT}", ACTIVATOR_NAMESPACE, path.lstrip("/"), _headers=headers,
                    _request_timeout=max(1.0, deadline - time.monotonic()))
                return (time.monotonic() - since) * 1000
            except ApiException as exc:
                last = f"{exc.status}: {api_message(exc)}"
                if exc.status in (401, 403):
                    raise LabError(f"the API server refused the request to Knative's activator: {last}",
                                   fix=f"the lab needs services/proxy get in namespace {ACTIVATOR_NAMESPACE}") from None
            except Exception as exc:  # noqa: BLE001 - a connection cut while the pod starts: try again
                last = str(exc)
            time.sleep(0.05)
        raise AppFailed(f"{self.name}: no 200 on {path} through Knative within {timeout_s:g} s (last: {last})")


class ScaleFromZero:
    """A cold-start launch on a cluster: the app/mode's Knative Service, at zero, waiting for its
    first request (what coldstart's launch gets where a local run gets a started process)."""

    def __init__(self, service: KnativeService):
        self.service = service

    def first_response(self, path: str, timeout_s: float, interval_ms: float = 5.0) -> PollResult:
        """The request at zero, timed to its 200. A pod made before the request was sent would mean
        the revision was not at zero: an error, not a cold start (the API server's clock, 1 s steps)."""
        sent = time.time()
        ms = self.service.cold_request_ms(path, timeout_s)
        created = [p.metadata.creation_timestamp.timestamp() for p in self.service.pods()
                   if p.metadata.creation_timestamp]
        if created and min(created) < sent - 1.0:
            raise LabError(f"Knative revision {self.service.revision} had a pod before the cold request: "
                           "it was not at zero")
        return PollResult(ok=True, url=f"{THROUGH}: revision {self.service.revision}, {path}", elapsed_ms=ms,
                          attempts=1, resolution_ms=0.0, uncertainty_ms=None, status=200, reason="")

    def stop(self) -> None:
        """Back at zero: whatever follows gets the node to itself."""
        self.service.wait_zero()
