"""The scenario registry is the one place a scenario is declared: the plan's schema, the runner's
steps and order, the summary and the report all follow from it (a toy scenario proves it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perflab import plan, registry, results, runner, schedule
from perflab.errors import LabError
from perflab.report import sections, summary
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.settings import Settings, setting
from perflab.store import Store, point


class ToySettings(Settings):
    duration_s: float = setting(7.0, "how long the toy runs", "s", gt=0)
    label: str = setting("hello", "what it says")


def _toy_run(ctx: Context) -> None:
    ctx.record("toy_ms", 1.0, "ms", at=point("p", connections=1))


TOY = Scenario(name="toy", title="A toy scenario", phase=Phase.OWN_AFTER, settings=ToySettings, run=_toy_run,
               estimate_s=lambda e: 2 * e.settings.duration_s)


@pytest.fixture
def with_toy(monkeypatch):
    scenarios = registry.all_scenarios() + (TOY,)
    monkeypatch.setattr(registry, "all_scenarios", lambda: scenarios)
    plan.schema.cache_clear()
    yield
    plan.schema.cache_clear()


def test_a_registered_scenario_gets_a_validated_table_in_the_plan(with_toy):
    p = plan.validate({"name": "t", "scenarios": ["startup", "toy"], "toy": {"duration_s": 3}}, "t")
    assert p.settings("toy").duration_s == 3.0
    assert p["toy"] == {"duration_s": 3.0, "label": "hello"}  # defaults are stored with the run
    with pytest.raises(LabError) as err:
        plan.validate({"name": "t", "toy": {"duraton_s": 3}}, "t")
    assert "toy.duraton_s" in err.value.message and "duration_s" in err.value.fix
    with pytest.raises(LabError, match="toy.duration_s must be more than 0"):
        plan.validate({"name": "t", "toy": {"duration_s": 0}}, "t")
    with pytest.raises(LabError, match="toy.label must be a string"):
        plan.validate({"name": "t", "toy": {"label": 3}}, "t")


def test_without_the_registration_the_scenario_is_unknown():
    with pytest.raises(LabError) as err:
        plan.validate({"name": "t", "scenarios": ["toy"]}, "t")
    assert "'toy'" in err.value.message and "startup" in err.value.fix


def _target(mode: str = "jvm", **mode_fields):
    from types import SimpleNamespace

    fields = {"is_jvm": True, "prepare": None, "aot": None, **mode_fields}
    app = SimpleNamespace(name="app", modes={mode: SimpleNamespace(**fields)})
    app.mode = lambda m: app.modes[m]
    return runner.Target(app, mode)


def test_the_runner_walks_and_estimates_what_the_registry_says(with_toy):
    p = plan.validate({"name": "t", "scenarios": ["toy", "sweep", "startup", "soak"],
                       "soak": {"duration_s": 60, "interval_s": 10}, "toy": {"duration_s": 4}}, "t")
    order = [sc.name for sc in schedule.target_scenarios(p, _target())]
    assert order == ["startup", "sweep", "soak", "toy"]  # phases first, then registry order
    steps = schedule.target_steps(p, _target())
    assert [s.label for s in steps] == ["app/jvm startup", f"app/jvm {schedule.LAUNCH}", "app/jvm sweep",
                                        "app/jvm soak", "app/jvm toy"]
    by_label = {s.label: s.estimate_s for s in steps}
    assert by_label["app/jvm toy"] == 8.0
    assert by_label["app/jvm soak"] >= 60
    longer = plan.validate({**p.data, "soak": {"duration_s": 600, "interval_s": 10}}, "t")
    assert {s.label: s.estimate_s for s in schedule.target_steps(longer, _target())}["app/jvm soak"] >= 600


def test_a_launch_is_estimated_from_the_ready_time_measured_here_when_there_is_one(with_toy):
    p = plan.validate({"name": "t", "scenarios": ["sweep"]}, "t")
    unknown, fast, slow = _target(), _target(), _target()
    fast.ready_s, slow.ready_s = 4.0, 20.0
    launch = {name: {s.label: s.estimate_s for s in schedule.target_steps(p, t)}[f"app/jvm {schedule.LAUNCH}"]
              for name, t in (("unknown", unknown), ("fast", fast), ("slow", slow))}
    assert launch["fast"] < launch["unknown"] < launch["slow"]
    assert launch["slow"] - launch["fast"] == pytest.approx(16.0)


def test_a_fast_starting_jvm_is_still_given_a_jvm_s_warm_up_in_the_estimate():
    # a JVM that got ready in 4 s here still warms up for up to warmup_max_s; a native app does not
    p = plan.validate({"name": "t", "scenarios": ["steady"], "steady": {"warmup_max_s": 120}}, "t")
    jvm, native = _target(), _target(is_jvm=False)
    jvm.ready_s = native.ready_s = 4.0
    # in rounds, the launches are the rounds' steps: each round holds one launch of every app/mode
    rounds = {name: sum(s.estimate_s for s in schedule.round_steps(p, [t], 1, schedule.planned_rounds(p, [t])))
              for name, t in (("jvm", jvm), ("native", native))}
    launches = p.settings("steady").launches
    assert rounds["jvm"] - rounds["native"] >= launches * (120 - 30)
    # app after app, the same estimate is the app/mode's own steady step
    apart = plan.validate({**p.data, "rounds": {**p.data["rounds"], "interleave": False}}, "t")
    steady = {name: {s.label: s.estimate_s for s in schedule.target_steps(apart, t)}["app/jvm steady"]
              for name, t in (("jvm", jvm), ("native", native))}
    assert steady["jvm"] - steady["native"] == pytest.approx(rounds["jvm"] - rounds["native"])
    assert "app/jvm steady" not in {s.label for s in schedule.target_steps(p, jvm)}


def test_prepare_scenarios_run_only_for_modes_that_need_them():
    p = plan.validate({"name": "t", "scenarios": ["startup"]}, "t")
    assert [sc.name for sc in schedule.target_scenarios(p, _target())] == ["startup"]
    trained = _target("aot-cache", aot="train")
    assert [sc.name for sc in schedule.target_scenarios(p, trained)] == ["aot", "startup"]


def test_every_registered_scenario_estimates_a_positive_time_from_its_defaults():
    p = plan.validate({"name": "t"}, "t")
    for sc in registry.all_scenarios():
        assert sc.estimate_s(Estimate(p.settings(sc.name), p.repeats, 10.0)) > 0, sc.name


def test_a_toy_scenarios_figures_reach_the_summary_and_the_report_tables(with_toy, tmp_path: Path):
    store = Store(tmp_path / "r.sqlite")
    try:
        p = plan.validate({"name": "t", "scenarios": ["toy"]}, "t")
        run = store.begin_run(p.data, {})
        for r, value in enumerate((4.0, 5.0, 6.0)):
            store.add_figure(run, "app", "jvm", "toy", "toy_ms", value, "ms", point="p", params={"connections": 1},
                             repeat=r)
        store.finish_run(run, "complete")
        view = results.load(store, run)
    finally:
        store.close()
    assert "toy" in sections.report_scenarios(view)
    [table] = sections.scenario_tables(view, "toy")
    assert [c.summary.median for c in table.cells()] == [5.0]
    text = summary.render(view, width=160)
    assert "A toy scenario" in text and "5.00 [4.00-6.00]" in text
