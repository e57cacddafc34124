"""Recording per-interval timelines of load phases (the "timeline" files perflab.present.timelines
reads): one row per interval with its throughput, errors, latency percentiles and the app's CPU,
its time counted from the instance's launch, warm-up included.

Closed-loop phases get their intervals from consecutive short wrk runs (the steady scenario);
open-loop phases from oha's record of every request (perflab.drivers.oha_requests), cut into
intervals after the run.
"""

from __future__ import annotations

import csv
import io
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from perflab.drivers import oha_requests
from perflab.drivers.base import LoadResult
from perflab.drivers.wrk import IntervalRuns
from perflab.instance import Instance
from perflab.paths import work_dir
from perflab.present.timelines import COLUMNS
from perflab.scenario import Context


def row(*, launch: int, point: str, phase: str, t_s: float, duration_s: float, requests: int, errors: int,
        mean_ms: float | None, p50_ms: float | None, p90_ms: float | None, p99_ms: float | None,
        max_ms: float | None, cpu_share: float | None) -> list:
    """One interval in the order of COLUMNS."""
    rps = requests / duration_s if duration_s > 0 else 0.0
    return [launch, point, phase, round(t_s, 3), round(duration_s, 3), requests, round(rps, 1), errors,
            mean_ms, p50_ms, p90_ms, p99_ms, max_ms, None if cpu_share is None else round(cpu_share, 4)]


def app_cpu_share(inst: Instance, start_ns: int, end_ns: int) -> float | None:
    """The app's CPUs busy between two monotonic times (its cgroup's counter where it has one)."""
    if inst.sampler is None:
        return None
    series = inst.sampler.snapshot()
    return series.cpu_share("cgroup_cpu_s", start_ns, end_ns) or series.cpu_share("cpu_s", start_ns, end_ns)


@contextmanager
def request_records() -> Iterator[Path]:
    """A folder for oha's request records, removed afterwards (they can be large; the timeline
    keeps what the report needs)."""
    root = work_dir() / "tmp"
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="requests-", dir=root) as folder:
        yield Path(folder)


def oha_rows(inst: Instance, result: LoadResult, db: Path, *, launch: int, point: str, interval_s: float,
             warmup: bool = False) -> list[list]:
    """The intervals of the oha run whose requests were recorded in ``db``: the measured run of
    ``result``, or its warm-up run."""
    if not db.exists():
        return []
    start, length = (result.warmup_started_ns, result.warmup_s) if warmup else (result.started_ns, result.duration_s)
    phase = "warmup" if warmup else "measure"
    rows = []
    for iv in oha_requests.intervals(db, interval_s, length):
        end_ns = start + int(iv.end_s * 1e9)
        begin_ns = end_ns - int(iv.duration_s * 1e9)
        rows.append(row(launch=launch, point=point, phase=phase, t_s=(end_ns - inst.spawn_ns) / 1e9,
                        duration_s=iv.duration_s, requests=iv.requests, errors=iv.errors,
                        mean_ms=iv.latency_mean_ms, p50_ms=iv.latency_p50_ms, p90_ms=iv.latency_p90_ms,
                        p99_ms=iv.latency_p99_ms, max_ms=iv.latency_max_ms,
                        cpu_share=app_cpu_share(inst, begin_ns, end_ns)))
    return rows


def write(ctx: Context, name: str, rows: list[list]) -> None:
    """Store the rows as one timeline file of the scenario (nothing when there are none)."""
    if not rows:
        return
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    ctx.add_file("timeline", name, out.getvalue())


def wrk_rows(inst: Instance, runs: IntervalRuns, *, launch: int, point: str) -> list[list]:
    """The intervals of a closed-loop point measured interval by interval (warm-up first)."""
    rows = []
    for phase, timed in (("warmup", runs.warmup), ("measure", runs.measured)):
        for t in timed:
            r = t.result
            rows.append(row(launch=launch, point=point, phase=phase, t_s=(t.end_ns - inst.spawn_ns) / 1e9,
                            duration_s=r.duration_s, requests=r.requests, errors=r.errors.total,
                            mean_ms=r.latency.mean_ms, p50_ms=r.latency.percentile("50"),
                            p90_ms=r.latency.percentile("90"), p99_ms=r.latency.percentile("99"),
                            max_ms=r.latency.max_ms, cpu_share=app_cpu_share(inst, t.start_ns, t.end_ns)))
    return rows
