"""Knative Serving on the test cluster's real node (`scripts/kube-testenv.sh up --knative`), so
that serverless cold start runs through a real Knative: its controller, webhook, autoscaler and
activator as pods, and its queue-proxy beside each revision's app container.

Knative's images live in registries this machine cannot reach; its sources are on the Go module
proxy. The four components and the queue-proxy are compiled from there (static binaries, once per
machine), layered as images the way the lab layers a native app, loaded into the node, and
installed from Knative's own manifests (`config/core` of its module, with the networking and
caching CRDs of the modules it pins), changed only where this one-node cluster differs from a
real one:
- images: ours instead of `ko://` references, run as a non-root user as Knative's pods demand;
- CPU requests of 50m instead of 100-300m: the node has two cores, and the apps need them;
- tags are not resolved to digests for the lab's registry-less images (a real cluster resolves
  them through its registry);
- a scale-to-zero grace period of 6 s (30 s by default) so that a cold start can follow sooner.
There is no networking layer (Kourier, Istio): it only routes a Knative Service's host name to
the revision, which the lab does not use (it sends requests to the revision through the API
server, see perflab.kube.coldstart). A Knative Service therefore never turns Ready here (its
Route waits for an ingress), while its revision and the scale-from-zero path are Knative's own.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from perflab.drivers.install import Log, cache_dir, exclusive_lock, say
from perflab.kube import images
from tools.kubeenv import build

# the newest Serving release whose pinned knative.dev/pkg and knative.dev/networking the Go module
# proxy serves (v0.51.0's are refused)
VERSION = "v0.42.2"
MODULE = "knative.dev/serving"
COMMANDS = ("controller", "webhook", "autoscaler", "activator", "queue")
NAMESPACE = "knative-serving"
USER = "65532"  # Knative's pods run as non-root; its own images use this user
CPU_REQUEST = "50m"
REGISTRY = "perflab.local"
READY_TIMEOUT_S = 240
# what Knative's controller may use as is; a real cluster resolves tags through its registry
SKIP_TAG_RESOLVING = "kind.local,ko.local,dev.local,perflab.local,index.docker.io,docker.io"


def root() -> Path:
    return build.root() / f"knative-{VERSION}"


def image(command: str) -> str:
    return f"{REGISTRY}/knative-{command}:{VERSION}"


def _pinned(serving: Path, module: str) -> str:
    """The version of `module` that Serving's go.mod requires."""
    for line in (serving / "go.mod").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == module:
            return parts[1]
    raise build.BuildFailed(f"{MODULE}@{VERSION}: go.mod does not require {module}")


def sources() -> dict[str, Path]:
    """The module directories of Serving and of the networking and caching modules it pins."""
    go = build.check_go()
    serving = build.module_dir(go, f"{MODULE}@{VERSION}")
    found = {"serving": serving}
    for name in ("networking", "caching"):
        found[name] = build.module_dir(go, f"knative.dev/{name}@{_pinned(serving, f'knative.dev/{name}')}")
    return found


def built() -> bool:
    return all((root() / "bin" / c).is_file() for c in COMMANDS)


def build_binaries(log: Log = say) -> Path:
    """Knative's commands compiled once per machine (about two minutes on two cores)."""
    if built():
        return root() / "bin"
    go = build.check_go()
    with exclusive_lock(cache_dir() / "locks" / "kube-testenv.lock"):
        if built():
            return root() / "bin"
        serving = sources()["serving"]
        (root() / "bin").mkdir(parents=True, exist_ok=True)
        env = build.go_env("-mod=mod")
        log(f"kube test env: compiling Knative Serving {VERSION} from the Go module proxy into {root()} (once)")
        build.run_step("compiling Knative Serving",
                       [go, "build", "-trimpath", "-o", str(root() / "bin") + "/", *(f"./cmd/{c}" for c in COMMANDS)],
                       serving, env, root() / "build.log", log)
    return root() / "bin"


def load_images(node, bin_dir: Path, log: Log = say) -> None:
    """Each command as an image in the node's runtime."""
    out_dir = root() / "images"
    out_dir.mkdir(parents=True, exist_ok=True)
    for command in COMMANDS:
        out = out_dir / f"{command}.tar"
        if not out.is_file():
            images.native_image(bin_dir / command, image(command), out, f"Knative Serving {VERSION} {command}",
                                user=USER)
        node.ctr("images", "import", str(out))
    log(f"kube test env: Knative images loaded into node {node.name}")


# --- manifests -------------------------------------------------------------------------------------

def _documents(paths: list[Path]) -> list[dict[str, Any]]:
    import yaml

    docs = []
    for path in paths:
        docs.extend(d for d in yaml.safe_load_all(path.read_text()) if d)
    return docs


def _sources_in_order(src: dict[str, Path]) -> list[Path]:
    core = src["serving"] / "config" / "core"
    net = src["networking"] / "config"
    files = [core / "100-namespace.yaml", core / "200-serviceaccount.yaml",
             *sorted((core / "200-roles").glob("*.yaml")),
             *sorted((core / "300-resources").glob("*.yaml")),
             *(net / f for f in ("certificate.yaml", "ingress.yaml", "serverlessservice.yaml", "domain-claim.yaml")),
             src["caching"] / "config" / "image.yaml",
             *sorted((core / "configmaps").glob("*.yaml")), net / "config-network.yaml",
             *sorted((core / "webhooks").glob("*.yaml")),
             *(p for p in sorted((core / "deployments").glob("*.yaml")) if not p.name.endswith("-hpa.yaml")),
             core / "999-cache.yaml"]
    missing = [str(p) for p in files if not p.is_file()]
    if missing:
        raise build.BuildFailed(f"Knative's manifests are incomplete: {', '.join(missing)}")
    return files


def _with_images(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(f"ko://{MODULE}/cmd/"):
        return image(value.rsplit("/", 1)[1])
    if isinstance(value, dict):
        return {k: _with_images(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_images(v) for v in value]
    return value


def rendered(src: dict[str, Path]) -> list[dict[str, Any]]:
    """Knative's manifests with this cluster's changes (the module docstring lists them)."""
    docs = []
    for doc in _documents(_sources_in_order(src)):
        doc = _with_images(doc)
        kind, name = doc["kind"], doc["metadata"]["name"]
        if kind == "ConfigMap" and name == "config-deployment":
            doc["data"] = {**doc.get("data", {}), "registries-skipping-tag-resolving": SKIP_TAG_RESOLVING}
        if kind == "ConfigMap" and name == "config-autoscaler":
            doc["data"] = {**doc.get("data", {}), "scale-to-zero-grace-period": "6s"}
        if kind == "Certificate":  # a cert-manager certificate for internal TLS, which is off
            continue
        if kind == "Deployment":
            for container in doc["spec"]["template"]["spec"]["containers"]:
                requests = container.setdefault("resources", {}).setdefault("requests", {})
                requests["cpu"] = CPU_REQUEST
                container.setdefault("securityContext", {})["runAsUser"] = int(USER)
        docs.append(doc)
    return docs


# --- install ---------------------------------------------------------------------------------------

def install(kubeconfig: Path, node, log: Log = say) -> None:
    """Knative Serving on the cluster, its four components Ready (the node must be up)."""
    from kubernetes import client, config, dynamic

    bin_dir = build_binaries(log)
    src = sources()
    load_images(node, bin_dir, log)
    docs = rendered(src)
    with config.new_client_from_config(config_file=str(kubeconfig)) as api:
        dyn = dynamic.DynamicClient(api)
        crds = [d for d in docs if d["kind"] == "CustomResourceDefinition"]
        for doc in crds:
            _apply(dyn, doc)
        _wait_established(api, [d["metadata"]["name"] for d in crds])
        dyn = dynamic.DynamicClient(api)  # discovery again: it now serves Knative's kinds
        for doc in docs:
            if doc["kind"] != "CustomResourceDefinition":
                _apply(dyn, doc)
        _wait_deployments(client.AppsV1Api(api), ("controller", "webhook", "autoscaler", "activator"), node)
    log(f"kube test env: Knative Serving {VERSION} ready in namespace {NAMESPACE}")


def _apply(dyn, doc: dict[str, Any]) -> None:
    res = dyn.resources.get(api_version=doc["apiVersion"], kind=doc["kind"])
    namespace = doc["metadata"].get("namespace") if res.namespaced else None
    res.create(body=doc, namespace=namespace)


def _wait_established(api, names: list[str]) -> None:
    from kubernetes import client

    ext = client.ApiextensionsV1Api(api)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready = {c.metadata.name for c in ext.list_custom_resource_definition().items
                 if any(k.type == "Established" and k.status == "True" for k in c.status.conditions or [])}
        if set(names) <= ready:
            return
        time.sleep(0.5)
    raise build.BuildFailed(f"Knative's CRDs were not established within 60 s: {sorted(set(names) - ready)}")


def _wait_deployments(apps, names: tuple[str, ...], node) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    pending = list(names)
    while time.monotonic() < deadline:
        node.check_alive()
        pending = [n for n in names if (apps.read_namespaced_deployment(n, NAMESPACE).status.ready_replicas or 0) < 1]
        if not pending:
            return
        time.sleep(1)
    raise build.BuildFailed(f"Knative's {', '.join(pending)} not ready within {READY_TIMEOUT_S} s "
                            f"(kubectl -n {NAMESPACE} get pods; kubectl -n {NAMESPACE} logs deploy/NAME)")
