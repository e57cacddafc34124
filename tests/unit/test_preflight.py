"""The checks before a run: too little disk stops the run before anything is built (the database's
place is tested in tests/lab/test_preflight_db.py)."""

from __future__ import annotations

import shutil

import pytest

from perflab import plan, preflight, runner
from perflab.errors import LabError
from perflab.paths import work_dir
from tests.conftest import require


def test_too_little_disk_stops_before_any_build(monkeypatch, workdir):
    quick = plan.load("quick")
    targets = runner.select_targets(quick)
    free_mb = shutil.disk_usage(work_dir()).free // 2**20
    assert all(n.enough for n in preflight.check_disk(targets)) or require(False, "this machine's disk is full")
    monkeypatch.setattr(preflight, "RESULTS_MB", free_mb + 10_000)  # a need no disk here meets
    with pytest.raises(LabError) as caught:
        preflight.check_disk(targets)
    assert "MB free" in caught.value.message and "PERFLAB_WORKDIR" in caught.value.fix
