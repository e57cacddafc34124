"""`perflab results export RUN...`: stored runs as one JSON document (docs/results-format.md), so
a run outlives the machine and the results file it was measured into (perflab.results_import
reads it back).

A run is every row the store holds for it (its runs, figures, outcomes, steps, rounds, launches
and targets rows) and the summaries of its profiles; not the raw files under runs/<run>/ (driver
output, samples, folded stacks), which stay where they were written."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from perflab.errors import LabError
from perflab.profiles import storage as profile_storage
from perflab.store import Store

FORMAT = "perflab-results"
VERSION = 1

# Each table's columns as the format carries them, in the store's order; the surrogate ids and
# run_id are left out (a run's id is its record's). A column holding JSON text (flags, *_json) is
# carried as the JSON itself, under its name without the suffix, so the document reads as data.
RUN_COLUMNS = ("started_at", "finished_at", "status", "plan_name", "plan_json", "environment_json", "method_hash",
               "note")
ROUNDS_COLUMNS = ("seed", "design", "target", "count", "ended", "ended_why", "headline_json", "least_json",
                  "ratios_json", "history_json", "two_levels_json", "round_s_json")
# tables of many rows per run: their columns and the order their rows are listed in
ROW_TABLES = {
    "figures": (("app", "mode", "scenario", "point", "metric", "repeat", "value", "unit", "flags", "measured_at",
                 "extra_json", "params_json"), "id"),
    "outcomes": (("app", "mode", "scenario", "status", "reason", "at"), "id"),
    "steps": (("label", "estimate_s", "actual_s", "finished_at"), "id"),
    "launches": (("round", "place", "app", "mode", "value", "failed", "scenarios_json", "intervals_json", "before_s",
                  "took_s", "canary_json"), "id"),
    "targets": (("place", "app", "mode", "jvm", "main"), "place"),
}
JSON_TEXT = {"flags"}  # JSON columns without the suffix
PROFILE_FIELDS = ("app", "mode", "scenario", "path", "summary")
RUN_FIELDS = ("id", "run", "rounds", *ROW_TABLES, "profiles")


def is_json(column: str) -> bool:
    return column.endswith("_json") or column in JSON_TEXT


def field_name(column: str) -> str:
    return column.removesuffix("_json")


def _fields(row: sqlite3.Row, columns: tuple[str, ...]) -> dict[str, Any]:
    # NULL stays null: a JSON column is NULL where the store never wrote it
    return {field_name(c): json.loads(row[c]) if is_json(c) and row[c] is not None else row[c] for c in columns}


def profile_summaries(store: Store, run_id: str) -> list[dict[str, Any]]:
    """The run's profile summaries (the JSON beside each launch's folded stacks) that are still on disk."""
    out = []
    for row in store.files(run_id):
        path = store.path.parent / row["path"]
        if row["kind"] != profile_storage.KIND or path.suffix != ".json" or not path.is_file():
            continue
        out.append({"app": row["app"], "mode": row["mode"], "scenario": row["scenario"], "path": row["path"],
                    "summary": profile_storage.load_meta(path)})
    return out


def run_record(store: Store, run_id: str) -> dict[str, Any]:
    """One run as the format holds it (the exact id)."""
    row = store.db.execute("SELECT * FROM runs WHERE id=?", (run_id,)).fetchone()
    if row is None:
        raise LabError(f"no run {run_id!r} in {store.where}", fix="./perflab results list")
    rounds = store.db.execute("SELECT * FROM rounds WHERE run_id=?", (run_id,)).fetchone()
    record: dict[str, Any] = {"id": run_id, "run": _fields(row, RUN_COLUMNS),
                              "rounds": _fields(rounds, ROUNDS_COLUMNS) if rounds is not None else None}
    for table, (columns, order) in ROW_TABLES.items():
        rows = store.db.execute(f"SELECT * FROM {table} WHERE run_id=? ORDER BY {order}", (run_id,))
        record[table] = [_fields(r, columns) for r in rows]
    record["profiles"] = profile_summaries(store, run_id)
    return record


def document(store: Store, run_ids: list[str]) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "runs": [run_record(store, run_id) for run_id in run_ids]}


def resolve(store: Store, given: list[str]) -> list[str]:
    """The runs named (id, unique prefix or `last`), each once, in the order given."""
    if not given:
        raise LabError("results export needs at least one run id (or 'last')", fix="./perflab results list")
    ids = []
    for name in given:
        row = store.run(name)
        if row is None:
            raise LabError(f"no run {name!r} in {store.where} (or the prefix names more than one)",
                           fix="./perflab results list")
        ids.append(row["id"])
    return list(dict.fromkeys(ids))


def write(text: str, out: str | None) -> None:
    """To stdout, or to a file replaced whole: an export that fails half-way leaves no half file."""
    if not out or out == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    path = Path(out)
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    os.replace(part, path)


def cli_export(store: Store, runs: list[str], out: str | None) -> int:
    ids = resolve(store, runs)
    write(json.dumps(document(store, ids), indent=1) + "\n", out)
    if out and out != "-":
        print(f"exported {len(ids)} run(s) to {out}: {', '.join(ids)}", flush=True)
    return 0
