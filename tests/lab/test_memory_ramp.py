"""memory's ramp, with real processes: a stand-in that exits when a burst of requests reaches it
while cold is measured under load only when the plan ramps up first (as a load generator's
ramp-up phase would), and a repeat without a single response fails the scenario instead of
reading as a figure. Stand-in app only: this tests the lab's sequence, not any framework."""

from __future__ import annotations

import pytest

from tests.conftest import needs_root, write_standin_app
from tests.lab.plan_run import run_plan_on

pytestmark = [needs_root("needs root for cgroups and the DB user"), pytest.mark.standin]

PLAN = """
name = "memory-ramp-test"
apps = ["cold"]
verify = false
scenarios = ["memory"]
repeats = 1
[limits]
memory_mb = 256
[memory]
load_path = "/hello"
load_connections = 8
warmup_s = 1
load_duration_s = 1
ramp_s = {ramp_s}
ramp_connections = 1
"""


@pytest.fixture
def cold_app(tmp_path, workdir, database, monkeypatch):
    root = tmp_path / "apps"
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(root))
    # cold until 10 requests: the ramp's one connection serves them in well under its 2 s even on a
    # busy machine (with 40, a starved stand-in once met the burst still cold), while the burst's 8
    # connections without a ramp overlap on the first requests
    write_standin_app(root, "cold", script="cold_app.py", env={"COLD_REQUESTS": "10", "COLD_CONCURRENCY": "2"})
    return database


def _outcomes(st, run_id):
    return {o["scenario"]: (o["status"], o["reason"]) for o in st.outcomes(run_id) if o["app"] == "cold"}


def test_a_ramp_lets_a_cold_app_take_the_load_it_cannot_take_at_once(cold_app):
    st, run_id = run_plan_on(cold_app, PLAN.format(ramp_s=2))
    try:
        assert _outcomes(st, run_id)["memory"] == ("ok", "")
        [rps] = [f for f in st.figures(run_id) if f.scenario == "memory" and f.metric == "rps"]
        assert rps.value > 0 and "no-responses" not in rps.flags
    finally:
        st.close()


def test_without_the_ramp_the_burst_ends_the_cold_app_and_says_so(cold_app):
    st, run_id = run_plan_on(cold_app, PLAN.format(ramp_s=0))
    try:
        status, reason = _outcomes(st, run_id)["run"]
        assert status == "failed" and "exited with code 3" in reason
        assert not [f for f in st.figures(run_id) if f.scenario == "memory" and f.metric == "rps" and f.value > 0]
    finally:
        st.close()
