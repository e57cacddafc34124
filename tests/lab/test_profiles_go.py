"""A profiled run of the Go reference through the runner: the launch gets its profile address,
the runtime's CPU profile covers the measured window, and its layers (go.toml) sum to the
measured CPU per request, with the HTTP server and the database driver among them."""

from __future__ import annotations

import os

import pytest

from perflab.profiles import merged
from tests.conftest import needs
from tests.lab.plan_run import run_plan_on

pytestmark = [needs(os.geteuid() == 0, "needs root for cgroups and the DB user"),
              pytest.mark.slow]

PLAN = """
name = "go-profile-test"
apps = ["go-reference"]
scenarios = ["steady"]
verify = false
repeats = 1
[rounds]
interleave = false
canary = false
[profile]
enabled = true
[steady]
launches = 1
points = [{ path = "/fruits", connections = 4 }]
window = 3
max_cv = 0.5
max_trend = 0.5
warmup_max_s = 10
precision = 0.5
measure_max_s = 4
"""


def test_the_go_reference_is_profiled_by_its_own_runtime_over_the_window(workdir, database):
    s, run_id = run_plan_on(database, PLAN)
    try:
        assert s.run(run_id)["status"] == "complete"
        assert [o for o in s.outcomes(run_id) if o["status"] != "ok"] == []
        rps = [f for f in s.figures(run_id) if f.metric == "rps" and f.scenario == "steady"]
        assert rps and all("profiled" in f.flags for f in rps)
        [p] = merged.load(s, run_id)
        assert p.target == "go-reference/native" and p.profiler == "Go runtime pprof"
        assert any(frame.startswith("net/http.") for stack in p.cpu for frame in stack)
        assert p.layers_ms["http"] > 0 and p.layers_ms["jdbc"] > 0  # /fruits reads the database through pgx
        assert sum(p.layers_ms.values()) == pytest.approx(p.measured_ms) and p.layers_ms["jit"] == 0
        assert p.alloc and p.notes == []
    finally:
        s.close()
