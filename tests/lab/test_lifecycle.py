"""Servers the lab starts: readiness errors, stop from a new shell, Ctrl-C leaves nothing behind.

Uses a stand-in app (tests/support/slow_app.py) with a child process of its own, so every check
is about the whole process tree.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perflab import apps, postgres, probes, procs
from perflab.errors import LabError
from perflab.paths import REPO_ROOT
from tests.conftest import cluster_dir, write_standin_app

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group


def _pids_from_log(log: Path) -> list[int]:
    text = log.read_text() if log.exists() else ""
    return [int(p) for p in re.findall(r"pid (\d+)", text)]


def _wait_for_pids(log: Path, n: int = 2, timeout: float = 10) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = _pids_from_log(log)
        if len(pids) >= n:
            return pids
        time.sleep(0.05)
    raise AssertionError(f"stand-in did not report its pids: {log.read_text() if log.exists() else ''}")


def _launch(tmp_path, **kw):
    app = apps.load_descriptor(write_standin_app(tmp_path, **kw) / "perflab.toml")
    apps.build(app, log=lambda m: None)
    return apps.launch(app, "jvm", port=procs.free_port(), db_env={}, log_path=tmp_path / "app.log")


def test_ready_app_reports_time_and_framework_start_and_stops_whole_tree(tmp_path, workdir):
    running = _launch(tmp_path, delay=0.3)
    try:
        seconds = apps.wait_ready(running, timeout=20)
        assert seconds >= 0.3  # a floor: a busy machine only makes the start later
        said = probes.watch_start_log(running.log_path, running.app.startup_log_regex, timeout_s=0)
        assert said.ok and said.millis == pytest.approx(300)
        pids = _wait_for_pids(running.log_path)
    finally:
        running.stop()
    assert not any(procs.alive(p) for p in pids)


def test_app_that_exits_is_reported_with_its_code_and_log(tmp_path, workdir):
    running = _launch(tmp_path, delay=0.1, exit_code=3)
    try:
        with pytest.raises(LabError) as err:
            apps.wait_ready(running, timeout=20)
    finally:
        running.stop()
    assert "exited with code 3" in err.value.message
    assert "failing on purpose" in err.value.details


def test_app_never_ready_times_out_with_log_tail(tmp_path, workdir):
    running = _launch(tmp_path, delay=60)
    try:
        with pytest.raises(LabError) as err:
            apps.wait_ready(running, timeout=1)
        pids = _wait_for_pids(running.log_path)
    finally:
        running.stop()
    assert "not ready within 1 s" in err.value.message
    assert "stand-in app starting" in err.value.details
    assert not any(procs.alive(p) for p in pids)


def test_port_in_use_is_refused_naming_the_holder(tmp_path, workdir):
    import socket

    app = apps.load_descriptor(write_standin_app(tmp_path) / "perflab.toml")
    apps.build(app, log=lambda m: None)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(LabError, match=f"port {port} is already in use by pid {os.getpid()}"):
            apps.launch(app, "jvm", port=port, db_env={}, log_path=tmp_path / "x.log")


def _cli(args, env, **kw):
    return subprocess.Popen([sys.executable, "-m", "perflab", *args], cwd=REPO_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


@pytest.fixture
def cli_env(tmp_path, workdir, database):
    """CLI environment: stand-in apps, a private work dir using the session DB as an external server."""
    _, conn = database
    apps_root = tmp_path / "apps"
    write_standin_app(apps_root, "standin", delay=0.2)
    write_standin_app(apps_root, "slowpoke", delay=60)
    env = dict(os.environ, PERFLAB_APPS_DIR=str(apps_root))
    out = subprocess.run([sys.executable, "-m", "perflab", "db", "start", "--url", conn.url], cwd=REPO_ROOT,
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    for name in ("standin", "slowpoke"):
        subprocess.run([sys.executable, "-m", "perflab", "apps", "build", name], cwd=REPO_ROOT, env=env,
                       check=True, capture_output=True, timeout=60)
    return env


def test_started_app_keeps_running_until_stop_from_a_new_process(cli_env, workdir):
    start = _cli(["apps", "start", "standin"], cli_env)
    out, _ = start.communicate(timeout=60)
    assert start.returncode == 0, out
    url = re.search(r"at (http://127\.0\.0\.1:\d+)", out).group(1)
    assert apps.http_status(url + "/hello") == 200
    again = _cli(["apps", "start", "standin"], cli_env)
    out2, _ = again.communicate(timeout=60)
    assert again.returncode == 2 and "already running" in out2
    log = workdir / "logs" / "standin-jvm.log"
    pids = _wait_for_pids(log)
    stop = _cli(["apps", "stop"], cli_env)
    out3, _ = stop.communicate(timeout=60)
    assert stop.returncode == 0 and "stopped standin" in out3
    assert not any(procs.alive(p) for p in pids)
    assert apps.http_status(url + "/hello") is None


def test_ctrl_c_while_an_app_starts_leaves_nothing_running(cli_env, workdir):
    start = _cli(["apps", "start", "slowpoke"], cli_env)
    log = workdir / "logs" / "slowpoke-jvm.log"
    pids = _wait_for_pids(log)
    assert all(procs.alive(p) for p in pids)
    start.send_signal(signal.SIGINT)
    out, _ = start.communicate(timeout=60)
    assert start.returncode == 130, out
    assert "interrupted" in out
    assert not any(procs.alive(p) for p in pids)
    assert procs.recall("app-slowpoke") is None


def test_db_start_twice_and_port_taken_and_stop_leaves_no_server():
    with cluster_dir() as base:
        _db_start_twice_and_port_taken_and_stop_leaves_no_server(base)


def _db_start_twice_and_port_taken_and_stop_leaves_no_server(base: Path):
    root = base / "db"
    cluster = postgres.Cluster(root)
    conn = cluster.start()
    try:
        pid = cluster.server_pid()
        assert pid and procs.alive(pid)
        assert postgres.run_sql(conn, "SELECT 40 + 2").strip() == "42"
        with pytest.raises(LabError, match="already running"):
            cluster.start()
        other = postgres.Cluster(base / "db2")
        with pytest.raises(LabError, match=f"port {conn.port} on 127.0.0.1 is already in use"):
            other.start(port=conn.port)
    finally:
        assert cluster.stop()
    assert not procs.alive(pid)
    leftover = subprocess.run(["pgrep", "-f", f"postgres -D {root}"], capture_output=True, text=True).stdout
    assert leftover == ""
    assert not cluster.status()["running"]
