"""SQL statements, transactions and rows per request, from PostgreSQL's own statistics.

Why: two frameworks serving the same endpoint can differ in how much work each request costs the
database (an extra SELECT, a transaction per request or none, rows read and thrown away). The
server counts this itself, so the lab reads its cumulative counters before and after a load and
divides the difference by the requests served.

- statements: the sum of `calls` in pg_stat_statements for the lab's database, which the private
  cluster preloads and creates (perflab.postgres). Transaction control the driver sends (BEGIN,
  COMMIT, SET ...) counts as a statement too. The lab's own reads of pg_stat_* are left out by
  their text.
- transactions (xact_commit + xact_rollback), rows returned and fetched: pg_stat_database.

Each snapshot is one psql connection: 35-45 ms on a busy 2-core machine. That connection adds 2
transactions and ~200 catalog rows (PostgreSQL 15) to the pg_stat_database counters between two
snapshots: noise against thousands of requests, not against ten.

Not available (a reason, never an exception): an external server given by URL (its counters mix
in other clients' work and the lab does not change its configuration), psql or the server
unreachable; and statements only, when pg_stat_statements is not loaded or not created. A run's
private server loads it only when the run profiles (`--profile`): counting every statement costs the
database CPU it shares with the load driver (perflab.postgres.STATEMENT_STATS_ENV).
"""

from __future__ import annotations

from dataclasses import dataclass

from perflab.errors import LabError
from perflab.postgres import Connection, run_sql

_OWN_READS = r"pg_stat_(statements|database)"  # the text of the lab's own queries
NOT_PROFILING = ("statements are counted only in a profiling run (--profile): loading pg_stat_statements costs "
                 "throughput (bench/own_cost.py statements)")
_DATABASE = ("d.xact_commit + d.xact_rollback, d.tup_returned, d.tup_fetched "
             "FROM pg_stat_database d WHERE d.datname = current_database()")
_WITH_STATEMENTS = (f"SELECT (SELECT coalesce(sum(s.calls), 0) FROM pg_stat_statements s WHERE s.dbid = d.datid "
                    f"AND s.query !~* '{_OWN_READS}'), {_DATABASE}")
_WITHOUT_STATEMENTS = f"SELECT NULL, {_DATABASE}"

# per_request()'s figures and the DbCounters attribute each divides.
_PER_REQUEST = {"statements_per_request": "statements", "transactions_per_request": "transactions",
                "rows_returned_per_request": "rows_returned", "rows_fetched_per_request": "rows_fetched"}


@dataclass(frozen=True)
class DbCounters:
    """Cumulative counters of the lab's database at one moment; None where not available, and
    `reason` says why (statements alone may be missing)."""

    statements: int | None = None     # statement executions (pg_stat_statements calls)
    transactions: int | None = None   # xact_commit + xact_rollback
    rows_returned: int | None = None  # tup_returned: rows read by scans
    rows_fetched: int | None = None   # tup_fetched: rows fetched by index scans
    reason: str = ""

    @property
    def ok(self) -> bool:
        return not self.reason


def _first_error(exc: LabError) -> str:
    lines = [" ".join(line.split()) for line in (exc.details or exc.message).splitlines() if line.strip()]
    return lines[0] if lines else exc.message


def _counters(line: str, reason: str = "") -> DbCounters:
    statements, transactions, returned, fetched = (field.strip() for field in line.strip().split("|"))
    return DbCounters(int(statements) if statements else None, int(transactions), int(returned), int(fetched),
                      reason)


def snapshot(conn: Connection) -> DbCounters:
    """The lab database's counters now; never raises (see DbCounters.reason)."""
    if conn.external:
        return DbCounters(reason="an external server: its statistics mix in other clients' work")
    try:
        return _counters(run_sql(conn, _WITH_STATEMENTS, timeout=30))
    except LabError as exc:
        why = f"statement counts not available: {_first_error(exc)}"
        if "shared_preload_libraries" in (exc.details or exc.message):
            why = NOT_PROFILING
    except ValueError as exc:
        return DbCounters(reason=f"unexpected answer from pg_stat_statements: {exc}")
    try:  # e.g. pg_stat_statements not loaded or not created: the database's own counters still
        return _counters(run_sql(conn, _WITHOUT_STATEMENTS, timeout=30), why)
    except LabError as exc:
        return DbCounters(reason=f"database statistics not available: {_first_error(exc)}")
    except ValueError as exc:
        return DbCounters(reason=f"unexpected answer from pg_stat_database: {exc}")


def reset(conn: Connection) -> str:
    """Forget the statements counted so far ("" when done, else why not): keeps the statement
    table far from its size limit (pg_stat_statements.max) over a long run. Not on an external
    server."""
    if conn.external:
        return "an external server: the lab does not reset its statistics"
    try:
        run_sql(conn, "SELECT pg_stat_statements_reset()", timeout=30)
    except LabError as exc:
        return f"pg_stat_statements_reset failed: {_first_error(exc)}"
    return ""


def why_missing(before: DbCounters, after: DbCounters, requests: int) -> str:
    """Why per_request() lacks a figure ("" when it has them all)."""
    if requests <= 0:
        return "no requests were served"
    if before.reason or after.reason:
        return before.reason or after.reason
    for name in _PER_REQUEST.values():
        a, b = getattr(before, name), getattr(after, name)
        if a is not None and b is not None and b < a:
            return f"the {name} counter went back (statistics reset between the snapshots)"
    return ""


def per_request(before: DbCounters, after: DbCounters, requests: int) -> dict[str, float | None]:
    """Statements, transactions and rows (returned, fetched) per request between two snapshots
    (keys: _PER_REQUEST); None where a counter is not available or went back (why_missing())."""
    out: dict[str, float | None] = {}
    for key, name in _PER_REQUEST.items():
        a, b = getattr(before, name), getattr(after, name)
        usable = requests > 0 and a is not None and b is not None and b >= a
        out[key] = (b - a) / requests if usable else None
    return out
