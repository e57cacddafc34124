"""Serverless cold start on a cluster with Knative Serving, as LAB-2020 3.2 measured it on
OpenShift Serverless: the app and the Go reference each as a Knative Service that scales to zero;
a cold start is a request sent while the revision has no pod, timed until it is answered with a
200 (Knative holds it, has a pod started, and forwards it once the pod is ready).

The request goes where Knative's ingress sends a request for a revision at zero: to Knative's
activator, naming the revision in the headers the ingress sets (Knative-Serving-Revision and
-Namespace). The lab reaches the activator through the API server's service proxy, so it needs
no route into the cluster; the proxy hop replaces the ingress's. (The revision's own Service is
no way in: at zero its endpoint is the activator in another namespace, which the API server's
proxy refuses to reach.)

Pairs of launches alternate which side goes first, as on one machine (perflab.scenarios.coldstart),
and each pair gives one difference. Between launches the lab waits until the revision has no pod
left, not even a terminating one, so each start has the node to itself.
"""

from __future__ import annotations

import contextlib
import time

from kubernetes.client.exceptions import ApiException

from perflab.errors import LabError
from perflab.kube import manifests
from perflab.kube.measure import Figures, Workload
from perflab.kube.objects import Objects, api_message
from perflab.scenarios.coldstart import PAIRS, pair_order, paired_differences

# Knative's own names: its namespace, the activator's Service and port
ACTIVATOR_NAMESPACE, ACTIVATOR_SERVICE, ACTIVATOR_PORT = "knative-serving", "activator-service", "http"
REVISION_LABEL = "serving.knative.dev/revision"
# how long a revision may take to reach zero pods: the autoscaler's window (6 s, set on the
# lab's revisions), the cluster's scale-to-zero grace period (30 s by default) and the pod's
# drain (queue-proxy waits for requests in flight)
ZERO_TIMEOUT_S = 300.0
THROUGH = "Knative's activator, via the API server's service proxy"


class KnativeService:
    """One Knative Service of the run and its revision."""

    def __init__(self, objs: Objects, w: Workload, name: str):
        self.objs, self.w, self.name = objs, w, name
        self.revision = ""

    def create(self) -> None:
        self.objs.create(manifests.knative_service(self.name, self.w.run_id, self.w.container), self.w.namespace)

    def wait_revision(self) -> str:
        """The revision's name once Knative made it ready (its first pod passed the probes)."""
        deadline = time.monotonic() + self.w.timeout_s
        while time.monotonic() < deadline:
            ksvc = self.objs.get("serving.knative.dev/v1", "Service", self.name, self.w.namespace)
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
                       f"{self.w.timeout_s:g} s")

    def pods(self) -> list:
        return self.objs.cluster.core().list_namespaced_pod(self.w.namespace,
                                                             label_selector=f"{REVISION_LABEL}={self.revision}").items

    def wait_zero(self, timeout_s: float = ZERO_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while self.pods():
            if time.monotonic() > deadline:
                raise LabError(f"Knative revision {self.revision} still has pods {timeout_s:.0f} s after its "
                               "last request: it does not scale to zero (min-scale, or the autoscaler's settings)")
            time.sleep(0.5)

    def cold_start(self, path: str, timeout_s: float) -> tuple[float, dict]:
        """One cold start: its ms, and the pod it started with when the API server made it (s
        after the request was sent, by the API server's clock at one-second resolution): a
        pod older than the request would mean the revision was not at zero."""
        sent = time.time()
        ms = self.cold_request_ms(path, timeout_s)
        pods = self.pods()
        created = [p.metadata.creation_timestamp.timestamp() - sent for p in pods if p.metadata.creation_timestamp]
        return ms, {"pods": [p.metadata.name for p in pods],
                    "pod_created_after_request_s": round(min(created), 1) if created else None}

    def cold_request_ms(self, path: str, timeout_s: float) -> float:
        """A request to the revision at zero, retried on errors (as a first-response poll is)
        until a 200; ms from the first send."""
        core = self.objs.cluster.core()
        headers = {"Knative-Serving-Revision": self.revision, "Knative-Serving-Namespace": self.w.namespace}
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
        raise LabError(f"{self.name}: no 200 on {path} through Knative within coldstart.timeout_s = {timeout_s:g} s "
                       f"(last: {last})")


def run(objs: Objects, w: Workload, reference: Workload, settings, say=lambda text: None) -> Figures:
    """`settings.runs` interleaved pairs of cold starts of the app (`w`) and the reference, each on
    `settings.path` (empty: each app's own first-response path); `say` hears each one (a pair
    takes a minute or more: mostly waiting for Knative to scale to zero). `settings.poll_ms` has
    no part here: one request is held by the activator until the pod answers."""
    runs = settings.runs
    out = Figures("coldstart")
    sides = {"app": KnativeService(objs, w, manifests.dns_label(f"cold-{w.name}")),
             "reference": KnativeService(objs, reference, manifests.dns_label(f"cold-ref-{w.name}"))}
    reference_label = f"{reference.app}/{reference.mode}"
    try:
        # one after the other, each first pod gone before the next: a node may fit one app pod at a time
        for ksvc in sides.values():
            ksvc.create()
            ksvc.wait_revision()
            ksvc.wait_zero()
        for i in range(runs):
            got, started = {}, {}
            try:
                for side in pair_order(i):
                    for other in sides.values():  # the other side's last pod too: the node to itself
                        other.wait_zero()
                    path = settings.path or (w.first_path if side == "app" else reference.first_path)
                    got[side], started[side] = sides[side].cold_start(path, settings.timeout_s)
                    say(f"  pair {i + 1}/{runs}: {w.app + '/' + w.mode if side == 'app' else reference_label} "
                        f"answered {got[side] / 1000:.2f} s after a request at zero")
            except LabError as exc:
                if i == 0:
                    raise
                out.outcome("failed", f"pair {i + 1}: {exc.message}")  # the pairs before it are kept
                break
            extra = {"reference": reference_label, "pair": i, "first": pair_order(i)[0], "through": THROUGH,
                     **{f"{side}_{key}": value for side in sides for key, value in
                        (("revision", sides[side].revision), *started[side].items())}}
            for metric, value in (("ttfr_ms", got["app"]), ("reference_ttfr_ms", got["reference"]),
                                  ("ttfr_minus_reference_ms", paired_differences([got["app"]], [got["reference"]])[0])):
                out.add(metric, value, "ms", at=PAIRS, repeat=i, extra=extra)
    finally:
        for ksvc in sides.values():
            with contextlib.suppress(LabError, ApiException):
                objs.delete("serving.knative.dev/v1", "Service", ksvc.name, w.namespace)
    for ksvc in sides.values():  # the next app/mode starts on a node without them
        if ksvc.revision:
            ksvc.wait_zero()
    if not out.outcomes:
        out.outcome("ok", f"{runs} pairs against {reference_label}, through Knative Serving (scale from zero)")
    return out
