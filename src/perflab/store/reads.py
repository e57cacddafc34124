"""Reading a stored run back: the run, its figures, outcomes, files, app/modes, rounds and finished steps."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from perflab.store.records import Figure
from perflab.store.schema import ROUNDS_JSON_COLUMNS


class RunReads:
    """The store's reads of one run or of the list of runs (Store: the connection `db`)."""

    db: sqlite3.Connection

    def runs(self) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM runs ORDER BY started_at DESC").fetchall()

    def run(self, run_id: str) -> sqlite3.Row | None:
        if run_id in ("last", "latest"):
            return self.db.execute("SELECT * FROM runs ORDER BY started_at DESC LIMIT 1").fetchone()
        row = self.db.execute("SELECT * FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None:  # a unique prefix is enough
            rows = self.db.execute("SELECT * FROM runs WHERE id LIKE ?", (run_id + "%",)).fetchall()
            row = rows[0] if len(rows) == 1 else None
        return row

    def figures(self, run_id: str) -> list[Figure]:
        rows = self.db.execute("SELECT * FROM figures WHERE run_id=? ORDER BY id", (run_id,)).fetchall()
        return [Figure(r["run_id"], r["app"], r["mode"], r["scenario"], r["point"], r["metric"], r["repeat"],
                       r["value"], r["unit"], json.loads(r["flags"]), r["measured_at"], json.loads(r["extra_json"]),
                       json.loads(r["params_json"] or "{}"))
                for r in rows]

    def figure_count(self, run_id: str) -> int:
        return self.db.execute("SELECT COUNT(*) FROM figures WHERE run_id=?", (run_id,)).fetchone()[0]

    def outcomes(self, run_id: str) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM outcomes WHERE run_id=? ORDER BY id", (run_id,)).fetchall()

    def files(self, run_id: str) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM files WHERE run_id=? ORDER BY id", (run_id,)).fetchall()

    def targets(self, run_id: str) -> list[tuple[str, bool, bool | None]]:
        """The run's app/modes as set_targets stored them (none for a run stored before they were)."""
        rows = self.db.execute("SELECT app, mode, jvm, main FROM targets WHERE run_id=? ORDER BY place", (run_id,))
        return [(f"{r['app']}/{r['mode']}", bool(r["jvm"]), None if r["main"] is None else bool(r["main"]))
                for r in rows]

    def rounds_record(self, run_id: str) -> dict | None:
        """A run's launch rounds as one record (None when its launches did not run in rounds): seed,
        design, target, headline, least, ratios, history, two_levels, round_s, ended, ended_why,
        rounds (their number, once they ended), orders (each round's app/modes by place) and
        launches (each launch of a round that ended: round, place, label, value, failed, launched,
        took_s, and intervals, before_s and canary where stored)."""
        row = self.db.execute("SELECT * FROM rounds WHERE run_id=?", (run_id,)).fetchone()
        if row is None:
            return None
        record: dict[str, Any] = {"seed": row["seed"], "design": row["design"] or "", "target": row["target"],
                                  "ended": row["ended"] or "", "ended_why": row["ended_why"] or ""}
        for key, column in ROUNDS_JSON_COLUMNS.items():
            if row[column] is not None:
                record[key] = json.loads(row[column])
        if row["count"] is not None:
            record["rounds"] = row["count"]
        orders: dict[int, list[str]] = {}
        launches = []
        for r in self.db.execute("SELECT * FROM launches WHERE run_id=? ORDER BY round, place, id", (run_id,)):
            label = f"{r['app']}/{r['mode']}"
            orders.setdefault(r["round"], []).append(label)
            if r["took_s"] is None:  # planned or in flight: in its round's order, not yet a launch that ended
                continue
            entry: dict[str, Any] = {"round": r["round"], "place": r["place"], "label": label, "value": r["value"],
                                     "failed": r["failed"] or "", "took_s": r["took_s"]}
            if r["scenarios_json"] is not None:  # an older record did not list them
                entry["launched"] = json.loads(r["scenarios_json"])
            if r["intervals_json"] is not None:
                entry["intervals"] = json.loads(r["intervals_json"])
            if r["before_s"] is not None:
                entry["before_s"] = r["before_s"]
            if r["canary_json"] is not None:
                entry["canary"] = json.loads(r["canary_json"])
            launches.append(entry)
        record["orders"] = [orders[n] for n in sorted(orders)]
        record["launches"] = launches
        return record

    def done_steps(self, run_id: str) -> dict[str, float]:
        """The steps of a run that ran to their end, and when (0 where an older store did not say)."""
        rows = self.db.execute("SELECT label, finished_at FROM steps WHERE run_id=? ORDER BY id", (run_id,))
        return {r["label"]: r["finished_at"] or 0.0 for r in rows}
