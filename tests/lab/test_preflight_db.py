"""The checks before a run, as root: a work directory under a private (0700) folder sends the
database's files where the unprivileged 'postgres' user can reach them, at once and saying where (a
child process that has become that user checks it)."""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from perflab import db_home, preflight
from tests.conftest import needs

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group

as_root_with_postgres = needs(os.geteuid() == 0 and db_home.server_user_exists(),
                              "needs root and the unprivileged 'postgres' user")

def _enters_as_postgres(path) -> bool:
    """Whether the 'postgres' user can really list `path`: a child process that has become it tries."""
    pw = pwd.getpwnam("postgres")
    pid = os.fork()
    if pid == 0:  # the child: drop to the database's user and try
        try:
            os.setgid(pw.pw_gid)
            os.initgroups("postgres", pw.pw_gid)
            os.setuid(pw.pw_uid)
            os.listdir(path)
            os._exit(0)
        except BaseException:
            os._exit(1)
    return os.waitpid(pid, 0)[1] == 0


@pytest.fixture
def private_clone(tmp_path, monkeypatch):
    """A work directory inside a folder only its owner (root) can enter, as /root is on a fresh machine."""
    private = tmp_path / "home"
    (private / "clone").mkdir(parents=True)
    os.chmod(private, 0o700)
    work = private / "clone" / ".perflab"
    monkeypatch.setenv("PERFLAB_WORKDIR", str(work))
    yield private, work
    shared = db_home.shared_root(work).parent
    shutil.rmtree(shared, ignore_errors=True)


@as_root_with_postgres
@pytest.mark.alone  # a bound on the time taken
def test_a_private_parent_folder_sends_the_database_files_where_postgres_can_reach_them(private_clone):
    private, work = private_clone
    assert db_home.blocking_folder(work / "db") == private
    assert not _enters_as_postgres(private)
    said = []
    started = time.monotonic()
    preflight.check_database(said.append)
    assert time.monotonic() - started < 5  # seconds, not after the builds
    root = db_home.cluster_root(work)
    assert not root.is_relative_to(private)
    assert (work / "db").is_symlink() and root == (work / "db").resolve()
    # the server's user can really get there (the cluster's own folder is created when it starts)
    assert _enters_as_postgres(root.parent)
    assert str(root) in said[0] and str(private) in said[0]
    # the next command of the same work directory finds the same place, and says nothing more
    again = []
    preflight.check_database(again.append)
    assert db_home.cluster_root(work) == root and again == []


@as_root_with_postgres
def test_a_reachable_work_directory_keeps_the_database_files(monkeypatch):
    open_dir = Path(tempfile.mkdtemp(prefix="perflab-test-open-", dir="/var/tmp"))
    try:
        os.chmod(open_dir, 0o755)
        monkeypatch.setenv("PERFLAB_WORKDIR", str(open_dir / "work"))
        said = []
        preflight.check_database(said.append)
        assert db_home.cluster_root() == open_dir / "work" / "db" and said == []
        assert not (open_dir / "work" / "db").is_symlink()
    finally:
        shutil.rmtree(open_dir)
