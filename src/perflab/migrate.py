"""Upgrading a results file written by an older perflab, so old runs stay readable and comparable.

Before anything changes, the file is copied beside itself (results.sqlite.v1.bak for a file of
schema 1); the upgrade runs in one transaction, one schema version after the other.

1 -> 2: plans are upgraded with the same function that upgrades a user's old plan file
(plan.upgrade_legacy), and each run's method hash is recomputed from its upgraded plan, so an old
run and a new run of the same plan still compare.

2 -> 3: each run's rounds record moves out of its environment into the rounds and launches tables,
each launch with the canary's readings around it (from the run's canary figures); and each run's
app/modes are stored with whether they run on a JVM and are their app's main mode, as the app
descriptors say at the upgrade (what a report of the run read from them until now), by the mode's
name for an app no descriptor knows.

3 -> 4: each run's method hash is computed again from its stored plan and environment, now without
the rounds' stopping rule and the plan's reductions (store.method_hash), so a run of quick with a
longer budget and the quick runs before it are one method.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from perflab import apps, registry, store
from perflab.errors import LabError
from perflab.plan import validate
from perflab.store import method_hash

# what each scenario now stores itself: (old scenario, metrics, points) -> new scenario
_MOVED = [
    ("memory", ("rss_after_first_mb", "cgroup_after_first_mb", "rss_rest_mb"), ("cold", "warm"), "startup"),
    ("footprint", ("aot_cache_mb", "aot_cache_write_s"), None, "aot"),
]


def open_store(path: Path | None = None) -> store.Store:
    """The results store as the lab's commands open it: a file written by an older perflab is
    upgraded first."""
    return store.Store(path, upgrade=upgrade)


def upgrade(db: sqlite3.Connection, path: Path, version: int) -> None:
    backup = path.with_name(f"{path.name}.v{version}.bak")
    if not backup.exists():
        db.execute("PRAGMA wal_checkpoint(FULL)")
        shutil.copy2(path, backup)
    db.execute("BEGIN IMMEDIATE")
    try:
        if version < 2:
            _v1_to_v2(db)
        if version < 3:
            _v2_to_v3(db)
        if version < 4:
            _v3_to_v4(db)
        db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(store.SCHEMA_VERSION),))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _v1_to_v2(db: sqlite3.Connection) -> None:
    columns = {r[1] for r in db.execute("PRAGMA table_info(figures)")}
    if "params_json" not in columns:
        db.execute("ALTER TABLE figures ADD COLUMN params_json TEXT DEFAULT '{}'")
    for old, metrics, points, new in _MOVED:
        marks = ",".join("?" * len(metrics))
        where = f"scenario=? AND metric IN ({marks})"
        args: list = [old, *metrics]
        if points:
            where += f" AND point IN ({','.join('?' * len(points))})"
            args += list(points)
        db.execute(f"UPDATE figures SET scenario=? WHERE {where}", [new, *args])
    # each scenario knows how it used to write its points
    for sc in registry.all_scenarios():
        if sc.legacy_params is None:
            continue
        rows = db.execute("SELECT DISTINCT point FROM figures WHERE scenario=?", (sc.name,)).fetchall()
        for (point,) in rows:
            params = sc.legacy_params(point)
            if params:
                db.execute("UPDATE figures SET params_json=? WHERE scenario=? AND point=?",
                           (json.dumps(params), sc.name, point))
    for run_id, plan_json, env_json in db.execute("SELECT id, plan_json, environment_json FROM runs").fetchall():
        plan = json.loads(plan_json)
        try:  # the same upgrade as an old plan file's, with the tables added since filled in
            plan = validate(plan, f"run {run_id}").data
        except LabError:
            pass  # a plan today's schema refuses stays as it was stored (it is still readable)
        db.execute("UPDATE runs SET plan_json=?, method_hash=? WHERE id=?",
                   (json.dumps(plan), method_hash(plan, json.loads(env_json or "{}")), run_id))


def _v2_to_v3(db: sqlite3.Connection) -> None:
    for statement in store.schema_statements():  # the new tables, inside this transaction
        db.execute(statement)
    try:
        known = apps.discover()
    except LabError:
        known = {}
    for run_id, env_json in db.execute("SELECT id, environment_json FROM runs").fetchall():
        env = json.loads(env_json or "{}")
        record = env.pop("rounds", None)
        if record:
            _add_canary(db, run_id, record)
            store.write_rounds(db, run_id, record)
            db.execute("UPDATE runs SET environment_json=? WHERE id=?", (json.dumps(env), run_id))
        labels = db.execute("SELECT app, mode FROM (SELECT app, mode, MIN(id) AS first FROM figures WHERE run_id=? "
                            "GROUP BY app, mode UNION ALL SELECT app, mode, 1e18 + MIN(id) FROM outcomes "
                            "WHERE run_id=? GROUP BY app, mode) WHERE mode NOT IN ('all', '*') "
                            "GROUP BY app, mode ORDER BY MIN(first)", (run_id, run_id)).fetchall()
        for place, (app, mode) in enumerate(labels, 1):
            found = known.get(app)
            if found is not None and mode in found.modes:
                jvm, main = found.modes[mode].is_jvm, mode == next(iter(found.modes))
            else:
                jvm, main = mode != "native", None
            db.execute("INSERT OR REPLACE INTO targets VALUES (?,?,?,?,?,?)",
                       (run_id, place, app, mode, int(jvm), None if main is None else int(main)))


def _v3_to_v4(db: sqlite3.Connection) -> None:
    for run_id, plan_json, env_json in db.execute("SELECT id, plan_json, environment_json FROM runs").fetchall():
        db.execute("UPDATE runs SET method_hash=? WHERE id=?",
                   (method_hash(json.loads(plan_json or "{}"), json.loads(env_json or "{}")), run_id))


def _add_canary(db: sqlite3.Connection, run_id: str, record: dict) -> None:
    """Each launch entry of a rounds record with the canary readings stored as figures around it
    (scenario canary, its round as the repeat, "before" or "after" as the point)."""
    readings: dict[tuple[str, int], dict[str, dict[str, float]]] = {}
    for app, mode, point, metric, repeat, value in db.execute(
            "SELECT app, mode, point, metric, repeat, value FROM figures WHERE run_id=? AND scenario='canary' "
            "ORDER BY id", (run_id,)):
        readings.setdefault((f"{app}/{mode}", repeat), {}).setdefault(metric, {})[point] = value
    for entry in record.get("launches") or []:
        got = readings.get((entry.get("label"), entry.get("round")))
        if got:
            entry["canary"] = got
