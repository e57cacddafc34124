"""A clone under a private folder (mode 700, as /root is on a fresh machine), as root: the lab's
own PostgreSQL starts, its files placed where the unprivileged 'postgres' user can reach them, and
every later command of the same work directory finds it there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from perflab import db_home
from perflab.paths import REPO_ROOT
from tests.conftest import needs

pytestmark = [needs(os.geteuid() == 0 and db_home.server_user_exists(), "needs root and the unprivileged 'postgres' user"),
              pytest.mark.standin]


def _perflab(env, *argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "perflab", *argv], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_database_starts_for_a_clone_under_a_private_folder(tmp_path):
    private = tmp_path / "root-home"
    private.mkdir()
    os.chmod(private, 0o700)
    work = private / "clone" / ".perflab"
    env = dict(os.environ, PERFLAB_WORKDIR=str(work))
    shared = db_home.shared_root(work)
    try:
        started = _perflab(env, "db", "start")
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"data: {shared / 'data'}" in started.stdout
        status = _perflab(env, "db", "status")
        assert status.returncode == 0 and "running at" in status.stdout
    finally:
        stopped = _perflab(env, "db", "stop")
        shutil.rmtree(shared.parent, ignore_errors=True)
    assert "database stopped" in stopped.stdout
