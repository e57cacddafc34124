"""The results file's layout: its schema version, its tables, and opening a file at this version."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Callable

from perflab.errors import LabError

SCHEMA_VERSION = 4
# 1 -> 2: figures carry their point's parameters (params_json); each scenario stores only its own
# figures (RSS of the start-up launches moved from memory to startup, the AOT cache's from
# footprint to aot); plans hold rest_s per scenario and sample_hz at the top level.
# 2 -> 3: a run's launch rounds are tables of their own (rounds, launches), no longer a record inside
# its environment; the app/modes a run measured are stored with what its report needs of their
# descriptors (targets), so a report never reads the apps as they are now.
# 3 -> 4: the method hash leaves out how many rounds a run buys (ROUNDS_NOT_METHOD) and the plan's
# reductions (prose, like its description); every stored run's hash is computed again.

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, started_at REAL, finished_at REAL, status TEXT, plan_name TEXT,
    plan_json TEXT, environment_json TEXT, method_hash TEXT, note TEXT
);
CREATE TABLE IF NOT EXISTS figures (
    id INTEGER PRIMARY KEY, run_id TEXT, app TEXT, mode TEXT, scenario TEXT, point TEXT,
    metric TEXT, repeat INTEGER, value REAL, unit TEXT, flags TEXT, measured_at REAL, extra_json TEXT,
    params_json TEXT DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS figures_run ON figures (run_id, app, mode, scenario);
CREATE TABLE IF NOT EXISTS outcomes (
    id INTEGER PRIMARY KEY, run_id TEXT, app TEXT, mode TEXT, scenario TEXT, status TEXT,
    reason TEXT, at REAL
);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY, run_id TEXT, app TEXT, mode TEXT, scenario TEXT, kind TEXT, path TEXT
);
CREATE TABLE IF NOT EXISTS steps (
    id INTEGER PRIMARY KEY, run_id TEXT, label TEXT, estimate_s REAL, actual_s REAL, finished_at REAL
);
CREATE TABLE IF NOT EXISTS rounds (
    run_id TEXT PRIMARY KEY, seed INTEGER, design TEXT, target REAL, count INTEGER, ended TEXT, ended_why TEXT,
    headline_json TEXT, least_json TEXT, ratios_json TEXT, history_json TEXT, two_levels_json TEXT,
    round_s_json TEXT
);
CREATE TABLE IF NOT EXISTS launches (
    id INTEGER PRIMARY KEY, run_id TEXT, round INTEGER, place INTEGER, app TEXT, mode TEXT, value REAL,
    failed TEXT, scenarios_json TEXT, intervals_json TEXT, before_s REAL, took_s REAL, canary_json TEXT
);
CREATE INDEX IF NOT EXISTS launches_run ON launches (run_id, round, place);
CREATE TABLE IF NOT EXISTS targets (
    run_id TEXT, place INTEGER, app TEXT, mode TEXT, jvm INTEGER, main INTEGER,
    PRIMARY KEY (run_id, app, mode)
);
"""


def schema_statements() -> list[str]:
    """The layout's statements one by one (an upgrade creates the tables inside its transaction,
    which executescript would commit)."""
    return [x.strip() for x in _SCHEMA.split(";") if x.strip()]


# rounds: one row per run whose launches ran in rounds: the seed and design of their order, the
# headline ratios and how each stood when the rounds ended, what earlier runs knew (history), why
# the rounds ended (ended, ended_why) and how many there were (count: NULL until they ended).
# launches: one row per launch in a round, at its place in the round's order: its value (the
# ratios' figure), why it failed, the scenarios it ran, its in-launch intervals, how long it took
# (NULL until it ended) and the host-speed canary's readings around it.
# targets: each app/mode of a run in plan order, whether it runs on a JVM and is its app's main mode.

ROUNDS_JSON_COLUMNS = {"headline": "headline_json", "least": "least_json", "ratios": "ratios_json",
                       "history": "history_json", "two_levels": "two_levels_json", "round_s": "round_s_json"}

# steps: how long each planned step of a run took (the time-left estimate of later runs of the plan
# starts from them) and when it ended (a resumed run goes on after its last finished step); added
# without a schema version: older stores simply have none yet, or no finished_at

# brings a results file of an older schema (the version given) up to this one, in place
Upgrade = Callable[[sqlite3.Connection, Path, int], None]


def connect(path: Path, upgrade: Upgrade | None) -> sqlite3.Connection:
    """Open a results file at this schema version: created when new, brought up to it by `upgrade`
    when older (refused without one), refused when newer."""
    db = sqlite3.connect(path, timeout=30, isolation_level=None)  # autocommit: each write lands
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
    row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is not None and int(row["value"]) < SCHEMA_VERSION:
        if upgrade is None:
            raise LabError(f"{path} has results schema {row['value']}, older than this perflab's "
                           f"{SCHEMA_VERSION}", fix="open it with ./perflab (e.g. ./perflab results list), which "
                                                "upgrades it")
        upgrade(db, path, int(row["value"]))
    elif row is not None and int(row["value"]) > SCHEMA_VERSION:
        raise LabError(f"{path} has results schema {row['value']}, this perflab writes {SCHEMA_VERSION}",
                       fix="use a newer perflab, or another PERFLAB_WORKDIR")
    db.executescript(_SCHEMA)
    if "finished_at" not in {r["name"] for r in db.execute("PRAGMA table_info(steps)")}:
        db.execute("ALTER TABLE steps ADD COLUMN finished_at REAL")
    if row is None:
        db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    return db
