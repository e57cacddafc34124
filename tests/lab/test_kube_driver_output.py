"""The real oha's output (run here against the stand-in server, with the arguments the driver pod's
oha gets) turned into a load's result by the code that reads the driver pod's output
(perflab.kube.cluster_load)."""

from __future__ import annotations

import subprocess

import pytest

from perflab.kube.cluster_load import Load, oha_args, oha_result
from tests.support.standin_server import StandinServer

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group


def _output(binary, url: str, load: Load) -> str:
    """What an exec of oha in the driver pod returns: its standard output."""
    done = subprocess.run([str(binary), *oha_args(url, load)], stdout=subprocess.PIPE, text=True,
                          timeout=load.duration_s + 30)
    assert done.returncode == 0, done.stdout
    return done.stdout


def test_a_real_closed_loop_report_becomes_a_load_result(oha_binary):
    load = Load("/hello", 4, 1.0)
    with StandinServer() as server:
        url = server.url + load.path
        output = _output(oha_binary, url, load)
    result = oha_result(output, url, load, warmup_s=2.0)
    assert result.requests > 0 and result.requests == result.errors.status_counts["200"]
    assert result.errors.total == 0 and not result.driver_bound
    assert result.rps == pytest.approx(result.requests / result.duration_s)
    ordered = [result.latency.percentile(p) for p in ("50", "90", "99", "99.9")] + [result.latency.max_ms]
    assert ordered == sorted(ordered) and ordered[0] > 0
    assert result.mode == "closed" and result.offered_rate is None and result.connections == 4
    assert result.warmup_s == 2.0 and result.url == url and result.raw_output == output
    # whatever precedes the report in the output (a warning) does not hide it
    assert oha_result("a warning\n" + output, url, load).requests == result.requests


def test_a_real_open_loop_report_keeps_its_offered_rate_and_a_rate_not_held_is_driver_bound(oha_binary):
    held = Load("/hello", 10, 1.0, rate=50)
    # 2 connections to an answer that takes 200 ms carry 10 req/s at most: 50 req/s cannot be held
    short = Load("/delay/200", 2, 1.5, rate=50)
    with StandinServer() as server:
        results = [oha_result(_output(oha_binary, server.url + x.path, x), server.url + x.path, x) for x in (held, short)]
    assert results[0].offered_rate == 50 and results[0].errors.total == 0 and not results[0].driver_bound
    assert "--latency-correction" in results[0].command
    assert results[1].driver_bound and results[1].driver_bound_reason
