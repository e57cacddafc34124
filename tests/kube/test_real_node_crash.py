"""A real node whose kubelet dies with pods running (SIGKILL: no chance to tear anything down)
still leaves nothing behind when it is stopped: no container, shim, network namespace, NAT rule,
bridge, cgroup or mount of its own."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tools.kubeenv import build, node, testenv
from tests.conftest import needs_root

pytestmark = [pytest.mark.slow,
              needs_root("a real node runs containers as root")]


def _kube_rules() -> set[str]:
    """iptables rules and chains of the kubelet, kube-proxy and the node's route to the API server."""
    rules = set()
    for table in ("nat", "filter", "mangle"):
        out = subprocess.run(["iptables", "-t", table, "-S"], capture_output=True, text=True).stdout
        rules |= {f"{table} {r}" for r in out.splitlines() if "KUBE-" in r or node.API_RULE in r}
    return rules


def _leftovers(real: node.Node, netns_before: set[str], rules_before: set[str] = frozenset()) -> dict[str, object]:
    nat = subprocess.run(["iptables", "-t", "nat", "-S"], capture_output=True, text=True).stdout
    shims = [p.name for p in Path("/proc").iterdir() if p.name.isdigit() and _cmdline_has(p, str(real.socket))]
    return {
        "shims": shims,
        "netns": sorted(node._netns() - netns_before),
        "nat rules": [r for r in nat.splitlines() if 'name: \\"perflab\\"' in r],
        "bridge": subprocess.run(["ip", "link", "show", node.BRIDGE], capture_output=True).returncode == 0,
        "cgroups": sorted(str(c) for c in Path("/sys/fs/cgroup").glob(f"*/{node.CGROUP_ROOT.strip('/')}")),
        "mounts": [m for m in Path("/proc/mounts").read_text().splitlines() if str(real.root) in m],
        "kube rules": sorted(_kube_rules() - rules_before),
    }


def _cmdline_has(proc: Path, text: str) -> bool:
    try:
        return text.encode() in (proc / "cmdline").read_bytes()
    except OSError:
        return False


def test_a_node_whose_kubelet_was_killed_with_pods_running_leaves_nothing(tmp_path):
    why = node.missing()
    if why:
        pytest.fail(f"no real node can run here: {why}")
    build.build_node()
    netns_before, rules_before = node._netns(), _kube_rules()
    root = Path(tempfile.mkdtemp(prefix="perflab-node-"))
    with testenv.running(nodes=0) as plane:
        real = node.Node(root, plane.kubeconfig)
        try:
            real.start()
            from kubernetes import client, config

            with config.new_client_from_config(config_file=str(plane.kubeconfig)) as api:
                core = client.CoreV1Api(api)
                for i in range(2):  # the sandbox's own image runs until it is signalled
                    core.create_namespaced_pod("default", {
                        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}"},
                        "spec": {"containers": [{"name": "c", "image": node.PAUSE_IMAGE, "imagePullPolicy": "Never"}]}})
                deadline = time.monotonic() + 90
                while not all(p.status.phase == "Running" for p in core.list_namespaced_pod("default").items):
                    assert time.monotonic() < deadline, [p.status for p in core.list_namespaced_pod("default").items]
                    time.sleep(0.5)
            running = _leftovers(real, netns_before, rules_before)
            assert len(running["shims"]) >= 2 and len(running["netns"]) == 2 and running["nat rules"], running
            assert any(node.API_RULE in r for r in running["kube rules"]), running

            [kubelet] = [p for name, p in real.procs if name == "kubelet"]
            os.killpg(kubelet.pid, signal.SIGKILL)
            kubelet.wait(timeout=10)
        finally:
            real.stop()
            shutil.rmtree(root, ignore_errors=True)
        left = _leftovers(real, netns_before, rules_before)
        assert not any(left.values()), left
