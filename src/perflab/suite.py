"""The test suite's tiers and the pytest command `perflab test` runs.

unit (tests/unit): no process started, under a minute; lab (tests/lab, tests/conformance,
tests/browser): real processes, apps, JVMs, PostgreSQL, load drivers; kube (tests/kube): a real
Kubernetes control plane and node. `perflab test` runs them all (CI's command) in two worker
processes where the machine has two CPUs or more: one takes the tests that build or run the apps
under apps/, in order, and the other the rest beside it (tests/lanes.py says which may run beside
which); PERFLAB_TEST_WORKERS=1 runs them in one process, tier after tier. `--fast` runs the unit
tier only; tests named on the command line run in one process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from perflab.errors import LabError

TIERS = {
    "unit": ["tests/unit"],
    "lab": ["tests/lab", "tests/conformance", "tests/browser"],
    "kube": ["tests/kube"],
}
FAST = "--fast"
WORKERS = "PERFLAB_TEST_WORKERS"
MAX_WORKERS = 2  # one for the apps group, one for everything beside it: a third would only wait


def wants_fast(args: list[str]) -> bool:
    return FAST in args


def workers(env: Mapping[str, str], cpus: int | None) -> int:
    """How many pytest workers run the whole suite: PERFLAB_TEST_WORKERS, else one per CPU up to two."""
    given = env.get(WORKERS, "").strip()
    if given:
        if not given.isdigit() or int(given) < 1:
            raise LabError(f"{WORKERS}={given!r}: not a number of processes",
                           fix=f"set it to 1 (one process, tier after tier) or more, or unset it")
        return int(given)
    return max(1, min(MAX_WORKERS, cpus or 1))


def pytest_args(args: list[str], root: Path, env: Mapping[str, str] = os.environ,
                cpus: int | None = os.cpu_count()) -> list[str]:
    """pytest's arguments: the user's, with --fast replaced by the unit tier (unless the user named
    tests of their own); without --fast, pytest's testpaths (every tier) apply, in `workers` processes
    unless the user named tests or chose the processes (-n, -p no:xdist)."""
    rest = [a for a in args if a != FAST]
    named = any((root / a.split("::")[0]).exists() for a in rest if not a.startswith("-"))
    if wants_fast(args):
        return rest if named else [*rest, *TIERS["unit"]]
    chosen = any(a in ("-n", "--numprocesses", "no:xdist") or a.startswith(("-n", "--numprocesses=")) for a in rest)
    n = workers(env, cpus)
    if named or chosen or n < 2:
        return rest
    return ["-n", str(n), "--dist", "loadgroup", "--no-loadscope-reorder", *rest]  # tests/lanes.py orders them
