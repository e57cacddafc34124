"""The Spring Boot 3.x line: spring-boot@3.5.7 and spring-webflux@3.5.7 are built from the apps'
sources with their boot3/ overlays and answer every contract case, with the same normalised answers
as the apps on their own Boot 4 version."""

from __future__ import annotations

import os

import pytest

from perflab import apps, contract, postgres, procs
from perflab.apps import version_builds, versions

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root for the DB user")]

BOOT3 = "3.5.7"


def _answers(app, mode: str, conn, log_path) -> list[contract.Outcome]:
    postgres.load_contract(conn)
    running = apps.launch(app, mode, port=procs.free_port(), db_env=conn.app_env(), log_path=log_path)
    try:
        apps.wait_ready(running, timeout=240)
        return contract.run_cases(running.base_url)
    finally:
        running.stop()


@pytest.mark.parametrize("name", ["spring-boot", "spring-webflux"])
def test_spring_boot_3_builds_from_its_overlay_and_keeps_the_contract(database, tmp_path, name):
    _, conn = database
    own = apps.get(name)
    mode = next(iter(own.modes))  # the app's main mode
    boot3 = versions.variant(own, BOOT3).for_mode(mode)
    version_builds.build(boot3, log=lambda m: None)
    apps.build(own.for_mode(mode), log=lambda m: None)

    outcomes = _answers(boot3, mode, conn, tmp_path / "boot3.log")
    problems = [f"{o.case.id}: {p}" for o in outcomes for p in o.problems]
    assert len(outcomes) == len(contract.CASES) and not problems, "\n".join(problems)

    reference = _answers(own.for_mode(mode), mode, conn, tmp_path / "boot4.log")
    normalised = {name: {o.case.id: o.normalised for o in found}
                  for name, found in [(boot3.name, outcomes), (own.name, reference)]}
    assert not contract.differences(normalised)
