"""An instance whose main thread is dead but whose other threads are still on their way out (as a
SIGKILLed JVM or threaded server is, for a moment, on a busy machine) counts as exited."""

from __future__ import annotations

import platform
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from perflab import probes
from perflab.instance import Instance
from tests.conftest import require

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group

# the exit system call (one thread only, unlike exit_group) by architecture
SYS_EXIT = {"x86_64": 60, "aarch64": 93}

# The main thread ends itself with the exit system call (not exit_group): the process shows as a
# zombie while its second thread lives on for another second, and waitpid reports nothing until then.
LINGERING = """
import ctypes, threading, time
threading.Thread(target=lambda: time.sleep(1.0)).start()
time.sleep(0.2)
ctypes.CDLL(None).syscall({sys_exit}, 7)   # SYS_exit: this thread only
"""


def test_a_process_whose_main_thread_is_dead_counts_as_exited():
    sys_exit = SYS_EXIT.get(platform.machine())
    require(sys_exit is not None, f"the exit system call's number on {platform.machine()} is not known here")
    proc = subprocess.Popen([sys.executable, "-c", LINGERING.format(sys_exit=sys_exit)])
    try:
        deadline = time.monotonic() + 10
        while not ((stat := probes.read_stat(proc.pid)) and stat.gone) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert probes.read_stat(proc.pid).gone, "the main thread should be dead by now"
        instance = SimpleNamespace(running=SimpleNamespace(proc=proc))
        assert Instance.exited(instance) is not None
    finally:
        proc.kill()
        proc.wait()
