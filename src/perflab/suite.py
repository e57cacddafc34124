"""The test suite's tiers and the pytest command `perflab test` runs.

unit (tests/unit): no process started, under a minute; lab (tests/lab, tests/conformance,
tests/browser): real processes, apps, JVMs, PostgreSQL, load drivers; kube (tests/kube): a real
Kubernetes control plane and node. `perflab test` runs them all (CI's command) in two worker
processes where the machine has two CPUs or more: one takes the tests that build or run the apps
under apps/, in order, and the other the rest beside it (tests/lanes.py says which may run beside
which); the tests marked `alone` (they bound a time, a rate or a count of intervals that work beside
them would stretch, and the kube tier) are left out of that run and run after it in one process.
PERFLAB_TEST_WORKERS=1 runs them all in one process, tier after tier. `--fast` runs the unit tier
only; tests named on the command line run in one process.
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
ALONE = "alone"  # the mark of a test that runs by itself after the parallel part (tests/lanes.py)
NO_TESTS = 5  # pytest's exit code when it collected nothing


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


def runs(args: list[str], root: Path, env: Mapping[str, str] = os.environ,
         cpus: int | None = os.cpu_count()) -> list[list[str]]:
    """pytest's argument lists, run one after another: the user's, with --fast replaced by the unit tier
    (unless the user named tests of their own); without --fast, pytest's testpaths (every tier) apply,
    in `workers` processes unless the user named tests or chose the processes (-n, -p no:xdist) or the
    marks (-m). In several workers the tests marked alone are left out, and run after in one process."""
    rest = [a for a in args if a != FAST]
    named = any((root / a.split("::")[0]).exists() for a in rest if not a.startswith("-"))
    if wants_fast(args):
        return [rest if named else [*rest, *TIERS["unit"]]]
    chosen = any(a in ("-n", "--numprocesses", "no:xdist", "-m") or a.startswith(("-n", "--numprocesses=")) for a in rest)
    n = workers(env, cpus)
    if named or chosen or n < 2:
        return [rest]
    parallel = ["-n", str(n), "--dist", "loadgroup", "--no-loadscope-reorder", "-m", f"not {ALONE}"]
    return [[*parallel, *rest], ["-m", ALONE, *rest]]  # tests/lanes.py orders the parallel part


def exit_code(codes: list[int]) -> int:
    """The suite's exit code from its runs' (in order): the first that failed. A later run that
    collected nothing (every test marked alone left out, e.g. by -k) is no failure; the first run's is."""
    first, *later = codes
    failed = [c for c in [first, *(c for c in later if c != NO_TESTS)] if c != 0]
    return failed[0] if failed else 0
