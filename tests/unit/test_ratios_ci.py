"""Intervals for a ratio of two apps from launch-level values: honest coverage, pairing by round
cancelling a drift both sides share, the rounds a precision needs, and the two-level split."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perflab.analysis import ratios_ci


def _experiment(rng, rounds: int, true_ratio: float, own_cv: float, host_cv: float):
    """Per round one launch of each app; the host's speed in that round moves both."""
    host = rng.lognormal(0, host_cv, rounds)
    a = {r + 1: 20_000 * true_ratio * host[r] * rng.lognormal(0, own_cv) for r in range(rounds)}
    b = {r + 1: 20_000 * host[r] * rng.lognormal(0, own_cv) for r in range(rounds)}
    return a, b


@pytest.mark.parametrize("rounds", [2, 3, 6])
def test_the_paired_interval_covers_the_true_ratio_about_as_often_as_it_claims(rounds):
    rng = np.random.default_rng(11)
    hits = 0
    trials = 2000
    for _ in range(trials):
        a, b = _experiment(rng, rounds, 1.4, own_cv=0.08, host_cv=0.2)
        hits += ratios_ci.paired(a, b).contains(1.4)
    assert 0.93 <= hits / trials <= 0.97


def test_pairing_by_round_cancels_a_slow_spell_that_both_apps_saw():
    rng = np.random.default_rng(5)
    a, b = _experiment(rng, 6, 1.4, own_cv=0.02, host_cv=0.3)
    paired = ratios_ci.paired(a, b)
    unpaired = ratios_ci.unpaired(list(a.values()), list(b.values()))
    assert paired.paired and not unpaired.paired
    assert paired.contains(1.4)
    assert paired.half_width < 0.1 < unpaired.half_width
    assert paired.half_width * 3 < unpaired.half_width


def test_two_rounds_give_an_honestly_wide_interval_and_one_gives_none():
    a, b = {1: 20_000.0, 2: 22_000.0}, {1: 10_000.0, 2: 10_500.0}
    two = ratios_ci.paired(a, b)
    assert two.n == 2 and two.low < 2.0 < two.high
    # t with one degree of freedom: far wider than the two ratios' own range (2.0 .. 2.095)
    assert two.high / two.low > 1.5
    assert ratios_ci.paired({1: 1.0}, {1: 2.0}) is None
    assert ratios_ci.interval({1: 1.0}, {1: 2.0}) is None


def test_rounds_where_one_side_failed_fall_back_to_the_launches_unpaired():
    a, b = {1: 100.0, 2: 110.0, 3: 105.0}, {1: 50.0, 3: 55.0, 4: 52.0}
    # rounds 1 and 3 pair up: that is enough for the paired interval
    assert ratios_ci.interval(a, b).paired
    only_one_pair = ratios_ci.interval({1: 100.0, 2: 110.0}, {2: 50.0, 3: 52.0})
    assert not only_one_pair.paired and only_one_pair.low < 100 / 51 < only_one_pair.high


def test_rounds_needed_grows_with_the_spread_and_shrinks_with_the_tolerance():
    wide, narrow = ratios_ci.rounds_needed(0.2, 0.05), ratios_ci.rounds_needed(0.05, 0.05)
    assert narrow < wide
    assert ratios_ci.rounds_needed(0.2, 0.10) < wide
    assert ratios_ci.rounds_needed(0.0, 0.05) == 2
    assert ratios_ci.rounds_needed(5.0, 0.001, most=50) is None


def test_the_rounds_needed_do_reach_the_target_on_data_of_that_spread():
    rng = np.random.default_rng(3)
    sd = 0.15
    need = ratios_ci.rounds_needed(sd, 0.10)
    widths = []
    for _ in range(400):
        d = rng.normal(0, sd, need)
        widths.append(ratios_ci.paired({i: math.exp(x) for i, x in enumerate(d)}, {i: 1.0 for i in range(need)})
                      .half_width)
    # the target holds for a typical draw of that spread (the median sample sd is close to sd)
    assert 0.08 < float(np.median(widths)) <= 0.105


def test_two_levels_spends_intervals_where_the_variance_is():
    rng = np.random.default_rng(1)
    # launches differ far more than intervals do: few intervals per launch are worth it
    apart = [list(rng.normal(mean, 50, 20)) for mean in rng.normal(20_000, 2_000, 6)]
    few = ratios_ci.two_levels(apart, launch_cost_s=90, interval_cost_s=1)
    # intervals vary a lot, launches agree: many intervals per launch
    alike = [list(rng.normal(20_000, 3_000, 20)) for _ in range(6)]
    many = ratios_ci.two_levels(alike, launch_cost_s=90, interval_cost_s=1)
    assert few.launch_share > 0.9
    assert few.optimal_intervals is not None and few.optimal_intervals <= 3
    assert many.optimal_intervals is None or many.optimal_intervals > 20
    assert ratios_ci.two_levels([[1.0, 2.0]], 90, 1) is None


def test_the_difference_of_two_identical_builds_ratios_differs_about_one_time_in_twenty():
    """Two runs of the same build: overlap of the two intervals would call them 'different' far less
    often than 5 %, and 'each estimate inside the other' far more; the interval of their quotient
    errs about as often as its confidence says."""
    rng = np.random.default_rng(7)
    trials, differ, apart, not_within = 1500, 0, 0, 0
    for _ in range(trials):
        x = ratios_ci.paired(*_experiment(rng, 5, 1.4, own_cv=0.05, host_cv=0.1))
        y = ratios_ci.paired(*_experiment(rng, 5, 1.4, own_cv=0.05, host_cv=0.1))
        differ += ratios_ci.difference(x, y).differs
        apart += x.high < y.low or y.high < x.low
        not_within += not (x.contains(y.estimate) and y.contains(x.estimate))
    assert 0.03 <= differ / trials <= 0.07
    assert apart / trials < 0.02 and not_within / trials > 0.10


def test_a_real_difference_between_runs_is_found():
    rng = np.random.default_rng(8)
    x = ratios_ci.paired(*_experiment(rng, 6, 1.4, own_cv=0.02, host_cv=0.1))
    y = ratios_ci.paired(*_experiment(rng, 6, 1.6, own_cv=0.02, host_cv=0.1))
    d = ratios_ci.difference(y, x)
    assert d.differs and d.low > 1.0 and d.estimate == pytest.approx(y.estimate / x.estimate)


def test_a_prior_pools_its_spread_and_narrows_a_short_runs_interval():
    rng = np.random.default_rng(9)
    history = [list(rng.normal(0.3, 0.04, 5)) for _ in range(4)]
    prior = ratios_ci.pool(history)
    assert prior.df == 16 and prior.runs == 4 and 0.02 < prior.sd_log < 0.06
    # each run around its own mean: a level that moved between runs is not spread within them
    shifted = ratios_ci.pool([[x + 0.5 * i for x in run] for i, run in enumerate(history)])
    assert shifted.sd_log == pytest.approx(prior.sd_log)
    a, b = _experiment(rng, 3, 1.4, own_cv=0.03, host_cv=0.1)
    alone, pooled = ratios_ci.paired(a, b), ratios_ci.paired(a, b, prior=prior)
    assert pooled.df == alone.df + 16 and pooled.estimate == alone.estimate
    assert pooled.half_width < alone.half_width


def test_the_rounds_to_plan_use_the_spreads_upper_limit_when_it_came_from_few_rounds():
    assert ratios_ci.sd_upper(0.05, 2) > 2 * ratios_ci.sd_upper(0.05, 60) / 1.5 > 0.05
    point = ratios_ci.rounds_needed(0.05, 0.05)
    assert ratios_ci.rounds_needed(0.05, 0.05, df=2) > point
    assert ratios_ci.rounds_needed(0.05, 0.05, df=200) <= point + 1


def test_between_runs_the_spread_beyond_each_runs_own_error_widens_what_to_expect():
    rng = np.random.default_rng(10)
    # each run's level moves by sd 0.05 (log) beyond its own rounds' error
    runs = [ratios_ci.paired(*_experiment(rng, 6, 1.4 * math.exp(rng.normal(0, 0.05)), own_cv=0.01, host_cv=0.05))
            for _ in range(8)]
    between = ratios_ci.between_runs(runs)
    assert 0.02 < between.sd_log < 0.1 and between.runs == 8
    low, high = between.next_run(runs[-1].se_log)
    assert low < runs[-1].low and high > runs[-1].high
    # around the runs' mean, not around the last run's estimate
    assert math.isclose(math.log(low) + math.log(high), 2 * between.mean_log)
    assert ratios_ci.between_runs(runs[:2]) is None
    # runs that agree within their own errors leave nothing between them
    same = [ratios_ci.paired(*_experiment(rng, 6, 1.4, own_cv=0.05, host_cv=0.05)) for _ in range(3)]
    assert ratios_ci.between_runs(same).sd_log < 0.05


def _runs(rng, true_ratio: float, between: float, shapes: list[tuple[int, float]]) -> list[ratios_ci.RatioInterval]:
    """One run per (rounds, round-to-round spread): each run's own level moved by `between` (log)."""
    return [ratios_ci.paired(*_experiment(rng, n, true_ratio * math.exp(rng.normal(0, between)), own_cv=spread,
                                          host_cv=0.2))
            for n, spread in shapes]


@pytest.mark.parametrize("shapes", [
    [(2, 0.05)] * 3,                                   # three short runs of one kind
    [(2, 0.12), (3, 0.04), (6, 0.03), (2, 0.05)],      # runs as unlike as a slow and a quiet VM
    [(3, 0.04)] * 6,
])
def test_the_answer_across_runs_covers_the_true_ratio_at_least_as_often_as_it_claims(shapes):
    rng = np.random.default_rng(21)
    trials = 1500
    hits = sum(ratios_ci.across_runs(_runs(rng, 1.5, 0.04, shapes)).contains(1.5) for _ in range(trials))
    assert 0.93 <= hits / trials <= 0.995


def test_across_runs_the_between_run_variance_is_what_no_run_alone_sees():
    rng = np.random.default_rng(4)
    # each run's interval is narrow, but their levels move by sd 0.08 from run to run
    runs = _runs(rng, 1.5, 0.08, [(6, 0.005)] * 5)
    across = ratios_ci.across_runs(runs)
    assert 0.03 < across.tau_log < 0.2
    assert across.high / across.low > max(ci.high / ci.low for ci in runs)


def test_a_run_whose_few_rounds_happened_to_agree_does_not_outweigh_the_others():
    runs = [ratios_ci.RatioInterval(e, e / 1.1, e * 1.1, 2, True, 0.03, se_log=se, df=1.0)
            for e, se in ((1.40, 0.02), (1.50, 0.02), (1.60, 0.0005))]
    across = ratios_ci.across_runs(runs)
    assert across.estimate == pytest.approx(1.497, abs=0.002)  # weighting by 1/se^2 would say 1.60
    assert across.contains(1.40) and across.contains(1.60)
    assert not across.settled(0.10)  # three runs 14 % apart do not settle +-10 %
    close = [ratios_ci.RatioInterval(e, e / 1.1, e * 1.1, 2, True, 0.03, se_log=0.02, df=1.0) for e in (1.48, 1.50, 1.52)]
    assert ratios_ci.across_runs(close).settled(0.10)


def test_fewer_than_three_runs_give_no_answer_across_them():
    one = ratios_ci.RatioInterval(1.5, 1.4, 1.6, 5, True, 0.05, se_log=0.02, df=4.0)
    assert ratios_ci.across_runs([one, one]) is None
    assert ratios_ci.across_runs([one, one, None]) is None


def test_the_next_runs_interval_covers_the_next_run_about_as_often_as_it_claims():
    """Runs whose level moves by a between-run sd of 0.04 beyond rounds of spread 0.05: the interval
    drawn from eight runs holds a ninth run's estimate about 95 % of the time (centred on one run's
    estimate, without that run's error, it held it 86-93 % of the time)."""
    rng = np.random.default_rng(5)
    hits, trials = 0, 600
    for _ in range(trials):
        runs = [ratios_ci.paired(*_experiment(rng, 4, 1.4 * math.exp(rng.normal(0, 0.04)), own_cv=0.035,
                                              host_cv=0.05)) for _ in range(9)]
        low, high = ratios_ci.between_runs(runs[:8]).next_run(runs[8].se_log)
        hits += low <= runs[8].estimate <= high
    assert 0.92 <= hits / trials <= 0.98


def test_a_between_run_spread_cut_at_zero_is_said_to_be_indistinguishable_from_it():
    same = [ratios_ci.RatioInterval(1.5 * f, 1.2, 1.9, 4, True, 0.2, df=3.0, se_log=0.1) for f in (1.0, 1.01, 0.99)]
    between = ratios_ci.between_runs(same)
    assert between.cut and between.sd_text().startswith("not distinguishable from 0 (at most 0.")
    apart = [ratios_ci.RatioInterval(1.5 * f, 1.4, 1.6, 4, True, 0.02, df=3.0, se_log=0.01) for f in (1.0, 1.3, 0.8)]
    moved = ratios_ci.between_runs(apart)
    assert not moved.cut and moved.sd_upper > moved.sd_log > 0


def test_earlier_runs_pooled_into_one_interval_have_the_mean_of_their_logs():
    a = ratios_ci.RatioInterval(1.2, 1.0, 1.4, 4, True, 0.1, df=3.0, se_log=0.05)
    b = ratios_ci.RatioInterval(1.8, 1.5, 2.1, 4, True, 0.1, df=3.0, se_log=0.05)
    both = ratios_ci.combined([a, b])
    assert math.isclose(both.estimate, math.sqrt(1.2 * 1.8)) and both.se_log < a.se_log
    assert ratios_ci.combined([]) is None


def test_a_run_noisier_than_its_prior_rejects_it_and_a_quieter_one_keeps_it():
    prior = ratios_ci.Prior(0.03, 9, 3)
    noisy = ratios_ci.RatioInterval(1.5, 1.2, 1.9, 5, True, 0.19, df=4.0, se_log=0.085)
    quiet = ratios_ci.RatioInterval(1.5, 1.45, 1.55, 5, True, 0.02, df=4.0, se_log=0.009)
    assert ratios_ci.prior_rejected(noisy, prior)
    assert not ratios_ci.prior_rejected(quiet, prior)
    assert not ratios_ci.prior_rejected(None, prior) and not ratios_ci.prior_rejected(noisy, None)


def test_a_round_far_outside_the_others_is_left_out_and_named():
    base = {r: 1.5 * math.exp(0.01 * ((-1) ** r) * (r % 3)) for r in range(1, 9)}
    held = dict(base) | {5: base[5] * 1.35}  # the denominator's launch of round 5 lost a quarter
    ci = ratios_ci.paired(held, {r: 1.0 for r in held})
    assert ci.outliers == (5,) and ci.n == 7
    assert math.isclose(ci.estimate, ratios_ci.paired(base, {r: 1.0 for r in base}).estimate, rel_tol=0.01)
    # below six rounds nothing is left out: too few to tell a round apart
    few = {r: held[r] for r in range(2, 7)}
    assert ratios_ci.paired(few, {r: 1.0 for r in few}).outliers == ()


def test_two_runs_judged_with_the_variance_between_runs_differ_only_beyond_it():
    a = ratios_ci.RatioInterval(1.50, 1.47, 1.53, 6, True, 0.025, df=5.0, se_log=0.01)
    b = ratios_ci.RatioInterval(1.60, 1.57, 1.63, 6, True, 0.025, df=5.0, se_log=0.01)
    assert ratios_ci.difference(b, a).differs
    assert not ratios_ci.difference(b, a, between_var=2 * 0.05 ** 2).differs
    far = ratios_ci.RatioInterval(2.00, 1.96, 2.04, 6, True, 0.025, df=5.0, se_log=0.01)
    assert ratios_ci.difference(far, a, between_var=2 * 0.05 ** 2).differs


def test_compare_counts_each_run_once_in_the_spread_between_runs():
    from types import SimpleNamespace

    from perflab.report import compare
    ci = {name: ratios_ci.RatioInterval(e, e * 0.98, e * 1.02, 4, True, 0.02, df=3.0, se_log=0.01)
          for name, e in (("r1", 1.40), ("r2", 1.60), ("r3", 1.50))}
    a, b = SimpleNamespace(id="r2"), SimpleNamespace(id="r3")
    ra = SimpleNamespace(earlier=[("r1", ci["r1"])], interval=ci["r2"])
    rb = SimpleNamespace(earlier=[("r1", ci["r1"]), ("r2", ci["r2"])], interval=ci["r3"])  # b knew a
    between = compare.runs_between(a, ra, b, rb)
    assert between.runs == 3
    assert between == ratios_ci.between_runs([ci["r1"], ci["r2"], ci["r3"]])
