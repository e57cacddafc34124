"""The steady-state rule and the precision of a measured mean, on series whose shape is known."""

from __future__ import annotations

import random

import pytest

from perflab.analysis.steadystate import Rule, judge, lag1_autocorrelation, precision


def _noisy(level: float, n: int, cv: float, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [level * (1 + rng.gauss(0, cv)) for _ in range(n)]


def test_a_jvm_still_climbing_is_not_steady_and_a_settled_one_is():
    climbing = [1000 + 150 * i for i in range(20)]  # +50 % across the last window: the JIT at work
    verdict = judge(climbing, Rule())
    assert not verdict.steady and "rising" in verdict.why
    settled = _noisy(5000, 20, 0.01)
    assert judge(settled, Rule()).steady


def test_a_slow_climb_that_the_trend_test_misses_is_not_steady():
    """+5 % per 10 s under 6 % noise: the window's own trend is not significant in most launches, but
    the window is not level with the one before it."""
    ramp = [[5000 * (1 + 0.005 * i) * g for i, g in enumerate(_noisy(1, 20, 0.06, seed=s))] for s in range(40)]
    flat = [_noisy(5000, 20, 0.03, seed=s) for s in range(40)]
    trend_only = sum(judge(r, Rule(max_step=1.0)).steady for r in ramp)  # the window's own tests alone
    passed_ramp = sum(judge(r, Rule()).steady for r in ramp)
    passed_flat = sum(judge(f, Rule()).steady for f in flat)
    assert trend_only >= 30 and passed_ramp <= 10 and passed_flat >= 35
    assert any("level with the window before" in judge(r, Rule()).why for r in ramp)


def test_too_much_spread_is_not_steady_even_without_a_trend():
    jittery = [5000, 6000] * 10  # CV ~10 %, no trend
    verdict = judge(jittery, Rule(max_cv=0.05))
    assert not verdict.steady and "spread" in verdict.why
    assert judge(jittery, Rule(max_cv=0.15, max_step=0.10)).steady


def test_a_tiny_significant_trend_does_not_block_steady_state():
    # +0.5 % across the window, perfectly regular: significant, but below max_trend
    creeping = [5000 * (1 + 0.0005 * i) for i in range(20)]
    verdict = judge(creeping, Rule(max_trend=0.02))
    assert verdict.trend_p < 0.05 and verdict.steady


def test_only_the_last_window_counts():
    warmup_then_flat = [100, 500, 900, 1500] + [5000.0] * 20
    assert judge(warmup_then_flat, Rule(window=10)).steady
    assert not judge(warmup_then_flat, Rule(window=12)).steady


def test_too_few_intervals_are_never_steady():
    assert not judge([5000.0] * 5, Rule(window=10)).steady


def test_precision_narrows_with_more_intervals():
    short = precision(_noisy(5000, 10, 0.05, seed=3))
    long = precision(_noisy(5000, 80, 0.05, seed=3))
    assert long.relative < short.relative
    # independent 5 % noise: the 95 % half-width is about 1.96 * 5 % / sqrt(n)
    assert long.relative == pytest.approx(1.96 * 0.05 / 80 ** 0.5, rel=0.35)


def test_correlated_intervals_count_less():
    rng = random.Random(5)
    level, series = 0.0, []
    for _ in range(60):  # AR(1) with phi 0.8: neighbours move together
        level = 0.8 * level + rng.gauss(0, 1)
        series.append(5000 + 50 * level)
    p = precision(series)
    assert lag1_autocorrelation(series) > 0.5
    assert p.n_effective < p.n / 3
    independent = precision(sorted(series, key=lambda _: rng.random()))  # same values, order shuffled
    assert independent.relative < p.relative


def test_precision_needs_three_intervals():
    assert precision([1.0, 2.0]) is None


def test_a_climb_hidden_in_noise_is_not_steady():
    # +14 % across the window under +-8 % jitter: too noisy for the trend to be significant
    # (p ~ 0.07), yet the window's mean describes neither its start nor its end
    climbing = [100 + 14 * i / 9 + (8 if i % 2 else -8) for i in range(-10, 10)]
    v = judge(climbing, Rule())
    assert v.trend_p > 0.05 and v.cv <= Rule().max_cv
    assert not v.steady and "rising" in v.why
    # the same jitter around a flat level is steady
    flat = [107 + (8 if i % 2 else -8) for i in range(20)]
    assert judge(flat, Rule()).steady
