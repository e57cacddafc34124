"""The Spring Boot 3.x line: spring-boot@3.5.7 is built from the app's sources with its boot3/
overlay and answers every contract case, and the same normalised answers, as the app on its own
Boot 4 version."""

from __future__ import annotations

import os

import pytest

from perflab import apps, contract, postgres, procs
from perflab.apps import version_builds, versions

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root for the DB user")]

BOOT3 = "3.5.7"


def _answers(app, conn, log_path) -> list[contract.Outcome]:
    postgres.load_contract(conn)
    running = apps.launch(app, "jvm", port=procs.free_port(), db_env=conn.app_env(), log_path=log_path)
    try:
        apps.wait_ready(running, timeout=240)
        return contract.run_cases(running.base_url)
    finally:
        running.stop()


def test_spring_boot_3_builds_from_its_overlay_and_keeps_the_contract(database, tmp_path):
    _, conn = database
    own = apps.get("spring-boot")
    boot3 = versions.variant(own, BOOT3).for_mode("jvm")
    assert "spring-boot-starter-web</artifactId>" in (boot3.dir / "pom.xml").read_text()
    version_builds.build(boot3, log=lambda m: None)
    apps.build(own.for_mode("jvm"), log=lambda m: None)

    outcomes = _answers(boot3, conn, tmp_path / "boot3.log")
    problems = [f"{o.case.id}: {p}" for o in outcomes for p in o.problems]
    assert len(outcomes) == len(contract.CASES) and not problems, "\n".join(problems)

    reference = _answers(own.for_mode("jvm"), conn, tmp_path / "boot4.log")
    normalised = {name: {o.case.id: o.normalised for o in found}
                  for name, found in [(boot3.name, outcomes), (own.name, reference)]}
    assert not contract.differences(normalised)
