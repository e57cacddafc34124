"""How a run ends: a run in which every app/mode failed ends `failed` (the CLI exits 1), not
`complete`; a run where any app/mode came through, even with partial results, stays complete and
keeps every figure."""

from __future__ import annotations

import pytest

from perflab import apps, runner
from perflab.targets import Target
from perflab.store import Store

PLAN = {"name": "quick", "scenarios": ["startup", "steady"]}


class _Progress:
    def close(self) -> None:
        pass


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    yield s
    s.close()


def _targets(unavailable: str = "") -> list[Target]:
    return [Target(apps.get("quarkus"), "jvm"), Target(apps.get("spring-boot"), "jvm", unavailable=unavailable)]


def _run(store: Store, targets: list[Target], failing: list[str]) -> str:
    """A run driven through the runner's guard, whose measuring records each failing app/mode as the
    runner does (a "run" outcome with the reason) and a figure of each that measured before it failed."""
    run = store.begin_run(PLAN, {})

    def measure() -> None:
        for t in targets:
            if t.unavailable:
                continue
            store.add_figure(run, t.app.name, t.mode, "startup", "ttfr_ms", 900.0, "ms", point="warm", repeat=1)
            if t.label in failing:
                store.add_outcome(run, t.app.name, t.mode, "run", "failed", f"{t.label} exited with code 1")

    runner._guarded(store, run, _Progress(), measure, targets)
    return run


def test_a_run_in_which_every_app_mode_failed_ends_failed_with_the_reasons(store):
    run = _run(store, _targets(), ["quarkus/jvm", "spring-boot/jvm"])
    row = store.run(run)
    assert row["status"] == "failed"
    assert "every app/mode failed" in row["note"] and "spring-boot/jvm exited with code 1" in row["note"]
    assert len(store.figures(run)) == 2  # what they measured before failing is kept


def test_a_run_where_one_app_mode_came_through_stays_complete(store):
    run = _run(store, _targets(), ["spring-boot/jvm"])
    assert store.run(run)["status"] == "complete"
    assert len(store.figures(run)) == 2


def test_failed_and_unavailable_app_modes_leave_nothing_measured_and_the_run_failed(store):
    targets = _targets(unavailable="unavailable: no GraalVM here")
    run = _run(store, targets, ["quarkus/jvm"])
    assert store.run(run)["status"] == "failed"
    status, note = runner.run_status(targets, store.outcomes(run))
    assert status == "failed" and "spring-boot/jvm: unavailable: no GraalVM here" in note


def test_a_failure_in_one_scenario_is_a_partial_result_not_a_failed_app_mode(store):
    run = store.begin_run(PLAN, {})
    store.add_outcome(run, "quarkus", "jvm", "startup", "failed", "2 of 5 launches did not get ready")
    store.add_outcome(run, "spring-boot", "jvm", "run", "failed", "exited with code 1")
    assert runner.run_status(_targets(), store.outcomes(run)) == ("complete", "")


def test_an_exception_still_ends_the_run_failed_with_its_own_reason(store):
    run = store.begin_run(PLAN, {})

    def measure() -> None:
        raise RuntimeError("the database did not start")

    with pytest.raises(RuntimeError):
        runner._guarded(store, run, _Progress(), measure, _targets())
    row = store.run(run)
    assert row["status"] == "failed" and row["note"] == "the database did not start"
