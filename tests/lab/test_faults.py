"""The fault tier: a run of two stand-in apps with real processes (the lab's private PostgreSQL,
wrk, oha, the apps in their cgroups, H2 where an app uses it), hit in the middle by a fault of one
kind: SIGKILL of each kind of child the lab starts, a work directory's disk that fills up, Ctrl-C
in each phase (build, start-up, rounds, report). Each case checks that the failure is recorded
with its cause, every figure measured before it is kept, nothing the lab started is left running,
and that the run ends whole: at once where the lab could absorb the fault (the run complete, the
failed launch recorded), else through `perflab run --resume`.

Stand-in apps only: these test the lab's own handling, not any framework. Left out here: the Kafka
broker (only the developer loop's stream apps start one, Quarkus builds of minutes) and a pod on a
cluster (tests/kube has a fault of the lab's own on a real node). docs/development.md says which
cases run under --fast (none: every case starts processes)."""

from __future__ import annotations

import collections
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from perflab import postgres, room, store
from perflab.paths import REPO_ROOT
from tests.conftest import needs_root, write_standin_app

pytestmark = [needs_root("needs root for cgroups, the DB's own user and a small disk (tmpfs)"), pytest.mark.standin]

PLAN = """
name = "faults"
apps = ["alpha", "beta"]
verify = false
scenarios = ["startup", "steady"]
repeats = 1
[limits]
memory_mb = 256
[startup]
runs = 1
timeout_s = 20
rest_s = 0
[steady]
launches = 2
startup_figures = true
points = [{ path = "/hello", connections = 2 }]
window = 3
warmup_max_s = 2
max_jit_ms_per_s = 0
precision = 0.5
measure_max_s = 2
timeout_s = 20
open_loop_fraction = 0.5
open_loop_s = 2
[rounds]
seed = 11
target = 0
max_rounds = 2
headline = ["alpha/jvm:beta/jvm"]
"""


# --- the processes the lab starts ----------------------------------------------------------------

def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time in ticks) of a live process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    if fields[0] == "Z":
        return None
    return int(fields[1]), int(fields[19])


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def _descendants(root: int) -> dict[int, int]:
    """The live descendants of `root`: pid -> start time."""
    parents: dict[int, list[tuple[int, int]]] = collections.defaultdict(list)
    for name in os.listdir("/proc"):
        if name.isdigit() and (st := _stat(int(name))) is not None:
            parents[st[0]].append((int(name), st[1]))
    found, todo = {}, [root]
    while todo:
        for pid, started in parents.get(todo.pop(), []):
            if pid not in found:
                found[pid] = started
                todo.append(pid)
    return found


def _is_app(cmd: list[str]) -> bool:
    return any(part.endswith("slow_app.py") for part in cmd)


KINDS: dict[str, Callable[[list[str]], bool]] = {
    "app": _is_app,
    "wrk": lambda cmd: bool(cmd) and Path(cmd[0]).name == "wrk",
    "oha": lambda cmd: bool(cmd) and Path(cmd[0]).name == "oha",
    "h2": lambda cmd: any("org.h2.tools.Server" in part for part in cmd),
    "build": lambda cmd: bool(cmd) and Path(cmd[0]).name == "sleep",
}


@dataclass
class Lab:
    """`perflab run` in a process of its own, its output read as it comes, its children seen as they start."""

    proc: subprocess.Popen
    lines: list[str] = field(default_factory=list)
    seen: dict[int, int] = field(default_factory=dict)  # every descendant seen: pid -> start time
    _stop: threading.Event = field(default_factory=threading.Event)

    @classmethod
    def start(cls, args: list[str], env: dict) -> "Lab":
        proc = subprocess.Popen([sys.executable, "-m", "perflab", "run", *args, "--yes"], cwd=REPO_ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lab = cls(proc)
        _STARTED.append(lab)
        threading.Thread(target=lab._read, daemon=True).start()
        threading.Thread(target=lab._watch, daemon=True).start()
        return lab

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)

    def _watch(self) -> None:
        while not self._stop.is_set() and self.proc.poll() is None:
            self.seen.update(_descendants(self.proc.pid))
            time.sleep(0.05)

    def find(self, kind: str) -> int | None:
        for pid in _descendants(self.proc.pid):
            if KINDS[kind](_cmdline(pid)):
                return pid
        return None

    def wait(self, timeout: float = 300) -> int:
        try:
            rc = self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._stop.set()
        time.sleep(0.2)  # the reader's last lines
        return rc

    @property
    def out(self) -> str:
        return "".join(self.lines)

    def left_running(self, grace_s: float = 5.0) -> list[str]:
        """What the lab started that still runs (a pid counts only with the start time it had), after
        `grace_s` for processes on their way out (a killed database's own workers notice its death)."""
        def alive() -> list[int]:
            return [pid for pid, started in self.seen.items() if (st := _stat(pid)) is not None and st[1] == started]
        deadline = time.monotonic() + grace_s
        while alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        return [" ".join(_cmdline(pid))[:120] for pid in alive()]


def _until(what: str, lab: Lab, predicate: Callable[[], object], timeout: float = 240):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if lab.proc.poll() is not None:
            raise AssertionError(f"the lab ended before {what}:\n{lab.out}")
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}:\n{lab.out}")


def _step_ended(db_path: Path, label: str) -> bool:
    try:
        with sqlite3.connect(db_path) as db:
            return db.execute("SELECT COUNT(*) FROM steps WHERE label=?", (label,)).fetchone()[0] > 0
    except sqlite3.OperationalError:  # no results file or tables yet
        return False


def _lab_cgroups(run_id: str) -> list[Path]:
    return [p for p in Path("/sys/fs/cgroup").glob(f"*/perflab/{run_id}") if p.exists()]


_STARTED: list[Lab] = []


@pytest.fixture(autouse=True)
def _no_lab_outlives_its_test():
    """A case that failed while it waited (a timeout) leaves its `perflab run` going: stop it (SIGINT,
    so that it cleans up what it started), then kill it, so that it runs into no later case."""
    yield
    while _STARTED:
        lab = _STARTED.pop()
        if lab.proc.poll() is None:
            lab.proc.send_signal(signal.SIGINT)
            try:
                lab.proc.wait(30)
            except subprocess.TimeoutExpired:
                lab.proc.kill()
                lab.proc.wait()


# --- the run ----------------------------------------------------------------------------------

@pytest.fixture
def faults(tmp_path, workdir, monkeypatch, oha_binary):
    """Two stand-in apps and the plan; no database is running, so each run starts its own private
    PostgreSQL (and stops it), as a run on a fresh machine does. oha (the open-loop point's driver)
    is built before the run starts, not inside its timed waits."""
    apps_root = tmp_path / "apps"
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(apps_root))
    for name in ("alpha", "beta"):
        write_standin_app(apps_root, name, delay=0.05)
    plan_file = tmp_path / "plan.toml"
    plan_file.write_text(PLAN)
    assert not postgres.Cluster().status().get("running")
    return apps_root, plan_file, dict(os.environ)


def _figures_before(st: store.Store, run_id: str) -> set[tuple]:
    """The figures of the steps that ended before the fault (a step cut short is measured again)."""
    cutoff = max(st.done_steps(run_id).values(), default=0.0)
    return {(f.app, f.mode, f.scenario, f.metric, f.point, f.repeat, f.measured_at) for f in st.figures(run_id)
            if f.measured_at <= cutoff}


def _ends_whole(st: store.Store, run_id: str, env: dict, kept: set[tuple]) -> None:
    """`--resume` ends the run complete, the figures measured before kept and none measured twice."""
    lab = Lab.start(["--resume", run_id], env)
    rc = lab.wait()
    assert rc == 0, lab.out
    assert st.run(run_id)["status"] == "complete"
    figures = st.figures(run_id)
    assert kept <= {(f.app, f.mode, f.scenario, f.metric, f.point, f.repeat, f.measured_at) for f in figures}
    twice = [k for k, n in collections.Counter(
        (f.app, f.mode, f.scenario, f.metric, f.point, f.repeat) for f in figures).items() if n > 1]
    assert twice == []
    steady = sorted((f.app, f.repeat) for f in figures if f.scenario == "steady" and f.metric == "rps"
                    and "open loop" not in f.point)
    assert steady == [("alpha", 1), ("alpha", 2), ("beta", 1), ("beta", 2)]
    assert lab.left_running() == [] and _lab_cgroups(run_id) == []


def _kill_in_round_2(lab: Lab, db_path: Path, kind: str) -> int:
    """SIGKILL the first process of `kind` the lab starts once round 1 has ended."""
    _until("round 1 to end", lab, lambda: _step_ended(db_path, "round 1"))
    pid = _until(f"a {kind} process in round 2", lab, lambda: lab.find(kind))
    os.kill(pid, signal.SIGKILL)
    return pid


@pytest.mark.parametrize("kind, cause", [("app", "killed by signal 9"), ("wrk", "wrk"), ("oha", "oha")])
def test_a_child_killed_in_a_launch_fails_that_launch_only_and_the_run_ends_complete(faults, workdir, kind, cause):
    apps_root, plan_file, env = faults
    db_path = workdir / "results.sqlite"
    lab = Lab.start([str(plan_file)], env)
    _kill_in_round_2(lab, db_path, kind)
    rc = lab.wait()
    st = store.Store(db_path)
    try:
        run = st.run("last")
        assert run["status"] == "complete", lab.out  # the other launches measured: partial, not failed
        assert rc == 1, lab.out  # a failed launch makes the command's exit code say so
        launches = st.rounds_record(run["id"])["launches"]
        failed = [e for e in launches if e["failed"]]
        assert len(failed) == 1 and failed[0]["round"] == 2 and cause in failed[0]["failed"], launches
        steady = [o for o in st.outcomes(run["id"]) if o["scenario"] == "steady" and o["status"] == "failed"]
        assert steady and "launch 2" in steady[0]["reason"]
        # round 1 of both apps, and round 2 of the other one, measured and kept
        other = ({"alpha", "beta"} - {failed[0]["label"].split("/")[0]}).pop()
        rps = {(f.app, f.repeat) for f in st.figures(run["id"]) if f.scenario == "steady" and f.metric == "rps"}
        assert {("alpha", 1), ("beta", 1), (other, 2)} <= rps
        assert lab.left_running() == [] and _lab_cgroups(run["id"]) == []
        resumed = subprocess.run([sys.executable, "-m", "perflab", "run", "--resume", run["id"]], cwd=REPO_ROOT,
                                 env=env, capture_output=True, text=True, timeout=60)
        assert resumed.returncode == 2 and "nothing to resume" in resumed.stderr  # it ended whole already
    finally:
        st.close()


def test_the_database_killed_mid_run_stops_the_run_with_its_cause_and_resume_ends_it(faults, workdir):
    _, plan_file, env = faults
    db_path = workdir / "results.sqlite"
    lab = Lab.start([str(plan_file)], env)
    _until("round 1 to end", lab, lambda: _step_ended(db_path, "round 1"))
    pid = _until("the run's PostgreSQL", lab, lambda: postgres.Cluster().server_pid())
    os.kill(pid, signal.SIGKILL)
    rc = lab.wait()
    st = store.Store(db_path)
    try:
        run = st.run("last")
        assert rc != 0 and run["status"] == "failed" and "SQL on" in run["note"], lab.out  # the next load of its rows
        assert postgres.Cluster().server_pid() is None
        assert lab.left_running() == [] and _lab_cgroups(run["id"]) == []
        _ends_whole(st, run["id"], env, _figures_before(st, run["id"]))
    finally:
        st.close()


def test_h2_killed_mid_run_stops_the_run_with_its_cause_and_resume_ends_it(faults, workdir):
    apps_root, plan_file, env = faults
    for name in ("alpha", "beta"):  # both on H2: whichever launches next after the kill needs it
        toml = apps_root / name / "perflab.toml"
        toml.write_text(toml.read_text().replace('framework_version = "0"\n', 'framework_version = "0"\ndb_server = "h2"\n'))
    db_path = workdir / "results.sqlite"
    lab = Lab.start([str(plan_file)], env)
    _kill_in_round_2(lab, db_path, "h2")
    rc = lab.wait()
    st = store.Store(db_path)
    try:
        run = st.run("last")
        assert rc != 0 and run["status"] == "failed" and "H2" in run["note"], lab.out
        assert lab.left_running() == [] and _lab_cgroups(run["id"]) == []
        _ends_whole(st, run["id"], env, _figures_before(st, run["id"]))
    finally:
        st.close()


@pytest.fixture
def small_disk(workdir):
    """The work directory on a disk of its own, a little over the 1 GB the checks before a run ask
    for the results (perflab.preflight), removed at the end."""
    workdir.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1100m", "tmpfs", str(workdir)], check=True)
    try:
        yield workdir
    finally:
        subprocess.run(["umount", "-l", str(workdir)], check=False)


def test_a_work_directory_that_fills_up_stops_the_run_before_a_step_and_resume_ends_it(faults, small_disk, monkeypatch):
    _, plan_file, env = faults
    env[room.MIN_FREE_ENV] = "48"  # a step needs 48 MB free
    db_path = small_disk / "results.sqlite"
    lab = Lab.start([str(plan_file)], env)
    _until("round 1 to begin", lab, lambda: _step_ended(db_path, "beta/jvm startup"))
    filler = small_disk / "filler"
    with open(filler, "wb") as out:  # leave 40 MB: the next step is refused
        disk = os.statvfs(small_disk)
        for _ in range(max(0, disk.f_bavail * disk.f_frsize - 40 * 2**20) // 2**20):
            out.write(b"\0" * 2**20)
    rc = lab.wait()
    st = store.Store(db_path)
    try:
        run = st.run("last")
        assert rc != 0 and run["status"] == "failed" and "MB free" in run["note"], lab.out
        assert f"--resume {run['id']}" in lab.out
        assert lab.left_running() == [] and _lab_cgroups(run["id"]) == []
        kept = _figures_before(st, run["id"])
        assert kept, "the start-up figures measured before are kept"
        filler.unlink()
        _ends_whole(st, run["id"], env, kept)
    finally:
        st.close()


def test_ctrl_c_while_an_app_builds_stops_the_build_and_begins_no_run(faults, workdir):
    apps_root, plan_file, env = faults
    toml = apps_root / "alpha" / "perflab.toml"
    toml.write_text(toml.read_text().replace('command = ["sh", "-c", "mkdir', 'command = ["sh", "-c", "sleep 60; mkdir'))
    lab = Lab.start([str(plan_file)], env)
    _until("the build", lab, lambda: lab.find("build"))
    lab.proc.send_signal(signal.SIGINT)
    assert lab.wait(60) == 130, lab.out
    assert lab.left_running() == []
    st = store.Store(workdir / "results.sqlite")
    try:
        assert st.runs() == []  # builds come before the run begins: nothing to resume, the next run builds again
    finally:
        st.close()
    assert not (apps_root / "alpha" / "out" / "artifact.txt").exists()


@pytest.mark.parametrize("phase", ["start-up", "rounds"])
def test_ctrl_c_in_a_phase_keeps_what_was_measured_and_resume_ends_the_run(faults, workdir, phase):
    apps_root, plan_file, env = faults
    db_path = workdir / "results.sqlite"
    if phase == "start-up":
        write_standin_app(apps_root, "beta", delay=3.0)  # 3 s to get ready: the signal lands in its start-up
    lab = Lab.start([str(plan_file)], env)
    if phase == "start-up":  # beta's cold launch, alpha's start-up measured before it
        _until("alpha's start-up to end", lab, lambda: _step_ended(db_path, "alpha/jvm startup"))
        _until("beta's launch", lab, lambda: lab.find("app"))
    else:  # while wrk loads an app in round 2
        _until("round 1 to end", lab, lambda: _step_ended(db_path, "round 1"))
        _until("wrk in round 2", lab, lambda: lab.find("wrk"))
    lab.proc.send_signal(signal.SIGINT)
    assert lab.wait(60) == 130, lab.out
    st = store.Store(db_path)
    try:
        run = st.run("last")
        assert run["status"] == "interrupted"
        assert lab.left_running() == [] and _lab_cgroups(run["id"]) == []
        kept = _figures_before(st, run["id"])
        assert any(f[2] == "startup" for f in kept)
        _ends_whole(st, run["id"], env, kept)
    finally:
        st.close()


def test_ctrl_c_while_the_report_is_written_leaves_the_run_complete_and_no_half_report(faults, workdir):
    _, plan_file, env = faults
    lab = Lab.start([str(plan_file)], env)
    _until("the run to be stored", lab, lambda: "stored in " in lab.out)
    lab.proc.send_signal(signal.SIGINT)
    rc = lab.wait(60)
    st = store.Store(workdir / "results.sqlite")
    try:
        run = st.run("last")
        assert run["status"] == "complete"  # every step had ended: the run is whole
        folder = workdir / "reports" / run["id"]
        if rc == 130:  # interrupted while writing: a report is whole or absent, never half
            html = folder / "report.html"
            assert not html.exists() or html.read_text().rstrip().endswith("</html>")
            assert list(folder.glob(".*.part")) == []
        else:
            assert rc == 0 and "report: " in lab.out  # the report was done before the signal came
        made = subprocess.run([sys.executable, "-m", "perflab", "report", run["id"]], cwd=REPO_ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
        assert made.returncode == 0, made.stdout + made.stderr
        assert (folder / "report.html").read_text().rstrip().endswith("</html>")
        assert lab.left_running() == []
    finally:
        st.close()
