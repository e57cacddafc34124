"""Confidence intervals for a ratio of two apps' figures, from their launch-level values, and how
many launches a wanted precision needs. Pure functions (SciPy's t distribution).

A ratio such as Quarkus / Spring Boot throughput is judged on the log scale: ln(A / B) is a
difference of logs, whose sampling distribution is close to symmetric where the ratio's is not.

- Paired by round (the interleaved design, perflab.rounds): each round has one launch of A and one
  of B close together in time, so a slow spell of the host lands on both. The interval is
  Student's t on the per-round log ratios (n - 1 degrees of freedom). With 2 rounds t is 12.7,
  which is what 2 pairs honestly allow; 5 rounds bring it to 2.8.
- Unpaired (launches not run in rounds, or rounds where one side failed): Welch's interval on the
  two samples of logs.
- Kalibera and Jones (ISMM 2013) choose the repetitions at each level from the variance measured
  there: ``two_levels`` splits a figure's variance into the launch-to-launch part and the part of
  the intervals within a launch, and gives the number of intervals per launch that buys the most
  precision per second (few, when launches differ far more than intervals do).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np
from scipy import stats as sps

CONFIDENCE = 0.95


@dataclass(frozen=True)
class RatioInterval:
    estimate: float      # the ratio A / B (geometric mean of the per-round ratios when paired)
    low: float
    high: float
    n: int               # rounds (paired) or the smaller side's launches (unpaired)
    paired: bool
    sd_log: float        # the standard deviation behind the interval, on the log scale (per pair or pooled)
    confidence: float = CONFIDENCE

    @property
    def half_width(self) -> float:
        """The interval's half-width relative to the estimate (the larger side: log intervals are
        not symmetric on the ratio scale)."""
        return max(self.high / self.estimate - 1, 1 - self.low / self.estimate)

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "half_width": self.half_width}


def _clean(values: Sequence[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and v > 0 and math.isfinite(v)]


def paired(a_by_round: dict[int, float], b_by_round: dict[int, float],
           confidence: float = CONFIDENCE) -> RatioInterval | None:
    """A / B from the rounds where both sides have a value (None with fewer than 2 such rounds)."""
    rounds = sorted(r for r in a_by_round if r in b_by_round and a_by_round[r] > 0 and b_by_round[r] > 0)
    if len(rounds) < 2:
        return None
    d = np.log([a_by_round[r] for r in rounds]) - np.log([b_by_round[r] for r in rounds])
    n = len(d)
    mean, sd = float(np.mean(d)), float(np.std(d, ddof=1))
    t = float(sps.t.ppf(0.5 + confidence / 2, n - 1))
    half = t * sd / math.sqrt(n)
    return RatioInterval(math.exp(mean), math.exp(mean - half), math.exp(mean + half), n, True, sd, confidence)


def unpaired(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> RatioInterval | None:
    """A / B from two independent samples of launches (Welch; None with fewer than 2 a side)."""
    la, lb = np.log(_clean(a)), np.log(_clean(b))
    if len(la) < 2 or len(lb) < 2:
        return None
    va, vb = float(np.var(la, ddof=1)) / len(la), float(np.var(lb, ddof=1)) / len(lb)
    diff = float(np.mean(la) - np.mean(lb))
    se = math.sqrt(va + vb)
    if se == 0:
        return RatioInterval(math.exp(diff), math.exp(diff), math.exp(diff), min(len(la), len(lb)), False, 0.0,
                             confidence)
    df = (va + vb) ** 2 / (va ** 2 / (len(la) - 1) + vb ** 2 / (len(lb) - 1))
    half = float(sps.t.ppf(0.5 + confidence / 2, df)) * se
    pooled_sd = se * math.sqrt(min(len(la), len(lb)))
    return RatioInterval(math.exp(diff), math.exp(diff - half), math.exp(diff + half), min(len(la), len(lb)),
                         False, pooled_sd, confidence)


def interval(a_by_round: dict[int, float], b_by_round: dict[int, float],
             confidence: float = CONFIDENCE) -> RatioInterval | None:
    """Paired by round where at least two rounds pair up, else unpaired over all launches."""
    return paired(a_by_round, b_by_round, confidence) or unpaired(list(a_by_round.values()),
                                                                  list(b_by_round.values()), confidence)


def settled(ci: RatioInterval | None, target: float, least: int) -> bool:
    """Within +-target and from at least `least` rounds (or launches a side). With fewer, the spread
    is itself estimated from too few values: stopping at the first narrow interval keeps, more often
    than its confidence says, the rounds that agreed by chance, and the next run lands outside it."""
    return ci is not None and ci.n >= least and ci.half_width <= target


def rounds_needed(sd_log: float, target: float, confidence: float = CONFIDENCE, most: int = 1000,
                  least: int = 2) -> int | None:
    """Rounds whose paired interval would have a half-width of at most `target` (relative), if the
    per-round log ratios keep the spread `sd_log`, and at least `least`; None when even `most`
    rounds would not do."""
    if sd_log <= 0:
        return max(2, least)
    goal = math.log1p(target)
    for n in range(max(2, least), most + 1):
        if float(sps.t.ppf(0.5 + confidence / 2, n - 1)) * sd_log / math.sqrt(n) <= goal:
            return n
    return None


@dataclass(frozen=True)
class TwoLevels:
    """A figure's variance split into its two levels (Kalibera and Jones's T1^2 and T2^2)."""

    launches: int
    intervals_per_launch: float   # mean
    within: float                 # variance of the intervals within a launch, pooled (T1^2)
    between: float                # variance of the launch means beyond what the intervals explain (T2^2)
    optimal_intervals: int | None  # intervals per launch that buy the most precision per second

    @property
    def launch_share(self) -> float:
        """How much of one launch's value's variance is the launch's own (0..1)."""
        total = self.between + self.within / max(self.intervals_per_launch, 1)
        return self.between / total if total > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "launch_share": self.launch_share}


def two_levels(launches: Sequence[Sequence[float]], launch_cost_s: float, interval_cost_s: float) -> TwoLevels | None:
    """From each launch's interval values (at least 2 launches with at least 2 intervals each),
    the two variances and the optimal intervals per launch, r1 = ceil(sqrt(c2 T1^2 / (c1 T2^2))),
    where c2 is what a launch costs before its intervals (start, warm-up) and c1 one interval."""
    used = [np.asarray(v, dtype=float) for v in launches if len(v) >= 2]
    if len(used) < 2:
        return None
    within = float(np.mean([np.var(v, ddof=1) for v in used]))
    means = np.array([v.mean() for v in used])
    m = float(np.mean([len(v) for v in used]))
    between = max(0.0, float(np.var(means, ddof=1)) - within / m)
    optimal = None
    if between > 0 and interval_cost_s > 0:
        optimal = max(1, math.ceil(math.sqrt(launch_cost_s * within / (interval_cost_s * between))))
    return TwoLevels(len(used), m, within, between, optimal)
