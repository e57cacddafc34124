"""A real Kubernetes node on this machine, joined to the test control plane (tools.kubeenv.testenv):
the kubelet of the control plane's release driving a private containerd and runc, pods on a CNI
bridge. Unlike kwok's simulated nodes, its pods run the apps' images: start-up, scale-up and
density figures measured on it are an app's, in a cluster of one node.

What it needs, all from Debian or built by tools.kubeenv.build: containerd (1.6 speaks the CRI v1
the kubelet wants; the kubelet falls back to its own cgroup driver setting, cgroupfs), runc, the
CNI plugins, and the kubelet and pause binaries. Root only (containers, cgroups, a bridge).

Everything lives in one directory; `stop` deletes the node's pods through the API first (so the
kubelet tears their sandboxes and network down), then kills what is left: containers, shims, the
bridge, the kubelet's cgroups.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from perflab import procs
from perflab.drivers.install import DriverUnavailable, cache_dir, ensure_apt_binary, say
from perflab.kube import images
from tools.kubeenv import build

NAME = "perflab-node"
PAUSE_IMAGE = "perflab.local/pause:1"
BRIDGE = "perflab0"
POD_SUBNET = "10.244.0.0/24"
GATEWAY = "10.244.0.1"  # the bridge's address on this machine: where pods reach its services
CNI_DIR = Path("/usr/lib/cni")
API_RULE = "perflab-node: the kubernetes Service"  # the DNAT rule's comment (removed on stop)
CLUSTER_DOMAIN = "cluster.local"
# iptables chains the kubelet makes (kube-proxy --cleanup removes kube-proxy's own)
KUBELET_CHAINS = (("filter", "KUBE-FIREWALL"), ("filter", "KUBE-KUBELET-CANARY"), ("nat", "KUBE-KUBELET-CANARY"),
                  ("mangle", "KUBE-KUBELET-CANARY"), ("mangle", "KUBE-IPTABLES-HINT"))
CGROUP_ROOT = "/perflab-node"  # every pod's cgroup below it, removed on stop
READY_TIMEOUT_S = 120


class NodeFailed(RuntimeError):
    pass


def missing() -> str:
    """Why a real node cannot run here ("" when it can)."""
    if os.geteuid() != 0:
        return "a real node runs containers, and so needs root"
    try:
        ensure_apt_binary("containerd", "containerd")
        ensure_apt_binary("runc", "runc")
        if not (CNI_DIR / "bridge").is_file():
            _install_cni()
    except DriverUnavailable as exc:
        return str(exc)
    return ""


def _install_cni() -> None:
    if shutil.which("apt-get") is None:
        raise DriverUnavailable(f"no CNI plugins in {CNI_DIR} and no apt-get to install them: "
                                "install containernetworking-plugins")
    say("installing the CNI plugins (containernetworking-plugins) for a real node ...")
    done = subprocess.run(["apt-get", "install", "-y", "-q", "containernetworking-plugins"], capture_output=True,
                          text=True, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    if done.returncode != 0 or not (CNI_DIR / "bridge").is_file():
        raise DriverUnavailable(f"apt-get install containernetworking-plugins failed: {done.stderr.strip()[-300:]}")


def ctr(socket_path: Path, *args: str, check: bool = True) -> str:
    """containerd's own client on the Kubernetes namespace of the containerd at `socket_path`."""
    done = subprocess.run(["ctr", "--address", str(socket_path), "-n", "k8s.io", *args], capture_output=True,
                          text=True, timeout=300)
    if check and done.returncode != 0:
        raise NodeFailed(f"ctr {' '.join(args)}: {(done.stderr or done.stdout).strip()}")
    return done.stdout + done.stderr


class Node:
    name = NAME

    def __init__(self, root: Path, kubeconfig: Path):
        self.root, self.kubeconfig = root, kubeconfig
        self.socket = root / "containerd.sock"
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self.netns_before: set[str] = set()
        self.lock = None
        self.kube_proxy: Path | None = None
        self.chains_before: set[tuple[str, str]] = set()

    # --- start -----------------------------------------------------------------------------------

    def start(self) -> "Node":
        why = missing()
        if why:
            raise NodeFailed(f"no real node: {why}")
        bin_dir = build.build_node()
        self._take_the_machine()
        self.netns_before = _netns()
        self.chains_before = {(t, c) for t, c in KUBELET_CHAINS
                              if subprocess.run(["iptables", "-t", t, "-S", c], capture_output=True).returncode == 0}
        self._write_cni()
        self._make_bridge()
        self._route_api_server()
        self._start_containerd()
        self._load_pause(bin_dir / "pause")
        self._make_cgroups()
        self._start_kubelet(bin_dir / "kubelet")
        self._start_kube_proxy(bin_dir / "kube-proxy")
        self._start_dns(bin_dir / "coredns")
        self._wait_ready()
        return self

    def _take_the_machine(self) -> None:
        """One real node per machine: its name, bridge and cgroup root are fixed, and a second
        node's start would tear down the first one's network."""
        path = cache_dir() / "locks" / "real-node.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = open(path, "a+")
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.lock.seek(0)
            holder = self.lock.read().strip()
            self.lock.close()
            self.lock = None
            raise NodeFailed(f"another real node runs on this machine ({holder or 'its process is unknown'}): "
                             "stop it first (Ctrl-C where it was started)") from None
        self.lock.truncate(0)
        self.lock.write(f"pid {os.getpid()}, {self.root}")
        self.lock.flush()

    def _spawn(self, name: str, argv: list[str]) -> None:
        with open(self.root / f"{name}.log", "wb") as log:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        self.procs.append((name, proc))

    def check_alive(self) -> None:
        for name, proc in self.procs:
            if proc.poll() is not None:
                tail = (self.root / f"{name}.log").read_text(errors="replace")[-2000:]
                raise NodeFailed(f"{name} exited with {proc.returncode}:\n{tail}")

    def _write_cni(self) -> None:
        (self.root / "cni").mkdir()
        (self.root / "cni" / "10-perflab.conflist").write_text(json.dumps({
            "cniVersion": "1.0.0", "name": "perflab", "plugins": [
                {"type": "bridge", "bridge": BRIDGE, "isGateway": True, "ipMasq": True, "hairpinMode": True,
                 "ipam": {"type": "host-local", "ranges": [[{"subnet": POD_SUBNET, "gateway": GATEWAY}]],
                          "dataDir": str(self.root / "cni-ipam"), "routes": [{"dst": "0.0.0.0/0"}]}},
                {"type": "portmap", "capabilities": {"portMappings": True}}]}, indent=1))

    def _make_bridge(self) -> None:
        """The pods' bridge, made now rather than by the first pod's CNI call: services on this
        machine (the lab's PostgreSQL) can listen on GATEWAY before any pod exists."""
        subprocess.run(["ip", "link", "delete", BRIDGE], capture_output=True)  # a crashed node's
        for cmd in (["ip", "link", "add", BRIDGE, "type", "bridge"],
                    ["ip", "addr", "add", f"{GATEWAY}/{POD_SUBNET.split('/')[1]}", "dev", BRIDGE],
                    ["ip", "link", "set", BRIDGE, "up"]):
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                raise NodeFailed(f"{' '.join(cmd)}: {done.stderr.strip()}")

    def _route_api_server(self) -> None:
        """Pods reach the API server at the kubernetes Service's address, as in any cluster (their
        in-cluster clients, e.g. Knative's controllers, use it). No kube-proxy runs here: one DNAT
        rule stands in for it, to the server on this machine's loopback (route_localnet on the
        bridge only, so that loopback is reachable from the pods and from nowhere else)."""
        from urllib.parse import urlsplit

        from kubernetes import client, config

        with config.new_client_from_config(config_file=str(self.kubeconfig)) as api:
            server = urlsplit(api.configuration.host)
            service_ip = client.CoreV1Api(api).read_namespaced_service("kubernetes", "default").spec.cluster_ip
        _drop_api_rules()  # a crashed node's
        if server.hostname not in ("127.0.0.1", "localhost"):
            return  # a server elsewhere: pods would need a real route to it, not this machine's loopback
        for cmd in (["sysctl", "-qw", f"net.ipv4.conf.{BRIDGE}.route_localnet=1"],
                    ["iptables", "-t", "nat", "-A", "PREROUTING", "-i", BRIDGE, "-d", f"{service_ip}/32", "-p", "tcp",
                     "--dport", "443", "-m", "comment", "--comment", API_RULE, "-j", "DNAT",
                     "--to-destination", f"127.0.0.1:{server.port}"]):
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                raise NodeFailed(f"{' '.join(cmd)}: {done.stderr.strip()}")

    def _start_containerd(self) -> None:
        cri = 'plugins."io.containerd.grpc.v1.cri"'
        # restrict_oom_score_adj: the kubelet asks -998 for a sandbox and -997 for a Guaranteed
        # pod; where this machine's root may not lower its OOM score (a VM's or container's), they
        # get containerd's own instead of failing to start
        (self.root / "containerd.toml").write_text(f'''version = 2
root = "{self.root / 'containerd'}"
state = "{self.root / 'containerd-state'}"
[grpc]
  address = "{self.socket}"
[{cri}]
  sandbox_image = "{PAUSE_IMAGE}"
  restrict_oom_score_adj = true
[{cri}.cni]
  bin_dir = "{CNI_DIR}"
  conf_dir = "{self.root / 'cni'}"
[{cri}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[{cri}.containerd.runtimes.runc.options]
  SystemdCgroup = false
''')
        self._spawn("containerd", ["containerd", "--config", str(self.root / "containerd.toml")])
        deadline = time.monotonic() + 30
        while "Server" not in self.ctr("version", check=False):
            self.check_alive()
            if time.monotonic() > deadline:
                raise NodeFailed(f"containerd did not answer within 30 s (see {self.root / 'containerd.log'})")
            time.sleep(0.3)

    def ctr(self, *args: str, check: bool = True) -> str:
        return ctr(self.socket, *args, check=check)

    def load(self, tarball: Path, wait_s: float = 90) -> None:
        """An image tarball into the node's runtime, as `ctr -n k8s.io images import` on any node,
        and waited for until the kubelet lists it in the node's status (the lab checks that list
        before a run; the kubelet refreshes it every few tens of seconds)."""
        from kubernetes import client, config

        from perflab.kube import oci

        names = {oci.full_name(n) for n in oci.inspect(tarball).names}
        self.ctr("images", "import", str(tarball))
        deadline = time.monotonic() + wait_s
        with config.new_client_from_config(config_file=str(self.kubeconfig)) as api:
            core = client.CoreV1Api(api)
            while True:
                listed = {n for image in core.read_node(NAME).status.images or [] for n in image.names or []}
                if names <= listed:
                    return
                if time.monotonic() > deadline:
                    raise NodeFailed(f"{' '.join(sorted(names))} was imported, but the kubelet did not list it "
                                     f"within {wait_s:.0f} s")
                time.sleep(1)

    def _load_pause(self, pause: Path) -> None:
        out = self.root / "pause.tar"
        images.native_image(pause, PAUSE_IMAGE, out, "pod sandbox (pause)")
        self.ctr("images", "import", str(out))  # before the kubelet: no node to list it yet

    def _make_cgroups(self) -> None:
        """The kubelet puts every pod below CGROUP_ROOT and wants it there in every hierarchy (a
        cpuset needs its CPUs and memory nodes before tasks can join it)."""
        for controller in Path("/sys/fs/cgroup").iterdir():
            if not controller.is_dir() or controller.is_symlink():
                continue
            top = controller / CGROUP_ROOT.strip("/")
            top.mkdir(exist_ok=True)
            for name in ("cpuset.cpus", "cpuset.mems"):
                if (top / name).is_file() and not (top / name).read_text().strip():
                    (top / name).write_text((controller / name).read_text())

    def _start_kubelet(self, kubelet: Path) -> None:
        port = procs.free_port()  # the kubelet listens on GATEWAY (a node's IP may not be a loopback address)
        config = {
            "apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
            "failCgroupV1": False, "cgroupDriver": "cgroupfs", "cgroupRoot": CGROUP_ROOT, "failSwapOn": False,
            "containerRuntimeEndpoint": f"unix://{self.socket}",
            "address": GATEWAY, "port": port, "readOnlyPort": 0, "healthzPort": 0,
            # the API server reaches the kubelet (logs) without client certificates: a private node
            "authentication": {"anonymous": {"enabled": True}, "webhook": {"enabled": False}},
            "authorization": {"mode": "AlwaysAllow"},
            # a shared build machine's disk is often over the default thresholds: never evict for it
            "evictionHard": {"memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%",
                             "nodefs.inodesFree": "1%"},
            "imageGCHighThresholdPercent": 100, "imageGCLowThresholdPercent": 99,
            "resolvConf": "/etc/resolv.conf", "serializeImagePulls": False,
            "clusterDNS": [GATEWAY], "clusterDomain": CLUSTER_DOMAIN,
            "registerNode": True, "nodeStatusUpdateFrequency": "4s",
        }
        (self.root / "kubelet.json").write_text(json.dumps(config, indent=1))
        self._spawn("kubelet", [str(kubelet), f"--kubeconfig={self.kubeconfig}", f"--config={self.root / 'kubelet.json'}",
                                f"--root-dir={self.root / 'kubelet'}", f"--hostname-override={NAME}",
                                f"--node-ip={GATEWAY}", "--node-labels=type=real", "--v=1"])

    def _start_kube_proxy(self, kube_proxy: Path) -> None:
        """Services' cluster IPs routed to their endpoints (iptables rules, removed on stop), as
        every node of a cluster has them: Knative's autoscaler, for one, reaches a revision's
        Service by its cluster IP. Localhost node ports off: they would open loopback host-wide."""
        self.kube_proxy = kube_proxy
        self._spawn("kube-proxy", [str(kube_proxy), f"--kubeconfig={self.kubeconfig}", "--proxy-mode=iptables",
                                   f"--hostname-override={NAME}", f"--cluster-cidr={POD_SUBNET}",
                                   "--conntrack-max-per-core=0", "--iptables-localhost-nodeports=false",
                                   f"--healthz-bind-address=127.0.0.1:{procs.free_port()}",
                                   f"--metrics-bind-address=127.0.0.1:{procs.free_port()}", "--v=1"])

    def _start_dns(self, coredns: Path) -> None:
        """The cluster's DNS (CoreDNS, as in most clusters) on the bridge's address: pods find
        Services by name (<service>.<namespace>.svc.cluster.local) and the rest through this
        machine's resolver."""
        (self.root / "Corefile").write_text(f""".:53 {{
    bind {GATEWAY}
    errors
    kubernetes {CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {{
        kubeconfig {self.kubeconfig}
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }}
    forward . /etc/resolv.conf
    cache 5
}}
""")
        self._spawn("coredns", [str(coredns), "-conf", str(self.root / "Corefile")])

    def _wait_ready(self) -> None:
        from kubernetes import client, config

        deadline = time.monotonic() + READY_TIMEOUT_S
        with config.new_client_from_config(config_file=str(self.kubeconfig)) as api:
            core = client.CoreV1Api(api)
            while time.monotonic() < deadline:
                self.check_alive()
                with contextlib.suppress(client.ApiException):
                    node = core.read_node(NAME)
                    if any(c.type == "Ready" and c.status == "True" for c in node.status.conditions or []):
                        return
                time.sleep(0.5)
        raise NodeFailed(f"the kubelet did not make node {NAME} Ready within {READY_TIMEOUT_S} s "
                         f"(see {self.root / 'kubelet.log'})")

    # --- stop ------------------------------------------------------------------------------------

    def stop(self) -> None:
        if self.lock is None:  # never got the machine: the bridge and rules there are another node's
            return
        self._delete_pods()
        for name, proc in reversed(self.procs):
            if name == "kubelet":
                procs.stop_group(proc.pid, timeout=20, proc=proc)
        self._kill_containers()
        for name, proc in reversed(self.procs):
            if name != "kubelet":
                procs.stop_group(proc.pid, timeout=20, proc=proc)
        self.procs.clear()
        self._kill_shims()
        self._remove_cgroups()
        if self.kube_proxy is not None:  # its chains and rules
            subprocess.run([str(self.kube_proxy), "--cleanup"], capture_output=True)
        self._remove_network()
        self._unmount()
        if self.lock is not None:
            self.lock.close()  # releases it
            self.lock = None

    def _delete_pods(self) -> None:
        """Every pod on the node deleted at once and waited for: the kubelet stops their containers
        and removes their network (CNI DEL) itself."""
        if not any(n == "kubelet" and p.poll() is None for n, p in self.procs):
            return
        from kubernetes import client, config

        with contextlib.suppress(Exception), config.new_client_from_config(config_file=str(self.kubeconfig)) as api:
            core = client.CoreV1Api(api)
            # cordoned first: a Deployment's pods (Knative's) would otherwise come back as fast as they go
            with contextlib.suppress(client.ApiException):
                core.patch_node(NAME, {"spec": {"unschedulable": True}})
            on_node = f"spec.nodeName={NAME}"
            for pod in core.list_pod_for_all_namespaces(field_selector=on_node).items:
                with contextlib.suppress(client.ApiException):
                    # not 0: a forced delete drops the pod before the kubelet has removed its network
                    core.delete_namespaced_pod(pod.metadata.name, pod.metadata.namespace, grace_period_seconds=1)
            deadline = time.monotonic() + 60
            while core.list_pod_for_all_namespaces(field_selector=on_node).items and time.monotonic() < deadline:
                time.sleep(0.5)
            with contextlib.suppress(client.ApiException):
                core.delete_node(NAME)

    def _kill_containers(self) -> None:
        if not any(n == "containerd" and p.poll() is None for n, p in self.procs):
            return
        for line in self.ctr("tasks", "list", "-q", check=False).split():
            self.ctr("tasks", "kill", "-s", "SIGKILL", line, check=False)
        deadline = time.monotonic() + 20
        while self.ctr("tasks", "list", "-q", check=False).strip() and time.monotonic() < deadline:
            time.sleep(0.3)
        for line in self.ctr("containers", "list", "-q", check=False).split():
            self.ctr("tasks", "delete", "-f", line, check=False)
            self.ctr("containers", "delete", line, check=False)

    def _kill_shims(self) -> None:
        """A runc shim outlives containerd by design; ours carry our socket's path."""
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                if str(self.socket).encode() in (entry / "cmdline").read_bytes():
                    os.kill(int(entry.name), 9)

    def _remove_network(self) -> None:
        """What the CNI plugins leave when a pod's sandbox was not torn down (a killed kubelet):
        its network namespace, its NAT rules (tagged with our network's name), the bridge."""
        for name in _netns() - self.netns_before:
            subprocess.run(["ip", "netns", "delete", name], capture_output=True)
        rules = subprocess.run(["iptables", "-t", "nat", "-S"], capture_output=True, text=True).stdout.splitlines()
        # iptables -S quotes the comment as the shell would: "name: \"perflab\" id: \"<sandbox>\""
        ours = [r for r in rules if r.startswith("-A POSTROUTING ") and 'name: \\"perflab\\"' in r]
        _drop_api_rules()
        for table, chain in KUBELET_CHAINS:  # the kubelet's own chains, unless they were there before it
            if (table, chain) not in self.chains_before:
                for jump in ("INPUT", "OUTPUT"):
                    subprocess.run(["iptables", "-t", table, "-D", jump, "-j", chain], capture_output=True)
                subprocess.run(["iptables", "-t", table, "-F", chain], capture_output=True)
                subprocess.run(["iptables", "-t", table, "-X", chain], capture_output=True)
        chains = set()
        for rule in ours:
            subprocess.run(["sh", "-c", "iptables -t nat " + rule.replace("-A ", "-D ", 1)], capture_output=True)
            chains.add(rule.split()[-1])  # the rule jumps to the sandbox's own chain
        for chain in chains:
            subprocess.run(["iptables", "-t", "nat", "-F", chain], capture_output=True)
            subprocess.run(["iptables", "-t", "nat", "-X", chain], capture_output=True)
        subprocess.run(["ip", "link", "delete", BRIDGE], capture_output=True)

    def _remove_cgroups(self) -> None:
        for controller in Path("/sys/fs/cgroup").iterdir():
            top = controller / CGROUP_ROOT.strip("/")
            if top.is_dir():
                for d in sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
                    with contextlib.suppress(OSError):
                        d.rmdir()
                with contextlib.suppress(OSError):
                    top.rmdir()

    def _unmount(self) -> None:
        """containerd's and the kubelet's mounts under the node's directory, deepest first."""
        mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
        for point in sorted((m for m in mounts if m.startswith(str(self.root))), key=len, reverse=True):
            subprocess.run(["umount", "-l", point], capture_output=True)


def _drop_api_rules() -> None:
    rules = subprocess.run(["iptables", "-t", "nat", "-S", "PREROUTING"], capture_output=True, text=True).stdout
    for rule in (r for r in rules.splitlines() if API_RULE in r):
        subprocess.run(["sh", "-c", "iptables -t nat " + rule.replace("-A ", "-D ", 1)], capture_output=True)


def _netns() -> set[str]:
    """The CNI plugins' network namespaces (containerd names them cni-<uuid>)."""
    folder = Path("/var/run/netns")
    return {p.name for p in folder.iterdir() if p.name.startswith("cni-")} if folder.is_dir() else set()


@contextlib.contextmanager
def running(kubeconfig: Path):
    """A real node joined to the cluster of `kubeconfig`, stopped and removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="perflab-node-"))
    node = Node(root, kubeconfig)
    try:
        yield node.start()
    finally:
        from perflab import signals

        with signals.shielded():
            node.stop()
            shutil.rmtree(root, ignore_errors=True)
