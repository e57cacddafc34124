"""Results: every figure is written to SQLite the moment it is measured (a crash loses at most the
point in flight), with raw driver output and samples as files beside it and the environment and the
full plan of the run. Versioned: SCHEMA_VERSION changes when the layout does.

A run's *method* (plan, limits, topology, versions) is hashed; runs with different method hashes
are not comparable and the compare/report code says so.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import sqlite3
import statistics
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from perflab.errors import LabError
from perflab.paths import work_dir
from perflab.progress import step_kind

PACE_LEAST_ESTIMATE_S = 0.5  # steps estimated shorter say nothing of how this machine keeps to estimates

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


@dataclass(frozen=True)
class Point:
    """Where on its curve a figure was measured: a label for people and its parameters as data
    (path, connections, rate, method, ...), which tables sort and select by."""

    label: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)


def point(label: str, **params: Any) -> Point:
    return Point(label, params)


NO_POINT = Point()


# rounds: one row per run whose launches ran in rounds: the seed and design of their order, the
# headline ratios and how each stood when the rounds ended, what earlier runs knew (history), why
# the rounds ended (ended, ended_why) and how many there were (count: NULL until they ended).
# launches: one row per launch in a round, at its place in the round's order: its value (the
# ratios' figure), why it failed, the scenarios it ran, its in-launch intervals, how long it took
# (NULL until it ended) and the host-speed canary's readings around it.
# targets: each app/mode of a run in plan order, whether it runs on a JVM and is its app's main mode.

_ROUND_JSON = {"headline": "headline_json", "least": "least_json", "ratios": "ratios_json",
               "history": "history_json", "two_levels": "two_levels_json", "round_s": "round_s_json"}

# The runs measured on this machine, which the estimates of how long things take here read: a run
# imported from another machine (perflab.results_import) names its own host and says nothing of
# this one's pace; a run that names no host counts as this machine's, as every run did before imports.
_HERE = "SELECT id FROM runs WHERE COALESCE(json_extract(environment_json, '$.hostname'), ?) = ?"


def _here() -> tuple[str, str]:
    return (platform.node(), platform.node())


# steps: how long each planned step of a run took (the time-left estimate of later runs of the plan
# starts from them) and when it ended (a resumed run goes on after its last finished step); added
# without a schema version: older stores simply have none yet, or no finished_at


@dataclass
class Figure:
    run_id: str
    app: str
    mode: str
    scenario: str
    point: str
    metric: str
    repeat: int
    value: float
    unit: str
    flags: list[str]
    measured_at: float
    extra: dict
    params: dict = field(default_factory=dict)


# The rounds' stopping rule decides how many rounds a run buys, not how a launch is measured or
# paired: a quick run given a longer budget measures every launch as any quick run does, so its
# rounds pool with theirs (the prior, the answer across runs) and compare with them.
ROUNDS_NOT_METHOD = ("target", "min_rounds", "max_rounds", "budget_min")


def method_hash(plan: dict, environment: dict) -> str:
    """What must be equal for two runs to be compared: the plan (minus its name, description and
    reductions, and the rounds' stopping rule), the machine's CPU model and core count, and the
    versions of JDKs, frameworks and drivers."""
    # the cost model's assumptions and a plan's record of its own duration change no measurement
    relevant_plan = {k: v for k, v in plan.items()
                     if k not in ("name", "description", "reductions", "measured", "cost", "ab")}
    if (plan.get("ab") or {}).get("base", {}).get("dir"):
        # an A/B run measures two commits: only runs of the same two pool their spread or count as
        # repeats of it (where the worktrees lie and how a revision was named change nothing)
        relevant_plan["ab"] = {role: {k: side.get(k) for k in ("sha", "dirty")} for role, side in plan["ab"].items()}
    if isinstance(plan.get("rounds"), dict):
        relevant_plan["rounds"] = {k: v for k, v in plan["rounds"].items() if k not in ROUNDS_NOT_METHOD}
    if plan.get("placement", {}).get("postgres_url"):
        # a given database is part of the method; its address and credentials are not (a private
        # server gets a new port and password each time)
        relevant_plan["placement"] = {**plan["placement"], "postgres_url": "given"}
    relevant_env = {k: environment.get(k) for k in ("cpu_model", "cpus_online", "jdks", "frameworks", "drivers",
                                                    "cgroup", "postgres")}
    if "jdks_used" in environment:  # the JDKs the run used, not every JDK the machine has
        relevant_env["jdks"] = environment["jdks_used"]
    blob = json.dumps({"plan": relevant_plan, "env": relevant_env}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


# brings a results file of an older schema (the version given) up to this one, in place
Upgrade = Callable[[sqlite3.Connection, Path, int], None]


class Store:
    def __init__(self, path: Path | None = None, upgrade: Upgrade | None = None):
        """`upgrade`: how a file of an older schema is brought up to this one; the lab's commands hand
        in perflab.migrate.upgrade (migrate.open_store), which needs the plan schema and the registry.
        Without it such a file is refused."""
        self.path = path or work_dir() / "results.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)  # autocommit: each write lands
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is not None and int(row["value"]) < SCHEMA_VERSION:
            if upgrade is None:
                raise LabError(f"{self.path} has results schema {row['value']}, older than this perflab's "
                               f"{SCHEMA_VERSION}", fix="open it with ./perflab (e.g. ./perflab results list), which "
                                                    "upgrades it")
            upgrade(self.db, self.path, int(row["value"]))
        elif row is not None and int(row["value"]) > SCHEMA_VERSION:
            raise LabError(f"{self.path} has results schema {row['value']}, this perflab writes {SCHEMA_VERSION}",
                           fix="use a newer perflab, or another PERFLAB_WORKDIR")
        self.db.executescript(_SCHEMA)
        if "finished_at" not in {r["name"] for r in self.db.execute("PRAGMA table_info(steps)")}:
            self.db.execute("ALTER TABLE steps ADD COLUMN finished_at REAL")
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    def close(self) -> None:
        self.db.close()

    # --- writing ------------------------------------------------------------------------------

    def run_dir(self, run_id: str) -> Path:
        path = self.path.parent / "runs" / run_id
        path.mkdir(parents=True, exist_ok=True)
        return path

    def begin_run(self, plan: dict, environment: dict) -> str:
        run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:4]
        self.db.execute(
            "INSERT INTO runs (id, started_at, status, plan_name, plan_json, environment_json, method_hash) "
            "VALUES (?, ?, 'running', ?, ?, ?, ?)",
            (run_id, time.time(), plan.get("name"), json.dumps(plan), json.dumps(environment),
             method_hash(plan, environment)))
        self.run_dir(run_id)
        return run_id

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
        for place, (label, jvm, main) in enumerate(targets, 1):
            app, _, mode = label.partition("/")
            self.db.execute("INSERT OR REPLACE INTO targets VALUES (?,?,?,?,?,?)",
                            (run_id, place, app, mode, int(jvm), None if main is None else int(main)))

    # --- reading ------------------------------------------------------------------------------

    def durations(self, plan_name: str, method: str, limit: int = 5) -> list[float]:
        """Wall-clock seconds of the latest complete runs of a plan with this method (newest first)."""
        rows = self.db.execute("SELECT started_at, finished_at FROM runs WHERE plan_name=? AND method_hash=? "
                               f"AND status='complete' AND finished_at IS NOT NULL AND id IN ({_HERE}) "
                               "ORDER BY started_at DESC LIMIT ?", (plan_name, method, *_here(), limit))
        return [r["finished_at"] - r["started_at"] for r in rows]

    def typical_steady_s(self, app: str, mode: str, limit: int = 10) -> dict[str, float]:
        """Per steady point (its label), the median time from launch to steady state (s) of an
        app/mode's latest launches measured on this machine (any plan). A launch that never reached
        steady state ran to its warm-up limit, later than any that did: it counts as infinitely late
        (a censored value, which the estimate caps at the plan's limit). Left out, as it once was,
        the median came from the quick launches only: on a machine where most launches run to the
        limit, a quick plan was estimated at two thirds of what it took."""
        rows = self.db.execute("SELECT run_id, point, repeat, metric, value, extra_json FROM figures WHERE app=? "
                               "AND mode=? AND scenario='steady' AND metric IN ('time_to_steady_ms', 'rps') "
                               f"AND run_id IN ({_HERE}) ORDER BY id DESC", (app, mode, *_here())).fetchall()
        by_point: dict[str, dict[tuple[str, int], float]] = {}  # point -> (run, launch) -> seconds, newest first
        for r in rows:
            launches = by_point.setdefault(r["point"], {})
            key = (r["run_id"], r["repeat"])
            if r["metric"] == "time_to_steady_ms" and r["value"] is not None:
                launches[key] = r["value"] / 1000
            elif key not in launches and json.loads(r["extra_json"] or "{}").get("steady") is False:
                launches[key] = math.inf  # recorded before its launch's time to steady state would be
        return {point: statistics.median(list(launches.values())[:limit])
                for point, launches in by_point.items() if launches}

    def typical_measure_s(self, app: str, mode: str, limit: int = 10) -> dict[str, float]:
        """Per steady point (its label), the median time an app/mode's latest launches here spent
        measuring after their warm-up (s; any plan): the measurement runs until its precision or
        its maximum, and on a noisy machine that is the maximum."""
        rows = self.db.execute("SELECT point, value FROM figures WHERE app=? AND mode=? AND scenario='steady' "
                               f"AND metric='measured_s' AND value IS NOT NULL AND run_id IN ({_HERE}) "
                               "ORDER BY id DESC", (app, mode, *_here())).fetchall()
        by_point: dict[str, list[float]] = {}
        for r in rows:
            seen = by_point.setdefault(r["point"], [])
            if len(seen) < limit:
                seen.append(r["value"])
        return {point: statistics.median(values) for point, values in by_point.items()}

    def step_durations(self, plan_name: str, method: str, runs: int = 3) -> dict[str, float]:
        """Per step label, the median duration (s) in the latest `runs` complete runs of a plan with
        this method that recorded their steps."""
        rows = self.db.execute("SELECT s.run_id, s.label, s.actual_s FROM steps s JOIN runs r ON r.id = s.run_id "
                               f"WHERE r.plan_name=? AND r.method_hash=? AND r.status='complete' AND r.id IN ({_HERE}) "
                               "ORDER BY r.started_at DESC, s.id", (plan_name, method, *_here())).fetchall()
        latest = list(dict.fromkeys(r["run_id"] for r in rows))[:runs]
        by_label: dict[str, list[float]] = {}
        for r in rows:
            if r["run_id"] in latest:
                by_label.setdefault(r["label"], []).append(r["actual_s"])
        return {label: statistics.median(values) for label, values in by_label.items()}

    def _typical_startup(self, app: str, mode: str, metric: str, limit: int) -> float | None:
        """The median of a startup figure over an app/mode's latest launches here (any plan), or None."""
        rows = self.db.execute("SELECT value FROM figures WHERE app=? AND mode=? AND scenario='startup' "
                               f"AND metric=? AND value IS NOT NULL AND run_id IN ({_HERE}) ORDER BY id DESC LIMIT ?",
                               (app, mode, metric, *_here(), limit)).fetchall()
        return statistics.median(r["value"] for r in rows) if rows else None

    def typical_ready_s(self, app: str, mode: str, limit: int = 10) -> float | None:
        """The median time to ready (s) of an app/mode's latest launches measured on this machine
        (the startup scenario's ready_ms, any plan), or None when none was."""
        ms = self._typical_startup(app, mode, "ready_ms", limit)
        return None if ms is None else ms / 1000

    def typical_rest_mb(self, app: str, mode: str, limit: int = 10) -> float | None:
        """The median RSS at rest after start-up (MB) of an app/mode's latest launches measured on
        this machine (the startup scenario's rss_rest_mb, any plan), or None when none was."""
        return self._typical_startup(app, mode, "rss_rest_mb", limit)

    def done_steps(self, run_id: str) -> dict[str, float]:
        """The steps of a run that ran to their end, and when (0 where an older store did not say)."""
        rows = self.db.execute("SELECT label, finished_at FROM steps WHERE run_id=? ORDER BY id", (run_id,))
        return {r["label"]: r["finished_at"] or 0.0 for r in rows}

    def paces(self, runs: int = 5) -> dict[str, float]:
        """How this machine's steps compare with their plans' estimates, per kind of step
        (progress.step_kind: a scenario, "round", "build", ...): measured over estimated seconds of
        that kind's steps in the latest `runs` runs that recorded one (any plan). A kind is its
        own measure: steady's warm-up runs past its estimate where a sweep or a soak keeps to
        its stated durations, so one pace for all would stretch a soak by a steady's margin."""
        # a step estimated under PACE_LEAST_ESTIMATE_S gauges no pace: its time is fixed overhead (and a
        # float residue of 1e-15 s once made a pace of 7e13, so an estimate of billions of hours)
        rows = self.db.execute("SELECT s.run_id, s.label, s.estimate_s, s.actual_s FROM steps s "
                               "JOIN runs r ON r.id = s.run_id WHERE s.estimate_s >= ? AND s.actual_s IS NOT NULL "
                               f"AND r.id IN ({_HERE}) ORDER BY r.started_at DESC, s.id DESC",
                               (PACE_LEAST_ESTIMATE_S, *_here())).fetchall()
        seen: dict[str, list[str]] = {}
        sums: dict[str, list[float]] = {}
        for r in rows:
            kind = step_kind(r["label"])
            kind_runs = seen.setdefault(kind, [])
            if r["run_id"] not in kind_runs:
                if len(kind_runs) == runs:
                    continue
                kind_runs.append(r["run_id"])
            est_act = sums.setdefault(kind, [0.0, 0.0])
            est_act[0] += r["estimate_s"]
            est_act[1] += r["actual_s"]
        return {kind: act / est for kind, (est, act) in sums.items()}

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
        for key, column in _ROUND_JSON.items():
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


def write_rounds(db: sqlite3.Connection, run_id: str, record: dict) -> None:
    """Replace a run's rows in `rounds` and `launches` with a rounds record (Store.save_rounds; the
    migration of a record stored inside the run's environment). A launch of the record's orders
    that has no entry in its launches is stored without an end (took_s NULL)."""
    db.execute("DELETE FROM rounds WHERE run_id=?", (run_id,))
    db.execute("DELETE FROM launches WHERE run_id=?", (run_id,))
    db.execute("INSERT INTO rounds (run_id, seed, design, target, count, ended, ended_why, "
               + ", ".join(_ROUND_JSON.values()) + ") VALUES (?,?,?,?,?,?,?" + ",?" * len(_ROUND_JSON) + ")",
               (run_id, record.get("seed"), record.get("design", ""), record.get("target"), record.get("rounds"),
                record.get("ended", ""), record.get("ended_why", ""),
                *(json.dumps(record[k], default=str) if k in record else None for k in _ROUND_JSON)))
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
