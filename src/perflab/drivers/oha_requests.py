"""Per-interval figures from oha's record of every request.

With ``--db-url FILE`` oha writes one SQLite row per completed request (its start, the time it was
due under ``--latency-correction``, its end and status) once the run is over, so the record costs
the measured run nothing. Bucketing those rows by completion time gives each interval its own
throughput, errors and exact latency percentiles: a timeline of an open-loop point, warm-up
included, from the driver's own clock. Latency is counted from when a request was due (the
coordinated-omission-free figure the run reports), or from its send time when the run was not
corrected. Transport errors are not in the record: an interval's errors are its responses with a
status of 400 or more.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class IntervalFigures:
    end_s: float  # from the start of the run to the end of the interval
    duration_s: float
    requests: int
    errors: int
    latency_mean_ms: float | None
    latency_p50_ms: float | None
    latency_p90_ms: float | None
    latency_p99_ms: float | None
    latency_max_ms: float | None

    @property
    def rps(self) -> float:
        return self.requests / self.duration_s if self.duration_s > 0 else 0.0


def read_requests(db: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(end s, latency ms, status) of every recorded request, ordered by end."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT end, end - COALESCE(start_latency_correction, start), status FROM oha "
                            "ORDER BY end").fetchall()
    if not rows:
        return np.empty(0), np.empty(0), np.empty(0, dtype=int)
    data = np.asarray(rows, dtype=float)
    return data[:, 0], data[:, 1] * 1e3, data[:, 2].astype(int)


def intervals(db: Path, interval_s: float, run_s: float) -> list[IntervalFigures]:
    """The run cut into intervals of ``interval_s`` by completion time; the last one ends at
    ``run_s`` (the run's measured length): a remainder under half an interval joins it (a run of
    4.003 s gives four intervals, not a fifth of 3 ms whose rate would mean nothing)."""
    if interval_s <= 0 or run_s <= 0:
        raise ValueError("need interval_s > 0 and run_s > 0")
    ends, latency, status = read_requests(db)
    out = []
    count = max(1, math.floor(run_s / interval_s + 0.5))
    for k in range(count):
        last = k == count - 1
        lo, hi = k * interval_s, run_s if last else (k + 1) * interval_s
        mine = (ends >= lo) & ((ends <= hi) if last else (ends < hi))
        lat = latency[mine]
        pct = np.percentile(lat, [50, 90, 99]) if lat.size else [None] * 3
        out.append(IntervalFigures(
            end_s=hi, duration_s=hi - lo, requests=int(lat.size), errors=int((status[mine] >= 400).sum()),
            latency_mean_ms=float(lat.mean()) if lat.size else None,
            latency_p50_ms=None if pct[0] is None else float(pct[0]),
            latency_p90_ms=None if pct[1] is None else float(pct[1]),
            latency_p99_ms=None if pct[2] is None else float(pct[2]),
            latency_max_ms=float(lat.max()) if lat.size else None))
    return out
