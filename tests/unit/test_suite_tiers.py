"""`perflab test`: every tier by default, fastest first; --fast the unit tier only; pytest's own
arguments pass through."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from perflab import suite
from perflab.errors import LabError

ROOT = Path(__file__).resolve().parents[2]


def test_the_default_run_is_every_tier_fastest_first_and_every_test_folder_is_in_one():
    testpaths = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["testpaths"]
    assert testpaths == [p for tier in suite.TIERS.values() for p in tier]
    folders = {f"tests/{d.name}" for d in (ROOT / "tests").iterdir() if d.is_dir() and any(d.glob("test_*.py"))}
    assert folders == set(testpaths)
    assert suite.pytest_args(["-x", "-q"], ROOT, env={}, cpus=1) == ["-x", "-q"]


def test_every_tier_runs_in_two_workers_on_two_cpus_unless_told_otherwise():
    two = ["-n", "2", "--dist", "loadgroup", "--no-loadscope-reorder"]
    assert suite.pytest_args(["-x"], ROOT, env={}, cpus=2) == [*two, "-x"]
    assert suite.pytest_args([], ROOT, env={}, cpus=64) == two  # a third worker would only wait for the apps group
    assert suite.pytest_args([], ROOT, env={suite.WORKERS: "1"}, cpus=2) == []
    assert suite.pytest_args([], ROOT, env={suite.WORKERS: "3"}, cpus=2)[:2] == ["-n", "3"]
    # the user's own choice of processes, or tests named, run as given
    assert suite.pytest_args(["-n", "4"], ROOT, env={}, cpus=2) == ["-n", "4"]
    assert suite.pytest_args(["-p", "no:xdist"], ROOT, env={}, cpus=2) == ["-p", "no:xdist"]
    named = "tests/unit/test_plan.py"
    assert suite.pytest_args([named], ROOT, env={}, cpus=2) == [named]


def test_a_wrong_number_of_workers_is_refused_with_the_fix():
    for bad in ("0", "two", "-1"):
        with pytest.raises(LabError) as err:
            suite.pytest_args([], ROOT, env={suite.WORKERS: bad}, cpus=2)
        assert suite.WORKERS in str(err.value) and err.value.fix


def test_fast_runs_the_unit_tier_with_the_users_pytest_arguments():
    assert suite.pytest_args(["--fast"], ROOT) == ["tests/unit"]
    assert suite.pytest_args(["--fast", "-x", "-k", "plan"], ROOT) == ["-x", "-k", "plan", "tests/unit"]


def test_fast_with_tests_named_runs_just_those():
    named = "tests/unit/test_plan.py::test_wrong_types_are_reported"
    assert suite.pytest_args(["--fast", named, "-q"], ROOT) == [named, "-q"]
