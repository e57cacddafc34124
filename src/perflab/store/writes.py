"""Writing a run into the store: the run itself, its figures, outcomes, files, steps, rounds and app/modes."""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Callable, Iterable

from perflab.store.method import method_hash
from perflab.store.schema import ROUNDS_JSON_COLUMNS


class RunWrites:
    """The store's writes (Store: the results file's connection `db` at `path`, and RunReads)."""

    db: sqlite3.Connection
    path: Path
    files: Callable[[str], list[sqlite3.Row]]  # RunReads.files

    def run_dir(self, run_id: str) -> Path:
        path = self.path.parent / "runs" / run_id
        path.mkdir(parents=True, exist_ok=True)
        return path

    def begin_run(self, plan: dict, environment: dict) -> str:
        # the second and 16 random bits: two runs begun in one second share an id one time in 65,536
        # (a suite begins hundreds in a few seconds), so a taken id is drawn again
        for _ in range(1000):
            run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:4]
            try:
                self.db.execute(
                    "INSERT INTO runs (id, started_at, status, plan_name, plan_json, environment_json, method_hash) "
                    "VALUES (?, ?, 'running', ?, ?, ?, ?)",
                    (run_id, time.time(), plan.get("name"), json.dumps(plan), json.dumps(environment),
                     method_hash(plan, environment)))
            except Exception:  # sqlite3.IntegrityError or psycopg's UniqueViolation: a taken id, or else raised
                if self.db.execute("SELECT 1 FROM runs WHERE id=?", (run_id,)).fetchone() is None:
                    raise
                continue
            self.run_dir(run_id)
            return run_id
        raise RuntimeError("no free run id in 1000 draws")

    def finish_run(self, run_id: str, status: str, note: str = "") -> None:
        self.db.execute("UPDATE runs SET finished_at=?, status=?, note=? WHERE id=?", (time.time(), status, note, run_id))

    def add_figure(self, run_id: str, app: str, mode: str, scenario: str, metric: str, value: float, unit: str,
                   *, point: str = "", params: dict | None = None, repeat: int = 0, flags: Iterable[str] = (),
                   extra: dict | None = None) -> None:
        self.db.execute(
            "INSERT INTO figures (run_id, app, mode, scenario, point, metric, repeat, value, unit, flags, measured_at, "
            "extra_json, params_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (run_id, app, mode, scenario, point, metric, repeat, float(value), unit, json.dumps(sorted(set(flags))),
             time.time(), json.dumps(extra or {}, default=str), json.dumps(params or {}, default=str)))

    def add_flag(self, run_id: str, app: str, mode: str, scenario: str, repeat: int, flag: str) -> int:
        """Add a flag to every figure of one launch (known only after the launch, e.g. host-slow);
        returns how many figures got it."""
        rows = self.db.execute("SELECT id, flags FROM figures WHERE run_id=? AND app=? AND mode=? AND scenario=? "
                               "AND repeat=?", (run_id, app, mode, scenario, repeat)).fetchall()
        for row in rows:
            flags = sorted(set(json.loads(row["flags"] or "[]")) | {flag})
            self.db.execute("UPDATE figures SET flags=? WHERE id=?", (json.dumps(flags), row["id"]))
        return len(rows)

    def add_outcome(self, run_id: str, app: str, mode: str, scenario: str, status: str, reason: str = "") -> None:
        self.db.execute("INSERT INTO outcomes (run_id, app, mode, scenario, status, reason, at) VALUES (?,?,?,?,?,?,?)",
                        (run_id, app, mode, scenario, status, reason, time.time()))

    def add_file(self, run_id: str, app: str, mode: str, scenario: str, kind: str, name: str, content: str | bytes) -> Path:
        folder = self.run_dir(run_id) / f"{app}-{mode}" / scenario
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        self.register_file(run_id, app, mode, scenario, kind, path)
        return path

    def register_file(self, run_id: str, app: str, mode: str, scenario: str, kind: str, path: Path) -> None:
        """Record a file already written under the run's folder (e.g. a samples CSV)."""
        self.db.execute("INSERT INTO files (run_id, app, mode, scenario, kind, path) VALUES (?,?,?,?,?,?)",
                        (run_id, app, mode, scenario, kind, str(path.relative_to(self.path.parent))))

    def add_step(self, run_id: str, label: str, estimate_s: float, actual_s: float) -> None:
        """A planned step that ran to its end, and how long it took."""
        self.db.execute("INSERT INTO steps (run_id, label, estimate_s, actual_s, finished_at) VALUES (?,?,?,?,?)",
                        (run_id, label, estimate_s, actual_s, time.time()))

    def reopen_run(self, run_id: str) -> None:
        """An interrupted or failed run goes on (perflab.resume)."""
        self.db.execute("UPDATE runs SET finished_at=NULL, status='running', note='' WHERE id=?", (run_id,))

    def forget(self, run_id: str, *, after: float, parts: Iterable[tuple[str, str, str]] = (),
               outcome_statuses: Iterable[str] = ()) -> int:
        """Remove a run's figures, outcomes and files recorded after `after` (the step in flight when it
        stopped), those of the (app, mode, scenario) parts given (steps that are to run again) and
        its outcomes of the given statuses; returns how many figures went."""
        self._forget_files(run_id, after, set(parts))
        gone = self.db.execute("DELETE FROM figures WHERE run_id=? AND measured_at>?", (run_id, after)).rowcount
        self.db.execute("DELETE FROM outcomes WHERE run_id=? AND at>?", (run_id, after))
        for status in outcome_statuses:
            self.db.execute("DELETE FROM outcomes WHERE run_id=? AND status=?", (run_id, status))
        for app, mode, scenario in parts:
            gone += self.db.execute("DELETE FROM figures WHERE run_id=? AND app=? AND mode=? AND scenario=?",
                                    (run_id, app, mode, scenario)).rowcount
            self.db.execute("DELETE FROM outcomes WHERE run_id=? AND app=? AND mode=? AND scenario=?",
                            (run_id, app, mode, scenario))
        return gone

    def _forget_files(self, run_id: str, after: float, parts: set[tuple[str, str, str]]) -> None:
        """A file row has no time of its own: a file written after `after` (its mtime: files are written
        once) or of a part that runs again goes, on disk and in the table, as does a row whose file is
        gone; a part's file written again under the same name would otherwise be listed twice."""
        for row in self.files(run_id):
            path = self.path.parent / row["path"]
            try:
                late = path.stat().st_mtime > after
            except FileNotFoundError:
                late = True
            if late or (row["app"], row["mode"], row["scenario"]) in parts:
                path.unlink(missing_ok=True)
                self.db.execute("DELETE FROM files WHERE id=?", (row["id"],))

    def update_environment(self, run_id: str, environment: dict) -> None:
        self.db.execute("UPDATE runs SET environment_json=? WHERE id=?", (json.dumps(environment), run_id))

    def save_rounds(self, run_id: str, record: dict) -> None:
        """A run's launch rounds as they stand (perflab.round_loop): the record's run-wide facts into
        `rounds`, and each launch of its rounds' orders, with what it gave once it ended, into
        `launches`. Written whole, in one transaction, each time the rounds move on."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            write_rounds(self.db, run_id, record)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def set_targets(self, run_id: str, targets: Iterable[tuple[str, bool, bool | None]]) -> None:
        """The run's app/modes in plan order: (label, runs on a JVM, is its app's main mode)."""
        self.db.execute("DELETE FROM targets WHERE run_id=?", (run_id,))
        # a label given twice keeps its last place, as a replacing insert would (plain SQL for PostgreSQL too)
        places = {label: (place, jvm, main) for place, (label, jvm, main) in enumerate(targets, 1)}
        for label, (place, jvm, main) in sorted(places.items(), key=lambda item: item[1][0]):
            app, _, mode = label.partition("/")
            self.db.execute("INSERT INTO targets VALUES (?,?,?,?,?,?)",
                            (run_id, place, app, mode, int(jvm), None if main is None else int(main)))


def write_rounds(db: sqlite3.Connection, run_id: str, record: dict) -> None:
    """Replace a run's rows in `rounds` and `launches` with a rounds record (Store.save_rounds; the
    migration of a record stored inside the run's environment). A launch of the record's orders
    that has no entry in its launches is stored without an end (took_s NULL)."""
    db.execute("DELETE FROM rounds WHERE run_id=?", (run_id,))
    db.execute("DELETE FROM launches WHERE run_id=?", (run_id,))
    db.execute("INSERT INTO rounds (run_id, seed, design, target, count, ended, ended_why, "
               + ", ".join(ROUNDS_JSON_COLUMNS.values()) + ") VALUES (?,?,?,?,?,?,?"
               + ",?" * len(ROUNDS_JSON_COLUMNS) + ")",
               (run_id, record.get("seed"), record.get("design", ""), record.get("target"), record.get("rounds"),
                record.get("ended", ""), record.get("ended_why", ""),
                *(json.dumps(record[k], default=str) if k in record else None for k in ROUNDS_JSON_COLUMNS)))
    ended = {(e["round"], e["label"]): e for e in record.get("launches") or []}
    places: list[tuple[int, int, str]] = [(n, place, label) for n, who in enumerate(record.get("orders") or [], 1)
                                          for place, label in enumerate(who, 1)]
    ordered = {(n, label) for n, _, label in places}
    places += [(n, 0, label) for n, label in ended if (n, label) not in ordered]  # an entry of no order: place 0
    for n, place, label in places:
        e = ended.get((n, label))
        app, _, mode = label.partition("/")
        if e is None:
            db.execute("INSERT INTO launches (run_id, round, place, app, mode) VALUES (?,?,?,?,?)",
                       (run_id, n, place, app, mode))
            continue
        db.execute("INSERT INTO launches (run_id, round, place, app, mode, value, failed, scenarios_json, "
                   "intervals_json, before_s, took_s, canary_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                   (run_id, n, e.get("place") or place, app, mode, e.get("value"), e.get("failed") or "",
                    json.dumps(e["launched"]) if "launched" in e else None,
                    json.dumps(e["intervals"]) if "intervals" in e else None, e.get("before_s"),
                    e.get("took_s") or 0.0, json.dumps(e["canary"]) if "canary" in e else None))
