"""Fixtures of the lab tier (tests that start processes)."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest


@pytest.fixture
def children():
    """Processes started by a test, each leading its own process group; the whole group is killed
    and reaped whatever happens."""
    started: list[subprocess.Popen] = []
    yield started
    for proc in started:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)
