"""Running a plan: the site gets ready (checks, builds; perflab.sites), the run begins in the store,
then on the site's grounds the builds' own steps, each app/mode's scenarios phase by phase
(perflab.target_run) and the launch rounds (perflab.round_loop), each figure stored as it is
measured. The steps, their order and their estimates are perflab.schedule's: the list the run walks
is the one the progress display counts and `--dry-run` prices.

An app/mode that fails is recorded with its reason and the run goes on; Ctrl-C stops cleanly and
keeps the rest; `--resume` goes on where a run stopped (perflab.resume).
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import replace
from pathlib import Path
from typing import Any

from perflab import apps, doctor, isolate, registry, resume, room, rounds, schedule
from perflab.lab import Lab
from perflab.migrate import open_store
from perflab.progress import Progress, prior_from_history
from perflab.round_loop import RoundsLoop
from perflab.runlock import RunLock
from perflab.scenario import Context, Phase
from perflab.scenarios.footprint import build_mode
from perflab.settings import Plan
from perflab.sites import Ready, open_site
from perflab.store import Store, method_hash
from perflab.target_run import done_before, run_target
from perflab.targets import Target, select_targets


def run_plan(plan: Plan, say=print, apps_root: Path | None = None, resumed: "resume.Resumed | None" = None) -> str:
    """Run a plan end to end; returns the run id (also when interrupted: the run is kept).
    `apps_root`: where the apps are found (a user's own service), else the lab's apps/.
    `resumed`: an interrupted or failed run to go on with (perflab.resume), its finished steps skipped.
    On this machine or, with placement.kind = "kubernetes", with the apps' pods on a cluster: the
    same steps, scenarios and store either way; only the site (perflab.sites) differs."""
    with contextlib.ExitStack() as held:  # the run's lock, held until the run ends
        if resumed is not None:  # refused at once while the run still goes on in another process
            store = held.enter_context(contextlib.closing(open_store()))
            held.enter_context(RunLock(store.run_dir(resumed.run_id), resumed.run_id))
        site = open_site(plan, resumed)
        doctor.ensure(log=say)  # e.g. psql: the lab loads each app's rows into the database itself
        targets = select_targets(plan, apps_root)
        ready = site.prepare(plan, targets, say, apps_root, resumed)
        store = open_store()
        schedule.recall(store, targets)  # Quarkus gets ready in 4 s and Thorntail in 20: the estimates use what was measured
        if resumed is None:
            run_id = store.begin_run(ready.recorded_plan, ready.env)
            held.enter_context(RunLock(store.run_dir(run_id), run_id))
        else:
            run_id = resume.reopen(store, resumed, targets, functools.partial(schedule.planned_parts, plan), say)
        store.set_targets(run_id, target_facts(targets))
        progress = _progress(plan, store, run_id, ready.env, list(ready.builds), targets)
        say(f"run {run_id}: plan {plan.name}{ready.where}, {progress.total} steps")
        _say_conditions(plan, ready.topology, say)

        def measure() -> None:
            with site.grounds(plan, run_id, ready, targets, say) as grounds:
                store.update_environment(run_id, ready.env)
                lab = Lab(store, run_id, plan, ready.topology, grounds.setup, grounds.db, grounds.db_pid, progress,
                          store.run_dir(run_id) / "logs", h2=grounds.h2, placement=grounds.placement,
                          done_steps=set(resumed.done) if resumed else set())
                for warning in grounds.warnings:
                    lab.warn(warning)
                _measure(lab, ready, targets, store.rounds_record(run_id) if resumed else None)

        _guarded(store, run_id, progress, measure, targets)
        return run_id


def _progress(plan: Plan, store: Store, run_id: str, env: dict, build_keys: list[str], targets: list[Target]) -> Progress:
    """The run's steps with their estimates: from earlier complete runs of the same plan and method
    on this machine where there are any (the whole runs' durations set the estimates' scale). Each
    step begins only with room on the work directory's disk (perflab.room)."""
    method = method_hash(plan.data, env)
    earlier = store.step_durations(plan.name, method)
    steps = [replace(s, earlier_s=earlier.get(s.label)) for s in schedule.run_steps(plan, targets, build_keys)]
    return Progress(steps, prior=prior_from_history(steps, store.durations(plan.name, method), store.paces()),
                    record=lambda step, took: store.add_step(run_id, step.label, step.estimate_s, took),
                    before_step=lambda label: room.ensure(store.path.parent, run_id))


def _say_conditions(plan: Plan, topology: isolate.Topology, say) -> None:
    say(f"topology: {topology.description}")
    for reduction in plan["reductions"] + topology.reductions:
        say(f"reduction: {reduction}")


def target_facts(targets: list[Target]) -> list[tuple[str, bool, bool]]:
    """What a report of the run needs of each app/mode's descriptor, stored with the run (a report
    never reads the apps as they are later): its label, whether it runs on a JVM, whether it is its
    app's main mode."""
    return [(t.label, t.app.modes[t.mode].is_jvm if t.mode in t.app.modes else t.mode != "native", t.default_mode)
            for t in targets]


def _measure(lab: Lab, ready: Ready, targets: list[Target], earlier_rounds: dict | None) -> None:
    """The run's steps: builds, each app/mode's own scenarios, then the rounds."""
    _run_builds(lab, ready.builds, ready.variants)
    # several versions of one app/mode, or every app/mode with [steady] open_loop_basis: their open-loop
    # points are offered one rate (steady.open_loop_rate)
    common = lab.plan.settings("steady").open_loop_basis
    lab.open_loop_basis = rounds.open_loop_bases([t.label for t in targets if not t.unavailable], common)
    states = {}
    try:
        for target in targets:
            states[target.label] = run_target(lab, target)
        came_through = [t for t in targets if states.get(t.label) is not None]
        RoundsLoop(lab, came_through, states, earlier_rounds).run()
    finally:
        if lab.open_loop_rates:  # for the reports: what rate every version (or app/mode) was offered, and why
            ready.env["open_loop_common" if common else "open_loop_rates"] = lab.open_loop_rates
            lab.store.update_environment(lab.run_id, ready.env)


def run_status(targets: list[Target], outcomes: list) -> tuple[str, str]:
    """How a run whose steps all ran ends: `complete`, or `failed` with why when not one app/mode
    came through, each failed as a whole (its "run" outcome, recorded when it failed before or
    during its scenarios, or at its first launch in the rounds) or unavailable here. An app/mode
    that failed in one scenario only, or after some launches, came through with partial results:
    the run stays complete. The figures of failed app/modes are kept either way."""
    failed = {f"{o['app']}/{o['mode']}": o["reason"] for o in outcomes
              if o["scenario"] == "run" and o["status"] == "failed"}
    if not targets or any(not t.unavailable and t.label not in failed for t in targets):
        return "complete", ""
    why = [f"{t.label}: {failed[t.label]}" if t.label in failed else f"{t.label}: unavailable: {t.unavailable.removeprefix('unavailable: ')}"
           for t in targets]
    head = "every app/mode failed" if failed else "every app/mode was unavailable"
    return "failed", f"{head}: {'; '.join(why)}"


def _guarded(store: Store, run_id: str, progress: Progress, measure, targets: list[Target]) -> None:
    """Run `measure`; whatever happens, record how the run ended (complete, interrupted by Ctrl-C,
    or failed with the reason, also when every app/mode failed: run_status); the site's grounds
    clean up after themselves (perflab.sites)."""
    status = "complete"
    try:
        measure()
        status, note = run_status(targets, store.outcomes(run_id))
        if status == "failed":
            store.finish_run(run_id, status, note=note[:500])
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except BaseException as exc:
        status = "failed"
        store.finish_run(run_id, status, note=str(exc)[:500])
        raise
    finally:
        progress.close()
        if status != "failed":
            store.finish_run(run_id, status)


def _run_builds(lab: Lab, builds: dict[str, Any], variants: dict[str, apps.App]) -> None:
    for sc in registry.in_phase(Phase.BUILD):
        if sc.name not in lab.plan["scenarios"]:
            continue
        for key, build in builds.items():
            if done_before(lab, f"{key} {sc.name}"):
                continue
            lab.progress.start(f"{key} {sc.name}")
            mode = build_mode(key, variants[key].name)
            ctx = Context(lab, sc, variants[key], mode, lab.plan.settings(sc.name), build=build)
            sc.run(ctx)
            lab.progress.finish()

