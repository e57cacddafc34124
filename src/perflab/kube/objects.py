"""Creating, watching and deleting the lab's objects through the official client's dynamic API
(any kind, CRDs included), and removing what a crashed run left behind.

A run owns one namespace: deleting it deletes everything in it. Namespaces carry the lab's labels
and the host:pid of the lab that made them, so a later run can tell a crashed run's namespace
(its process is gone) from one that is still running.
"""

from __future__ import annotations

import os
import socket
import tempfile
import time
from typing import Any, Callable, Iterable

from kubernetes import dynamic, watch
from kubernetes.client.exceptions import ApiException
from kubernetes.dynamic.exceptions import ResourceNotFoundError

from perflab import procs
from perflab.errors import LabError
from perflab.kube import manifests
from perflab.kube.cluster import REQUEST_TIMEOUT_S, Cluster
from perflab.waiting import wait_until

Manifest = manifests.Manifest


class KindUnavailable(LabError):
    """The cluster does not serve this kind (e.g. Knative's Service without Knative installed)."""


def owner_token() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


class Objects:
    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        # the client's default discovery cache is one file per server URL, shared by every process
        # and never told when a kind goes away (a CRD deleted): start from the server's own answer
        with tempfile.TemporaryDirectory(prefix="perflab-discovery-") as fresh:
            self.dyn = dynamic.DynamicClient(cluster.api, cache_file=os.path.join(fresh, "discovery.json"))

    def resource(self, api_version: str, kind: str):
        try:
            return self.dyn.resources.get(api_version=api_version, kind=kind)
        except ResourceNotFoundError:
            raise KindUnavailable(f"the cluster does not serve {kind} ({api_version})") from None

    def serves(self, api_version: str, kind: str) -> bool:
        try:
            self.resource(api_version, kind)
            return True
        except KindUnavailable:
            return False

    def create(self, body: Manifest, namespace: str | None = None, *, dry_run: bool = False) -> Any:
        res = self.resource(body["apiVersion"], body["kind"])
        ns = namespace if res.namespaced else None
        try:
            if dry_run:  # strict: a field the schema does not know is an error, not silently dropped
                return self.dyn.request("post", res.path(namespace=ns) + "?dryRun=All&fieldValidation=Strict",
                                        body=body, _request_timeout=REQUEST_TIMEOUT_S)
            return res.create(body=body, namespace=ns, _request_timeout=REQUEST_TIMEOUT_S)
        except ApiException as exc:
            raise LabError(f"the API server refused {body['kind']} {body['metadata'].get('name')!r}: "
                           f"{api_message(exc)}") from None

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Any:
        return self.resource(api_version, kind).get(name=name, namespace=namespace)

    def patch(self, api_version: str, kind: str, name: str, namespace: str, body: dict) -> Any:
        return self.resource(api_version, kind).patch(body=body, name=name, namespace=namespace,
                                                      content_type="application/merge-patch+json")

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None,
               propagation: str | None = None) -> None:
        """Delete one object (gone already is fine). `propagation`: e.g. "Background" for a Job,
        whose pods the API server would otherwise leave behind (its default for Jobs is to orphan them)."""
        try:
            self.resource(api_version, kind).delete(name=name, namespace=namespace, propagation_policy=propagation,
                                                    _request_timeout=REQUEST_TIMEOUT_S)
        except ApiException as exc:
            if exc.status not in (404, 409):  # gone, or already being deleted
                raise

    def watch_pods(self, namespace: str, selector: str, until: Callable[[Any], Any], timeout_s: float) -> Any:
        """Watch the namespace's pods matching `selector` until `until(pod)` returns something true;
        return that. Raises TimeoutError after timeout_s."""
        core = self.cluster.core()
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            listing = core.list_namespaced_pod(namespace, label_selector=selector, _request_timeout=REQUEST_TIMEOUT_S)
            for pod in listing.items:
                found = until(pod)
                if found:
                    return found
            # watch from the listing's version: no change between the two can slip through
            stream = watch.Watch()
            try:
                for event in stream.stream(core.list_namespaced_pod, namespace, label_selector=selector,
                                           resource_version=listing.metadata.resource_version,
                                           timeout_seconds=max(1, int(left))):
                    found = until(event["object"])
                    if found:
                        return found
            finally:
                stream.stop()
        raise TimeoutError(f"no pod matching {selector} in {namespace} got there within {timeout_s:.0f} s")

    # -- the run's namespace -------------------------------------------------------------------

    def create_namespace(self, name: str, run_id: str, ready_s: float = 60) -> None:
        """A namespace of the run, once it takes pods: they are refused until its default
        ServiceAccount exists (made by a controller)."""
        self.create(manifests.namespace(name, run_id, owner_token()))
        core = self.cluster.core()
        found = wait_until(lambda: core.list_namespaced_service_account(name, field_selector="metadata.name=default",
                                                                        _request_timeout=REQUEST_TIMEOUT_S).items,
                           ready_s, interval_s=0.2)
        if not found:
            raise LabError(f"namespace {name}: no default ServiceAccount after {ready_s:g} s "
                           "(is the controller manager running?)")

    def delete_namespace(self, name: str, wait_s: float = 60) -> bool:
        """Delete a namespace and wait until it is gone (True) or wait_s passed (False)."""
        self.delete("v1", "Namespace", name)

        def gone() -> bool:
            try:
                self.cluster.core().read_namespace(name, _request_timeout=REQUEST_TIMEOUT_S)
            except ApiException as exc:
                if exc.status == 404:
                    return True
                raise
            return False

        return bool(wait_until(gone, wait_s, interval_s=0.5))

    def lab_namespaces(self) -> list[Any]:
        return self.cluster.core().list_namespace(label_selector=manifests.run_selector(),
                                                  _request_timeout=REQUEST_TIMEOUT_S).items

    def remove_leftovers(self, say: Callable[[str], None]) -> list[str]:
        """Delete the namespaces of this host's lab runs whose process is gone (a crash or a kill).
        Namespaces of other hosts or of live labs are left alone and named."""
        removed = []
        host = socket.gethostname()
        for ns in self.lab_namespaces():
            owner = (ns.metadata.annotations or {}).get(manifests.OWNER, "")
            owner_host, _, pid = owner.rpartition(":")
            if ns.status and ns.status.phase == "Terminating":
                continue
            if owner_host == host and pid.isdigit() and not procs.alive(int(pid)):
                say(f"removing namespace {ns.metadata.name} left by a run that did not finish "
                    f"(run {ns.metadata.labels.get(manifests.RUN)})")
                self.delete("v1", "Namespace", ns.metadata.name)
                removed.append(ns.metadata.name)
            elif owner_host != host:
                say(f"namespace {ns.metadata.name} belongs to a lab on {owner_host or 'an unknown host'}: left alone")
        return removed

    def dry_run(self, bodies: Iterable[Manifest], namespace: str) -> list[str]:
        """Server-side dry run of each manifest: the API server validates it against its schemas
        (strictly: unknown fields too) and admission without storing it. Returns the problems
        found (empty: all accepted); a kind the cluster does not serve is one of them."""
        problems = []
        for body in bodies:
            try:
                self.create(body, namespace, dry_run=True)
            except LabError as exc:
                problems.append(exc.message)
        return problems


def api_message(exc: ApiException) -> str:
    """The API server's own words for a refusal (its Status message), else the HTTP status."""
    import json

    try:
        return json.loads(exc.body).get("message", exc.reason)
    except (TypeError, ValueError):
        return f"{exc.status} {exc.reason}"
