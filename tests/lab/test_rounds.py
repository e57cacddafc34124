"""Launch rounds through the runner, with real processes: two stand-in apps, steady's launches and
startup's warm ones interleaved round by round in the stored order, the host-speed canary read on
the app's and the load side's CPUs around every launch, and rounds added to settle a ratio until
the plan's maximum. Stand-in apps only: these test the lab's scheduling, not any framework."""

from __future__ import annotations

import json

import pytest

from perflab import rounds
from tests.conftest import needs_root, write_standin_app
from tests.lab.plan_run import run_plan_on

pytestmark = [needs_root("needs root for cgroups and the DB user"), pytest.mark.standin]

PLAN = """
name = "rounds-test"
apps = ["alpha", "beta"]
verify = false
scenarios = ["startup", "steady"]
repeats = 1
[limits]
memory_mb = 256
[startup]
runs = {runs}
timeout_s = 20
rest_s = 0
[steady]
launches = 2
points = [{{ path = "/hello", connections = 2 }}]
window = 3
# a rule the stand-ins' fixed pace meets within two windows, even on a busy machine: a launch still
# warming up pairs nothing in the rounds, and these tests are about the rounds, not the rule
warmup_max_s = 12
max_cv = 0.5
max_trend = 0.5
max_step = 0.5
max_jit_ms_per_s = 0
precision = 0.5
measure_max_s = 3
timeout_s = 20
[rounds]
seed = {seed}
target = {target}
max_rounds = {max_rounds}
headline = ["alpha/jvm:beta/jvm"]
"""


@pytest.fixture
def two_apps(tmp_path, workdir, database, monkeypatch):
    root = tmp_path / "apps"
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(root))
    for name in ("alpha", "beta"):
        write_standin_app(root, name, delay=0.1)
    return database


def _figures(st, run_id, scenario):
    return sorted((f for f in st.figures(run_id) if f.scenario == scenario), key=lambda f: f.measured_at)


def test_launches_run_round_by_round_in_the_seeded_order_with_the_canary_around_each(two_apps):
    st, run_id = run_plan_on(two_apps, PLAN.format(seed=7, target=0, max_rounds=4, runs=2))
    try:
        record = st.rounds_record(run_id)
        assert record["seed"] == 7 and record["rounds"] == 2 and record["ended"] == rounds.PLANNED
        assert record["orders"] == rounds.orders(7, ["alpha/jvm", "beta/jvm"], 2 + 4)[:2]
        # two apps, two rounds: one block of the balanced design, each app first once
        assert record["design"] == rounds.BALANCED
        assert sorted(record["orders"]) == [["alpha/jvm", "beta/jvm"], ["beta/jvm", "alpha/jvm"]]
        # every launch of round 1 (of both apps) before any launch of round 2, in the stored order
        steady = [(f.app, f.repeat) for f in _figures(st, run_id, "steady") if f.metric == "rps"]
        assert [r for _, r in steady] == [1, 1, 2, 2]
        assert [a for a, r in steady] == [label.split("/")[0] for order in record["orders"] for label in order]
        # startup's warm launch 1 runs in round 1, before round 2's launches
        warm = [f for f in _figures(st, run_id, "startup") if f.metric == "ttfr_ms" and f.point == "warm"]
        assert {(f.app, f.repeat) for f in warm} >= {("alpha", 1), ("beta", 1)}
        round2_start = min(f.measured_at for f in _figures(st, run_id, "steady") if f.repeat == 2)
        assert all(f.measured_at < round2_start for f in warm if f.repeat == 1)
        # the canary: before and after every launch, on the app's CPU and the load side's
        canary = _figures(st, run_id, "canary")
        seen = {(f.app, f.repeat, f.point, f.metric) for f in canary}
        assert seen == {(a, n, when, m) for a in ("alpha", "beta") for n in (1, 2) for when in ("before", "after")
                        for m in ("app_cpu_ms", "app_cache_ms", "load_cpu_ms", "load_cache_ms")}
        assert all(f.value > 0 for f in canary)
        # each launch of the rounds is stored at its place in its round, with the canary's readings around it
        launches = {(e["round"], e["place"]): e for e in record["launches"]}
        assert {k: e["label"] for k, e in launches.items()} == {
            (n, place): label for n, order in enumerate(record["orders"], 1) for place, label in enumerate(order, 1)}
        for f in canary:
            entry = next(e for e in record["launches"] if e["label"] == f"{f.app}/jvm" and e["round"] == f.repeat)
            assert entry["canary"][f.metric][f.point] == f.value
        outcomes = {(o["app"], o["scenario"]): o["status"] for o in st.outcomes(run_id)}
        assert outcomes[("alpha", "steady")] == outcomes[("beta", "steady")] == "ok"
    finally:
        st.close()


def test_rounds_are_added_until_the_maximum_when_the_ratio_cannot_settle(two_apps):
    # the stand-ins answer at one fixed pace (2 connections, 0.1 s a request), so their ratio moves by
    # well under 0.1 % from round to round; an interval within 1e-9 of it is out of reach of any
    # two rounds of measured figures: rounds go on to the maximum
    st, run_id = run_plan_on(two_apps, PLAN.format(seed=3, target=1e-9, max_rounds=3, runs=2))
    try:
        record = st.rounds_record(run_id)
        assert record["rounds"] == 3 and record["ended"] == rounds.MAX_ROUNDS
        steady = [f for f in st.figures(run_id) if f.scenario == "steady" and f.metric == "rps"]
        assert sorted((f.app, f.repeat) for f in steady) == [(a, n) for a in ("alpha", "beta") for n in (1, 2, 3)]
        # the extra round launches steady only: startup keeps its planned warm launch
        warm = [f for f in st.figures(run_id) if f.scenario == "startup" and f.metric == "ttfr_ms" and f.point == "warm"]
        assert max(f.repeat for f in warm) == 1
        [ratio] = record["ratios"]
        assert ratio["interval"]["n"] == 3 and ratio["interval"]["paired"]
    finally:
        st.close()


@pytest.mark.parametrize("target, launches", [(0, 2), (1e-9, 3)])
def test_steady_launches_past_its_own_launches_only_while_the_ratio_is_unsettled(two_apps, target, launches):
    # startup's three warm launches plan three rounds; steady plans two launches and takes part in
    # round 3 only where its ratio is not settled (no target: settled by definition)
    st, run_id = run_plan_on(two_apps, PLAN.format(seed=5, target=target, max_rounds=3, runs=4))
    try:
        record = st.rounds_record(run_id)
        assert record["rounds"] == 3
        steady = [f for f in st.figures(run_id) if f.scenario == "steady" and f.metric == "rps"]
        assert sorted((f.app, f.repeat) for f in steady) == [(a, n) for a in ("alpha", "beta")
                                                            for n in range(1, launches + 1)]
        assert all(e["launched"] == (["startup", "steady"] if e["round"] <= launches else ["startup"])
                   for e in record["launches"])
        reasons = {(o["app"], o["scenario"]): o["reason"] for o in st.outcomes(run_id)}
        assert reasons[("alpha", "steady")] == f"{launches} fresh launches in interleaved rounds"
    finally:
        st.close()


def test_with_an_open_loop_basis_it_launches_first_and_every_app_is_offered_its_rate(two_apps, oha_binary):
    # beta's throughput sets the one open-loop rate: half of it in its first launch, for alpha too,
    # with each app's CPU per request recorded there (its CPU per request at equal load)
    plan = PLAN.format(seed=5, target=0, max_rounds=2, runs=2) \
        .replace("timeout_s = 20\n[rounds]", "timeout_s = 20\nopen_loop_fraction = 0.5\nopen_loop_s = 2\n"
                                               "open_loop_basis = \"beta/jvm\"\n[rounds]")
    st, run_id = run_plan_on(two_apps, plan)
    try:
        record = st.rounds_record(run_id)
        assert record["orders"][0][0] == "beta/jvm"
        assert rounds.orders(5, ["alpha/jvm", "beta/jvm"], 2)[0][0] == "alpha/jvm"  # the seed alone: alpha first
        opened = [f for f in _figures(st, run_id, "steady") if "open loop" in f.point]
        offered = [f for f in opened if f.metric == "offered_rate"]
        assert sorted((f.app, f.repeat) for f in offered) == [(a, n) for a in ("alpha", "beta") for n in (1, 2)]
        basis = offered[0].extra["basis"]
        assert offered[0].app == "beta" and basis["of"] == "beta/jvm" and basis["launch"] == 1
        assert all(f.value == basis["rate"] and f.extra["rate_basis"] == "common basis" for f in offered)
        cpu = [f for f in opened if f.metric == "app_cpu_ms_per_request"]
        assert sorted((f.app, f.repeat) for f in cpu) == [(a, n) for a in ("alpha", "beta") for n in (1, 2)]
        assert all(0 < f.value < 100 and f.unit == "ms" for f in cpu)
        assert json.loads(st.run(run_id)["environment_json"])["open_loop_common"]["beta/jvm"]["rate"] == basis["rate"]
    finally:
        st.close()
