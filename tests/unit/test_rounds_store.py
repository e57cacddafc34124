"""A run's launch rounds and its app/modes as data of the store: the rounds and launches tables, the
upgrade of a results file that kept the rounds inside each run's environment, a report that reads
only the store (never the apps as they are after the run) and each ratio's interval computed once
per run view."""

from __future__ import annotations

import json
import sqlite3
import textwrap

import pytest

from perflab import apps, migrate, results, rounds, store
from perflab.report import findings, html, markdown, summary, write_report
from perflab.report.facts import RunExtras
from perflab.runner import target_facts
from perflab.targets import Target

PLAN = {"name": "quick", "scenarios": ["startup", "steady"], "limits": {"cpus": 1, "memory_mb": 1024, "jvm_opts": []},
        "rounds": {"target": 0.10, "host_slow": 0.05}, "steady": {"startup_figures": True}}
ENV = {"cpu_model": "Test CPU", "cpus_online": 2, "hostname": "lab-host"}
AT = {"path": "/fruits", "connections": 4, "method": "GET"}
QUARKUS = [20_000.0, 24_000.0, 17_000.0]
SPRING = [12_000.0, 12_500.0, 11_000.0]


def _record(orders: list[list[str]]) -> dict:
    """A rounds record as the runner kept it in a run's environment (schema 2)."""
    launches = [{"round": n, "label": label, "value": (QUARKUS if label.startswith("quarkus") else SPRING)[n - 1],
                 "failed": "", "launched": ["steady"], "took_s": 100.0 + n}
                for n, order in enumerate(orders, 1) for label in order]
    return {"seed": 9, "design": rounds.BALANCED, "orders": orders, "headline": ["quarkus/jvm / spring-boot/jvm"],
            "target": 0.10, "ended": rounds.BUDGET, "ended_why": "the time budget (15 min) left no room for round 4",
            "ratios": [], "round_s": [200.0, 201.0, 202.0], "launches": launches, "least": {}, "rounds": 3,
            "history": {"runs": [], "ratios": {}}}


ORDERS = [["quarkus/jvm", "spring-boot/jvm"], ["spring-boot/jvm", "quarkus/jvm"], ["quarkus/jvm", "spring-boot/jvm"]]


def _v2_file(path) -> None:
    """A results file of schema 2: its run's rounds inside the environment, the canary as figures."""
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE runs (id TEXT PRIMARY KEY, started_at REAL, finished_at REAL, status TEXT, plan_name TEXT,
                           plan_json TEXT, environment_json TEXT, method_hash TEXT, note TEXT);
        CREATE TABLE figures (id INTEGER PRIMARY KEY, run_id TEXT, app TEXT, mode TEXT, scenario TEXT, point TEXT,
                              metric TEXT, repeat INTEGER, value REAL, unit TEXT, flags TEXT, measured_at REAL,
                              extra_json TEXT, params_json TEXT DEFAULT '{}');
        CREATE TABLE outcomes (id INTEGER PRIMARY KEY, run_id TEXT, app TEXT, mode TEXT, scenario TEXT, status TEXT,
                               reason TEXT, at REAL);
        CREATE TABLE files (id INTEGER PRIMARY KEY, run_id TEXT, app TEXT, mode TEXT, scenario TEXT, kind TEXT,
                            path TEXT);
        CREATE TABLE steps (id INTEGER PRIMARY KEY, run_id TEXT, label TEXT, estimate_s REAL, actual_s REAL,
                            finished_at REAL);
        INSERT INTO meta VALUES ('schema_version', '2');
    """)
    env = {**ENV, "rounds": _record(ORDERS)}
    db.execute("INSERT INTO runs VALUES ('old', 1, 2, 'complete', 'quick', ?, ?, ?, '')",
               (json.dumps(PLAN), json.dumps(env), store.method_hash(PLAN, env)))

    def figure(app, scenario, point, metric, repeat, value, params=None):
        db.execute("INSERT INTO figures (run_id, app, mode, scenario, point, metric, repeat, value, unit, flags, "
                   "measured_at, extra_json, params_json) VALUES ('old', ?, 'jvm', ?, ?, ?, ?, ?, 'x', '[]', 1, '{}', ?)",
                   (app, scenario, point, metric, repeat, value, json.dumps(params or {})))

    for app, values in (("quarkus", QUARKUS), ("spring-boot", SPRING)):
        for n, v in enumerate(values, 1):
            figure(app, "steady", "fruits c=4", "rps", n, v, AT)
            for when in ("before", "after"):
                figure(app, "canary", when, "app_cpu_ms", n, 20.0 + n + (when == "after") / 10)
    db.commit()
    db.close()


def test_a_schema_2_file_s_rounds_move_out_of_the_environment_into_their_tables(tmp_path):
    path = tmp_path / "r.sqlite"
    _v2_file(path)
    s = migrate.open_store(path)
    try:
        assert (tmp_path / "r.sqlite.v2.bak").exists(), "the old file is kept before it is changed"
        assert s.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == str(store.SCHEMA_VERSION)
        assert "rounds" not in json.loads(s.run("old")["environment_json"])
        record = s.rounds_record("old")
        old = _record(ORDERS)
        for key in ("seed", "design", "headline", "target", "ended", "ended_why", "round_s", "rounds", "orders",
                    "history"):
            assert record[key] == old[key], key
        assert [(e["round"], e["label"], e["value"], e["took_s"]) for e in record["launches"]] == \
            [(e["round"], e["label"], e["value"], e["took_s"]) for e in old["launches"]]
        # each launch has its place in its round and the canary's readings around it
        assert [e["place"] for e in record["launches"]] == [1, 2] * 3
        spring_2 = next(e for e in record["launches"] if e["label"] == "spring-boot/jvm" and e["round"] == 2)
        assert spring_2["canary"] == {"app_cpu_ms": {"before": 22.0, "after": 22.1}}
        # the run's app/modes are stored with it
        assert [label for label, _, _ in s.targets("old")] == ["quarkus/jvm", "spring-boot/jvm"]
        # the findings read the rounds from the tables: paired by round, with the stored seed and ending
        found = findings.findings(results.load(s, "old"))
        [ratio] = found.ratios
        assert ratio.interval.paired and ratio.interval.n == 3
        assert "seed 9" in found.rounds and "left no room for round 4" in found.rounds
        assert found.rounds.startswith("launches in 3 interleaved rounds")
    finally:
        s.close()
    store.Store(path).close()  # opening it again changes nothing


def test_a_round_in_flight_is_in_its_order_but_not_among_the_launches_that_ended(tmp_path):
    s = store.Store(tmp_path / "r.sqlite")
    try:
        run = s.begin_run(PLAN, ENV)
        record = _record(ORDERS[:2])
        del record["rounds"]
        record["orders"] = ORDERS  # round 3 began: its order is stored, none of its launches ended
        s.save_rounds(run, record)
        back = s.rounds_record(run)
        assert back["orders"] == ORDERS and "rounds" not in back
        assert {e["round"] for e in back["launches"]} == {1, 2}
        view = results.load(s, run)
        assert findings._rounds_line(view).startswith("launches in 3 interleaved rounds")
    finally:
        s.close()


def _descriptor(root, name: str, command: str) -> None:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "perflab.toml").write_text(textwrap.dedent(f"""\
        name = "{name}"
        framework = "{name.title()}"
        framework_version = "1"
        sources = ["src"]
        ready_path = "/ready"
        first_response_path = "/hello"

        [build]
        command = ["true"]
        artifact = "app.jar"

        [modes.jvm]
        command = {command}
        """))


def test_a_stored_run_s_report_does_not_change_when_the_apps_do(tmp_path, monkeypatch):
    apps_dir = tmp_path / "apps"
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(apps_dir))
    java = '["{java}", "-jar", "{artifact}"]'
    for name in ("alpha", "beta"):
        _descriptor(apps_dir, name, java)
    s = store.Store(tmp_path / "r.sqlite")
    try:
        plan = {**PLAN, "rounds": {**PLAN["rounds"], "interleave": False}}
        run = s.begin_run(plan, ENV)
        found = apps.discover()
        s.set_targets(run, target_facts([Target(found[name], "jvm") for name in ("alpha", "beta")]))
        for app, values in (("alpha", QUARKUS), ("beta", SPRING)):
            for n, v in enumerate(values, 1):
                s.add_figure(run, app, "jvm", "steady", "rps", v, "req/s", point="fruits c=4", params=AT, repeat=n)
        s.finish_run(run, "complete")

        def rendered() -> list[bytes]:
            paths = write_report(s, run, tmp_path / "report")
            return [paths.html.read_bytes(), paths.markdown.read_bytes(),
                    summary.render(results.load(s, run), width=200).encode()]

        before = rendered()
        assert b"alpha/jvm / beta/jvm" in before[1]  # the headline ratio of the two JVM apps
        # after the run, alpha's mode is no longer on a JVM and beta is gone from the apps
        _descriptor(apps_dir, "alpha", '["{artifact}"]')
        (apps_dir / "beta" / "perflab.toml").unlink()
        assert not apps.discover()["alpha"].modes["jvm"].is_jvm
        assert rendered() == before
    finally:
        s.close()


def test_each_ratio_s_interval_is_computed_once_per_run_view(tmp_path, monkeypatch):
    s = store.Store(tmp_path / "r.sqlite")
    try:
        run = s.begin_run(PLAN, ENV)
        s.save_rounds(run, _record(ORDERS))
        for app, values in (("quarkus", QUARKUS), ("spring-boot", SPRING)):
            for n, v in enumerate(values, 1):
                s.add_figure(run, app, "jvm", "steady", "rps", v, "req/s", point="fruits c=4", params=AT, repeat=n)
        view = results.load(s, run)
        calls: list[tuple] = []
        real = results.launch_interval

        def counted(a, b, *args, **kwargs):
            calls.append((a.target, b.target, a.metric))
            return real(a, b, *args, **kwargs)

        monkeypatch.setattr(results, "launch_interval", counted)
        text = summary.render(view)
        assert "quarkus/jvm / spring-boot/jvm throughput" in text
        first = list(calls)
        assert first and len(first) == len(set(first))
        markdown.render(view, RunExtras())
        html.render(view, RunExtras())
        assert calls == first, "the HTML and Markdown reports use the summary's intervals"
    finally:
        s.close()


@pytest.mark.parametrize("headline, pair", [([], ("alpha/jvm", "beta/jvm")),
                                            (["beta/jvm:alpha/jvm"], ("beta/jvm", "alpha/jvm"))])
def test_a_run_not_in_rounds_takes_its_headline_pairs_from_the_rounds_rule(tmp_path, headline, pair):
    s = store.Store(tmp_path / "r.sqlite")
    try:
        plan = {**PLAN, "rounds": {**PLAN["rounds"], "interleave": False, "headline": headline}}
        run = s.begin_run(plan, ENV)
        # alpha's second mode runs on a JVM but is not its main mode: no headline ratio of its own
        s.set_targets(run, [("alpha/jvm", True, True), ("alpha/aot", True, False), ("beta/jvm", True, True)])
        for app, mode, values in (("alpha", "jvm", QUARKUS), ("alpha", "aot", QUARKUS), ("beta", "jvm", SPRING)):
            for n, v in enumerate(values, 1):
                s.add_figure(run, app, mode, "steady", "rps", v, "req/s", point="fruits c=4", params=AT, repeat=n)
        found = findings.ratio_findings(results.load(s, run))
        assert [(r.numerator, r.denominator) for r in found] == [pair]
    finally:
        s.close()
