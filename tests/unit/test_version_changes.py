"""The verdict per change between consecutive versions, from launch-level values; the report by
version, the compare gate and the history page that read it from a stored run."""

from __future__ import annotations

import argparse
from collections import Counter

from perflab import results
from perflab.report import gate, history, versions as by_version
from perflab.profiles.merged import Profile
from perflab.report import cli_compare
from perflab.report.profiles import diff_anchor, pairs
from perflab.report.version_changes import (FASTER, SLOWER, TOO_FEW, UNEQUAL_LOAD, WITHIN_NOISE, changes, judge,
                                            unavailable)
from perflab.store import Store

# a host whose speed swings from round to round far more than the change between the versions
HOST = {1: 100.0, 2: 150.0, 3: 210.0, 4: 120.0, 5: 180.0}
JITTER = {1: 1.003, 2: 0.998, 3: 1.002, 4: 0.999, 5: 1.001}


def _scaled(by_round: dict[int, float], factor: float) -> dict[int, float]:
    return {r: v * factor * JITTER[r] for r, v in by_round.items()}


def test_a_change_smaller_than_the_hosts_swings_is_still_seen_when_paired_by_round():
    verdict = judge(HOST, _scaled(HOST, 1.05), lower_is_better=True)
    assert verdict.verdict == SLOWER
    assert verdict.interval.paired and 3 < verdict.change_pct < 7


def test_the_direction_of_better_decides_faster_or_slower():
    assert judge(HOST, _scaled(HOST, 0.9), lower_is_better=True).verdict == FASTER
    assert judge(HOST, _scaled(HOST, 0.9), lower_is_better=False).verdict == SLOWER  # less throughput
    assert judge(HOST, _scaled(HOST, 1.1), lower_is_better=False).verdict == FASTER


def test_launches_that_straddle_each_other_are_within_noise():
    older = {1: 100.0, 2: 104.0, 3: 98.0, 4: 103.0}
    newer = {1: 103.0, 2: 99.0, 3: 101.0, 4: 100.0}
    verdict = judge(older, newer, lower_is_better=True)
    assert verdict.verdict == WITHIN_NOISE
    assert verdict.interval.low < 1 < verdict.interval.high


def test_one_launch_a_side_gives_no_verdict():
    assert judge({1: 100.0}, {1: 200.0}, lower_is_better=True).verdict == TOO_FEW


def test_the_threshold_lets_a_small_regression_through_and_stops_a_larger_one():
    verdict = judge(HOST, _scaled(HOST, 1.12), lower_is_better=True)
    assert verdict.regression_beyond(5) and not verdict.regression_beyond(20)
    assert not judge(HOST, _scaled(HOST, 0.8), lower_is_better=True).regression_beyond(5)  # faster is no regression
    less = judge(HOST, _scaled(HOST, 0.85), lower_is_better=False)  # throughput down by 15 %: 1 / 0.85 = +17.6 %
    assert less.regression_beyond(15) and not less.regression_beyond(18)


def _store_run(store: Store, name: str = "upgrade") -> str:
    """A run of three Quarkus versions (3.10.0 slower than 3.9.0 on every launch) and one that did not build."""
    run = store.begin_run({"name": name, "versions": {"quarkus": ["3.9.0", "3.10.0", "3.33.2"]}}, {})
    store.save_rounds(run, {"seed": 1, "orders": []})
    factors = {"3.9.0": 1.0, "3.10.0": 1.3, "3.33.2": 1.3}
    for version, factor in factors.items():
        for r, v in _scaled(HOST, factor).items():
            store.add_figure(run, f"quarkus@{version}", "jvm", "startup", "ttfr_ms", v, "ms", point="warm", repeat=r)
    store.add_outcome(run, "quarkus@3.38.1", "jvm", "startup", "unavailable",
                      "quarkus@3.38.1 does not build here: Could not find artifact io.quarkus:x:jar:3.38.1")
    store.finish_run(run, "complete")
    return run


def test_a_runs_changes_follow_release_order_and_name_the_unavailable_version(workdir):
    store = Store()
    view = results.load(store, _store_run(store))
    found = [(c.older, c.newer, c.headline.key, c.verdict.verdict) for c in changes(view)]
    assert found == [("3.9.0", "3.10.0", "ttfr", SLOWER), ("3.10.0", "3.33.2", "ttfr", WITHIN_NOISE)]
    assert "Could not find artifact io.quarkus:x:jar:3.38.1" in unavailable(view)["quarkus@3.38.1"]
    page = by_version.render(view)
    assert page.count('class="slower"') == 1 and "3.38.1" in page and "Plotly.newPlot" in page


def test_compare_of_one_runs_versions_fails_only_above_the_threshold(workdir, capsys):
    store = Store()
    run = _store_run(store)
    assert cli_compare(argparse.Namespace(run_a=run, run_b=None, fail_above=5.0)) == 1
    assert "3.9.0 -> 3.10.0" in capsys.readouterr().out
    assert cli_compare(argparse.Namespace(run_a=run, run_b=None, fail_above=40.0)) == 0
    assert cli_compare(argparse.Namespace(run_a=run, run_b=None, fail_above=None)) == 0
    assert gate.version_regressions(results.load(store, run), 5.0)[0].startswith("quarkus/jvm 3.9.0 -> 3.10.0")


def test_the_history_page_has_every_run_of_the_plan_oldest_first(workdir):
    store = Store()
    first, second = _store_run(store), _store_run(store)
    _store_run(store, name="quick")
    views = history.runs_of(store, "upgrade")
    assert [v.id for v in views] == [first, second]
    charts = history.history_charts(views)
    assert [c.key for c in charts] == ["history-ttfr"]
    assert len(charts[0].figure.data[0].x) == 2  # one point per run


def test_compare_of_two_runs_fails_on_a_figure_worse_beyond_the_noise_and_the_threshold(workdir):
    store = Store()
    runs = []
    for factor in (1.0, 1.3):
        run = store.begin_run({"name": "gate"}, {})
        for r, v in enumerate((100.0, 101.0, 99.0, 100.5, 102.0), start=1):
            store.add_figure(run, "quarkus", "jvm", "startup", "ttfr_ms", v * factor, "ms", point="warm", repeat=r)
        store.finish_run(run, "complete")
        runs.append(run)
    args = dict(run_a=runs[0], run_b=runs[1], force=False, out=str(workdir / "cmp.html"))
    assert cli_compare(argparse.Namespace(**args, fail_above=10.0)) == 1
    assert cli_compare(argparse.Namespace(**args, fail_above=40.0)) == 0
    assert cli_compare(argparse.Namespace(**{**args, "run_a": runs[1], "run_b": runs[0]}, fail_above=10.0)) == 0


def test_a_slower_change_links_to_its_versions_differential_profile_when_both_were_profiled(workdir):
    store = Store()
    view = results.load(store, _store_run(store))
    profiled = by_version.render(view, {"quarkus@3.9.0/jvm", "quarkus@3.10.0/jvm"})
    anchor = diff_anchor("quarkus@3.9.0/jvm", "quarkus@3.10.0/jvm")
    assert profiled.count('href="report.html#') == 1 and f'href="report.html#{anchor}"' in profiled
    unprofiled = by_version.render(view, {"quarkus@3.9.0/jvm"})  # the newer side has no profile
    assert 'href="report.html' not in unprofiled and "no profiles (run with --profile)" in unprofiled


def test_profiled_versions_are_set_against_the_version_before_them_in_release_order():
    def prof(app: str, mode: str = "jvm") -> Profile:
        return Profile(app=app, mode=mode, point="c=4", profiler="jfr")

    found = [(a.app, b.app) for a, b in pairs([prof("quarkus@3.10.0"), prof("spring-boot@4.0.7"),
                                                prof("quarkus@3.9.0"), prof("spring-boot@4.1.1"),
                                                prof("quarkus@3.33.2")])]
    assert sorted(found) == [("quarkus@3.10.0", "quarkus@3.33.2"), ("quarkus@3.9.0", "quarkus@3.10.0"),
                             ("spring-boot@4.0.7", "spring-boot@4.1.1")]


def _open_loop_run(store: Store, newer_rate: float) -> str:
    """Two versions whose p99 at the open-loop point is 40 % higher for the newer one, offered 1,000 req/s
    against `newer_rate`."""
    run = store.begin_run({"name": "upgrade", "versions": {"quarkus": ["3.9.0", "3.10.0"]}}, {})
    store.save_rounds(run, {"seed": 1, "orders": []})
    point, params = "fruits c=4 open loop 50%", {"path": "/fruits", "fraction": 0.5, "open_loop": True}
    for version, p99_factor, rate in (("3.9.0", 1.0, 1000.0), ("3.10.0", 1.4, newer_rate)):
        for r, v in _scaled(HOST, p99_factor).items():
            for metric, value, unit in (("latency_p99_ms", v / 10, "ms"), ("offered_rate", rate, "req/s")):
                store.add_figure(run, f"quarkus@{version}", "jvm", "steady", metric, value, unit, point=point,
                                 params=params, repeat=r)
    store.finish_run(run, "complete")
    return run


def test_latencies_offered_unequal_rates_are_not_judged_slower_nor_fail_the_gate(workdir):
    store = Store()
    equal = results.load(store, _open_loop_run(store, newer_rate=1050.0))  # within one build's spread
    [change] = changes(equal)
    assert change.headline.key == "p99" and change.verdict.verdict == SLOWER
    assert gate.version_regressions(equal, 5.0)

    unequal = results.load(store, _open_loop_run(store, newer_rate=1400.0))  # the newer version served more
    [change] = changes(unequal)
    assert change.verdict.verdict == UNEQUAL_LOAD and change.verdict.interval.estimate > 1.3
    assert "offered 1,000 vs 1,400 req/s" in change.verdict.why
    assert gate.version_regressions(unequal, 5.0) == []
    assert "at unequal load (offered 1,000 vs 1,400 req/s" in by_version.render(unequal)
