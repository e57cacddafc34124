"""When a load has reached steady state, and how precisely its throughput is then known.

The rule (documented in docs/method.md and stored with every figure):
- **Steady**: the last `window` intervals' throughput has a coefficient of variation of at most
  `max_cv`, and its least-squares trend is either not significant (two-sided p >= 0.05) or
  changes throughput by less than `max_trend` across the window; and whatever its significance,
  the fitted change across the window is no larger than `max_cv` (a noisy window can hide a
  climb of 15 % from the test, and its mean would then describe neither its start nor its end).
  A JVM still compiling climbs steadily (a significant trend); one that has settled only jitters.
  The trend test alone cannot see a slow climb (ten 1 s intervals with 6 % noise leave +-14 % on
  the change across the window, so +5 % per 10 s passes), so the window must also hold the level of
  the window before it, judged as an equivalence: the 90 % interval of the difference of the two
  windows' means lies within +-`max_step` (two one-sided tests at 5 %). For JVM modes the steady
  scenario adds the JIT's own state: its compile time per second must be below a limit too
  (throughput can look flat while the compiler still takes much of a one-CPU quota).
- **Precise enough**: the 95 % confidence interval of the mean throughput over the measured
  intervals is within +-`precision` of the mean. Consecutive intervals are correlated (GC, JIT
  events span seconds), so the interval uses an effective sample size n * (1 - r1) / (1 + r1)
  from the lag-1 autocorrelation r1 (zero when it is negative): correlated intervals count less.
- **Held over the measurement**: `drift` judges a whole measurement with robust estimators, so
  that one or two intervals on the tail of a ramp at its head do not pass for a drift.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Sequence

from scipy import stats as sps


@dataclass(frozen=True)
class Rule:
    window: int = 10          # intervals judged together
    max_cv: float = 0.10      # spread allowed within the window
    max_trend: float = 0.02   # relative change across the window a significant trend may still have
    precision: float = 0.02   # target: 95 % CI half-width relative to the mean
    max_step: float = 0.075   # the last window's mean within this of the window before it (90 % interval)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Verdict:
    steady: bool
    cv: float | None
    trend: float | None   # relative change across the window from the fitted slope
    trend_p: float | None
    why: str


def _cv(values: Sequence[float]) -> float:
    mean = math.fsum(values) / len(values)
    if mean == 0:
        return math.inf
    var = math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return math.sqrt(var) / abs(mean)


def judge(values: Sequence[float], rule: Rule) -> Verdict:
    """Is the recent throughput steady? `values`: per-interval throughput, oldest first."""
    if len(values) < max(3, rule.window):
        return Verdict(False, None, None, None, f"fewer than {rule.window} intervals")
    window = list(values[-rule.window:])
    mean = math.fsum(window) / len(window)
    cv = _cv(window)
    if mean <= 0:
        return Verdict(False, cv, None, None, "no throughput")
    fit = sps.linregress(range(len(window)), window)
    trend = float(fit.slope) * (len(window) - 1) / mean
    p = float(fit.pvalue) if not math.isnan(fit.pvalue) else 1.0
    if p < 0.05 and abs(trend) >= rule.max_trend:
        return Verdict(False, cv, trend, p, f"still {'rising' if trend > 0 else 'falling'} "
                                            f"({trend:+.1%} across the window, p={p:.3f})")
    if cv > rule.max_cv:
        return Verdict(False, cv, trend, p, f"spread {cv:.1%} above {rule.max_cv:.0%}")
    if abs(trend) > rule.max_cv:
        return Verdict(False, cv, trend, p, f"still {'rising' if trend > 0 else 'falling'} "
                                            f"({trend:+.1%} across the window, more than the "
                                            f"{rule.max_cv:.0%} spread allowed; p={p:.2f})")
    if len(values) < 2 * rule.window:
        return Verdict(False, cv, trend, p, f"one window steady (spread {cv:.1%}, trend {trend:+.1%}); the next must "
                                            f"hold its level ({2 * rule.window} intervals)")
    step = window_step(values[-2 * rule.window:-rule.window], window)
    if step is None or not (-rule.max_step <= step[0] and step[1] <= rule.max_step):
        low, high = step or (math.nan, math.nan)
        return Verdict(False, cv, trend, p, f"not yet level with the window before: the step between them is "
                                            f"{low:+.1%} to {high:+.1%} (90 %), beyond +-{rule.max_step:.1%}")
    return Verdict(True, cv, trend, p, f"spread {cv:.1%}, trend {trend:+.1%} (p={p:.2f}), "
                                       f"step {step[0]:+.1%} to {step[1]:+.1%}")


def window_step(before: Sequence[float], after: Sequence[float]) -> tuple[float, float] | None:
    """The 90 % interval of the relative change from one window's mean throughput to the next's
    (Welch), the equivalence test of "level": both ends within the band is two one-sided tests at 5 %."""
    if len(before) < 2 or len(after) < 2:
        return None
    mb, ma = math.fsum(before) / len(before), math.fsum(after) / len(after)
    if mb <= 0:
        return None
    vb = math.fsum((v - mb) ** 2 for v in before) / (len(before) - 1) / len(before)
    va = math.fsum((v - ma) ** 2 for v in after) / (len(after) - 1) / len(after)
    se = math.sqrt(va + vb)
    if se == 0:
        return (ma / mb - 1, ma / mb - 1)
    df = (va + vb) ** 2 / ((va ** 2 / (len(after) - 1) if va else 0) + (vb ** 2 / (len(before) - 1) if vb else 0))
    half = float(sps.t.ppf(0.95, df)) * se
    return ((ma - mb - half) / mb, (ma - mb + half) / mb)


@dataclass(frozen=True)
class Drift:
    change: float   # relative change across the values from the Theil-Sen slope
    p: float        # two-sided p of Kendall's tau against time (the Mann-Kendall trend test)


def drift(values: Sequence[float]) -> Drift | None:
    """The trend across a whole measurement, robust to a few outlying intervals. Theil-Sen takes the
    median of the pairwise slopes and Kendall's test counts rising against falling pairs, so a
    measurement whose window opened an interval or two early, on the tail of a ramp, shows the
    level it held (a least-squares fit made two intervals at 82 and 94 % of the final pace ahead
    of twelve level ones a significant +8.6 % drift), while a plateau that climbs again half-way
    through shows its climb."""
    n = len(values)
    mean = math.fsum(values) / n if n else 0.0
    if n < 3 or mean <= 0:
        return None
    slope = float(sps.theilslopes(values).slope)
    p = float(sps.kendalltau(range(n), values).pvalue)
    return Drift(slope * (n - 1) / mean, 1.0 if math.isnan(p) else p)


def lag1_autocorrelation(values: Sequence[float]) -> float:
    n = len(values)
    if n < 3:
        return 0.0
    mean = math.fsum(values) / n
    den = math.fsum((v - mean) ** 2 for v in values)
    if den == 0:
        return 0.0
    return math.fsum((values[i] - mean) * (values[i + 1] - mean) for i in range(n - 1)) / den


@dataclass(frozen=True)
class Precision:
    mean: float
    half_width: float      # absolute 95 % CI half-width
    relative: float        # half_width / mean
    n: int
    n_effective: float
    r1: float


def precision(values: Sequence[float]) -> Precision | None:
    """The mean's 95 % confidence interval, corrected for lag-1 autocorrelation."""
    n = len(values)
    if n < 3:
        return None
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    r1 = max(0.0, lag1_autocorrelation(values))
    n_eff = max(2.0, n * (1 - r1) / (1 + r1))
    half = float(sps.t.ppf(0.975, n_eff - 1)) * sd / math.sqrt(n_eff)
    return Precision(mean, half, half / mean if mean else math.inf, n, n_eff, r1)
