"""The rounds' stopping rule, simulated for every built-in plan's settings through the lab's own
decision (bench/stopping.py): the 95 % interval covers the truth at least 93 % of the time, with and
without a prior from earlier runs, and a settled ratio's estimate is not pulled by the stopping.
Among the runs that stop settled, coverage stays at 0.90 or more wherever most runs settle: at the
edge of what the plan's rounds can settle, a run that settles is one whose spread came out small,
and no stopping rule on the run's own data removes that selection entirely (bench/stopping.py
prints it)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from perflab import rounds
from perflab.paths import REPO_ROOT


def _bench():
    spec = importlib.util.spec_from_file_location("bench_stopping", REPO_ROOT / "bench" / "stopping.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


BENCH = _bench()
GROUPS = list(BENCH.builtin_groups())


def test_every_built_in_plan_with_rounds_is_simulated():
    names = {n for group in BENCH.builtin_groups().values() for n in group}
    assert {"quick", "full", "rt2019", "lab2020", "kt2020", "upgrade"} <= names


@pytest.mark.parametrize("prior_runs", [0, 2])
@pytest.mark.parametrize("settings", GROUPS, ids=lambda g: f"target{g[0]}-max{g[1]}")
def test_the_interval_covers_as_promised_and_settled_ratios_are_not_biased(settings, prior_runs):
    target, most, least, planned = settings
    cfg = rounds.RoundSettings(target=target, max_rounds=most, min_rounds=least)
    for sd in BENCH.SPREADS:
        o = BENCH.simulate(cfg, planned, sd, reps=600, seed=3, prior_runs=prior_runs)
        assert o.coverage >= 0.93, (settings, sd, o)
        if o.settled_share >= 0.5:
            assert o.settled_coverage >= 0.90, (settings, sd, o)
            assert abs(o.bias_se) < 0.25, (settings, sd, o)


def test_the_old_rule_would_have_failed_the_upgrade_plan():
    """Without a minimum that depends on the target, +-5 % with at most 6 rounds settled on rounds
    that agreed by chance: the check above is one that can fail."""
    cfg = rounds.RoundSettings(target=0.05, max_rounds=6, min_rounds=3)
    old = BENCH.simulate(cfg, 3, 0.072, reps=600, seed=3, fixed_least=3)
    assert old.settled_share > 0.05 and old.settled_coverage < 0.93


def test_the_minimum_rounds_grow_with_a_tighter_target_and_shrink_with_a_tight_prior():
    from perflab.analysis import ratios_ci
    assert rounds.least_rounds(0.05) > rounds.least_rounds(0.10) >= 4
    tight = ratios_ci.Prior(0.02, 20)
    loose = ratios_ci.Prior(0.08, 3)
    assert rounds.least_rounds(0.10, tight) == 3 < rounds.least_rounds(0.10, loose)
    assert rounds.least_rounds(0.10, tight, floor=6) == 6
