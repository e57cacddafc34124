"""The Spring Boot 3.x line: spring-boot@3.5.7 and spring-webflux@3.5.7 are built from the apps'
sources with their boot3/ overlays and answer every contract case, with the same normalised answers
as the apps on their own Boot 4 version; their readiness follows the database, and a path below
/health that names no group gets the JSON error body, as on Boot 4."""

from __future__ import annotations

import time

import pytest

from perflab import apps, contract, postgres, procs, version_builds
from perflab.apps import versions
from tests.conftest import needs_root

pytestmark = [pytest.mark.slow,
              needs_root("needs root for the DB user")]

BOOT3 = "3.5.7"


def _ready_status_within(base_url: str, want: int, seconds: float) -> int | None:
    deadline, status = time.monotonic() + seconds, None
    while time.monotonic() < deadline and status != want:
        status = apps.http_status(base_url + "/health/ready", timeout=8)  # > the 5 s pool wait
        time.sleep(0.25)
    return status


def _answers(app, mode: str, database, log_path, db_cycle: bool = False) -> dict:
    """The contract's outcomes, /health/foo, and with db_cycle readiness with the DB down and back."""
    cluster, conn = database
    postgres.load_contract(conn)
    running = apps.launch(app, mode, port=procs.free_port(), db_env=conn.app_env(), log_path=log_path)
    try:
        apps.wait_ready(running, timeout=240)
        found = {"outcomes": contract.run_cases(running.base_url),
                 "unknown_health": contract.request(running.base_url, "GET", "/health/foo")}
        if db_cycle:
            cluster.stop()
            try:
                found["ready_down"] = _ready_status_within(running.base_url, 503, 20)
            finally:
                cluster.start(port=conn.port)
            found["ready_back"] = _ready_status_within(running.base_url, 200, 60)
        return found
    finally:
        running.stop()


@pytest.mark.parametrize("name", ["spring-boot", "spring-webflux"])
def test_spring_boot_3_builds_from_its_overlay_and_keeps_the_contract(database, tmp_path, name):
    own = apps.get(name)
    mode = next(iter(own.modes))  # the app's main mode
    boot3 = versions.variant(own, BOOT3).for_mode(mode)
    version_builds.build(boot3, log=lambda m: None)
    apps.build(own.for_mode(mode), log=lambda m: None)

    found = _answers(boot3, mode, database, tmp_path / "boot3.log", db_cycle=True)
    outcomes = found["outcomes"]
    problems = [f"{o.case.id}: {p}" for o in outcomes for p in o.problems]
    assert len(outcomes) == len(contract.CASES) and not problems, "\n".join(problems)
    assert (found["ready_down"], found["ready_back"]) == (503, 200)

    reference = _answers(own.for_mode(mode), mode, database, tmp_path / "boot4.log")
    normalised = {name: {o.case.id: o.normalised for o in answers}
                  for name, answers in [(boot3.name, outcomes), (own.name, reference["outcomes"])]}
    assert not contract.differences(normalised)
    boot3_unknown, boot4_unknown = (v["unknown_health"] for v in (found, reference))
    assert (boot3_unknown.status, boot3_unknown.media_type) == (404, "application/json")
    assert (boot3_unknown.status, boot3_unknown.body) == (boot4_unknown.status, boot4_unknown.body)
