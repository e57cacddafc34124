"""The unit tier's guard: a unit test that starts a process fails with where the test belongs."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.unit.conftest import ProcessInUnitTest


def test_a_subprocess_is_refused_naming_the_lab_tier():
    with pytest.raises(ProcessInUnitTest, match="tests/lab/"):
        subprocess.run(["true"], check=False)


@pytest.mark.parametrize("start", [lambda: os.fork(), lambda: os.system("true"), lambda: os.posix_spawn(
    "/bin/true", ["true"], dict(os.environ))])
def test_fork_system_and_spawn_are_refused(start):
    with pytest.raises(ProcessInUnitTest):
        start()
