"""The load on a cluster: one long-lived driver pod per run, on a node apart from every app pod of
the run, and oha run in it by exec for each load the scenarios send (closed loop, interval by
interval, open loop), its JSON report read from the exec's output.

One pod for the whole run instead of a Job per load point: a steady-state launch loads its app in
one-second intervals, and a pod takes seconds to start. The pod's keeper holds it open
(perflab.kube.driver_image); deleting the pod ends it. The driver's placement is checked, not
taken on trust: a driver on an app's node, where `placement.driver_apart` asks for another, is an
error before any load; where it is allowed (a one-node cluster), every figure is flagged.
"""

from __future__ import annotations

import contextlib
import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from kubernetes.client.exceptions import ApiException
from kubernetes.stream import stream

from perflab.drivers import oha
from perflab.drivers.base import LoadResult, assess_driver_bound
from perflab.drivers.install import OHA_VERSION
from perflab.drivers.merge import merge_concurrent
from perflab.drivers.wrk import IntervalRuns, interval_runs
from perflab.errors import LabError
from perflab.kube import manifests, pod_state
from perflab.kube.cluster import REQUEST_TIMEOUT_S
from perflab.kube.objects import Objects, api_message

EXEC_MARGIN_S = 30  # oha's own start and its report, past the load's length


class DriverTimeout(LabError):
    """The exec into the driver pod did not end within its limit: its stream lost the end of the
    run (seen once in about three suite runs on a 2-core machine), or oha hung."""
SAME_NODE = "driver-on-app-node"


@dataclass(frozen=True)
class Load:
    """What one oha in the driver pod sends."""

    path: str
    connections: int
    duration_s: float
    rate: float | None = None  # open loop, req/s; None: closed loop
    timeout_s: float = 2.0  # a request slower than this counts as a time-out

    @property
    def mode(self) -> str:
        return "open" if self.rate else "closed"


def oha_args(url: str, load: Load) -> list[str]:
    """oha's arguments, as the lab runs it on one machine (closed loop at `connections`, or open
    loop at `rate` with latency correction; the JSON report on stdout)."""
    return oha.build_command("oha", url, rate=load.rate, duration_s=load.duration_s, connections=load.connections,
                             timeout_s=load.timeout_s, worker_threads=None)[1:]


def report_json(output: str) -> str:
    """oha's JSON report in what the driver wrote (which may also hold oha's complaints)."""
    decoder = json.JSONDecoder()
    for start in (m.start() for m in re.finditer(r"^\{", output, re.M)):
        try:
            value, end = decoder.raw_decode(output, start)
        except ValueError:
            continue
        if isinstance(value, dict) and "summary" in value:
            return output[start:end]
    raise LabError(f"the driver's output holds no oha JSON report: {output.strip()[-400:] or '(empty)'}")


def oha_result(output: str, target: str, load: Load, warmup_s: float = 0.0) -> LoadResult:
    """The load's LoadResult from the driver's output, as run_oha makes one on a machine; the
    driver's CPU is not measured in its pod, so only a rate it did not hold makes it driver-bound."""
    figures = oha.parse_oha_json(report_json(output))
    bound, why = assess_driver_bound(0.0, load.rate, figures.rps)
    return LoadResult(
        driver="oha", driver_version=OHA_VERSION, mode=load.mode, url=target, connections=load.connections,
        threads=None, duration_s=figures.duration_s, warmup_s=warmup_s, requests=figures.requests, rps=figures.rps,
        latency=figures.latency, errors=figures.errors, offered_rate=load.rate, driver_bound=bound,
        driver_bound_reason=why, command=["oha", *oha_args(target, load)], raw_output=output)


class DriverPod:
    """The run's driver pod: created once, placed apart from the apps, exec'd into per load."""

    def __init__(self, objs: Objects, namespace: str, run_id: str, image: str, pull_policy: str, *,
                 apart: bool, timeout_s: float):
        self.objs, self.namespace, self.run_id = objs, namespace, run_id
        self.image, self.pull_policy, self.apart, self.timeout_s = image, pull_policy, apart, timeout_s
        self.name = manifests.dns_label(f"driver-{run_id}")
        self.node = ""
        self.created = False

    def start(self) -> "DriverPod":
        if self.apart:  # else it would take the only node and leave the apps' pods none (the rule holds both ways)
            nodes = self.objs.cluster.core().list_node(_request_timeout=REQUEST_TIMEOUT_S).items
            open_nodes = [n.metadata.name for n in nodes if not (n.spec and n.spec.unschedulable)]
            if len(open_nodes) < 2:
                raise LabError(f"the load driver needs a node apart from the apps' pods, and the cluster has "
                               f"{len(open_nodes)} node(s) open to pods",
                               fix="give the cluster a second node, or on a one-node cluster set "
                                   "placement.driver_apart = false (its figures are then flagged)")
        self.objs.create(manifests.driver_pod(self.name, self.run_id, image=self.image, pull_policy=self.pull_policy,
                                              apart=self.apart), self.namespace)
        self.created = True
        try:
            pod, state = self.objs.watch_pods(self.namespace, f"{manifests.WORKLOAD}={self.name}", _running,
                                              self.timeout_s)
        except TimeoutError:
            raise LabError(f"the load driver's pod was not running within placement.timeout_s = "
                           f"{self.timeout_s:g} s") from None
        if state != "running":
            if state == "unschedulable" and self.apart:
                raise LabError("the load driver's pod cannot be placed on a node apart from the apps' pods",
                               fix="the driver needs a node of its own; on a one-node cluster set "
                                   "placement.driver_apart = false (its figures are then flagged)")
            raise pod_state.not_ready(pod, state, "the load driver")
        self.node = pod.spec.node_name
        return self

    def exec(self, argv: list[str], limit_s: float) -> str:
        """Run `argv` in the pod to its end; its standard output. A non-zero exit is an error with
        what it wrote."""
        with self.objs.cluster.streaming() as core:
            try:
                client = stream(core.connect_get_namespaced_pod_exec, self.name, self.namespace,
                                container=manifests.DRIVER, command=argv, stdout=True, stderr=True, stdin=False,
                                tty=False, _preload_content=False)
            except ApiException as exc:
                raise LabError(f"the API server refused to run the load driver: {api_message(exc)}",
                               fix="the lab needs pods/exec create in the run's namespace") from None
            try:
                client.run_forever(timeout=limit_s)
                out, err, code = client.read_stdout(), client.read_stderr(), client.returncode
            finally:
                client.close()
        if code is None:
            raise DriverTimeout(f"the load driver did not finish within {limit_s:.0f} s: {' '.join(argv[:3])} ...")
        if code != 0:
            raise LabError(f"the load driver exited with code {code}: {(err or out).strip()[-400:] or '(no output)'}")
        return out

    def check_apart(self) -> list[str]:
        """The flags the next load's figures carry; an error where the driver must be apart and an
        app pod shares its node."""
        pods = self.objs.cluster.core().list_pod_for_all_namespaces(
            label_selector=f"{manifests.RUN}={self.run_id},{manifests.ROLE}=app", _request_timeout=REQUEST_TIMEOUT_S).items
        shared = sorted(p.metadata.name for p in pods if p.spec.node_name == self.node)
        if shared and self.apart:
            raise LabError(f"app pod(s) {', '.join(shared)} run on node {self.node}, the load driver's: its load "
                           "would not come from another node")
        return [SAME_NODE] if shared else []

    def stop(self) -> None:
        if self.created:
            with contextlib.suppress(LabError, ApiException):
                self.objs.delete("v1", "Pod", self.name, self.namespace)


def _running(pod):
    state = pod_state.pod_state(pod)
    if pod.status and pod.status.phase == "Running":
        return pod, "running"
    return (pod, state) if state not in ("waiting", "ready") else None


def _refuse_script(script: str | Path | None) -> None:
    if script is not None:
        raise LabError("a scripted load (wrk's Lua: a POST body) has no driver on a cluster yet")


class ClusterLoad:
    """The LoadGenerator of a run on a cluster (perflab.placements): each load is oha in the driver pod."""

    def __init__(self, driver: DriverPod):
        self.driver = driver

    def _oha(self, url: str, load: Load, warmup_s: float = 0.0, flags: list[str] | None = None) -> LoadResult:
        """One oha run in the driver pod; `flags`: where the driver stands, if already checked."""
        flags = self.driver.check_apart() if flags is None else flags
        argv, limit_s = [manifests.DRIVER_OHA, *oha_args(url, load)], load.duration_s + load.timeout_s + EXEC_MARGIN_S
        try:
            out = self.driver.exec(argv, limit_s)
        except DriverTimeout:
            # once more: an exec whose stream lost its end measured nothing that can be read; a
            # second one that does not end either is the driver's failure and fails the launch
            out = self.driver.exec(argv, limit_s)
        result = oha_result(out, url, load, warmup_s)
        result.placement_flags += flags
        return result

    def closed(self, url: str, *, connections: int, threads: int, duration_s: int, warmup_s: int = 0,
               timeout_s: float = 2.0, script: str | Path | None = None,
               script_args: Mapping[str, str] | None = None) -> LoadResult:
        _refuse_script(script)
        if warmup_s >= 1:
            self._oha(url, Load("", connections, warmup_s, timeout_s=timeout_s))
        return self._oha(url, Load("", connections, duration_s, timeout_s=timeout_s), warmup_s)

    def closed_intervals(self, url: str, *, interval_s: int, connections: int, threads: int, duration_s: int,
                         warmup_s: int = 0, timeout_s: float = 2.0, script: str | Path | None = None,
                         script_args: Mapping[str, str] | None = None) -> IntervalRuns:
        _refuse_script(script)
        # where the driver stands is checked once for the series, not in the gap between intervals
        flags = self.driver.check_apart()
        return interval_runs(lambda length: self._oha(url, Load("", connections, length, timeout_s=timeout_s),
                                                      flags=flags),
                             duration_s=duration_s, interval_s=interval_s, warmup_s=warmup_s)

    def open(self, url: str, *, rate: float | None, duration_s: float, connections: int = 50,
             warmup_s: float = 0.0, timeout_s: float = 2.0, **request) -> LoadResult:
        if request.get("method", "GET") != "GET" or request.get("body"):
            raise LabError("the cluster's driver sends GET only")
        if warmup_s >= 1:
            self._oha(url, Load("", connections, warmup_s, rate=rate, timeout_s=timeout_s))
        return self._oha(url, Load("", connections, duration_s, rate=rate, timeout_s=timeout_s), warmup_s)

    def spread(self, urls: Sequence[str], *, connections_per_url: int, duration_s: int,
               timeout_s: float = 2.0) -> LoadResult:
        """One oha per instance, all in the driver pod at once, counted as one load."""
        with ThreadPoolExecutor(max_workers=len(urls)) as pool:
            results = list(pool.map(lambda u: self._oha(u, Load("", connections_per_url, duration_s,
                                                                 timeout_s=timeout_s)), urls))
        return merge_concurrent(results)

    def threads_for(self, connections: int) -> int:
        return 1  # oha runs its own workers; the figure has no part in its command
