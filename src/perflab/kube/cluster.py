"""Connecting to a cluster with the official Kubernetes client, and what the run records about it.

Every way the connection can fail (no kubeconfig, a context that is not in it, an API server that
does not answer) is a LabError naming what is missing. The environment record holds the cluster's
version, context, server and nodes (CPU, memory, whether simulated), never a credential.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubernetes import client, config
from kubernetes.config.config_exception import ConfigException

from perflab.errors import LabError
from perflab.placements.settings import PlacementSettings

# kwok marks the nodes it plays; pods "run" on them without containers
SIMULATED_NODE_ANNOTATION = "kwok.x-k8s.io/node"
REQUEST_TIMEOUT_S = 10


@dataclass
class Cluster:
    api: client.ApiClient
    context: str
    server: str

    def core(self) -> client.CoreV1Api:
        return client.CoreV1Api(self.api)

    @contextlib.contextmanager
    def streaming(self) -> Iterator[client.CoreV1Api]:
        """A CoreV1Api on a client of its own for one exec or port-forward: the client library's
        stream() swaps its client's request function while the stream opens, so a call another
        thread makes on a shared client meanwhile would go out as a websocket and fail."""
        api = client.ApiClient(configuration=self.api.configuration)
        try:
            yield client.CoreV1Api(api)
        finally:
            api.close()


def kubeconfig_paths() -> list[str]:
    value = os.environ.get("KUBECONFIG") or str(Path.home() / ".kube" / "config")
    return [p for p in value.split(os.pathsep) if p]


def connect(placement: PlacementSettings) -> Cluster:
    paths = kubeconfig_paths()
    found = [p for p in paths if Path(p).is_file()]
    if not found:
        raise LabError(f"placement = kubernetes, but there is no kubeconfig ({', '.join(paths)} not found)",
                       fix="point KUBECONFIG at your cluster's kubeconfig, or set placement.kind = \"local\"")
    try:
        contexts, current = config.list_kube_config_contexts(config_file=found[0])
    except ConfigException as exc:
        raise LabError(f"the kubeconfig {found[0]} cannot be read: {exc}") from None
    names = [c["name"] for c in contexts]
    wanted = placement.context or (current or {}).get("name", "")
    if not wanted:
        raise LabError(f"the kubeconfig {found[0]} has no current context",
                       fix=f"name one in the plan: placement.context = one of {', '.join(names) or '(none defined)'}")
    if wanted not in names:
        raise LabError(f"kube context {wanted!r} not found in {found[0]}",
                       fix=f"contexts there: {', '.join(names) or '(none)'}")
    try:
        api = config.new_client_from_config(config_file=found[0], context=wanted)
    except ConfigException as exc:
        raise LabError(f"kube context {wanted!r} in {found[0]} is incomplete: {exc}") from None
    cluster = Cluster(api, wanted, api.configuration.host)
    try:
        client.VersionApi(api).get_code(_request_timeout=REQUEST_TIMEOUT_S)
    except Exception as exc:  # urllib3 connection errors, TLS errors, 401/403: all mean "cannot use it"
        reason = getattr(exc, "reason", None) or exc
        raise LabError(f"the API server of kube context {wanted!r} ({cluster.server}) is unreachable: {reason}",
                       fix="check that the cluster is up and the context's credentials are valid "
                           "(kubectl --context " + wanted + " version)") from None
    return cluster


def _memory_mb(quantity: str) -> float:
    from kubernetes.utils import parse_quantity

    return float(parse_quantity(quantity)) / 2**20


def nodes(cluster: Cluster) -> list[dict[str, Any]]:
    out = []
    for node in cluster.core().list_node(_request_timeout=REQUEST_TIMEOUT_S).items:
        cap = node.status.capacity or {}
        out.append({
            "name": node.metadata.name,
            "cpus": str(cap.get("cpu", "")),
            "memory_mb": round(_memory_mb(cap["memory"])) if "memory" in cap else None,
            "kubelet": node.status.node_info.kubelet_version if node.status.node_info else "",
            "simulated": SIMULATED_NODE_ANNOTATION in (node.metadata.annotations or {}),
        })
    return out


def environment(cluster: Cluster) -> dict[str, Any]:
    version = client.VersionApi(cluster.api).get_code(_request_timeout=REQUEST_TIMEOUT_S)
    found = nodes(cluster)
    return {"context": cluster.context, "server": cluster.server, "version": version.git_version,
            "platform": version.platform, "nodes": found,
            "simulated_nodes": bool(found) and all(n["simulated"] for n in found)}
