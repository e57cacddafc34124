"""The host-speed canary's arithmetic (perflab.probes.canary takes the readings): how far each
reading lies from the median of a run's readings, and whether one shows the host slow."""

from __future__ import annotations

import statistics

SLOW_THRESHOLD = 0.05
# the pointer chase's metrics (perflab.probes.canary's mem_ms, stored per side) and where each ran
CACHE_SIDES = (("app_cache_ms", "app's CPU"), ("load_cache_ms", "load side's CPU"))


def deviations(readings_ms: list[float]) -> list[float]:
    """Each reading's relative deviation from the median of all (0.1 = 10 % slower)."""
    if not readings_ms:
        return []
    middle = statistics.median(readings_ms)
    if middle <= 0:
        raise ValueError("canary readings must be positive")
    return [value / middle - 1 for value in readings_ms]


# A run's median pointer chase this far beyond every earlier run's: the host's shared cache was in
# another state. On a 2-core VM the chase's readings varied 30-60 % within a run; the medians of
# runs in one state lay up to 16 % beyond the others' (12.1 against 14.4-15.1 ms), those of two
# states 25-28 % apart (13.6-14.2 against 19.0-26.2 ms, with a 40 % faster stack in the first)
APART = 0.20


def against_earlier(now_ms: float, earlier_ms: list[float], apart: float = APART) -> float:
    """How far a run's median reading lies beyond every earlier run's median, relative to the
    nearest of them: > 0 slower than all by more than `apart`, < 0 faster than all by more than
    `apart`, 0 within their range or near it (and without earlier runs)."""
    return separated(earlier_ms, [now_ms], apart)


def separated(before_ms: list[float], after_ms: list[float], apart: float = APART) -> float:
    """How far every run's median reading after a point lies beyond every one before it, from the
    nearest pair: > 0 all slower by more than `apart`, < 0 all faster by more than `apart`, 0 when
    the two sides overlap or come closer than that (or one side has no runs)."""
    if not before_ms or not after_ms or min(after_ms) <= 0:
        return 0.0
    slower, faster = min(after_ms) / max(before_ms) - 1, max(after_ms) / min(before_ms) - 1
    if slower > apart:
        return slower
    if faster < -apart:
        return faster
    return 0.0


def sides_apart(before_ms: list[float], after_ms: list[float], apart: float = APART) -> float:
    """How far the runs after a change point lie from the runs before it: the median of the after
    side's run medians relative to the before side's (> 0 slower), when the sides do not mix (every
    run after slower, or every one faster, than every run before) and their medians lie more than
    `apart` apart; else 0. Unlike `separated`, the nearest pair may come close: a host whose cache
    drifts part of the way back in later runs leaves the step it took standing."""
    if not before_ms or not after_ms or statistics.median(before_ms) <= 0:
        return 0.0
    change = statistics.median(after_ms) / statistics.median(before_ms) - 1
    if min(after_ms) > max(before_ms) and change > apart:
        return change
    if max(after_ms) < min(before_ms) and change < -apart:
        return change
    return 0.0


def slow(reading_ms: float, median_ms: float, threshold: float = SLOW_THRESHOLD) -> bool:
    """Whether a reading took more than ``threshold`` longer than the median (the host was slow)."""
    return reading_ms > median_ms * (1 + threshold)
