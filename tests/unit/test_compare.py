"""compare(A, B): per figure the change of the medians and whether it is beyond the noise of the
repeats; too few repeats are said as such; runs of different methods are refused unless forced,
and then every line is marked."""

from __future__ import annotations

import argparse

import pytest

from perflab import results
from perflab.errors import LabError
from perflab.report import cli_compare, compare
from perflab.store import Store

PLAN = {"name": "cmp", "repeats": 5, "limits": {"cpus": 1, "memory_mb": 1024}}
ENV = {"cpu_model": "Test CPU", "cpus_online": 2}


def _run(store: Store, figures: dict[tuple[str, str, str], list[float]], plan: dict = PLAN) -> results.RunView:
    """figures: (scenario, point, metric) -> repeats, for spring-boot/jvm."""
    run = store.begin_run(plan, ENV)
    for (scenario, point, metric), values in figures.items():
        for r, v in enumerate(values):
            store.add_figure(run, "spring-boot", "jvm", scenario, metric, v, "x", point=point, repeat=r)
    store.finish_run(run, "complete")
    return results.load(store, run)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "r.sqlite")
    yield s
    s.close()


def _change(cmp: compare.RunComparison, metric: str) -> compare.FigureChange:
    return next(c for c in cmp.changes if c.key[4] == metric)


def test_a_real_change_is_flagged_in_the_metric_s_own_direction(store):
    base = [100.0, 101.0, 99.0, 100.5, 99.5]
    a = _run(store, {("sweep", "fruits c=10", "rps"): base, ("startup", "warm", "ttfr_ms"): base})
    b = _run(store, {("sweep", "fruits c=10", "rps"): [v * 1.3 for v in base],
                     ("startup", "warm", "ttfr_ms"): [v * 1.3 for v in base]})
    cmp = compare.compare_runs(a, b)
    assert _change(cmp, "rps").verdict == compare.BETTER  # more req/s
    assert _change(cmp, "ttfr_ms").verdict == compare.WORSE  # slower start
    assert _change(cmp, "rps").result.relative_change == pytest.approx(0.3)
    text = compare.render_text(cmp)
    assert "+30.0%" in text and "better" in text and "worse" in text


def test_noise_is_not_called_a_change(store):
    a = _run(store, {("sweep", "fruits c=10", "rps"): [100.0, 104.0, 97.0, 102.0, 99.0]})
    b = _run(store, {("sweep", "fruits c=10", "rps"): [101.0, 98.0, 103.0, 100.0, 96.0]})
    change = _change(compare.compare_runs(a, b), "rps")
    assert change.verdict == compare.WITHIN_NOISE
    assert change.result.p_value > 0.05


def test_three_launches_a_side_are_judged_by_welch_s_t_test_and_it_says_so(store):
    # the rank test's smallest p at 3 vs 3 is 0.1: Welch's t-test decides, and the line says so
    a = _run(store, {("sweep", "fruits c=10", "rps"): [100.0, 101.0, 99.0]})
    b = _run(store, {("sweep", "fruits c=10", "rps"): [200.0, 201.0, 199.0]})
    cmp = compare.compare_runs(a, b)
    change = _change(cmp, "rps")
    assert change.verdict == compare.BETTER and "Welch" in change.result.method
    noisy = _run(store, {("sweep", "fruits c=10", "rps"): [150.0, 60.0, 110.0]})
    assert _change(compare.compare_runs(a, noisy), "rps").verdict == compare.WITHIN_NOISE


def test_one_value_is_too_few_for_any_verdict_and_it_says_so(store):
    a = _run(store, {("sweep", "fruits c=10", "rps"): [100.0, 101.0, 99.0]})
    b = _run(store, {("sweep", "fruits c=10", "rps"): [200.0]})
    cmp = compare.compare_runs(a, b)
    change = _change(cmp, "rps")
    assert change.verdict == compare.TOO_FEW and not change.ranges_overlap
    text = compare.render_text(cmp)
    assert "too few repeats: ranges apart, B better" in text
    assert "smallest possible p is 0.500" in text


def test_four_repeats_a_side_use_the_rank_test_and_three_against_four_do_not(store):
    # fully separated: 4 vs 4 reaches p = 2 / C(8, 4) = 2/70 = 0.029 <= 0.05; 3 vs 4 only
    # 2 / C(7, 3) = 2/35 = 0.057, so Welch's t-test decides there
    a = _run(store, {("sweep", "fruits c=10", "rps"): [100.0, 101.0, 99.0, 100.5]})
    b = _run(store, {("sweep", "fruits c=10", "rps"): [120.0, 121.0, 119.0, 120.5]})
    enough = _change(compare.compare_runs(a, b), "rps")
    assert enough.verdict == compare.BETTER
    assert enough.result.p_value == pytest.approx(2 / 70) and "Mann-Whitney" in enough.result.method
    c = _run(store, {("sweep", "fruits c=10", "rps"): [120.0, 121.0, 119.0]})
    fewer = _change(compare.compare_runs(a, c), "rps")
    assert fewer.verdict == compare.BETTER and "Welch" in fewer.result.method
    assert "rank test (whose smallest p here is 0.057)" in fewer.result.note


def test_neutral_figures_are_higher_or_lower_not_better_or_worse(store):
    a = _run(store, {("sweep", "fruits c=10", "driver_cpu_util"): [0.30, 0.31, 0.29, 0.30, 0.305]})
    b = _run(store, {("sweep", "fruits c=10", "driver_cpu_util"): [0.60, 0.61, 0.59, 0.60, 0.605]})
    assert _change(compare.compare_runs(a, b), "driver_cpu_util").verdict == compare.HIGHER


def test_runs_of_different_methods_are_refused_unless_forced_and_then_marked(store):
    a = _run(store, {("sweep", "fruits c=10", "rps"): [100.0, 101.0, 99.0, 100.0, 100.0]})
    b = _run(store, {("sweep", "fruits c=10", "rps"): [100.0, 101.0, 99.0, 100.0, 100.0],
                     ("sweep", "fruits c=40", "rps"): [1.0]},
             plan={**PLAN, "limits": {"cpus": 2, "memory_mb": 1024}})
    assert a.method_hash != b.method_hash
    with pytest.raises(LabError, match="different methods"):
        compare.compare_runs(a, b)
    cmp = compare.compare_runs(a, b, force=True)
    lines = compare.render_text(cmp).splitlines()
    figure_lines = [line for line in lines if line.startswith("spring-boot/jvm")]
    assert figure_lines and all("METHOD DIFFERS" in line for line in figure_lines)
    assert "METHOD DIFFERS" in compare.render_html(cmp)
    assert cmp.only_b == [("spring-boot", "jvm", "sweep", "fruits c=40", "rps")]


def test_cli_compare_prints_and_writes_html(workdir, capsys):
    s = Store()
    try:
        a = _run(s, {("sweep", "fruits c=10", "rps"): [100.0, 101.0, 99.0, 100.5, 99.5]})
        b = _run(s, {("sweep", "fruits c=10", "rps"): [130.0, 131.0, 129.0, 130.5, 129.5]})
    finally:
        s.close()
    out = workdir / "cmp.html"
    assert cli_compare(argparse.Namespace(run_a=a.id, run_b=b.id, force=False, out=str(out))) == 0
    printed = capsys.readouterr().out
    assert "better" in printed and str(out) in printed
    doc = out.read_text()
    assert doc.startswith("<!DOCTYPE html>") and 'class="better"' in doc


def test_two_launches_a_side_are_too_few_for_any_verdict_even_when_they_agree_closely(store):
    # two launches that happen to agree within 0.1 %, and a 2 % shift between the runs: Welch's t on
    # 2 values would call it significant (its variance rests on one difference); it is no evidence
    a = _run(store, {("steady", "fruits c=40", "rps"): [5000.0, 5004.0]})
    b = _run(store, {("steady", "fruits c=40", "rps"): [4900.0, 4903.0]})
    cmp = compare.compare_runs(a, b)
    change = _change(cmp, "rps")
    assert change.verdict == compare.TOO_FEW_LAUNCHES
    text = compare.render_text(cmp)
    assert "too few launches: ranges apart, B worse" in text
    assert "measure at least 3 launches a side" in text
    # outside the launch scenarios the same values are repeats
    c = _run(store, {("sweep", "fruits c=40", "rps"): [5000.0, 5004.0]})
    d = _run(store, {("sweep", "fruits c=40", "rps"): [4900.0, 4903.0]})
    assert _change(compare.compare_runs(c, d), "rps").verdict == compare.TOO_FEW


def test_figures_the_method_sets_are_shown_but_never_judged(store):
    # measured 10 s vs 30 s, +-2 % vs +-4 %, 10 vs 30 intervals: the stopping rules, not the app
    a = _run(store, {("steady", "fruits c=40", "measured_s"): [10.0, 10.1, 10.0, 10.2],
                     ("steady", "fruits c=40", "precision_pct"): [2.0, 2.1, 1.9, 2.0],
                     ("steady", "fruits c=40", "measured_intervals"): [10.0, 10.0, 10.0, 10.0],
                     ("steady", "fruits c=40", "latency_p99_ms"): [10.0, 10.1, 9.9, 10.0]})
    b = _run(store, {("steady", "fruits c=40", "measured_s"): [30.0, 30.1, 30.0, 30.2],
                     ("steady", "fruits c=40", "precision_pct"): [4.0, 4.1, 3.9, 4.0],
                     ("steady", "fruits c=40", "measured_intervals"): [30.0, 30.0, 30.0, 30.0],
                     ("steady", "fruits c=40", "latency_p99_ms"): [20.0, 20.1, 19.9, 20.0]})
    cmp = compare.compare_runs(a, b)
    for metric in ("measured_s", "precision_pct", "measured_intervals"):
        assert _change(cmp, metric).verdict == compare.NOT_JUDGED, metric
    assert _change(cmp, "latency_p99_ms").verdict == compare.WORSE  # the app's figure still is
    assert cmp.counts() == {compare.NOT_JUDGED: 3, compare.WORSE: 1}
    assert "not judged: the method sets it" in compare.render_text(cmp)


def test_an_open_loop_point_s_throughput_is_the_rate_offered_not_a_merit(store):
    params = {"path": "/fruits", "fraction": 0.5, "open_loop": True}
    a, b = (store.begin_run(PLAN, ENV) for _ in range(2))
    for run, rate in ((a, 2500.0), (b, 3000.0)):
        for k in range(4):
            for metric in ("rps", "latency_p99_ms"):
                store.add_figure(run, "quarkus", "jvm", "steady", metric, rate + k if metric == "rps" else 5.0 + k,
                                 "x", point="fruits c=40 open loop 50%", params=params, repeat=k)
        store.finish_run(run, "complete")
    cmp = compare.compare_runs(results.load(store, a), results.load(store, b))
    assert _change(cmp, "rps").verdict == compare.NOT_JUDGED
    assert _change(cmp, "latency_p99_ms").verdict == compare.WITHIN_NOISE


def test_two_quiet_quick_runs_are_not_flagged_by_construction(store):
    # quick: 2 launches a side; the method's own figures differ between the runs as the stopping
    # rules fell, the app's figures move a little: nothing may come out better, worse, higher or lower
    def quick(rps: list[float], measured: list[float], p99: list[float]) -> results.RunView:
        return _run(store, {("steady", "fruits c=40", "rps"): rps,
                            ("steady", "fruits c=40", "latency_p99_ms"): p99,
                            ("steady", "fruits c=40", "measured_s"): measured,
                            ("steady", "fruits c=40", "measured_intervals"): measured,
                            ("steady", "fruits c=40", "precision_pct"): [100 / m for m in measured],
                            ("steady", "fruits c=40", "errors"): [0.0, 0.0],
                            ("startup", "warm", "ttfr_ms"): [1510.0, 1512.0]})
    cmp = compare.compare_runs(quick([5010.0, 5012.0], [10.0, 10.0], [12.0, 12.1]),
                               quick([5105.0, 5106.0], [14.0, 13.0], [11.7, 11.71]))
    verdicts = {c.key[4]: c.verdict for c in cmp.changes}
    assert not {compare.BETTER, compare.WORSE, compare.HIGHER, compare.LOWER} & set(verdicts.values()), verdicts
