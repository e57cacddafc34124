"""The scenarios, in the lab's order. Adding a scenario: write its module (a `SCENARIO`
definition, see perflab.scenario) and add it to the list below; the plan schema, the runner, the
progress estimate, the summary and the report pick it up from here.
"""

from __future__ import annotations

from functools import lru_cache

from perflab.scenario import Phase, Scenario
from perflab.scenarios import (aot, capacity, coldstart, density, devloop, efficiency, footprint, kt2020load, latency,
                               memneeds, memory, scaleup, soak, startup, steady, sweep, write)


@lru_cache(maxsize=1)
def all_scenarios() -> tuple[Scenario, ...]:
    registered = (
        footprint.SCENARIO,
        aot.SCENARIO,
        startup.SCENARIO,
        scaleup.SCENARIO,
        coldstart.SCENARIO,
        steady.SCENARIO,
        memory.SCENARIO,
        sweep.SCENARIO,
        latency.SCENARIO,
        write.SCENARIO,
        density.SCENARIO,
        soak.SCENARIO,
        kt2020load.SCENARIO,
        capacity.SCENARIO,
        efficiency.SCENARIO,
        memneeds.SCENARIO,
        devloop.SCENARIO,
    )
    names = [s.name for s in registered]
    if len(set(names)) != len(names):
        raise RuntimeError(f"two scenarios share a name: {names}")
    return registered


def get(name: str) -> Scenario | None:
    return next((s for s in all_scenarios() if s.name == name), None)


def names() -> list[str]:
    return [s.name for s in all_scenarios()]


def plannable_names() -> list[str]:
    """Scenarios a plan lists (PREPARE scenarios run whenever a mode needs them)."""
    return [s.name for s in all_scenarios() if s.phase is not Phase.PREPARE]


def in_phase(phase: Phase) -> list[Scenario]:
    return [s for s in all_scenarios() if s.phase is phase]
