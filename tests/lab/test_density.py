"""density with real processes (stand-in apps, not frameworks): several instances in one budget,
an instance killed with SIGKILL during the ramp is reported and the scenario goes on, an OOM kill
under the budget stops the ramp, and nothing is left behind."""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import pytest

from perflab import probes
from perflab.scenarios import density
from perflab.scenarios.sweep import MaxThroughput
from tests.conftest import needs_root, require, write_standin_app
from tests.lab.scenario_lab import built, cleanup, lab_cgroups, live_standins, make_lab, run_scenario

pytestmark = [needs_root("needs root for cgroups and the DB user"), pytest.mark.standin]

PLAN = """
name = "density-test"
apps = ["standin"]
verify = false
scenarios = ["density"]
repeats = 1
[limits]
memory_mb = 256
[startup]
timeout_s = 20
[sweep]
series = [{{ name = "hello", path = "/hello", connections = [2] }}]
[density]
budget_mb = {budget}
max_instances = {max_instances}
load_duration_s = 1
warmup_s = {warmup}
load_path = "/hello"
connections_per_instance = 2
probe_connections = 2
rest_s = 0.6
"""


@pytest.fixture
def standin_apps(tmp_path, workdir, monkeypatch):
    root = tmp_path / "apps"
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(root))
    return root


@pytest.fixture
def lab_factory(database):
    _, conn = database
    made = []

    def make(**values):
        lab = make_lab(PLAN.format(**{"warmup": 0, **values}), conn)
        made.append(lab)
        return lab

    yield make
    for lab in made:
        cleanup(lab)


def _figures(lab, metric, point=None):
    return [f for f in lab.store.figures(lab.run_id)
            if f.scenario == "density" and f.metric == metric and (point is None or f.point == point)]


def _outcomes(lab, status=None):
    return [o for o in lab.store.outcomes(lab.run_id) if status is None or o["status"] == status]


def _instance_pid(lab, index: int) -> int:
    found = re.search(r"app starting, pid (\d+)", (lab.log_dir / f"standin-jvm-density{index}.log").read_text())
    return int(found.group(1))


def _kill_and_wait(pid: int) -> None:
    """SIGKILL, then wait until the process is dead (a zombie or gone), as the lab would see it."""
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30  # a busy machine may take seconds to deliver it
    while time.monotonic() < deadline:
        stat = probes.read_stat(pid)
        if (stat is None and not os.path.exists(f"/proc/{pid}")) or (stat is not None and stat.gone):
            return
        time.sleep(0.01)
    raise AssertionError(f"pid {pid} still ran 30 s after SIGKILL")


def _assert_nothing_left(lab):
    assert live_standins(lab.log_dir) == set()
    assert lab_cgroups(lab.run_id) == []


def test_several_instances_fit_and_are_loaded_together(standin_apps, lab_factory):
    write_standin_app(standin_apps, "standin", delay=0.1)
    app = built("standin")
    lab = lab_factory(budget=512, max_instances=3)
    run_scenario(lab, "density", app, "jvm")

    [count] = _figures(lab, "instances")
    assert count.value == 3, count.extra
    assert count.extra["stop"] == density.STOP_MAX
    assert "lower-bound" in count.flags  # max_instances, not the budget, ended the ramp
    per_instance = _figures(lab, "instance_rss_mb", "rest")
    assert sorted(f.repeat for f in per_instance) == [1, 2, 3]
    assert all(f.value > 0 for f in per_instance)
    [total] = _figures(lab, "total_rss_mb", "rest")
    assert total.value == pytest.approx(sum(f.value for f in per_instance))
    assert not _figures(lab, "rss_10_instances_mb"), "only 3 instances: no 10-instance figure"
    # the aggregate load ran on all 3 at once, and the projection is 3 x one instance's max
    [aggregate] = _figures(lab, "aggregate_rps", "load")
    assert aggregate.value > 0 and aggregate.extra["instances_loaded"] == 3
    assert aggregate.extra["threads"] == 3 and aggregate.extra["connections"] == 6
    [single] = _figures(lab, "single_instance_max_rps")
    [projected] = _figures(lab, "projected_rps")
    assert projected.value == pytest.approx(3 * single.value)
    assert single.extra["source"].startswith("closed-loop probe"), "no sweep figure here: measured alone"
    [ok] = _outcomes(lab, "ok")
    assert "3 instance(s)" in ok["reason"]
    # every instance had its own port
    ports = {f.extra["port"] for f in per_instance}
    assert len(ports) == 3
    _assert_nothing_left(lab)


def test_an_instance_killed_during_the_ramp_is_reported_and_the_rest_goes_on(standin_apps, lab_factory):
    write_standin_app(standin_apps, "standin", delay=0.8)
    app = built("standin")
    lab = lab_factory(budget=512, max_instances=4)
    # the sweep measured one instance's max already: the projection must use it, not probe again
    swept = {"sweep": {"/hello": MaxThroughput(1234.0, "sweep hello c=2")}}

    def killer():
        # instance 3 starting means the lab judged instance 2 ready: now kill instance 2
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if (lab.log_dir / "standin-jvm-density3.log").exists():
                _kill_and_wait(_instance_pid(lab, 2))
                return
            time.sleep(0.02)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    run_scenario(lab, "density", app, "jvm", results=swept)
    thread.join(5)

    lost = _outcomes(lab, "instance-lost")
    assert len(lost) == 1 and "instance 2" in lost[0]["reason"] and "killed by signal 9" in lost[0]["reason"]
    [count] = _figures(lab, "instances")
    assert count.value == 3, "4 launched, 1 lost: 3 stayed up"
    assert [f.value for f in _figures(lab, "instances_lost")] == [1]
    assert sorted(f.repeat for f in _figures(lab, "instance_rss_mb", "rest")) == [1, 3, 4]
    [aggregate] = _figures(lab, "aggregate_rps", "load")
    assert aggregate.extra["instances_loaded"] == 3
    [projected] = _figures(lab, "projected_rps")
    assert projected.value == pytest.approx(3 * 1234.0)
    assert projected.extra["single_source"] == "sweep hello c=2"
    assert _outcomes(lab, "ok"), "the scenario finished despite the loss"
    _assert_nothing_left(lab)


def test_an_oom_kill_in_the_budget_stops_the_ramp(standin_apps, lab_factory, database):
    from perflab import isolate

    setup = isolate.detect_cgroups()
    if not setup.usable:
        require(False, f"no cgroup memory limits here: {setup.reason}")
    # each instance holds ~80 MB of touched memory (+ its interpreter): two fit in 240 MB, three do not
    write_standin_app(standin_apps, "standin", delay=0.1, alloc_mb=80)
    app = built("standin")
    lab = lab_factory(budget=240, max_instances=6)
    swept = {"sweep": {"/hello": MaxThroughput(100.0, "sweep hello c=2")}}
    run_scenario(lab, "density", app, "jvm", results=swept)

    [count] = _figures(lab, "instances")
    assert count.extra["stop"] == density.STOP_OOM, count.extra
    assert count.value == 2
    assert "OOM" in count.extra["stop_reason"]
    assert "lower-bound" not in count.flags
    _assert_nothing_left(lab)


def test_ctrl_c_during_the_aggregate_load_stops_every_instance_and_the_group(standin_apps, lab_factory, monkeypatch):
    from perflab.drivers import wrk

    write_standin_app(standin_apps, "standin", delay=0.1)
    app = built("standin")
    lab = lab_factory(budget=512, max_instances=2)
    swept = {"sweep": {"/hello": MaxThroughput(100.0, "sweep hello c=2")}}

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(wrk, "run_wrk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_scenario(lab, "density", app, "jvm", results=swept)
    [count] = _figures(lab, "instances")  # what the ramp measured is kept
    assert count.value == 2
    assert len(_figures(lab, "instance_rss_mb", "rest")) == 2
    _assert_nothing_left(lab)


def test_an_instance_lost_in_the_warm_up_is_left_out_of_the_measured_aggregate(standin_apps, lab_factory,
                                                                                 monkeypatch):
    from perflab.drivers import wrk

    write_standin_app(standin_apps, "standin", delay=0.1)
    app = built("standin")
    lab = lab_factory(budget=512, max_instances=3, warmup=1)
    swept = {"sweep": {"/hello": MaxThroughput(100.0, "sweep hello c=2")}}
    real, calls = wrk.run_wrk, []

    def warm_up_then_kill_instance_2(*args, **kwargs):
        calls.append(kwargs["threads"])
        result = real(*args, **kwargs)
        if len(calls) == 1:
            _kill_and_wait(_instance_pid(lab, 2))
        return result

    monkeypatch.setattr(wrk, "run_wrk", warm_up_then_kill_instance_2)
    run_scenario(lab, "density", app, "jvm", results=swept)
    assert calls == [3, 2], "warm-up on 3 instances, the measured run on the 2 left"
    [aggregate] = _figures(lab, "aggregate_rps", "load")
    assert aggregate.extra["instances_loaded"] == 2 and aggregate.extra["lost_during_load"] == [2]
    assert "instance-lost" in aggregate.flags
    [lost] = _outcomes(lab, "instance-lost")
    assert "instance 2" in lost["reason"] and "warm-up" in lost["reason"]
    _assert_nothing_left(lab)
