"""`perflab test`: every tier by default, fastest first; --fast the unit tier only; pytest's own
arguments pass through."""

from __future__ import annotations

import tomllib
from pathlib import Path

from perflab import suite

ROOT = Path(__file__).resolve().parents[2]


def test_the_default_run_is_every_tier_fastest_first_and_every_test_folder_is_in_one():
    testpaths = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["testpaths"]
    assert testpaths == [p for tier in suite.TIERS.values() for p in tier]
    folders = {f"tests/{d.name}" for d in (ROOT / "tests").iterdir() if d.is_dir() and any(d.glob("test_*.py"))}
    assert folders == set(testpaths)
    assert suite.pytest_args(["-x", "-q"], ROOT) == ["-x", "-q"]


def test_fast_runs_the_unit_tier_with_the_users_pytest_arguments():
    assert suite.pytest_args(["--fast"], ROOT) == ["tests/unit"]
    assert suite.pytest_args(["--fast", "-x", "-k", "plan"], ROOT) == ["-x", "-k", "plan", "tests/unit"]


def test_fast_with_tests_named_runs_just_those():
    named = "tests/unit/test_plan.py::test_wrong_types_are_reported"
    assert suite.pytest_args(["--fast", named, "-q"], ROOT) == [named, "-q"]
