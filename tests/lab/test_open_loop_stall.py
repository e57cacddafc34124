"""The stall test of the open-loop driver integration: the server is SIGSTOPped for 1 s during a
fixed-rate run, and the reported p99 must show it (a driver that waits for the server instead of
keeping its schedule would report a few slow requests and a small p99: coordinated omission).

At rate R for T seconds a 1 s stall delays the R requests scheduled during it by 1 s down to 0 s,
so the slowest 1/T of all requests spread uniformly over 0..1 s: p99 = 1 - 0.01 T = 0.96 s for
T = 4 s. The test builds oha once with cargo (cached) if it is missing.
"""

import os
import signal
import threading

import pytest

from perflab.drivers import oha_requests, run_oha
from tests.support.standin_server import StandinServer

# stand-ins only; alone: the latencies and the rate are bounded, which work beside it would stretch
pytestmark = [pytest.mark.standin, pytest.mark.alone]

RATE, DURATION_S, STALL_AT_S, STALL_S = 500, 4.0, 1.5, 1.0


def test_one_second_stall_shows_in_p99_and_in_the_timeline(oha_binary, tmp_path):
    # The driver is pinned as the lab pins it; the server is left free so that other work on
    # CPU 0 (where the lab puts apps) cannot starve it and blur the stall.
    driver_cpus = [max(os.sched_getaffinity(0))]
    with StandinServer() as server:
        resumed = threading.Event()

        def stall() -> None:
            os.kill(server.pid, signal.SIGSTOP)
            try:
                resumed.wait(STALL_S)
            finally:
                os.kill(server.pid, signal.SIGCONT)

        timer = threading.Timer(STALL_AT_S, stall)
        timer.start()
        try:
            # 10 connections: far fewer than 1 % of the 2000 requests, so a driver that
            # measured from the actual send time could not push p99 to the stall's length.
            result = run_oha(server.url + "/hello", rate=RATE, duration_s=DURATION_S,
                             connections=10, timeout_s=3, cpus=driver_cpus, oha=oha_binary,
                             requests_db=tmp_path / "requests.db")
        finally:
            timer.cancel()
            resumed.set()
            timer.join()
            os.kill(server.pid, signal.SIGCONT)
    assert result.errors.total == 0
    assert result.achieved_ratio >= 0.8  # the backlog was sent once the server resumed
    p99 = result.latency.percentile(99)
    assert p99 >= 0.5 * STALL_S * 1000, f"p99 {p99:.1f} ms hides a {STALL_S} s stall"
    assert STALL_S * 1000 * 0.8 <= result.latency.max_ms < STALL_S * 1000 * 3
    assert result.latency.percentile(50) < p99

    # the timeline cut from oha's record of every request: the stall is in the intervals around
    # it and not before it, and every response of the run is in exactly one interval
    timeline = oha_requests.intervals(tmp_path / "requests.db", 1.0, result.duration_s)
    assert len(timeline) == 4 and sum(i.requests for i in timeline) == result.requests
    assert timeline[0].latency_max_ms < 0.5 * STALL_S * 1000
    after_stall = timeline[int(STALL_AT_S + STALL_S)]  # completions resume in this interval
    assert after_stall.latency_max_ms >= 0.8 * STALL_S * 1000
    assert timeline[1].requests < 0.8 * RATE  # half of it the server answered nothing
