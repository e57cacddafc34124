"""Going on with an interrupted or failed run (`perflab run --resume RUN`).

Each planned step that runs to its end is stored with the time it ended (store.add_step). A
resumed run keeps the same run id, plan and method, skips every step that ended, and measures the
rest: so a crash or Ctrl-C costs at most the step it happened in. What the interrupted step had
stored already (everything recorded after the last step that ended), and what a failed app/mode
had stored, is removed first, so that no figure is stored twice. Launch rounds that ended are kept
with their values (the run's rounds and launches in the store), and the remaining ones run in the
same seeded order.

A preparation that ended (Phase.PREPARE, e.g. training an AOT cache) gives the launches still to come
what it left (the trained cache, Scenario.reuse); one that left nothing usable is made again, its
figures replacing the earlier ones.

Refused, with the reason, when the run is complete, when the lab's method changed (the method hash:
plan, machine, JDKs, frameworks, drivers) or when an app's sources changed since the run began.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from perflab import plan as plans
from perflab.apps.building import source_hash
from perflab.errors import LabError
from perflab.scenario import LaunchResult, Phase, Scenario
from perflab.settings import Plan
from perflab.store import Store, method_hash

if TYPE_CHECKING:
    from perflab.targets import Target

# outcomes a run records again for every app/mode as it walks them (not-applicable, unavailable)
REWRITTEN_OUTCOMES = ("skipped", "unavailable")


@dataclass
class Resumed:
    run_id: str
    plan: Plan
    environment: dict
    method: str
    started_at: float
    done: dict[str, float]  # step label -> when it ended


def load(store: Store, ref: str) -> Resumed:
    row = store.run(ref)
    if row is None:
        raise LabError(f"no run {ref!r} in {store.where}", fix="./perflab results list shows the runs")
    if row["status"] == "complete":
        raise LabError(f"run {row['id']} is complete: nothing to resume", fix=f"./perflab report {row['id']}")
    data = json.loads(row["plan_json"])
    if data.get("placement", {}).get("kind") == "kubernetes":
        raise LabError(f"run {row['id']} ran on Kubernetes: only local runs can be resumed")
    done = store.done_steps(row["id"])
    if any(at == 0.0 for at in done.values()):
        raise LabError(f"run {row['id']} was recorded by an older perflab, which did not store when its steps ended",
                       fix=f"run the plan again: ./perflab run {data.get('name', 'PLAN')}")
    plan = plans.validate(data, f"run {row['id']}'s plan")
    return Resumed(row["id"], plan, json.loads(row["environment_json"] or "{}"), row["method_hash"],
                   row["started_at"], done)


def check_sources(resumed: Resumed, targets: list["Target"]) -> None:
    """The apps must be built from the sources the run began with (checked before any build)."""
    recorded = resumed.environment.get("sources")
    if recorded is None:
        raise LabError(f"run {resumed.run_id} did not record its apps' sources, so an unchanged app cannot be told "
                       "from a changed one", fix=f"run the plan again: ./perflab run {resumed.plan.name}")
    for t in targets:
        variant = t.app.for_mode(t.mode)
        if t.unavailable or variant.build_key not in recorded:
            continue
        if source_hash(variant) != recorded[variant.build_key]:
            raise LabError(f"the sources of {variant.build_key} changed since run {resumed.run_id} began: its figures "
                           "and new ones would not be of the same app",
                           fix=f"restore them, or run the plan again: ./perflab run {resumed.plan.name}")


def check_method(resumed: Resumed, plan: Plan, env: dict) -> None:
    """The run's method (plan, machine, JDKs, frameworks, drivers) must be the one it began with."""
    method = method_hash(plan.data, env)
    if method != resumed.method:
        raise LabError(f"the lab's method changed since run {resumed.run_id} began (method {resumed.method}, now "
                       f"{method}: the plan, the machine or a JDK, framework or driver version differs)",
                       fix=f"run the plan again: ./perflab run {resumed.plan.name}")


def reopen(store: Store, resumed: Resumed, targets: list["Target"],
           planned: Callable[["Target"], tuple[set[str], list["Scenario"]]], say: Callable[[str], None]) -> str:
    """Remove what the unfinished steps had stored, and mark the run running again. `planned(t)`: the
    labels of t's own steps and its scenarios in this plan (the runner's planned_parts)."""
    cutoff = max(resumed.done.values(), default=resumed.started_at)
    parts: list[tuple[str, str, str]] = []
    for t in targets:
        # a scenario whose launches all run in the rounds has no step of its own: the rounds' record keeps it
        steps, scenarios = planned(t)
        again = [sc.name for sc in scenarios if sc.phase is not Phase.PREPARE
                 and f"{t.label} {sc.name}" in steps and f"{t.label} {sc.name}" not in resumed.done]
        parts += [(t.app.name, t.mode, name) for name in again]
        if again:
            parts.append((t.app.name, t.mode, "run"))  # a failed app/mode is tried again
    gone = store.forget(resumed.run_id, after=cutoff, parts=parts, outcome_statuses=REWRITTEN_OUTCOMES)
    store.reopen_run(resumed.run_id)
    say(f"resuming run {resumed.run_id}: {len(resumed.done)} finished step(s) kept; {gone} figure(s) of "
        "unfinished steps removed to be measured again")
    return resumed.run_id


def kept_launches(record: dict | None, done: dict[str, float] | set[str]) -> list[dict]:
    """The launches of the rounds that ended before the interruption, from the rounds' record."""
    if not record:
        return []
    return [e for e in record.get("launches", []) if f"round {e['round']}" in done]


def launch_result(entry: dict) -> LaunchResult:
    return LaunchResult(entry.get("value"), tuple(entry.get("intervals", ())), entry.get("before_s", 0.0),
                        entry.get("steady", True))
