"""One figure from consecutive short runs of the same load (a point measured as 1 s intervals).

Counts add up (requests, errors, the driver's CPU) and throughput is the requests over the summed
measured time. Latency: the mean is weighted by requests and the spread pooled; percentiles are
read from the runs' distributions put together: each run reports its latency at a grid of
percentiles (wrk: every whole percent, then 99.5, 99.9 and 99.99; see lua/summary.lua), each grid
point stands for the share of that run's requests between it and the grid point below, and the
merged percentile is where the cumulative share first reaches it. Exact to the grid's resolution
(a whole percent up to p99, finer above), not to the request; a percentile beyond every run's
grid is left out rather than guessed.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

from .base import ErrorCounts, LatencyStats, LoadResult, assess_driver_bound, percentile_key

REPORTED = ("50", "75", "90", "99", "99.9", "99.99")


def _errors(parts: Sequence[ErrorCounts]) -> ErrorCounts:
    out = ErrorCounts()
    for e in parts:
        out.non_2xx += e.non_2xx
        out.timeouts += e.timeouts
        out.connect += e.connect
        out.read += e.read
        out.write += e.write
        out.aborted_at_deadline += e.aborted_at_deadline
        for k, v in e.status_counts.items():
            out.status_counts[k] = out.status_counts.get(k, 0) + v
        for k, v in e.other.items():
            out.other[k] = out.other.get(k, 0) + v
    return out


def _weighted_grid(results: Sequence[LoadResult]) -> list[tuple[float, float]]:
    """(latency ms, requests it stands for) of every grid point of every run, by latency."""
    points = []
    for r in results:
        grid = sorted((float(k), v) for k, v in r.latency.percentiles_ms.items())
        below = 0.0
        for pct, value in grid:
            points.append((value, r.requests * (pct - below) / 100))
            below = pct
    return sorted(points)


def merged_percentiles(results: Sequence[LoadResult], wanted: Sequence[str] = REPORTED) -> dict[str, float]:
    points = _weighted_grid([r for r in results if r.requests])
    total = sum(w for _, w in points)
    finest = min((max(float(k) for k in r.latency.percentiles_ms) for r in results
                  if r.requests and r.latency.percentiles_ms), default=0.0)
    out = {}
    for key in wanted:
        pct = float(key)
        if not points or pct > finest:
            continue
        need, seen = total * pct / 100, 0.0
        for value, weight in points:
            seen += weight
            if seen >= need - 1e-9 * total:
                out[percentile_key(pct)] = value
                break
    return out


def _latency(results: Sequence[LoadResult]) -> LatencyStats:
    counted = [r for r in results if r.requests and r.latency.mean_ms is not None]
    n = sum(r.requests for r in counted)
    if not n:
        return LatencyStats()
    mean = sum(r.latency.mean_ms * r.requests for r in counted) / n
    stdev = None
    if all(r.latency.stdev_ms is not None for r in counted):
        stdev = math.sqrt(sum(r.requests * (r.latency.stdev_ms ** 2 + (r.latency.mean_ms - mean) ** 2)
                              for r in counted) / n)
    maxes = [r.latency.max_ms for r in counted if r.latency.max_ms is not None]
    mins = [r.latency.min_ms for r in counted if r.latency.min_ms is not None]
    return LatencyStats(mean_ms=mean, stdev_ms=stdev, max_ms=max(maxes) if maxes else None,
                        min_ms=min(mins) if mins else None, percentiles_ms=merged_percentiles(counted))


def merge(results: Sequence[LoadResult]) -> LoadResult:
    """The runs as one load point (their driver, URL and shape are the first run's)."""
    if not results:
        raise ValueError("nothing to merge")
    first = results[0]
    requests = sum(r.requests for r in results)
    duration = sum(r.duration_s for r in results)
    cpu_s = sum(r.driver_cpu_s for r in results)
    # utilisation over the merged time, weighting each run by its length
    utilisation = sum(r.driver_cpu_utilisation * r.duration_s for r in results) / duration if duration else 0.0
    bound, reason = assess_driver_bound(utilisation, first.offered_rate, requests / duration if duration else 0.0)
    return replace(
        first, duration_s=duration, requests=requests, rps=requests / duration if duration else 0.0,
        latency=_latency(results), errors=_errors([r.errors for r in results]), driver_cpu_s=cpu_s,
        driver_cpu_utilisation=utilisation, driver_bound=bound, driver_bound_reason=reason,
        raw_output="\n".join(f"# interval {i + 1} of {len(results)}\n{r.raw_output}" for i, r in enumerate(results)))


def merge_concurrent(results: Sequence[LoadResult]) -> LoadResult:
    """Runs that went on at the same time (e.g. one per instance) as one load: their requests and
    connections add up over the longest run's time."""
    merged = merge(results)
    duration = max(r.duration_s for r in results)
    return replace(merged, duration_s=duration, rps=merged.requests / duration if duration else 0.0,
                   connections=sum(r.connections for r in results))
