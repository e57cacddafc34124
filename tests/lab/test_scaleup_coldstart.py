"""scaleup and coldstart with real processes (stand-in apps, not frameworks): readiness per
launch with the cold one apart, an app that cannot start, the paired difference against a
reference that starts sooner, and a missing reference."""

from __future__ import annotations

import pytest

from perflab.errors import AppFailed
from perflab.scenarios import coldstart, scaleup
from tests.conftest import needs_root, write_standin_app
from tests.lab.scenario_lab import built, cleanup, lab_cgroups, live_standins, make_lab, run_scenario

pytestmark = [needs_root("needs root for cgroups and the DB user"), pytest.mark.standin]

PLAN = """
name = "start-test"
apps = ["standin"]
verify = false
scenarios = ["scaleup", "coldstart"]
repeats = 1
[limits]
memory_mb = 256
[startup]
timeout_s = 20
[scaleup]
runs = 3
timeout_s = 20
[coldstart]
reference = "{reference}"
runs = 3
"""

DELAY_S = 1.5  # the stand-in app waits this long before it listens; the reference does not wait


@pytest.fixture
def lab_for(tmp_path, workdir, database, monkeypatch):
    root = tmp_path / "apps"
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(root))
    made = []

    def make(reference="ref", build_reference=True, **standin):
        write_standin_app(root, "standin", **{"delay": DELAY_S, **standin})
        write_standin_app(root, "ref", delay=0.0)
        if build_reference:
            built("ref")
        lab = make_lab(PLAN.format(reference=reference), database[1])
        made.append(lab)
        return lab, built("standin")

    yield make
    for lab in made:
        cleanup(lab)


def _figures(lab, scenario, metric):
    return sorted((f for f in lab.store.figures(lab.run_id) if f.scenario == scenario and f.metric == metric),
                  key=lambda f: f.repeat)


def _outcome(lab, scenario):
    [found] = [o for o in lab.store.outcomes(lab.run_id) if o["scenario"] == scenario]
    return found


def _assert_nothing_left(lab):
    assert live_standins(lab.log_dir) == set()
    assert lab_cgroups(lab.run_id) == []


def test_scaleup_times_each_launch_to_readiness_with_the_cold_one_apart(lab_for):
    lab, app = lab_for()
    run_scenario(lab, "scaleup", app, "jvm")
    ready = _figures(lab, "scaleup", "ready_ms")
    assert [(f.repeat, f.point) for f in ready] == [(0, "cold"), (1, "warm"), (2, "warm")]
    assert all(f.value >= DELAY_S * 1000 for f in ready), "ready only after the app listens"  # a floor: holds when busy
    assert all(f.extra["resolution_ms"] == lab.plan.settings("scaleup").poll_ms for f in ready)
    assert _outcome(lab, "scaleup")["status"] == "ok"
    _assert_nothing_left(lab)


def test_scaleup_of_an_app_that_cannot_start_fails_the_app(lab_for):
    lab, app = lab_for(exit_code=3)
    with pytest.raises(AppFailed, match="exited with code 3"):
        run_scenario(lab, "scaleup", app, "jvm")
    assert _figures(lab, "scaleup", "ready_ms") == []
    _assert_nothing_left(lab)


def test_coldstart_pairs_the_app_with_the_reference(lab_for):
    lab, app = lab_for()
    run_scenario(lab, "coldstart", app, "jvm")
    mine = _figures(lab, "coldstart", "ttfr_ms")
    theirs = _figures(lab, "coldstart", "reference_ttfr_ms")
    diffs = _figures(lab, "coldstart", "ttfr_minus_reference_ms")
    assert [f.repeat for f in diffs] == [0, 1, 2]
    for a, r, d in zip(mine, theirs, diffs):
        assert d.value == pytest.approx(a.value - r.value)
        assert d.extra["reference"] == "ref/jvm"
    # the app waits DELAY_S before it listens, the reference does not: most of that shows (relative to
    # the reference's own start, measured in the same launch, so a busy machine slows both sides)
    assert all(d.value > DELAY_S * 1000 * 0.5 for d in diffs)
    assert _outcome(lab, "coldstart")["status"] == "ok"
    # interleaved in pairs
    logs = sorted(lab.log_dir.glob("*.log"), key=lambda p: p.stat().st_mtime)
    order = ["ref" if p.name.startswith("ref-") else "app" for p in logs]
    assert order == ["app", "ref", "ref", "app", "app", "ref"]  # alternating order inside pairs
    _assert_nothing_left(lab)


def test_coldstart_without_its_reference_says_unavailable(lab_for):
    lab, app = lab_for(reference="no-such-app")
    run_scenario(lab, "coldstart", app, "jvm")
    outcome = _outcome(lab, "coldstart")
    assert outcome["status"] == "unavailable" and "no-such-app" in outcome["reason"]
    assert _figures(lab, "coldstart", "ttfr_ms") == []


def test_coldstart_with_an_unbuilt_reference_says_unavailable(lab_for):
    lab, app = lab_for(build_reference=False)
    run_scenario(lab, "coldstart", app, "jvm")
    outcome = _outcome(lab, "coldstart")
    assert outcome["status"] == "unavailable" and "not built" in outcome["reason"]
    assert live_standins(lab.log_dir) == set()
