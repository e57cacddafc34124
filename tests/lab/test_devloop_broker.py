"""The Kafka broker's ready check on a process that restarts: ready only on its own start line, the
log being appended to across starts."""

from __future__ import annotations

import sys

import pytest

from perflab import kafka, procs
from perflab.errors import LabError

OLD_START = "[2026-01-01 12:00:00] INFO [KafkaRaftServer nodeId=1] Kafka Server started\n"


class _StandInBroker(kafka.Broker):
    """A process in the broker's place that answers on its port at once and logs the start line
    only when `logs_start`: what the ready check then makes of a log holding an earlier start."""

    logs_start = False

    def _java(self, *args, log=None, wait=False):
        script = ("import socket, sys, time\n"
                  f"s = socket.create_server(('127.0.0.1', {self.port}))\n"
                  + (f"print({kafka.STARTED_LINE!r}, flush=True)\n" if self.logs_start else "")
                  + "time.sleep(60)\n")
        return procs.spawn([sys.executable, "-c", script], log_path=self.log_path, cwd=self.root)


@pytest.mark.parametrize("logs_start", [False, True])
def test_a_restart_is_ready_only_on_its_own_start_line(tmp_path, logs_start):
    broker = _StandInBroker(say=lambda m: None)
    broker.logs_start = logs_start
    broker.root, broker.port = tmp_path, procs.free_port()
    broker.log_path.write_text(OLD_START)  # the earlier start's output
    try:
        if logs_start:
            broker.start(timeout_s=20)
            assert kafka._answers(broker.port)
        else:
            with pytest.raises(LabError, match="did not start within 2 s"):
                broker.start(timeout_s=2)
    finally:
        broker.stop_process()
