"""The results store: figures land immediately, runs are found by id or prefix, method hashes
separate runs that cannot be compared."""

from __future__ import annotations

import sqlite3

import pytest

from perflab import store
from perflab.errors import LabError

ENV = {"cpu_model": "Test CPU", "cpus_online": 2, "jdks": {"17": "17.0.15"}, "frameworks": {"quarkus": "3.38.0"}}


def test_each_figure_is_visible_to_another_reader_at_once(tmp_path):
    s = store.Store(tmp_path / "r.sqlite")
    run = s.begin_run({"name": "p", "repeats": 3}, ENV)
    s.add_figure(run, "quarkus", "jvm", "startup", "ttfr_ms", 812.5, "ms", repeat=1, flags=["noisy", "noisy"])
    other = sqlite3.connect(tmp_path / "r.sqlite")  # as after a crash: a fresh reader
    rows = other.execute("SELECT metric, value, flags FROM figures").fetchall()
    assert rows == [("ttfr_ms", 812.5, '["noisy"]')]
    status = other.execute("SELECT status FROM runs").fetchone()[0]
    assert status == "running"
    s.finish_run(run, "complete")
    assert s.run(run)["status"] == "complete"


def test_run_lookup_by_prefix_and_last(tmp_path):
    s = store.Store(tmp_path / "r.sqlite")
    run = s.begin_run({"name": "p"}, ENV)
    assert s.run(run[:15])["id"] == run
    assert s.run("last")["id"] == run
    assert s.run("nope") is None


def test_raw_files_are_kept_beside_the_store(tmp_path):
    s = store.Store(tmp_path / "r.sqlite")
    run = s.begin_run({"name": "p"}, ENV)
    path = s.add_file(run, "quarkus", "jvm", "sweep", "driver-output", "c10-r1.txt", "Requests/sec: 10")
    assert path.read_text() == "Requests/sec: 10"
    assert s.files(run)[0]["path"].endswith("c10-r1.txt")


def test_method_hash_changes_with_plan_limits_and_versions_but_not_the_name():
    base = store.method_hash({"name": "a", "limits": {"cpus": 1}}, ENV)
    assert base == store.method_hash({"name": "b", "limits": {"cpus": 1}}, ENV)
    assert base != store.method_hash({"name": "a", "limits": {"cpus": 2}}, ENV)
    assert base != store.method_hash({"name": "a", "limits": {"cpus": 1}}, {**ENV, "jdks": {"17": "17.0.16"}})


def test_an_ab_runs_method_holds_its_two_commits_but_not_where_they_were_checked_out():
    def ab(base_sha: str, head_sha: str, where: str = "/w", dirty: bool = False) -> dict:
        side = lambda sha, rev: {"dir": f"{where}/{sha}", "rev": rev, "sha": sha, "dirty": dirty}  # noqa: E731
        return {"name": "ab-quick", "limits": {"cpus": 1}, "ab": {"base": side(base_sha, "main"), "head": side(head_sha, "")}}
    one = store.method_hash(ab("a1", "b1"), ENV)
    assert one == store.method_hash(ab("a1", "b1", where="/elsewhere"), ENV)
    assert one != store.method_hash(ab("a1", "b2"), ENV)  # another head: another experiment, never pooled
    assert one != store.method_hash(ab("a1", "b1", dirty=True), ENV)
    # a plan without an A/B run keeps the method hash it had before the [ab] table existed
    empty = {"base": {"dir": "", "rev": "", "sha": "", "dirty": False}, "head": {"dir": "", "rev": "", "sha": "", "dirty": False}}
    assert store.method_hash({"name": "q", "limits": {"cpus": 1}, "ab": empty}, ENV) == \
        store.method_hash({"name": "q", "limits": {"cpus": 1}}, ENV)


def test_how_many_rounds_a_run_buys_and_the_plans_prose_are_not_part_of_its_method():
    plan = {"name": "q", "reductions": ["2 rounds"], "steady": {"warmup_max_s": 120},
            "rounds": {"interleave": True, "target": 0.10, "min_rounds": 0, "max_rounds": 6, "budget_min": 15}}
    base = store.method_hash(plan, ENV)
    longer = {**plan, "reductions": ["as many rounds as 45 minutes allow"],
              "rounds": {"interleave": True, "target": 0.05, "min_rounds": 5, "max_rounds": 100, "budget_min": 45}}
    assert store.method_hash(longer, ENV) == base
    # what changes how a launch is measured or paired still does
    assert store.method_hash({**plan, "rounds": {**plan["rounds"], "interleave": False}}, ENV) != base
    assert store.method_hash({**plan, "steady": {"warmup_max_s": 60}}, ENV) != base


def test_a_schema_3_file_gets_its_runs_method_hashes_computed_again(tmp_path):
    from perflab import migrate

    path = tmp_path / "r.sqlite"
    s = store.Store(path)
    quick = {"name": "quick", "rounds": {"target": 0.10, "budget_min": 15, "max_rounds": 6}}
    longer = {"name": "quick", "rounds": {"target": 0.10, "budget_min": 45, "max_rounds": 100}}
    other = {"name": "quick", "rounds": {"target": 0.10, "interleave": False}}
    runs = [s.begin_run(p, ENV) for p in (quick, longer, other)]
    # as schema 3 stored them: the hash of the whole plan, rounds' stopping rule included
    for run, stale in zip(runs, ("a1", "b2", "c3")):
        s.db.execute("UPDATE runs SET method_hash=? WHERE id=?", (stale, run))
    s.db.execute("UPDATE meta SET value='3' WHERE key='schema_version'")
    s.close()

    s = migrate.open_store(path)
    try:
        hashes = [s.run(run)["method_hash"] for run in runs]
        assert hashes[0] == hashes[1] == store.method_hash(quick, ENV) != hashes[2]
        assert (tmp_path / "r.sqlite.v3.bak").exists(), "the old file is kept before it is changed"
    finally:
        s.close()


def test_a_given_database_is_part_of_the_method_but_not_its_address_or_password():
    def plan(url):
        return {"name": "k", "placement": {"kind": "kubernetes", "postgres_url": url}}

    one = store.method_hash(plan("postgresql://perflab:pw1@10.244.0.1:19973/perflab"), ENV)
    assert one == store.method_hash(plan("postgresql://perflab:pw2@10.244.0.1:29393/perflab"), ENV)
    assert one != store.method_hash(plan(""), ENV)  # a StatefulSet of the run's own


def test_a_store_of_another_schema_version_is_refused(tmp_path):
    path = tmp_path / "r.sqlite"
    store.Store(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    db.commit()
    db.close()
    with pytest.raises(LabError, match="schema 999"):
        store.Store(path)


_V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE runs (id TEXT PRIMARY KEY, started_at REAL, finished_at REAL, status TEXT, plan_name TEXT,
                   plan_json TEXT, environment_json TEXT, method_hash TEXT, note TEXT);
CREATE TABLE figures (id INTEGER PRIMARY KEY, run_id TEXT, app TEXT, mode TEXT, scenario TEXT, point TEXT,
                      metric TEXT, repeat INTEGER, value REAL, unit TEXT, flags TEXT, measured_at REAL,
                      extra_json TEXT);
CREATE TABLE outcomes (id INTEGER PRIMARY KEY, run_id TEXT, app TEXT, mode TEXT, scenario TEXT, status TEXT,
                       reason TEXT, at REAL);
CREATE TABLE files (id INTEGER PRIMARY KEY, run_id TEXT, app TEXT, mode TEXT, scenario TEXT, kind TEXT, path TEXT);
INSERT INTO meta VALUES ('schema_version', '1');
"""


def _v1_plan() -> dict:
    """The kt2020 plan as a perflab of results schema 1 stored it (memory held rest_s and sample_hz;
    the aot and steady tables did not exist)."""
    from perflab import plan

    data = plan.load("kt2020").data
    old = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()
           if k not in ("sample_hz", "aot", "steady")}
    old["memory"]["rest_s"] = old["startup"].pop("rest_s")
    old["memory"]["sample_hz"] = data["sample_hz"]
    del old["density"]["rest_s"]
    del old["scaleup"]["poll_ms"]
    for key in ("poll_ms", "timeout_s", "path"):
        del old["coldstart"][key]
    for section in ("density", "soak"):
        del old[section]["timeout_s"]
    del old["density"]["probe_connections"]
    return old


def test_a_schema_1_results_file_is_upgraded_and_its_runs_stay_comparable(tmp_path):
    import json

    from perflab import migrate, plan, results

    path = tmp_path / "r.sqlite"
    db = sqlite3.connect(path)
    db.executescript(_V1_SCHEMA)
    old_plan = _v1_plan()
    db.execute("INSERT INTO runs VALUES ('old', 1, 2, 'complete', 'kt2020', ?, ?, 'x', '')",
               (json.dumps(old_plan), json.dumps(ENV)))
    rows = [("memory", "warm", "rss_rest_mb", 180.0), ("memory", "load c=10", "rss_peak_mb", 250.0),
            ("sweep", "fruits c=40", "rps", 9000.0), ("latency", "25% of max", "rps", 2000.0),
            ("footprint", "", "aot_cache_mb", 60.0)]
    for scenario, point, metric, value in rows:
        db.execute("INSERT INTO figures (run_id, app, mode, scenario, point, metric, repeat, value, unit, flags, "
                   "measured_at, extra_json) VALUES ('old', 'quarkus', 'jvm', ?, ?, ?, 0, ?, 'x', '[]', 1, '{}')",
                   (scenario, point, metric, value))
    db.commit()
    db.close()

    s = migrate.open_store(path)
    try:
        assert (tmp_path / "r.sqlite.v1.bak").exists(), "the old file is kept before it is changed"
        cells = {(c.scenario, c.point, c.metric): c for c in results.load(s, "old").cells}
        # figures now belong to the scenario that measured them, and points carry their parameters
        assert cells[("startup", "warm", "rss_rest_mb")].params == {"launch": "warm"}
        assert cells[("memory", "load c=10", "rss_peak_mb")].params["connections"] == 10
        assert cells[("sweep", "fruits c=40", "rps")].params == {"series": "fruits", "connections": 40, "method": "GET"}
        assert cells[("latency", "25% of max", "rps")].params["fraction"] == 0.25
        assert ("aot", "", "aot_cache_mb") in cells
        # the old run's plan is in today's layout, and a new run of the same plan compares with it
        upgraded = json.loads(s.run("old")["plan_json"])
        assert upgraded["startup"]["rest_s"] == old_plan["memory"]["rest_s"] and "rest_s" not in upgraded["memory"]
        new = s.begin_run(plan.load("kt2020").data, ENV)
        assert s.run(new)["method_hash"] == s.run("old")["method_hash"]
    finally:
        s.close()
    store.Store(path).close()  # opening it again changes nothing



def test_typical_ready_time_is_the_median_of_the_latest_launches_of_that_app_and_mode(tmp_path):
    s = store.Store(tmp_path / "r.sqlite")
    assert s.typical_ready_s("quarkus", "jvm") is None  # nothing measured yet
    old = s.begin_run({"name": "p"}, ENV)
    for ms in (9000.0, 9500.0):
        s.add_figure(old, "quarkus", "jvm", "startup", "ready_ms", ms, "ms")
    new = s.begin_run({"name": "other plan"}, ENV)
    for ms in (4100.0, 3900.0, 4000.0):
        s.add_figure(new, "quarkus", "jvm", "startup", "ready_ms", ms, "ms")
    s.add_figure(new, "quarkus", "native", "startup", "ready_ms", 40.0, "ms")
    s.add_figure(new, "quarkus", "jvm", "startup", "ttfr_ms", 99999.0, "ms")
    assert s.typical_ready_s("quarkus", "jvm", limit=3) == pytest.approx(4.0)  # the latest three, any plan
    assert s.typical_ready_s("quarkus", "jvm") == pytest.approx(4.1)  # all five: median 4,100 ms
    assert s.typical_ready_s("quarkus", "native") == pytest.approx(0.04)


def test_typical_rss_at_rest_is_the_median_of_the_latest_launches_of_that_app_and_mode(tmp_path):
    s = store.Store(tmp_path / "r.sqlite")
    assert s.typical_rest_mb("thorntail", "jvm") is None
    run = s.begin_run({"name": "p"}, ENV)
    for value in (310.0, 290.0, 300.0):
        s.add_figure(run, "thorntail", "jvm", "startup", "rss_rest_mb", value, "MB")
    s.add_figure(run, "thorntail", "jvm", "startup", "rss_after_first_mb", 999.0, "MB")  # another figure
    s.add_figure(run, "thorntail", "jvm", "density", "rss_rest_mb", 5.0, "MB")  # another scenario
    assert s.typical_rest_mb("thorntail", "jvm") == pytest.approx(300.0)
    assert s.typical_rest_mb("thorntail", "jvm", limit=1) == pytest.approx(300.0)  # the latest: 300
    assert s.typical_rest_mb("thorntail", "native") is None


def test_a_launch_that_never_reached_steady_state_counts_as_later_than_every_one_that_did(tmp_path):
    """Left out, the launches that ran to their warm-up limit would make the typical time to steady
    state that of the quick launches only (a quick plan estimated at two thirds of what it took)."""
    s = store.Store(tmp_path / "r.sqlite")
    run = s.begin_run({"name": "p"}, ENV)

    def launch(n: int, steady_ms: float | None) -> None:
        extra = {"launch": n, "steady": steady_ms is not None}
        s.add_figure(run, "spring-boot", "jvm", "steady", "rps", 6000.0, "req/s", point="fruits c=4", repeat=n,
                     extra=extra)
        s.add_figure(run, "spring-boot", "jvm", "steady", "measured_s", 20.0 + n, "s", point="fruits c=4", repeat=n,
                     extra=extra)
        if steady_ms is not None:
            s.add_figure(run, "spring-boot", "jvm", "steady", "time_to_steady_ms", steady_ms, "ms",
                         point="fruits c=4", repeat=n, extra=extra)

    launch(1, 70_000.0)
    launch(2, None)
    launch(3, 80_000.0)
    assert s.typical_steady_s("spring-boot", "jvm") == {"fruits c=4": pytest.approx(80.0)}  # 70, 80, later
    launch(4, None)
    assert s.typical_steady_s("spring-boot", "jvm")["fruits c=4"] == float("inf")  # half ran to the limit
    for n, ms in ((5, 60_000.0), (6, 66_000.0), (7, 62_000.0)):
        launch(n, ms)
    assert s.typical_steady_s("spring-boot", "jvm", limit=3)["fruits c=4"] == pytest.approx(62.0)  # the latest three
    assert s.typical_steady_s("spring-boot", "jvm", limit=5)["fruits c=4"] == pytest.approx(66.0)  # 4 ran to its limit
    assert s.typical_measure_s("spring-boot", "jvm") == {"fruits c=4": pytest.approx(24.0)}
    assert s.typical_measure_s("quarkus", "jvm") == {}


def test_a_run_id_taken_in_the_same_second_is_drawn_again(tmp_path, monkeypatch):
    # the id is the second and 16 random bits: two runs begun in one second can draw the same bits
    import time
    import uuid

    s = store.Store(tmp_path / "results.sqlite")
    monkeypatch.setattr(time, "strftime", lambda fmt, *a: "20261208-013900")
    draws = iter(["beef" + "0" * 28, "beef" + "0" * 28, "cafe" + "0" * 28])
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(next(draws)))
    first = s.begin_run({"name": "q"}, {})
    second = s.begin_run({"name": "q"}, {})
    assert (first, second) == ("20261208-013900-beef", "20261208-013900-cafe")
    assert {r["id"] for r in s.runs()} == {first, second}
