"""The lab's private Kafka broker (KRaft, jars from Maven Central): it answers on 127.0.0.1 at its
port, and after a stop or a Ctrl-C neither its process nor its data folder remains."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from perflab import kafka, procs

pytestmark = pytest.mark.slow  # the first run resolves ~40 jars; a start takes 10-30 s


def test_the_broker_starts_answers_and_leaves_nothing(workdir):
    with kafka.Broker() as broker:
        root, pid = broker.root, broker.proc.pid
        assert kafka._answers(broker.port)
        assert broker.bootstrap.startswith("127.0.0.1:")
        assert (root / "logs" / "meta.properties").exists()  # formatted by Kafka's storage tool
    assert not procs.group_alive(pid)
    assert not root.exists()
    assert not kafka._answers(broker.port)


def test_a_ctrl_c_stops_the_broker_and_removes_its_data(workdir, tmp_path):
    up = tmp_path / "up"
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from perflab import kafka, signals
        signals.install()
        with kafka.Broker() as b:
            Path({str(up)!r}).write_text(f"{{b.proc.pid}} {{b.port}} {{b.root}}")
            time.sleep(120)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], env=dict(os.environ))
    try:
        deadline = time.monotonic() + 600
        while not up.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert up.exists(), "the broker never came up"
        pid, port, root = up.read_text().split()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not procs.group_alive(int(pid))
    assert not Path(root).exists()
    assert not kafka._answers(int(port))
