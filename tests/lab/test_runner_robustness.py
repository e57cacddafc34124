"""The lab under failure, with real processes: an app killed with SIGKILL mid-run, an app
OOM-killed by its memory limit, and SIGINT to the lab. Each must be recorded, the rest of the
run kept, and no process or cgroup of the run left behind. Stand-in apps only: these test the
lab's own code, not any framework."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from perflab import isolate, plan, procs, runner, store
from perflab.paths import REPO_ROOT
from tests.conftest import needs_root, require, write_standin_app

pytestmark = [needs_root("needs root for cgroups and the DB user"), pytest.mark.standin]

PLAN = """
name = "robustness"
apps = ["standin"]
verify = false
scenarios = ["startup", "sweep"]
repeats = 1
reductions = ["test plan"]
[limits]
memory_mb = {memory_mb}
[startup]
runs = 2
timeout_s = 20
[memory]
rest_s = 0.5
[sweep]
warmup_s = 0
duration_s = 2
series = [{{ name = "hello", path = "/hello", connections = [1, 2, 3, 4, 5, 6] }}]
"""


@pytest.fixture
def lab_env(tmp_path, workdir, database, monkeypatch):
    _, conn = database
    apps_root = tmp_path / "apps"
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(apps_root))
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-m", "perflab", "db", "start", "--url", conn.url], cwd=REPO_ROOT,
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    return apps_root, env


def _standin_pids(apps_root: Path) -> set[int]:
    """Processes of this test's stand-in apps (and their children): those working in its folder."""
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(os.readlink(f"/proc/{pid}/cwd")).is_relative_to(apps_root):
                found.add(int(pid))
        except OSError:
            continue
    return found


def _lab_cgroups(run_id: str) -> list[Path]:
    return [p for p in Path("/sys/fs/cgroup").glob(f"*/perflab/{run_id}") if p.exists()]


def _wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_app_killed_mid_run_is_recorded_and_the_run_goes_on(lab_env, workdir):
    apps_root, _ = lab_env
    write_standin_app(apps_root, "standin", delay=0.2)
    the_plan = plan.validate(__import__("tomllib").loads(PLAN.format(memory_mb=512)), "test")

    def killer():
        # the long-lived instance logs its pid once it starts: kill it during the sweep
        def load_log():
            logs = list((workdir / "runs").glob("*/logs/standin-jvm-load.log"))
            return logs and re.search(r"pid (\d+)", logs[0].read_text())
        found = _wait_for(load_log, 60, "the load instance")
        time.sleep(3)
        os.kill(int(found.group(1)), signal.SIGKILL)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    run_id = runner.run_plan(the_plan, say=lambda m: None)
    thread.join(5)
    s = store.Store()
    run = s.run(run_id)
    # its only app/mode failed: the run ends failed (runner.run_status), its figures kept
    assert run["status"] == "failed" and "every app/mode failed" in run["note"]
    metrics = {(f.scenario, f.metric) for f in s.figures(run_id)}
    assert ("startup", "ttfr_ms") in metrics, "figures measured before the kill are kept"
    reasons = " ".join(o["reason"] for o in s.outcomes(run_id) if o["status"] != "ok")
    assert "killed by signal 9" in reasons
    assert _standin_pids(apps_root) == set()
    assert _lab_cgroups(run_id) == []


def test_oom_kill_under_the_memory_limit_is_reported_as_such(lab_env, workdir):
    apps_root, _ = lab_env
    write_standin_app(apps_root, "standin", delay=0.1, alloc_mb=300)
    setup = isolate.detect_cgroups()
    if not setup.usable:
        require(False, f"no cgroup memory limits here: {setup.reason}")
    the_plan = plan.validate(__import__("tomllib").loads(PLAN.format(memory_mb=100)), "test")
    run_id = runner.run_plan(the_plan, say=lambda m: None)
    s = store.Store()
    failed = [o for o in s.outcomes(run_id) if o["status"] == "failed"]
    assert failed and "OOM-killed under the 100 MB memory limit" in failed[0]["reason"]
    assert _lab_cgroups(run_id) == []


def test_sigint_to_the_lab_stops_cleanly_and_keeps_what_was_measured(lab_env, workdir, tmp_path):
    apps_root, env = lab_env
    write_standin_app(apps_root, "standin", delay=0.2)
    plan_file = tmp_path / "plan.toml"
    plan_file.write_text(PLAN.format(memory_mb=512))
    lab = subprocess.Popen([sys.executable, "-m", "perflab", "run", str(plan_file)], cwd=REPO_ROOT, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    db_path = workdir / "results.sqlite"

    def sweep_started():
        if not db_path.exists():
            return False
        try:
            with sqlite3.connect(db_path) as db:
                return db.execute("SELECT COUNT(*) FROM figures WHERE scenario='sweep'").fetchone()[0] > 0
        except sqlite3.OperationalError:  # the lab has not created its tables yet
            return False

    try:
        _wait_for(sweep_started, 90, "the first sweep figure")
    except AssertionError:
        lab.kill()
        raise AssertionError(lab.communicate()[0])
    lab.send_signal(signal.SIGINT)
    out, _ = lab.communicate(timeout=60)
    assert lab.returncode == 130, out
    s = store.Store(db_path)
    run = s.run("last")
    assert run["status"] == "interrupted"
    assert any(f.scenario == "sweep" for f in s.figures(run["id"]))
    assert "interrupted" in out
    time.sleep(0.5)
    assert _standin_pids(apps_root) == set()
    assert _lab_cgroups(run["id"]) == []
