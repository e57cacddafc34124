"""Probes without a process: readiness against an in-process server, the start log read from files,
sample summaries and export (against real processes: tests/lab/test_probes.py)."""

from __future__ import annotations

import csv
import http.server
import threading
import time
from pathlib import Path

import pytest

from perflab.probes import Sample, SampleSeries, wait_ready, watch_start_log


class _ReadyLater(http.server.BaseHTTPRequestHandler):
    ready_at = 0.0

    def do_GET(self):
        status = 200 if time.monotonic() >= self.ready_at else 503
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def ready_later():
    """A server that answers 503 on every path until `ready_at`, then 200."""
    handler = type("Handler", (_ReadyLater,), {"ready_at": time.monotonic() + 0.3})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.alone  # a count of polls in 0.3 s: work beside it would thin them
def test_readiness_waits_through_503_until_200(ready_later):
    spawn_ns = time.monotonic_ns()
    result = wait_ready(f"{ready_later}/health/ready", spawn_ns, timeout_s=10)
    assert result.ok and result.status == 200
    assert result.elapsed_ms >= 250
    assert result.attempts > 5


def write_slowly(path: Path, pieces: list[str], pause_s: float = 0.05) -> threading.Thread:
    def run() -> None:
        for piece in pieces:
            time.sleep(pause_s)
            with open(path, "a") as fh:
                fh.write(piece)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_start_log_line_written_in_pieces_is_matched(tmp_path):
    log = tmp_path / "app.log"  # does not exist yet
    writer = write_slowly(log, ["booting\n", "\x1b[32mINFO\x1b[0m quarkus 3.38.0 started in 1.2",
                                "34s. Listening on: http://0.0.0.0:8080\n"])
    found = watch_start_log(log, r"started in (?P<seconds>[\d.,]+)s", timeout_s=10)
    writer.join()
    assert found.ok and found.millis == pytest.approx(1234.0)
    assert found.line.startswith("INFO quarkus") and "\x1b" not in found.line


def test_start_log_in_millis_and_with_a_decimal_comma(tmp_path):
    log = tmp_path / "app.log"
    log.write_text("Started App in 2,5 seconds (process running for 3.1)\n"
                   "stand-in app started in 480ms\n")
    seconds = watch_start_log(log, r"Started \w+ in (?P<seconds>[\d.,]+) seconds", timeout_s=0)
    millis = watch_start_log(log, r"started in (?P<millis>\d+)ms", timeout_s=0)
    assert seconds.millis == pytest.approx(2500.0) and millis.millis == 480.0


def series_of(values: list[tuple[int, int, float]]) -> SampleSeries:
    return SampleSeries([Sample(t_ns=t, alive=True, procs=1, rss_bytes=rss, cpu_s=cpu,
                                cgroup_memory_bytes=None, cgroup_cpu_s=None)
                         for t, rss, cpu in values])


def test_summaries_at_a_moment_peak_and_mean():
    s = 1_000_000_000
    series = series_of([(0, 10, 0.0), (1 * s, 50, 0.5), (2 * s, 30, 1.5), (3 * s, 20, 1.5)])
    assert series.at(s // 2).rss_bytes == 50       # the state just after the moment
    assert series.at(5 * s) is None
    assert series.peak() == 50
    assert series.peak(start_ns=2 * s) == 30       # the peak of a window only
    assert series.mean(start_ns=2 * s, end_ns=3 * s) == 25
    assert series.cpu_used(start_ns=0, end_ns=2 * s) == 1.5
    assert series.cpu_share() == pytest.approx(0.5)
    assert series.peak("cgroup_memory_bytes") is None  # not measured: unknown, not zero
    with pytest.raises(ValueError, match="no sample field"):
        series.peak("rss")


def test_samples_export_as_csv_rows(tmp_path):
    series = series_of([(5_000_000_000, 10, 0.0), (5_100_000_000, 20, 0.01)])
    series.write_csv(tmp_path / "samples.csv")
    with open(tmp_path / "samples.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["t_s"] for r in rows] == ["0.0", "0.1"]
    assert rows[1]["rss_bytes"] == "20" and rows[0]["cgroup_memory_bytes"] == ""
    assert list(rows[0]) == ["t_s", "t_ns", "alive", "procs", "rss_bytes", "cpu_s",
                             "cgroup_memory_bytes", "cgroup_cpu_s"]
