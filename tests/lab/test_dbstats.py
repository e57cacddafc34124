"""dbstats against the test run's private PostgreSQL (the `database` fixture): known statements
sent as the app's user are counted per "request"; what cannot be counted says why."""

from __future__ import annotations

import dataclasses

import pytest

from perflab import dbstats, postgres, procs
from tests.conftest import cluster_dir

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group

# One "request": what an app serving GET /fruits/1 with a count might send, three statements.
REQUEST = "SELECT name FROM fruits WHERE id = 1;\nSELECT count(*) FROM fruits;\nSELECT 1;\n"


def _serve(conn, tmp_path, requests: int) -> None:
    """The requests' statements as the app's user, each in its own (autocommit) transaction."""
    script = tmp_path / "requests.sql"
    script.write_text(REQUEST * requests)
    postgres.run_sql(conn, files=[script])


def test_the_private_cluster_loads_and_creates_pg_stat_statements(database):
    _, conn = database
    assert "pg_stat_statements" in postgres.run_sql(conn, "SHOW shared_preload_libraries")
    assert "pg_stat_statements" in postgres.run_sql(conn, "SELECT extname FROM pg_extension").split()
    assert postgres.ensure_statement_stats(conn) == ""  # again: IF NOT EXISTS


def test_statements_transactions_and_rows_per_request(database, tmp_path):
    _, conn = database
    before = dbstats.snapshot(conn)
    _serve(conn, tmp_path, 10)
    after = dbstats.snapshot(conn)
    assert before.ok and after.ok, before.reason or after.reason
    assert dbstats.why_missing(before, after, 10) == ""
    figures = dbstats.per_request(before, after, 10)
    assert figures["statements_per_request"] == 3.0  # exactly: the snapshots' own queries are left out
    # 3 autocommit transactions a request, plus the connections' own (psql's and the snapshot's): a few in all
    assert 3.0 <= figures["transactions_per_request"] <= 3.5
    assert figures["rows_fetched_per_request"] >= 1     # the row by its key
    assert figures["rows_returned_per_request"] >= 3    # count(*) scans the three seeded fruits

    # Twice the requests, twice the statements; the ratio stays.
    _serve(conn, tmp_path, 20)
    later = dbstats.snapshot(conn)
    assert later.statements - after.statements == 60
    assert dbstats.per_request(after, later, 20)["statements_per_request"] == 3.0


def test_a_reset_between_snapshots_is_not_taken_for_negative_work(database, tmp_path):
    _, conn = database
    _serve(conn, tmp_path, 2)
    before = dbstats.snapshot(conn)
    assert dbstats.reset(conn) == ""
    after = dbstats.snapshot(conn)
    assert after.statements == 0 < before.statements
    assert "statements counter went back" in dbstats.why_missing(before, after, 5)
    figures = dbstats.per_request(before, after, 5)
    assert figures["statements_per_request"] is None and figures["transactions_per_request"] is not None


def test_a_database_without_the_extension_still_counts_transactions(database):
    _, conn = database
    other = dataclasses.replace(conn, database="postgres")  # the extension is created in the lab's database only
    counters = dbstats.snapshot(other)
    assert counters.statements is None and counters.transactions > 0 and counters.rows_returned > 0
    assert "statement counts not available" in counters.reason and "pg_stat_statements" in counters.reason
    figures = dbstats.per_request(counters, counters, 10)
    assert figures["statements_per_request"] is None and figures["transactions_per_request"] == 0.0


def test_an_external_or_unreachable_server_is_not_available_with_the_reason(database):
    _, conn = database
    external = dataclasses.replace(conn, external=True)
    counters = dbstats.snapshot(external)
    assert not counters.ok and "external server" in counters.reason
    assert dataclasses.astuple(counters)[:4] == (None, None, None, None)
    assert set(dbstats.per_request(counters, counters, 10).values()) == {None}
    assert dbstats.why_missing(counters, counters, 10) == counters.reason
    assert "external server" in dbstats.reset(external)
    assert "external server" in postgres.ensure_statement_stats(external)

    nobody = dataclasses.replace(conn, port=procs.free_port())
    gone = dbstats.snapshot(nobody)
    assert not gone.ok and gone.reason.startswith("database statistics not available") and gone.transactions is None
    assert dbstats.why_missing(dbstats.snapshot(conn), dbstats.snapshot(conn), 0) == "no requests were served"


def test_a_server_started_without_statement_counting_still_counts_transactions_and_says_why(tmp_path, monkeypatch):
    """A run that does not profile starts its server without pg_stat_statements (it costs throughput)."""
    monkeypatch.delenv(postgres.STATEMENT_STATS_ENV, raising=False)
    with cluster_dir() as root:
        _without_statements(postgres.Cluster(root / "db"), tmp_path)


def _without_statements(cluster, tmp_path) -> None:
    conn = cluster.start(statement_stats=False)
    try:
        postgres.load_contract(conn)  # creates the extension all the same: only loading it is left out
        assert "pg_stat_statements" not in postgres.run_sql(conn, "SHOW shared_preload_libraries")
        before = dbstats.snapshot(conn)
        _serve(conn, tmp_path, 10)
        after = dbstats.snapshot(conn)
        assert before.reason == after.reason == dbstats.NOT_PROFILING
        assert before.statements is None and after.transactions - before.transactions >= 30
    finally:
        cluster.stop(quiet=True)
