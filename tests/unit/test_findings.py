"""The answer first: the findings block (headline ratios with intervals, settled or not, the
conditions, the host's speed, what would settle it) in the summary and at the top of the reports;
and compare naming the canaries and whether two runs' ratios agree."""

from __future__ import annotations

import re

import pytest
from markupsafe import escape

from perflab import headline, results, round_loop, rounds, run_history
from perflab.report import compare, findings, html, markdown, summary
from perflab.report.facts import RunExtras
from perflab.store import Store

PLAN = {"name": "quick", "scenarios": ["startup", "steady"], "limits": {"cpus": 1, "memory_mb": 1024, "jvm_opts": []},
        "rounds": {"target": 0.10, "host_slow": 0.05}, "steady": {"startup_figures": True}}
ENV = {"cpu_model": "Test CPU", "cpus_online": 2}
AT = {"path": "/fruits", "connections": 4, "method": "GET"}


def _run(store: Store, quarkus: list[float], spring: list[float], canary: list[float] | None = None,
         rounds_record: bool = True, min_rounds: int | None = None, limits: dict | None = None,
         flags: dict[str, list[str]] | None = None, chase: list[float] | None = None,
         steal: list[float] | None = None) -> results.RunView:
    env = dict(ENV)
    record = None
    if rounds_record:
        record = {"seed": 9, "rounds": len(quarkus), "orders": [], "headline": ["quarkus/jvm / spring-boot/jvm"],
                         "ended": "budget", "ended_why": "the time budget (15 min) left no room for round 4",
                         "round_s": [300.0] * len(quarkus),
                         "two_levels": {"quarkus/jvm": {"launches": len(quarkus), "intervals_per_launch": 15.0,
                                                        "launch_share": 0.97, "optimal_intervals": 2}}}
    plan = PLAN if min_rounds is None else {**PLAN, "rounds": {**PLAN["rounds"], "min_rounds": min_rounds}}
    plan = plan if limits is None else {**plan, "name": "lab2020", "limits": {**PLAN["limits"], **limits}}
    run = store.begin_run(plan, env)
    if record is not None:
        store.save_rounds(run, record)
    for app, values in (("quarkus", quarkus), ("spring-boot", spring)):
        for n, v in enumerate(values, 1):
            store.add_figure(run, app, "jvm", "steady", "rps", v, "req/s", point="fruits c=4", params=AT, repeat=n,
                             flags=(flags or {}).get(app, []) if n == 1 else [])
    for n, v in enumerate(canary or [], 1):
        store.add_figure(run, "quarkus", "jvm", "canary", "app_cpu_ms", v, "ms", point="before", repeat=n)
    _chase(store, run, chase)
    for n, v in enumerate(steal or [], 1):  # the contention probe of quarkus's launches
        for metric, value, unit in (("steal_pct", v, "%"), ("runqueue_wait_ms_per_s", 900.0, "ms/s"),
                                    ("runqueue_wait_pct", 45.0, "%")):
            store.add_figure(run, "quarkus", "jvm", "steady", metric, value, unit, point="fruits c=4", params=AT,
                             repeat=n, flags=["contended"] if v > 2 else [])
    store.finish_run(run, "complete")
    return results.load(store, run)


def _chase(store: Store, run: str, readings: list[float] | None) -> None:
    """The canary's pointer chase on both sides, as the rounds record it before each launch."""
    for n, v in enumerate(readings or [], 1):
        for side, scale in (("app", 1.0), ("load", 1.1)):
            store.add_figure(run, "quarkus", "jvm", "canary", f"{side}_cache_ms", v * scale, "ms", point="before",
                             repeat=n)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    yield s
    s.close()


def test_a_wide_ratio_is_not_settled_and_says_what_budget_would_settle_it(store):
    view = _run(store, [20_000, 24_000, 17_000], [12_000, 12_500, 11_000], canary=[20.0, 20.2, 19.9, 23.0])
    found = findings.findings(view)
    [ratio] = found.ratios
    assert ratio.interval.paired and ratio.interval.n == 3
    assert ratio.interval.low < 1.7 < ratio.interval.high and not ratio.settled
    text = "\n".join(found.lines())
    assert "NOT settled" in text and "about" in text and "rounds" in text
    # the advice names the request shape it is for: a run with several has one ratio of each
    assert f"to settle quarkus/jvm / spring-boot/jvm {ratio.what} to +-10%: about" in text
    assert "4 connections" in text and "1 CPU" in text          # the conditions the ratio holds under
    assert "100 connections on 4 CPUs" in text                   # the published figure, with its conditions
    assert "1 reading(s) more than 5% slow" in text              # the canary's 23.0 against a median of ~20
    assert "app's CPU median 20.10 ms" in text
    assert "budget" in text
    assert "97% of a launch's value varies between launches" in text and "about 2 interval(s)" in text


def test_the_advice_prices_an_added_round_as_the_headline_pairs_launches_not_a_round_of_every_app(store):
    view = _run(store, [20_000, 24_000, 17_000], [12_000, 12_500, 11_000])
    took = {"quarkus/jvm": [90.0, 100.0, 130.0], "spring-boot/jvm": [150.0, 160.0, 140.0],
            "thorntail/jvm": [400.0] * 3, "go-reference/native": [20.0] * 3}
    launches = [{"round": n + 1, "place": 1, "label": label, "value": 1.0, "failed": "", "took_s": s}
                for label, times in took.items() for n, s in enumerate(times)]
    store.save_rounds(view.id, {**view.rounds, "launches": launches, "round_s": [sum(t[n] for t in took.values())
                                                                               for n in range(3)]})
    text = "\n".join(findings.findings(results.load(store, view.id)).lines())
    # Thorntail's and the Go reference's launches are not in a round added for this pair: 100 s + 150 s
    assert "a round of quarkus/jvm and spring-boot/jvm takes about 4.2 min here" in text


def test_a_tight_ratio_is_settled(store):
    view = _run(store, [20_000, 20_200, 19_900, 20_100], [10_000, 10_050, 9_980, 10_020])
    [ratio] = findings.findings(view).ratios
    assert ratio.settled and ratio.interval.half_width < 0.10
    assert "settled (within +-10%)" in ratio.text()


@pytest.mark.parametrize("capped, reading", [
    ({"quarkus": ["load-side-bound"]}, "quarkus/jvm's throughput is a lower bound"),
    ({"spring-boot": ["load-side-bound"]}, "the ratio is at most this"),
    ({"quarkus": ["load-side-bound"], "spring-boot": ["load-side-bound"]}, "bounded in neither direction"),
    ({}, None)])
def test_a_throughput_the_load_side_capped_makes_its_side_of_the_ratio_a_bound(store, capped, reading):
    view = _run(store, [20_000, 20_200, 19_900, 20_100], [10_000, 10_050, 9_980, 10_020], flags=capped)
    [ratio] = findings.findings(view).ratios
    if reading is None:
        assert "lower bound" not in ratio.text()
    else:
        assert reading in ratio.text()
    if capped == {"quarkus": ["load-side-bound"]}:
        assert ratio.text().endswith("the ratio is at least this")


def test_a_tight_ratio_from_fewer_rounds_than_the_plans_minimum_is_not_settled(store):
    view = _run(store, [20_000, 20_200, 19_900, 20_100], [10_000, 10_050, 9_980, 10_020], min_rounds=5)
    [ratio] = findings.findings(view).ratios
    assert ratio.interval.half_width < 0.10 and not ratio.settled
    assert "NOT settled" in ratio.text() and "4 of the 5 rounds" in ratio.text()
    assert ratio.rounds_needed == 5


def test_the_summary_ends_and_the_markdown_report_begins_with_the_findings(store, tmp_path):
    view = _run(store, [20_000, 24_000, 17_000], [12_000, 12_500, 11_000])
    text = summary.render(view)
    tail = text.strip().splitlines()
    block = tail.index("what this run found")
    assert any("quarkus/jvm / spring-boot/jvm" in line for line in tail[block:])
    md = markdown.render(view, RunExtras())
    first_section = md.split("\n## ")[1]
    assert first_section.startswith("What this run found") and "95 % interval" in first_section


def test_launches_not_in_rounds_are_compared_unpaired_and_said_to_be_app_after_app(store):
    view = _run(store, [20_000, 24_000], [12_000, 12_500], rounds_record=False)
    found = findings.findings(view)
    assert "app after app" in found.rounds
    # launches that share a number were not close in time: never paired, Welch on the two samples
    assert not found.ratios[0].interval.paired and found.ratios[0].interval.n == 2


def test_compare_shows_the_canaries_and_whether_the_ratios_agree(store):
    a = _run(store, [20_000, 21_000, 19_500, 20_500], [12_000, 12_300, 11_800, 12_100], canary=[20.0, 20.1, 19.9])
    b = _run(store, [20_300, 20_800, 19_800, 20_600], [12_100, 12_200, 11_900, 12_000], canary=[24.0, 24.2, 23.9])
    far = _run(store, [30_000, 30_500, 29_800, 30_200], [12_000, 12_100, 11_900, 12_050], canary=[20.0, 20.1, 20.2])
    lines = compare.header_lines(compare.compare_runs(a, b))
    host = [x for x in lines if x.startswith("host:")]
    assert host and "slower in B" in host[0] and "beyond 5 %" in host[0]
    [agree] = [x for x in lines if x.startswith("ratio:")]
    assert "agree (within noise)" in agree and "B / A 1.0" in agree
    assert "fewer than three runs of this method here" in agree  # the variance between runs is not known
    [differ] = [x for x in compare.header_lines(compare.compare_runs(a, far)) if x.startswith("ratio:")]
    assert "DIFFER" in differ


def _past(store: Store, estimate: float, host: str = "lab-host", method_env: dict | None = None,
          status: str = "complete", chase: list[float] | None = None) -> str:
    """A stored run whose rounds record holds Quarkus / Spring Boot per round around `estimate`."""
    spring = [10_000, 10_400, 9_800, 10_100, 9_900]
    wobble = [1.0, 1.02, 0.98, 1.01, 0.99]
    quarkus = [s * estimate * w for s, w in zip(spring, wobble)]
    launches = [{"round": n, "label": label, "value": v} for n, (q, s) in enumerate(zip(quarkus, spring), 1)
                for label, v in (("quarkus/jvm", q), ("spring-boot/jvm", s))]
    pairs = [headline.Pair("quarkus/jvm", "spring-boot/jvm")]
    values = {"quarkus/jvm": dict(enumerate(quarkus, 1)), "spring-boot/jvm": dict(enumerate(spring, 1))}
    record = {"seed": 1, "orders": [], "launches": launches, "headline": [pairs[0].label],
              "ratios": [s.to_dict() for s in rounds.ratio_states(pairs, values, 0.10)]}
    run = store.begin_run(PLAN, {**ENV, **(method_env or {}), "hostname": host})
    store.save_rounds(run, record)
    _chase(store, run, chase)
    store.finish_run(run, status)
    return run


def _now(store: Store, quarkus: list[float], spring: list[float], chase: list[float] | None = None) -> results.RunView:
    """A run whose rounds record says what the earlier runs of its plan, method and host knew, as the runner stores it."""
    view = _run(store, quarkus, spring, chase=chase)
    env = {**view.environment, "hostname": "lab-host"}
    store.update_environment(view.id, env)
    known = run_history.load(store, view.id)
    pairs = [headline.Pair("quarkus/jvm", "spring-boot/jvm")]
    priors = {p.label: known.prior(p.label) for p in pairs if known.prior(p.label)}
    least = {p.label: rounds.least_rounds(0.10, priors.get(p.label)) for p in pairs}
    cfg = rounds.RoundSettings(target=0.10)
    store.save_rounds(view.id, {**view.rounds, "least": least,
                                "history": round_loop.history_record(known, pairs, priors, cfg, least)})
    return results.load(store, view.id)


def test_earlier_runs_of_another_method_or_machine_or_unfinished_are_not_history(store):
    kept = _past(store, 1.60)
    _past(store, 1.60, host="other-host")
    _past(store, 1.60, method_env={"cpu_model": "Another CPU"})
    _past(store, 1.60, status="interrupted")
    view = _now(store, [16_000, 16_300, 15_800], [10_000, 10_100, 9_900])
    known = run_history.load(store, view.id)
    assert known.runs == [kept]
    assert known.prior("quarkus/jvm / spring-boot/jvm").df == 4


def test_a_run_outside_what_the_earlier_runs_allow_says_so_first(store):
    for estimate in (1.60, 1.62, 1.58):
        _past(store, estimate)
    agreeing = findings.findings(_now(store, [16_100, 16_500, 15_700], [10_000, 10_300, 9_800]))
    assert not agreeing.warnings()
    text = "\n".join(agreeing.lines())
    assert "in the 3 earlier run(s)" in text and "expect the next run's estimate within" in text
    assert "spread pooled with 3 earlier run(s)" in text
    for estimate in (1.61, 1.59):  # more earlier runs than the line lists: it says which it shows
        _past(store, estimate)
    text = "\n".join(findings.findings(_now(store, [16_100, 16_500, 15_700], [10_000, 10_300, 9_800])).lines())
    listed = re.search(r"in the (\d+) earlier run\(s\) of this plan and method on this machine \(the last 4, oldest "
                       r"first\): ([^;]*)", text)
    assert listed and int(listed.group(1)) > 4 and listed.group(2).count("x [") == 4
    off = findings.findings(_now(store, [20_000, 20_600, 19_500], [10_000, 10_300, 9_800]))
    lines = off.lines()
    assert lines[1].startswith("  THIS RUN DISAGREES WITH THE EARLIER ONES") and "2.00x" in lines[1]


def test_from_three_runs_the_ratio_is_also_given_across_them_under_the_headline(store):
    _past(store, 1.60)
    short = findings.findings(_now(store, [16_100, 16_500], [10_000, 10_300]))
    assert not any("across the" in line for line in short.lines())  # two runs: no answer across them
    _past(store, 1.62)
    lines = findings.findings(_now(store, [16_100, 16_500], [10_000, 10_300])).lines()
    at = next(n for n, line in enumerate(lines) if "quarkus/jvm / spring-boot/jvm throughput" in line)
    assert "NOT settled" in lines[at]  # two rounds of its own cannot settle it ...
    across = lines[at + 1]
    assert "across the 3 runs" in across and "2 before it" in across
    assert across.endswith("settled (within +-10%)")  # ... the three runs together do
    _past(store, 1.20)
    _past(store, 2.10)
    apart = findings.findings(_now(store, [16_100, 16_500], [10_000, 10_300])).lines()
    assert any("across the 5 runs" in line and "NOT settled" in line for line in apart)


def test_with_one_earlier_run_the_difference_of_the_two_decides(store):
    _past(store, 1.60)
    close = findings.findings(_now(store, [16_100, 16_500, 15_700], [10_000, 10_300, 9_800]))
    assert not close.warnings()
    far = findings.findings(_now(store, [20_000, 20_600, 19_500], [10_000, 10_300, 9_800]))
    [warning] = far.warnings()
    assert "AN EARLIER ONE" in warning and "excludes 1" in warning


def test_a_launch_still_warming_up_stays_out_of_the_ratio_and_is_shown_apart(store):
    view = _run(store, [20_000, 20_200, 26_000, 20_100], [10_000, 10_050, 10_000, 10_020])
    store.add_flag(view.id, "quarkus", "jvm", "steady", 3, "not-steady")
    found = findings.findings(results.load(store, view.id))
    [ratio] = found.ratios
    assert ratio.interval is not None and ratio.interval.n == 3
    assert ratio.with_warming is not None and ratio.with_warming.n == 4
    assert ratio.interval.estimate < ratio.with_warming.estimate
    assert [r for r, _ in ratio.per_round] == [1, 2, 4]
    assert "rests on 3 of 4 rounds: 1 had a launch still warming up" in ratio.text()
    quarkus = next(line for line in found.behind if line.startswith("quarkus/jvm"))
    assert "3 steady launch(es)" in quarkus and "still warming up: 1 launch(es), 26,000 req/s" in quarkus


def _with_sql(store: Store, view: results.RunView, metric: str, per_app: dict[str, float]) -> results.RunView:
    """The run with `metric` per request recorded at the headline point for each launch, as steady records it."""
    for app, value in per_app.items():
        for n in range(1, 4):
            store.add_figure(view.id, app, "jvm", "steady", metric, value, "count", point="fruits c=4", params=AT,
                             repeat=n)
    return results.load(store, view.id)


def test_apps_doing_different_database_work_per_request_are_named_beside_the_ratio(store):
    view = _with_sql(store, _run(store, [20_000, 20_200, 19_900], [10_000, 10_050, 9_980]),
                     "db_transactions_per_request", {"quarkus": 3.0, "spring-boot": 5.0})
    found = findings.findings(view)
    [ratio] = found.ratios
    assert "quarkus/jvm does 3.0 SQL transactions per request, spring-boot/jvm 5.0" in ratio.sql
    assert "two amounts of database work, not two frameworks" in ratio.sql
    lines = found.lines()
    assert lines[lines.index(f"  {ratio.text()}") + 1] == f"    {ratio.sql}"  # right beside its ratio
    md = markdown.render(view, RunExtras())
    assert "not two frameworks" in md.split("\n## ")[1]
    assert ratio.sql in html.render(view, RunExtras()).split('id="environment"')[0]


def test_equal_database_work_is_stated_as_sql_parity(store):
    view = _with_sql(store, _run(store, [20_000, 20_200, 19_900], [10_000, 10_050, 9_980]),
                     "db_transactions_per_request", {"quarkus": 1.0, "spring-boot": 1.0})
    [ratio] = findings.findings(view).ratios
    assert ratio.sql == "SQL parity: 1.0 SQL transaction per request each"


def test_within_ten_percent_is_parity_and_beyond_it_is_not(store):
    close = _with_sql(store, _run(store, [20_000, 20_200], [10_000, 10_050]), "db_transactions_per_request",
                      {"quarkus": 2.0, "spring-boot": 2.15})
    assert findings.findings(close).ratios[0].sql.startswith("SQL parity (within 10%)")
    apart = _with_sql(store, _run(store, [20_000, 20_200], [10_000, 10_050]), "db_transactions_per_request",
                      {"quarkus": 2.0, "spring-boot": 2.3})
    assert "not two frameworks" in findings.findings(apart).ratios[0].sql


def test_statements_counted_in_a_profiling_run_are_read_before_transactions(store):
    view = _run(store, [20_000, 20_200, 19_900], [10_000, 10_050, 9_980])
    _with_sql(store, view, "db_transactions_per_request", {"quarkus": 1.0, "spring-boot": 1.0})
    view = _with_sql(store, view, "sql_statements_per_request", {"quarkus": 2.0, "spring-boot": 4.0})
    [ratio] = findings.findings(view).ratios
    assert "quarkus/jvm does 2.0 SQL statements per request, spring-boot/jvm 4.0" in ratio.sql


def test_a_run_without_sql_figures_has_no_sql_line(store):
    [ratio] = findings.findings(_run(store, [20_000, 20_200], [10_000, 10_050])).ratios
    assert ratio.sql == ""


def _with_sweep(store: Store, view: results.RunView, per_app: dict[str, float], connections: int = 4) -> results.RunView:
    """The run with a sweep of one long-lived instance per app/mode, three repeats at `connections`."""
    at = {"series": "fruits", "path": "/fruits", "connections": connections, "method": "GET"}
    for app, value in per_app.items():
        for r in range(3):
            store.add_figure(view.id, app, "jvm", "sweep", "rps", value * (1 + r / 100), "req/s",
                             point=f"fruits c={connections}", params=at, repeat=r)
    return results.load(store, view.id)


def test_steady_and_the_sweep_apart_at_one_point_are_both_shown_with_why(store):
    from perflab.scenarios import steady_report

    steady = [20_000, 20_200, 19_900]
    view = _with_sweep(store, _run(store, steady, [10_000, 10_050, 9_980]),
                       {"quarkus": 20_000 * 1.28, "spring-boot": 10_000 * 1.03})
    [apart] = steady_report.against_sweep(view)  # Spring Boot's 3 % is within the noise
    assert apart.steady.target == "quarkus/jvm" and 0.25 < apart.apart < 0.32
    [table] = [t for t in steady_report.tables(view) if t.key == "steady-fruits c=4"]
    assert f"steady {apart.steady.summary.median:,.0f} req/s, the sweep {apart.sweep.summary.median:,.0f}" in table.note
    assert "at most 120 s of warm-up" in table.note and "one long-lived instance" in table.note
    behind = findings.findings(view).behind
    assert "the sweep at this point" in behind[0] and "the sweep" not in behind[1]


def test_the_sweep_at_other_connections_is_another_point(store):
    from perflab.scenarios import steady_report

    view = _with_sweep(store, _run(store, [20_000, 20_200], [10_000, 10_050]), {"quarkus": 30_000}, connections=8)
    assert steady_report.against_sweep(view) == []


LAB2020_HEAP = {"jvm_opts": ["-Xmx64m"], "native_heap_opts": ["-Xms32m", "-Xmx64m", "-Xmn32m"]}


def test_an_app_mode_failing_under_the_studys_heap_flags_is_a_finding_with_those_flags(store):
    view = _run(store, [20_000, 20_200, 19_900], [10_000, 10_050, 9_980], limits=LAB2020_HEAP)
    store.add_outcome(view.id, "quarkus", "native", "run", "failed",
                      "exited with code 1: Exception in thread main java.lang.OutOfMemoryError: Java heap space")
    store.add_outcome(view.id, "spring-boot", "jvm", "steady", "failed", "launch 3 did not get ready")
    store.add_outcome(view.id, "quarkus", "jvm", "memory", "unavailable", "not on this machine")
    view = results.load(store, view.id)
    found = findings.findings(view)
    native, spring = found.failures
    assert "heap flags -Xms32m -Xmx64m -Xmn32m (lab2020)" in native and "quarkus/native failed as a whole" in native
    assert "its heap ran out" in native and "OutOfMemoryError" in native
    assert "heap flags -Xmx64m" in spring and "failed in steady" in spring and "does not name the heap" in spring
    lines = found.lines()
    assert lines[1] == f"  conditions: {found.conditions}" and lines[2] == f"  {native}"
    assert native in markdown.render(view, RunExtras()).split("\n## ")[1]
    assert "-Xmn32m (lab2020): quarkus/native failed as a whole: its heap ran out" in \
        html.render(view, RunExtras()).split('id="environment"')[0]


def test_failures_of_a_plan_without_heap_flags_are_not_heap_findings(store):
    view = _run(store, [20_000, 20_200], [10_000, 10_050])
    store.add_outcome(view.id, "quarkus", "native", "run", "failed", "java.lang.OutOfMemoryError: Java heap space")
    assert findings.findings(results.load(store, view.id)).failures == []


def test_a_heap_failure_is_a_finding_also_in_a_run_without_a_headline_ratio(store):
    view = _run(store, [20_000, 20_200], [], limits=LAB2020_HEAP)
    store.add_outcome(view.id, "quarkus", "native", "run", "failed", "java.lang.OutOfMemoryError: Java heap space")
    view = results.load(store, view.id)
    found = findings.findings(view)
    assert found.ratios == [] and len(found.failures) == 1
    assert found.lines() == ["what this run found", f"  conditions: {found.conditions}", f"  {found.failures[0]}"]
    page = html.render(view, RunExtras()).split('id="environment"')[0]
    assert "No headline ratio" in page and "quarkus/native failed as a whole: its heap ran out" in page


def test_when_too_few_launches_were_steady_the_ratio_says_so(store):
    view = _run(store, [20_000, 20_200, 26_000], [10_000, 10_050, 10_000])
    for n in (1, 2):
        store.add_flag(view.id, "spring-boot", "jvm", "steady", n, "not-steady")
    [ratio] = findings.findings(results.load(store, view.id)).ratios
    assert ratio.interval is None and ratio.not_steady == 2 and not ratio.settled
    assert "fewer than two rounds in which both launches reached steady state" in ratio.text()
    assert "rests on 0 of 3 rounds" in ratio.text()


def test_each_further_request_shape_gets_its_own_ratio_with_both_apps_sql_work_beside_it(store):
    """/fruits is the headline; /fruit-prices measured after it on the same launches (same
    connections) is a ratio of its own, with transactions per request of each app and, outside a
    profiling run, why statements are missing. The headline stays /fruits."""
    view = _run(store, [20_000, 20_200, 19_900], [10_000, 10_050, 9_980])
    prices = {"path": "/fruit-prices", "connections": 4, "method": "GET"}
    for app, values, xacts in (("quarkus", [6_000, 6_100, 5_900], 4.0), ("spring-boot", [5_000, 5_050, 4_990], 5.0)):
        for n, v in enumerate(values, 1):
            store.add_figure(view.id, app, "jvm", "steady", "rps", v, "req/s", point="fruit-prices c=4", params=prices,
                             repeat=n)
            store.add_figure(view.id, app, "jvm", "steady", "db_transactions_per_request", xacts, "count",
                             point="fruit-prices c=4", params=prices, repeat=n)
    found = findings.findings(results.load(store, view.id))
    headline, shape = found.ratios
    assert headline.what == "throughput at /fruits c=4" and 1.9 < headline.interval.estimate < 2.1
    assert shape.what == "throughput at /fruit-prices c=4" and 1.15 < shape.interval.estimate < 1.25
    assert "quarkus/jvm does 4.0 SQL transactions per request, spring-boot/jvm 5.0" in shape.sql
    assert "SQL statements per request: counted in a profiling run only" in shape.sql
    for n in range(1, 4):
        for app, statements in (("quarkus", 4.0), ("spring-boot", 9.0)):
            store.add_figure(view.id, app, "jvm", "steady", "sql_statements_per_request", statements, "count",
                             point="fruit-prices c=4", params=prices, repeat=n)
    [_, counted] = findings.findings(results.load(store, view.id)).ratios
    assert "quarkus/jvm does 4.0 SQL statements per request, spring-boot/jvm 9.0" in counted.sql
    assert "SQL transactions per request: quarkus/jvm 4.0, spring-boot/jvm 5.0" in counted.sql


def test_every_line_that_gives_the_headline_ratio_gives_the_findings_interval(store):
    """The ratio the rounds chased pools the earlier runs' spread: the stability line beside the
    published figure and the published-ratio check must not show the run's own, narrower interval."""
    from perflab.report import ratios
    from perflab.scenarios import steady_report
    for estimate in (1.40, 1.90, 1.60):
        _past(store, estimate)
    # two rounds whose ratio of medians (1.50) is not the paired estimate (1.51), the findings' one
    view = _now(store, [16_000, 17_000], [10_000, 12_000])
    [found] = findings.findings(view).ratios
    assert found.prior is not None
    pooled = f"{found.interval.estimate:.2f}x, 95 % interval {found.interval.low:.2f}-{found.interval.high:.2f}x"
    own = view.interval(*(headline.cells(view)[t] for t in ("quarkus/jvm", "spring-boot/jvm")))
    assert f"{own.low:.2f}-{own.high:.2f}" != f"{found.interval.low:.2f}-{found.interval.high:.2f}"
    [line] = [x for x in steady_report.stability(view) if x.startswith("  quarkus/jvm / spring-boot/jvm")]
    assert pooled in line and "spread pooled with 3 earlier run(s)" in line
    cells = headline.cells(view)
    checked = ratios.ratio_of(cells["quarkus/jvm"], cells["spring-boot/jvm"], 1.98, True, view)
    assert (checked.low, checked.high) == (found.interval.low, found.interval.high)


def test_a_host_whose_shared_cache_was_in_another_state_than_in_every_earlier_run_is_named(store):
    """The integer chain does not see neighbours contending for the host's cache; the pointer chase
    does. A run that disagrees with the earlier ones says, right after, that its host differed."""
    busy = [19.0, 24.0, 22.0, 40.0, 21.0]
    for estimate in (1.60, 1.62, 1.58):
        _past(store, estimate, chase=busy)
    alike = findings.findings(_now(store, [16_100, 16_500, 15_700], [10_000, 10_300, 9_800], chase=[20.0, 23.0, 30.0]))
    assert "shared cache" in alike.cache and "earlier runs here 22.0-22.0 ms" in alike.cache
    assert not alike.host_differs and not alike.warnings()
    view = _now(store, [20_000, 20_600, 19_500], [10_000, 10_300, 9_800], chase=QUIET)
    off = findings.findings(view)
    assert "faster on the app's CPU" in off.host_differs and "faster on the load side's CPU" in off.host_differs
    [disagrees, beside] = off.warnings()
    assert disagrees.startswith("THIS RUN DISAGREES") and beside == f"beside it: {off.host_differs}"
    assert off.lines()[2] == f"  {beside}"
    assert str(escape(beside)) in html.render(view, RunExtras()).split('id="environment"')[0]


QUIET = [13.0, 13.6, 14.0, 20.0]


def test_a_host_in_another_state_is_a_note_when_the_ratio_held(store):
    for estimate in (1.60, 1.62, 1.58):
        _past(store, estimate, chase=[19.0, 24.0, 22.0, 40.0, 21.0])
    agreeing = findings.findings(_now(store, [16_100, 16_500, 15_700], [10_000, 10_300, 9_800], chase=QUIET))
    assert agreeing.host_differs and not agreeing.warnings()
    assert agreeing.host_differs in "\n".join(agreeing.lines())


def test_compare_says_when_the_shared_cache_differed_beyond_its_own_noise(store):
    a = _run(store, [20_000, 21_000, 19_500], [12_000, 12_300, 11_800], chase=[19.0, 24.0, 22.0, 40.0, 21.0, 23.0])
    b = _run(store, [20_300, 20_800, 19_800], [12_100, 12_200, 11_900], chase=[13.0, 13.6, 14.0, 12.5, 13.2, 14.4])
    c = _run(store, [20_300, 20_800, 19_800], [12_100, 12_200, 11_900], chase=[20.0, 23.5, 21.0, 35.0, 22.5, 19.5])
    moved = [x for x in compare.header_lines(compare.compare_runs(a, b)) if "pointer chase" in x]
    assert len(moved) == 2 and all("faster in B" in x and "contended for its cache differently" in x for x in moved)
    same = [x for x in compare.header_lines(compare.compare_runs(a, c)) if "pointer chase" in x]
    assert len(same) == 2 and all("not beyond the chase's own noise" in x for x in same)


def test_the_steal_over_the_launches_windows_is_shown_beside_the_host_speed(store):
    view = _run(store, [20_000, 21_000, 19_500], [12_000, 12_300, 11_800], canary=[20.0, 20.1, 19.9],
                steal=[0.1, 3.5, 0.3])
    notes = findings.findings(view).notes()
    at = next(i for i, x in enumerate(notes) if x.startswith("host speed"))
    line = notes[at + 1]
    assert line.startswith("contention") and "median 0.30 %, at most 3.50 %" in line
    assert "1 above 2 %" in line and "flagged contended" in line and "900 ms/s (45 % of their time)" in line
    calm = _run(store, [20_000, 21_000], [12_000, 12_300], steal=[0.0, 0.1])
    assert "flagged contended" not in findings.findings(calm).contention
    assert findings.findings(_run(store, [20_000, 21_000], [12_000, 12_300])).contention == ""
    [both] = [x for x in compare.header_lines(compare.compare_runs(view, calm)) if "steal" in x]
    assert "A median 0.30 %" in both and "1 window(s) above 2 %" in both and "0 above" in both
