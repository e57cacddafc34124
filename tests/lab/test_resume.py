"""Resuming a run, with real processes: a run of two stand-in apps interrupted with SIGINT after
some of its steps ended, then `perflab run --resume RUN`, must end complete under the same run id,
keep every figure measured before, measure none twice and run every step it had not finished.
Stand-in apps only: these test the lab's own bookkeeping, not any framework."""

from __future__ import annotations

import collections
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from perflab import store
from perflab.paths import REPO_ROOT
from tests.conftest import needs, write_standin_app

pytestmark = [needs(os.geteuid() == 0, "needs root for cgroups and the DB user"), pytest.mark.standin]

PLAN = """
name = "resume-test"
apps = ["alpha", "beta"]
verify = false
scenarios = ["startup", "steady", "sweep"]
repeats = 1
[limits]
memory_mb = 256
[startup]
runs = 2
timeout_s = 20
rest_s = 0
[steady]
launches = 3
points = [{ path = "/hello", connections = 2 }]
window = 3
warmup_max_s = 4
max_jit_ms_per_s = 0
precision = 0.5
measure_max_s = 3
timeout_s = 20
[sweep]
warmup_s = 0
duration_s = 2
series = [{ name = "hello", path = "/hello", connections = [1, 2] }]
[rounds]
seed = 11
target = 0
max_rounds = 2
headline = ["alpha/jvm:beta/jvm"]
"""


@pytest.fixture
def lab_env(tmp_path, workdir, database, monkeypatch):
    _, conn = database
    apps_root = tmp_path / "apps"
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(apps_root))
    for name in ("alpha", "beta"):
        write_standin_app(apps_root, name, delay=0.05)
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-m", "perflab", "db", "start", "--url", conn.url], cwd=REPO_ROOT,
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    plan_file = tmp_path / "plan.toml"
    plan_file.write_text(PLAN)
    return plan_file, env


def _step_done(db_path, label: str) -> bool:
    if not db_path.exists():
        return False
    try:
        with sqlite3.connect(db_path) as db:
            return db.execute("SELECT COUNT(*) FROM steps WHERE label=?", (label,)).fetchone()[0] > 0
    except sqlite3.OperationalError:  # the lab has not created its tables yet
        return False


def _interrupt_after(plan_file, env, db_path, label: str) -> None:
    lab = subprocess.Popen([sys.executable, "-m", "perflab", "run", str(plan_file), "--yes"], cwd=REPO_ROOT, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 180
        while not _step_done(db_path, label):
            assert lab.poll() is None and time.monotonic() < deadline, f"no step {label!r} ended"
            time.sleep(0.2)
        lab.send_signal(signal.SIGINT)
        out, _ = lab.communicate(timeout=60)
    finally:
        if lab.poll() is None:
            lab.kill()
            lab.communicate()
    assert lab.returncode == 130, out


@pytest.mark.parametrize("stop_after", ["alpha/jvm sweep", "round 1"])
def test_an_interrupted_run_resumed_ends_complete_with_no_figure_measured_twice(lab_env, workdir, stop_after):
    plan_file, env = lab_env
    db_path = workdir / "results.sqlite"
    _interrupt_after(plan_file, env, db_path, stop_after)
    st = store.Store(db_path)
    try:
        run = st.run("last")
        assert run["status"] == "interrupted"
        run_id = run["id"]
        done_before = st.done_steps(run_id)
        cutoff = max(done_before.values())
        kept_before = {(f.app, f.scenario, f.metric, f.point, f.repeat, f.measured_at)
                       for f in st.figures(run_id) if f.measured_at <= cutoff}

        out = subprocess.run([sys.executable, "-m", "perflab", "run", "--resume", run_id[:15], "--yes"],
                             cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stdout + out.stderr
        assert f"resuming run {run_id}" in out.stdout

        run = st.run(run_id)
        assert run["status"] == "complete" and len(st.runs()) == 1  # the same run, not a new one
        figures = st.figures(run_id)
        # what was measured before the interruption is kept as it was
        now = {(f.app, f.scenario, f.metric, f.point, f.repeat, f.measured_at) for f in figures}
        assert kept_before <= now
        # no figure twice
        twice = [k for k, n in collections.Counter(
            (f.app, f.mode, f.scenario, f.metric, f.point, f.repeat) for f in figures).items() if n > 1]
        assert twice == []
        # every step ran to its end once: those done before were not run again
        with sqlite3.connect(db_path) as db:
            labels = collections.Counter(r[0] for r in db.execute("SELECT label FROM steps WHERE run_id=?", (run_id,)))
        assert all(labels[label] == 1 for label in done_before)
        assert {f"round {n}" for n in (1, 2, 3)} <= set(labels)
        assert {f"{app}/jvm {sc}" for app in ("alpha", "beta") for sc in ("sweep", "launch + verify")} <= set(labels)
        # all three rounds' steady launches of both apps, in the rounds' one seeded order
        steady = sorted((f.app, f.repeat) for f in figures if f.scenario == "steady" and f.metric == "rps")
        assert steady == [(a, n) for a in ("alpha", "beta") for n in (1, 2, 3)]
        record = st.rounds_record(run_id)
        assert record["seed"] == 11 and record["rounds"] == 3 and len(record["orders"]) == 3
        # one report of the whole run
        assert out.stdout.count("report: ") == 1
    finally:
        st.close()


def test_a_complete_run_is_not_resumed(lab_env, workdir):
    plan_file, env = lab_env
    st = store.Store(workdir / "results.sqlite")
    try:
        run_id = st.begin_run({"name": "resume-test"}, {})
        st.finish_run(run_id, "complete")
    finally:
        st.close()
    out = subprocess.run([sys.executable, "-m", "perflab", "run", "--resume", run_id], cwd=REPO_ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "is complete: nothing to resume" in out.stderr
