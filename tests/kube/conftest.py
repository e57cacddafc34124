"""A real control plane for the Kubernetes tests: built once per machine by the project's own
build (tools.kubeenv.build, tens of minutes the first time), started once per pytest run."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from pathlib import Path

import pytest

from perflab import httpclient, procs
from perflab.waiting import wait_until
from tools.kubeenv import build, testenv
from tools.kubeenv.node import ctr as node_ctr
from tests.conftest import require


@pytest.fixture(scope="session")
def control_plane():
    try:
        build.build()
    except build.BuildFailed as exc:
        pytest.fail(f"the test control plane could not be built: {exc}")
    with testenv.running(nodes=2) as plane:
        yield plane


@pytest.fixture
def kube_env(control_plane, monkeypatch, workdir):
    """KUBECONFIG pointing at the test control plane, and a private lab work directory."""
    monkeypatch.setenv("KUBECONFIG", str(control_plane.kubeconfig))
    return control_plane


class Containerd:
    """A private containerd (its own root, state and socket): a node's image store and runtime."""

    def __init__(self, root: Path):
        self.root, self.socket = root, root / "containerd.sock"
        (root / "config.toml").write_text(f'''version = 2
root = "{root / 'root'}"
state = "{root / 'state'}"
[grpc]
  address = "{self.socket}"
''')
        self.log = open(root / "containerd.log", "wb")
        self.proc = subprocess.Popen(["containerd", "--config", str(root / "config.toml")], stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def ctr(self, *args: str, check: bool = True) -> str:
        return node_ctr(self.socket, *args, check=check)

    @contextlib.contextmanager
    def run(self, image: str, env: dict[str, str]):
        """The image's entrypoint as a container on the host's network; killed afterwards."""
        name = f"t{time.monotonic_ns()}"
        envs = [a for k, v in env.items() for a in ("--env", f"{k}={v}")]
        proc = subprocess.Popen(["ctr", "--address", str(self.socket), "-n", "k8s.io", "run", "--rm", "--net-host",
                                 *envs, image, name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            yield
        finally:
            self.ctr("tasks", "kill", "-s", "SIGKILL", name, check=False)
            proc.wait(timeout=60)
            self.ctr("containers", "rm", name, check=False)

    def output(self, image: str, command: list[str], timeout_s: float = 120) -> str:
        """`command` run to its end in the image on the host's network; its stdout and stderr
        together, as a pod's log holds them."""
        done = subprocess.run(["ctr", "--address", str(self.socket), "-n", "k8s.io", "run", "--rm", "--net-host",
                               image, f"t{time.monotonic_ns()}", *command], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=timeout_s)
        assert done.returncode == 0, done.stdout
        return done.stdout

    @staticmethod
    def wait_http(url: str, timeout_s: float) -> str:
        """The body of the first 2xx answer of `url`."""
        def ok() -> httpclient.Response | None:
            resp = httpclient.answer(url, 2)
            return resp if resp is not None and 200 <= resp.status < 300 else None

        resp = wait_until(ok, timeout_s, interval_s=0.3)
        assert resp is not None, f"no 2xx answer from {url} within {timeout_s:g} s"
        return resp.text

    def stop(self) -> None:
        procs.stop_group(self.proc.pid, timeout=20, proc=self.proc)
        self.log.close()


@pytest.fixture(scope="session")
def containerd(tmp_path_factory):
    """containerd and runc, as on a node (Debian's package, installed when missing and root)."""
    from perflab.drivers.install import DriverUnavailable, ensure_apt_binary

    try:
        ensure_apt_binary("containerd", "containerd")
    except DriverUnavailable as exc:
        require(False, f"no containerd to load the images into: {exc}")
    if os.geteuid() != 0:
        require(False, "containerd runs containers as root only")
    node = Containerd(tmp_path_factory.mktemp("containerd"))
    try:
        deadline = time.monotonic() + 30
        while node.ctr("version", check=False).count("Server") == 0:
            assert node.proc.poll() is None and time.monotonic() < deadline, (node.root / "containerd.log").read_text()
            time.sleep(0.3)
        yield node
    finally:
        node.stop()
