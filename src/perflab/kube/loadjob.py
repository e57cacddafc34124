"""One load point on a cluster: oha as a Job kept off the app's node, its report read from the pod's log.

The Job runs oha with the arguments perflab.drivers.oha gives it on one machine (closed loop at
`connections`, or open loop at `rate` with --latency-correction; JSON report on stdout) against
the app's Service by its DNS name. The lab waits for the Job's pod to be placed, checks that it is
on another node than every pod of the app (the required anti-affinity says so; the lab does not
take it on trust), waits for it to end and reads oha's report from the pod's log through the API.
Every wait is bounded: placement.timeout_s to get the pod going plus the run's length and a margin,
which the Job's activeDeadlineSeconds also tells the cluster. A failed or late Job is an error with
its reason, never a figure. The Job is deleted when the point is over, whatever happened.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import secrets
import time
from dataclasses import dataclass
from typing import Iterator

from perflab.drivers import oha
from perflab.drivers.base import LoadResult, assess_driver_bound
from perflab.drivers.install import OHA_VERSION
from perflab.errors import LabError
from perflab.kube import manifests, measure
from perflab.kube.cluster import REQUEST_TIMEOUT_S
from perflab.kube.objects import Objects

MARGIN_S = 30  # oha's own start and the report's writing, past the run's length


@dataclass(frozen=True)
class Load:
    """What one Job sends."""

    path: str
    connections: int
    duration_s: float
    rate: float | None = None  # open loop, req/s; None: closed loop
    timeout_s: float = 2.0  # a request slower than this counts as a time-out

    @property
    def mode(self) -> str:
        return "open" if self.rate else "closed"


@dataclass(frozen=True)
class Driver:
    """The driver's image on the cluster and how the nodes get it."""

    image: str
    pull_policy: str = "IfNotPresent"


@dataclass
class Placed:
    """Where a driver Job's pod went, and where the app's pods were then."""

    job: str
    pod: str
    driver_node: str
    app_nodes: list[str]


class Unrunnable(LabError):
    """No driver Job can load this app here (no node apart from it, no image, a shared node):
    every point would fail the same way, so the scenario stops."""


def args(url: str, load: Load) -> list[str]:
    """oha's arguments after the image's entrypoint (oha itself), as the lab runs it on one machine."""
    return oha.build_command("oha", url, rate=load.rate, duration_s=load.duration_s, connections=load.connections,
                             timeout_s=load.timeout_s, worker_threads=None)[1:]


def url(w: measure.Workload, load: Load) -> str:
    return manifests.service_url(w.name, w.namespace, load.path)


def limit_s(w: measure.Workload, load: Load) -> int:
    """How long a Job may take from its creation: started within timeout_s, then the run and a margin."""
    return math.ceil(w.timeout_s + load.duration_s + load.timeout_s + MARGIN_S)


def job(name: str, w: measure.Workload, load: Load, driver: Driver) -> manifests.Manifest:
    return manifests.driver_job(name, w.run_id, image=driver.image, args=args(url(w, load), load), away_from=w.name,
                                pull_policy=driver.pull_policy, deadline_s=limit_s(w, load))


def job_name(w: measure.Workload) -> str:
    return f"{w.name[:40].rstrip('-')}-load-{secrets.token_hex(3)}"  # unique: a deleted Job may linger


@contextlib.contextmanager
def started(objs: Objects, w: measure.Workload, load: Load, driver: Driver) -> Iterator[tuple[Placed, float]]:
    """Create the point's Job and wait until its pod has a node apart from the app's; yields where
    it went and the monotonic deadline of the whole Job. The Job (and its pod) is deleted on leaving."""
    name = job_name(w)
    deadline = time.monotonic() + limit_s(w, load)
    objs.create(job(name, w, load, driver), w.namespace)
    try:
        yield _placed(objs, w, name), deadline
    finally:
        objs.delete("batch/v1", "Job", name, w.namespace, propagation="Background")


def _scheduled(pod):
    state = measure.pod_state(pod)
    return (pod, state) if pod.spec.node_name or state == "unschedulable" else None


def _placed(objs: Objects, w: measure.Workload, name: str) -> Placed:
    try:
        pod, state = objs.watch_pods(w.namespace, f"{manifests.WORKLOAD}={name}", _scheduled, w.timeout_s)
    except TimeoutError:
        raise Unrunnable(f"the driver Job {name} got no node within placement.timeout_s = {w.timeout_s:g} s") from None
    if state == "unschedulable":
        why = next((c.message for c in pod.status.conditions or [] if c.type == "PodScheduled"), "") or ""
        raise Unrunnable(f"the driver Job {name} cannot be placed on a node apart from the app's pod: {why}",
                         fix="the driver needs a second node: a required pod anti-affinity keeps it off the app's")
    app_pods = objs.cluster.core().list_namespaced_pod(w.namespace, label_selector=w.selector,
                                                      _request_timeout=REQUEST_TIMEOUT_S).items
    placed = Placed(name, pod.metadata.name, pod.spec.node_name,
                    sorted({p.spec.node_name for p in app_pods if p.spec.node_name}))
    check_apart(placed)
    return placed


def check_apart(placed: Placed) -> None:
    """Load is reported as coming from another node only when it did."""
    if not placed.app_nodes:
        raise Unrunnable(f"no pod of the app is on a node while driver Job {placed.job} runs: nothing to load")
    if placed.driver_node in placed.app_nodes:
        raise Unrunnable(f"the driver pod {placed.pod} was placed on node {placed.driver_node}, which runs the app's "
                         f"pod: its load would not come from another node, so it is not measured")


def _ended(pod):
    return pod if measure.image_problem(pod) or (pod.status and pod.status.phase in ("Succeeded", "Failed")) else None


def finished(objs: Objects, w: measure.Workload, placed: Placed, deadline: float) -> str:
    """Wait (until `deadline`) for the driver pod to end; its log. A failed or late pod is an error."""
    left = max(1.0, deadline - time.monotonic())
    try:
        pod = objs.watch_pods(w.namespace, f"{manifests.WORKLOAD}={placed.job}", _ended, left)
    except TimeoutError:
        raise LabError(f"the driver Job {placed.job} (node {placed.driver_node}) did not finish in time "
                       f"(placement.timeout_s + the run's length + {MARGIN_S} s)") from None
    if measure.image_problem(pod):
        err = measure.not_ready(pod, measure.IMAGE_STATE, "the load driver")
        raise Unrunnable(err.message, fix=err.fix)
    log = pod_log(objs, w.namespace, pod.metadata.name)
    if pod.status.phase == "Failed":
        raise LabError(f"the driver pod {pod.metadata.name} on node {placed.driver_node} failed "
                       f"({_termination(pod)}): {log.strip()[-400:] or '(no output)'}")
    return log


def pod_log(objs: Objects, namespace: str, pod: str) -> str:
    # the raw bytes: the client would turn a log that is one JSON document into a Python dict's repr
    answer = objs.cluster.core().read_namespaced_pod_log(pod, namespace, container=manifests.DRIVER,
                                                         _preload_content=False, _request_timeout=REQUEST_TIMEOUT_S)
    try:
        return answer.data.decode("utf-8", "replace")
    finally:
        answer.release_conn()


def _termination(pod) -> str:
    for status in pod.status.container_statuses or []:
        ended = status.state.terminated if status.state else None
        if ended is not None:
            return f"exit code {ended.exit_code}" + (f", {ended.reason}" if ended.reason else "")
    return pod.status.reason or pod.status.message or "no exit status"


def report_json(log: str) -> str:
    """oha's JSON report in a pod's log (which also holds whatever oha wrote to stderr)."""
    decoder = json.JSONDecoder()
    for start in (m.start() for m in re.finditer(r"^\{", log, re.M)):
        try:
            value, end = decoder.raw_decode(log, start)
        except ValueError:
            continue
        if isinstance(value, dict) and "summary" in value:
            return log[start:end]
    raise LabError(f"the driver's log holds no oha JSON report: {log.strip()[-400:] or '(empty)'}")


def result(log: str, target: str, load: Load, warmup_s: float = 0.0) -> LoadResult:
    """The point's LoadResult from the driver's log, as run_oha makes one on a machine; the
    driver's CPU is not measured in its pod, so only a rate it did not hold makes it driver-bound."""
    figures = oha.parse_oha_json(report_json(log))
    bound, why = assess_driver_bound(0.0, load.rate, figures.rps)
    return LoadResult(
        driver="oha", driver_version=OHA_VERSION, mode=load.mode, url=target, connections=load.connections,
        threads=None, duration_s=figures.duration_s, warmup_s=warmup_s, requests=figures.requests, rps=figures.rps,
        latency=figures.latency, errors=figures.errors, offered_rate=load.rate, driver_bound=bound,
        driver_bound_reason=why, command=["oha", *args(target, load)], raw_output=log)


def run(objs: Objects, w: measure.Workload, load: Load, driver: Driver,
        warmup_s: float = 0.0) -> tuple[LoadResult, Placed]:
    """One point: its Job placed apart from the app, run to its end, its report read."""
    with started(objs, w, load, driver) as (placed, deadline):
        log = finished(objs, w, placed, deadline)
    return result(log, url(w, load), load, warmup_s), placed
