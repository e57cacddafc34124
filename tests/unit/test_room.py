"""Room on the work directory's disk (perflab.room): a step is refused with RunStopped, which names
the free space and the run to resume, when the disk has less than the least a step needs."""

from __future__ import annotations

import shutil

import pytest

from perflab import room
from perflab.errors import LabError, RunStopped


def test_a_disk_with_less_free_space_than_a_step_needs_stops_the_run_and_says_how_to_go_on(tmp_path, monkeypatch):
    free_mb = shutil.disk_usage(tmp_path).free / 2**20
    monkeypatch.setenv(room.MIN_FREE_ENV, str(free_mb * 2 + 1))
    with pytest.raises(RunStopped) as stopped:
        room.ensure(tmp_path, "20261128-000000-abcd")
    assert "MB free" in stopped.value.message and "--resume 20261128-000000-abcd" in stopped.value.fix


def test_a_disk_with_room_lets_the_step_begin(tmp_path, monkeypatch):
    monkeypatch.setenv(room.MIN_FREE_ENV, "0")
    room.ensure(tmp_path, "run")  # nothing raised
    monkeypatch.delenv(room.MIN_FREE_ENV)
    assert room.least_mb() == room.MIN_FREE_MB


@pytest.mark.parametrize("text", ["lots", "-5"])
def test_a_wrong_least_free_space_is_refused_by_name(monkeypatch, text):
    monkeypatch.setenv(room.MIN_FREE_ENV, text)
    with pytest.raises(LabError, match=room.MIN_FREE_ENV):
        room.least_mb()
