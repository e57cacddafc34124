"""soak with a real process (a stand-in app, not a framework): intervals stored as they finish,
totals and a drift verdict, the samples as CSV, and an interrupted soak that keeps its finished
intervals. Nothing may be left running."""

from __future__ import annotations

import csv
import io
import os

import pytest

from perflab.drivers import wrk
from perflab.scenarios import drift, soak
from tests.conftest import needs_root, write_standin_app
from tests.lab.scenario_lab import built, cleanup, lab_cgroups, live_standins, make_lab, run_scenario

pytestmark = [needs_root("needs root for cgroups and the DB user"), pytest.mark.standin]

PLAN = """
name = "soak-test"
apps = ["standin"]
verify = false
scenarios = ["soak"]
repeats = 1
[limits]
memory_mb = 256
[startup]
timeout_s = 20
[soak]
duration_s = {duration}
interval_s = 2
path = "/hello"
connections = 2
rate = {rate}
"""


@pytest.fixture
def soak_lab(tmp_path, workdir, database, monkeypatch):
    root = tmp_path / "apps"
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(root))
    write_standin_app(root, "standin", delay=0.1)
    app = built("standin")
    made = []

    def make(duration, rate=0):
        lab = make_lab(PLAN.format(duration=duration, rate=rate), database[1])
        made.append(lab)
        return lab, app

    yield make
    for lab in made:
        cleanup(lab)


def _soak_figures(lab, metric, point):
    return [f for f in lab.store.figures(lab.run_id) if f.scenario == "soak" and f.metric == metric and f.point == point]


def _assert_nothing_left(lab):
    assert live_standins(lab.log_dir) == set()
    assert lab_cgroups(lab.run_id) == []


@pytest.mark.alone  # a count of samples in a time
def test_a_short_soak_stores_its_intervals_totals_and_a_drift_verdict(soak_lab):
    lab, app = soak_lab(6)
    run_scenario(lab, "soak", app, "jvm")

    per_interval = _soak_figures(lab, "requests", "interval")
    assert sorted(f.repeat for f in per_interval) == [0, 1, 2]
    assert all(f.value > 0 for f in per_interval)
    starts = [f.extra["t_start_s"] for f in sorted(per_interval, key=lambda f: f.repeat)]
    assert starts == sorted(starts) and starts[0] >= 0
    for metric in ("rps", "errors", "latency_p99_ms", "rss_mb"):
        assert len(_soak_figures(lab, metric, "interval")) == 3, metric
    [total] = _soak_figures(lab, "requests", "")
    assert total.value == sum(f.value for f in per_interval)
    assert total.extra["intervals"] == 3 and total.extra["planned_intervals"] == 3
    [slope] = _soak_figures(lab, "rss_drift_mb_per_h", "")
    verdict = slope.extra["drift"]["verdict"]
    assert verdict in (drift.STABLE, drift.GROWING, drift.SHRINKING)
    assert f"drift-{verdict}" in slope.flags
    assert slope.extra["drift"]["n"] == 3
    assert not _soak_figures(lab, "gc_collections", ""), "not a JVM mode: no GC figures"
    [outcome] = [o for o in lab.store.outcomes(lab.run_id) if o["scenario"] == "soak"]
    assert outcome["status"] == "ok" and f"RSS {verdict}" in outcome["reason"]
    # RSS over time, stored as CSV
    files = {row["kind"]: row["path"] for row in lab.store.files(lab.run_id) if row["scenario"] == "soak"}
    assert {"samples", "driver-output"} <= set(files)
    rows = list(csv.DictReader(io.StringIO((lab.store.path.parent / files["samples"]).read_text())))
    assert len(rows) > 10 and all(r["rss_bytes"] for r in rows[:5])
    _assert_nothing_left(lab)


def test_an_interrupted_soak_keeps_its_finished_intervals(soak_lab, monkeypatch):
    lab, app = soak_lab(10)
    real = wrk.run_wrk
    calls = []

    def interrupted_on_the_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C during the third interval
        return real(*args, **kwargs)

    monkeypatch.setattr(wrk, "run_wrk", interrupted_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        run_scenario(lab, "soak", app, "jvm")

    assert sorted(f.repeat for f in _soak_figures(lab, "requests", "interval")) == [0, 1]
    [total] = _soak_figures(lab, "requests", "")
    assert "interrupted" in total.flags
    assert total.extra["intervals"] == 2 and total.extra["planned_intervals"] == 5
    [outcome] = [o for o in lab.store.outcomes(lab.run_id) if o["scenario"] == "soak"]
    assert outcome["status"] == "interrupted" and "2 of 5 intervals" in outcome["reason"]
    _assert_nothing_left(lab)


def test_an_app_that_dies_during_the_soak_is_reported_with_what_was_measured(soak_lab, monkeypatch):
    lab, app = soak_lab(10)
    real = wrk.run_wrk
    calls = []

    def kill_after_the_second(url, **kwargs):
        calls.append(1)
        result = real(url, **kwargs)
        if len(calls) == 2:  # the app dies between intervals 2 and 3
            import signal
            from tests.lab.scenario_lab import standin_pids, run_scenario
            for pid in standin_pids(lab.log_dir):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        return result

    monkeypatch.setattr(wrk, "run_wrk", kill_after_the_second)
    run_scenario(lab, "soak", app, "jvm")
    assert sorted(f.repeat for f in _soak_figures(lab, "requests", "interval")) == [0, 1]
    [total] = _soak_figures(lab, "requests", "")
    assert "crashed" in total.flags
    [outcome] = [o for o in lab.store.outcomes(lab.run_id) if o["scenario"] == "soak"]
    assert outcome["status"] == "failed" and "killed by signal 9" in outcome["reason"]
    _assert_nothing_left(lab)


def test_a_fixed_rate_soak_runs_open_loop(soak_lab, oha_binary):  # oha: built once, or why it cannot be
    lab, app = soak_lab(4, rate=20)
    run_scenario(lab, "soak", app, "jvm")
    offered = _soak_figures(lab, "offered_rate", "interval")
    assert [f.value for f in offered] == [20.0, 20.0]
    assert all("open loop" in f.extra["driver"] for f in offered)
    requests = _soak_figures(lab, "requests", "interval")
    assert len(requests) == 2 and all(f.value > 0 for f in requests)
    _assert_nothing_left(lab)
