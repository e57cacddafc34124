"""The driver layer and wrk run for real: a pinned driver's CPU accounting and timeout, wrk against
the stand-in server, and the cargo build of a driver."""

import os
import sys
import time

import pytest

from perflab import procs
from perflab.drivers import base, install, wrk
from tests.support.standin_server import StandinServer

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group

BUSY = "import os,time\nprint(sorted(os.sched_getaffinity(0)))\nend=time.process_time()+{s}\n" \
       "while time.process_time()<end: pass\n"


def test_run_driver_pins_and_accounts_cpu():
    cpu = max(os.sched_getaffinity(0))
    run = base.run_driver([sys.executable, "-c", BUSY.format(s=0.4)], cpus=[cpu], timeout_s=20)
    assert run.returncode == 0 and not run.timed_out
    assert run.stdout.strip() == f"[{cpu}]"  # the child ran pinned
    assert run.cpu_s >= 0.4  # rusage of the reaped child covers its busy loop
    assert run.cpu_count == 1
    assert run.utilisation == pytest.approx(run.cpu_s / run.wall_s)
    assert 0 < run.utilisation <= 1.05  # one CPU cannot give more than its wall time


@pytest.mark.alone  # a bound on the time taken
def test_run_driver_kills_on_timeout():
    started = time.monotonic()
    run = base.run_driver([sys.executable, "-c", "import time; time.sleep(30)"], timeout_s=0.5)
    assert run.timed_out and run.returncode == -9
    assert time.monotonic() - started < 10


def cpu_roles():
    """(server CPUs, driver CPUs): the driver pinned to the last CPU, as the lab pins it; the
    server left free, so a busy CPU 0 (where the lab puts apps) cannot starve it."""
    cpus = sorted(os.sched_getaffinity(0))
    return None, [cpus[-1]]


def test_wrk_get_closed_loop(wrk_binary):
    server_cpus, driver_cpus = cpu_roles()
    with StandinServer(cpus=server_cpus) as server:
        result = wrk.run_wrk(server.url + "/hello", connections=4, threads=2, duration_s=1,
                             warmup_s=1, cpus=driver_cpus, wrk=wrk_binary)
    assert result.mode == "closed" and result.driver == "wrk"
    assert result.requests > 0 and result.rps == pytest.approx(result.requests
                                                               / result.duration_s)
    assert result.errors.total == 0
    assert 0 < result.latency.percentile(50) <= result.latency.percentile(99) \
        <= result.latency.max_ms
    assert result.driver_cpu_s > 0 and result.driver_cpus == driver_cpus
    assert result.warmup_s == 1.0
    assert "PERFLAB-WRK-SUMMARY-BEGIN" in result.raw_output


def test_wrk_spread_sends_each_thread_to_its_own_port(wrk_binary):
    with StandinServer() as first, StandinServer() as second:
        both = wrk.run_wrk_spread(first.url + "/hello", [first.port, second.port], connections_per_port=2,
                                  duration_s=1)
        dead = procs.free_port()
        half = wrk.run_wrk_spread(first.url + "/hello", [first.port, dead], connections_per_port=2, duration_s=1)
    assert both.threads == 2 and both.connections == 4
    assert both.requests > 0 and both.errors.total == 0
    # the thread bound to a port nobody listens on only fails (wrk counts it as socket errors); the
    # other one is served
    assert half.requests > 0 and half.errors.total > 0


def test_wrk_post_data_keys_are_unique_across_warmup_and_run(wrk_binary):
    with StandinServer() as server:
        result = wrk.run_wrk(server.url, connections=4, threads=2, duration_s=1, warmup_s=1,
                             script="post_data", wrk=wrk_binary)
    assert result.method == "POST"
    assert result.requests > 0
    assert result.errors.non_2xx == 0  # a repeated key would answer 409


def test_wrk_get_data_uses_the_key_argument(wrk_binary):
    with StandinServer() as server:
        found = wrk.run_wrk(server.url, connections=2, threads=1, duration_s=1,
                            script="get_data", wrk=wrk_binary)
        missing = wrk.run_wrk(server.url, connections=2, threads=1, duration_s=1,
                              script="get_data", script_args={"key": "NoSuchKey"},
                              wrk=wrk_binary)
    assert found.requests > 0 and found.errors.non_2xx == 0
    assert missing.requests > 0 and missing.errors.non_2xx == missing.requests  # all 404


def test_wrk_counts_non_2xx(wrk_binary):
    with StandinServer() as server:
        result = wrk.run_wrk(server.url + "/status/503", connections=2, threads=1,
                             duration_s=1, wrk=wrk_binary)
    assert result.requests > 0 and result.errors.non_2xx == result.requests


def test_wrk_unreachable_server_is_a_clear_error(wrk_binary):
    with StandinServer() as server:
        url = server.url
    with pytest.raises(RuntimeError, match="unable to connect"):
        wrk.run_wrk(url, connections=1, threads=1, duration_s=1, wrk=wrk_binary)


def test_cargo_build_is_pinned_locked_and_cached(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    calls = tmp_path / "calls"
    fake = tmp_path / "cargo"  # records its arguments and "builds" <root>/bin/tool
    fake.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n'
                    'while [ "$1" != "--root" ]; do shift; done\n'
                    'mkdir -p "$2/bin" && touch "$2/bin/tool"\n')
    fake.chmod(0o755)
    monkeypatch.setattr(install, "find_cargo", lambda: fake)
    said = []
    built = install.ensure_cargo_binary("tool", "1.2.3", log=said.append)
    again = install.ensure_cargo_binary("tool", "1.2.3", log=said.append)
    assert built == again == tmp_path / "cache" / "perflab" / "tool" / "1.2.3" / "bin" / "tool"
    assert calls.read_text().split() == ["install", "tool", "--version", "1.2.3", "--locked",
                                         "--root", str(built.parent.parent)]  # built once
    assert "building tool 1.2.3 with cargo" in said[0]


def test_wrk_intervals_measure_each_second_and_add_up(wrk_binary):
    server_cpus, driver_cpus = cpu_roles()
    with StandinServer(cpus=server_cpus) as server:
        runs = wrk.run_wrk_intervals(server.url, connections=4, threads=2, duration_s=3, interval_s=1, warmup_s=1,
                                     cpus=driver_cpus, script="post_data", wrk=wrk_binary)
    assert len(runs.warmup) == 1 and len(runs.measured) == 3
    assert all(t.start_ns < t.end_ns for t in runs.measured)
    assert runs.measured[0].end_ns <= runs.measured[1].start_ns  # consecutive, in order
    one = runs.merged
    assert one.requests == sum(t.result.requests for t in runs.measured) > 0
    assert one.errors.non_2xx == 0  # keys stay unique across the intervals (a repeat answers 409)
    assert one.warmup_s == 1.0 and one.method == "POST"
    grid = runs.measured[0].result.latency.percentiles_ms
    assert {"1", "50", "99", "99.5", "99.99"} <= set(grid)  # the summary hook's percentile grid
    p50s = [t.result.latency.percentile(50) for t in runs.measured]
    assert min(p50s) <= one.latency.percentile(50) <= max(p50s)
