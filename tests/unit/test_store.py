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


def test_a_store_of_another_schema_version_is_refused(tmp_path):
    path = tmp_path / "r.sqlite"
    store.Store(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    db.commit()
    db.close()
    with pytest.raises(LabError, match="schema 999"):
        store.Store(path)
