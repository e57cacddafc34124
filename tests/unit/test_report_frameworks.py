"""The four frameworks side by side: a run of the frameworks plan built in a temporary store (every
figure derived from the test's own inputs) gives one table and one chart with each app/mode's value
and its 95 % interval, the findings list every headline ratio of the plan, settled or not, and say
which ratio the run could not give and that no published figure exists for Micronaut and Helidon."""

from __future__ import annotations

import math
import statistics

import pytest
from scipy import stats as sps

from perflab import results
from perflab.present.tables import fmt_value
from perflab.report import findings, frameworks, html, markdown, summary
from perflab.report.facts import RunExtras
from perflab.store import Store

FOUR = ["quarkus/jvm", "spring-boot/jvm", "micronaut/jvm", "helidon/jvm"]
HEADLINE = [f"{a}:{b}" for i, a in enumerate(FOUR) for b in FOUR[i + 1:]]
PLAN = {"name": "frameworks", "scenarios": ["footprint", "startup", "steady"],
        "limits": {"cpus": 1, "memory_mb": 1024, "jvm_opts": []},
        "rounds": {"headline": HEADLINE, "target": 0.10, "max_rounds": 10}, "steady": {"startup_figures": True}}
ENV = {"cpu_model": "Test CPU", "cpus_online": 2}
AT = {"path": "/fruits", "connections": 4, "method": "GET"}
# per app/mode a speed: throughput goes with it, start-up, latency and CPU per request against it
SPEED = {"quarkus/jvm": 2.0, "spring-boot/jvm": 1.0, "micronaut/jvm": 1.6, "helidon/jvm": 1.8,
         "go-reference/native": 3.0, "thorntail/jvm": 0.8}
WOBBLE = [1.0, 1.04, 0.97, 1.02]  # each round's host speed, the same for every app in it


def _values(target: str, base: float, inverse: bool, rounds: int) -> list[float]:
    k = SPEED[target]
    jitter = [1.0, 0.99, 1.015, 1.005][:rounds]  # the app's own launch-to-launch spread
    return [base * (1 / k if inverse else k) * w * j for w, j in zip(WOBBLE, jitter)]


FIGURES = {  # metric -> (scenario, base, inverse)
    "framework_start_ms": ("startup", 1500.0, True), "ttfr_ms": ("startup", 2000.0, True),
    "rss_after_first_mb": ("startup", 200.0, True), "rps": ("steady", 5000.0, False),
    "latency_p50_ms": ("steady", 1.6, True), "latency_p99_ms": ("steady", 9.0, True),
    "app_cpu_ms_per_request": ("steady", 0.4, True),
}


def _run(store: Store, targets: list[str], *, rounds: int = 4, plan: dict | None = None, record: bool = True,
         failed: dict[str, str] | None = None, extra: list[str] = ()) -> results.RunView:
    plan = plan or PLAN
    run = store.begin_run(plan, dict(ENV))
    if record:
        named = [p.replace(":", " / ") for p in (plan.get("rounds") or {}).get("headline") or []]
        store.save_rounds(run, {"seed": 7, "design": "williams", "rounds": rounds, "orders": [],
                                "headline": [p for p in named if all(t in targets for t in p.split(" / "))],
                                "ended": "max-rounds", "round_s": [400.0] * rounds})
    for target in [*targets, *extra]:
        app, mode = target.split("/")
        if target in (failed or {}):
            store.add_outcome(run, app, mode, "steady", "failed", failed[target])
            continue
        for metric, (scenario, base, inverse) in FIGURES.items():
            point, params = ("warm", {"launch": "warm"}) if scenario == "startup" else ("fruits c=4", AT)
            for n, v in enumerate(_values(target, base, inverse, rounds), 1):
                store.add_figure(run, app, mode, scenario, metric, v, "ms", point=point, params=params, repeat=n)
    store.finish_run(run, "complete")
    return results.load(store, run)


def _expected(values: list[float]) -> tuple[float, float, float]:
    """The geometric mean and its 95 % t interval on the logs, worked out here from the values."""
    logs = [math.log(v) for v in values]
    mean, n = statistics.fmean(logs), len(logs)
    half = sps.t.ppf(0.975, n - 1) * statistics.stdev(logs) / math.sqrt(n)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    yield s
    s.close()


def test_a_level_is_the_geometric_mean_with_students_t_on_the_logs():
    one = frameworks.level([5.0])
    assert one.estimate == pytest.approx(5.0) and one.low is None and "no interval" in one.text()
    two = frameworks.level([1.0, math.e ** 2])  # logs 0 and 2: mean 1, standard error 1, t(0.975, 1) = 12.71
    assert two.estimate == pytest.approx(math.e)
    assert math.log(two.high) - 1 == pytest.approx(12.706, abs=1e-3) and math.log(two.low) == pytest.approx(1 - 12.706,
                                                                                                             abs=1e-3)
    same = frameworks.level([3.0, 3.0, 3.0])
    assert same.low == same.high == pytest.approx(3.0)
    assert frameworks.level([0.0, -1.0]) is None


def test_the_table_has_a_row_per_app_mode_and_each_figure_with_its_interval_and_n(store):
    targets = [*FOUR, "go-reference/native"]
    view = _run(store, targets)
    table = frameworks.table_of(view)
    shown = frameworks.side_by_side(view).figures()
    assert [r[0] for r in table.rows] == [*FOUR, "go-reference/native (reference)"]
    assert len(table.headers) == 1 + len(FIGURES)
    column = {h: i for i, h in enumerate(table.headers)}
    for row in table.rows:
        target = row[0].split(" ")[0]
        for metric, (_, base, inverse) in FIGURES.items():
            label = next(f for f in shown if f.metric == metric)
            estimate, low, high = _expected(_values(target, base, inverse, 4))
            assert row[column[f"{label.label} {label.unit}"]] == \
                f"{fmt_value(estimate)} [{fmt_value(low)}-{fmt_value(high)}] n=4"
    assert "95%" in table.note and "go-reference" in table.note
    # no common open-loop rate in this run: the closed-loop CPU per request, said to be that
    assert "app CPU per request (closed loop) ms" in table.headers and "no common open-loop rate" in table.note


def _equal_load_run(store: Store, targets: list[str], rate: float = 1250.0) -> results.RunView:
    """A run whose open-loop points were all offered one rate, half of spring-boot/jvm's throughput:
    each app's CPU per request there the closed-loop one's / 2, with Go's a fifth of Spring Boot's."""
    plan = {**PLAN, "steady": {**PLAN["steady"], "open_loop_basis": "spring-boot/jvm"}}
    common = {"spring-boot/jvm": {"of": "spring-boot/jvm", "rate": rate, "rps": 2500.0, "launch": 1,
                                  "fraction": 0.5}}
    view = _run(store, targets, plan=plan)
    run = view.id
    store.update_environment(run, {**ENV, "open_loop_common": common})
    at, params = "fruits c=4 open loop 50%", {**AT, "fraction": 0.5, "open_loop": True}
    for target in targets:
        app, mode = target.split("/")
        for n, v in enumerate(_values(target, 0.2, True, 4), 1):
            store.add_figure(run, app, mode, "steady", "app_cpu_ms_per_request", v, "ms", point=at, params=params,
                             repeat=n)
            store.add_figure(run, app, mode, "steady", "offered_rate", rate if n > 1 or app == "spring-boot" else 900.0,
                             "req/s", point=at, params=params, repeat=n)
    return results.load(store, run)


def test_with_a_common_open_loop_rate_the_efficiency_column_is_cpu_per_request_at_that_rate(store):
    targets = [*FOUR, "go-reference/native"]
    view = _equal_load_run(store, targets)
    table = frameworks.table_of(view)
    column = table.headers.index("app CPU per request at equal load ms")
    for row in table.rows:
        target = row[0].split(" ")[0]
        estimate, low, high = _expected(_values(target, 0.2, True, 4))  # the open-loop figures, not the 0.4 base
        assert row[column] == f"{fmt_value(estimate)} [{fmt_value(low)}-{fmt_value(high)}] n=4"
    assert "1,250 req/s offered to every app/mode, 50% of spring-boot/jvm's steady throughput in its launch 1" \
        in table.note
    # launch 1 of every app but the basis ran before the rate was known
    assert "4 launch(es) ran before that rate was known" in table.note


def test_the_findings_give_cpu_per_request_at_equal_load_for_every_pair_and_against_the_go_reference(store):
    view = _equal_load_run(store, [*FOUR, "go-reference/native"])
    lines = [x for x in findings.findings(view).notes() if "at equal load" in x]
    pairs = {tuple(x.split(":")[0].split(" / ")) for x in lines}
    assert pairs == {tuple(p.split(":")) for p in HEADLINE} | {(t, "go-reference/native") for t in FOUR}
    # Helidon against the Go reference: SPEED 1.8 and 3.0, CPU per request against speed: 3.0 / 1.8, every round
    [line] = [x for x in lines if x.startswith("helidon/jvm / go-reference/native")]
    assert "(1,250 req/s) 1.67 [1.67-1.67] (4 rounds)" in line


def test_two_rows_quotient_is_the_paired_ratio_the_findings_give(store):
    view = _run(store, FOUR)
    side = frameworks.side_by_side(view)
    by = {r.target: r.levels["rps"].estimate for r in side.rows}
    [ratio] = [r for r in findings.findings(view).ratios
               if (r.numerator, r.denominator) == ("micronaut/jvm", "helidon/jvm") and r.what.startswith("throughput")]
    assert ratio.interval.paired
    assert by["micronaut/jvm"] / by["helidon/jvm"] == pytest.approx(ratio.interval.estimate)


def test_the_findings_list_every_headline_ratio_settled_or_not_and_that_none_is_published(store):
    found = findings.findings(_run(store, FOUR))
    pairs = {(r.numerator, r.denominator) for r in found.ratios if r.what.startswith("throughput")}
    assert pairs == {tuple(p.split(":")) for p in HEADLINE}
    text = "\n".join(found.lines())
    assert text.count("95 % interval") >= 3 * len(HEADLINE)  # throughput, TTFR and RSS of every pair
    assert "settled (within" in text or "NOT settled" in text
    [line] = [x for x in found.notes() if "no published figure" in x]
    assert "Micronaut and Helidon SE" in line and "Quarkus" not in line.split(":")[0]


def test_a_headline_ratio_the_run_could_not_give_is_named_with_why(store):
    view = _run(store, ["quarkus/jvm", "spring-boot/jvm", "micronaut/jvm"], extra=["helidon/jvm"],
                failed={"helidon/jvm": "did not start: port in use"})
    lines = findings.findings(view).notes()
    missing = [x for x in lines if "no ratio" in x]
    assert {x.split(":")[0] for x in missing} == {"quarkus/jvm / helidon/jvm", "spring-boot/jvm / helidon/jvm",
                                                  "micronaut/jvm / helidon/jvm"}
    assert all("helidon/jvm failed in steady (did not start: port in use)" in x for x in missing)
    left_out = findings.findings(_run(store, ["quarkus/jvm", "spring-boot/jvm"])).notes()
    assert any(x.startswith("quarkus/jvm / micronaut/jvm: no ratio: micronaut/jvm is not in this run")
               for x in left_out)
    assert not any("no published figure" in x for x in left_out)  # Quarkus and Spring Boot have published figures


def test_without_a_rounds_record_the_plans_headline_ratios_are_the_ones_compared(store):
    found = findings.findings(_run(store, FOUR, record=False))
    pairs = {(r.numerator, r.denominator) for r in found.ratios if r.what.startswith("throughput")}
    assert ("spring-boot/jvm", "micronaut/jvm") in pairs and ("micronaut/jvm", "helidon/jvm") in pairs
    assert not any("no ratio" in x for x in found.notes())


def test_the_section_needs_two_of_the_four_frameworks(store):
    assert frameworks.side_by_side(_run(store, ["quarkus/jvm", "go-reference/native"])) is None
    # a full-like run: its own headline, other apps beside; the section shows the frameworks and Go only
    plan = {**PLAN, "name": "full", "rounds": {"target": 0.05}}
    side = frameworks.side_by_side(_run(store, ["micronaut/jvm", "helidon/jvm", "thorntail/jvm"], plan=plan))
    assert side is not None and [r.target for r in side.rows] == ["micronaut/jvm", "helidon/jvm"]


def test_the_chart_has_a_panel_per_figure_and_each_interval_as_whiskers(store):
    view = _run(store, [*FOUR, "go-reference/native"])
    side = frameworks.side_by_side(view)
    chart = frameworks.chart(side, {t: "#123456" for t in view.targets()})
    spec = chart.spec()
    assert len(spec["layout"]["annotations"]) == len(FIGURES)  # one titled panel per figure
    traces = [t for t in spec["data"] if t.get("error_y")]
    assert len(traces) == len(FIGURES) * 5
    rps = next(r for r in side.rows if r.target == "helidon/jvm").levels["rps"]
    [drawn] = [t for t in traces if t["name"] == "helidon/jvm" and t["y"][0] == pytest.approx(rps.estimate)]
    assert drawn["error_y"]["array"][0] == pytest.approx(rps.high - rps.estimate)
    assert drawn["error_y"]["arrayminus"][0] == pytest.approx(rps.estimate - rps.low)
    assert sum(t["showlegend"] for t in spec["data"]) == 5  # one legend entry per app/mode for every panel
    assert "no published figure exists for Micronaut and Helidon SE" in chart.note


def test_the_reports_show_the_section_after_the_findings(store):
    view = _run(store, [*FOUR, "go-reference/native"])
    page = html.render(view, RunExtras())
    assert page.index('id="findings"') < page.index('<section id="frameworks"') < page.index('id="environment"')
    assert 'data-chart="frameworks-side-by-side"' in page and 'data-table="frameworks"' in page
    assert 'href="#frameworks"' in page
    md = markdown.render(view, RunExtras())
    sections = [s.split("\n", 1)[0] for s in md.split("\n## ")[1:]]
    assert sections[:2] == ["What this run found", "The frameworks side by side"]
    assert "| helidon/jvm |" in md
    text = summary.render(view)
    assert text.index("The frameworks side by side") < text.index("what this run found")
    alone = html.render(_run(store, ["quarkus/jvm", "go-reference/native"]), RunExtras())
    assert 'id="frameworks"' not in alone
