"""`perflab test`: every tier by default, fastest first, in two workers and then the tests marked
alone by themselves; --fast the unit tier only; pytest's own arguments pass through."""

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
    assert suite.runs(["-x", "-q"], ROOT, env={}, cpus=1) == [["-x", "-q"]]


def test_every_tier_runs_in_two_workers_on_two_cpus_then_the_tests_marked_alone_by_themselves():
    two = ["-n", "2", "--dist", "loadgroup", "--no-loadscope-reorder", "-m", "not alone"]
    assert suite.runs(["-x"], ROOT, env={}, cpus=2) == [[*two, "-x"], ["-m", "alone", "-x"]]
    # a third worker would only wait for the apps group
    assert suite.runs([], ROOT, env={}, cpus=64) == [two, ["-m", "alone"]]
    assert suite.runs([], ROOT, env={suite.WORKERS: "1"}, cpus=2) == [[]]  # one process: every test in it
    assert suite.runs([], ROOT, env={suite.WORKERS: "3"}, cpus=2)[0][:2] == ["-n", "3"]
    # the user's own choice of processes or marks, or tests named, run as given, once
    assert suite.runs(["-n", "4"], ROOT, env={}, cpus=2) == [["-n", "4"]]
    assert suite.runs(["-p", "no:xdist"], ROOT, env={}, cpus=2) == [["-p", "no:xdist"]]
    assert suite.runs(["-m", "slow"], ROOT, env={}, cpus=2) == [["-m", "slow"]]
    named = "tests/unit/test_plan.py"
    assert suite.runs([named], ROOT, env={}, cpus=2) == [[named]]


def test_the_suite_fails_when_either_part_fails_but_not_when_the_serial_part_finds_nothing():
    assert suite.exit_code([0, 0]) == 0
    assert suite.exit_code([1, 0]) == 1 and suite.exit_code([0, 1]) == 1
    assert suite.exit_code([2, 1]) == 2  # the first failure's code
    assert suite.exit_code([0, suite.NO_TESTS]) == 0  # -k chose no test marked alone
    assert suite.exit_code([suite.NO_TESTS, 0]) == suite.NO_TESTS  # the main part must find tests
    assert suite.exit_code([suite.NO_TESTS]) == suite.NO_TESTS


def test_a_wrong_number_of_workers_is_refused_with_the_fix():
    for bad in ("0", "two", "-1"):
        with pytest.raises(LabError) as err:
            suite.runs([], ROOT, env={suite.WORKERS: bad}, cpus=2)
        assert suite.WORKERS in str(err.value) and err.value.fix


def test_fast_runs_the_unit_tier_with_the_users_pytest_arguments():
    assert suite.runs(["--fast"], ROOT) == [["tests/unit"]]
    assert suite.runs(["--fast", "-x", "-k", "plan"], ROOT) == [["-x", "-k", "plan", "tests/unit"]]


def test_fast_with_tests_named_runs_just_those():
    named = "tests/unit/test_plan.py::test_wrong_types_are_reported"
    assert suite.runs(["--fast", named, "-q"], ROOT) == [[named, "-q"]]
