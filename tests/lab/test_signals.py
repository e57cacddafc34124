"""The lab's signal handling keeps the first Ctrl-C: one arriving during a fork (where Python's
fork hooks would swallow it) or during a shielded cleanup is raised in ordinary code."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from perflab.paths import REPO_ROOT

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group

# A fork hook that signals the process itself: the signal arrives exactly where Python would
# drop the KeyboardInterrupt ("Exception ignored in ...").
_PRELUDE = """
import os, signal, subprocess, sys, time
from perflab import signals
signals.install()
"""
_SIGNAL_IN_FORK_HOOK = """
os.register_at_fork(after_in_parent=lambda: (os.kill(os.getpid(), signal.SIGINT), sum(range(1000))))
"""


def _run(body: str, signal_in_fork_hook: bool = False) -> str:
    script = _PRELUDE + (_SIGNAL_IN_FORK_HOOK if signal_in_fork_hook else "") + textwrap.dedent(body)
    res = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT / "src", capture_output=True, text=True,
                         timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


def _fork_with_signal_in_hook(popen: str) -> str:
    return _run(f"""
try:
    {popen}(["true"], preexec_fn=lambda: None).wait()
    time.sleep(0.2)
    print("lost")
except KeyboardInterrupt:
    print("raised")
""", signal_in_fork_hook=True)


def test_plain_popen_loses_a_signal_that_arrives_in_a_fork_hook():
    # the premise of signals.popen: without it the interrupt is printed and dropped
    assert _fork_with_signal_in_hook("subprocess.Popen") == "lost"


def test_signals_popen_raises_a_signal_that_arrives_during_the_fork():
    assert _fork_with_signal_in_hook("signals.popen") == "raised"


def _fork_beside_a_thread(keep_off: bool) -> str:
    # while the main thread holds the signals for the fork, the kernel gives a process-directed
    # SIGINT to any other thread that does not block it; Python then runs the handler in the main
    # thread at its next bytecode, here inside the fork hook (which spins in bytecode for 50 ms)
    return _run(f"""
import threading
started = threading.Event()
def idle():
    if {keep_off}:
        signals.keep_off_this_thread()
    started.set()
    time.sleep(5)
threading.Thread(target=idle, daemon=True).start()
started.wait()
os.register_at_fork(after_in_parent=lambda: (os.kill(os.getpid(), signal.SIGINT),
                                             [time.sleep(0.001) for _ in range(50)]))
try:
    signals.popen(["true"], preexec_fn=lambda: None).wait()
    time.sleep(0.2)
    print("lost")
except KeyboardInterrupt:
    print("raised")
""")


def test_a_signal_taken_by_another_thread_during_the_fork_is_lost_unless_that_thread_keeps_it_off():
    assert _fork_beside_a_thread(keep_off=False) == "lost"  # the premise: the sampler thread took it
    assert _fork_beside_a_thread(keep_off=True) == "raised"


def test_the_child_starts_with_no_signal_blocked():
    out = _run("""
        p = signals.popen(["sh", "-c", "grep SigBlk /proc/self/status"], preexec_fn=lambda: None,
                          stdout=subprocess.PIPE, text=True)
        print(p.communicate()[0].split()[1])
    """)
    assert int(out.splitlines()[-1], 16) == 0


def test_a_signal_during_a_shielded_cleanup_is_raised_after_it():
    out = _run("""
        steps = []
        try:
            with signals.shielded():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.1)
                steps.append("cleanup finished")
            steps.append("after the shield")
        except KeyboardInterrupt:
            steps.append("raised")
        print(",".join(steps))
    """)
    assert out == "cleanup finished,raised"


def test_a_second_signal_during_the_cleanup_of_an_interrupt_changes_nothing():
    out = _run("""
        steps = []
        try:
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)
            finally:
                with signals.shielded():
                    os.kill(os.getpid(), signal.SIGTERM)
                    time.sleep(0.1)
                    steps.append("cleanup finished")
                steps.append("rest of the cleanup")
        except KeyboardInterrupt as exc:
            steps.append(f"stopped by {exc}")
        print(",".join(steps))
    """)
    assert out == "cleanup finished,rest of the cleanup,stopped by signal SIGINT"
