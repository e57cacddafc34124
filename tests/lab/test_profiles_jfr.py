"""Profiles from real JDK Flight Recorder recordings: a small Java program (tests/support/profiled/
Work.java) whose time goes to Json and to Db in a proportion the test sets, recorded with the
lab's own settings started and stopped by jcmd, read back with the JDK's jfr command into folded
stacks, attributed to layers, and two recordings compared."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from perflab.profiles import diff, folded, jfr, layers, threads
from perflab.profiles.merged import Profile
from tests.conftest import needs

WORK = Path(__file__).resolve().parent.parent / "support" / "profiled" / "Work.java"
# the program's classes as a framework's layer file would map them
MAPPING = layers.Mapping((("Json.", "serialization"), ("Db.", "jdbc")), ("test",))

pytestmark = needs(shutil.which("java") is not None and shutil.which("jcmd") is not None,
              "needs a JDK with jcmd and jfr")


def _record(tmp_path: Path, json_percent: int, name: str) -> tuple[folded.Stacks, folded.Stacks, dict, dict]:
    """Runs Work for a few seconds, records 3 s of it in the middle; returns (CPU stacks,
    allocation stacks, samples per thread, thread CPU seconds by kind over the recording)."""
    proc = subprocess.Popen(["java", "-Xmx128m", str(WORK), "9000", str(json_percent)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the source launcher compiles first: wait until jcmd answers
            if subprocess.run(["jcmd", str(proc.pid), "VM.uptime"], capture_output=True).returncode == 0:
                break
            time.sleep(0.3)
        time.sleep(1.0)
        before = threads.read(proc.pid)
        jfr.start(proc.pid)
        time.sleep(3.0)
        recording = tmp_path / f"{name}.jfr"
        jfr.stop(proc.pid, recording)
        spent = threads.delta(before, threads.read(proc.pid))
        cpu, alloc, by_thread = jfr.parse(recording, jfr.java_home(proc.pid))
    finally:
        proc.kill()
        proc.wait()
    return cpu, alloc, by_thread, spent


@pytest.fixture(scope="module")
def recordings(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("jfr")
    return {"json": _record(tmp, 90, "json"), "db": _record(tmp, 10, "db")}


def test_a_recording_becomes_folded_stacks_of_the_programs_own_frames(recordings):
    cpu, alloc, by_thread, _ = recordings["json"]
    assert folded.total(cpu) >= 100  # ~3 s of one busy thread at a 10 ms period
    assert max(by_thread, key=by_thread.get) == "main"
    # root first, leaf last: every Work sample starts from main and Db's samples pass through Util.spin
    encoded = [s for s in cpu if "Json.encode" in s]
    assert encoded and all("Work.main" in s and s.index("Work.main") < s.index("Json.encode") for s in encoded)
    assert any(s[-2:] == ("Db.query", "Util.spin") for s in cpu)
    assert any("Json.encode" in s for s in alloc) and folded.total(alloc) > 0
    # the folded text reads back to the same stacks
    assert folded.loads(folded.dumps(cpu)) == cpu


def test_a_sample_counts_for_its_innermost_mapped_frame(recordings):
    cpu, _, _, _ = recordings["db"]
    by_layer = layers.attribute(cpu, MAPPING)
    in_spin = sum(w for s, w in cpu.items() if s[-1] == "Util.spin")
    json_in_db = sum(w for s, w in cpu.items() if "Db.query" in s and "Json.encode" in s)
    assert in_spin > 0
    # Util is unmapped: its samples count for Db, its caller; Json called from Db counts for Json
    assert by_layer["jdbc"] == sum(w for s, w in cpu.items() if "Db.query" in s) - json_in_db
    assert by_layer["serialization"] == sum(w for s, w in cpu.items() if "Json.encode" in s)
    assert sum(by_layer.values()) == folded.total(cpu)


def test_the_breakdown_of_a_real_window_sums_to_the_measured_cpu(recordings):
    cpu, _, _, spent = recordings["json"]
    assert spent["java"] > 1.0  # the main thread was busy for most of the 3 s
    requests = 1000
    measured_ms = 1000 * (sum(spent.values()) + 0.05) / requests  # as a cgroup would see it: a little more
    b = layers.breakdown(layers.attribute(cpu, MAPPING), measured_ms=measured_ms,
                         java_ms=1000 * spent["java"] / requests, gc_ms=1000 * spent["gc"] / requests,
                         jit_ms=1000 * spent["jit"] / requests)
    assert b.total_ms == pytest.approx(measured_ms)
    assert b.layers["gc"] == pytest.approx(1000 * spent["gc"] / requests)
    assert b.layers["serialization"] > b.layers["jdbc"]  # 90 % of the calls were Json's
    assert b.layers["other"] >= 0.05 * 1000 / requests - 1e-9  # the threads' remainder at least


def test_two_recordings_differ_where_their_work_moved(recordings):
    def profile(name: str) -> Profile:
        cpu, _, _, spent = recordings[name]
        b = layers.breakdown(layers.attribute(cpu, MAPPING), measured_ms=sum(spent.values()),
                             java_ms=spent["java"], gc_ms=spent["gc"], jit_ms=spent["jit"])
        return Profile("work", name, "p", cpu=cpu, measured_ms=b.measured_ms, layers_ms=b.layers)

    a, b = profile("json"), profile("db")
    d = diff.difference(a, b)
    change = {c.layer: c.change_ms for c in d.layers}
    assert change["jdbc"] > 0 > change["serialization"]
    assert sum(change.values()) == pytest.approx(d.measured_change_ms)
    sa, sb = diff.path_shares(a.cpu), diff.path_shares(b.cpu)
    spin = next(p for p in sb if p[-1] == "Util.spin")
    assert sb[spin] > sa.get(spin, 0.0)
