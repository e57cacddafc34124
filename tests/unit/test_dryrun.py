"""The cost before a run: from this machine's earlier steps of the same plan and method where they
exist, else the plan's estimates at this machine's pace; a long scenario only where the plan places
it; the study plans within 4 hours; a run above the limit asked about or refused."""

from __future__ import annotations

import tomllib

import pytest

from perflab import dryrun, plan, round_loop, rounds, run_history, runner, schedule
from perflab.analysis import ratios_ci
from perflab.errors import LabError
from perflab.paths import REPO_ROOT
from perflab.progress import step_kind
from perflab.scenario import Estimate
from perflab.scenarios import density
from perflab.store import Store, method_hash

ENV = {"cpu_model": "test cpu", "cpus_online": 2}


@pytest.fixture
def store(workdir):
    st = Store()
    yield st
    st.close()


def _record(st: Store, data: dict, took: dict[str, tuple[float, float]], status: str = "complete") -> None:
    run_id = st.begin_run(data, ENV)
    for label, (estimate_s, actual_s) in took.items():
        st.add_step(run_id, label, estimate_s, actual_s)
    st.finish_run(run_id, status)


def test_earlier_steps_of_the_same_method_are_used_and_the_rest_run_at_this_machines_pace_for_their_kind(store):
    rt = plan.load("rt2019")  # a plan with many kinds of step
    targets = runner.select_targets(rt)
    steps = [s for t in targets if not t.unavailable for s in schedule.target_steps(rt, t) if s.estimate_s > 0]
    first = steps[0]
    paced = next(s for s in steps[1:] if step_kind(s.label) != step_kind(first.label))
    unpaced = next(s for s in steps if step_kind(s.label) not in (step_kind(first.label), step_kind(paced.label)))
    method = method_hash(rt.data, ENV)
    # an earlier run of this plan on this machine: its first step took 123 s
    _record(store, rt.data, {first.label: (50.0, 123.0)})
    # another plan ran a step of the second one's kind at 1.5 x its estimate, and a kind rt lacks at 3 x
    _record(store, {**rt.data, "name": "other"}, {f"other/app {step_kind(paced.label)}": (100.0, 150.0),
                                                  "other/app no-such-kind": (100.0, 300.0)})
    cost = dryrun.estimate(rt, targets, store, method)
    parts = {p.label: p for t in cost.targets for p in t.parts}
    assert parts[first.label].measured and parts[first.label].seconds == 123.0
    assert not parts[paced.label].measured
    assert parts[paced.label].seconds == pytest.approx(paced.estimate_s * 1.5)
    # a kind never run here: the plan's estimate as it is (another kind's pace says nothing of it)
    assert parts[unpaced.label].seconds == pytest.approx(unpaced.estimate_s)
    assert "no-such-kind" not in cost.paces and cost.paces[step_kind(paced.label)] == pytest.approx(1.5)
    assert f"{step_kind(paced.label)} x1.50" in dryrun.render(cost)
    # another method's history is not this run's: nothing measured, the plan's estimates at the paces
    other = dryrun.estimate(rt, runner.select_targets(rt), store, "another-method")
    assert not any(p.measured for t in other.targets for p in t.parts)
    assert cost.total_s != other.total_s


def test_a_kinds_pace_is_read_from_its_latest_five_runs(store):
    for ratio in (10.0, 1.0, 1.0, 1.2, 1.2, 1.6):  # oldest first
        _record(store, {"name": "p"}, {"a/b sweep": (100.0, 100.0 * ratio), "round 1": (50.0, 40.0)})
    paces = store.paces()
    assert paces["sweep"] == pytest.approx((1.0 + 1.0 + 1.2 + 1.2 + 1.6) / 5)
    assert paces["round"] == pytest.approx(0.8)


def test_a_step_estimated_at_next_to_nothing_sets_no_pace(store):
    # start-up steps whose launches all ran in the rounds: what is left of their estimate is 0 or a
    # float residue, and their fixed overhead over it once made a pace of 7e13
    _record(store, {"name": "aa"}, {"a/b startup": (1.7763568394002505e-15, 0.13), "round 1": (2.3, 2.0)})
    _record(store, {"name": "p"}, {"c/d startup": (6.0, 5.4)})
    assert store.paces()["startup"] == pytest.approx(0.9)
    aa = plan.load(str(REPO_ROOT / "bench" / "aa-startup.toml"))
    steps = [s for t in runner.select_targets(aa) for s in schedule.target_steps(aa, t)]
    assert [s.estimate_s for s in steps if s.label.endswith(" startup")] == [0.0]


def test_steps_a_resumed_run_finished_are_left_out_of_its_estimate(store):
    quick = plan.load("quick")
    targets = runner.select_targets(quick)
    whole = dryrun.estimate(quick, targets, store, "m")
    done = {p.label for t in whole.targets for p in t.parts[:1]}
    rest = dryrun.estimate(quick, targets, store, "m", done=done)
    assert rest.done_steps == len(done) > 0
    assert rest.total_s < whole.total_s
    assert not done & {p.label for t in rest.targets for p in t.parts}


def test_rt2019s_soak_runs_on_one_app_mode_native_where_available_else_the_declared_stand_in(store):
    for name in ("rt2019", "rt2019-full"):
        rt = plan.load(name)
        targets = runner.select_targets(rt)
        soaking = [t.label for t in targets if any(sc.name == "soak" for sc in schedule.target_scenarios(rt, t))]
        native = next(t for t in targets if t.label == "quarkus/native")
        assert soaking == (["quarkus/native"] if not native.unavailable else ["quarkus/jvm"])
        text = dryrun.render(dryrun.estimate(rt, targets, store, "m"))
        assert f"soak{' ' * 24} runs on {soaking[0]} only" in text


@pytest.mark.parametrize("name", ["rt2019", "lab2020", "kt2020"])
def test_each_study_plan_is_estimated_within_four_hours_and_its_long_form_beyond(store, name):
    short, full = plan.load(name), plan.load(f"{name}-full")
    short_cost = dryrun.estimate(short, runner.select_targets(short), store, "m")
    full_cost = dryrun.estimate(full, runner.select_targets(full), store, "m")
    assert short_cost.total_s <= dryrun.DEFAULT_MAX_HOURS * 3600 < full_cost.total_s


def test_a_run_above_the_limit_is_refused_without_a_terminal_asked_on_one_and_run_with_yes(store):
    quick = plan.load("quick")
    cost = dryrun.estimate(quick, runner.select_targets(quick), store, "m")
    limit_h = cost.total_s / 3600 / 2
    with pytest.raises(LabError) as caught:
        dryrun.gate(cost, limit_h, yes=False, interactive=False)
    assert "--yes" in caught.value.fix and "above the limit" in caught.value.message
    dryrun.gate(cost, limit_h, yes=True, interactive=False)
    dryrun.gate(cost, cost.total_s / 3600 + 1, yes=False, interactive=False)  # within the limit
    asked = []
    dryrun.gate(cost, limit_h, yes=False, interactive=True, ask=lambda q: asked.append(q) or "y")
    assert "Run it?" in asked[0]
    with pytest.raises(LabError):
        dryrun.gate(cost, limit_h, yes=False, interactive=True, ask=lambda q: "")


def test_a_limit_from_the_environment_must_be_a_number(monkeypatch):
    monkeypatch.setenv("PERFLAB_MAX_HOURS", "six")
    with pytest.raises(LabError, match="PERFLAB_MAX_HOURS"):
        dryrun.max_hours(None)
    monkeypatch.setenv("PERFLAB_MAX_HOURS", "6")
    assert dryrun.max_hours(None) == 6.0 and dryrun.max_hours(2.5) == 2.5


def test_rounds_earlier_runs_added_to_settle_a_ratio_are_in_the_estimate(store):
    quick = plan.load("quick")
    targets = runner.select_targets(quick)
    planned = schedule.planned_rounds(quick, targets)
    method = method_hash(quick.data, ENV)
    before = dryrun.estimate(quick, targets, store, method)
    assert before.added_rounds == 0 and before.max_extra_rounds == quick.settings("rounds").max_rounds - planned
    _record(store, quick.data, {f"round {planned + 1}": (60.0, 90.0), f"round {planned + 2}": (60.0, 80.0)})
    after = dryrun.estimate(quick, targets, store, method)
    assert after.added_rounds == 2
    assert "2 added as in earlier runs here" in dryrun.render(after)
    # the planned rounds now run at the machine's pace (170/120), the added ones as measured
    assert after.rounds_s == pytest.approx(before.rounds_s * 170.0 / 120.0 + 170.0)


def test_densitys_estimate_ends_its_ramp_where_the_budget_does_at_the_rss_measured_here():
    cfg = density.DensitySettings(budget_mb=2048, max_instances=40)

    def est(rest_mb):
        return density.estimate_s(Estimate(cfg, 3, 10.0, jvm=True, rest_mb=rest_mb))

    # a heavier instance fits fewer times, so its ramp is shorter; a tiny one stops at max_instances
    assert est(400.0) < est(150.0) < est(60.0) < est(20.0)
    assert est(1.0) == est(0.5)
    # before any run here, a JVM's guess; a measured RSS replaces it
    assert est(None) == est(density.REST_GUESS_MB[True]) != est(300.0)


def _rounds_plan(target: float):
    """Quarkus and Spring Boot on the JVM (the headline pair), startup setting more rounds than steady's launches."""
    return plan.validate({"name": "t", "apps": ["quarkus", "spring-boot"], "modes": ["jvm"],
                          "scenarios": ["startup", "steady"], "startup": {"runs": 6}, "steady": {"launches": 2},
                          "rounds": {"target": target, "max_rounds": 8}}, "t")


def test_with_a_precision_target_steady_is_counted_in_every_planned_round_until_its_ratios_settle(store):
    chasing, content = _rounds_plan(0.10), _rounds_plan(0.0)
    tc, t0 = runner.select_targets(chasing), runner.select_targets(content)
    n = schedule.planned_rounds(chasing, tc)
    assert n == schedule.planned_rounds(content, t0) == 5  # startup's five warm launches set the rounds
    with_steady, without = schedule.round_steps(chasing, tc, 1, n), schedule.round_steps(content, t0, 1, n)
    # the first two rounds hold the same launches; from the third only the plan with a target launches steady
    assert [s.estimate_s for s in with_steady[:2]] == pytest.approx([s.estimate_s for s in without[:2]])
    assert all(a.estimate_s > b.estimate_s for a, b in zip(with_steady[2:], without[2:]))
    assert [schedule.launches_in_rounds(chasing, tc, t) for t in tc] == [n + n] * 2
    assert [schedule.launches_in_rounds(content, t0, t) for t in t0] == [n + 2] * 2
    assert "until its ratios settle" in dryrun.render(dryrun.estimate(chasing, tc, store, "m"))
    assert "until its ratios settle" not in dryrun.render(dryrun.estimate(content, t0, store, "m"))


def test_rounds_whose_launches_were_measured_here_take_no_pace_of_unmeasured_estimates(store, monkeypatch):
    p = _rounds_plan(0.10)
    point = "fruits c=" + str(p.settings("steady").points[0].connections)
    assert p.settings("steady").points[0].path == "/fruits"
    _record(store, {"name": "other"}, {"round 1": (100.0, 50.0)})  # another plan's rounds took half their estimate
    # launches of these app/modes measured here: time to ready, and to steady state at the plan's point
    monkeypatch.setattr(store, "typical_ready_s", lambda app, mode: 6.0)
    monkeypatch.setattr(store, "typical_steady_s", lambda app, mode: {point: 50.0})
    targets = runner.select_targets(p)
    cost = dryrun.estimate(p, targets, store, "m")
    raw = sum(s.estimate_s for s in schedule.round_steps(p, targets, 1, schedule.planned_rounds(p, targets)))
    assert cost.rounds_from_launches and cost.rounds_s == pytest.approx(raw)
    assert "the rounds from what their launches took here" in dryrun.render(cost)
    # no time to steady state measured at the plan's point: the plan's estimate, at the rounds' pace
    monkeypatch.setattr(store, "typical_steady_s", lambda app, mode: {"elsewhere c=1": 50.0})
    targets = runner.select_targets(p)
    paced = dryrun.estimate(p, targets, store, "m")
    raw = sum(s.estimate_s for s in schedule.round_steps(p, targets, 1, schedule.planned_rounds(p, targets)))
    assert not paced.rounds_from_launches and paced.rounds_s == pytest.approx(raw * 0.5)


def test_once_an_app_modes_ratios_settle_the_rounds_left_lose_its_steady_launch():
    from types import SimpleNamespace

    from perflab.progress import Step

    p = _rounds_plan(0.10)
    targets = runner.select_targets(p)
    planned = schedule.round_steps(p, targets, 1, schedule.planned_rounds(p, targets))
    lab = SimpleNamespace(plan=p, progress=SimpleNamespace(steps=[Step(s.label, s.estimate_s) for s in planned]))
    steady = next(sc for sc in schedule.round_scenarios(p, targets[0]) if sc.name == "steady")
    round_loop.settled_out_of_round(lab, 4, targets[:1])  # round 4: past steady's two launches
    round_loop.settled_out_of_round(lab, 2, targets[:1])  # round 2: one of its own launches, kept
    after = {s.label: s.estimate_s for s in lab.progress.steps}
    assert after["round 4"] == pytest.approx(planned[3].estimate_s - schedule.launch_estimate_s(p, targets[0], steady))
    assert after["round 2"] == pytest.approx(planned[1].estimate_s)


def test_an_earlier_run_whose_ratios_settled_does_not_shrink_the_unsettled_rounds(store, monkeypatch):
    chasing, content = _rounds_plan(0.10), _rounds_plan(0.0)
    point = "fruits c=" + str(chasing.settings("steady").points[0].connections)
    monkeypatch.setattr(store, "typical_ready_s", lambda app, mode: 6.0)
    monkeypatch.setattr(store, "typical_steady_s", lambda app, mode: {point: 50.0})
    for p in (chasing, content):
        targets = runner.select_targets(p)
        n = schedule.planned_rounds(p, targets)
        # an earlier run of this plan and method whose rounds were short: its ratios settled early
        _record(store, p.data, {f"round {k}": (1.0, 1.0) for k in range(1, n + 1)})
    tc = runner.select_targets(chasing)
    cost = dryrun.estimate(chasing, tc, store, method_hash(chasing.data, ENV))  # recalls the launches into tc
    unsettled = sum(s.estimate_s for s in schedule.round_steps(chasing, tc, 1, schedule.planned_rounds(chasing, tc)))
    assert cost.rounds_s == pytest.approx(unsettled) and cost.rounds_s > 5.0
    # without a precision target the rounds' launches do not depend on settling: what they took here
    t0 = runner.select_targets(content)
    assert dryrun.estimate(content, t0, store, method_hash(content.data, ENV)).rounds_s == pytest.approx(5.0)


def _known(logs_per_run: list[list[float]]) -> run_history.History:
    """Earlier runs of the plan here whose rounds gave these ln(Quarkus / Spring Boot)."""
    label = "quarkus/jvm / spring-boot/jvm"
    past = [run_history.PastRatio(f"run-{n}", ratios_ci.RatioInterval(1.5, 1.2, 1.9, len(logs), True, 0.1), logs)
            for n, logs in enumerate(logs_per_run)]
    return run_history.History([p.run_id for p in past], {label: past})


def test_a_ratio_this_machines_spread_cannot_settle_within_the_plans_rounds_is_said_so_before_the_run(store, monkeypatch):
    quick = plan.load("quick")
    targets = runner.select_targets(quick)
    wide = _known([[0.30, 0.55, 0.20], [0.05, 0.40, 0.35]])     # sd of ln ratio ~0.14: this VM's spread
    narrow = _known([[0.45, 0.46, 0.44], [0.45, 0.44, 0.46]])  # sd ~0.01
    monkeypatch.setattr(run_history, "load_for", lambda *a, **k: wide)
    [line] = dryrun.settling_lines(quick, targets, store, "m", fits=4)
    assert "will NOT settle here" in line and "allows 4" in line and "budget" in line
    monkeypatch.setattr(run_history, "load_for", lambda *a, **k: narrow)
    least = rounds.least_rounds(quick.settings("rounds").target)
    [line] = dryrun.settling_lines(quick, targets, store, "m", fits=least)
    assert "NOT" not in line and f"settled from {least} rounds" in line
    assert "across the 3 runs here" in line  # two earlier runs and this one
    [line] = dryrun.settling_lines(quick, targets, store, "m", fits=least - 1)
    assert "will NOT settle here" in line  # the least rounds are more than the budget holds
    monkeypatch.setattr(run_history, "load_for", lambda *a, **k: _known([[0.45, 0.46, 0.44]]))
    [line] = dryrun.settling_lines(quick, targets, store, "m", fits=least)
    assert line.endswith(f"settled from {least} rounds")  # one earlier run: no answer across runs yet


def test_a_plan_with_no_rounds_target_promises_no_added_rounds(store):
    """target = 0: the plan's launches only, so neither extra rounds nor an upper bound for them."""
    raw = tomllib.loads((plan.PLANS_DIR / "quick.toml").read_text())
    raw["rounds"]["target"] = 0
    fixed = plan.validate(raw, "quick.toml")
    targets = runner.select_targets(fixed)
    cost = dryrun.estimate(fixed, targets, store, method_hash(fixed.data, ENV))
    assert cost.max_extra_rounds == 0
    assert "more while a headline ratio is not settled" not in dryrun.render(cost)


def test_with_a_budget_of_its_own_a_wide_spread_is_planned_for_instead_of_given_up(store, monkeypatch):
    quick = plan.load("quick")
    targets = runner.select_targets(quick)
    monkeypatch.setattr(run_history, "load_for", lambda *a, **k: _known([[0.30, 0.55, 0.20], [0.05, 0.40, 0.35]]))
    [own] = dryrun.settling_lines(quick, targets, store, "m")
    assert "will NOT settle here" in own and "max_rounds (6)" in own
    [line] = dryrun.settling_lines(plan.with_budget(quick, 600), targets, store, "m")
    assert "will NOT settle here" not in line
    planned = int(line.split("planned at ")[1].split()[0])
    assert planned > quick.settings("rounds").max_rounds


def test_the_budget_said_to_hold_the_rounds_a_wide_spread_needs_does_hold_them(store, monkeypatch):
    quick = plan.load("quick")
    targets = runner.select_targets(quick)
    monkeypatch.setattr(run_history, "load_for", lambda *a, **k: _known([[0.30, 0.55, 0.20], [0.05, 0.40, 0.35]]))
    here = dryrun.HeadlineRounds(planned=2, before_s=17 * 60, per_round_s=270.0)
    [line] = dryrun.settling_lines(quick, targets, store, "m", here.fits(15, 6), here)
    assert "will NOT settle here" in line
    needed = int(line.split("it needs about ")[1].split()[0])
    budget = int(line.split("need about --budget ")[1].split()[0])
    # given that budget the run reaches the rounds, and the dry-run no longer says it cannot settle
    longer = plan.with_budget(quick, budget)
    fits = here.fits(budget, longer.settings("rounds").max_rounds)
    assert fits >= needed
    [line] = dryrun.settling_lines(longer, targets, store, "m", fits, here)
    assert "will NOT settle here" not in line
    # a round's worth less would not reach them
    assert here.fits(budget - here.per_round_s / 60, longer.settings("rounds").max_rounds) < needed
