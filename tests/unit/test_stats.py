"""Unit tests of perflab.stats on small inputs whose answers are worked out by hand."""

import itertools
import math
from fractions import Fraction

import pytest

from perflab import stats


def test_median_odd_and_even():
    assert stats.median([3, 1, 2]) == 2
    assert stats.median([4, 1, 3, 2]) == 2.5
    assert stats.median([7]) == 7


def test_mean_stdev_cv_by_hand():
    values = [2, 4, 4, 4, 5, 5, 7, 9]  # mean 5, squared deviations sum 32, n - 1 = 7
    assert stats.mean(values) == 5
    assert stats.stdev(values) == pytest.approx(math.sqrt(32 / 7))
    assert stats.coefficient_of_variation(values) == pytest.approx(math.sqrt(32 / 7) / 5)


def test_single_value_has_no_spread():
    summary = stats.summarize([42.0])
    assert (summary.n, summary.median, summary.stdev, summary.cv) == (1, 42.0, 0.0, 0.0)
    assert (summary.ci_low, summary.ci_high, summary.ci_coverage) == (42.0, 42.0, 0.0)
    assert not summary.noisy


def test_cv_of_zero_mean_with_spread_is_infinite_and_noisy():
    assert stats.coefficient_of_variation([-1, 1]) == math.inf
    assert stats.summarize([-1, 1]).noisy
    assert stats.coefficient_of_variation([0, 0]) == 0.0


def test_empty_and_nan_are_rejected():
    with pytest.raises(ValueError):
        stats.summarize([])
    with pytest.raises(ValueError):
        stats.summarize([1.0, float("nan")])


def test_binomial_cdf_half_exact():
    assert stats.binomial_cdf_half(0, 5) == Fraction(1, 32)
    assert stats.binomial_cdf_half(1, 5) == Fraction(6, 32)
    assert stats.binomial_cdf_half(-1, 5) == 0
    assert stats.binomial_cdf_half(5, 5) == 1


@pytest.mark.parametrize("n, k, coverage", [
    (3, 1, 1 - 2 / 8),          # [min, max]: 75 %, the best 3 values can do
    (4, 1, 1 - 2 / 16),         # 87.5 %
    (5, 1, 1 - 2 / 32),         # 93.75 %: still below 95 %
    (6, 1, 1 - 2 / 64),         # 96.875 %
    (8, 1, 1 - 2 / 256),        # k=2 would give 1 - 2*9/256 = 92.97 % < 95 %
    (9, 2, 1 - 2 * 10 / 512),   # 96.09 %
    (10, 2, 1 - 2 * 11 / 1024),  # 97.85 %; k=3 gives 89.06 %
    (11, 2, 1 - 2 * 12 / 2048),  # 98.83 %; k=3 gives 93.46 %
])
def test_median_ci_order_statistics(n, k, coverage):
    values = [10.0 * i for i in range(n, 0, -1)]  # unsorted on purpose
    low, high, achieved = stats.median_ci(values, 0.95)
    assert low == 10.0 * k  # k-th smallest
    assert high == 10.0 * (n + 1 - k)  # k-th largest
    assert achieved == pytest.approx(coverage)


def test_median_ci_lower_confidence_is_narrower():
    values = list(range(1, 12))
    # k=5 covers 1 - 2 * 562/2048 = 45 % < 50 %; k=4 covers 1 - 2 * 232/2048 = 77 %
    assert stats.median_ci(values, 0.5)[:2] == (4, 8)
    with pytest.raises(ValueError):
        stats.median_ci(values, 1.0)


def test_summarize_flags_noise_above_threshold():
    steady = stats.summarize([100, 101, 99, 100, 100])
    assert not steady.noisy and steady.median == 100 and steady.min == 99 and steady.max == 101
    noisy = stats.summarize([80, 100, 120])  # stdev 20, mean 100: CV 20 %
    assert noisy.cv == pytest.approx(0.2) and noisy.noisy
    assert not stats.summarize([80, 100, 120], cv_threshold=0.25).noisy
    assert noisy.to_dict()["cv_threshold"] == 0.10


def test_midranks_share_ties():
    assert stats.midranks([10, 20, 20, 30]) == [1, 2.5, 2.5, 4]
    assert stats.midranks([5, 5, 5]) == [2, 2, 2]
    assert stats.midranks([3, 1, 2]) == [3, 1, 2]


def brute_force_p(a, b):
    """Two-sided permutation p of the rank sum by enumerating every split (independent check)."""
    pooled = list(a) + list(b)
    ranks = stats.midranks(pooled)
    expected = len(a) * (len(pooled) + 1) / 2
    observed = abs(sum(ranks[: len(a)]) - expected)
    splits = list(itertools.combinations(range(len(pooled)), len(a)))
    extreme = sum(1 for s in splits if abs(sum(ranks[i] for i in s) - expected) >= observed - 1e-9)
    return extreme / len(splits)


def test_mann_whitney_fully_separated_samples():
    assert stats.mann_whitney_u([1, 2, 3], [4, 5, 6]) == (0.0, pytest.approx(2 / 20))
    assert stats.mann_whitney_u([5, 6, 7, 8], [1, 2, 3, 4]) == (16.0, pytest.approx(2 / 70))


def test_mann_whitney_five_each_matches_table():
    # U = 2 for n1 = n2 = 5: P(U <= 2) = (1 + 1 + 2) / 252, two-sided 8 / 252
    u, p = stats.mann_whitney_u([1, 2, 3, 4, 7], [5, 6, 8, 9, 10])
    assert u == 2.0
    assert p == pytest.approx(8 / 252)


@pytest.mark.parametrize("a, b", [
    ([1, 2, 2, 3], [2, 3, 4, 4]),
    ([10, 10, 10], [10, 10, 11]),
    ([1.5, 2.5, 3.5, 9.0, 9.0], [9.0, 10.0, 11.0]),
    ([3, 1, 4, 1, 5], [9, 2, 6, 5, 3, 5]),
])
def test_mann_whitney_with_ties_equals_enumeration(a, b):
    u, p = stats.mann_whitney_u(a, b)
    assert p == pytest.approx(brute_force_p(a, b))
    assert u == sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in a for y in b)


def test_mann_whitney_identical_samples_p_is_one():
    assert stats.mann_whitney_u([1, 2, 3], [1, 2, 3])[1] == pytest.approx(1.0)


def test_compare_throughput_up_is_faster():
    result = stats.compare([100, 101, 99, 100], [120, 121, 119, 122], higher_is_better=True)
    assert result.relative_change == pytest.approx(0.205)
    assert result.p_value == pytest.approx(2 / 70)
    assert result.significant and result.verdict == stats.FASTER
    assert result.note == ""


def test_compare_latency_up_is_slower():
    result = stats.compare([10, 11, 10, 12], [15, 16, 14, 15], higher_is_better=False)
    assert result.verdict == stats.SLOWER
    assert result.relative_change == pytest.approx((15 - 10.5) / 10.5)


def test_compare_latency_down_is_faster():
    result = stats.compare([15, 16, 14, 15], [10, 11, 10, 12], higher_is_better=False)
    assert result.verdict == stats.FASTER


def test_compare_overlapping_samples_no_change():
    result = stats.compare([100, 105, 95, 102, 98], [101, 99, 104, 96, 100],
                           higher_is_better=True)
    assert not result.significant and result.verdict == stats.NO_CHANGE


def test_compare_three_each_can_never_be_significant_and_says_so():
    result = stats.compare([1, 2, 3], [100, 200, 300], higher_is_better=True)
    assert result.min_p_possible == pytest.approx(0.1)
    assert result.verdict == stats.NO_CHANGE
    assert "smallest possible p" in result.note


def test_compare_min_change_filters_tiny_but_significant_shifts():
    base, cand = [100, 100.1, 100.2, 100.3], [101, 101.1, 101.2, 101.3]  # +0.9 %
    assert stats.compare(base, cand, higher_is_better=True).verdict == stats.FASTER
    assert stats.compare(base, cand, higher_is_better=True,
                         min_change=0.05).verdict == stats.NO_CHANGE


def test_relative_change_edges():
    assert stats.relative_change(0, 0) == 0.0
    assert stats.relative_change(0, 5) == math.inf
    assert stats.relative_change(-10, -5) == pytest.approx(0.5)
