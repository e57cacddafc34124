"""The steps' real durations are stored with the run, and a later run of the same plan and method on
the same machine starts its time-left estimate from them (and from nothing else)."""

from __future__ import annotations

import io

import pytest

from perflab.progress import Progress, Step
from perflab.store import Store, method_hash

PLAN = {"name": "quick", "repeats": 1, "limits": {"cpus": 1}}
ENV = {"cpu_model": "Test CPU", "cpus_online": 2}
METHOD = method_hash(PLAN, ENV)


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "results.sqlite")
    yield s
    s.close()


def _run(store: Store, took: dict[str, float], *, plan: dict = PLAN, status: str = "complete",
         cut_short: str = "") -> str:
    """A run whose planned steps took these seconds, recorded the way the runner records them;
    the step named `cut_short` ends with its app failing."""
    run_id = store.begin_run(plan, ENV)
    clock = Clock()
    steps = [Step(label, 100.0) for label in took]
    progress = Progress(steps, stream=io.StringIO(), live=False, clock=clock,
                        record=lambda step, s: store.add_step(run_id, step.label, step.estimate_s, s))
    for step in steps:
        progress.start(step.label)
        clock.t += took[step.label]
        progress.finish(cut_short=step.label == cut_short)
    store.finish_run(run_id, status)
    return run_id


def test_each_step_s_duration_is_stored_and_the_latest_complete_runs_give_its_median(store):
    _run(store, {"go/native steady": 40.0, "quarkus/jvm steady": 150.0})
    _run(store, {"go/native steady": 50.0, "quarkus/jvm steady": 130.0})
    _run(store, {"go/native steady": 45.0, "quarkus/jvm steady": 170.0})
    earlier = store.step_durations("quick", METHOD)
    assert earlier == {"go/native steady": pytest.approx(45.0), "quarkus/jvm steady": pytest.approx(150.0)}
    # only the latest `runs` count: an older run on a slower day is forgotten
    assert store.step_durations("quick", METHOD, runs=1) == {"go/native steady": pytest.approx(45.0),
                                                                     "quarkus/jvm steady": pytest.approx(170.0)}


def test_interrupted_runs_other_plans_other_methods_and_cut_short_steps_do_not_count(store):
    _run(store, {"go/native steady": 40.0, "quarkus/jvm steady": 150.0}, cut_short="quarkus/jvm steady")
    _run(store, {"go/native steady": 999.0}, status="interrupted")
    _run(store, {"go/native steady": 999.0}, plan={**PLAN, "name": "full"})
    _run(store, {"go/native steady": 999.0}, plan={**PLAN, "limits": {"cpus": 2}})  # another method
    assert store.step_durations("quick", METHOD) == {"go/native steady": pytest.approx(40.0)}


def test_a_store_without_recorded_steps_gives_no_history(store):
    assert store.step_durations("quick", METHOD) == {}
