"""`perflab results import FILE`: runs exported by `results export` (docs/results-format.md) into
this store, each under its own id and with its own environment, so history and the site show it
on the machine it was measured on.

Checked whole before anything is written, and written in one transaction: a file that is not an
export, of a newer format version, truncated or malformed, or holding a run this store has with
other content, changes nothing. A run already here with the same content is skipped and said so,
so importing a file twice is the same as importing it once."""

from __future__ import annotations

import json
import sys
from pathlib import Path, PurePosixPath
from typing import Any

from perflab.errors import LabError
from perflab.profiles import storage as profile_storage
from perflab.results_export import (FORMAT, PROFILE_FIELDS, ROUNDS_COLUMNS, ROW_TABLES, RUN_COLUMNS, RUN_FIELDS,
                                    VERSION, field_name, is_json, run_record)
from perflab.store import Store


def read_text(source: str) -> tuple[str, str]:
    """The file's text and how to name it ("-": standard input)."""
    name = "standard input" if source == "-" else source
    try:
        return (sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")), name
    except UnicodeDecodeError as exc:
        raise LabError(f"{name} is not a perflab results export: not UTF-8 text (a results.sqlite? export "
                       "its runs with ./perflab results export)") from exc
    except OSError as exc:
        raise LabError(f"cannot read {source}: {exc.strerror or exc}") from exc


def parse(text: str, name: str) -> list[dict[str, Any]]:
    """The runs of an export, every field checked; a LabError says what is wrong with it."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        # the decoder ran off the end: the file stops inside a string or before a value is closed
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            raise LabError(f"{name} is truncated: its JSON ends at character {len(text)} before the document does",
                           fix="export the runs again; the copy did not arrive whole") from exc
        raise LabError(f"{name} is not a perflab results export: not JSON ({exc})") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise LabError(f"{name} is not a perflab results export: its format is {found!r}, not {FORMAT!r}")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise LabError(f"{name}: format version {version!r} is not a version of {FORMAT} (an integer from 1)")
    if version > VERSION:
        raise LabError(f"{name} is {FORMAT} version {version}, newer than this perflab reads (up to {VERSION})",
                       fix="import it with a newer perflab")
    runs = doc.get("runs")
    if not isinstance(runs, list):
        raise LabError(f"{name}: 'runs' is missing or not a list")
    for n, run in enumerate(runs, 1):
        _check_run(run, f"{name}, run {n}")
    return runs


def _check_fields(obj: Any, fields: tuple[str, ...], where: str) -> None:
    if not isinstance(obj, dict):
        raise LabError(f"{where}: expected an object, found {type(obj).__name__}")
    missing, unknown = [f for f in fields if f not in obj], sorted(set(obj) - set(fields))
    if missing or unknown:
        raise LabError(f"{where}: " + "; ".join(
            ([f"missing field(s) {', '.join(missing)}"] if missing else [])
            + ([f"unknown field(s) {', '.join(unknown)}"] if unknown else [])))


def _check_run(run: Any, where: str) -> None:
    _check_fields(run, RUN_FIELDS, where)
    run_id = run["id"]
    # the id names the run's folder: nothing that could reach outside it
    if not isinstance(run_id, str) or not run_id or run_id in (".", "..") or "/" in run_id or "\\" in run_id:
        raise LabError(f"{where}: {run_id!r} is not a run id")
    where = f"{where} ({run_id})"
    _check_fields(run["run"], tuple(map(field_name, RUN_COLUMNS)), f"{where}, run")
    if run["rounds"] is not None:
        _check_fields(run["rounds"], tuple(map(field_name, ROUNDS_COLUMNS)), f"{where}, rounds")
    for table, (columns, _) in ROW_TABLES.items():
        if not isinstance(run[table], list):
            raise LabError(f"{where}: {table} is not a list")
        for i, row in enumerate(run[table], 1):
            _check_fields(row, tuple(map(field_name, columns)), f"{where}, {table} row {i}")
    if not isinstance(run["profiles"], list):
        raise LabError(f"{where}: profiles is not a list")
    for i, profile in enumerate(run["profiles"], 1):
        _check_fields(profile, PROFILE_FIELDS, f"{where}, profile {i}")
        path = PurePosixPath(str(profile["path"]))
        if path.parts[:2] != ("runs", run_id) or ".." in path.parts or path.suffix != ".json":
            raise LabError(f"{where}, profile {i}: {profile['path']!r} is not a profile summary of the run's folder")


def content(record: dict[str, Any]) -> str:
    """What must match for a run already stored to count as the same: every row, compared as JSON
    (NaN equals NaN). Profile summaries are files beside the store, prunable, so not compared."""
    return json.dumps({k: v for k, v in record.items() if k != "profiles"}, sort_keys=True)


def _values(obj: dict[str, Any], columns: tuple[str, ...]) -> list[Any]:
    out = []
    for c in columns:
        value = obj[field_name(c)]
        out.append(json.dumps(value) if is_json(c) and value is not None else value)
    return out


def _insert(store: Store, table: str, run_id: str, columns: tuple[str, ...], obj: dict[str, Any]) -> None:
    key = "id" if table == "runs" else "run_id"
    store.db.execute(f"INSERT INTO {table} ({key}, {', '.join(columns)}) VALUES (?{', ?' * len(columns)})",
                     [run_id, *_values(obj, columns)])


def _write_run(store: Store, run: dict[str, Any], written: list[Path]) -> None:
    run_id = run["id"]
    _insert(store, "runs", run_id, RUN_COLUMNS, run["run"])
    if run["rounds"] is not None:
        _insert(store, "rounds", run_id, ROUNDS_COLUMNS, run["rounds"])
    for table, (columns, _) in ROW_TABLES.items():
        for row in run[table]:
            _insert(store, table, run_id, columns, row)
    for profile in run["profiles"]:
        path = store.path.parent / profile["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        written.append(path)
        path.write_text(json.dumps(profile["summary"], indent=1))
        store.db.execute("INSERT INTO files (run_id, app, mode, scenario, kind, path) VALUES (?,?,?,?,?,?)",
                         (run_id, profile["app"], profile["mode"], profile["scenario"], profile_storage.KIND,
                          profile["path"]))


def _sorted(store: Store, runs: list[dict[str, Any]]) -> list[tuple[dict[str, Any], bool]]:
    """Each run with whether it is new here; a LabError naming every run that this store (or the file,
    twice) holds with other content."""
    seen: dict[str, str] = {}
    out: list[tuple[dict[str, Any], bool]] = []
    conflicts = []
    for run in runs:
        run_id, mine = run["id"], content(run)
        if run_id not in seen and store.db.execute("SELECT 1 FROM runs WHERE id=?", (run_id,)).fetchone():
            seen[run_id] = content(run_record(store, run_id))
        if run_id in seen and seen[run_id] != mine:
            conflicts.append(run_id)
        out.append((run, run_id not in seen))
        seen.setdefault(run_id, mine)
    if conflicts:
        raise LabError(f"run(s) {', '.join(dict.fromkeys(conflicts))} already in {store.where} with other content; "
                       "nothing was imported",
                       fix="compare the two (./perflab results show RUN --json); import into another "
                           "PERFLAB_WORKDIR to keep both")
    return out


def import_runs(store: Store, runs: list[dict[str, Any]]) -> list[tuple[str, bool]]:
    """Each run with whether it was written (False: already here with the same content). Refuses
    the whole file, writing nothing, when a run is here (or twice in it) with other content."""
    written: list[Path] = []
    # compared and written under one write lock: a run stored meanwhile cannot slip between the two
    store.db.execute("BEGIN IMMEDIATE")
    try:
        plan = _sorted(store, runs)
        for run, new in plan:
            if new:
                _write_run(store, run, written)
        store.db.execute("COMMIT")
    except BaseException:
        store.db.execute("ROLLBACK")
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return [(run["id"], new) for run, new in plan]


def cli_import(store: Store, source: str) -> int:
    text, name = read_text(source)
    done = import_runs(store, parse(text, name))
    for run_id, new in done:
        print(f"{run_id}: " + ("imported" if new else "already here with the same content, skipped"), flush=True)
    print(f"{sum(new for _, new in done)} of {len(done)} run(s) imported into {store.where}", flush=True)
    return 0
