"""The host-speed canary's arithmetic (perflab.probes.canary takes the readings): how far each
reading lies from the median of a run's readings, and whether one shows the host slow."""

from __future__ import annotations

import statistics

SLOW_THRESHOLD = 0.05


def deviations(readings_ms: list[float]) -> list[float]:
    """Each reading's relative deviation from the median of all (0.1 = 10 % slower)."""
    if not readings_ms:
        return []
    middle = statistics.median(readings_ms)
    if middle <= 0:
        raise ValueError("canary readings must be positive")
    return [value / middle - 1 for value in readings_ms]


# A run's median pointer chase this far beyond every earlier run's: the host's shared cache was in
# another state (the chase's readings vary 30-60 % within a run on a busy host, their medians
# 10-25 % between runs in the same state; 13.6 against 19-26 ms was a 40 % faster stack here)
APART = 0.15


def against_earlier(now_ms: float, earlier_ms: list[float], apart: float = APART) -> float:
    """How far a run's median reading lies beyond every earlier run's median, relative to the
    nearest of them: > 0 slower than all by more than `apart`, < 0 faster than all by more than
    `apart`, 0 within their range or near it (and without earlier runs)."""
    if not earlier_ms or now_ms <= 0:
        return 0.0
    above, below = now_ms / max(earlier_ms) - 1, now_ms / min(earlier_ms) - 1
    if above > apart:
        return above
    if below < -apart:
        return below
    return 0.0


def slow(reading_ms: float, median_ms: float, threshold: float = SLOW_THRESHOLD) -> bool:
    """Whether a reading took more than ``threshold`` longer than the median (the host was slow)."""
    return reading_ms > median_ms * (1 + threshold)
