"""The host-speed canary, compiled and run for real: build cache, pinning, parsing, flags."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perflab.errors import LabError
from perflab.probes import canary

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group

SMALL_WORK = 200_000  # ~0.5 ms a repetition: the tests check behaviour, not speed


@pytest.fixture(scope="module")
def binary(tmp_path_factory) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        return canary.ensure(log=lambda _: None)


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "perflab" / "canary"


def allowed_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def test_compiles_once_into_the_cache(cache):
    said: list[str] = []
    first = canary.ensure(log=said.append)
    assert first.parent == cache and os.access(first, os.X_OK)
    assert len(said) == 1 and "cc -O2" in said[0]
    built = first.stat().st_mtime_ns
    again = canary.ensure(log=said.append)
    assert again == first and again.stat().st_mtime_ns == built
    assert len(said) == 1
    assert [p.name for p in cache.iterdir()] == [first.name]  # no temporary left behind


def test_a_changed_source_recompiles(cache, tmp_path):
    source = tmp_path / "canary.c"
    shutil.copy(canary.SOURCE, source)
    before = canary.ensure(log=lambda _: None, source=source)
    source.write_text(source.read_text() + "\n/* changed */\n")
    after = canary.ensure(log=lambda _: None, source=source)
    assert after != before and before.is_file() and after.is_file()


def test_a_source_that_does_not_compile_says_why(cache, tmp_path):
    source = tmp_path / "canary.c"
    source.write_text("int main(void) { return nope; }\n")
    with pytest.raises(LabError) as raised:
        canary.ensure(log=lambda _: None, source=source)
    assert "nope" in raised.value.details
    assert not cache.exists() or not list(cache.iterdir())


def test_measure_returns_the_repetitions_asked_for(binary):
    reading = canary.measure([allowed_cpus()[0]], reps=4, work=SMALL_WORK, binary=binary)
    assert len(reading.reps) == 4 and all(total > 0 for total in reading.reps)
    assert reading.ms > 0 and reading.alu_ms > 0 and reading.mem_ms > 0
    assert min(reading.reps) <= reading.ms <= max(reading.reps)
    assert reading.spread == pytest.approx(max(reading.reps) / min(reading.reps) - 1)
    assert reading.build == binary.name.rpartition("-")[2] and reading.work == SMALL_WORK
    data = reading.to_dict()
    assert data["cpus"] == [allowed_cpus()[0]] and data["reps"] == list(reading.reps)


@pytest.mark.alone  # the canary's time is bounded
def test_the_default_work_is_one_the_binary_agrees_with(binary):
    define = re.search(r"#define DEFAULT_WORK (\d+)L", canary.SOURCE.read_text())
    assert define and int(define.group(1)) == canary.DEFAULT_WORK
    reading = canary.measure([allowed_cpus()[0]], reps=1, binary=binary)
    assert 1 < reading.ms < 1000  # ~20 ms on an idle 2020s x86 core


def test_the_work_is_deterministic(binary):
    runs = [subprocess.run([str(binary), "3", str(SMALL_WORK)], capture_output=True, text=True,
                           check=True).stdout.split("\n") for _ in range(2)]
    checks = {line.split()[2] for run in runs for line in run if line}
    assert len(checks) == 1
    assert all(len(line.split()) == 3 for run in runs for line in run if line)


@pytest.mark.parametrize("index", [0, -1])
def test_it_runs_on_the_cpu_asked_for(binary, index):
    cpu = allowed_cpus()[index]
    done = subprocess.run([str(binary), "2", str(SMALL_WORK), str(cpu)], capture_output=True,
                          text=True, check=True, env=dict(os.environ, PERFLAB_CANARY_SHOW_CPU="1"))
    assert done.stderr.strip() == f"cpu {cpu}"
    assert len(done.stdout.splitlines()) == 2


def test_a_cpu_it_may_not_use_is_a_lab_error(binary):
    with pytest.raises(LabError, match="cannot run on CPUs"):
        canary.measure([max(allowed_cpus()) + 1000], reps=1, work=SMALL_WORK, binary=binary)


def test_bad_arguments_exit_non_zero_on_stderr(binary):
    for args in (["0"], ["2", "x"], ["1", "1", "0,a"], ["1", "1", "0", "extra"]):
        done = subprocess.run([str(binary), *args], capture_output=True, text=True)
        assert done.returncode != 0 and done.stdout == "" and done.stderr.startswith("canary:")


def test_unexpected_output_is_a_lab_error(tmp_path):
    fake = tmp_path / "canary-fake"
    fake.write_text("#!/bin/sh\necho '100 200 ab'\n")
    fake.chmod(0o755)
    with pytest.raises(LabError, match="1 repetitions of 2"):
        canary.measure([allowed_cpus()[0]], reps=2, binary=fake)
    fake.write_text("#!/bin/sh\necho '100 200 ab'\necho '100 200 cd'\n")
    with pytest.raises(LabError, match="different results"):
        canary.measure([allowed_cpus()[0]], reps=2, binary=fake)


def test_a_follower_reads_on_its_schedule_on_its_cpu_clock_until_stopped(binary):
    started = time.monotonic_ns()
    follower = canary.Follower([allowed_cpus()[0]], 0.1, work=SMALL_WORK, binary=binary)
    deadline = time.monotonic() + 30
    while len(follower.pulses) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    pulses = follower.stop()
    stopped = time.monotonic_ns()
    assert follower.problem == "" and len(pulses) >= 3
    ends = [p.end_ns for p in pulses]
    assert ends == sorted(ends) and started < ends[0] and ends[-1] <= stopped
    # the schedule is absolute (a late reading is followed by the ones it missed, not by a new
    # period), so however busy the machine, no more readings than periods since the start, plus one
    assert len(pulses) <= (stopped - started) / 0.1e9 + 1
    # CPU time of a fixed chain: positive, and the same chain each time
    assert all(p.alu_ms > 0 for p in pulses)
    assert follower._proc.poll() is not None  # stopped, not left reading


def test_a_follower_dies_with_its_parent(binary, tmp_path):
    # a parent killed with -9 runs no cleanup: the canary must not read on for its 100,000 periods
    script = tmp_path / "parent.py"
    script.write_text(
        "import sys, time\n"
        "from pathlib import Path\n"
        "from perflab.probes import canary\n"
        f"f = canary.Follower([{allowed_cpus()[0]}], 0.05, work={SMALL_WORK}, binary=Path({str(binary)!r}))\n"
        "print(f._proc.pid, flush=True)\n"
        "time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    child = int(parent.stdout.readline())
    assert Path(f"/proc/{child}").exists()
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{child}").exists()


def test_a_follower_needs_a_cpu_and_a_period():
    with pytest.raises(ValueError):
        canary.Follower([], 1.0)
    with pytest.raises(ValueError):
        canary.Follower([0], 0)
