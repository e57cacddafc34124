"""The Kafka broker's ready check reads only what this start logged: the log is appended to on a
restart, so the earlier start's line must not make a restarted broker look ready."""

from __future__ import annotations

from perflab import kafka

OLD_START = "[2026-01-01 12:00:00] INFO [KafkaRaftServer nodeId=1] Kafka Server started\n"


def test_an_earlier_start_line_does_not_count_for_this_start(tmp_path):
    log = tmp_path / "broker.log"
    log.write_text(OLD_START + "[2026-01-01 12:05:00] INFO shutting down\n")
    offset = log.stat().st_size  # where this start's output begins
    assert kafka.started_since(log, 0)
    assert not kafka.started_since(log, offset)
    with open(log, "a") as f:
        f.write("[2026-01-01 12:05:09] INFO [BrokerServer id=1] Transition from STARTING to STARTED\n")
    assert not kafka.started_since(log, offset)
    with open(log, "a") as f:
        f.write(OLD_START.replace("12:00:00", "12:05:10"))
    assert kafka.started_since(log, offset)


def test_no_log_yet_is_not_started(tmp_path):
    assert not kafka.started_since(tmp_path / "broker.log", 0)
