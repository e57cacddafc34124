"""The steady-state rule must hold over a launch's whole measurement, not only over the window that
started it: a plateau followed by a late climb (a JVM's late compilation on one CPU) is not steady.
Measured intervals in which the app was held back from outside (its CPU share well under its usual)
are named."""

from __future__ import annotations

import random

from perflab.analysis.steadystate import Rule
from perflab.drivers import base
from perflab.scenarios import steady


def _interval(rps: float, t_s: float, cpu_share: float | None = 0.97) -> steady.Interval:
    result = base.LoadResult(driver="wrk", driver_version="4", mode="closed", url="http://x/", connections=4,
                             threads=1, duration_s=1.0, warmup_s=0, requests=int(rps), rps=rps,
                             latency=base.LatencyStats(mean_ms=1.0, stdev_ms=0.0, max_ms=1.0, min_ms=1.0,
                                                       percentiles_ms={}),
                             errors=base.ErrorCounts())
    return steady.Interval("measure", t_s, result, cpu_share, 0.1)


def _measured(values: list[float], steady_at_s: float | None = 48.0) -> steady.PointRun:
    run = steady.PointRun(steady_at_s=steady_at_s, why="spread 4.0%, trend +0.5% (p=0.60)")
    run.measured = [_interval(v, 49.0 + i) for i, v in enumerate(values)]
    return run


def _jitter(level: float, n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [level * (1 + rng.gauss(0, 0.03)) for _ in range(n)]


def test_a_plateau_that_climbs_again_during_the_measurement_is_not_steady():
    run = _measured(_jitter(11_500, 15, 1) + _jitter(14_500, 15, 2))  # +26 % half-way through
    steady.check_measurement(run, Rule())
    assert run.steady_at_s is None
    assert run.why.startswith(steady.NOT_STEADY)
    assert "the rule held 48 s after launch, but the 30 measured intervals were still rising" in run.why
    assert steady.launch_reason(run) == run.why


def test_a_measurement_that_stays_level_keeps_its_steady_state():
    run = _measured(_jitter(11_500, 30, 3))
    before = run.why
    steady.check_measurement(run, Rule(precision=0.05))
    assert run.steady_at_s == 48.0 and run.why == before
    assert steady.launch_reason(run).startswith("steady 48 s after launch")


def test_a_launch_that_never_settled_keeps_its_own_reason():
    run = _measured(_jitter(11_500, 15, 1) + _jitter(14_500, 15, 2), steady_at_s=None)
    run.why = "not steady after 120 s of warm-up: JIT still compiling: 350 ms/s"
    steady.check_measurement(run, Rule())
    assert run.why == "not steady after 120 s of warm-up: JIT still compiling: 350 ms/s"


def test_a_drift_may_bias_the_mean_by_the_precision_asked_of_it_and_no_more():
    # +6 % across the measurement: its mean lies 3 % below where it ended
    drifting = [11_500 * (1 + 0.06 * i / 29) * (1 + 0.003 * (-1) ** i) for i in range(30)]
    loose = _measured(drifting)
    steady.check_measurement(loose, Rule(precision=0.05))
    assert loose.steady_at_s == 48.0
    strict = _measured(drifting)
    steady.check_measurement(strict, Rule(precision=0.02))
    assert strict.steady_at_s is None and "30 measured intervals were still rising" in strict.why
    assert "more than the 2% asked" in strict.why


def test_a_window_opened_on_the_tail_of_a_ramp_stays_steady():
    # the rule may open its window an interval or two before a ramp flattens (82 %, 94 % of the
    # final pace); they bias the mean by under 2 %. A least-squares fit sees +8.6 %, p=0.04
    values = [300 * f for f in (0.82, 0.94)] + [300 * (1 + 0.003 * (-1) ** i) for i in range(12)]
    run = _measured(values)
    steady.check_measurement(run, Rule(precision=0.05))
    assert run.steady_at_s == 48.0, run.why


def test_a_noisy_but_level_measurement_stays_steady_whatever_its_spread():
    # 1 s intervals of a JVM on one CPU jitter by 10 % and more; the mean's precision covers that
    noisy = [11_500 * (1 + 0.14 * (-1) ** i) for i in range(38)]
    run = _measured(noisy)
    steady.check_measurement(run, Rule(precision=0.05))
    assert run.steady_at_s == 48.0


def test_intervals_in_which_the_app_used_well_under_its_usual_cpu_are_named():
    shares = [0.97, 0.96, 0.98, 0.51, 0.66, 0.97, 0.95, 0.97, 0.90]  # 0.90: ordinary jitter
    measured = [_interval(10_000 * s, 100.0 + i, s) for i, s in enumerate(shares)]
    held = steady.held_back(measured)
    assert held["intervals"] == 2 and held["of"] == 9
    assert held["lowest_share"] == 0.51 and held["at_s"] == [103.0, 104.0]


def test_a_steady_cpu_share_or_an_unknown_one_holds_nothing_back():
    assert steady.held_back([_interval(10_000, 100.0 + i, s) for i, s in enumerate([0.97, 0.91, 0.95, 0.99])]) == {}
    assert steady.held_back([_interval(10_000, 100.0 + i, None) for i in range(5)]) == {}
