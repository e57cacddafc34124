"""The steady scenario with profiling on (plan [profile] enabled), end to end: a JVM stand-in (the
JDK's own HTTP server doing some work per request, tests/support/profiled/WorkServer.java, run by
the source launcher) gets
a JFR profile of its measured window stored under the run, with a CPU-per-request breakdown that
sums to the measured figure, its figures marked profiled, listed and prunable; a stand-in that
runs no JVM gets "unavailable" with the reason and all its other figures; the report shows the
profiles section."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from perflab.profiles import jfr, merged, recording, storage
from perflab.report import write_report
from tests.conftest import needs, write_standin_app
from tests.lab.scenario_lab import built, cleanup, lab_cgroups, make_lab, run_scenario

pytestmark = [needs(os.geteuid() == 0, "needs root for cgroups and the DB user"),
              needs(shutil.which("java") is not None, "needs a JDK"),
              pytest.mark.standin]

SERVER = Path(__file__).resolve().parent.parent / "support" / "profiled" / "WorkServer.java"

PLAN = """
name = "profile-test"
apps = ["{app}"]
verify = false
scenarios = ["steady"]
repeats = 1
[profile]
enabled = true
max_mb = {max_mb}
[limits]
memory_mb = 384
[steady]
launches = {launches}
points = [{{ path = "/hello", connections = 4 }}]
interval_s = 1
window = 4
max_cv = 0.5
max_trend = 0.5
max_jit_ms_per_s = 200
warmup_max_s = 25
precision = 0.5
measure_max_s = 4
timeout_s = 40
"""


def _jvm_app(root: Path, name: str) -> None:
    """The stand-in app folder, launching the JDK's HTTP server instead of slow_app.py."""
    descriptor = write_standin_app(root, name) / "perflab.toml"
    text, count = re.subn(r'(?m)^command = \[".*slow_app\.py".*\]$',
                          f'command = ["java", "-Xmx64m", "{SERVER}"]', descriptor.read_text())
    assert count == 1
    descriptor.write_text(text.replace('ready_path = "/health/ready"', 'ready_path = "/hello"'))


@pytest.fixture
def profile_lab(tmp_path, workdir, database, monkeypatch):
    root = tmp_path / "apps"
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(root))
    _jvm_app(root, "hellojvm")
    write_standin_app(root, "pyapp")
    made = []

    def make(launches: int = 1, max_mb: float = 100.0):
        made.append(make_lab(PLAN.format(app="hellojvm", launches=launches, max_mb=max_mb), database[1]))
        return made[-1]

    yield make
    for lab in made:
        cleanup(lab)


def test_a_profiled_steady_launch_stores_its_profile_and_a_runtime_without_one_says_why(profile_lab):
    lab = profile_lab()
    run_scenario(lab, "steady", built("hellojvm"), "jvm")
    run_scenario(lab, "steady", built("pyapp"), "jvm")

    figures = lab.store.figures(lab.run_id)
    rps = {f.app: f for f in figures if f.scenario == "steady" and f.metric == "rps"}
    assert set(rps) == {"hellojvm", "pyapp"}  # the unprofilable app was measured all the same
    assert all("profiled" in f.flags for f in rps.values())

    outcomes = {(o["app"], o["status"]): o["reason"] for o in lab.store.outcomes(lab.run_id)
                if "profile" in o["scenario"]}
    assert set(outcomes) == {("pyapp", "unavailable")}, outcomes
    assert "runs no JVM" in outcomes[("pyapp", "unavailable")]

    [profile] = merged.load(lab.store, lab.run_id)
    assert profile.target == "hellojvm/jvm" and profile.launches == [1]
    assert profile.profiler.startswith("JDK Flight Recorder")
    assert sum(profile.cpu.values()) > 0
    assert any(frame.startswith("sun.net.httpserver.") for stack in profile.cpu for frame in stack)
    # the JDK's HTTP server and java.util.logging are mapped in jvm.toml
    assert profile.layers_ms["http"] > 0 and profile.layers_ms["logging"] > 0
    assert sum(profile.layers_ms.values()) == pytest.approx(profile.measured_ms)
    assert profile.measured_ms > 0

    listed = storage.describe(lab.store, lab.run_id)
    assert listed and "hellojvm/jvm" in "\n".join(listed)
    html = write_report(lab.store, lab.run_id).html.read_text()
    assert 'id="profiles"' in html and "hellojvm/jvm" in html and '"type":"icicle"' in html.replace(" ", "")

    files, size = storage.prune(lab.store, lab.run_id)
    assert files >= 3 and size > 0
    assert storage.listed(lab.store, lab.run_id) == [] and storage.used_bytes(lab.store, lab.run_id) == 0
    assert [f for f in lab.store.figures(lab.run_id) if f.metric == "rps"]  # the figures stay
    assert lab_cgroups(lab.run_id) == []


def test_once_the_runs_profiles_reach_their_cap_later_launches_keep_none_and_say_so(profile_lab):
    lab = profile_lab(launches=2, max_mb=0.001)  # 1 KB: the first launch's profile alone is larger
    run_scenario(lab, "steady", built("hellojvm"), "jvm")

    [profile] = merged.load(lab.store, lab.run_id)
    assert profile.launches == [1]
    [why] = [o["reason"] for o in lab.store.outcomes(lab.run_id) if o["status"] == "unavailable"]
    assert "profile.max_mb = 0.001 MB" in why
    assert len([f for f in lab.store.figures(lab.run_id) if f.metric == "rps"]) == 2  # both launches measured


def test_the_primer_records_through_warm_up_and_no_recording_outlives_the_window(profile_lab, monkeypatch):
    """A JVM's first recording retransforms the JDK's classes: the primer must already be recording when
    the window's recording starts (so that cost fell in warm-up), and both must be gone once it stops."""
    seen = {}
    real_start, real_stop = recording.Window.start, recording.Window.stop

    def start(self):
        seen["at start"] = jfr._jcmd(self.pid, "JFR.check")
        real_start(self)

    def stop(self, intervals):
        stored = real_stop(self, intervals)
        seen["after stop"] = jfr._jcmd(self.pid, "JFR.check")
        return stored

    monkeypatch.setattr(recording.Window, "start", start)
    monkeypatch.setattr(recording.Window, "stop", stop)
    lab = profile_lab()
    run_scenario(lab, "steady", built("hellojvm"), "jvm")

    assert recording.PRIMER in seen["at start"] and jfr.RECORDING not in seen["at start"]
    assert recording.PRIMER not in seen["after stop"] and jfr.RECORDING not in seen["after stop"]
    assert [p.launches for p in merged.load(lab.store, lab.run_id)] == [[1]]
