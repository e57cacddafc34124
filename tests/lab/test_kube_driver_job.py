"""The real oha's report (run here against the stand-in server) turned into figures by the code that
turns a driver Job's log into figures (perflab.kube.loadjob.result, perflab.kube.load.add_point)."""

from __future__ import annotations

import subprocess

import pytest

from perflab.kube import load, loadjob, measure
from perflab.kube.loadjob import Load, Placed
from perflab.scenario import point
from tests.support.standin_server import StandinServer

APART = Placed("quarkus-jvm-load-abc123", "quarkus-jvm-load-abc123-x1", "node-b", ["node-a"])


def _pod_log(binary, url: str, spec: Load) -> str:
    """What the driver pod's log holds: oha run with the Job's arguments, stdout and stderr together."""
    done = subprocess.run([str(binary), *loadjob.args(url, spec)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=spec.duration_s + 30)
    assert done.returncode == 0, done.stdout
    return done.stdout


def _figures(log: str, url: str, spec: Load, label: str):
    result = loadjob.result(log, url, spec)
    out = measure.Figures("sweep")
    flags = load.add_point(out, point(label, connections=spec.connections), 0, result, APART)
    return {f["metric"]: f for f in out.figures}, flags, out


def test_a_real_closed_loop_report_becomes_the_sweeps_figures(oha_binary):
    spec = Load("/hello", 4, 1.0)
    with StandinServer() as server:
        url = server.url + spec.path
        log = _pod_log(oha_binary, url, spec)
    by, flags, out = _figures(log, url, spec, "fruits c=4")
    requests = by["requests"]["value"]
    assert requests > 0 and requests == loadjob.result(log, url, spec).errors.status_counts["200"]
    assert by["errors"]["value"] == 0 and "errors" not in flags
    assert by["rps"]["value"] == pytest.approx(requests / by["rps"]["extra"]["duration_s"])
    ordered = [by[m]["value"] for m in ("latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "latency_p99.9_ms",
                                        "latency_max_ms")]
    assert ordered == sorted(ordered) and ordered[0] > 0
    assert "offered_rate" not in by  # closed loop
    assert set(load.CLUSTER_FLAGS) <= set(flags) and "driver-bound" not in flags
    assert by["rps"]["extra"]["driver_node"] == "node-b" and by["rps"]["extra"]["app_nodes"] == ["node-a"]
    assert all(f["unit"] == "ms" for m, f in by.items() if m.startswith("latency_"))
    assert out.files[0][2] == log  # the driver's report is kept with the run
    # what oha writes to stderr shares the pod's log: the report is still found
    assert _figures("a warning on stderr\n" + log, url, spec, "fruits c=4")[0]["requests"]["value"] == requests


def test_a_real_open_loop_report_keeps_its_offered_rate_and_a_rate_not_held_is_flagged(oha_binary):
    held = Load("/hello", 10, 1.0, rate=50)
    # 2 connections to an answer that takes 200 ms carry 10 req/s at most: 50 req/s cannot be held
    short = Load("/delay/200", 2, 1.5, rate=50)
    with StandinServer() as server:
        logs = [(_pod_log(oha_binary, server.url + s.path, s), server.url + s.path, s) for s in (held, short)]
    by, _, _ = _figures(*logs[0], "50% of max")
    assert by["offered_rate"]["value"] == 50 and by["errors"]["value"] == 0
    assert "--latency-correction" in loadjob.result(*logs[0]).command
    _, short_flags, _ = _figures(*logs[1], "100% of max")
    assert "driver-bound" in short_flags
