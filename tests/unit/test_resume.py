"""Resuming a run, without processes: what is refused and why, what a resumed run removes before it
goes on, and which launch rounds it keeps."""

from __future__ import annotations

import functools
import io
import os
import time
from pathlib import Path

import pytest

from perflab import plan, registry, resume, runner, schedule, target_run
from perflab.apps.building import source_hash
from perflab.errors import LabError
from perflab.lab import Lab
from perflab.progress import Progress
from perflab.runlock import RunLock
from perflab.store import Store
from tests.conftest import write_standin_app

PLAN = {"name": "resume-unit", "apps": ["alpha"], "scenarios": ["startup"], "verify": False}
ENV = {"cpu_model": "test cpu", "cpus_online": 2}


@pytest.fixture
def store(workdir, tmp_path, monkeypatch):
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(tmp_path / "apps"))
    write_standin_app(tmp_path / "apps", "alpha")
    st = Store()
    yield st
    st.close()


def _interrupted(st: Store, env: dict = ENV) -> str:
    data = plan.validate(PLAN, "test").data
    run_id = st.begin_run(data, env)
    st.add_step(run_id, "alpha/jvm startup", 10.0, 9.0)
    st.finish_run(run_id, "interrupted")
    return run_id


def test_a_complete_or_unknown_run_is_refused(store):
    run_id = _interrupted(store)
    store.finish_run(run_id, "complete")
    with pytest.raises(LabError, match="is complete: nothing to resume"):
        resume.load(store, run_id)
    with pytest.raises(LabError, match="no run 'nope'"):
        resume.load(store, "nope")


def test_a_run_whose_steps_have_no_end_time_is_refused(store):
    run_id = _interrupted(store)
    store.db.execute("UPDATE steps SET finished_at=NULL WHERE run_id=?", (run_id,))
    with pytest.raises(LabError, match="older perflab"):
        resume.load(store, run_id)


def test_a_changed_method_is_refused_and_an_unchanged_one_reopens_the_run(store):
    run_id = _interrupted(store)
    resumed = resume.load(store, run_id)
    targets = runner.select_targets(resumed.plan)
    with pytest.raises(LabError, match="method changed"):
        resume.check_method(resumed, resumed.plan, {**ENV, "cpus_online": 4})
    resume.check_method(resumed, resumed.plan, dict(ENV))
    said = []
    assert resume.reopen(store, resumed, targets, functools.partial(schedule.planned_parts, resumed.plan),
                         said.append) == run_id
    assert store.run(run_id)["status"] == "running" and "1 finished step(s) kept" in said[0]


def test_changed_sources_are_refused_before_any_build(store, tmp_path):
    run_id = _interrupted(store)
    resumed = resume.load(store, run_id)
    targets = runner.select_targets(resumed.plan)
    with pytest.raises(LabError, match="did not record its apps' sources"):
        resume.check_sources(resumed, targets)
    resumed.environment["sources"] = {"alpha": source_hash(targets[0].app)}
    resume.check_sources(resumed, targets)  # unchanged: goes on
    (tmp_path / "apps" / "alpha" / "src" / "version.txt").write_text("2\n")
    with pytest.raises(LabError, match="sources of alpha changed"):
        resume.check_sources(resumed, targets)


def test_what_the_interrupted_step_stored_goes_and_what_finished_steps_stored_stays(store):
    run_id = _interrupted(store)
    store.add_figure(run_id, "alpha", "jvm", "startup", "ready_ms", 100.0, "ms")
    cutoff = time.time()
    time.sleep(0.01)
    store.add_figure(run_id, "alpha", "jvm", "steady", "rps", 5.0, "req/s", repeat=2)  # the step in flight
    store.add_figure(run_id, "beta", "jvm", "sweep", "rps", 7.0, "req/s")  # an app/mode that failed
    store.add_outcome(run_id, "alpha", "jvm", "aot", "skipped", "does not apply")
    gone = store.forget(run_id, after=cutoff, parts=[("beta", "jvm", "sweep")], outcome_statuses=["skipped"])
    assert gone == 2
    assert [(f.scenario, f.metric) for f in store.figures(run_id)] == [("startup", "ready_ms")]
    assert store.outcomes(run_id) == []


def test_the_files_of_the_interrupted_step_and_of_parts_run_again_go_on_disk_and_in_the_table(store):
    run_id = _interrupted(store)
    kept = store.add_file(run_id, "alpha", "jvm", "startup", "driver-output", "point.txt", "finished")
    again = store.add_file(run_id, "beta", "jvm", "sweep", "driver-output", "step1.json", "{}")
    cutoff = time.time()
    time.sleep(0.01)
    late = store.add_file(run_id, "alpha", "jvm", "steady", "driver-output", "r2.txt", "in flight")
    store.forget(run_id, after=cutoff, parts=[("beta", "jvm", "sweep")])
    assert kept.exists() and not again.exists() and not late.exists()
    assert [Path(r["path"]).name for r in store.files(run_id)] == ["point.txt"]
    # the part measured again writes its file under the same name: listed once, not twice
    store.add_file(run_id, "beta", "jvm", "sweep", "driver-output", "step1.json", "{}")
    assert sorted(Path(r["path"]).name for r in store.files(run_id)) == ["point.txt", "step1.json"]


def test_a_run_going_on_in_another_process_cannot_be_resumed_until_it_ends(store):
    run_id = _interrupted(store)
    folder = store.run_dir(run_id)
    with RunLock(folder, run_id):
        # flock locks belong to an open file: a second open, as a second process makes, is refused
        with pytest.raises(LabError, match=f"run {run_id} is running now \\(process {os.getpid()}\\)") as refused:
            RunLock(folder, run_id).acquire()
        assert f"./perflab run --resume {run_id}" in refused.value.fix
    RunLock(folder, run_id).acquire().release()  # once it ended, the run can go on


def test_only_the_launches_of_rounds_that_ended_are_kept():
    record = {"launches": [{"round": 1, "label": "a/jvm"}, {"round": 2, "label": "a/jvm"},
                           {"round": 3, "label": "a/jvm"}]}
    assert [e["round"] for e in resume.kept_launches(record, {"round 1", "round 2"})] == [1, 2]
    assert resume.kept_launches(None, {"round 1"}) == []


def test_a_resumed_run_uses_the_aot_cache_it_trained_and_trains_again_only_when_it_is_gone(store, tmp_path):
    descriptor = tmp_path / "apps" / "alpha" / "perflab.toml"
    jvm_command = descriptor.read_text().split("[modes.jvm]\n", 1)[1].splitlines()[0]
    descriptor.write_text(descriptor.read_text() + f'\n[modes.aot]\n{jvm_command}\naot = "train"\n')
    the_plan = plan.validate({**PLAN, "modes": ["aot"]}, "test")
    [target] = runner.select_targets(the_plan)
    aot = registry.get("aot")
    run_id = store.begin_run(the_plan.data, ENV)
    progress = Progress(schedule.target_steps(the_plan, target), stream=io.StringIO(), live=False)
    lab = Lab(store, run_id, the_plan, None, None, None, None, progress, tmp_path / "logs",
              done_steps={"alpha/aot aot"})
    state = target_run.TargetState(verified=True, plan=the_plan)
    store.add_figure(run_id, "alpha", "aot", "aot", "aot_cache_mb", 12.0, "MB")
    # the cache it trained is gone: trained again, the earlier figures of that training removed first
    assert target_run.prepared_before(lab, target, aot, state) is False
    assert store.figures(run_id) == [] and progress.done == 0
    # the cache is there: the launches to come use it, and nothing is measured again
    store.add_figure(run_id, "alpha", "aot", "aot", "aot_cache_mb", 12.0, "MB")
    cache = store.run_dir(run_id) / "aot" / "alpha-aot.aot"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(b"trained")
    assert target_run.prepared_before(lab, target, aot, state) is True
    assert lab.mode_opts[("alpha", "aot")] == [f"-XX:AOTCache={cache}", "-XX:AOTMode=on"]
    assert len(store.figures(run_id)) == 1 and progress.done == 1


def test_a_sweep_or_capacity_that_ended_before_gives_its_result_again_from_its_figures(store, tmp_path):
    from perflab.scenario import Context

    the_plan = plan.validate(PLAN, "test")
    run_id = store.begin_run(the_plan.data, ENV)
    lab = Lab(store, run_id, the_plan, None, None, None, None, None, tmp_path / "logs")
    [target] = runner.select_targets(the_plan)

    def fig(scenario, metric, value, label, path, flags=()):
        store.add_figure(run_id, "alpha", "jvm", scenario, metric, value, "req/s", point=label,
                         params={"path": path}, flags=flags)

    for value in (100.0, 120.0, 110.0):  # three repeats at c=8: median 110
        fig("sweep", "rps", value, "hello c=8", "/hello")
    fig("sweep", "rps", 500.0, "hello c=32", "/hello", flags=["driver-bound"])  # left out, as the sweep does
    fig("sweep", "rps", 90.0, "data c=8", "/data")
    fig("sweep", "latency_p99_ms", 900.0, "hello c=8", "/hello")
    fig("capacity", "capacity_rps", 95.0, "p99<=25ms", "/hello")
    ctx = lambda name: Context(lab, registry.get(name), target.app, "jvm", the_plan.settings(name))  # noqa: E731
    best = registry.get("sweep").reuse(ctx("sweep"))
    assert {path: (m.rps, m.source) for path, m in best.items()} == {
        "/hello": (110.0, "sweep hello c=8"), "/data": (90.0, "sweep data c=8")}
    assert registry.get("capacity").reuse(ctx("capacity")) == {"/hello": 95.0}
