"""What earlier runs of the same plan, method and machine knew about each headline ratio: their
round-to-round spread (pooled, the prior a new run plans its rounds from and pools into its
interval), their intervals (what a new run's estimate is set beside) and their host's state (the
canary's medians: a run whose estimate moved may have had another host).

Only runs that ended complete, with the same method hash (plan settings, CPU model, core count,
JDKs, frameworks, drivers) and the same host name count: a run of another method or another
machine measures something else. Read from each run's stored rounds record, so a report of a run
shows what was known when it ran, whatever ran after it.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from perflab.analysis import host_speed, ratios_ci
from perflab.store import Store


@dataclass(frozen=True)
class PastRatio:
    run_id: str
    interval: ratios_ci.RatioInterval
    per_round_logs: list[float]   # ln(A / B) in each round where both launched

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run_id, "interval": self.interval.to_dict(), "per_round_logs": self.per_round_logs}


@dataclass
class History:
    runs: list[str] = field(default_factory=list)             # earlier run ids, oldest first
    ratios: dict[str, list[PastRatio]] = field(default_factory=dict)  # by pair label ("A / B")
    hosts: dict[str, dict[str, float]] = field(default_factory=dict)  # run id -> canary metric -> its median

    def prior(self, label: str, host: dict[str, float] | None = None) -> ratios_ci.Prior | None:
        """The earlier runs' round-to-round spread pooled; with `host` (this run's canary medians so
        far), only of the runs whose host was in the same state (same_state)."""
        return ratios_ci.pool([p.per_round_logs for p in self.ratios.get(label, [])
                               if host is None or same_state(self.hosts.get(p.run_id, {}), host)])

    def intervals(self, label: str) -> list[ratios_ci.RatioInterval]:
        return [p.interval for p in self.ratios.get(label, [])]


def interval_from_dict(d: dict[str, Any]) -> ratios_ci.RatioInterval:
    """A stored interval; one stored before the standard error was kept gets it from its spread."""
    n, paired = int(d["n"]), bool(d["paired"])
    se = d.get("se_log") or (d["sd_log"] / math.sqrt(n) if n > 0 else 0.0)
    df = d.get("df") or float(max(1, n - 1) if paired else max(1, 2 * n - 2))
    return ratios_ci.RatioInterval(d["estimate"], d["low"], d["high"], n, paired, d["sd_log"],
                                   d.get("confidence", ratios_ci.CONFIDENCE), float(df), float(se))


def per_round_logs(record: dict, numerator: str, denominator: str) -> list[float]:
    """ln(A / B) of each round of a stored rounds record where both app/modes gave a steady value
    (a launch still warming up paired nothing in its run, so it adds nothing to a prior)."""
    by_label: dict[str, dict[int, float]] = {}
    for entry in record.get("launches") or []:
        if entry.get("value") and entry.get("steady", True):
            by_label.setdefault(entry["label"], {})[entry["round"]] = float(entry["value"])
    a, b = by_label.get(numerator, {}), by_label.get(denominator, {})
    return [math.log(a[r] / b[r]) for r in sorted(a) if r in b and a[r] > 0 and b[r] > 0]


CANARY_METRICS = ("app_cpu_ms", "load_cpu_ms", "app_cache_ms", "load_cache_ms")

# How far two runs' canary medians may lie apart and still be one host state: the integer chain
# repeats to about 2 % on one host (5 % flags a launch host-slow); the pointer chase, which the
# host's neighbours move, lay up to 16 % apart within one state and 25-28 % between two
# (perflab.analysis.host_speed.APART).
STATE_APART = {"app_cpu_ms": host_speed.SLOW_THRESHOLD, "load_cpu_ms": host_speed.SLOW_THRESHOLD,
               "app_cache_ms": host_speed.APART, "load_cache_ms": host_speed.APART}


def same_state(past: dict[str, float], now: dict[str, float]) -> bool:
    """Whether an earlier run's host was in the state this run's is in: every canary median both
    have within STATE_APART of this run's. A run without readings is in no known state."""
    shared = [m for m in STATE_APART if past.get(m) and now.get(m)]
    return bool(shared) and all(abs(past[m] / now[m] - 1) <= STATE_APART[m] for m in shared)


def medians_of_readings(launches: list[dict]) -> dict[str, float]:
    """The canary's medians over the readings stored with a run's launches so far (each launch's
    entry in the rounds' record holds metric -> before/after -> ms)."""
    readings: dict[str, list[float]] = {}
    for entry in launches:
        for metric, at in (entry.get("canary") or {}).items():
            readings.setdefault(metric, []).extend(v for v in at.values() if v)
    return {metric: statistics.median(values) for metric, values in readings.items() if values}


def host_medians(store: Store, run_id: str) -> dict[str, float]:
    """The median of each canary metric over a run's readings (the integer chain and the pointer
    chase, on the app's CPU and on the load side's): the host's state during that run."""
    readings: dict[str, list[float]] = {}
    for f in store.figures(run_id):
        if f.scenario == "canary" and f.metric in CANARY_METRICS and f.value is not None:
            readings.setdefault(f.metric, []).append(f.value)
    return {metric: statistics.median(values) for metric, values in readings.items()}


def load(store: Store, run_id: str, limit: int = 20) -> History:
    """The complete runs before `run_id` of its plan, method and host (at most `limit`, the newest)."""
    row = store.run(run_id)
    if row is None:
        return History()
    host = json.loads(row["environment_json"] or "{}").get("hostname")
    return load_for(store, row["plan_name"], row["method_hash"], host, row["started_at"], row["id"], limit)


def load_for(store: Store, plan_name: str, method: str, host: str | None, before: float = math.inf,
             exclude: str = "", limit: int = 20) -> History:
    """The complete runs of a plan and method on `host` that started before `before`."""
    # the host is selected before the limit: runs imported from other machines of the same method
    # (CI runners of one kind) must not crowd this machine's out of its newest `limit`
    rows = store.db.execute(
        "SELECT id FROM runs WHERE plan_name=? AND method_hash=? AND status='complete' "
        "AND json_extract(environment_json, '$.hostname') IS ? AND started_at < ? AND id != ? "
        "ORDER BY started_at DESC LIMIT ?",
        (plan_name, method, host, before if math.isfinite(before) else 1e300, exclude, limit)).fetchall()
    history = History()
    for past in reversed(rows):
        record = store.rounds_record(past["id"]) or {}
        if not record:
            continue
        history.runs.append(past["id"])
        history.hosts[past["id"]] = host_medians(store, past["id"])
        for state in record.get("ratios") or []:
            if not state.get("interval"):
                continue
            history.ratios.setdefault(state["ratio"], []).append(PastRatio(
                past["id"], interval_from_dict(state["interval"]),
                per_round_logs(record, state["numerator"], state["denominator"])))
    return history
