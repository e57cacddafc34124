"""A real, local Kubernetes control plane for tests and trials: etcd, kube-apiserver, controller
manager and scheduler built from source (tools.kubeenv.build), plus kwok playing the kubelets of a
few simulated nodes. Pods on those nodes become Running and Ready without any container: what is
measured there is the control plane's work, never an app's. With --real-node, one real node
(tools.kubeenv.node: kubelet, kube-proxy, CoreDNS, containerd, runc) joins instead, with a
PostgreSQL its pods reach; --knative adds Knative Serving on it (tools.kubeenv.knative).

    python -m tools.kubeenv.testenv up [NODES]       # prints the KUBECONFIG to use; Ctrl-C stops it
    python -m tools.kubeenv.testenv up --real-node   # the same with a real node (root)
    python -m tools.kubeenv.testenv up --knative     # a real node with Knative Serving (root)

Everything (data, keys, logs, kubeconfig) lives in one directory that is removed on stop.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Iterator

from perflab.errors import LabError
from tools.kubeenv import build

NODE_CPUS = "4"
NODE_MEMORY = "8Gi"
READY_TIMEOUT_S = 120
SERVICE_RANGE = "10.96.0.0/16"  # its first address is the kubernetes Service's
LAB_USER = "perflab-lab"
# the simulated kubelets cannot pull from this registry (the .invalid domain never resolves, as on a
# real node): their pods wait with ErrImagePull instead of turning Ready
UNPULLABLE_REGISTRY = "unpullable.invalid"
_REGISTRY_OF_IMAGE = '.spec.containers.[0].image | split("/") | .[0]'
IMAGE_PULL_STAGE = {
    "apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "Stage", "metadata": {"name": "pod-image-unpullable"},
    "spec": {"resourceRef": {"apiGroup": "v1", "kind": "Pod"},
             "selector": {"matchExpressions": [
                 {"key": _REGISTRY_OF_IMAGE, "operator": "In", "values": [UNPULLABLE_REGISTRY]},
                 {"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"},
                 {"key": ".status.containerStatuses", "operator": "DoesNotExist"}]},
             "next": {"statusTemplate": """
conditions:
- type: Ready
  status: "False"
  reason: ContainersNotReady
containerStatuses:
{{ range .spec.containers }}
- image: {{ .image | Quote }}
  name: {{ .name | Quote }}
  ready: false
  restartCount: 0
  state:
    waiting:
      reason: ErrImagePull
      message: {{ printf "failed to pull and unpack image %s: dial tcp: lookup unpullable.invalid: no such host" .image | Quote }}
{{ end }}
phase: Pending
"""}}}


class ControlPlaneFailed(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ControlPlane:
    def __init__(self, root: Path):
        self.root = root
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self.kubeconfig = root / "kubeconfig"
        self.token = secrets.token_hex(16)
        self.lab_token = secrets.token_hex(16)
        self.lab_kubeconfig = root / "kubeconfig-lab"
        self.port = _free_port()

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.root / f"{name}.log", "wb")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        log.close()
        self.procs.append((name, proc))

    def _check_alive(self) -> None:
        for name, proc in self.procs:
            if proc.poll() is not None:
                tail = (self.root / f"{name}.log").read_text(errors="replace")[-2000:]
                raise ControlPlaneFailed(f"{name} exited with {proc.returncode}:\n{tail}")

    def start(self, nodes: int = 2) -> "ControlPlane":
        bin_dir = build.build()
        exe = {name: str(bin_dir / name) for name in build.BINARIES}
        keys = self._keys()
        etcd_port, peer_port = _free_port(), _free_port()
        self._spawn("etcd", [exe["etcd"], "--data-dir", str(self.root / "etcd"),
                             "--listen-client-urls", f"http://127.0.0.1:{etcd_port}",
                             "--advertise-client-urls", f"http://127.0.0.1:{etcd_port}",
                             "--listen-peer-urls", f"http://127.0.0.1:{peer_port}",
                             "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_port}",
                             "--initial-cluster", f"default=http://127.0.0.1:{peer_port}",
                             "--unsafe-no-fsync", "--log-level", "warn"])
        # an administrator, and a user with no rights of its own (tests bind it to the lab's role)
        (self.root / "tokens.csv").write_text(f'{self.token},perflab-admin,1,"system:masters"\n'
                                              f'{self.lab_token},{LAB_USER},2\n')
        self._spawn("kube-apiserver", [
            exe["kube-apiserver"], f"--etcd-servers=http://127.0.0.1:{etcd_port}",
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", f"--secure-port={self.port}",
            f"--cert-dir={self.root / 'certs'}", f"--token-auth-file={self.root / 'tokens.csv'}",
            # a loopback address cannot back the kubernetes Service: no endpoint reconciler
            "--endpoint-reconciler-type=none",
            # a real node's name does not resolve here: reach its kubelet (logs, stats) by its address
            "--kubelet-preferred-address-types=InternalIP,Hostname",
            # webhooks (Knative's) and aggregated APIs reached at their pods' addresses: no kube-proxy here
            "--enable-aggregator-routing=true",
            "--authorization-mode=RBAC", f"--service-cluster-ip-range={SERVICE_RANGE}",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={keys['pub']}", f"--service-account-signing-key-file={keys['key']}"])
        self._wait_ready()
        self._write_kubeconfig()
        common = [f"--kubeconfig={self.kubeconfig}", "--leader-elect=false", "--secure-port=0"]
        # --root-ca-file: pods' service account volumes carry the CA that signed the server's
        # certificate, so in-cluster clients (Knative's controllers) verify it
        self._spawn("kube-controller-manager", [exe["kube-controller-manager"], *common,
                                                f"--service-account-private-key-file={keys['key']}",
                                                f"--root-ca-file={self.root / 'certs' / 'apiserver.crt'}"])
        self._spawn("kube-scheduler", [exe["kube-scheduler"], *common])
        # kwok plays the simulated nodes only: a real node's kubelet (tools.kubeenv.node) reports its own
        self._spawn("kwok", [exe["kwok"], f"--kubeconfig={self.kubeconfig}",
                             "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
                             f"--config={self._kwok_stages()}",
                             f"--server-address=127.0.0.1:{_free_port()}"])
        self._add_nodes(nodes)
        self._wait_nodes_ready(nodes)
        return self

    def _kwok_stages(self) -> Path:
        """kwok's own stages, with pods of images from UNPULLABLE_REGISTRY failing to pull."""
        import yaml

        stages = list(yaml.safe_load_all(build.kwok_stages().read_text()))
        for stage in stages:
            if stage["metadata"]["name"] == "pod-ready":
                stage["spec"]["selector"]["matchExpressions"].append(
                    {"key": _REGISTRY_OF_IMAGE, "operator": "NotIn", "values": [UNPULLABLE_REGISTRY]})
        path = self.root / "kwok-stages.yaml"
        path.write_text(yaml.safe_dump_all([*stages, IMAGE_PULL_STAGE]))
        return path

    def _wait_nodes_ready(self, count: int) -> None:
        """kwok marks the nodes Ready: proof that it and the API server talk."""
        from kubernetes import client

        deadline = time.monotonic() + READY_TIMEOUT_S
        with self.api() as api:
            core = client.CoreV1Api(api)
            while time.monotonic() < deadline:
                self._check_alive()
                ready = [n for n in core.list_node().items
                         if any(c.type == "Ready" and c.status == "True" for c in n.status.conditions or [])]
                if len(ready) >= count:
                    return
                time.sleep(0.5)
        raise ControlPlaneFailed(f"kwok did not make the {count} nodes Ready within {READY_TIMEOUT_S} s "
                                 f"(see {self.root / 'kwok.log'})")

    def _keys(self) -> dict[str, Path]:
        key, pub = self.root / "sa.key", self.root / "sa.pub"
        subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True)
        subprocess.run(["openssl", "rsa", "-in", str(key), "-pubout", "-out", str(pub)], check=True,
                       capture_output=True)
        return {"key": key, "pub": pub}

    def _write_kubeconfig(self) -> None:
        self._kubeconfig_for(self.kubeconfig, "perflab-admin", self.token)
        self._kubeconfig_for(self.lab_kubeconfig, LAB_USER, self.lab_token)

    def _kubeconfig_for(self, path: Path, user: str, token: str) -> None:
        # JSON is YAML: no YAML writer needed. The server made its own CA and certificate at start:
        # the file holds both, so clients verify it like any cluster's
        path.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "perflab-test",
            "clusters": [{"name": "perflab-test", "cluster": {"server": f"https://127.0.0.1:{self.port}",
                                                              "certificate-authority": str(self.root / "certs" / "apiserver.crt")}}],
            "users": [{"name": user, "user": {"token": token}}],
            "contexts": [{"name": "perflab-test", "context": {"cluster": "perflab-test", "user": user}}],
        }, indent=1))
        path.chmod(0o600)

    def api(self):
        from kubernetes import config

        return config.new_client_from_config(config_file=str(self.kubeconfig))

    def _wait_ready(self) -> None:
        # /readyz turns 200 once the server's own start-up hooks (RBAC roles, etc.) are done
        request = urllib.request.Request(f"https://127.0.0.1:{self.port}/readyz",
                                         headers={"Authorization": f"Bearer {self.token}"})
        unverified = ssl._create_unverified_context()  # the test server's self-signed certificate
        deadline = time.monotonic() + READY_TIMEOUT_S
        last: Exception | None = None
        while time.monotonic() < deadline:
            self._check_alive()
            try:
                with urllib.request.urlopen(request, context=unverified, timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError as exc:  # not up yet
                last = exc
            time.sleep(0.5)
        raise ControlPlaneFailed(f"kube-apiserver not ready within {READY_TIMEOUT_S} s: {last}")

    def _add_nodes(self, count: int) -> None:
        from kubernetes import client

        with self.api() as api:
            core = client.CoreV1Api(api)
            for i in range(count):
                name = f"kwok-node-{i}"
                core.create_node({"apiVersion": "v1", "kind": "Node", "metadata": {
                    "name": name, "annotations": {"kwok.x-k8s.io/node": "fake"},
                    "labels": {"kubernetes.io/hostname": name, "type": "kwok"}},
                    "status": {"capacity": {"cpu": NODE_CPUS, "memory": NODE_MEMORY, "pods": "110"},
                               "allocatable": {"cpu": NODE_CPUS, "memory": NODE_MEMORY, "pods": "110"}}})

    def stop(self) -> None:
        for _, proc in reversed(self.procs):
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for _, proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.procs.clear()


@contextlib.contextmanager
def running(nodes: int = 2, keep: Path | None = None) -> Iterator[ControlPlane]:
    """A started control plane with `nodes` simulated nodes, stopped and removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="perflab-kube-"))
    plane = ControlPlane(root)
    try:
        yield plane.start(nodes)
    finally:
        from perflab import signals

        with signals.shielded():  # a second Ctrl-C must not leave servers behind
            plane.stop()
            shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def database_for_pods() -> Iterator[str]:
    """A private PostgreSQL (the lab's own, perflab.postgres) that a real node's pods reach on the
    bridge's address; yields the plan's placement.postgres_url. Stopped and removed afterwards."""
    from perflab import postgres
    from tools.kubeenv import node

    root = Path(tempfile.mkdtemp(prefix="perflab-node-db-"))
    os.chmod(root, 0o755)  # PostgreSQL runs as its own unprivileged user when the lab is root
    cluster = postgres.Cluster(root / "db")
    try:
        conn = cluster.start(listen=("127.0.0.1", node.GATEWAY), allow_from=(node.POD_SUBNET,))
        postgres.load_contract(conn)
        yield dataclasses.replace(conn, host=node.GATEWAY).url  # where the pods reach it
    finally:
        cluster.stop(quiet=True)
        shutil.rmtree(root, ignore_errors=True)


def _serve(plane: ControlPlane, real: "node.Node | None", postgres_url: str) -> None:
    print(f"control plane up: export KUBECONFIG={plane.kubeconfig}   (Ctrl-C stops it)", flush=True)
    if build.flavour() != "optimized":  # a run records the server's version, which says it too
        print(f"warning: this control plane was compiled without optimizations ({build.FLAVOUR_ENV}="
              f"{build.asked_flavour()}): what a run measures of it (scale-up, cold start) is slower than on "
              f"a release's binaries", flush=True)
    if real is not None:
        print(f"real node {real.name} up. In the plan's [placement]: images = \"tarball\", "
              f"postgres_url = \"{postgres_url}\"\n"
              f"load each image the run writes: ctr --address {real.socket} -n k8s.io images import FILE", flush=True)
    while True:
        plane._check_alive()
        if real is not None:
            real.check_alive()
        time.sleep(2)


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if not args or args[0] not in ("build", "up") or set(argv) - set(args) - {"--real-node", "--knative"}:
        print(__doc__, file=sys.stderr)
        print("usage: python -m tools.kubeenv.testenv build [--real-node | --knative] | up [NODES] [--real-node | --knative]",
              file=sys.stderr)
        return 2
    with_knative = "--knative" in argv  # Knative runs its pods on the real node
    real_node = "--real-node" in argv or with_knative
    if args[0] == "build":
        code = build.main(["--node"] if real_node else [])
        if code == 0 and with_knative:
            from tools.kubeenv import knative
            try:
                knative.build_binaries()
            except build.BuildFailed as exc:
                print(f"perflab: {exc}", file=sys.stderr)
                return 1
        return code
    from perflab import signals
    from tools.kubeenv import node

    signals.install()
    try:
        with running(int(args[1]) if len(args) > 1 else (0 if real_node else 2)) as plane:
            if not real_node:
                _serve(plane, None, "")
            with node.running(plane.kubeconfig) as real, database_for_pods() as url:
                if with_knative:
                    from tools.kubeenv import knative
                    knative.install(plane.kubeconfig, real)
                _serve(plane, real, url)
    except KeyboardInterrupt:
        return 0
    except (ControlPlaneFailed, build.BuildFailed, node.NodeFailed, LabError) as exc:
        print(f"perflab: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
