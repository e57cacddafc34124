"""Settings of capacity, efficiency and memneeds: bad values give errors that name the key, and the
memory-need rule picks the smallest setting that keeps the throughput."""

from __future__ import annotations

import pytest

from perflab import plan
from perflab.errors import LabError
from perflab.scenarios.capacity import driver_max_rate
from perflab.scenarios.memneeds import StepOutcome, needed


def _plan(table: str) -> plan.Plan:
    import tomllib
    return plan.validate(tomllib.loads(f'name = "t"\napps = ["all"]\nscenarios = ["capacity", "efficiency", '
                                       f'"memneeds"]\n{table}'), "test")


@pytest.mark.parametrize("table, words", [
    ("[capacity]\npercentile = 98.0", "capacity.percentile must be one the driver reports"),
    ("[capacity]\nstart_rate = 5000.0\nmax_rate = 1000.0", "capacity needs min_rate <= start_rate <= max_rate, got 10, 5000 and 1000"),
    ("[capacity]\nobjective_ms = 0.0", "capacity.objective_ms must be more than 0"),
    ("[efficiency]\nrates = []", "efficiency.rates must list at least one rate"),
    ("[memneeds]\nheaps_mb = [512, 8]", "memneeds.heaps_mb must list at least one size, each at least 16 MB"),
    ("[memneeds]\nkeep = 1.5", "memneeds.keep must be at most 1"),
])
def test_bad_settings_name_the_key(table, words):
    with pytest.raises(LabError) as err:
        _plan(table)
    assert words in str(err.value)


def test_defaults_validate_and_sizes_run_from_the_largest_down():
    p = _plan("[memneeds]\nheaps_mb = [64, 512, 128]\n[efficiency]\nrates = [500.0, 100.0]")
    assert p.settings("memneeds").heaps_mb == [512, 128, 64]
    assert p.settings("efficiency").rates == [100.0, 500.0]
    assert p.settings("capacity").percentile == 99.0 and p.settings("capacity").objective_ms == 25.0


def test_the_driver_ceiling_follows_littles_law():
    assert driver_max_rate(256, 25.0) == pytest.approx(10240)
    assert driver_max_rate(10, 100.0) == pytest.approx(100)


def test_memory_needed_is_the_smallest_setting_keeping_the_share_of_the_best():
    steps = [StepOutcome(704, 512, 1000.0), StepOutcome(448, 256, 950.0), StepOutcome(320, 128, 700.0),
             StepOutcome(256, 64, 0.0, failed="OOM-killed")]
    assert needed(steps, 0.90).limit_mb == 448
    assert needed(steps, 0.70).limit_mb == 320
    assert needed(steps, 0.96).limit_mb == 704
    assert needed([StepOutcome(64, None, 0.0, failed="not ready")], 0.9) is None
