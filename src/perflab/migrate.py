"""Upgrading a results file written by an older perflab, so old runs stay readable and comparable.

Before anything changes, the file is copied beside itself (results.sqlite.v1.bak); the upgrade
runs in one transaction. Plans are upgraded with the same function that upgrades a user's old plan
file (plan.upgrade_legacy), and each run's method hash is recomputed from its upgraded plan, so an
old run and a new run of the same plan still compare.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from perflab import registry
from perflab.errors import LabError
from perflab.plan import validate
from perflab.store import method_hash

# what each scenario now stores itself: (old scenario, metrics, points) -> new scenario
_MOVED = [
    ("memory", ("rss_after_first_mb", "cgroup_after_first_mb", "rss_rest_mb"), ("cold", "warm"), "startup"),
    ("footprint", ("aot_cache_mb", "aot_cache_write_s"), None, "aot"),
]


def upgrade(db: sqlite3.Connection, path: Path, version: int) -> None:
    if version == 1:
        backup = path.with_name(path.name + ".v1.bak")
        if not backup.exists():
            db.execute("PRAGMA wal_checkpoint(FULL)")
            shutil.copy2(path, backup)
        db.execute("BEGIN IMMEDIATE")
        try:
            _v1_to_v2(db)
            db.execute("UPDATE meta SET value='2' WHERE key='schema_version'")
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
