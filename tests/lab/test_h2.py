"""The lab's private H2 over TCP (perflab.h2, local_site.provision_h2): it starts, answers on
127.0.0.1 only, holds the seed row, and leaves no process and no folder behind, after a normal
end, after Ctrl-C, and after a lab killed without cleaning up."""

from __future__ import annotations

import ipaddress
import os
import socket
import subprocess

import pytest

from perflab import h2, isolate, procs, runner
from perflab.apps import load_descriptor
from perflab.paths import apps_dir
from perflab.sites import local as local_site


def _address(hex_address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """/proc/net/tcp* shows addresses as 32-bit words in host (little-endian) order."""
    raw = bytes.fromhex(hex_address)
    ordered = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    address = ipaddress.ip_address(ordered)
    return getattr(address, "ipv4_mapped", None) or address


def _listening_addresses(port: int) -> set:
    """Local addresses with a listening socket on port."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            next(f)
            for line in f:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.rsplit(":", 1)
                if state == "0A" and int(hex_port, 16) == port:
                    found.add(_address(address))
    return found


def _query(conn: h2.H2Connection, sql: str) -> str:
    """Run SQL with H2's own shell over TCP, as an app's driver would reach the server."""
    res = subprocess.run([h2._java(), "-cp", str(h2.h2_jar()), "org.h2.tools.Shell", "-url", conn.jdbc_url,
                          "-user", conn.user, "-password", conn.password, "-sql", sql],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    return res.stdout


def _other_address() -> str | None:
    """A non-loopback IPv4 address of this machine, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET: nothing is sent, the kernel only picks a route
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_starts_on_loopback_only_with_the_seed_and_leaves_nothing(workdir):
    server = h2.Server(log=lambda _: None)
    conn = server.start()
    folder, pid = server.dir, server.pid
    try:
        assert _listening_addresses(conn.port) == {ipaddress.ip_address("127.0.0.1")}  # nothing else
        other = _other_address()
        if other:
            with socket.socket() as s:
                s.settimeout(2)
                assert s.connect_ex((other, conn.port)) != 0
        assert "SlimShady" in _query(conn, "SELECT DATA FROM DATA_OBJECTS")
        # what an as-published POST does; seed() brings the row back
        _query(conn, "DROP TABLE DATA_OBJECTS; CREATE TABLE DATA_OBJECTS(ID INT, DATA VARCHAR(100))")
        assert "SlimShady" not in _query(conn, "SELECT DATA FROM DATA_OBJECTS")
        server.seed()
        assert "SlimShady" in _query(conn, "SELECT DATA FROM DATA_OBJECTS")
        assert conn.app_env() == {"DB_URL": f"jdbc:h2:tcp://127.0.0.1:{conn.port}/test", "DB_USER": "sa",
                                  "DB_PASSWORD": conn.password}
    finally:
        server.stop()
    assert not procs.alive(pid)
    assert not folder.exists()
    assert not procs.port_in_use(conn.port)
    assert list(procs.recall_all("h2-")) == []


def test_a_wrong_password_is_refused(workdir):
    server = h2.Server(log=lambda _: None)
    conn = server.start()
    try:
        res = subprocess.run([h2._java(), "-cp", str(h2.h2_jar()), "org.h2.tools.Shell", "-url", conn.jdbc_url,
                              "-user", "sa", "-password", "wrong", "-sql", "SELECT 1"],
                             capture_output=True, text=True, timeout=120)
        assert res.returncode != 0 or "Wrong user name or password" in res.stdout + res.stderr
    finally:
        server.stop()


def test_ctrl_c_inside_the_run_stops_the_server(workdir):
    target = runner.Target(load_descriptor(apps_dir() / "kt2020-quarkus" / "perflab.toml"), "fixed")
    topology = isolate.plan_topology(app_cpus=1)
    setup = isolate.detect_cgroups()
    seen = {}
    with pytest.raises(KeyboardInterrupt):
        with local_site.provision_h2("h2-test", [target], topology, setup, lambda _: None) as server:
            seen.update(pid=server.pid, dir=server.dir, port=server.conn.port)
            assert procs.port_in_use(server.conn.port)
            raise KeyboardInterrupt
    assert not procs.alive(seen["pid"])
    assert not seen["dir"].exists()
    assert not procs.port_in_use(seen["port"])


def test_no_server_when_no_app_uses_h2(workdir):
    target = runner.Target(load_descriptor(apps_dir() / "quarkus" / "perflab.toml"), "jvm")
    with local_site.provision_h2("h2-test", [target], isolate.plan_topology(app_cpus=1), isolate.detect_cgroups(),
                             lambda _: None) as server:
        assert server is None


def test_a_server_left_by_a_killed_lab_is_stopped_by_the_next(workdir):
    left = h2.Server(log=lambda _: None)
    conn = left.start()
    pid, folder = left.pid, left.dir
    # the lab dies without cleaning up: only what it remembered in the work directory is left
    assert procs.alive(pid)
    cleaned = h2.stop_leftovers()
    assert cleaned == [f"tcp://127.0.0.1:{conn.port}"]
    left.proc.wait(timeout=10)  # reap it: it is this test's child
    assert not procs.alive(pid)
    assert not folder.exists()
    assert not os.path.exists(folder)
