"""The host-speed canary without running it: a missing compiler, and how deviations are judged
(compiled and run for real in tests/lab/test_canary.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perflab.analysis import host_speed
from perflab.errors import LabError
from perflab.probes import canary


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "perflab" / "canary"


def test_no_compiler_is_a_lab_error_with_the_fix(cache, monkeypatch):
    monkeypatch.setattr(canary.shutil, "which", lambda name: None)
    with pytest.raises(LabError) as raised:
        canary.ensure(log=lambda _: None)
    assert "apt-get install gcc" in raised.value.fix


def test_deviations_are_relative_to_the_median():
    assert host_speed.deviations([10.0, 11.0, 9.0, 12.0, 10.0]) == pytest.approx(
        [0.0, 0.1, -0.1, 0.2, 0.0])
    assert host_speed.deviations([20.0, 10.0]) == pytest.approx([1 / 3, -1 / 3])
    assert host_speed.deviations([]) == []
    with pytest.raises(ValueError):
        host_speed.deviations([0.0, 0.0])


def test_a_run_is_beyond_the_earlier_ones_only_past_every_one_of_them_by_the_margin():
    earlier = [19.0, 22.7, 26.2]
    assert host_speed.against_earlier(13.6, earlier) == pytest.approx(13.6 / 19.0 - 1)  # faster than all: < 0
    assert host_speed.against_earlier(32.0, earlier) == pytest.approx(32.0 / 26.2 - 1)  # slower than all: > 0
    assert host_speed.against_earlier(17.0, earlier) == 0.0   # below the fastest, but within the margin
    assert host_speed.against_earlier(30.0, earlier) == 0.0   # above the slowest, within the margin
    assert host_speed.against_earlier(21.0, earlier) == 0.0   # among them
    assert host_speed.against_earlier(17.0, earlier, apart=0.05) < 0
    assert host_speed.against_earlier(13.6, []) == 0.0        # nothing to be beyond


def test_two_sides_are_separated_only_when_every_run_after_lies_beyond_every_run_before():
    before = [19.0, 22.7, 21.5]
    assert host_speed.separated(before, [13.6, 14.2]) == pytest.approx(14.2 / 19.0 - 1)
    assert host_speed.separated(before, [13.6, 18.0]) == 0.0   # one run after reaches near the fastest before
    assert host_speed.separated(before, [28.0, 30.0]) == pytest.approx(28.0 / 22.7 - 1)
    assert host_speed.separated(before, [13.6, 30.0]) == 0.0   # the after side straddles the before side
    assert host_speed.separated([], [13.6]) == 0.0 and host_speed.separated(before, []) == 0.0


def test_slow_means_more_than_the_threshold_above_the_median():
    assert not host_speed.slow(10.5, 10.0)           # exactly 5 %: not slow
    assert host_speed.slow(10.51, 10.0)
    assert not host_speed.slow(8.0, 10.0)            # faster is never slow
    assert host_speed.slow(10.3, 10.0, threshold=0.02)
    assert not host_speed.slow(10.3, 10.0, threshold=0.1)


def test_a_change_points_sides_are_apart_when_they_do_not_mix_and_their_medians_differ():
    before = [19.0, 21.5, 22.7]
    # a step down, then later runs drifting part of the way back: the step stands
    assert host_speed.sides_apart(before, [13.6, 14.2, 12.1, 16.6, 18.3]) == pytest.approx(14.2 / 21.5 - 1)
    assert host_speed.separated(before, [13.6, 14.2, 12.1, 16.6, 18.3]) == 0.0  # the nearest pair says otherwise
    assert host_speed.sides_apart(before, [13.6, 14.2, 19.5]) == 0.0  # one run after reaches into the before side
    assert host_speed.sides_apart(before, [17.5, 18.0, 18.5]) == 0.0  # apart, but medians only 16 % apart
    assert host_speed.sides_apart(before, [28.0, 30.0]) == pytest.approx(29.0 / 21.5 - 1)
    assert host_speed.sides_apart([], [13.6]) == 0.0 and host_speed.sides_apart(before, []) == 0.0
