"""The studies as data: figures consistent with the raw values the studies list (and the studies'
own wrong figures flagged as contradictions), verdicts in two parts (direction and size), and
every way a built-in study plan differs from its study's recorded method declared."""

from __future__ import annotations

import copy
import math
import shutil
import statistics

import pytest

from perflab import plan as plans
from perflab.analysis import stats
from perflab.paths import REPO_ROOT
from perflab.present import published
from perflab.present.published import methods
from perflab.report import ratios
from perflab.results import Cell


def test_a_figure_with_listed_runs_is_their_median_and_a_printed_median_that_is_not_is_a_contradiction():
    with_raw = [c for c in published.CLAIMS if c.raw]
    assert with_raw, "LAB-2020 3.2 lists its native runs"
    for claim in with_raw:
        for label, values in claim.raw:
            assert claim.value(label) == statistics.median(values), (claim.key, label)
        for label, printed in claim.printed:
            assert printed != claim.value(label)
            flagged = published.conflicts.for_claim(claim.key)
            assert any(f"{printed / 1000:.3f}" in " ".join(c.wordings) for c in flagged), (claim.key, label)


def test_contradictions_name_existing_claims_and_compute_what_the_figures_give():
    keys = [c.key for c in published.CONTRADICTIONS]
    assert len(keys) == len(set(keys))
    for c in published.CONTRADICTIONS:
        assert c.claim in {x.key for x in published.CLAIMS}, c.key
        assert c.wordings and c.compared and c.finding(), c.key
    by_key = {c.key: c for c in published.CONTRADICTIONS}
    rss = published.claim("rt2019-max-rss")
    more = rss.value("Q-JVM") / rss.value("Q-native") - 1
    assert f"+{more:.1%}".replace("%", " %") in by_key["rt2019-memory-277"].finding()
    pods = published.claim("lab2020-pods-2gb")
    assert f"{pods.value('Q-JVM') / pods.value('A'):.2f}x" in by_key["lab2020-1.2B-pods"].finding()
    rows = published.contradiction_rows()
    assert [r["key"] for r in rows] == keys and all(r["wording"] for r in rows)


def test_a_ratio_the_study_states_in_words_replaces_the_ratio_of_its_figures():
    ttfr = published.claim("lab2020-coldstart-ttfr")
    assert ttfr.published_ratio("Q-JVM") == dict(ttfr.stated)["Q-JVM"]
    plain = published.claim("rt2019-rps-40")
    assert plain.published_ratio("Q-JVM") == plain.value("Q-JVM") / plain.value("Thorntail")


def test_a_figure_compared_other_than_printed_gets_the_ratio_of_the_value_compared():
    """LAB-2020 3.2: native is compared as the median of its runs (9.237 s), so its verdict divides
    that by A's, not the stated 22.9 % (the printed 9.585 s over A's), and the contradiction says so."""
    for claim in (c for c in published.CLAIMS if c.printed and c.has_baseline()):
        for label, printed in claim.printed:
            compared = claim.value(label) / claim.value(claim.baseline)
            assert claim.published_ratio(label) == compared, (claim.key, label)
            said = " ".join(c.compared for c in published.conflicts.for_claim(claim.key))
            assert f"{compared:.1%}".replace("%", " %") in said, (claim.key, label)


def test_differences_the_study_draws_no_ratio_from_get_no_verdict():
    deltas = published.claim("lab2020-coldstart")
    assert not deltas.ratios and not deltas.has_baseline()


def test_every_claim_says_how_the_study_measured_it():
    for claim in published.CLAIMS:
        assert claim.method, claim.key
        assert "printed in:" in claim.provenance()


def _cell(values: list[float], point: str = "warm", metric: str = "rps", app: str = "a") -> Cell:
    return Cell(app, "jvm", "startup", point, metric, "x", values, stats.summarize(values), set(),
                repeats=list(range(len(values))))


@pytest.mark.parametrize("a, b, published_ratio, direction, size", [
    ([20, 21, 22], [10, 10.5, 11], 2.0, ratios.HELD, ratios.SIZE_WITHIN),
    ([72, 72, 72], [100, 100, 100], 0.34, ratios.HELD, ratios.SIZE_OFF),  # KT-2020 memory at rest: right way, 2.1x off
    ([20, 21, 22], [10, 11, 12], 0.5, ratios.NOT_HELD, ratios.SIZE_OFF),
    # the ratio (1.0x) is within 25 % of 1.1x, but its interval (0.79-1.25x) reaches below the band: undecided
    ([9, 11, 13], [10, 11, 12], 1.1, ratios.UNCLEAR, ratios.SIZE_UNDECIDED),
    ([10.9, 11, 11.1], [10, 10, 10], 1.1, ratios.HELD, ratios.SIZE_WITHIN),  # a tight interval inside the band
])
def test_verdicts_have_a_direction_and_a_size(a, b, published_ratio, direction, size):
    r = ratios.ratio_of(_cell(a), _cell(b), published_ratio, in_rounds=True)
    assert (r.direction, r.size) == (direction, size)
    assert r.size_factor == pytest.approx(r.measured / published_ratio)
    assert (f"{r.size_factor:.2f}x" in r.size_text())


def test_the_size_tolerance_is_a_factor_either_way():
    tol = ratios.SIZE_TOLERANCE
    assert ratios.size_of(2.0, 2.0 * (1 + tol))[0] == ratios.SIZE_WITHIN
    assert ratios.size_of(2.0, 2.0 / (1 + tol))[0] == ratios.SIZE_WITHIN
    assert ratios.size_of(2.0, 2.0 * (1 + tol) * 1.01)[0] == ratios.SIZE_OFF
    assert ratios.size_of(2.0, 2.0 / (1 + tol) / 1.01)[0] == ratios.SIZE_OFF
    assert ratios.size_of(None, 1.0) == ("", None)


def test_counts_tell_direction_and_size_apart():
    claim = published.claim("kt2020-rest")

    def result(measured_over_base: float) -> ratios.ClaimResult:
        res = ratios.ClaimResult(claim)
        row = ratios.ClaimRow("Q-JVM", "quarkus/jvm", 97, None)
        row.ratio = ratios.ratio_of(_cell([measured_over_base]), _cell([1.0]), claim.published_ratio("Q-JVM"))
        res.rows.append(row)
        unmeasured = ratios.ClaimRow("Q-native", "quarkus/native", 6.5, None)
        unmeasured.ratio = ratios.Ratio(0.02, None, None, None, ratios.NO_RATIO, "not measured")
        res.rows.append(unmeasured)
        return res

    counts = ratios.count([result(0.72), result(0.35)])
    assert (counts.total, counts.checked) == (4, 2)
    assert counts.direction == {ratios.HELD: 2}
    assert counts.size == {ratios.SIZE_OFF: 1, ratios.SIZE_WITHIN: 1}
    assert "held 2" in counts.text() and "within 1" in counts.text() and "off 1" in counts.text()


def test_a_study_median_over_all_runs_takes_the_first_launch_in(tmp_path):
    from perflab import results
    from perflab.store import Store

    store = Store(tmp_path / "r.sqlite")
    try:
        run = store.begin_run({"name": "x", "scenarios": ["startup"]}, {})
        for i, v in enumerate((900.0, 100.0, 110.0, 120.0)):
            store.add_figure(run, "quarkus", "jvm", "startup", "ready_ms", v, "ms",
                             point="cold" if i == 0 else "warm", repeat=i)
        store.finish_run(run, "complete")
        view = results.load(store, run)
        warm_only = ratios.find_measured(view, published.Where("startup", "ready_ms", "warm"), "quarkus/jvm")
        every = ratios.find_measured(view, published.Where("startup", "ready_ms", "warm", with_first=True),
                                     "quarkus/jvm")
        assert warm_only.cell.values == [100.0, 110.0, 120.0]
        assert sorted(every.cell.values) == [100.0, 110.0, 120.0, 900.0]
        assert every.cell.summary.median == statistics.median([900.0, 100.0, 110.0, 120.0])
    finally:
        store.close()


# --- every deviation declared -----------------------------------------------------------------

@pytest.mark.parametrize("name, study", list(methods.STUDY_PLANS.items()), ids=list(methods.STUDY_PLANS))
def test_every_way_a_study_plan_differs_from_its_study_is_declared(name, study):
    data = plans.load(name).data
    assert methods.undeclared(data, study) == []
    # and the keyed reductions name keys the study's method records (no stale declaration)
    recorded = {s.key for s in methods.METHODS[study]}
    assert methods.declared_keys(data["reductions"]) <= recorded


@pytest.mark.parametrize("name", list(methods.STUDY_PLANS))
def test_a_study_plan_names_the_version_of_every_framework_it_runs(name):
    from perflab import runner

    said = " ".join(plans.load(name)["reductions"])
    for target in runner.select_targets(plans.load(name)):
        assert f"{target.app.framework} {target.app.framework_version}" in said, target.label


def test_a_matched_setting_changed_is_caught_and_a_declared_one_must_state_the_plans_value():
    data = copy.deepcopy(plans.load("lab2020").data)
    assert methods.undeclared(data, "LAB-2020") == [] and methods.unstated(data) == []
    # matched settings: changing one is a deviation to declare
    data["startup"]["runs"] = data["startup"]["runs"] + 2
    data["memory"]["load_connections"] = 56
    data["limits"]["native_heap_opts"] = []
    assert [m.split(":")[0] for m in methods.undeclared(data, "LAB-2020")] == [
        "limits.native_heap", "startup.runs", "memory.load_connections"]
    # a declared one: its reduction says the plan's value, so a new value needs the reduction rewritten
    data = copy.deepcopy(plans.load("lab2020").data)
    data["startup"]["poll_ms"] = 3.0
    assert [m.split(":")[0] for m in methods.unstated(data)] == ["startup.poll_ms"]
    assert methods.undeclared(data, "LAB-2020") == []


@pytest.mark.parametrize("name", list(methods.STUDY_PLANS))
def test_every_keyed_reduction_of_a_study_plan_states_the_plans_value(name):
    assert methods.unstated(plans.load(name).data) == []


def test_a_plan_setting_changed_without_a_reduction_is_caught():
    data = copy.deepcopy(plans.load("lab2020").data)
    data["coldstart"]["runs"] = 5
    data["density"]["max_instances"] = 40  # below the study's 98 native pods
    missing = methods.undeclared(data, "LAB-2020")
    assert [m.split(":")[0] for m in missing] == ["density.max_instances", "coldstart.runs"]
    data["reductions"].append("coldstart.runs, density.max_instances: shorter here")
    assert methods.undeclared(data, "LAB-2020") == []


@pytest.mark.parametrize("name, key", [("lab2020", "startup.limits"), ("lab2020", "scaleup.poll_ms"),
                                       ("lab2020", "startup.poll_ms"), ("lab2020", "placement.kind"),
                                       ("lab2020", "limits.isolation"), ("lab2020", "sweep.driver"),
                                       ("lab2020", "devloop.steps"), ("lab2020", "devloop.extensions"),
                                       ("lab2020", "devloop.stream_library"),
                                       ("lab2020", "memory.ramp"), ("lab2020", "sweep.paths"),
                                       ("rt2019", "startup.runs"), ("rt2019", "sweep.duration_s"),
                                       ("rt2019", "sweep.paths"), ("rt2019", "limits.cpus"),
                                       ("kt2020", "kt2020load.launches"), ("kt2020", "limits.memory_mb")])
def test_deviations_once_declared_only_in_prose_are_checked_against_the_plan(name, key):
    data = copy.deepcopy(plans.load(name).data)
    study = methods.STUDY_PLANS[name]
    removed = [r for r in data["reductions"] if key in methods.declared_keys([r])]
    data["reductions"] = [r for r in data["reductions"] if r not in removed]
    expected = [s.key for s in methods.METHODS[study] if s.key in methods.declared_keys(removed)]
    assert key in expected and [m.split(":")[0] for m in methods.undeclared(data, study)] == expected


def test_a_setting_the_study_does_not_state_is_the_plans_choice_whatever_its_value():
    unstated = methods.Setting("startup.runs", methods.NOT_STATED, "not in the study")
    assert not unstated.follows(11) and not unstated.follows(methods.NOT_STATED)


def test_lab_1_1s_limits_are_the_plans_limits_and_follow_them():
    data = copy.deepcopy(plans.load("lab2020").data)
    data["limits"]["memory_mb"] = 500
    data["reductions"] = [r for r in data["reductions"] if not r.startswith(("startup.limits:", "limits.memory_mb:"))]
    # lab 1.1's 1 core / 500 MB now hold, and the plan's 500 MB differs from labs 1.3 and 3.1's 256 MB
    assert [m.split(":")[0] for m in methods.undeclared(data, "LAB-2020")] == ["limits.memory_mb"]


def _native_command_flags(text: str) -> list[str]:
    """The heap flags of the native image's command in LAB-2020's appendix (its Dockerfile's CMD)."""
    line = next(x for x in text.splitlines() if x.startswith("CMD [") and "application" in x)
    return [f.strip('" ') for f in line.strip("CMD []").split(",") if f.strip('" ').startswith("-X")]


def test_the_native_heap_is_what_quarkus_native_is_launched_with(tmp_path, monkeypatch, study_text):
    data = plans.load("lab2020").data
    flags = _native_command_flags(study_text("LAB-2020"))
    assert len(flags) == 3  # -Xms, -Xmx, -Xmn
    assert methods.plan_value(data, "limits.native_heap") == flags
    assert [s.value for s in methods.METHODS["LAB-2020"] if s.key == "limits.native_heap"] == [flags]
    # a native command that drops the plan's heap is a deviation the plan must declare
    shutil.copytree(REPO_ROOT / "apps" / "quarkus", tmp_path / "quarkus", ignore=shutil.ignore_patterns("target"))
    desc = tmp_path / "quarkus" / "perflab.toml"
    desc.write_text(desc.read_text().replace('command = ["{artifact}", "{heap_opts}"]', 'command = ["{artifact}"]'))
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(tmp_path))
    assert methods.plan_value(data, "limits.native_heap") == []
    assert [m.split(":")[0] for m in methods.undeclared(data, "LAB-2020")] == ["limits.native_heap"]


def test_a_ceiling_may_go_beyond_the_study_and_an_unlimited_study_needs_any_limit_declared():
    ceiling = methods.Setting("density.max_instances", 98, "98 pods", at_least=True)
    assert ceiling.follows(100) and ceiling.follows(98) and not ceiling.follows(97)
    assert not methods.Setting("limits.cpus", None, "the whole machine").follows(2)


def test_derived_plan_values():
    data = {"sweep": {"series": [{"path": "/a", "connections": [5, 10]}, {"path": "/b", "connections": [1, 40]}]}}
    assert methods.plan_value(data, "sweep.paths") == ["/a", "/b"]
    assert methods.plan_value(data, "sweep.connections") == [1, 40]
    assert methods.plan_value({"limits": {"cpus": 2}}, "limits.cpus") == 2
    assert methods.plan_value({}, "limits.cpus") is None


def test_rt2019_projection_is_computed_the_studys_way_from_this_runs_figures(tmp_path):
    from perflab import results
    from perflab.store import Store

    store = Store(tmp_path / "r.sqlite")
    try:
        run = store.begin_run({"name": "x", "scenarios": ["memory", "sweep"],
                               "sweep": {"series": [{"name": "fruits", "path": "/fruits", "connections": [10, 40]}]}}, {})
        store.add_figure(run, "quarkus", "jvm", "memory", "rss_peak_mb", 300.0, "MB", point="load c=40")
        for conns, rps in ((10, 1000.0), (40, 900.0)):
            store.add_figure(run, "quarkus", "jvm", "sweep", "rps", rps, "req/s", point=f"fruits c={conns}",
                             params={"series": "fruits", "path": "/fruits", "connections": conns})
        store.finish_run(run, "complete")
        rows = {p.label: p for p in ratios.study_projection(results.load(store, run))}
        q = rows["Q-JVM"]
        assert (q.max_rss_mb, q.processes, q.per_process_rps, q.projected_rps) == (300.0, 6, 1000.0, 6000.0)
        assert (q.published_processes, q.published_rps) == (4, 308472)
        assert rows["Q-native"].processes is None and rows["Q-native"].projected_rps is None
        table = ratios.projection_rows(results.load(store, run))
        assert ["Q-JVM", "quarkus/jvm", "300", "1,000", "6", "6,000"] == table[1][:6]
    finally:
        store.close()


def test_the_report_lists_each_recorded_setting_of_the_study_and_flags_an_undeclared_difference():
    data = copy.deepcopy(plans.load("lab2020").data)
    study, lines = methods.against_study(data)
    facts = published.STUDIES["LAB-2020"].facts()
    assert study == "LAB-2020" and lines[:len(facts)] == facts and len(lines) == len(facts) + len(methods.METHODS["LAB-2020"])
    cpus = next(x for x in lines if x.startswith("limits.cpus:"))
    assert "study 4" in cpus and "here 1" in cpus and cpus.endswith("differs, declared below")
    assert next(x for x in lines if x.startswith("scaleup.runs:")).endswith("as the study")
    data["scaleup"]["runs"] = 5
    _, lines = methods.against_study(data)
    assert next(x for x in lines if x.startswith("scaleup.runs:")).endswith("differs, NOT declared")
    assert methods.against_study({"name": "quick"}) is None


def test_settings_of_scenarios_the_plan_does_not_run_are_no_deviation():
    data = copy.deepcopy(plans.load("lab2020").data)
    data["density"]["max_instances"] = 40
    data["scenarios"] = [s for s in data["scenarios"] if s != "density"]
    assert methods.undeclared(data, "LAB-2020") == []
    _, lines = methods.against_study(data)
    assert next(x for x in lines if x.startswith("density.max_instances:")).endswith("not run in this plan")
    assert methods.runs(data, "limits.cpus")


def test_a_stated_ratio_its_own_figures_do_not_give_is_flagged_as_a_contradiction():
    for claim in (c for c in published.CLAIMS if c.stated):
        for label, stated in claim.stated:
            of_figures = claim.value(label) / claim.value(claim.baseline)
            if abs(of_figures - stated) / stated > 0.005:  # beyond the rounding of a percentage to 0.1
                flagged = published.conflicts.for_claim(claim.key)
                assert any(f"{stated:.1%}".replace("%", " %") in " ".join(c.wordings) for c in flagged), (claim.key, label)


# --- RT-2019 transcribed from its source ------------------------------------------------------

def _pct(x: float) -> str:
    return f"{x:.1%}".replace("%", " %")


def test_rt2019_tables_are_complete_and_their_40_connection_rows_are_the_claims():
    from perflab.present.published import curves

    for metric, key in (("rps", "rt2019-rps-40"), ("latency_mean_ms", "rt2019-mean-40"),
                        ("latency_max_ms", "rt2019-max-40")):
        drawn = {c.label: dict(c.points) for c in curves.curves("/fruits", metric) if c.study == "RT-2019"}
        assert set(drawn) == {"Thorntail", "Q-JVM", "Q-native"}, metric
        for label, points in drawn.items():
            assert sorted(points) == [1, 5, 10, 15, 20, 25, 30, 35, 40], (metric, label)
            assert points[40] == published.claim(key).value(label), (metric, label)


def test_rt2019_curves_have_the_shapes_the_study_describes():
    from perflab.present.published import curves

    thorntail = curves.rt2019_column("rps", "Thorntail")
    assert curves.peak("rps", "Thorntail")[0] == 25
    assert all(thorntail[c] < thorntail[25] for c in (30, 35, 40))  # falling after 25 connections
    assert curves.peak("rps", "Q-JVM")[0] == 35
    assert curves.peak("rps", "Q-native")[0] == 40  # native still rising at 40


def test_rt2019_summary_throughput_gains_follow_from_table_1_at_40_connections():
    from perflab.present.published import attributes, curves

    base = curves.rt2019_column("rps", "Thorntail")[40]
    for label, name in (("Q-native", "quarkusNativeMaxThroughputIncrease"), ("Q-JVM", "quarkusJvmMaxThroughputIncrease")):
        gain = (curves.rt2019_column("rps", label)[40] / base - 1) * 100
        assert round(gain, 1) == pytest.approx(attributes.printed(name), abs=0.5), label


def test_rt2019_2048_mb_table_is_computed_the_studys_way_from_its_own_figures():
    from perflab.present.published import projection

    for printed, computed in zip(projection.RT2019_PROJECTION, projection.computed()):
        assert printed.label == computed.label
        assert printed.processes == math.floor(published.RT2019_BUDGET_MB / printed.memory_mb)
        assert printed.overall_rps == printed.processes * printed.per_process_rps
        assert (printed.processes, printed.per_process_rps, printed.overall_rps) == (
            computed.processes, computed.per_process_rps, computed.overall_rps)
        assert round(computed.vs_thorntail_pct) == printed.vs_thorntail_pct
    density_rps = published.claim("rt2019-density-rps")
    assert all(density_rps.value(r.label) == r.overall_rps for r in projection.RT2019_PROJECTION)
    for label, increase in projection.RT2019_PROJECTION_INCREASE_PCT.items():
        assert projection.printed(label).vs_thorntail_pct - 100 == pytest.approx(increase, abs=0.5)


def test_every_rt2019_attribute_is_a_value_its_text_prints(study_text):
    """A value only the study's source defines (never printed in the text) has no place here."""
    from perflab.present.published import attributes

    printed = set(_numbers(study_text("RT-2019")))
    missing = [(name, v) for name, v in attributes.RT2019_ATTRIBUTES if v not in printed]
    assert missing == []
    assert attributes.printed("QUARKUSNATIVEMAXRESPONSETIMEREDUCTION") == 42.7  # names compare in any case
    with pytest.raises(KeyError, match="noSuchAttribute"):
        attributes.printed("noSuchAttribute")


def test_rt2019_contradictions_are_derived_from_the_transcribed_tables():
    from perflab.present.published import attributes, curves

    by_key = {c.key: c for c in published.CONTRADICTIONS}
    worst = curves.rt2019_column("latency_max_ms", "Thorntail")
    native, jvm = (1 - curves.rt2019_column("latency_max_ms", lbl)[40] / worst[40] for lbl in ("Q-native", "Q-JVM"))
    headline = by_key["rt2019-latency-headline"].finding()
    assert f"= {_pct(native)} and JVM" in headline and headline.index(_pct(native)) < headline.index(_pct(jvm))
    prose_native = attributes.printed("quarkusNativeMaxResponseTime")
    assert _pct(1 - prose_native / attributes.printed("thorntailMaxResponseTime")) in headline
    swap = by_key["rt2019-latency-swap"].finding()
    native_peak, jvm_peak = curves.peak("latency_max_ms", "Q-native"), curves.peak("latency_max_ms", "Q-JVM")
    assert f"{native_peak[1]:g} ms (quoted for Q-JVM) is Table 2's Q-native max at {native_peak[0]} connections" in swap
    assert f"{jvm_peak[1]:g} ms (quoted for Q-native) is Table 2's Q-JVM max at {jvm_peak[0]} connections" in swap
    soak = by_key["rt2019-soak-count"]
    body = published.claim("rt2019-soak").value("Q-native")
    assert f"{body - attributes.printed('quarkusNativeNumberRequestsMillion') * 1e6:,.0f} more" in soak.finding()
    assert any("33 MILLION" in w for w in soak.wordings)


def test_what_rt2019_now_transcribes_is_no_longer_listed_as_missing_and_its_versions_show():
    rt = " ".join(n.what for n in published.NOT_TRANSCRIBED if n.study == "RT-2019")
    assert "Tables 1 and 2" not in rt and "per-process" not in rt and "65.01" not in rt
    _, lines = methods.against_study(plans.load("rt2019").data)
    assert any("0.18.0" in x and "2.4.0.Final" in x and "8u191" in x and "10.5" in x for x in lines)
    assert any("E5-2640 v3" in x for x in lines)


def test_the_report_prints_rt2019s_2048_mb_table_beside_the_projection_from_this_run(tmp_path):
    from perflab import results
    from perflab.present.published import projection
    from perflab.report import facts, html, markdown
    from perflab.store import Store
    from tests.unit.test_report import make_run

    store = Store(tmp_path / "results.sqlite")
    try:
        syn = make_run(store)
        view = results.load(store, syn.run_id)
        extras = facts.load_extras(store, view.id)
        md, doc = markdown.render(view, extras), html.render(view, extras)
    finally:
        store.close()
    for row in projection.printed_rows():
        assert "| " + " | ".join(row) + " |" in md
    assert 'data-table="rt2019-projection-printed"' in doc
    assert f"{projection.printed('Q-native').overall_rps:,.0f}" in doc


def test_rt2019_attributes_agree_with_the_transcribed_claims_and_tables():
    from perflab.present.published import attributes, curves

    names = {"Thorntail": "thorntail", "Q-JVM": "quarkusJvm", "Q-native": "quarkusNative"}
    base_rss, base_peak = published.claim("rt2019-max-rss").value("Thorntail"), curves.peak("rps", "Thorntail")[1]
    for label, prefix in names.items():
        assert attributes.printed(f"{prefix}StartTime") == published.claim("rt2019-start").value(label)
        assert attributes.printed(f"{prefix}RSS") == published.claim("rt2019-max-rss").value(label)
        assert attributes.printed(f"{prefix}MeanResponseTime40") == curves.rt2019_column("latency_mean_ms", label)[40]
        assert attributes.printed(f"{prefix}MaxThroughput") == curves.peak("rps", label)[1]
        if label != "Thorntail":  # "used only X % of memory to service Y % more requests"
            rss = published.claim("rt2019-max-rss").value(label)
            assert attributes.printed(f"{prefix}RssCompareThorntail") == pytest.approx(rss / base_rss * 100, abs=0.05)
            more = (curves.peak("rps", label)[1] / base_peak - 1) * 100
            assert attributes.printed(f"{prefix}ThroughputCompareThorntail") == pytest.approx(more, abs=0.05)


# --- the figures as the studies' texts print them ----------------------------------------------

def _flat(text: str) -> str:
    return " ".join(text.split())


def _numbers(text: str) -> list[float]:
    import re

    return [float(n.replace(",", "")) for n in re.findall(r"\d+(?:,\d{3})*(?:\.\d+)?", text)]


def _found_in_order(text: str, passage: tuple[str, ...]) -> str:
    """The passage's strings found one after another in the text; what lies between them is
    skipped. Returns the strings' own text (where the figures must be)."""
    at = 0
    for part in passage:
        found = text.find(_flat(part), at)
        assert found >= 0, f"not found after offset {at}: {part!r}"
        at = found + len(_flat(part))
    return " ".join(passage[1:])


def _printed(value: float, numbers: list[float]) -> bool:
    """The value as the text prints it: the same number, or in s where we keep ms."""
    return any(math.isclose(value, n * scale, rel_tol=1e-9) for n in numbers for scale in (1, 1000))


@pytest.mark.parametrize("claim", published.CLAIMS, ids=[c.key for c in published.CLAIMS])
def test_every_published_figure_is_in_its_studys_text_at_its_passage(claim, study_text):
    assert claim.passage, "every figure names where the study prints it"
    numbers = _numbers(_found_in_order(_flat(study_text(claim.study)), claim.passage))
    for label, value in claim.figures:
        raw = dict(claim.raw).get(label)
        if raw is not None:  # a median of listed runs: the runs are printed
            assert all(_printed(v, numbers) for v in raw), (label, raw)
            assert value == statistics.median(raw)
        else:
            assert _printed(value, numbers), (label, value)
    for label, value in claim.printed:
        assert _printed(value, numbers), (label, value)


def test_lab_1_3s_whole_table_is_the_texts_and_its_peaks_are_the_claims(study_text):
    from perflab.present.published import curves

    text = _flat(study_text("LAB-2020"))
    table = text[text.index("Throughput versus number of concurrent users"):]
    for conns, row in curves.LAB20_1_3_TABLE.items():
        assert f"{conns} " + " ".join(f"{v:g} req/sec" for v in row) in table, conns
    peak = published.claim("lab2020-peak-rps")
    for label in curves.LAB20_1_3_LABELS:
        column = dict(next(c for c in curves.curves("/todos", "rps") if c.label == label and c.study == "LAB-2020").points)
        assert column and max(column.values()) == peak.value(label)
    # the claims' peak RSS and req/s per MB are read at that peak: its connection count is the plan's
    at_peak = {max(curves.EXTRA_ROWS[("LAB-2020", "/todos", "rps")][lbl].items(), key=lambda kv: kv[1])[0]
               for lbl in curves.LAB20_1_3_LABELS}
    assert [s.value for s in methods.METHODS["LAB-2020"] if s.key == "memory.load_connections"] == list(at_peak)


@pytest.mark.parametrize("study", list(published.STUDIES))
def test_the_versions_and_machines_named_are_the_texts(study, study_text):
    import re

    text = study_text(study)
    facts = published.STUDIES[study]
    named = re.findall(r"\d+\.\d+\.\d+(?:\.\w+)?|E\d-\d{4}[\w ]*?v?\d?(?= @)", facts.versions + " " + facts.environment)
    assert named, study
    for item in named:
        assert item.strip() in text, item


def test_what_is_listed_as_not_transcribed_does_not_claim_a_missing_source():
    for n in published.NOT_TRANSCRIBED:
        assert "available here" not in n.why and "breaks off" not in n.why, n
    for c in published.CLAIMS:
        assert c.source, c.key  # where the study prints them


# --- every setting a study is said to have used is in its text -----------------------------------

_COUNT_WORDS = {1: ("one", "first"), 2: ("two", "second"), 3: ("three", "third")}


def _states(value, passage: str) -> bool:
    """Whether the passage's text shows the value: a number as printed (or in s, h, min or GB where
    the plan keeps ms, s or MB, or a small count in words), each item of a list, and in words every
    hyphenated name and capitalised name (a tool, a framework), and of a one-word value each part
    between its hyphens."""
    import re

    if isinstance(value, list):
        return all(_states(v, passage) for v in value)
    if isinstance(value, (int, float)):
        numbers = _numbers(passage)
        return (any(math.isclose(value, n * scale) for n in numbers for scale in (1, 60, 1000, 1024, 3600))
                or any(w in passage.lower().split() for w in _COUNT_WORDS.get(value, ())))
    names = (re.findall(r"\w+(?:-\w+)+|\b[A-Z][a-z]+[A-Za-z]*\b", value) if " " in value
             else [p for p in value.split("-") if p])
    return all(n.lower() in passage.lower() for n in names)


_SETTINGS = [(study, s) for study, settings in methods.METHODS.items() for s in settings]


@pytest.mark.parametrize("study, setting", _SETTINGS, ids=[f"{st}:{s.key}" for st, s in _SETTINGS])
def test_every_setting_given_as_the_studys_is_stated_in_its_text_at_its_passage(study, setting, study_text):
    """A value the text does not state must be NOT_STATED (never a match): anything else names where
    the text states it, and the value is read there."""
    if setting.value == methods.NOT_STATED:
        assert not setting.passage, "a setting the study does not state has no passage"
        return
    assert setting.passage, f"{setting.key}: the study's {setting.value!r} needs the passage that states it"
    _found_in_order(_flat(study_text(study)), setting.passage)
    assert _states(setting.value, " ".join(setting.passage)), (setting.key, setting.value)


def test_a_match_the_text_does_not_state_fails_the_check(study_text):
    """The check above catches the errata it was written for: a CPU count, a ramp and a tool the
    texts never give, and a value read in the wrong place."""
    rt, lab = _flat(study_text("RT-2019")), _flat(study_text("LAB-2020"))
    with pytest.raises(AssertionError):
        _found_in_order(rt, ("Test Application", "container with 32 CPUs"))
    with pytest.raises(AssertionError):
        _found_in_order(lab, ("a Jenkins-based environment to schedule the job", "Hyperfoil"))
    assert not _states(2, "rampUp: users: \"{DRIVER_THREADS}\" duration: \"{RAMP_UP_DURATION}\"")
    assert not _states(["-Xms32m", "-Xmx128m"], '"-Xms32m", "-Xmx64m", "-Xmn32m"')
    assert not _states("Kafka Streams (quarkus-kafka-streams) and SmallRye (quarkus-smallrye-reactive-messaging)",
                       "SCENARIO 4.1.2 quarkus-kafka-streams")
    assert not _states("a Hyperfoil job scheduled by Jenkins", "a Jenkins-based environment to schedule the job")
    assert _states(10800.0, "more than 3hrs") and _states(3, "First Run Second Run Third Run Median")


@pytest.mark.parametrize("name", list(methods.STUDY_PLANS))
def test_a_reduction_that_says_matched_names_only_settings_the_plan_follows_and_the_text_states(name):
    data = plans.load(name).data
    study = methods.STUDY_PLANS[name]
    recorded = {s.key: s for s in methods.METHODS[study]}
    for text in (r for r in data["reductions"] if "matched" in r):
        for key, s in recorded.items():
            if f"({key})" in text:
                assert s.follows(methods.plan_value(data, key)) and s.passage, (key, text)


@pytest.mark.parametrize("name", list(methods.STUDY_PLANS))
def test_a_setting_the_study_does_not_state_is_never_shown_as_the_studys(name):
    data = plans.load(name).data
    _, lines = methods.against_study(data)
    for s in methods.METHODS[methods.STUDY_PLANS[name]]:
        if s.value == methods.NOT_STATED:
            line = next(x for x in lines if x.startswith(f"{s.key}:"))
            assert "study not stated" in line and not line.endswith("as the study"), line


# --- the contradictions are the texts' --------------------------------------------------------

@pytest.mark.parametrize("c", published.CONTRADICTIONS, ids=[c.key for c in published.CONTRADICTIONS])
def test_every_quoted_wording_of_a_contradiction_is_in_its_studys_text(c, study_text):
    import re

    text = _flat(study_text(c.study))
    quoted = [q for w in c.wordings for q in re.findall(r'"([^"]+)"', w)]
    assert quoted, "a contradiction quotes the study's words"
    assert [q for q in quoted if _flat(q) not in text] == []


def test_lab_1_3s_rising_throughput_is_checked_against_its_table(study_text):
    from perflab.present.published import curves

    finding = {c.key: c for c in published.CONTRADICTIONS}["lab2020-1.3-rising"].finding()
    counts = sorted(curves.LAB20_1_3_TABLE)
    assert 10 not in counts and "none at 10" in finding
    for i, label in enumerate(curves.LAB20_1_3_LABELS):
        column = [curves.LAB20_1_3_TABLE[n][i] for n in counts if n <= 40]
        fell = any(b < a for a, b in zip(column, column[1:]))
        assert (f"{label} " in finding.split("falls for", 1)[1]) == fell, label


def test_lab_3_2s_delay_and_speed_up_are_computed_from_its_runs():
    from perflab.present.published import lab2020_figures

    by_key = {c.key: c for c in published.CONTRADICTIONS}
    go = statistics.median(lab2020_figures.LAB20_3_2_GO_RUNS) / 1000
    assert go > 9.5 and f"median {go:.3f} s" in by_key["lab2020-3.2-delay"].finding()
    ttfr = published.claim("lab2020-coldstart-ttfr")
    speed = by_key["lab2020-3.2-speedup"].finding()
    for native in (dict(ttfr.printed)["Q-native"], ttfr.value("Q-native")):
        assert f"{ttfr.value('A') / native:.2f}x" in speed


def test_kt2020s_mislabelled_post_script_is_in_the_jvm_section(study_text):
    text = study_text("KT-2020")
    jvm = text[text.index("#### Quarkus on JVM"):text.index("#### Quarkus as native application")]
    post = jvm[jvm.index("POST '/api/'"):]
    assert "perfPostObjQuarkusNative.sh" in post and "app-quarkus-jvm" in post
    assert f"Requests/sec: {published.claim('kt2020-post').value('Q-JVM'):.2f}" in _flat(post)


# --- what the studies state in words ----------------------------------------------------------

@pytest.mark.parametrize("w", published.worded.WORDED, ids=[w.key for w in published.worded.WORDED])
def test_every_worded_value_is_printed_at_its_passage_and_agrees_with_the_studys_figures_or_is_a_contradiction(
        w, study_text):
    import re

    found = _found_in_order(_flat(study_text(w.study)), w.passage)
    quoted = re.findall(r'"([^"]+)"', w.wording)
    assert quoted and all(q in found for q in quoted), (w.wording, w.passage)
    assert 0 < w.rounding <= 0.1  # the words' own precision, not a licence
    if w.agrees() is False:  # the study's words and its figures part: a contradiction says so
        flagged = " ".join(x for c in published.conflicts.for_claim(w.claim) for x in c.wordings)
        assert quoted and all(q in flagged for q in quoted), w.key
    if w.claim:
        assert w.label == "all" or published.claim(w.claim).value(w.label) is not None, w.key


def test_a_worded_ratio_is_checked_against_the_figures_at_its_rounding():
    from perflab.present.published.worded import Worded

    off = Worded("x", "LAB-2020", "x", "Q-JVM", '"~1/8"', (1 / 8,), ("x",), lambda: (0.2,), rounding=0.05)
    near = Worded("y", "LAB-2020", "y", "Q-JVM", '"between 1.7 and 1.8"', (1.7, 1.8), ("y",),
                  lambda: (1.673, 1.797), rounding=0.03)
    assert off.agrees() is False and near.agrees() is True
    assert "Q-JVM / A = 1.7 to 1.8" == near.stated()


def _kt_units(printed: str) -> float:
    """wrk's figure in bytes (its KB, MB and GB are of 1024) or seconds (s, m)."""
    import re

    number, unit = re.fullmatch(r"([\d.]+)([A-Za-z]+)", printed).groups()
    return float(number) * {"KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "s": 1, "m": 60}[unit]


@pytest.mark.parametrize("run", list(published.kt2020_figures.KT2020_WRK_TOTALS))
def test_kt2020s_wrk_totals_are_its_texts_and_agree_with_its_rates(run, study_text):
    text = _flat(study_text("KT-2020"))
    for label, (requests, duration, read, transfer) in published.kt2020_figures.KT2020_WRK_TOTALS[run].items():
        _found_in_order(text, published.kt2020_figures.kt2020_totals_passage(run, label))
        rps = float(published.kt2020_figures.kt2020_totals_passage(run, label)[-2].split()[-1])
        seconds = _kt_units(duration)
        assert requests / seconds == pytest.approx(rps, rel=2e-3), (run, label)
        assert _kt_units(transfer) * seconds == pytest.approx(_kt_units(read), rel=0.015), (run, label)


# --- the last errata: each read in its study's text -------------------------------------------

def _contradiction(key: str):
    return next(c for c in published.CONTRADICTIONS if c.key == key)


def test_lab_2020s_appendix_heads_the_code_of_labs_1_1_to_1_3_all_as_lab_1_1(study_text):
    import re

    text = study_text("LAB-2020")
    appendix = text[text.index("\nAppendix\n"):]
    headings = re.findall(r"^Code and configuration for Lab (\S+)$", appendix, flags=re.M)
    assert headings[:3] == ["1.1", "1.1", "1.1"] and "1.2" not in headings and "1.3" not in headings
    # what follows the second and third heading names the lab each is, as the finding says
    sections = appendix.split("Code and configuration for Lab 1.1")[1:4]
    finding = _contradiction("lab2020-appendix-headings").finding()
    for section, opening in zip(sections[1:], ("Lab 1.2 uses the same code as Lab 1.1", "The code in Lab 1.3 is the same")):
        assert section.strip().startswith(opening) and f'"{opening}"' in finding
    for lab in ("1.2", "1.3"):  # the labs point to headings the appendix does not have
        assert f"Appendix: Code and configuration for Lab {lab}" in text


def test_lab_1_2bs_chart_is_captioned_10_instances_under_counts_that_are_not_10(study_text):
    text = study_text("LAB-2020")
    section = text[text.index("SCENARIO 1.2B"):text.index("SCENARIO 1.2B – DEPLOYMENT DENSITY CONTINUED")]
    table = section[section.index("Number of pods that can be started with 2 GB\n"):]
    caption = table.index("Memory usage for 10 instances")
    counts = [int(n) for n in _numbers(table[:caption])[1::2]]  # each row: its pods, then its MB
    c = published.claim("lab2020-pods-2gb")
    assert counts == [c.value(x) for x in ("A", "Q-JVM", "Q-native")] and 10 not in counts
    assert all(f"{n:g}" in _contradiction("lab2020-1.2B-caption").finding() for n in counts)


def test_lab_3_2s_appendix_puts_a_link_where_framework_a_stood(study_text):
    text = _flat(study_text("LAB-2020"))
    appendix = text[text.index("Code and configuration for Lab 3.2"):]
    deducted = appendix[appendix.index("deducted from the values for"):]
    listed = deducted[len("deducted from the values for"):deducted.index(", Quarkus JVM, and Quarkus Native")].strip()
    assert listed.startswith("<http") and "Framework A" not in deducted[:200]
    assert "link" in _contradiction("lab2020-3.2-link").wordings[0] and "http" not in " ".join(
        _contradiction("lab2020-3.2-link").wordings)  # the report holds no addresses
    # lab 3.2's own table names Framework A first among the three differences
    results = text[text.index("SCENARIO 3.2"):]
    assert results.index("Framework A") < results.index("Quarkus JVM") < results.index("Quarkus Native")


def test_rt2019s_38_4_and_20_9_percent_are_table_1_on_two_bases(study_text):
    from perflab.present.published import curves

    text = _flat(study_text("RT-2019"))
    summary = text[:text.index("What does Quarkus give you?")]
    assert "up to an 38.4% increase in maximum throughput" in summary and "for a single process" in summary
    assert "to service 20.9% more requests" in text
    native, thorntail = (curves.rt2019_column("rps", x) for x in ("Q-native", "Thorntail"))
    at_40 = native[40] / thorntail[40] - 1
    peaks = max(native.values()) / max(thorntail.values()) - 1
    assert round(at_40 * 100, 1) == 38.4 and round(peaks * 100, 1) == 20.9
    assert max(thorntail, key=thorntail.get) != 40  # Thorntail peaks below 40 connections: the bases differ
    finding = _contradiction("rt2019-throughput-bases").finding()
    assert "+38.4 %" in finding and "+20.9 %" in finding and "c=25" in finding


def test_lab_2020s_native_needs_no_warm_up_as_its_appendix_says(study_text):
    text = _flat(study_text("LAB-2020"))
    s = next(x for x in methods.METHODS["LAB-2020"] if x.key == "sweep.native_warmup")
    said = text[text.index(_flat(s.passage[0])):]
    assert said.index("this is not needed for quarkus-native") < said.index(".", said.index("quarkus-native"))
    plan = plans.load("lab2020").data
    assert not s.follows(methods.plan_value(plan, s.key))  # every app is warmed up here, native included
    assert "30 s for every app and mode" == methods.plan_value(plan, s.key)
    assert "sweep.native_warmup" in methods.declared_keys(plan["reductions"])


def test_kt2020s_method_as_the_lab_reads_it_says_what_its_text_says(study_text):
    text = _flat(study_text("KT-2020"))
    runs = text[text.index("#### Testing performance"):text.index("#### Quarkus on JVM")]
    assert "duration of 10 seconds" in runs
    assert not any(w in runs.lower() for w in ("cold", "fresh", "restart"))  # the app's state is not given
    assert "#### Spring Boot long run test (warming up JVM)" in study_text("KT-2020")
    settings = {s.key: s for s in methods.METHODS["KT-2020"]}
    for key, quoted in (("kt2020load.run_s", "duration of 10 seconds"), ("kt2020load.long_s", "(warming up JVM)")):
        assert quoted in settings[key].said and "the lab" in settings[key].said and quoted in text
    for c in (published.claim("kt2020-get"), published.claim("kt2020-soak-post")):
        assert "the lab's reading" in c.method


def test_kt2020s_paths_are_the_blogs(study_text):
    text = study_text("KT-2020")
    assert text.count("GET '/api/{data}'") == 4 and text.count("POST '/api/'") == 4
    for c in published.CLAIMS:
        if c.study == "KT-2020":
            assert "/data/{key}" not in c.what and "POST /data" not in c.what, c.key
    get = published.claim("kt2020-get-write")
    assert get.what.startswith("GET /api/{data}") and "GET /data/{key}" in get.note  # the lab's own path, said
