"""Statistics of repeated measurements: summaries with spread and noise flags, and comparisons.

Pure functions; the rank test and the bootstrap are SciPy's.

- ``summarize(values)``: n, median, min, max, mean, sample stdev, CV (stdev / mean), a confidence
  interval for the **median** and a ``noisy`` flag (CV above a threshold, default 10 %).
  The interval is a percentile bootstrap (``scipy.stats.bootstrap``) with a fixed seed, so the same
  values always give the same interval. Rule for small n: one value gives [x, x] with coverage 0;
  two values give [min, max], whose distribution-free coverage is 1/2 (bootstrapping two values
  says nothing); from three values on, the bootstrap. ``ci_coverage`` never claims more than
  [min, max] can reach at that n (1 - 2/2^n: 75 % for n=3, 87.5 % for 4, 93.75 % for 5), because
  no interval inside the sample's range covers the median more often than the range itself.
- ``compare(baseline, candidate)``: relative change of the medians and a two-sided Mann-Whitney U
  test (``scipy.stats.mannwhitneyu``), with a verdict "faster", "slower" or
  "no-significant-change". The p-value is exact for the sample sizes repeats have: SciPy's exact
  null distribution without ties; with ties, the exact permutation distribution of U over every
  split of the pooled values (``scipy.stats.permutation_test``) while there are at most
  ``PERMUTATION_MAX_SPLITS`` splits; beyond either limit the normal approximation with tie
  correction. Small samples cannot reach a small p at all: the smallest two-sided p for n1 and n2
  values is 2 / C(n1 + n2, n1) (0.1 for 3 vs 3), and the result says so in ``min_p_possible`` and
  ``note``, with the repeat count that can reach ``alpha`` (``min_repeats``). There, with at least
  two values a side, Welch's t-test on the values decides instead (``welch_p``): it can reach a
  small p with the 2-3 fresh launches quick and the study plans take, at the price of assuming
  roughly normal launch-to-launch variation, and the result says it used it (``method``).
"""

from __future__ import annotations

import inspect
import math
import warnings
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np
from scipy import stats as sps

DEFAULT_CV_THRESHOLD = 0.10
FASTER, SLOWER, NO_CHANGE = "faster", "slower", "no-significant-change"

BOOTSTRAP_SEED = 20200  # fixed: a report recomputed from the same values shows the same intervals
BOOTSTRAP_RESAMPLES = 9999
EXACT_MAX_N = 50  # SciPy's exact U distribution (no ties) up to this many values per side
PERMUTATION_MAX_SPLITS = 20_000  # exact permutation p with ties: C(16, 8) = 12870 splits still fit

# SciPy 1.15 renamed bootstrap's seed argument; a Generator is accepted under either name
_SEED_ARG = "rng" if "rng" in inspect.signature(sps.bootstrap).parameters else "random_state"


@dataclass(frozen=True)
class Summary:
    """Summary of repeated measurements of one figure."""

    n: int
    median: float
    min: float
    max: float
    mean: float
    stdev: float  # sample standard deviation (n - 1); 0 for n = 1
    cv: float  # stdev / |mean|; 0 for n = 1; inf when the mean is 0 and values differ
    ci_low: float  # confidence interval for the median (bootstrap; [min, max] for n = 2)
    ci_high: float
    ci_coverage: float  # the coverage claimed: `confidence`, capped at what [min, max] reaches at n
    confidence: float  # the coverage asked for
    noisy: bool  # cv > cv_threshold
    cv_threshold: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def median(values: Sequence[float]) -> float:
    """Median (mean of the two middle values for even n)."""
    return float(np.median(_sorted_nonempty(values)))


def mean(values: Sequence[float]) -> float:
    ordered = _sorted_nonempty(values)
    return math.fsum(ordered) / len(ordered)


def stdev(values: Sequence[float]) -> float:
    """Sample standard deviation (divides by n - 1); 0.0 for a single value."""
    ordered = _sorted_nonempty(values)
    if len(ordered) < 2:
        return 0.0
    return float(np.std(ordered, ddof=1))


def coefficient_of_variation(values: Sequence[float]) -> float:
    """stdev / |mean|: 0 when all values are equal, inf when the mean is 0 but values differ."""
    spread = stdev(values)
    centre = abs(mean(values))
    if spread == 0:
        return 0.0
    return spread / centre if centre > 0 else math.inf


def binomial_cdf_half(k: int, n: int) -> Fraction:
    """P(B <= k) for B ~ Binomial(n, 1/2), exactly."""
    if k < 0:
        return Fraction(0)
    return Fraction(sum(math.comb(n, i) for i in range(0, min(k, n) + 1)), 2 ** n)


def range_coverage(n: int) -> float:
    """How often [min, max] of n values covers the population median: 1 - 2 P(B <= 0)."""
    return float(1 - 2 * binomial_cdf_half(0, n)) if n > 1 else 0.0


def median_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Confidence interval for the median: (low, high, coverage).

    n = 1: (x, x, 0.0). n = 2: (min, max, 0.5), the range and its distribution-free coverage.
    n >= 3: the percentile bootstrap of the median (seeded, so reproducible), with coverage
    min(confidence, 1 - 2/2^n). The percentile method rather than BCa: the median's bootstrap
    distribution is lumpy (resamples repeat the same few order statistics), which leaves BCa's bias
    correction undefined whenever many resamples equal the sample median (e.g. 99, 100, 100, 100,
    101).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    ordered = _sorted_nonempty(values)
    n = len(ordered)
    coverage = min(confidence, range_coverage(n))
    if n < 3 or ordered[0] == ordered[-1]:
        return ordered[0], ordered[-1], coverage
    result = sps.bootstrap((np.asarray(ordered),), np.median, confidence_level=confidence,
                           n_resamples=BOOTSTRAP_RESAMPLES, method="percentile",
                           **{_SEED_ARG: np.random.default_rng(BOOTSTRAP_SEED)})
    interval = result.confidence_interval  # within the range but for rounding: clip it there
    low, high = (min(max(float(x), ordered[0]), ordered[-1]) for x in (interval.low, interval.high))
    return low, high, coverage


def summarize(values: Sequence[float], *, cv_threshold: float = DEFAULT_CV_THRESHOLD,
              confidence: float = 0.95) -> Summary:
    """Summary of repeated measurements; ``noisy`` when CV > ``cv_threshold``."""
    ordered = _sorted_nonempty(values)
    low, high, coverage = median_ci(ordered, confidence)
    cv = coefficient_of_variation(ordered)
    return Summary(n=len(ordered), median=median(ordered), min=ordered[0], max=ordered[-1],
                   mean=mean(ordered), stdev=stdev(ordered), cv=cv, ci_low=low, ci_high=high,
                   ci_coverage=coverage, confidence=confidence, noisy=cv > cv_threshold,
                   cv_threshold=cv_threshold)


def midranks(values: Sequence[float]) -> list[float]:
    """Ranks 1..n of ``values`` in their order; tied values share the mean of their ranks."""
    return [float(r) for r in sps.rankdata(values, method="average")]


def rank_test_method(a: Sequence[float], b: Sequence[float]) -> str:
    """How ``mann_whitney_u`` computes p for these samples: "exact" (no ties), "exact permutation"
    (ties; SciPy needs two values a side for it) or "normal approximation" (with tie correction,
    for samples beyond the exact computations)."""
    ties = len(set(a) | set(b)) < len(a) + len(b)
    if not ties:
        return "exact" if max(len(a), len(b)) <= EXACT_MAX_N else "normal approximation"
    splits = math.comb(len(a) + len(b), len(a))
    if min(len(a), len(b)) >= 2 and splits <= PERMUTATION_MAX_SPLITS:
        return "exact permutation"
    return "normal approximation"


def mann_whitney_u(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mann-Whitney U of ``a`` (pairs where a > b, ties count 1/2) and its two-sided p.

    p = P(|U - E U| >= |u - E U|) under the null hypothesis (see ``rank_test_method``). With ties
    that probability runs over every split of the pooled values into groups of |a| and |b|, each
    equally likely, so it is exact with ties as well.
    """
    if len(a) == 0 or len(b) == 0:
        raise ValueError("both samples need at least one value")
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    method = rank_test_method(a, b)
    if method != "exact permutation":
        result = sps.mannwhitneyu(x, y, alternative="two-sided",
                                  method="exact" if method == "exact" else "asymptotic")
        return float(result.statistic), float(result.pvalue)
    centre = len(a) * len(b) / 2

    def distance(x, y, axis=-1):  # |U - E U|: extreme in either direction
        return np.abs(sps.mannwhitneyu(x, y, axis=axis, method="asymptotic").statistic - centre)

    result = sps.permutation_test((x, y), distance, permutation_type="independent", vectorized=True,
                                  n_resamples=np.inf, alternative="greater")
    u = sps.mannwhitneyu(x, y, method="asymptotic").statistic
    return float(u), min(1.0, float(result.pvalue))


def smallest_p(n1: int, n2: int) -> float:
    """The smallest two-sided p the exact test can reach with n1 and n2 distinct values: both
    orderings that separate the samples completely, out of C(n1 + n2, n1) equally likely splits."""
    return min(1.0, 2 / math.comb(n1 + n2, n1))


def min_repeats(alpha: float = 0.05) -> int:
    """The fewest repeats per side (equal on both) whose smallest possible p is <= ``alpha``."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    n = 1
    while smallest_p(n, n) > alpha:
        n += 1
    return n


def welch_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p of Welch's t-test (unequal variances); 1 when neither sample varies and their
    means are equal, 0 when neither varies and the means differ (no noise to hide the difference)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if np.ptp(x) == 0 and np.ptp(y) == 0:
        return 1.0 if x[0] == y[0] else 0.0
    with warnings.catch_warnings():  # nearly equal values: SciPy warns of lost precision, the p stands
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(sps.ttest_ind(x, y, equal_var=False).pvalue)


@dataclass(frozen=True)
class Comparison:
    """Candidate vs baseline for one figure."""

    baseline: Summary
    candidate: Summary
    relative_change: float  # (median candidate - median baseline) / |median baseline|
    u: float  # Mann-Whitney U of the candidate sample
    p_value: float  # two-sided Mann-Whitney U (exact for small samples, see rank_test_method)
    alpha: float
    min_p_possible: float  # smallest p these sample sizes allow (without ties)
    significant: bool
    verdict: str  # "faster" | "slower" | "no-significant-change"
    higher_is_better: bool
    method: str = "exact two-sided Mann-Whitney U on the samples; change of the medians"
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def relative_change(baseline: float, candidate: float) -> float:
    """(candidate - baseline) / |baseline|; 0 when both are 0, +-inf when only baseline is."""
    if baseline == 0:
        return 0.0 if candidate == 0 else math.copysign(math.inf, candidate)
    return (candidate - baseline) / abs(baseline)


def compare(baseline: Sequence[float], candidate: Sequence[float], *, higher_is_better: bool,
            alpha: float = 0.05, min_change: float = 0.0,
            cv_threshold: float = DEFAULT_CV_THRESHOLD) -> Comparison:
    """Is ``candidate`` better or worse than ``baseline`` beyond the noise?

    Significant when the Mann-Whitney p <= ``alpha`` and the medians differ by at least
    ``min_change`` (relative; 0 = any size). "faster" means better in the figure's own direction:
    higher for throughput (``higher_is_better=True``), lower for latency, time or memory.
    """
    base, cand = summarize(baseline, cv_threshold=cv_threshold), summarize(
        candidate, cv_threshold=cv_threshold)
    change = relative_change(base.median, cand.median)
    u, p = mann_whitney_u(candidate, baseline)
    min_p = smallest_p(base.n, cand.n)
    method = (f"{rank_test_method(candidate, baseline)} two-sided Mann-Whitney U on the samples; "
              "change of the medians")
    parametric = min_p > alpha and min(base.n, cand.n) >= 2
    if parametric:  # the rank test cannot reach alpha at these sizes: Welch's t-test can
        p = welch_p(candidate, baseline)
        min_p = 0.0
        method = ("two-sided Welch t-test on the values (too few for the rank test to reach alpha; "
                  "assumes roughly normal variation); change of the medians")
    significant = p <= alpha and abs(change) >= min_change and change != 0
    if significant:
        better = change > 0 if higher_is_better else change < 0
        verdict = FASTER if better else SLOWER
    else:
        verdict = NO_CHANGE
    note = ""
    if min_p > alpha:
        note = (f"with {base.n} and {cand.n} values the smallest possible p is {min_p:.3f} > "
                f"alpha {alpha}: no change can be called significant; measure at least "
                f"{min_repeats(alpha)} repeats on each side")
    elif parametric:
        note = (f"{base.n} and {cand.n} values: Welch's t-test, not the rank test (whose smallest p here is "
                f"{smallest_p(base.n, cand.n):.3f}); {min_repeats(alpha)} repeats a side allow the rank test")
    return Comparison(baseline=base, candidate=cand, relative_change=change, u=u, p_value=p,
                      alpha=alpha, min_p_possible=min_p, significant=significant,
                      verdict=verdict, higher_is_better=higher_is_better, method=method, note=note)


def _sorted_nonempty(values: Sequence[float]) -> list[float]:
    ordered = sorted(float(v) for v in values)
    if not ordered:
        raise ValueError("no values")
    if any(math.isnan(v) for v in ordered):
        raise ValueError("values contain NaN")
    return ordered
