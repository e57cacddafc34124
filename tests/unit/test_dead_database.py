"""A database killed mid-run stops the run at once, naming it (Lab.check_database)."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from perflab.errors import RunStopped
from perflab.lab import Lab

GONE = 2 ** 22 + 4321  # above Linux's largest pid: no process has it


def _lab(db_pid=None, h2_pid=None, in_use="postgresql"):
    return SimpleNamespace(db_pid=db_pid, db_in_use=in_use, h2=SimpleNamespace(pid=h2_pid) if h2_pid else None)


def test_a_postgresql_that_is_gone_stops_the_run_with_its_name_and_pid():
    with pytest.raises(RunStopped, match=f"PostgreSQL \\(pid {GONE}\\) is gone mid-run") as caught:
        Lab.check_database(_lab(db_pid=GONE))
    assert "--resume" in caught.value.fix


def test_the_database_in_use_is_the_one_checked():
    with pytest.raises(RunStopped, match="H2 server"):
        Lab.check_database(_lab(db_pid=os.getpid(), h2_pid=GONE, in_use="h2"))
    Lab.check_database(_lab(db_pid=os.getpid(), h2_pid=GONE))  # the app in use reads PostgreSQL, alive


def test_a_database_the_lab_did_not_start_is_not_checked():
    Lab.check_database(_lab(db_pid=None))
