"""The unit tier starts no process: a unit test that starts one (a subprocess, a JVM, a server, a
load driver, a compiler) fails here and belongs in tests/lab/. The guard holds through each test's
setup and call, so a session fixture first set up by a unit test is caught too (not its teardown:
the last test of a run that spans tiers tears down the lab tier's session fixtures)."""

from __future__ import annotations

import contextlib
import os
import subprocess

import pytest


class ProcessInUnitTest(AssertionError):
    pass


def _refuse(what: str):
    def refuse(*args, **kwargs):
        raise ProcessInUnitTest(f"a unit test started a process ({what}: {args[1:2] or args[:1]}); "
                                "tests that start processes go to tests/lab/")
    return refuse


_GUARDED = [(subprocess.Popen, "__init__"), *((os, name) for name in
            ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system", "execv", "execve", "execvp", "execvpe")
            if hasattr(os, name))]


@contextlib.contextmanager
def _no_processes():
    saved = [(owner, name, getattr(owner, name)) for owner, name in _GUARDED]
    for owner, name, _ in saved:
        setattr(owner, name, _refuse(f"{getattr(owner, '__name__', owner)}.{name}"))
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    with _no_processes():
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    with _no_processes():
        yield
