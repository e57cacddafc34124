"""The devloop scenario end to end on real parts: the Go reference's stop-rebuild-restart loop on
a working copy against the test run's PostgreSQL (seconds), Spring Boot DevTools and a stream app
on a real broker (slow); every edit of a round, the new endpoint included."""

from __future__ import annotations

import pytest

from perflab import apps
from perflab.devloop import workcopy
from perflab.present.published import devloop_claims as claims
from perflab.results import load as load_run

from .scenario_lab import make_lab, run_scenario
from tests.conftest import needs_tool

PLAN = """
name = "devloop-test"
apps = ["go-reference"]
scenarios = ["devloop"]
[devloop]
repeats = 1
timeout_s = 240
"""


def _tracked_text(app: apps.App) -> dict[str, str]:
    return {str(p): p.read_text() for p in (app.dir / "src").rglob("*.java")} if (app.dir / "src").exists() else {
        str(p): p.read_text() for p in app.dir.glob("*.go")}


def _run(database, name: str, more: str = ""):
    _, conn = database
    lab = make_lab(PLAN.replace('"go-reference"', f'"{name}"') + more, conn)
    app = apps.get(name)
    before = _tracked_text(app)
    run_scenario(lab, "devloop", app, next(iter(app.modes)))
    assert _tracked_text(app) == before
    assert not any(workcopy.copies_dir().glob("*"))
    return lab, load_run(lab.store, lab.run_id)


def _one(view, loop: str, edit: str, metric: str):
    found = [c for c in view.find("devloop", metric) if (c.params.get("loop"), c.params.get("edit")) == (loop, edit)]
    assert len(found) == 1, f"{loop} {edit} {metric}: {found}"
    return found[0]


@needs_tool("go", "needs Go")
def test_go_rebuild_restart_round_trip_shows_the_change_and_the_broken_build(database, workdir):
    lab, view = _run(database, "go-reference", "streams = false\n")
    assert _one(view, "rebuild-restart", "hello", "round_trip_s").summary.median > 0
    assert _one(view, "rebuild-restart", "hello", "steps").summary.median == 5   # change, save, stop, rebuild, restart
    broken = _one(view, "rebuild-restart", "broken", "error_visible_s")
    assert "not-visible" not in broken.flags
    assert _one(view, "rebuild-restart", "broken", "error_line").summary.median >= 1
    assert _one(view, "rebuild-restart", "fix", "round_trip_s").summary.median > 0
    assert "not-visible" not in _one(view, "rebuild-restart", "fruits", "round_trip_s").flags  # /fruits reordered
    assert "not-visible" not in _one(view, "rebuild-restart", "endpoint", "round_trip_s").flags  # a new route
    assert _one(view, "rebuild-restart", "endpoint", "visible").summary.median == 1
    assert _one(view, "rebuild-restart", "hello", "state_kept").summary.median == 0  # a new process
    assert not [o for o in view.outcomes if o["status"] != "ok"]


@pytest.mark.slow
def test_spring_devtools_shows_a_change_after_the_compile_alone(database, workdir):
    # the broken edit is the Go test's (it reads the same step output); here: the DevTools loop itself
    lab, view = _run(database, "spring-boot", "restart_too = false\nstreams = false\nbroken = false\n")
    assert _one(view, "devtools", "hello", "steps").summary.median == 3          # change, save, compile
    assert _one(view, "devtools", "hello", "round_trip_s").summary.median > 0
    assert _one(view, "devtools", "hello", "app_restarts").summary.median >= 1  # in the same process
    assert "not-visible" not in _one(view, "devtools", "fruits", "round_trip_s").flags
    assert "not-visible" not in _one(view, "devtools", "endpoint", "round_trip_s").flags  # a new controller
    assert _one(view, "devtools", "hello", "state_kept").summary.median == 0  # restarted inside its JVM
    more = next(v for v in claims.verdicts(view) if v.claim.id == "4.1.1 Framework A")
    assert more.verdict == "held" and "3 (devtools)" in more.why      # a compile more than Quarkus's 2
    assert _verdict_of(view, "4.1.1 Framework A steps") == "did not hold"  # no stop, rebuild, restart


@pytest.mark.slow
def test_a_stream_app_shows_a_changed_transformation_without_a_broker_restart(database, workdir):
    from perflab.registry import get
    from perflab.scenario import Context
    from perflab.scenarios import devloop

    _, conn = database
    # patience well past Kafka's 45 s consumer session timeout: on a loaded machine a rebalance after
    # DevTools' restart can outlast the default 60 s, and this test is about the loop, not that wait
    lab = make_lab(PLAN.replace('"go-reference"', '"spring-boot"') + "restart_too = false\nbroker_restart_after_s = 150\n",
                   conn)
    app = apps.get("spring-boot")
    stream = apps.get("stream-spring")
    apps.build(stream, log=lambda m: None)
    before = _tracked_text(stream)
    devloop._stream(Context(lab, get("devloop"), app, "jvm", lab.plan.settings("devloop")), stream)
    assert _tracked_text(stream) == before
    assert not any(workcopy.copies_dir().glob("*"))
    assert not any((workcopy.copies_dir().parent / "kafka").glob("broker-*"))  # the broker's data is gone
    view = load_run(lab.store, lab.run_id)
    assert [o for o in view.outcomes if o["status"] != "ok"] == []
    assert _one(view, "devtools", "hello", "round_trip_s").summary.median > 0
    trip = _one(view, "devtools", "hello", "round_trip_s")
    assert [c.summary.median for c in view.find("devloop", "broker_restarts")] == [0], (trip.summary.median, trip.flags)
    assert _verdict_of(view, "4.1.2 Framework A") == "did not hold"


def _verdict_of(view, claim_id: str) -> str:
    return next(v.verdict for v in claims.verdicts(view) if v.claim.id == claim_id)
