"""The contention probe against a real process: a busy child's threads read from this machine's
/proc (synthetic /proc contents: tests/unit/test_contention.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from perflab.analysis import contention
from perflab.probes.contention import Probe

pytestmark = pytest.mark.standin  # no app: it may run beside the apps group

BUSY = textwrap.dedent("""
    import threading
    def spin():
        while True:
            pass
    for _ in range(2):
        threading.Thread(target=spin, daemon=True).start()
    threading.Event().wait()
""")


def test_a_busy_childs_threads_give_plausible_figures(children):
    if not Path(f"/proc/{os.getpid()}/schedstat").exists():
        pytest.skip("this kernel gives no schedstat")
    proc = subprocess.Popen([sys.executable, "-c", BUSY], start_new_session=True)
    children.append(proc)
    cpu = sorted(os.sched_getaffinity(0))[0]
    probe = Probe(lambda: [proc.pid], [cpu])
    time.sleep(0.3)  # its threads started
    a = probe.read()
    time.sleep(1.0)
    b = probe.read()
    got = contention.window(a, b)
    assert got.details["threads"] >= 3 and got.details["threads_exited"] == 0  # the main thread and two spinners
    # two spinning threads (the GIL lets one run at a time): on a CPU for part of the second, never
    # more than the machine's CPUs
    assert 0 < got.details["run_ms_per_s"] <= 1000 * os.cpu_count() * 1.05
    wait, share = got.figures["runqueue_wait_ms_per_s"][0], got.figures["runqueue_wait_pct"][0]
    assert wait >= 0 and 0 <= share <= 100
    steal = got.figures["steal_pct"][0]
    assert 0 <= steal <= 100 and got.details["steal_on"] == f"cpu{cpu}"
    assert 0 <= got.details["host_steal_pct"] <= 100
