"""The stability lines under the steady tables (what quick prints at its end) and the launches x
in-launch intervals beside every steady figure: each headline figure states its CV, its launches,
whether each launch reached steady state, and for a miss its cause."""

from __future__ import annotations

import pytest

from perflab import results
from perflab.report import summary
from perflab.report.sections import scenario_tables
from perflab.scenarios import steady
from perflab.store import Store
from tests.unit.test_report import ENV, PLAN

POINT, PARAMS = "fruits c=40", {"path": "/fruits", "connections": 40}
SETTLED = "spread 3.0%, trend +0.1% (p=0.50)"
COMPILING = "not steady after 40 s of warm-up: JIT still compiling: 350 ms/s"


def _at(seconds: int) -> str:
    """The reason of a launch that reached steady state, as the scenario words it."""
    return f"steady {seconds} s after launch: {SETTLED}"


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "results.sqlite")
    yield s
    s.close()


def _run(store: Store, launches: dict[str, list[tuple[float, str, int]]], *, outcomes: bool = True,
         flags: dict[tuple[str, int], list[str]] | None = None, precision_pct: float = 2.0) -> results.RunView:
    """launches: app/mode -> per launch (req/s, the launch's reason, in-launch intervals), stored the
    way the steady scenario stores them."""
    run = store.begin_run({**PLAN, "scenarios": ["steady"]}, ENV)
    for target, values in launches.items():
        app, mode = target.split("/")
        for k, (rps, why, intervals) in enumerate(values, start=1):
            settled = not why.startswith(steady.NOT_STEADY)
            marks = (flags or {}).get((target, k), []) + ([] if settled else ["not-steady"])
            at = dict(point=POINT, params=PARAMS, repeat=k, flags=marks)
            for metric, value in (("rps", rps), ("latency_p99_ms", 10.0 + k), ("measured_s", intervals),
                                  ("measured_intervals", intervals), ("precision_pct", precision_pct)):
                store.add_figure(run, app, mode, "steady", metric, value, "", **at)
            if settled:
                store.add_figure(run, app, mode, "steady", "time_to_steady_ms", 20_000.0 + k, "ms", **at)
            if outcomes:
                store.add_outcome(run, app, mode, f"steady:{steady.launch_part(POINT, k)}", "ok", why)
    store.finish_run(run, "complete")
    return results.load(store, run)


def _line(lines: list[str], start: str) -> str:
    return next(x.strip() for x in lines if x.strip().startswith(start))


def _block(lines: list[str], target: str) -> list[str]:
    """The lines of one app/mode: its header and its figures' lines below it."""
    i = next(i for i, x in enumerate(lines) if x.strip().startswith(f"{target} {POINT}"))
    end = next((j for j in range(i + 1, len(lines)) if not lines[j].startswith("    ")), len(lines))
    return lines[i:end]


def test_a_launch_that_never_settled_is_a_miss_with_its_reason_though_the_cv_is_small(store):
    view = _run(store, {"spring-boot/jvm": [(2000.0, COMPILING, 10), (2010.0, _at(38), 12)]})
    block = _block(steady.stability(view), "spring-boot/jvm")
    assert block[0].strip() == "spring-boot/jvm fruits c=40: 2 launches x 10-12 in-launch intervals (#1 NOT steady, #2 steady)"
    rps = _line(block, "req/s")
    assert "CV 0.4% over 2 launches, steady in 1 of 2" in rps
    assert rps.endswith(f"MISS: not steady: launch 1: {COMPILING}")
    assert "ok" not in rps
    assert _line(block, "p99 ms").endswith("steady in 1 of 2; not steady in launch 1 (no target)")


def test_a_spread_between_steady_launches_is_a_miss_that_says_so(store):
    view = _run(store, {"thorntail/jvm": [(3000.0, _at(30), 10),
                                          (3400.0, _at(31), 10)]},
                flags={("thorntail/jvm", 2): ["errors"]})
    rps = _line(_block(steady.stability(view), "thorntail/jvm"), "req/s")
    assert "CV 8.8% over 2 launches, steady in 2 of 2: MISS: spread between launches (CV above 5%) with steady " \
           "state reached in every launch; the launches differ by 12.5 %, beyond their own measurement's precision " \
           "(+-2.0 %): they settled at different throughputs; also errors" in rps


def test_a_spread_within_the_launches_own_precision_is_told_apart_from_launches_that_settled_apart(store):
    launches = {"quarkus/jvm": [(11_000.0, _at(50), 30), (12_000.0, _at(48), 30)]}  # 8.7 % apart
    noisy = _line(_block(steady.stability(_run(store, launches, precision_pct=6.0)), "quarkus/jvm"), "req/s")
    assert "MISS" in noisy
    assert "the launches differ by 8.7 %, within their own measurement's precision (+-6.0 %" in noisy
    precise = _line(_block(steady.stability(_run(store, launches, precision_pct=1.5)), "quarkus/jvm"), "req/s")
    assert "the launches differ by 8.7 %, beyond their own measurement's precision (+-1.5 %): they settled at " \
           "different throughputs" in precise


def test_a_steady_and_stable_jvm_app_is_ok_and_the_go_reference_is_a_reference_not_a_miss(store):
    view = _run(store, {"quarkus/jvm": [(5500.0, _at(25), 10),
                                        (5600.0, _at(28), 14)],
                        "go-reference/native": [(20000.0, _at(3), 10),
                                                (22500.0, _at(3), 10)]})
    lines = steady.stability(view)
    assert _line(_block(lines, "quarkus/jvm"), "req/s").endswith("CV 1.3% over 2 launches, steady in 2 of 2: ok")
    go = _line(_block(lines, "go-reference/native"), "req/s")
    assert "reference, not a JVM app (the target is for JVM apps): spread between launches" in go
    assert "MISS" not in go
    assert _line(_block(lines, "quarkus/jvm"), "time to steady ms").startswith("time to steady ms 20,002: CV")


def test_the_quarkus_spring_ratio_says_when_either_side_was_not_steady(store):
    quarkus = [(5500.0, _at(25), 10), (5600.0, _at(28), 10)]
    settled = _run(store, {"quarkus/jvm": quarkus, "spring-boot/jvm": [(2000.0, _at(50), 10),
                                                                       (2020.0, _at(52), 10)]})
    assert "both steady in every launch" in _line(steady.stability(settled), "quarkus/jvm / spring-boot/jvm")
    unsettled = _run(store, {"quarkus/jvm": quarkus, "spring-boot/jvm": [(2000.0, COMPILING, 10), (2020.0, COMPILING, 10)]})
    ratio = _line(steady.stability(unsettled), "quarkus/jvm / spring-boot/jvm")
    assert "NOT a steady-state ratio: spring-boot/jvm not steady in 2 of 2 launches" in ratio


def test_a_run_stored_before_launch_reasons_still_tells_steady_from_not_steady(store):
    view = _run(store, {"spring-boot/jvm": [(2000.0, COMPILING, 10), (2010.0, _at(38), 12)]},
                outcomes=False)
    rps = _line(_block(steady.stability(view), "spring-boot/jvm"), "req/s")
    assert "steady in 1 of 2: MISS: not steady: a launch: not steady (reason not recorded)" in rps


def test_every_steady_table_shows_launches_and_in_launch_intervals_and_does_not_repeat_them(store):
    view = _run(store, {"quarkus/jvm": [(5500.0, _at(25), 10),
                                        (5600.0, _at(28), 14)],
                        "spring-boot/jvm": [(2000.0, COMPILING, 10), (2020.0, COMPILING, 11)]})
    tables = scenario_tables(view, "steady")
    headline = next(t for t in tables if t.key == f"steady-{POINT}")
    assert [label for label, _ in headline.rows] == ["quarkus/jvm (2 launches x 10-14 intervals)",
                                                     "spring-boot/jvm (2 launches x 10-11 intervals, 2 not steady)"]
    # in the labels, not again as figures of an "other figures" table
    assert [c for t in tables for c in t.cells() if c.metric == "measured_intervals"] == []
    assert "quarkus/jvm (2 launches x 10-14 intervals)" in summary.render(view, width=300)


def test_the_ratio_compares_the_most_connections_whatever_order_the_points_were_stored_in(store):
    from perflab.headline import cells as headline_cells

    run = store.begin_run({**PLAN, "scenarios": ["steady"]}, ENV)
    # the 40-connection point first, then a 4-connection one (a plan may list its points either way)
    for connections, rps in ((40, {"quarkus": 20_000.0, "spring-boot": 10_000.0}),
                             (4, {"quarkus": 15_000.0, "spring-boot": 10_000.0})):
        for app, value in rps.items():
            for k in (1, 2):
                store.add_figure(run, app, "jvm", "steady", "rps", value, "req/s", point=f"fruits c={connections}",
                                 params={"path": "/fruits", "connections": connections}, repeat=k)
    store.finish_run(run, "complete")
    view = results.load(store, run)
    assert {t: c.params["connections"] for t, c in headline_cells(view).items()} == {
        "quarkus/jvm": 40, "spring-boot/jvm": 40}
    assert "2.00x" in _line(steady.stability(view), "quarkus/jvm / spring-boot/jvm")


def test_a_figure_from_launches_held_back_from_outside_says_so_beside_its_verdict(store):
    view = _run(store, {"thorntail/jvm": [(12_000.0, _at(70), 38), (12_100.0, _at(72), 38)]},
                flags={("thorntail/jvm", 2): ["held-back"]})
    rps = _line(_block(steady.stability(view), "thorntail/jvm"), "req/s")
    assert rps.startswith("req/s 12,050: CV 0.6% over 2 launches, steady in 2 of 2: ok; also intervals in which the "
                          "app used well under its usual CPU share, held back from outside it")


def test_a_figure_from_launches_whose_cpu_was_stolen_from_says_so_beside_its_verdict(store):
    view = _run(store, {"thorntail/jvm": [(12_000.0, _at(70), 38), (12_100.0, _at(72), 38)]},
                flags={("thorntail/jvm", 1): ["contended"]})
    rps = _line(_block(steady.stability(view), "thorntail/jvm"), "req/s")
    assert "the hypervisor stole time from" in rps and "held back" not in rps
