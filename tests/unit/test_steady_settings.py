"""The steady scenario's per-point warm-up maximum: validated, and counted by the estimate."""

from __future__ import annotations

import pytest

from perflab import plan as plans
from perflab.errors import LabError
from perflab.scenario import Estimate
from perflab.scenarios import steady


def _estimate(points: list[dict], jvm: bool = True) -> float:
    cfg = steady.SteadySettings(launches=1, points=points, warmup_max_s=100, measure_max_s=10)
    return steady.estimate_s(Estimate(cfg, 1, 5.0, jvm))


def test_a_points_own_warm_up_maximum_replaces_the_scenarios_in_the_estimate():
    default = _estimate([{"connections": 40}])
    longer = _estimate([{"connections": 40, "warmup_max_s": 300}])
    shorter = _estimate([{"connections": 40, "warmup_max_s": 30}])
    assert shorter < default < longer
    # a second point adds its own warm-up and measurement
    assert _estimate([{"connections": 4, "warmup_max_s": 30}, {"connections": 40, "warmup_max_s": 30}]) > shorter


def test_a_points_warm_up_maximum_must_be_positive(tmp_path):
    bad = tmp_path / "p.toml"
    bad.write_text('name = "p"\napps = ["go-reference"]\nscenarios = ["steady"]\n'
                   '[steady]\npoints = [{ path = "/fruits", connections = 4, warmup_max_s = 0 }]\n')
    with pytest.raises(LabError, match="warmup_max_s"):
        plans.load(str(bad))



def test_times_to_steady_state_measured_here_before_replace_the_warm_up_maxima():
    cfg = steady.SteadySettings(launches=2, points=[{"connections": 4, "warmup_max_s": 120},
                                                    {"connections": 40, "warmup_max_s": 45}], measure_max_s=10)
    labels = [steady.point_of(p).label for p in cfg.points]
    guess = steady.estimate_s(Estimate(cfg, 1, 5.0, True))
    # a JVM that earlier reached steady state at 40 connections 60 s after its launch
    known = steady.estimate_s(Estimate(cfg, 1, 5.0, True, steady_s={labels[0]: 40.0, labels[1]: 60.0}))
    slower = steady.estimate_s(Estimate(cfg, 1, 5.0, True, steady_s={labels[0]: 90.0, labels[1]: 130.0}))
    assert known < slower < guess
    # what only some points have is not enough: the maxima stay the estimate
    assert steady.estimate_s(Estimate(cfg, 1, 5.0, True, steady_s={labels[1]: 60.0})) == guess


def test_launches_that_ran_to_the_warm_up_limit_and_measured_long_lengthen_the_estimate():
    """A median time to steady state that is infinite (most launches here never got there) is the
    warm-up limit; the measurement takes what it took here, up to its maximum, not its least."""
    cfg = steady.SteadySettings(launches=1, points=[{"connections": 4}], warmup_max_s=120, window=10,
                                measure_max_s=30)
    label = steady.point_of(cfg.points[0]).label
    quick = steady.estimate_s(Estimate(cfg, 1, 20.0, True, steady_s={label: 60.0}))
    limit = steady.estimate_s(Estimate(cfg, 1, 20.0, True, steady_s={label: float("inf")}))
    assert limit == pytest.approx(quick + 20.0 + 120.0 - 60.0)  # from launch: the start, then the whole warm-up
    long = steady.estimate_s(Estimate(cfg, 1, 20.0, True, steady_s={label: 60.0}, measure_s={label: 25.0}))
    longest = steady.estimate_s(Estimate(cfg, 1, 20.0, True, steady_s={label: 60.0}, measure_s={label: 90.0}))
    assert long == pytest.approx(quick + (25.0 - 10.0) * 1.1)
    assert longest == pytest.approx(quick + (30.0 - 10.0) * 1.1)  # never beyond measure_max_s


def test_the_headline_point_is_the_first_measured_at_the_most_connections():
    """Request shapes measured after the headline on the warm launch (same connections) must not
    take its place in the rounds or the open-loop rate; a warm-up point before it never does."""
    def paths(points: list[dict]) -> str:
        got = steady.headline_point(steady.SteadySettings(points=points).points)
        return f"{got.path} c={got.connections}"
    shapes = [{"path": "/fruits", "connections": 4}, {"path": "/todos", "connections": 4},
              {"path": "/fruit-prices", "connections": 4}]
    assert paths(shapes) == "/fruits c=4"
    assert paths([{"path": "/todos", "connections": 2, "measure": False}, {"path": "/todos", "connections": 32}]) \
        == "/todos c=32"
    assert paths([{"path": "/fruits", "connections": 1}, {"path": "/fruits", "connections": 40},
                  {"path": "/todos", "connections": 40}]) == "/fruits c=40"
    assert steady.headline_point(steady.SteadySettings(points=[{"path": "/a", "connections": 4, "measure": False},
                                                               {"path": "/b", "connections": 8}]).points).path == "/b"
