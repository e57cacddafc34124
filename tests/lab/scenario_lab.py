"""A Lab for calling one scenario directly (no runner) on stand-in apps, and the cleanup that
leaves no process or cgroup of it behind even when a test fails."""

from __future__ import annotations

import io
import os
import re
import signal
import tomllib
from pathlib import Path

from perflab import apps, isolate, plan, procs, registry
from perflab.lab import Lab
from perflab.progress import Progress
from perflab.scenario import Context
from perflab.store import Store


def make_lab(plan_toml: str, conn) -> Lab:
    """A Lab with its own run in the work directory's store (PERFLAB_WORKDIR: the `workdir` fixture)."""
    the_plan = plan.validate(tomllib.loads(plan_toml), "test")
    setup = isolate.detect_cgroups()
    store = Store()
    run_id = store.begin_run(the_plan.data, {})
    topology = isolate.plan_topology(app_cpus=the_plan["limits"]["cpus"])
    progress = Progress([], stream=io.StringIO(), live=False)
    return Lab(store, run_id, the_plan, topology, setup, conn, None, progress, store.run_dir(run_id) / "logs")


def run_scenario(lab: Lab, name: str, app: apps.App, mode: str, **context):
    """One registered scenario on one app/mode, as the runner would call it."""
    sc = registry.get(name)
    return sc.run(Context(lab, sc, app, mode, lab.plan.settings(name), **context))


def built(name: str) -> apps.App:
    app = apps.get(name)
    apps.build(app, log=lambda m: None)
    return app


def lab_cgroups(run_id: str) -> list[Path]:
    return [p for p in Path("/sys/fs/cgroup").glob(f"*/perflab/{run_id}") if p.exists()]


def standin_pids(log_dir: Path) -> set[int]:
    """Pids the stand-in apps of this run logged (the app and its child)."""
    found: set[int] = set()
    for log in log_dir.glob("*.log"):
        found.update(int(p) for p in re.findall(r"pid (\d+)", log.read_text(errors="replace")))
    return found


def live_standins(log_dir: Path) -> set[int]:
    alive = set()
    for pid in standin_pids(log_dir):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if procs.alive(pid) and (b"slow_app.py" in cmdline or b"time.sleep(600)" in cmdline):
            alive.add(pid)
    return alive


def cleanup(lab: Lab) -> None:
    """Kill whatever a failed test left: processes of the run's cgroups, then the groups."""
    for pid in live_standins(lab.log_dir):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    dirs = [d / lab.run_id for d in lab.setup.lab_dirs() if (d / lab.run_id).is_dir()]
    groups = [g for d in dirs for g in isolate._groups_below(d)]
    if groups:
        isolate._kill_group(groups, 10)
        for g in groups:
            isolate._rmdir_retry(g, 10, strict=False)
    (isolate.owner_dir() / lab.run_id).unlink(missing_ok=True)
    lab.store.close()
