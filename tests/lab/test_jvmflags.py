"""Reading back the heap a running JVM applied (jcmd VM.flags), on a real JVM: the value it settled
on, not the first -Xmx of its command line; and a reason, not an exception, when there is no JVM."""

from __future__ import annotations

import subprocess
import time

import pytest

from perflab import jdks, jvmflags
from tests.conftest import require

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group

WAITS = "public class Waits { public static void main(String[] a) throws Exception { Thread.sleep(120_000); } }\n"


@pytest.fixture
def jvm(tmp_path):
    home = jdks.find_jdk(17) or jdks.find_jdk(25)
    if home is None:
        require(False, "no JDK 17 or 25 found")
    (tmp_path / "Waits.java").write_text(WAITS)
    started = []

    def start(*opts: str) -> int:
        proc = subprocess.Popen([str(home / "bin" / "java"), *opts, str(tmp_path / "Waits.java")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(proc)
        return proc.pid

    yield start
    for proc in started:
        proc.kill()
        proc.wait(timeout=10)


def _heap_when_answering(pid: int) -> float | None:
    deadline = time.monotonic() + 30
    while True:  # the attach listener answers once the JVM is up
        heap, why = jvmflags.max_heap_mb(pid)
        if heap is not None or time.monotonic() > deadline:
            return heap
        time.sleep(0.5)


def test_the_heap_the_jvm_applied_is_read_back(jvm):
    pid = jvm("-Xmx48m", "-XX:+UseSerialGC", "-Xmx96m")  # the last -Xmx wins
    assert _heap_when_answering(pid) == 96.0


def test_no_jvm_gives_a_reason():
    heap, why = jvmflags.max_heap_mb(2**22 + 12345)  # above any pid the kernel hands out by default
    assert heap is None and why.startswith("jcmd")
