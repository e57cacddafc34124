"""Conformance: every app and mode under apps/ against the contract, black-box over HTTP, on a
real PostgreSQL loaded with the contract's seed; then all of them must give the same normalised
answers.

Modes that cannot run here (no native-image) are left out, and so are AOT-cache modes: they run
the code of their JDK's plain mode, and the lab checks every AOT training instance against the
contract before it measures anything."""

from __future__ import annotations

import time

import pytest

from perflab import apps, contract, postgres, procs

pytestmark = pytest.mark.slow

def _targets() -> list[str]:
    found = []
    for name, app in sorted(apps.discover().items()):
        if app.api != apps.CONTRACT_API:
            continue
        for mode_name, mode in app.modes.items():
            if mode.aot or apps.unavailable(app, mode_name):
                continue
            found.append(f"{name}/{mode_name}")
    return found


TARGETS = _targets()


def _poll_ready(base_url: str, want: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    status = None
    while time.monotonic() < deadline:
        status = apps.http_status(base_url + "/health/ready", timeout=8)  # > the 5 s pool wait
        if status == want:
            return status
        time.sleep(0.25)
    return status


@pytest.fixture(scope="session")
def conformance(database, tmp_path_factory):
    """Runs every app once through all cases; the tests below judge the outcomes."""
    cluster, conn = database
    logs = tmp_path_factory.mktemp("conformance-logs")
    results = {}
    for target in TARGETS:
        name, mode = target.split("/")
        app = apps.get(name).for_mode(mode)
        result = {"outcomes": [], "error": None, "ready_down": None, "ready_back": None}
        results[target] = result
        try:
            apps.build(app)
        except Exception as exc:  # a build failure is this app's failure, not the others'
            result["error"] = f"build failed: {exc}"
            continue
        postgres.load_contract(conn)
        running = apps.launch(app, mode, port=procs.free_port(), db_env=conn.app_env(),
                              log_path=logs / f"{name}-{mode}.log")
        try:
            apps.wait_ready(running, timeout=240)
            result["outcomes"] = contract.run_cases(running.base_url)
            # Readiness must follow the database: down while it is stopped, up once it is back.
            cluster.stop()
            try:
                result["ready_down"] = _poll_ready(running.base_url, 503, timeout=20)
                down_body = contract.request(running.base_url, "GET", "/health/ready")
                result["ready_down_body"] = down_body.body[:200]
            finally:
                cluster.start(port=conn.port)
            result["ready_back"] = _poll_ready(running.base_url, 200, timeout=60)
        except Exception as exc:
            detail = exc.render() if hasattr(exc, "render") else str(exc)
            result["error"] = f"{detail}\n{procs.tail(running.log_path, 30)}"
        finally:
            running.stop()
    return results


@pytest.mark.parametrize("name", TARGETS)
def test_app_answers_every_contract_case(conformance, name):
    result = conformance[name]
    assert result["error"] is None, result["error"]
    assert len(result["outcomes"]) == len(contract.CASES)
    problems = [f"{o.case.id} ({o.case.method} {o.case.path}): {p}" for o in result["outcomes"] for p in o.problems]
    assert not problems, f"{name} deviates from the contract:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", TARGETS)
def test_readiness_follows_the_database(conformance, name):
    result = conformance[name]
    assert result["error"] is None, result["error"]
    assert result["ready_down"] == 503, f"/health/ready answered {result['ready_down']} with the DB stopped"
    assert b'"DOWN"' in result["ready_down_body"]
    assert result["ready_back"] == 200, "/health/ready did not recover after the DB came back"


def test_all_apps_give_the_same_normalised_answers(conformance):
    if len(TARGETS) < 2:
        pytest.skip("only one app")
    by_app = {name: {o.case.id: o.normalised for o in r["outcomes"]} for name, r in conformance.items()
              if r["outcomes"]}
    assert len(by_app) == len(TARGETS), "some app produced no answers (see the tests above)"
    diffs = contract.differences(by_app)
    assert not diffs, "apps answer differently:\n" + "\n".join(diffs)
