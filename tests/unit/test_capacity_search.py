"""The capacity search's logic on measurements given by a model whose limit is known: grow then
bisect to the resolution, every step kept, and who ended the search (app, driver, maximum)."""

import math

import pytest

from perflab import capacity_search as cs

P99_25 = cs.Objective(99, 25.0)


def knee_at(limit: float, *, base_ms: float = 2.0, driver_cpu=lambda rate: 0.2, errors=lambda rate: 0):
    """An app that keeps up to `limit` req/s; above it its queue grows (p99 far over any objective)."""
    def measure(rate: float) -> cs.Measured:
        if rate <= limit:
            return cs.Measured(rate, rate, base_ms, errors(rate), driver_cpu(rate))
        return cs.Measured(rate, limit, 1000.0, errors(rate), driver_cpu(rate))
    return measure


def queueing(service_ms: float):
    """p99 of an M/M/1 queue: the sojourn time is exponential with rate mu - lambda."""
    mu = 1000 / service_ms

    def measure(rate: float) -> cs.Measured:
        p99 = math.log(100) / (mu - rate) * 1000 if rate < mu else 1e6
        return cs.Measured(rate, min(rate, mu), p99, 0)
    return measure


def test_finds_a_known_limit_within_the_resolution_and_keeps_every_step():
    found = cs.search(knee_at(1234), P99_25, start_rate=100, max_rate=100_000, resolution=0.05)
    assert found.ended_by == cs.APP
    assert found.capacity <= 1234 < found.ceiling
    assert found.resolution <= 0.05 and found.ceiling / found.capacity - 1 == pytest.approx(found.resolution)
    phases = [s.phase for s in found.steps]
    # 100 .. 1600, the failure at 1600 confirmed, then bisection (each failure confirmed)
    assert phases[:6] == ["grow"] * 5 + ["confirm"] and set(phases[6:]) == {"bisect", "confirm"}
    assert [s.measured.offered for s in found.steps[:6]] == [100, 200, 400, 800, 1600, 1600]
    confirmed = [s.measured.offered for s in found.steps if s.phase == "confirm"]
    assert confirmed == [s.measured.offered for s in found.steps if not s.passed and s.phase != "confirm"]
    assert found.disagreed == []
    assert all(s.passed == (s.measured.offered <= 1234) for s in found.steps)
    assert "p99 1,000.0 ms > 25 ms" in found.why and "achieved 1,234" in found.why


def test_a_finer_resolution_takes_more_steps_and_lands_closer():
    coarse = cs.search(knee_at(1234), P99_25, start_rate=100, max_rate=100_000, resolution=0.10)
    fine = cs.search(knee_at(1234), P99_25, start_rate=100, max_rate=100_000, resolution=0.01)
    assert len(fine.steps) > len(coarse.steps)
    assert 1234 / fine.capacity - 1 <= 0.01 and coarse.capacity <= fine.capacity <= 1234


def test_lowering_the_objective_lowers_the_capacity():
    measure = queueing(service_ms=1.0)  # mu = 1000 req/s: p99 <= L ms while rate <= 1000 - 4605 / L
    loose = cs.search(measure, cs.Objective(99, 25.0), start_rate=50, max_rate=10_000, resolution=0.02)
    tight = cs.search(measure, cs.Objective(99, 10.0), start_rate=50, max_rate=10_000, resolution=0.02)
    for found, limit_ms in ((loose, 25.0), (tight, 10.0)):
        exact = 1000 - math.log(100) * 1000 / limit_ms
        assert found.capacity <= exact < found.ceiling and found.resolution <= 0.02
    assert tight.capacity < loose.capacity


def test_errors_fail_a_step_whatever_the_latency():
    found = cs.search(knee_at(5000, errors=lambda rate: 3 if rate > 700 else 0), P99_25, start_rate=100,
                      max_rate=100_000, resolution=0.05)
    assert found.capacity <= 700 < found.ceiling and found.ended_by == cs.APP
    assert "3 errors" in found.why
    assert all(s.measured.offered < 5000 for s in found.steps)  # it never went near the latency knee


def test_a_rate_not_achieved_fails_the_step():
    def short(rate: float) -> cs.Measured:  # fast answers, but 5 % of the rate never sent
        return cs.Measured(rate, rate * (0.95 if rate > 300 else 1.0), 1.0, 0)
    found = cs.search(short, P99_25, start_rate=100, max_rate=10_000)
    assert found.capacity <= 300 < found.ceiling and "achieved" in found.why


def test_a_failure_with_the_driver_cpu_used_up_is_the_drivers_limit():
    found = cs.search(knee_at(5000, driver_cpu=lambda rate: 0.97 if rate > 1500 else 0.5), P99_25,
                      start_rate=100, max_rate=100_000)
    # the driver's saturation is only blamed when a step fails: 1600 passes, 3200 passes (the app keeps
    # up), 6400 fails with the driver at 97 %: the search stops there, without bisecting
    assert found.ended_by == cs.DRIVER and found.capacity == 3200 and found.ceiling == 6400
    assert found.steps[-1].driver_limited and "driver" in found.why
    assert all(s.phase == "grow" for s in found.steps)


def test_a_rate_the_driver_connections_cannot_carry_is_never_offered():
    found = cs.search(knee_at(5000), P99_25, start_rate=100, max_rate=100_000, driver_max_rate=1000)
    assert [s.measured.offered for s in found.steps] == [100, 200, 400, 800, 1000]  # grows up to what it carries
    assert found.ended_by == cs.DRIVER and found.capacity == 1000 and found.resolution is None  # a lower bound
    assert "driver's connections" in found.why


def test_below_the_drivers_limit_the_app_still_ends_the_search():
    found = cs.search(knee_at(900), P99_25, start_rate=100, max_rate=100_000, driver_max_rate=1000, resolution=0.05)
    assert max(s.measured.offered for s in found.steps) == 1000  # tried at the driver's limit, failed there
    assert found.ended_by == cs.APP and found.capacity <= 900 < found.ceiling <= 1000
    assert found.resolution <= 0.05


def test_the_plans_maximum_ends_a_search_that_never_failed():
    found = cs.search(knee_at(10_000), P99_25, start_rate=100, max_rate=1000)
    assert [s.measured.offered for s in found.steps] == [100, 200, 400, 800, 1000]
    assert found.ended_by == cs.MAX_RATE and found.capacity == 1000 and found.resolution is None


def test_a_first_rate_that_fails_shrinks_until_one_passes_then_bisects():
    found = cs.search(knee_at(30), P99_25, start_rate=100, max_rate=1000, min_rate=5, resolution=0.05)
    assert [s.measured.offered for s in found.steps[:5]] == [100, 100, 50, 50, 25]
    assert [s.phase for s in found.steps[:5]] == ["grow", "confirm", "shrink", "confirm", "shrink"]
    assert found.ended_by == cs.APP and found.capacity <= 30 < found.ceiling <= found.capacity * 1.05


def test_no_capacity_when_nothing_passes_down_to_the_minimum():
    found = cs.search(knee_at(3), P99_25, start_rate=100, max_rate=1000, min_rate=10)
    assert found.capacity is None and found.ended_by == cs.BELOW_MIN
    assert [s.measured.offered for s in found.steps] == [100, 100, 50, 50, 25, 25, 12.5, 12.5]
    assert "no rate down to 10 req/s passed" in found.why


@pytest.mark.parametrize("kwargs", [dict(start_rate=0, max_rate=10), dict(start_rate=20, max_rate=10),
                                    dict(start_rate=5, max_rate=10, min_rate=6),
                                    dict(start_rate=1, max_rate=10, resolution=0),
                                    dict(start_rate=1, max_rate=10, growth=1.0)])
def test_bad_bounds_are_refused(kwargs):
    with pytest.raises(ValueError):
        cs.search(knee_at(100), P99_25, **kwargs)


def noisy_once(limit: float, noisy_rates: set[float]):
    """knee_at(limit), but the first measurement at each of `noisy_rates` catches a burst."""
    clean, seen = knee_at(limit), set()

    def measure(rate: float) -> cs.Measured:
        if rate in noisy_rates and rate not in seen:
            seen.add(rate)
            return cs.Measured(rate, rate, 80.0, 0)
        return clean(rate)
    return measure


def test_a_failure_that_does_not_repeat_does_not_end_the_search():
    found = cs.search(noisy_once(5000, {400}), P99_25, start_rate=100, max_rate=100_000, resolution=0.05)
    assert found.capacity <= 5000 < found.ceiling and found.ceiling > 400
    assert found.disagreed == [400]
    at_400 = [(s.phase, s.passed) for s in found.steps if s.measured.offered == 400]
    assert at_400 == [("grow", False), ("confirm", True), ("decide", True)]


def test_without_confirmation_one_burst_ends_the_search():
    found = cs.search(noisy_once(5000, {400}), P99_25, start_rate=100, max_rate=100_000, resolution=0.05,
                      confirm_failures=False)
    assert found.capacity < 400 <= found.ceiling and "p99 80.0 ms" in found.why


def test_a_rate_that_fails_two_of_three_times_fails():
    calls: dict[float, int] = {}

    def measure(rate: float) -> cs.Measured:  # at 800: fail, pass, fail
        calls[rate] = calls.get(rate, 0) + 1
        bad = rate > 1000 or (rate == 800 and calls[rate] != 2)
        return cs.Measured(rate, rate, 90.0 if bad else 2.0, 0)
    found = cs.search(measure, P99_25, start_rate=100, max_rate=100_000, resolution=0.05)
    assert found.ceiling == 800 and found.capacity < 800 and found.disagreed == [800]
    assert calls[800] == 3 and 1600 not in calls
