"""How long things take on this machine, read from its stored runs: what the time estimates start from."""

from __future__ import annotations

import json
import math
import platform
import sqlite3
import statistics

from perflab.progress import step_kind

PACE_LEAST_ESTIMATE_S = 0.5  # steps estimated shorter say nothing of how this machine keeps to estimates


# The runs measured on this machine, which the estimates of how long things take here read: a run
# imported from another machine (perflab.results_import) names its own host and says nothing of
# this one's pace; a run that names no host counts as this machine's, as every run did before imports.
_HERE = "SELECT id FROM runs WHERE COALESCE(json_extract(environment_json, '$.hostname'), ?) = ?"


def _here() -> tuple[str, str]:
    return (platform.node(), platform.node())


class MachineEstimates:
    """The store's queries for estimates of this machine's pace (Store: the connection `db`)."""

    db: sqlite3.Connection

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
            if r["run_id"] in latest and r["actual_s"] is not None:  # a NaN duration is stored as NULL
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
