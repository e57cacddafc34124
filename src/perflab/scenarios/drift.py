"""Memory drift over a long run: the least-squares slope of a series (e.g. RSS in MB) per hour,
its standard error and 95 % confidence interval, and a verdict.

The fit takes one point per soak interval (the interval's mean), not every raw sample: samples
taken 50 ms apart are strongly correlated, and treating them as independent would make the
standard error far too small (any wobble would look "significant").

Verdict: "stable" when the interval includes 0 or the slope is below a small threshold (by
default 1 % of the series' mean per hour, at least 1 unit per hour); otherwise "growing" (or
"shrinking" for a significant fall); "undetermined" with fewer than 3 points.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Sequence

STABLE, GROWING, SHRINKING, UNDETERMINED = "stable", "growing", "shrinking", "undetermined"

# Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom, then a few beyond.
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
         2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
         2.052, 2.048, 2.045, 2.042]
_T975_FAR = [(40, 2.021), (60, 2.000), (120, 1.980)]
Z975 = 1.960
SHORT_WINDOW_S = 1800.0  # below half an hour a verdict says so


def t975(df: int) -> float:
    """The 97.5 % quantile of Student's t with `df` degrees of freedom (a 95 % two-sided CI)."""
    if df < 1:
        raise ValueError(f"need at least 1 degree of freedom, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    previous = (len(_T975), _T975[-1])
    for far_df, value in _T975_FAR:
        if df <= far_df:  # linear in 1/df between table rows: close enough for a CI's width
            (d0, v0), (d1, v1) = previous, (far_df, value)
            w = (1 / df - 1 / d1) / (1 / d0 - 1 / d1)
            return v1 + w * (v0 - v1)
        previous = (far_df, value)
    d0, v0 = previous
    return Z975 + (v0 - Z975) * (d0 / df)


@dataclass(frozen=True)
class Drift:
    n: int                        # points fitted
    span_s: float                 # first to last point
    mean: float                   # mean of the values (the level the threshold is relative to)
    slope_per_h: float | None     # units per hour
    stderr_per_h: float | None
    ci_low_per_h: float | None    # 95 % confidence interval of the slope
    ci_high_per_h: float | None
    threshold_per_h: float
    verdict: str
    reason: str

    def to_dict(self) -> dict:
        return asdict(self)


def fit(times_s: Sequence[float], values: Sequence[float], *, relative_threshold: float = 0.01,
        absolute_threshold: float = 1.0) -> Drift:
    """Least-squares line through (time in s, value); the slope is reported per hour.

    The threshold below which a slope counts as stable is max(absolute_threshold,
    relative_threshold x mean) per hour.
    """
    if len(times_s) != len(values):
        raise ValueError(f"times and values differ in length ({len(times_s)} vs {len(values)})")
    n = len(values)
    mean_v = math.fsum(values) / n if n else 0.0
    threshold = max(absolute_threshold, relative_threshold * abs(mean_v))
    span = (max(times_s) - min(times_s)) if n else 0.0
    if n < 3 or span <= 0:
        return Drift(n, span, mean_v, None, None, None, None, threshold, UNDETERMINED,
                     f"{n} point(s) over {span:.0f} s: a slope and its uncertainty need at least 3 "
                     "points at different times")
    mean_t = math.fsum(times_s) / n
    sxx = math.fsum((t - mean_t) ** 2 for t in times_s)
    sxy = math.fsum((t - mean_t) * (v - mean_v) for t, v in zip(times_s, values))
    slope_s = sxy / sxx
    residuals = [v - (mean_v + slope_s * (t - mean_t)) for t, v in zip(times_s, values)]
    variance = math.fsum(r * r for r in residuals) / (n - 2)
    stderr_s = math.sqrt(variance / sxx)
    slope, stderr = slope_s * 3600, stderr_s * 3600
    half = t975(n - 2) * stderr
    low, high = slope - half, slope + half
    if low <= 0 <= high:
        verdict, why = STABLE, "the 95 % interval of the slope includes 0"
    elif abs(slope) < threshold:
        verdict, why = STABLE, f"|slope| below the threshold of {threshold:.3g}/h"
    else:
        verdict = GROWING if slope > 0 else SHRINKING
        why = f"the 95 % interval [{low:.3g}, {high:.3g}]/h excludes 0 and |slope| >= {threshold:.3g}/h"
    if span < SHORT_WINDOW_S:
        why += (f"; over {span / 60:.1f} min only: this early, warm-up (heap sizing, JIT, caches) and a "
                "leak look alike")
    return Drift(n, span, mean_v, slope, stderr, low, high, threshold, verdict, why)
