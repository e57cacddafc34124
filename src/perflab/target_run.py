"""One app/mode's part of a run outside the rounds: its preparation, its own scenarios, and the
instance the ON_LOAD scenarios share, each step skipped when a resumed run finished it before.
An app/mode that fails is recorded with its reason and the run goes on without it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from perflab import api_checks, apps, postgres
from perflab.errors import AppFailed, LabError, RunStopped
from perflab.lab import Lab
from perflab.plan import retarget, validate as validate_plan
from perflab.scenario import Context, Phase, Scenario
from perflab.schedule import LAUNCH, interleaved, not_applicable, not_on_placement, target_scenarios, target_steps
from perflab.settings import Plan
from perflab.targets import Target


def done_before(lab: Lab, label: str) -> bool:
    """A step a resumed run finished before its interruption: counted as done, not run again."""
    if label not in lab.done_steps:
        return False
    lab.progress.finish()
    return True


def prepared_before(lab: Lab, target: Target, sc: Scenario, state: "TargetState") -> bool:
    """A resumed run's preparation that ended before: the launches still to come need its result,
    taken from what it left when the scenario can (sc.reuse), else it runs again, its figures replaced."""
    label = f"{target.label} {sc.name}"
    if label not in lab.done_steps:
        return False
    result = sc.reuse(context(lab, target, sc, state)) if sc.reuse is not None else None
    if result is None:
        lab.store.forget(lab.run_id, after=math.inf, parts=[(target.app.name, target.mode, sc.name)])
        return False
    if result:
        lab.mode_opts[(target.app.name, target.mode)] = list(result)
    state.results[sc.name] = result
    return done_before(lab, label)


def _skip_done(lab: Lab, target: Target, sc: Scenario, state: "TargetState") -> bool:
    """A scenario's step that ended before a resume: not run again; its result, which a later
    scenario may read (latency the sweep's), taken from what it stored where the scenario can."""
    if not done_before(lab, f"{target.label} {sc.name}"):
        return False
    if sc.reuse is not None:
        state.results[sc.name] = sc.reuse(context(lab, target, sc, state))
    return True


def run_target(lab: Lab, target: Target) -> "TargetState | None":
    """Everything of one app/mode outside the rounds; returns its state for the rounds (None when it
    is unavailable or failed)."""
    app, mode = target.app, target.mode
    steps = target_steps(lab.plan, target)
    done_before = lab.progress.done
    scenarios = target_scenarios(lab.plan, target)
    measured = [sc.name for sc in scenarios if sc.phase is not Phase.PREPARE]
    try:
        if target.unavailable:
            reason = target.unavailable.removeprefix("unavailable: ")
            lab.warn(f"{target.label}: not measured, unavailable: {reason}")
            for name in measured:
                lab.outcome(app.name, mode, name, "unavailable", reason, quiet=True)
            return None
        for sc in not_applicable(lab.plan, target):
            lab.outcome(app.name, mode, sc.name, "skipped", sc.applies_why or "does not apply to this app")
        kind = lab.plan["placement"]["kind"]
        for sc in not_on_placement(lab.plan, target):
            lab.outcome(app.name, mode, sc.name, "unavailable", f"on {kind}: {sc.why_not_on(kind)}", quiet=True)
        for name, where in target.elsewhere.items():
            if name in lab.plan.scenarios_for(mode, target.default_mode):
                lab.outcome(app.name, mode, name, "skipped", f"runs on {where} only (the plan's run_on)", quiet=True)
        use_database(lab, app)
        state = TargetState(verified=not lab.plan["verify"], plan=plan_for(lab.plan, app))
        on_load = [s for s in scenarios if s.phase is Phase.ON_LOAD]
        for sc in scenarios:
            if sc.phase is Phase.ON_LOAD or (sc.rounds_only and interleaved(lab.plan)):
                continue  # on the load instance, below; or launch by launch in the rounds
            if sc.phase is Phase.OWN_AFTER and state.load_pending:
                _on_load_instance(lab, target, on_load, state)
            if sc.phase is Phase.PREPARE and prepared_before(lab, target, sc, state):
                continue
            if sc.phase is not Phase.PREPARE and _skip_done(lab, target, sc, state):
                continue
            _run_scenario(lab, target, sc, state)
        if state.load_pending:
            _on_load_instance(lab, target, on_load, state)
        return state
    except RunStopped:  # not this app/mode's failure: the whole run stops
        raise
    except (AppFailed, LabError, OSError, RuntimeError, ValueError) as exc:
        # one app/mode failing (or a fault of the lab's own in one scenario) must not cost the
        # rest of the run: record it and go on
        reason = str(exc) if isinstance(exc, AppFailed) else (
            exc.message if isinstance(exc, LabError) else f"{type(exc).__name__}: {exc}")
        lab.outcome(app.name, mode, "run", "failed", reason)
        for name in measured:
            lab.outcome(app.name, mode, name, "not-measured", f"the app/mode failed: {reason}", quiet=True)
        return None
    finally:
        left = len(steps) - (lab.progress.done - done_before)
        if left > 0:  # the app/mode failed: its step in progress did not run its whole course
            lab.progress.finish(skipped=left - 1, cut_short=True)


def use_database(lab: Lab, app: apps.App) -> None:
    """The app's database, freshly loaded, and the lab told whose database's CPU to read."""
    prepare_database(lab, app)
    lab.db_in_use = app.db_server
    if app.db_server == "h2":
        lab.h2.seed()


def prepare_database(lab: Lab, app: apps.App) -> None:
    """The app's database, fresh for each app/mode: its own (perflab_<app>, with its schema and
    seed) when its descriptor brings one, else the contract's schema and seed. An app on H2 uses
    nothing of PostgreSQL's: its table is reloaded in H2 (see use_database)."""
    if app.db_server == "h2":
        return
    if app.database is None:
        postgres.load_contract(lab.db)
        return
    files = [("database.schema", f) for f in app.database.schema] + [("database.seed", f) for f in app.database.seed]
    lab.app_dbs[app.name] = postgres.create_app_database(lab.db, app.name, files)


def plan_for(plan: Plan, app: apps.App) -> Plan:
    """The plan as an app runs it: an app with a load_path of its own has every loaded path set to it."""
    if not app.load_path:
        return plan
    return validate_plan(retarget(plan.data, app.load_path), f"{plan.source} (paths of {app.name})")


@dataclass
class TargetState:
    """What an app/mode's run carries from scenario to scenario, and into the rounds."""

    verified: bool
    plan: Plan  # the plan as this app runs it (see plan_for)
    results: dict[str, Any] = field(default_factory=dict)  # what each scenario returned, for later ones
    load_pending: bool = True


def context(lab: Lab, target: Target, sc: Scenario, state: TargetState, **more) -> Context:
    """What scenario `sc` gets for this app/mode: its settings as the app runs the plan, and the
    results of the earlier scenarios it needs."""
    given = {name: state.results[name] for name in sc.needs if name in state.results}
    return Context(lab, sc, target.app, target.mode, state.plan.settings(sc.name), results=given,
                   rounds=sc.launch is not None and interleaved(lab.plan), **more)


def _run_scenario(lab: Lab, target: Target, sc: Scenario, state: TargetState) -> None:
    lab.progress.start(f"{target.label} {sc.name}")
    unable = lab.placement.unable(sc.name)
    if unable:  # e.g. cold start on a cluster without Knative
        lab.outcome(target.app.name, target.mode, sc.name, "unavailable", unable)
        lab.progress.finish()
        return
    verify = sc.verifies_contract and not state.verified
    result = sc.run(context(lab, target, sc, state, verify=verify))
    if verify:
        state.verified = True
    if sc.phase is Phase.PREPARE and result:
        lab.mode_opts[(target.app.name, target.mode)] = list(result)  # e.g. a trained AOT cache
    state.results[sc.name] = result
    lab.progress.finish()


def _on_load_instance(lab: Lab, target: Target, scenarios: list[Scenario], state: TargetState) -> None:
    """One long-lived instance, launched and verified once, shared by the ON_LOAD scenarios."""
    state.load_pending = False
    if not scenarios:
        return
    if all(f"{target.label} {sc.name}" in lab.done_steps for sc in scenarios):  # a resumed run: all done before
        lab.progress.finish()  # its launch step
        for sc in scenarios:
            _skip_done(lab, target, sc, state)
        return
    app, mode = target.app, target.mode
    lab.progress.start(f"{target.label} {LAUNCH}")
    inst = lab.placement.instance(lab.spec(app, mode), tag="load").start()
    try:
        inst.wait_until_ready(lab.plan.settings("startup").timeout_s)
        if not state.verified:
            problems = api_checks.verify(app, inst.base_url)
            if problems:
                raise AppFailed(f"failed the {api_checks.name(app)} before measuring: " + "; ".join(problems[:5]))
            state.verified = True
        lab.progress.finish()
        for sc in scenarios:
            if _skip_done(lab, target, sc, state):
                continue
            lab.progress.start(f"{target.label} {sc.name}")
            try:
                state.results[sc.name] = sc.run(context(lab, target, sc, state, inst=inst))
            except (RuntimeError, OSError, ValueError) as exc:
                reason = inst.end_reason() or str(exc)
                lab.outcome(app.name, mode, sc.name, "failed", reason)
                if inst.exited() is not None:
                    raise AppFailed(reason) from exc
            lab.progress.finish()
    finally:
        series = inst.stop()
        if series is not None:
            path = lab.store.run_dir(lab.run_id) / f"{app.name}-{mode}" / "samples-load-instance.csv"
            path.parent.mkdir(parents=True, exist_ok=True)
            series.write_csv(path, origin_ns=inst.spawn_ns)
            lab.store.register_file(lab.run_id, app.name, mode, "memory", "samples", path)


