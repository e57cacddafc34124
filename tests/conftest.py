"""Shared fixtures: a private PostgreSQL for the whole test session, stand-in app folders, the load
drivers; and how a test that needs root or a tool says so (`require`, `needs_root`)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from perflab import postgres
from perflab.drivers import ensure_oha, ensure_wrk
from perflab.drivers.install import DriverUnavailable
from perflab.paths import cache_dir
from tests import lanes, prebuild, skips

SUPPORT = Path(__file__).parent / "support"
# Tests start the CLI as `python -m perflab` in subprocesses: they must find the package under
# src/ also when pytest runs outside the project's virtualenv.
_SRC = str(Path(__file__).resolve().parent.parent / "src")
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in [_SRC, os.environ.get("PYTHONPATH", "")] if p)

ON_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# The kube tier checks what happens, not how fast: it takes this machine's optimized control plane
# when there is one, else builds the unoptimized one (a quarter less CPU; tools/kubeenv/build.py)
os.environ.setdefault("PERFLAB_KUBE_BUILD", "either")


def require(ok: bool, reason: str) -> None:
    """A test that needs root or a tool (wrk, oha, Go, a JDK, cgroups, containerd): skipped with the
    reason where it is missing, failed with it under CI=true, where every tier must really run."""
    if not ok:
        if ON_CI:
            pytest.fail(f"{reason} (CI=true: a missing tool or right fails instead of skipping)", pytrace=False)
        pytest.skip(reason)


def needs(ok: bool, reason: str):
    """A mark: the test runs only where `ok` holds (checked through `require` before it starts)."""
    return pytest.mark.needs(ok, reason)


def needs_root(reason: str):
    return needs(os.geteuid() == 0, reason)


def needs_tool(name: str, reason: str):
    return needs(shutil.which(name) is not None, reason)


def pytest_runtest_setup(item):
    for mark in item.iter_markers("needs"):
        require(*mark.args)


_PREBUILD = pytest.StashKey()


def _standin(item) -> bool:
    return item.get_closest_marker(lanes.STANDIN) is not None


def pytest_itemcollected(item):
    """With two workers (`perflab test`), each test's group: what may run beside what (tests/lanes.py).
    Marked as each test is collected, before xdist reads the groups in its collection hook and -m
    selects the serial part's tests (the alone mark, which the kube tier gets here)."""
    if lanes.alone(item.path, item.get_closest_marker(lanes.ALONE) is not None):
        item.add_marker(lanes.ALONE)
    if getattr(item.config.option, "loadgroup", False):  # xdist's own test for --dist loadgroup
        item.add_marker(pytest.mark.xdist_group(lanes.group(item.path, _standin(item))))


def pytest_collection_modifyitems(config, items):
    """With two workers, one order in every worker (tests/lanes.py): the groups are handed out in it."""
    if getattr(config.option, "loadgroup", False):
        items.sort(key=lambda item: lanes.order(item.path, _standin(item), "oha_binary" in item.fixturenames))


@pytest.fixture(autouse=True)
def _standin_tests_see_no_apps(request, monkeypatch):
    """A test marked standin may run beside the apps group: it must not find the apps under apps/
    (one that sets its own PERFLAB_APPS_DIR later in its setup wins)."""
    if _standin(request.node):
        monkeypatch.setenv("PERFLAB_APPS_DIR", lanes.NO_APPS_DIR)


def _xdist_controller(config) -> bool:
    return getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput")


def pytest_sessionstart(session):
    """In several workers, the controller starts the one-time builds (it outlives every worker; the
    workers each collect every test and must not start them twice), for the tiers it was given."""
    if _xdist_controller(session.config):
        _start_prebuild(session.config, [Path(arg.split("::")[0]) for arg in session.config.args])


def pytest_collection_finish(session):
    """The one-time builds the collected tiers will wait for, started now in the background so that
    they overlap with the tests before them (tests/prebuild.py)."""
    if not hasattr(session.config, "workerinput") and not _xdist_controller(session.config):
        _start_prebuild(session.config, [item.path for item in session.items])


def _start_prebuild(config, test_paths) -> None:
    jobs = prebuild.wanted(test_paths)
    if jobs:
        config.stash[_PREBUILD] = prebuild.start(jobs, cache_dir() / "logs" / "prebuild.log")


def pytest_sessionfinish(session):
    prebuild.stop(session.config.stash.get(_PREBUILD, None))


def pytest_terminal_summary(terminalreporter):
    """The skipped tests by reason, with what makes them run (with workers this runs in the
    controller, which has every test's report)."""
    skipped = terminalreporter.stats.get("skipped", [])
    if skipped:
        terminalreporter.write_sep("=", f"{len(skipped)} skipped, by reason")
        for line in skips.lines(skips.table(skipped)):
            terminalreporter.write_line(line)


def _driver(ensure, missing_says: str):
    try:
        return ensure()
    except DriverUnavailable as missing:
        require(False, f"{missing_says}: {missing}")


@pytest.fixture(scope="session")
def wrk_binary():
    return _driver(ensure_wrk, "wrk unavailable")


@pytest.fixture(scope="session")
def oha_binary():
    """oha, built once per machine (about 10 minutes with cargo)."""
    return _driver(ensure_oha, "oha is not built and cannot be")


@contextlib.contextmanager
def cluster_dir():
    """A folder the unprivileged PostgreSQL user can enter. Not under pytest's base temp: pytest
    keeps /tmp/pytest-of-<user> at mode 0700 (and resets it when another session starts)."""
    path = Path(tempfile.mkdtemp(prefix="perflab-test-pg-"))
    os.chmod(path, 0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def database():
    """A real private PostgreSQL cluster, separate from the user's lab database."""
    with cluster_dir() as root:
        cluster = postgres.Cluster(root / "db")
        conn = cluster.start()
        try:
            postgres.load_contract(conn)
            yield cluster, conn
        finally:
            cluster.stop(quiet=True)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A private work directory so tests never touch the user's lab state."""
    path = tmp_path / "work"
    monkeypatch.setenv("PERFLAB_WORKDIR", str(path))
    monkeypatch.setenv("PERFLAB_BUILD_STAMPS", str(tmp_path / "builds"))
    return path


def write_standin_app(root: Path, name: str = "standin", delay: float = 0.2, exit_code: int | None = None,
                      alloc_mb: int = 0, script: str = "slow_app.py", env: dict[str, str] | None = None) -> Path:
    """An app folder whose 'build' copies a script and whose launch runs a stand-in of tests/support
    (the slow one unless `script` names another), with `env` beside its own settings."""
    app = root / name
    (app / "src").mkdir(parents=True, exist_ok=True)
    (app / "src" / "version.txt").write_text("1\n")
    args = [str(delay)] + ([str(exit_code)] if exit_code is not None else [])
    argv = ", ".join(f'"{a}"' for a in [sys.executable, str(SUPPORT / script), *args])
    more = "".join(f', {key} = "{value}"' for key, value in (env or {}).items())
    (app / "perflab.toml").write_text(textwrap.dedent(f"""\
        name = "{name}"
        framework = "StandIn"
        framework_version = "0"
        sources = ["src"]
        ready_path = "/health/ready"
        first_response_path = "/hello"
        startup_log_regex = 'started in (?P<millis>[0-9.]+)ms'

        [build]
        command = ["sh", "-c", "mkdir -p out && cp src/version.txt out/artifact.txt && echo built >> build-count"]
        artifact = "out/artifact.txt"

        [modes.jvm]
        command = [{argv}]
        env = {{ STANDIN_ALLOC_MB = "{alloc_mb}"{more} }}
        """))
    return app


def _studies_dir() -> Path:
    """The studies' own texts: $PERFLAB_STUDIES, else shared/studies beside the checkout."""
    from perflab.paths import REPO_ROOT

    return Path(os.environ.get("PERFLAB_STUDIES") or REPO_ROOT.parent / "shared" / "studies")


@pytest.fixture
def study_text():
    """A study's text by its key (published.TEXTS names the files); where the texts are not here,
    skipped, and failed under CI=true (`require`), whose clone has them beside it."""
    from perflab.present.published import studies

    def read(study: str) -> str:
        path = _studies_dir() / studies.TEXTS[study]
        require(path.exists(), f"the study texts are not at {path.parent} (set PERFLAB_STUDIES)")
        return path.read_text(encoding="utf-8")
    return read
