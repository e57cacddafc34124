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


def slow(reading_ms: float, median_ms: float, threshold: float = SLOW_THRESHOLD) -> bool:
    """Whether a reading took more than ``threshold`` longer than the median (the host was slow)."""
    return reading_ms > median_ms * (1 + threshold)
