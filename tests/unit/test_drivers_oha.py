"""The open-loop driver (oha) without running it: parsing captured real JSON reports, the command it
runs, per-interval figures (runs against the stand-in server: tests/lab/test_drivers_oha.py)."""

import json
from pathlib import Path

import pytest

from perflab.drivers import oha

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "oha"


def parse(name: str) -> oha.OhaFigures:
    return oha.parse_oha_json((FIXTURES / name).read_text())


def test_open_loop_report():
    figures = parse("open_1000rps.json")
    assert figures.requests == 1998
    assert figures.duration_s == pytest.approx(2.001099937)
    assert figures.rps == pytest.approx(1998 / 2.001099937)
    assert figures.errors.total == 0
    assert figures.errors.aborted_at_deadline == 1  # in flight at the end: not a failure
    assert figures.errors.status_counts == {"200": 1998}
    assert figures.latency.percentile(99) == pytest.approx(104.590515)
    assert figures.latency.max_ms == pytest.approx(122.517093)
    assert set(figures.latency.percentiles_ms) >= {"50", "75", "90", "99", "99.9", "99.99"}
    assert figures.latency.stdev_ms is None  # oha does not report it


def test_mixed_errors_are_classified():
    figures = parse("open_mixed_errors.json")
    errors = figures.errors
    assert figures.requests == 160 + 46 + 54  # responses of any status
    assert errors.status_counts == {"200": 160, "404": 46, "503": 54}
    assert errors.non_2xx == 46 + 54
    assert errors.read == 42  # "connection closed before message completed"
    assert errors.timeouts == 40
    assert errors.aborted_at_deadline == 20
    assert errors.other == {}
    assert errors.total == 100 + 42 + 40


def test_connect_refused_has_no_latency():
    figures = parse("connect_refused.json")
    assert figures.requests == 0 and figures.rps == 0
    assert figures.errors.connect == 101
    assert figures.latency.percentiles_ms == {} and figures.latency.mean_ms is None


def test_stall_shows_in_the_tail():
    figures = parse("open_500rps_stall_1s.json")
    assert figures.latency.percentile(99) == pytest.approx(960.749066)
    assert figures.latency.percentile(50) < 100


@pytest.mark.parametrize("message, kind", [
    ("timeout", "timeouts"),
    ("Connection refused (os error 111)", "connect"),
    ("error trying to connect: tcp connect error", "connect"),
    ("connection closed before message completed", "read"),
    ("Connection reset by peer (os error 104)", "read"),
    ("Broken pipe (os error 32)", "write"),
    ("something new", "other"),
])
def test_classify_error(message, kind):
    assert oha.classify_error(message) == kind


def test_unknown_errors_are_kept_by_message():
    report = json.loads((FIXTURES / "open_1000rps.json").read_text())
    report["errorDistribution"] = {"something new": 3, "timeout": 2}
    figures = oha.parse_oha_json(json.dumps(report))
    assert figures.errors.other == {"something new": 3}
    assert figures.errors.timeouts == 2


def test_open_loop_command_has_rate_and_correction():
    command = oha.build_command("oha", "http://127.0.0.1:1/x", rate=2000, duration_s=1.5,
                                connections=64, timeout_s=2, worker_threads=1, method="POST",
                                body='{"data": "k"}', content_type="application/json",
                                headers={"X-A": "b"})
    joined = " ".join(command)
    assert "-q 2000 --latency-correction" in joined
    assert "-z 1500ms" in joined and "-c 64" in joined and "-t 2000ms" in joined
    assert "--worker-threads 1" in joined and "-m POST" in joined
    assert command[-1] == "http://127.0.0.1:1/x"
    assert command[command.index("-H") + 1] == "X-A: b"


def test_closed_loop_command_has_no_rate():
    command = oha.build_command("oha", "http://127.0.0.1:1/", rate=None, duration_s=1,
                                connections=8, timeout_s=1, worker_threads=None)
    assert "-q" not in command and "--latency-correction" not in command
    assert "--worker-threads" not in command


def test_bad_arguments():
    with pytest.raises(ValueError):
        oha.run_oha("http://127.0.0.1:1/", rate=0, duration_s=1, oha="oha")
    with pytest.raises(ValueError):
        oha.run_oha("http://127.0.0.1:1/", rate=10, duration_s=0, oha="oha")


def _record(path: Path, rows: list[tuple]) -> Path:
    """A request record in the layout oha 1.16 writes with --db-url (url, start, corrected start, end,
    duration, status, bytes, run)."""
    import sqlite3
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE oha (url TEXT NOT NULL, start REAL NOT NULL, start_latency_correction REAL, "
                     "end REAL NOT NULL, duration REAL NOT NULL, status INTEGER NOT NULL, "
                     "len_bytes INTEGER NOT NULL, run INTEGER NOT NULL)")
        conn.executemany("INSERT INTO oha VALUES ('/', ?, ?, ?, ?, ?, 1, 1)",
                         [(s, c, e, e - s, st) for s, c, e, st in rows])
    return path


def test_intervals_count_completions_and_latency_from_the_due_time(tmp_path):
    from perflab.drivers import oha_requests
    db = _record(tmp_path / "r.db", [
        # start, due (corrected start), end, status
        (0.10, 0.10, 0.11, 200), (0.50, 0.50, 0.52, 200),
        (1.40, 0.90, 1.45, 500),  # due in the first second, sent late, answered in the second
        (1.60, 1.60, 1.61, 200), (2.10, None, 2.30, 200),  # no correction: from the send time
    ])
    first, second = oha_requests.intervals(db, 1.0, 2.3)  # the last 0.3 s join the second interval
    assert (first.requests, second.requests) == (2, 3)
    assert second.duration_s == pytest.approx(1.3) and second.end_s == pytest.approx(2.3)
    assert second.errors == 1 and first.errors == 0
    assert second.latency_max_ms == pytest.approx(550)  # 1.45 - 0.90, not 1.45 - 1.40
    assert second.latency_p50_ms == pytest.approx(200)  # 2.30 - 2.10: sent when due
    assert first.rps == pytest.approx(2.0)
    assert len(oha_requests.intervals(db, 1.0, 2.6)) == 3  # 0.6 s is an interval of its own


def test_an_empty_interval_has_no_latency(tmp_path):
    from perflab.drivers import oha_requests
    db = _record(tmp_path / "r.db", [(0.1, 0.1, 0.2, 200)])
    quiet = oha_requests.intervals(db, 1.0, 2.0)[1]
    assert quiet.requests == 0 and quiet.rps == 0 and quiet.latency_p99_ms is None
