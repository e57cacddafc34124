"""Which tests may run beside which, when `perflab test` runs the suite in two worker processes
(pytest-xdist, `--dist loadgroup`: the tests of one group run one after another in one worker).

Two workers on two cores halve the time of the suite's waits (warm-up windows, start-ups, the
database's start) but share the apps under apps/: a test that builds one of them rewrites its
artifact while another may be running it, and two Maven builds of one app folder at once break each
other. So every test that may build or run a real app is in one group, "apps", run in order by one
worker (with the kube tier, which builds images of the apps); the rest run beside it:

- the unit tier, a group per file (no process started);
- lab tests marked `standin`: they measure stand-in apps of their own only (tests/support), a group
  per file, so a module's fixtures are set up once. Such a test sees no apps/ at all (its
  PERFLAB_APPS_DIR points at a folder that does not exist, unless it sets its own), so one that
  starts to use a real app fails at once instead of racing with the apps group.

A test is in the apps group unless it is marked: the safe default for a new test.

A test that bounds what work beside it would stretch (a time, a rate, a count of intervals) is
marked `alone`, and so is the whole kube tier (its plans' load has deadlines, its start-ups too):
the two-worker run leaves them out and `perflab test` runs them after it in one process
(perflab.suite.runs), where nothing of the suite runs beside them.

The order (`order`, with xdist's own reordering off) puts the apps group first, so that one worker
starts on it at once while the other takes the rest; within each, tests that wait for oha come
after those that don't (it builds in the background on a new machine), and the kube tier last (its
control plane builds longest).
"""

from __future__ import annotations

from pathlib import Path

from perflab.suite import ALONE

APPS = "apps"
STANDIN = "standin"  # the mark of a test that uses stand-in apps only
NO_APPS_DIR = "/nonexistent/perflab-standin-tests-use-no-apps"  # a standin test's PERFLAB_APPS_DIR


TIER_ORDER = {"unit": 0, "conformance": 1, "browser": 2, "lab": 3, "kube": 4}


def _tests_part(test_path: Path) -> tuple[tuple[str, ...], int | None]:
    """The path's parts, and where its last tests/ folder with something below it is (None: none)."""
    parts = Path(test_path).parts
    below = [i for i in range(len(parts) - 1) if parts[i] == "tests"]
    return parts, (below[-1] if below else None)


def tier(test_path: Path) -> str:
    """The tier of a test file or folder: the folder below the last tests/ ('' outside one)."""
    parts, start = _tests_part(test_path)
    return parts[start + 1] if start is not None else ""


def order(test_file: Path, standin: bool, needs_oha: bool) -> tuple[int, int, int]:
    """A sort key: the apps group first; in each lane the tiers in TIER_ORDER, oha's users last in theirs."""
    in_apps = group(test_file, standin) == APPS
    return (0 if in_apps else 1, TIER_ORDER.get(tier(test_file), len(TIER_ORDER)), int(needs_oha))


def alone(test_file: Path, marked: bool) -> bool:
    """Whether a test runs in the serial part, by itself: marked so, or in the kube tier."""
    return marked or tier(test_file) == "kube"


def group(test_file: Path, standin: bool) -> str:
    """The xdist group of a test in `test_file` (a path with a tests/<tier>/ part)."""
    parts, start = _tests_part(test_file)
    if standin or tier(test_file) == "unit":
        return "/".join(parts[start or 0:])
    return APPS
