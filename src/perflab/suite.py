"""The test suite's tiers and the pytest command `perflab test` runs.

unit (tests/unit): no process started, under a minute; lab (tests/lab, tests/conformance,
tests/browser): real processes, apps, JVMs, PostgreSQL, load drivers; kube (tests/kube): a real
Kubernetes control plane and node. `perflab test` runs them all in that order (CI's command);
`--fast` runs the unit tier only.
"""

from __future__ import annotations

from pathlib import Path

TIERS = {
    "unit": ["tests/unit"],
    "lab": ["tests/lab", "tests/conformance", "tests/browser"],
    "kube": ["tests/kube"],
}
FAST = "--fast"


def wants_fast(args: list[str]) -> bool:
    return FAST in args


def pytest_args(args: list[str], root: Path) -> list[str]:
    """pytest's arguments: the user's, with --fast replaced by the unit tier (unless the user named
    tests of their own); without --fast, pytest's testpaths (every tier) apply."""
    rest = [a for a in args if a != FAST]
    if not wants_fast(args):
        return rest
    named = any((root / a.split("::")[0]).exists() for a in rest if not a.startswith("-"))
    return rest if named else [*rest, *TIERS["unit"]]
