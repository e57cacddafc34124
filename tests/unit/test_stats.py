"""Unit tests of perflab.analysis.stats against answers known independently of the code: worked out by hand
(the enumerations are in the comments), from published tables, or from properties any correct
result has."""

import math
import random
from fractions import Fraction

import pytest

from perflab.analysis import stats


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


# --- confidence interval of the median -------------------------------------------------------

@pytest.mark.parametrize("n, coverage", [
    (1, 0.0), (2, 0.5),  # [min, max] of 2 misses when both fall on one side: 2 x 1/4
    (3, 0.75), (4, 0.875), (5, 0.9375),  # 1 - 2 x (1/2)^n
    (6, 0.95), (20, 0.95),  # [min, max] would cover 96.9 % and more: the asked 95 % is claimed
])
def test_claimed_coverage_never_exceeds_what_the_sample_range_reaches(n, coverage):
    assert stats.summarize([float(i) for i in range(n)]).ci_coverage == pytest.approx(coverage)


def test_two_values_give_their_range_and_one_value_itself():
    assert stats.median_ci([7.0, 3.0]) == (3.0, 7.0, 0.5)
    assert stats.median_ci([7.0]) == (7.0, 7.0, 0.0)


def test_three_values_give_their_range():
    # a resample of 3 has the smallest value as its median when at least two of its three draws
    # are that value: 3 x (1/3)^2 x 2/3 + (1/3)^3 = 7/27 = 26 % of resamples, far above 2.5 %;
    # likewise the largest. The 95 % percentile interval is therefore [min, max].
    assert stats.median_ci([12.0, 10.0, 11.0])[:2] == (10.0, 12.0)


def test_the_interval_holds_the_median_inside_the_range_and_is_reproducible():
    rng = random.Random(4)
    for n in (3, 4, 5, 8, 13):
        values = [rng.lognormvariate(4, 0.3) for _ in range(n)]
        low, high, _ = stats.median_ci(values)
        assert min(values) <= low <= stats.median(values) <= high <= max(values)
        shuffled = values[:]
        rng.shuffle(shuffled)
        assert stats.median_ci(shuffled) == (low, high, stats.median_ci(values)[2])


def test_the_interval_moves_and_scales_with_the_data():
    values = [101.0, 97.0, 104.0, 99.0, 100.0, 98.0, 103.0, 96.0, 102.0]
    low, high, _ = stats.median_ci(values)
    shifted = stats.median_ci([v + 1000 for v in values])
    doubled = stats.median_ci([2 * v for v in values])
    assert shifted[:2] == pytest.approx((low + 1000, high + 1000))
    assert doubled[:2] == pytest.approx((2 * low, 2 * high))


def test_equal_values_give_a_point():
    assert stats.median_ci([5.0, 5.0, 5.0, 5.0])[:2] == (5.0, 5.0)


def test_a_large_sample_gives_the_textbook_width():
    # the sample median of n values from Uniform(0, 1) has standard error 1 / (2 f(m) sqrt(n)),
    # f(m) = 1: for n = 400 that is 0.025, so a 95 % interval is about 2 x 1.96 x 0.025 = 0.098 wide
    rng = random.Random(11)
    low, high, coverage = stats.median_ci([rng.random() for _ in range(400)])
    assert 0.07 < high - low < 0.13
    assert low < 0.5 < high
    assert coverage == 0.95


def test_the_interval_covers_the_true_median_about_as_often_as_it_says():
    # normal samples of 9 with median 0: a 95 % interval should hold 0 in most of 100 trials (an
    # interval around the wrong centre or far too narrow would not)
    rng = random.Random(5)
    hits = sum(low <= 0 <= high for low, high, _ in
               (stats.median_ci([rng.gauss(0, 1) for _ in range(9)]) for _ in range(100)))
    assert 85 <= hits <= 100


def test_a_confidence_outside_0_1_is_rejected():
    with pytest.raises(ValueError):
        stats.median_ci([1.0, 2.0, 3.0], 1.0)


def test_summarize_flags_noise_above_threshold():
    steady = stats.summarize([100, 101, 99, 100, 100])
    assert not steady.noisy and steady.median == 100 and steady.min == 99 and steady.max == 101
    noisy = stats.summarize([80, 100, 120])  # stdev 20, mean 100: CV 20 %
    assert noisy.cv == pytest.approx(0.2) and noisy.noisy
    assert not stats.summarize([80, 100, 120], cv_threshold=0.25).noisy
    assert noisy.to_dict()["cv_threshold"] == 0.10


# --- Mann-Whitney U --------------------------------------------------------------------------

def test_midranks_share_ties():
    assert stats.midranks([10, 20, 20, 30]) == [1, 2.5, 2.5, 4]
    assert stats.midranks([5, 5, 5]) == [2, 2, 2]
    assert stats.midranks([3, 1, 2]) == [3, 1, 2]


@pytest.mark.parametrize("a, b, u, p", [
    ([1, 2, 3], [4, 5, 6], 0.0, 2 / 20),  # of C(6, 3) = 20 splits only the two separated ones
    ([5, 6, 7, 8], [1, 2, 3, 4], 16.0, 2 / 70),  # C(8, 4) = 70
    ([1, 2, 3, 4, 5], [6, 7, 8, 9, 10], 0.0, 2 / 252),  # C(10, 5) = 252
])
def test_mann_whitney_fully_separated_samples(a, b, u, p):
    assert stats.mann_whitney_u(a, b) == (u, pytest.approx(p))


def test_mann_whitney_five_each_matches_table():
    # U = 2 for n1 = n2 = 5: tables give P(U <= 2) = 4/252 (0.016), two-sided 8/252
    u, p = stats.mann_whitney_u([1, 2, 3, 4, 7], [5, 6, 8, 9, 10])
    assert u == 2.0
    assert p == pytest.approx(8 / 252)


def test_mann_whitney_identical_samples_p_is_one():
    assert stats.mann_whitney_u([1, 2, 3], [1, 2, 3]) == (4.5, pytest.approx(1.0))
    assert stats.mann_whitney_u([10, 10, 10], [10, 10, 11])[1] == pytest.approx(1.0)


def test_mann_whitney_ties_three_each_by_hand():
    # pooled 1 2 2 2 3 4 -> midranks 1 3 3 3 5 6; a = [1, 2, 2] has rank sum 7, U = 7 - 6 = 1,
    # expected rank sum 10.5, distance 3.5. The 20 splits of {1, 3, 3, 3, 5, 6} into threes:
    # {1,3,3} x3 = 7, {1,3,5} x3 = 9, {1,3,6} x3 = 10, {1,5,6} = 12, {3,3,3} = 9, {3,3,5} x3 = 11,
    # {3,3,6} x3 = 12, {3,5,6} x3 = 14. At distance >= 3.5 (sum <= 7 or >= 14): 3 + 3 = 6 of 20.
    assert stats.mann_whitney_u([1, 2, 2], [2, 3, 4]) == (1.0, pytest.approx(6 / 20))
    assert stats.rank_test_method([1, 2, 2], [2, 3, 4]) == "exact permutation"


def test_mann_whitney_ties_unequal_sizes_by_hand():
    # pooled 1 2 3 4 4 4 5 -> midranks 1 2 3 5 5 5 7; a = [4, 1] has rank sum 6, U = 6 - 3 = 3,
    # expected rank sum 8, distance 2. Of the 21 pairs from {1, 2, 3, 5, 5, 5, 7}: sum <= 6:
    # 1+2, 1+3, 1+5 (x3), 2+3 = 6 pairs; sum >= 10: 3+7, 5+5 (x3), 5+7 (x3) = 7 pairs. p = 13/21.
    # (Twice the smaller tail would give 12/21: the distribution with ties is not symmetric.)
    assert stats.mann_whitney_u([4, 1], [2, 4, 3, 5, 4]) == (3.0, pytest.approx(13 / 21))


def test_mann_whitney_large_samples_use_the_normal_approximation():
    a, b = list(range(60)), list(range(100, 160))
    assert stats.rank_test_method(a, b) == "normal approximation"
    # U = 0: z = (0.5 - 1800) / sqrt(60 x 60 x 121 / 12) = -9.45, two-sided p about 3e-21
    u, p = stats.mann_whitney_u(a, b)
    assert u == 0.0 and 1e-22 < p < 1e-19
    assert stats.rank_test_method([1, 1], list(range(200))) == "normal approximation"  # ties, C(202, 2) splits
    assert stats.rank_test_method([1], [1, 2, 3]) == "normal approximation"  # one value: no permutation test


def test_mann_whitney_needs_values_on_both_sides():
    with pytest.raises(ValueError):
        stats.mann_whitney_u([], [1.0])


# --- what a sample size can reach ------------------------------------------------------------

def test_smallest_p_is_that_of_fully_separated_samples():
    assert stats.smallest_p(3, 3) == pytest.approx(0.1)
    assert stats.smallest_p(4, 4) == pytest.approx(2 / 70)
    assert stats.smallest_p(5, 5) == pytest.approx(2 / 252)
    assert stats.smallest_p(3, 4) == pytest.approx(2 / 35)
    assert stats.smallest_p(1, 1) == 1.0
    for n1, n2 in [(2, 3), (3, 3), (3, 5), (4, 6), (6, 6)]:
        separated = stats.mann_whitney_u(list(range(n1)), list(range(10, 10 + n2)))[1]
        assert stats.smallest_p(n1, n2) == pytest.approx(separated)


@pytest.mark.parametrize("alpha, n", [
    (0.1, 3),  # 3 vs 3: 0.1
    (0.05, 4),  # 3 vs 3: 0.1 > 0.05; 4 vs 4: 2/70 = 0.029
    (0.02, 5),  # 4 vs 4: 0.029 > 0.02
    (0.01, 5),  # 5 vs 5: 2/252 = 0.0079
    (0.001, 7),  # 6 vs 6: 2/924 = 0.0022 > 0.001; 7 vs 7: 2/3432 = 0.00058
])
def test_min_repeats_per_side(alpha, n):
    assert stats.min_repeats(alpha) == n


# --- compare ---------------------------------------------------------------------------------

def test_compare_throughput_up_is_faster():
    result = stats.compare([100, 101, 99, 100], [120, 121, 119, 122], higher_is_better=True)
    assert result.relative_change == pytest.approx(0.205)
    assert result.p_value == pytest.approx(2 / 70)
    assert result.significant and result.verdict == stats.FASTER
    assert result.note == ""
    assert result.method.startswith("exact permutation")  # 100 is tied in the baseline


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


def test_compare_below_the_rank_test_s_reach_uses_welch_and_says_so():
    result = stats.compare([1, 2, 3], [100, 101, 102], higher_is_better=True)
    assert "Welch" in result.method and "smallest p here is 0.100" in result.note
    assert result.verdict == stats.FASTER and result.p_value < 0.05
    overlapping = stats.compare([100, 120, 80], [110, 90, 105], higher_is_better=True)
    assert overlapping.verdict == stats.NO_CHANGE and overlapping.p_value > 0.5
    alone = stats.compare([1], [100, 200, 300], higher_is_better=True)  # one value: no test at all
    assert alone.verdict == stats.NO_CHANGE and "at least 4 repeats on each side" in alone.note


def test_welch_without_any_variation_is_certain_either_way():
    assert stats.welch_p([5, 5], [5, 5]) == 1.0
    assert stats.welch_p([5, 5], [6, 6]) == 0.0


def test_compare_min_change_filters_tiny_but_significant_shifts():
    base, cand = [100, 100.1, 100.2, 100.3], [101, 101.1, 101.2, 101.3]  # +0.9 %
    assert stats.compare(base, cand, higher_is_better=True).verdict == stats.FASTER
    assert stats.compare(base, cand, higher_is_better=True,
                         min_change=0.05).verdict == stats.NO_CHANGE


def test_relative_change_edges():
    assert stats.relative_change(0, 0) == 0.0
    assert stats.relative_change(0, 5) == math.inf
    assert stats.relative_change(-10, -5) == pytest.approx(0.5)
