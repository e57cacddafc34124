"""The capacity search with the real open-loop driver (oha) against a stand-in whose capacity is
known: a single-server queue (tests/support/queue_server.py) that keeps up with 1000 / service-ms
requests a second and no more. Each search takes 20-40 s."""

import pytest

from perflab import capacity_search as cs
from perflab.placements.local import PinnedLoad
from perflab.scenarios.capacity import CapacitySettings, searcher
from tests.support.queue_server import QueueServer

# 3 s steps: a few requests of each step meet a new connection on a loaded machine (tens of ms), so the
# objectives stay well above that
QUICK = dict(path="/work", start_rate=20.0, growth=2.0, step_s=3.0, step_warmup_s=0.5, pause_s=1.0, max_connections=64,
             confirm_failures=False)  # confirmation is tested once, below, with the real driver
# oha built once, or the reason it cannot be; alone: a stall of the stand-in beside other work ends a search early
pytestmark = [pytest.mark.usefixtures("oha_binary"), pytest.mark.standin, pytest.mark.alone]


def _search(server: QueueServer, route: str = "/work", **settings) -> cs.Search:
    found, results = searcher(server.url + route, CapacitySettings(**{**QUICK, **settings}),
                              PinnedLoad())
    assert len(results) == len(found.steps)  # every step measured is kept with its driver result
    return found


def test_finds_the_knee_of_a_known_queue_within_the_resolution():
    with QueueServer(service_ms=20) as server:  # keeps up with 50 req/s
        found = _search(server, objective_ms=150.0, resolution_pct=5.0, start_rate=10.0, step_s=4.0,
                        confirm_failures=True)
    assert found.ended_by == cs.APP, found.why
    assert found.resolution <= 0.05
    # the knee lies between the highest passing and the lowest failing rate: 5 % above it the queue
    # grows by 10 requests (200 ms) in a 4 s step; 5 % below it, the loaded machine's jitter is absorbed
    assert found.capacity <= 52.5 and found.ceiling >= 47.5, [(s.measured.offered, s.why) for s in found.steps]
    phases = [s.phase for s in found.steps]
    assert phases[:3] == ["grow"] * 3 and "bisect" in phases
    # every failure was measured again at the same rate before the search believed it
    for i, step in enumerate(found.steps):
        if not step.passed and step.phase in ("grow", "bisect"):
            assert found.steps[i + 1].phase == "confirm"
            assert found.steps[i + 1].measured.offered == step.measured.offered


def test_a_lower_objective_gives_a_lower_capacity():
    # /curve: latency 100 ms / (1 - rate / 100 req/s): p99 <= 1000 ms holds up to ~90 req/s,
    # p99 <= 250 ms up to ~60 req/s
    # each failing step confirmed, as a plan does by default: a starved machine once stalled the
    # stand-in for a second at 40 req/s (p99 1.2 s), which ended the loose search below the tight one
    with QueueServer(service_ms=10) as server:
        loose = _search(server, route="/curve", objective_ms=1000.0, max_connections=256, confirm_failures=True)
        tight = _search(server, route="/curve", objective_ms=250.0, max_connections=256, confirm_failures=True)
    assert tight.ended_by == loose.ended_by == cs.APP, (tight.why, loose.why)
    assert tight.capacity < loose.capacity, (tight.capacity, loose.capacity)
    assert 0.6 * 90 <= loose.capacity <= 90 * 1.05 and 0.6 * 60 <= tight.capacity <= 60 * 1.05


def test_stops_on_errors_when_latency_stays_within_the_objective():
    # a queue that sheds load: above its knee it answers 503 at once, so latency stays near 60 ms
    with QueueServer(service_ms=10, max_queue=5) as server:
        found = _search(server, objective_ms=300.0, resolution_pct=10.0)
    assert found.ended_by == cs.APP and "errors" in found.why, found.why
    assert found.capacity is not None and found.capacity < 110
    assert all(s.measured.errors for s in found.steps if not s.passed)


def test_a_rate_beyond_the_drivers_connections_ends_the_search_as_the_drivers_limit():
    # 4 connections carry at most 4 / 100 ms = 40 req/s at the objective's latency; the app could do 100
    # each failing step confirmed, as a plan does by default: a stall of the stand-in on a busy machine
    # once failed the 40 req/s step (p99 above 100 ms) and ended the search as the app's limit
    with QueueServer(service_ms=10) as server:
        found = _search(server, objective_ms=100.0, max_connections=4, confirm_failures=True)
    assert found.ended_by == cs.DRIVER and "driver's connections" in found.why, found.why
    assert found.capacity == 40 and max(s.measured.offered for s in found.steps) <= 40
