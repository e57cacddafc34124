"""The open-loop driver (oha) against the stand-in server: a rate held, a shortfall flagged
driver-bound, closed loop and non-2xx answers (oha is built once with cargo if missing)."""

import json

import pytest

from perflab.drivers import oha
from perflab.drivers.base import LoadResult
from tests.lab.test_drivers import cpu_roles
from tests.support.standin_server import StandinServer

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group


@pytest.mark.alone  # the rate achieved is bounded below
def test_open_loop_run_holds_the_rate(oha_binary):
    server_cpus, driver_cpus = cpu_roles()
    with StandinServer(cpus=server_cpus) as server:
        result = oha.run_oha(server.url + "/hello", rate=200, duration_s=2, connections=20,
                             warmup_s=0.5, cpus=driver_cpus, oha=oha_binary)
    assert result.mode == "open" and result.offered_rate == 200
    assert result.driver == "oha" and result.driver_version == oha.OHA_VERSION
    assert 0.9 <= result.achieved_ratio <= 1.05
    assert result.requests == result.errors.status_counts.get("200")
    assert result.errors.total == 0
    assert result.driver_cpus == driver_cpus and result.driver_cpu_s > 0
    assert result.threads == 1  # oha sized its thread pool to its one CPU
    assert LoadResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


def test_rate_shortfall_is_flagged_driver_bound(oha_binary):
    # 2 connections and 200 ms per answer allow 10 req/s: 50 req/s cannot be held.
    with StandinServer() as server:
        result = oha.run_oha(server.url + "/delay/200", rate=50, duration_s=1.5, connections=2,
                             oha=oha_binary)
    assert result.driver_bound
    assert "offered 50.0 req/s" in result.driver_bound_reason
    assert result.achieved_ratio < 0.97  # a ceiling a busy machine only lowers the rate under


def test_closed_loop_and_non_2xx(oha_binary):
    with StandinServer() as server:
        result = oha.run_oha(server.url + "/status/404", rate=None, duration_s=1,
                             connections=4, oha=oha_binary)
    assert result.mode == "closed" and result.offered_rate is None
    assert result.requests > 0 and result.errors.non_2xx == result.requests
