"""Statistics of repeated measurements: summaries with spread and noise flags, and comparisons.

Pure functions, standard library only.

- ``summarize(values)``: n, median, min, max, mean, sample stdev, CV (stdev / mean), a confidence
  interval for the **median** and a ``noisy`` flag (CV above a threshold, default 10 %).
  The interval is distribution-free: order statistics [x(k), x(n+1-k)] whose coverage follows from
  the binomial distribution, so it is exact for any shape of data and needs no normality. Small n
  cannot reach 95 %: for n <= 5 the widest interval [min, max] covers the median with probability
  1 - 2/2^n (75 % for n=3, 87.5 % for 4, 93.75 % for 5); ``ci_coverage`` always states the
  coverage actually achieved rather than pretending.
- ``compare(baseline, candidate)``: relative change of the medians and an exact two-sided
  Mann-Whitney U test (the exact permutation distribution of the rank sum, ties by midranks), with a
  verdict "faster", "slower" or "no-significant-change". With 3 values on each side the smallest
  possible p is 0.1, so no change can be significant at alpha 0.05: the result says so in
  ``min_p_possible`` and ``note`` (use >= 4 repeats each for a verdict at 0.05).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, Sequence

DEFAULT_CV_THRESHOLD = 0.10
FASTER, SLOWER, NO_CHANGE = "faster", "slower", "no-significant-change"


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
    ci_low: float  # confidence interval for the median (order statistics)
    ci_high: float
    ci_coverage: float  # the interval's exact coverage (may be below `confidence` for small n)
    confidence: float  # the coverage asked for
    noisy: bool  # cv > cv_threshold
    cv_threshold: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def median(values: Sequence[float]) -> float:
    """Median (mean of the two middle values for even n)."""
    ordered = _sorted_nonempty(values)
    n = len(ordered)
    middle = n // 2
    return ordered[middle] if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def mean(values: Sequence[float]) -> float:
    ordered = _sorted_nonempty(values)
    return math.fsum(ordered) / len(ordered)


def stdev(values: Sequence[float]) -> float:
    """Sample standard deviation (divides by n - 1); 0.0 for a single value."""
    ordered = _sorted_nonempty(values)
    if len(ordered) < 2:
        return 0.0
    centre = mean(ordered)
    return math.sqrt(math.fsum((x - centre) ** 2 for x in ordered) / (len(ordered) - 1))


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


def median_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Distribution-free confidence interval for the median: (low, high, coverage).

    [x(k), x(n+1-k)] (1-based order statistics) covers the population median with probability
    1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2). Takes the narrowest such interval whose coverage
    reaches ``confidence``; if even [min, max] does not (n <= 5 at 95 %), returns [min, max] with
    its lower coverage. A single value gives (x, x, 0.0).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    ordered = _sorted_nonempty(values)
    n = len(ordered)
    if n == 1:
        return ordered[0], ordered[0], 0.0
    chosen_k, chosen_coverage = 1, 1 - 2 * binomial_cdf_half(0, n)
    for k in range(1, (n + 1) // 2 + 1):
        coverage = 1 - 2 * binomial_cdf_half(k - 1, n)
        if coverage >= Fraction(confidence).limit_denominator(10 ** 9):
            chosen_k, chosen_coverage = k, coverage
        else:
            break
    return ordered[chosen_k - 1], ordered[n - chosen_k], float(chosen_coverage)


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
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        shared = (start + end + 2) / 2  # mean of ranks start+1 .. end+1
        for position in range(start, end + 1):
            ranks[order[position]] = shared
        start = end + 1
    return ranks


def mann_whitney_u(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mann-Whitney U of ``a`` (pairs where a > b, ties count 1/2) and its exact two-sided p.

    p is computed from the exact permutation distribution of a's rank sum given the observed
    midranks (every split of the pooled values into groups of |a| and |b| equally likely), so it
    is exact with ties as well. p = P(|W - E W| >= |w - E W|).
    """
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        raise ValueError("both samples need at least one value")
    pooled = list(a) + list(b)
    doubled = [int(round(2 * r)) for r in midranks(pooled)]  # midranks are multiples of 1/2
    observed = sum(doubled[:n1])
    u = observed / 2 - n1 * (n1 + 1) / 2
    # ways[j][s]: number of j-subsets of the pooled ranks with doubled rank sum s
    ways: list[dict[int, int]] = [dict() for _ in range(n1 + 1)]
    ways[0][0] = 1
    for rank in doubled:
        for j in range(n1, 0, -1):
            for total, count in ways[j - 1].items():
                ways[j][total + rank] = ways[j].get(total + rank, 0) + count
    expected = n1 * (n1 + n2 + 1)  # doubled mean rank sum
    distance = abs(observed - expected)
    extreme = sum(count for total, count in ways[n1].items() if abs(total - expected) >= distance)
    return u, extreme / math.comb(n1 + n2, n1)


@dataclass(frozen=True)
class Comparison:
    """Candidate vs baseline for one figure."""

    baseline: Summary
    candidate: Summary
    relative_change: float  # (median candidate - median baseline) / |median baseline|
    u: float  # Mann-Whitney U of the candidate sample
    p_value: float  # exact two-sided Mann-Whitney U
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

    Significant when the exact Mann-Whitney p <= ``alpha`` and the medians differ by at least
    ``min_change`` (relative; 0 = any size). "faster" means better in the figure's own direction:
    higher for throughput (``higher_is_better=True``), lower for latency, time or memory.
    """
    base, cand = summarize(baseline, cv_threshold=cv_threshold), summarize(
        candidate, cv_threshold=cv_threshold)
    change = relative_change(base.median, cand.median)
    u, p = mann_whitney_u(candidate, baseline)
    min_p = min(1.0, 2 / math.comb(base.n + cand.n, cand.n))
    significant = p <= alpha and abs(change) >= min_change and change != 0
    if significant:
        better = change > 0 if higher_is_better else change < 0
        verdict = FASTER if better else SLOWER
    else:
        verdict = NO_CHANGE
    note = ""
    if min_p > alpha:
        note = (f"with {base.n} and {cand.n} values the smallest possible p is {min_p:.3f} > "
                f"alpha {alpha}: no change can be called significant; measure more repeats")
    return Comparison(baseline=base, candidate=cand, relative_change=change, u=u, p_value=p,
                      alpha=alpha, min_p_possible=min_p, significant=significant,
                      verdict=verdict, higher_is_better=higher_is_better, note=note)


def _sorted_nonempty(values: Sequence[float]) -> list[float]:
    ordered = sorted(float(v) for v in values)
    if not ordered:
        raise ValueError("no values")
    if any(math.isnan(v) for v in ordered):
        raise ValueError("values contain NaN")
    return ordered
