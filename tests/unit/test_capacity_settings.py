"""Settings of capacity, efficiency and memneeds: bad values give errors that name the key."""

from __future__ import annotations

import pytest

from perflab import plan
from perflab.errors import LabError
from perflab.scenarios.capacity import driver_max_rate
from perflab.settings import Plan


def _plan(table: str) -> Plan:
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
    ("[memneeds]\nmax_error_share = 1.0", "memneeds.max_error_share must be less than 1"),
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
