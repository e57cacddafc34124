"""Probes against real processes: time to first response, readiness, start log, sampling."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest

from perflab.isolate import Cgroup, Limits, detect_cgroups
from perflab.probes import (ResourceSampler, process_tree, read_stat, time_to_first_response, tree_cpu_seconds,
                            tree_rss_bytes, wait_ready, watch_start_log)
from tests.conftest import require
from tests.unit.test_probes import ready_later  # noqa: F401 - the fixture

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group

MB = 1024 * 1024
STANDIN = Path(__file__).resolve().parents[1] / "support" / "standin_server.py"


def spawn(children, argv, **options) -> subprocess.Popen:
    proc = subprocess.Popen(argv, start_new_session=True, **options)
    children.append(proc)
    return proc


def python(children, code: str, **options) -> subprocess.Popen:
    return spawn(children, [sys.executable, "-c", textwrap.dedent(code)],
                 stdout=subprocess.PIPE, text=True, **options)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.alone  # the polling's resolution is bounded
def test_first_response_of_a_server_that_starts_late(children):
    port, delay = free_port(), 0.4
    spawn_ns = time.monotonic_ns()
    server = spawn(children, ["sh", "-c", f'sleep {delay} && exec "$0" "$1" --port {port}',
                              sys.executable, str(STANDIN)], stdout=subprocess.DEVNULL)

    result = time_to_first_response(f"http://127.0.0.1:{port}/hello", spawn_ns, server,
                                    timeout_s=20)

    assert result.ok, result.reason
    assert result.status == 200 and result.reason == "HTTP 200"
    assert result.elapsed_ms >= delay * 1000
    assert result.resolution_ms <= 5.0
    assert result.attempts > 10  # polled all along the delay, not once at the end
    assert result.uncertainty_ms is not None and result.uncertainty_ms > 0


@pytest.mark.alone  # a bound on the time taken
def test_first_response_fails_fast_when_the_process_exits(children):
    proc = python(children, "import time, sys; time.sleep(0.2); sys.exit(3)")
    started = time.monotonic()

    result = time_to_first_response(f"http://127.0.0.1:{free_port()}/hello",
                                    time.monotonic_ns(), proc, timeout_s=30)

    assert not result.ok and result.exit_code == 3
    assert "exited with code 3" in result.reason
    assert time.monotonic() - started < 5


def test_a_bare_pid_killed_by_a_signal_is_noticed(children):
    proc = python(children, "import time; time.sleep(60)")
    threading.Timer(0.2, proc.kill).start()

    result = time_to_first_response(f"http://127.0.0.1:{free_port()}/", time.monotonic_ns(),
                                    proc.pid, timeout_s=30)

    assert not result.ok and result.exit_code == -signal.SIGKILL
    assert "signal 9" in result.reason


def test_an_answer_from_another_process_is_not_taken_for_ours(children, ready_later):
    proc = python(children, "import sys; sys.exit(1)")  # e.g. "address already in use"
    proc.wait()
    time.sleep(0.35)  # the server on the port (not ours) is answering 200 by now
    result = time_to_first_response(f"{ready_later}/hello", time.monotonic_ns(), proc,
                                    timeout_s=5)
    assert not result.ok and result.status == 200
    assert "another process serves this port" in result.reason


def test_first_response_gives_up_at_the_timeout_with_the_reason(children):
    proc = python(children, "import time; time.sleep(60)")
    result = time_to_first_response(f"http://127.0.0.1:{free_port()}/hello",
                                    time.monotonic_ns(), proc, timeout_s=0.3)
    assert not result.ok and result.elapsed_ms is None
    assert "timeout after 0.3 s (no HTTP answer)" == result.reason
    assert result.attempts > 5


def test_readiness_timeout_reports_the_last_status(children):
    port = free_port()
    server = spawn(children, [sys.executable, str(STANDIN), "--port", str(port)],
                   stdout=subprocess.PIPE, text=True)
    assert server.stdout.readline().startswith("PORT")
    result = wait_ready(f"http://127.0.0.1:{port}/status/503", time.monotonic_ns(), server,
                        timeout_s=0.3)
    assert not result.ok and result.status == 503
    assert "last status 503" in result.reason


@pytest.mark.alone  # a bound on the time taken
def test_start_log_without_the_line_times_out_or_fails_fast(tmp_path, children):
    log = tmp_path / "app.log"
    log.write_text("nothing useful\n")
    missing = watch_start_log(log, r"started in (?P<millis>\d+)ms", timeout_s=0.2)
    assert not missing.ok and "no start line after 0.2 s" in missing.reason

    proc = python(children, "import sys, time; time.sleep(0.1); sys.exit(2)")
    started = time.monotonic()
    died = watch_start_log(log, r"started in (?P<millis>\d+)ms", timeout_s=30, process=proc)
    assert not died.ok and "exited with code 2" in died.reason
    assert time.monotonic() - started < 5

    with pytest.raises(ValueError, match="seconds"):
        watch_start_log(log, r"started in (\d+)ms", timeout_s=0)


TREE = """
    import subprocess, sys, time
    code = "import sys, time; b = b'x' * ({kid_mb} << 20); print('ok', flush=True); time.sleep(60)"
    kids = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    for kid in kids:
        kid.stdout.readline()
    block = b"x" * ({own_mb} << 20)
    print(" ".join(str(k.pid) for k in kids), flush=True)
    time.sleep(60)
"""


def vm_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def test_tree_rss_is_the_sum_of_vmrss_over_the_tree(children):
    proc = python(children, TREE.format(kid_mb=20, own_mb=30))
    kids = [int(p) for p in proc.stdout.readline().split()]

    assert sorted(process_tree(proc.pid)) == sorted([proc.pid, *kids])
    expected = sum(vm_rss(p) for p in [proc.pid, *kids])
    assert abs(tree_rss_bytes(proc.pid) - expected) < 2 * MB
    assert expected > 70 * MB


def test_tree_cpu_counts_children_already_reaped(children):
    proc = python(children, """
        import subprocess, sys, time
        burn = "import time\\nend = time.process_time() + 0.3\\nwhile time.process_time() < end: pass"
        subprocess.run([sys.executable, "-c", burn], check=True)
        print("done", flush=True)
        time.sleep(60)
    """)
    assert proc.stdout.readline().strip() == "done"
    assert process_tree(proc.pid) == [proc.pid]  # the burner is gone
    assert tree_cpu_seconds(proc.pid) >= 0.28


def test_stat_parsing_survives_odd_process_names(children):
    proc = python(children, """
        import time
        open("/proc/self/comm", "w").write("a) b (c")
        print("named", flush=True)
        time.sleep(60)
    """)
    assert proc.stdout.readline().strip() == "named"
    assert Path(f"/proc/{proc.pid}/comm").read_text() == "a) b (c\n"  # the name really is odd
    stat = read_stat(proc.pid)
    assert stat.ppid == os.getpid() and stat.state in ("R", "S") and stat.rss_pages > 0
    assert read_stat(2 ** 22 + 1) is None


def test_sampler_follows_the_tree_and_stops_when_the_app_is_killed(children):
    proc = python(children, TREE.format(kid_mb=20, own_mb=30))
    kids = [int(p) for p in proc.stdout.readline().split()]
    sampler = ResourceSampler(proc.pid, hz=20).start()
    time.sleep(0.5)
    killed_ns = time.monotonic_ns()
    proc.kill()  # kill -9 mid-sampling
    deadline = time.monotonic() + 5
    while sampler.running and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not sampler.running, "the sampler did not notice the process died"
    series = sampler.stop()
    for pid in kids:  # orphans of the killed app
        os.kill(pid, signal.SIGKILL)

    assert sampler.exited_ns is not None and sampler.exited_ns >= killed_ns
    assert any(f"process {proc.pid} exited" in text for _, text in series.events)
    assert not any("failed" in text for _, text in series.events)
    alive = [s for s in series.samples if s.alive]
    assert len(alive) >= 5 and not series.samples[-1].alive
    assert all(s.procs == 3 for s in alive)
    assert series.peak("rss_bytes") >= 65 * MB
    assert [s.t_ns for s in series.samples] == sorted(s.t_ns for s in series.samples)
    assert sampler.self_cpu_s > 0


def test_sampler_records_a_descendant_leaving(children):
    proc = python(children, TREE.format(kid_mb=1, own_mb=1))
    kids = [int(p) for p in proc.stdout.readline().split()]
    with ResourceSampler(proc.pid, hz=50) as sampler:
        time.sleep(0.1)
        os.kill(kids[0], signal.SIGKILL)
        time.sleep(0.2)
    series = sampler.snapshot()
    assert any(f"left the tree: [{kids[0]}]" in text for _, text in series.events)
    assert series.samples[-1].procs == 2


def test_sampler_sees_a_descendant_born_mid_sampling(children):
    proc = python(children, """
        import subprocess, sys, time
        print("up", flush=True)
        time.sleep(0.3)
        kid = subprocess.Popen([sys.executable, "-c", "import time; b = b'x' * (30 << 20); "
                                "print('ok', flush=True); time.sleep(60)"], stdout=subprocess.PIPE)
        kid.stdout.readline()
        print(kid.pid, flush=True)
        time.sleep(60)
    """)
    assert proc.stdout.readline().strip() == "up"
    with ResourceSampler(proc.pid, hz=20) as sampler:  # the default, cached scan
        kid = int(proc.stdout.readline())
        time.sleep(0.2)
    series = sampler.snapshot()
    assert series.samples[0].procs == 1 and series.samples[-1].procs == 2
    assert kid in process_tree(proc.pid)
    assert series.peak("rss_bytes") >= 30 * MB


@pytest.mark.alone  # a count of samples in a time
def test_sampler_reads_the_cgroup_too(children):
    setup = detect_cgroups()
    if not setup.usable:
        require(False, f"no usable cgroups: {setup.reason}")
    run_id = f"test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    with Cgroup(run_id, "app", Limits(memory_mb=256), setup=setup) as group:
        proc = python(children, "import time; b = b'x' * (40 << 20); print('up', flush=True); "
                                "time.sleep(60)", preexec_fn=group.preexec)
        assert proc.stdout.readline().strip() == "up"
        with ResourceSampler(proc.pid, cgroup=group, hz=20) as sampler:
            time.sleep(0.3)
        series = sampler.snapshot()
        assert len(series.samples) >= 3
        assert series.peak("cgroup_memory_bytes") >= 40 * MB
        assert all(s.cgroup_cpu_s is not None for s in series.samples)
    assert not any((lab / run_id).exists() for lab in setup.lab_dirs())


def test_sampler_of_a_pid_that_is_already_gone_ends_at_once(children):
    proc = python(children, "pass")
    proc.wait()
    with ResourceSampler(proc.pid, hz=20) as sampler:
        deadline = time.monotonic() + 2
        while sampler.running and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not sampler.running  # ended by itself, before being told to stop
    series = sampler.snapshot()
    assert [s.alive for s in series.samples] == [False]  # after its first sample
    assert sampler.exited_ns == series.samples[0].t_ns
