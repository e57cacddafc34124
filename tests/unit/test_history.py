"""`perflab history PLAN`: change points within the runs of one method on one machine, the page's
ticks and marks, and the `--fail-on-change` gate on the newest run. Every run here is synthetic,
built with the Store API; every expected figure follows from the levels the tests set."""

from __future__ import annotations

import argparse
from html import escape

import numpy as np
import pytest

from perflab import results
from perflab.report import history, history_basis
from perflab.store import Store

PLAN = {"name": "watch", "description": "", "apps": ["quarkus", "go-ref"], "modes": ["jvm"], "repeats": 3,
        "scenarios": ["startup", "steady"], "cv_threshold": 0.10}
ENV = {"cpu_model": "Test CPU 1", "cpus_online": 4, "hostname": "lab-1", "jdks": {"21": "21.0.5"},
       "frameworks": {"quarkus": "Quarkus 3.20.0"}, "drivers": {"wrk": "4.2.0"}, "cgroup": "v2"}
BASE = {"quarkus/jvm": {"tput": 20000.0, "ttfr": 900.0, "rss": 150.0, "cpu": 0.2},
        "go-ref/jvm": {"tput": 40000.0, "ttfr": 20.0, "rss": 15.0, "cpu": 0.1}}
NOISE = 0.01
# quarkus/jvm's throughput over its run's reference, go-ref/jvm: the pair's denominator
QUARKUS_TPUT = "steady-state throughput, quarkus/jvm / go-ref/jvm"


def _add_run(store: Store, n: int, rng, *, scale: dict[str, float] | None = None, plan: dict = PLAN,
             env: dict = ENV, chase: float | None = None, base: dict = BASE) -> str:
    """One run: three launches per app/mode at base's levels (throughput times scale[target], the
    per-request figures divided by it), each value with NOISE; started n minutes after the first."""
    run = store.begin_run(plan, {**env, "git": {"sha": f"{n:07x}" + "0" * 33, "dirty": False}})
    store.db.execute("UPDATE runs SET started_at=? WHERE id=?", (1_790_000_000 + 60 * n, run))
    for target, level in base.items():
        app, mode = target.split("/")
        k = (scale or {}).get(target, 1.0)
        for r in range(3):
            def noisy(v: float) -> float:
                return v * float(np.exp(rng.normal(0, NOISE)))
            store.add_figure(run, app, mode, "startup", "ttfr_ms", noisy(level["ttfr"] / k), "ms", point="warm", repeat=r)
            store.add_figure(run, app, mode, "startup", "rss_after_first_mb", noisy(level["rss"] / k), "MB",
                             point="warm", repeat=r)
            at = {"point": "c=32", "params": {"connections": 32, "path": "/hello"}}
            store.add_figure(run, app, mode, "steady", "rps", noisy(level["tput"] * k), "req/s", **at, repeat=r)
            store.add_figure(run, app, mode, "steady", "app_cpu_ms_per_request", noisy(level["cpu"] / k), "ms",
                             **at, repeat=r)
    for r in range(8 if chase else 0):  # the canary's pointer chase before and after each launch, noisy as on a VM
        for side in ("app", "load"):
            store.add_figure(run, "quarkus", "jvm", "canary", f"{side}_cache_ms",
                             chase * float(np.exp(rng.normal(0, 0.10))), "ms", point="before", repeat=r)
    if {"quarkus/jvm", "go-ref/jvm"} <= set(base):
        k = {t: (scale or {}).get(t, 1.0) for t in base}
        ratio = base["quarkus/jvm"]["tput"] * k["quarkus/jvm"] / (base["go-ref/jvm"]["tput"] * k["go-ref/jvm"])
        store.save_rounds(run, {"ratios": [{"ratio": "quarkus/jvm / go-ref/jvm",
                                            "interval": {"estimate": ratio * float(np.exp(rng.normal(0, NOISE)))}}]})
    store.finish_run(run, "done")
    return run


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "results.sqlite")
    yield s
    s.close()


def _views(store: Store) -> list[results.RunView]:
    return history.runs_of(store, PLAN["name"])


def test_a_step_in_one_app_s_throughput_is_a_change_point_at_that_run_and_nowhere_else(store):
    rng = np.random.default_rng(11)
    ids = [_add_run(store, n, rng, scale={"quarkus/jvm": 0.8} if n >= 6 else None) for n in range(12)]
    found = history.changes(_views(store))
    quarkus = [c for c in found if "quarkus/jvm" in c.figure]
    assert quarkus and {(c.point.run_before, c.point.run_after) for c in quarkus} == {(ids[5], ids[6])}
    # as measured, the other app stayed where it was
    assert not [c for c in history.changes(_views(store), absolute=True) if c.figure.endswith(", go-ref/jvm")]
    tput = next(c for c in quarkus if c.headline == "throughput")
    assert tput.point.low < 0.8 - 1 < tput.point.high and tput.worse_pct() > 0
    ratio = next(c for c in found if c.headline == "ratio")
    assert ratio.lower_is_better is None and ratio.worse_pct() is None


def test_runs_of_another_method_or_machine_are_not_mixed_into_a_series_and_the_page_says_where_it_changed(store):
    rng = np.random.default_rng(12)
    for n in range(6):
        _add_run(store, n, rng)
    # another plan setting: another method, whose figures sit elsewhere; then the same method on another host
    other = {**PLAN, "repeats": 5}
    for n in range(6, 12):
        _add_run(store, n, rng, scale={"quarkus/jvm": 0.7, "go-ref/jvm": 0.7}, plan=other)
    for n in range(12, 18):
        _add_run(store, n, rng, scale={"quarkus/jvm": 1.4, "go-ref/jvm": 1.4}, plan=other,
                 env={**ENV, "hostname": "lab-2"})
    views = _views(store)
    assert len(history.series_groups(views)) == 3
    assert history.changes(views) == []
    page = history.render(PLAN["name"], views)
    assert f"from run {views[5].id} to run {views[6].id}: method" in page
    assert f"from run {views[11].id} to run {views[12].id}: machine lab-1 (Test CPU 1) to lab-2" in page


def test_each_tick_names_its_run_once_by_what_sets_it_apart_and_the_newest_tick_is_drawn(store):
    rng = np.random.default_rng(13)
    for n in range(4):
        _add_run(store, n, rng, plan=PLAN if n < 3 else {**PLAN, "repeats": 5})
    views = _views(store)
    charts = history.history_charts(views)
    assert charts
    for chart in charts:
        axis = chart.spec()["layout"]["xaxis"]
        assert list(axis["tickvals"]) == list(range(len(views)))
        assert axis["range"][1] > len(views) - 1 and axis["ticklabeloverflow"] == "allow"
        texts = list(axis["ticktext"])
        assert len(set(texts)) == len(views)
        for view, text in zip(views, texts):
            assert view.id[:8] not in text  # the id's date is not repeated beside the start time
            assert view.id.rsplit("-", 1)[-1] in text and view.environment["git"]["sha"][:7] in text
        assert "method" in texts[-1] and not any("method" in t for t in texts[:-1])


def _gate(store: Store, tmp_path, monkeypatch, capsys, **kw) -> tuple[int, str]:
    monkeypatch.setenv("PERFLAB_WORKDIR", str(tmp_path))
    args = argparse.Namespace(plan=PLAN["name"], out=str(tmp_path / "h.html"), fail_on_change=True, threshold=None)
    args.__dict__.update(kw)
    code = history.cli_history(args)
    return code, capsys.readouterr().out


@pytest.fixture
def store_at_workdir(tmp_path):
    s = Store(tmp_path / "results.sqlite")
    yield s
    s.close()


# one app/mode worse against its reference, go-ref/jvm, which stays: by 25 %, and by 9 % (the size of
# the machine's drift that must not fail the gate when every app moves alike); `within`: a threshold
# the step stays inside, its noise included
@pytest.mark.parametrize("scale, within", [(0.75, 60.0), (0.91, 15.0)], ids=["25-pct", "9-pct"])
def test_fail_on_change_fails_when_the_newest_run_makes_a_figure_worse_against_its_reference(
        store_at_workdir, tmp_path, monkeypatch, capsys, scale, within):
    rng = np.random.default_rng(14)
    ids = [_add_run(store_at_workdir, n, rng, scale={"quarkus/jvm": scale} if n == 9 else None) for n in range(10)]
    code, out = _gate(store_at_workdir, tmp_path, monkeypatch, capsys)
    assert code == 1
    fail = [line for line in out.splitlines() if line.strip().startswith("FAIL:")]
    assert any(f"{QUARKUS_TPUT}:" in line and f"to run {ids[9]}" in line for line in fail)
    assert all(", quarkus/jvm / go-ref/jvm:" in line for line in fail)  # quarkus's figures over its reference, each
    assert "judged relative to go-ref/jvm" in out
    page = (tmp_path / "h.html").read_text()
    assert "<td>over go-ref/jvm</td>" in page and "judged relative to go-ref/jvm" in page
    # beyond what the step worsened, the gate lets it pass
    code, _ = _gate(store_at_workdir, tmp_path, monkeypatch, capsys, threshold=within)
    assert code == 0


def test_fail_on_change_reports_an_improvement_but_passes(store_at_workdir, tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(15)
    for n in range(10):
        _add_run(store_at_workdir, n, rng, scale={"quarkus/jvm": 1.3} if n == 9 else None)
    code, out = _gate(store_at_workdir, tmp_path, monkeypatch, capsys)
    assert code == 0
    assert any(line.strip().startswith("ok:") and "quarkus/jvm" in line and "(better)" in line
               for line in out.splitlines())
    assert "gate: no change worse" in out


def test_without_the_flag_history_never_fails(store_at_workdir, tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(16)
    for n in range(10):
        _add_run(store_at_workdir, n, rng, scale={"quarkus/jvm": 0.75} if n == 9 else None)
    code, out = _gate(store_at_workdir, tmp_path, monkeypatch, capsys, fail_on_change=False)
    assert code == 0 and "gate:" not in out


def _complete_run(store: Store, n: int, ratio: float, rng) -> str:
    """A complete run whose rounds record holds the headline ratio's whole interval, as the runner stores it."""
    run = store.begin_run(PLAN | {"rounds": {"target": 0.10}}, ENV)
    store.db.execute("UPDATE runs SET started_at=? WHERE id=?", (1_790_000_000 + 60 * n, run))
    store.add_figure(run, "quarkus", "jvm", "steady", "rps", 20_000.0, "req/s", point="c=32",
                     params={"connections": 32, "path": "/hello"}, repeat=1)
    estimate = ratio * float(np.exp(rng.normal(0, 0.03)))
    interval = {"estimate": estimate, "low": estimate / 1.3, "high": estimate * 1.3, "n": 2, "paired": True,
                "sd_log": 0.02, "se_log": 0.014, "df": 1}
    store.save_rounds(run, {"ratios": [{"ratio": "quarkus/jvm / go-ref/jvm", "interval": interval}]})
    store.finish_run(run, "complete")
    return run


def test_a_ratio_is_answered_across_the_complete_runs_since_its_last_change_point(store):
    rng = np.random.default_rng(5)
    ids = [_complete_run(store, n, 0.50 if n < 6 else 0.40, rng) for n in range(12)]
    views = _views(store)
    found = history.changes(views)
    assert any(c.headline == "ratio" and c.point.run_after == ids[6] for c in found)
    [answer] = history.across(views, found)
    assert answer.runs == ids[6:] and answer.after_change
    assert answer.answer.low < 0.40 < answer.answer.high and not answer.answer.contains(0.50)
    assert answer.state().startswith("settled")
    # without the change point the runs before it would be pooled in, and the interval would hold neither level
    [whole] = history.across(views, [])
    assert whole.runs == ids and not whole.after_change and whole.answer.low < 0.45 < whole.answer.high
    assert "The answer across runs" in history.render(PLAN["name"], views, found)
    page = history.render(PLAN["name"], views, found)
    assert f"<td>{answer.answer.low:.2f}-{answer.answer.high:.2f}x</td>" in page


def test_fewer_than_three_complete_runs_give_no_answer_across_them(store):
    rng = np.random.default_rng(6)
    _complete_run(store, 0, 0.5, rng)
    _complete_run(store, 1, 0.5, rng)
    _add_run(store, 2, rng)  # ended "done", not complete: not one of the runs an answer rests on
    assert history.across(_views(store), []) == []
    assert "No headline ratio has three complete runs" in history.render(PLAN["name"], _views(store), [])


def test_a_change_point_where_the_hosts_shared_cache_moved_too_says_so(store):
    """Neighbours contending for a VM host's cache move every memory-bound figure at once: a change
    point at the runs where the canary's pointer chase moved may be the host's, not the code's."""
    rng = np.random.default_rng(11)
    ids = [_add_run(store, n, rng, scale={"quarkus/jvm": 1.35} if n >= 6 else None, chase=13.0 if n >= 6 else 21.0)
           for n in range(12)]
    found = [c for c in history.changes(_views(store)) if c.figure == QUARKUS_TPUT]
    [change] = found
    assert change.point.run_after == ids[6]
    assert "the host's shared cache moved at the same runs" in change.host and "app's CPU" in change.host
    assert change.host in change.text() and escape(change.host) in history.render(PLAN["name"], _views(store))


def test_a_change_point_on_a_host_whose_cache_held_is_the_figures_own(store):
    rng = np.random.default_rng(11)
    [_add_run(store, n, rng, scale={"quarkus/jvm": 0.8} if n >= 6 else None, chase=20.0) for n in range(12)]
    found = [c for c in history.changes(_views(store)) if c.figure == QUARKUS_TPUT]
    assert found and all(c.host == "" for c in found)


def test_a_host_whose_cache_drifts_part_of_the_way_back_after_a_step_still_took_the_step(store):
    """Tonight's runs on the 2-core VM: the chase stepped from 19-26 ms to 12-14 ms at the change
    point, and later runs read 16-18 ms; the nearest runs of the two sides came within 20 %."""
    rng = np.random.default_rng(11)
    chase = [21.0] * 6 + [13.0] * 3 + [17.5] * 3
    ids = [_add_run(store, n, rng, scale={"quarkus/jvm": 1.35} if n >= 6 else None, chase=chase[n]) for n in range(12)]
    [change] = [c for c in history.changes(_views(store)) if c.figure == QUARKUS_TPUT]
    assert change.point.run_after == ids[6]
    assert "the host's shared cache moved at the same runs" in change.host


# The machine drifted: every app/mode's figures move by one factor at once (throughput 9 % down, the
# per-request figures up by as much), their ratios unchanged.
DRIFT = {"quarkus/jvm": 0.91, "go-ref/jvm": 0.91}


def test_a_drift_of_the_machine_that_moves_every_app_alike_is_no_change_over_the_reference(store):
    rng = np.random.default_rng(21)
    ids = [_add_run(store, n, rng, scale=DRIFT if n >= 6 else None) for n in range(12)]
    views = _views(store)
    assert [c for c in history.changes(views) if c.headline != "ratio"] == []
    measured = history.changes(views, absolute=True)
    assert {c.figure.rsplit(", ", 1)[-1] for c in measured} >= {"quarkus/jvm", "go-ref/jvm"}
    assert {c.point.run_after for c in measured} == {ids[6]}


def test_the_gate_passes_a_drift_of_the_machine_and_fails_it_only_on_absolute_figures(store_at_workdir, tmp_path,
                                                                                        monkeypatch, capsys):
    rng = np.random.default_rng(22)
    for n in range(10):
        _add_run(store_at_workdir, n, rng, scale=DRIFT if n == 9 else None)
    code, out = _gate(store_at_workdir, tmp_path, monkeypatch, capsys)
    assert code == 0 and "FAIL:" not in out
    assert "judged relative to go-ref/jvm measured in the same run" in out
    code, out = _gate(store_at_workdir, tmp_path, monkeypatch, capsys, absolute=True)
    assert code == 1
    fail = [line for line in out.splitlines() if line.strip().startswith("FAIL:")]
    assert any("steady-state throughput, go-ref/jvm:" in line for line in fail)
    assert any("time to first response (warm launches), quarkus/jvm:" in line for line in fail)
    assert "judged on absolute figures (--absolute)" in out and "drift of the machine" in out
    page = (tmp_path / "h.html").read_text()
    assert "as measured (--absolute)" in page and "over go-ref/jvm" not in page


def test_a_run_with_no_reference_is_judged_on_absolute_figures_and_says_so(store_at_workdir, tmp_path, monkeypatch,
                                                                         capsys):
    rng = np.random.default_rng(24)
    alone = {**PLAN, "apps": ["quarkus"]}
    base = {"quarkus/jvm": BASE["quarkus/jvm"]}
    ids = [_add_run(store_at_workdir, n, rng, plan=alone, base=base, scale={"quarkus/jvm": 0.91} if n == 9 else None)
           for n in range(10)]
    code, out = _gate(store_at_workdir, tmp_path, monkeypatch, capsys)
    assert f"the newest run {ids[9]} has no reference app/mode to divide by" in out
    assert "judged absolute across runs" in out and "drift of the machine" in out
    assert code == 1 and f"FAIL: steady-state throughput, quarkus/jvm: " in out
    assert "<td>as measured: no reference</td>" in (tmp_path / "h.html").read_text()


def _run_of(store: Store, rng, base: dict, headline: list[str] | None = None) -> results.RunView:
    plan = {**PLAN, "apps": sorted({t.split("/")[0] for t in base})} | ({"rounds": {"headline": headline}}
                                                                       if headline else {})
    run = _add_run(store, 0, rng, plan=plan, base=base)
    return results.load(store, run)


def test_the_reference_is_the_headline_denominator_else_the_go_reference(store):
    rng = np.random.default_rng(25)
    go = {"tput": 40000.0, "ttfr": 20.0, "rss": 15.0, "cpu": 0.1}
    spring = {"tput": 15000.0, "ttfr": 1500.0, "rss": 250.0, "cpu": 0.3}
    q = BASE["quarkus/jvm"]
    # a JVM app beside the Go reference makes no headline pair: the Go reference
    assert history_basis.reference(_run_of(store, rng, {"quarkus/jvm": q, "go-reference/native": go})) == \
        "go-reference/native"
    # two JVM apps make a pair, whose denominator comes first
    three = {"quarkus/jvm": q, "spring/jvm": spring, "go-reference/native": go}
    assert history_basis.reference(_run_of(store, rng, three)) == "spring/jvm"
    # the plan's named pair
    assert history_basis.reference(_run_of(store, rng, three, ["spring/jvm:quarkus/jvm"])) == "quarkus/jvm"
    assert history_basis.reference(_run_of(store, rng, {"quarkus/jvm": q})) is None
