"""Running a plan: build -> provision (DB, limits, topology) -> per app and mode, the planned
scenarios phase by phase (see perflab.scenario.Phase) -> store. The scenarios and their order come
from the registry; the progress steps and their estimates come from the same list the run walks,
so the two cannot drift apart.

Figures are stored as they are measured; an app/mode that fails is recorded with its reason and
the run goes on; Ctrl-C stops cleanly and keeps the rest.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from perflab import (api_checks, apps, doctor, environment, h2, headline, isolate, postgres, preflight, registry,
                     resume, rounds, run_history, signals, version_builds)
from perflab.analysis import host_speed, ratios_ci, stats
from perflab.errors import AppFailed, LabError
from perflab.lab import Lab
from perflab.migrate import open_store
from perflab.placements import LOCAL
from perflab.plan import retarget, validate as validate_plan
from perflab.probes import canary
from perflab.progress import Progress, Step, prior_from_history
from perflab.runlock import RunLock
from perflab.scenario import Context, Estimate, LaunchResult, Phase, Scenario
from perflab.scenarios.footprint import build_mode
from perflab.settings import Plan
from perflab.store import Point, Store, method_hash
from perflab.targets import Target, select_targets

LAUNCH = "launch + verify"  # the step that starts the shared load instance


def target_scenarios(plan: Plan, target: Target) -> list[Scenario]:
    """What runs for an app/mode, in the order it runs: its PREPARE scenarios when the mode needs
    them, then the planned ones phase by phase (BUILD scenarios run per build, not here)."""
    planned = set(plan.scenarios_for(target.mode, target.default_mode)) - set(target.elsewhere)
    order = [Phase.PREPARE, Phase.OWN_BEFORE, Phase.ON_LOAD, Phase.OWN_AFTER]
    out = []
    for phase in order:
        for sc in registry.in_phase(phase):
            if sc.why_not_on(plan["placement"]["kind"]):
                continue  # recorded as unavailable there, with the scenario's reason (not_on_placement)
            if phase is Phase.PREPARE:
                if sc.applies is not None and sc.applies(target.app, target.mode):
                    out.append(sc)
            elif sc.name in planned and (sc.applies is None or sc.applies(target.app, target.mode)):
                out.append(sc)
    return out


def not_on_placement(plan: Plan, target: Target) -> list[Scenario]:
    """Planned scenarios the plan's placement cannot run (each declares why: Scenario.not_on)."""
    planned = set(plan.scenarios_for(target.mode, target.default_mode))
    return [sc for sc in registry.all_scenarios() if sc.name in planned
            and sc.why_not_on(plan["placement"]["kind"])]


def not_applicable(plan: Plan, target: Target) -> list[Scenario]:
    """Planned scenarios that do not apply to this app/mode (e.g. ones that send the contract's
    requests, for an app with an API of its own)."""
    planned = set(plan.scenarios_for(target.mode, target.default_mode))
    return [sc for sc in registry.all_scenarios() if sc.name in planned and sc.phase is not Phase.PREPARE
            and sc.applies is not None and not sc.applies(target.app, target.mode)]


def recall(store: Store, targets: list[Target]) -> None:
    """What earlier runs here measured of each app/mode that the estimates use: a launch's time to
    ready, its time to steady state per point, its RSS at rest."""
    for t in targets:
        t.ready_s = store.typical_ready_s(t.app.name, t.mode)
        t.steady_s = store.typical_steady_s(t.app.name, t.mode)
        t.rest_mb = store.typical_rest_mb(t.app.name, t.mode)


def _estimate_start_s(target: Target) -> float:
    """A launch's time, for the estimates: as earlier runs here measured it, else a JVM's typical one."""
    if target.ready_s is not None:
        return target.ready_s
    return 12.0 if target.app.modes[target.mode].is_jvm else 1.0


def interleaved(plan: Plan) -> bool:
    return plan["rounds"]["interleave"]


def round_scenarios(plan: Plan, target: Target) -> list[Scenario]:
    """The scenarios whose launches run in the rounds for this app/mode (none when not interleaving)."""
    if not interleaved(plan) or target.unavailable:
        return []
    return [sc for sc in target_scenarios(plan, target)
            if sc.launch is not None and sc.planned_launches(plan.settings(sc.name)) > 0]


def _estimate(plan: Plan, target: Target, sc: Scenario) -> Estimate:
    return Estimate(plan.settings(sc.name), plan.repeats, _estimate_start_s(target),
                    target.app.modes[target.mode].is_jvm, target.app, target.steady_s, target.rest_mb,
                    start_measured=target.ready_s is not None)


def launch_estimate_s(plan: Plan, target: Target, sc: Scenario) -> float:
    """One launch of a rounds scenario: its whole estimate over its planned launches."""
    return sc.estimate_s(_estimate(plan, target, sc)) / max(1, sc.planned_launches(plan.settings(sc.name)))


def planned_rounds(plan: Plan, targets: list[Target]) -> int:
    return max((sc.planned_launches(plan.settings(sc.name)) for t in targets for sc in round_scenarios(plan, t)),
               default=0)


def round_steps(plan: Plan, targets: list[Target], first: int, last: int) -> list[Step]:
    """The planned rounds' steps. With a precision target, a headline app/mode's steady launches in
    every planned round until its ratios settle (_takes_part): counted in each, the estimate is the
    unsettled case, and the run takes those launches out of the rounds left once they settle
    (_settled_out_of_round)."""
    chasing = set(chasing_labels(plan, targets))
    steps = []
    for n in range(first, last + 1):
        launches = [(t, sc) for t in targets for sc in round_scenarios(plan, t) if _takes_part(plan, sc, n, t.label in chasing)]
        steps.append(Step(f"round {n}", sum(launch_estimate_s(plan, t, sc) for t, sc in launches),
                          measured=bool(launches) and all(_launch_measured(plan, t, sc) for t, sc in launches)))
    return steps


def _launch_measured(plan: Plan, target: Target, sc: Scenario) -> bool:
    return sc.estimate_measured is not None and sc.estimate_measured(_estimate(plan, target, sc))


def launches_in_rounds(plan: Plan, targets: list[Target], target: Target) -> int:
    """The launches `target`'s rounds scenarios make in the planned rounds, as the estimate counts them."""
    chasing = target.label in chasing_labels(plan, targets)
    return sum(1 for n in range(1, planned_rounds(plan, targets) + 1) for sc in round_scenarios(plan, target)
               if _takes_part(plan, sc, n, chasing))


def chases_precision(plan: Plan, targets: list[Target]) -> bool:
    """Whether steady launches in every planned round until its ratios settle (the estimate's case)."""
    return bool(chasing_labels(plan, targets)) and any(sc.rounds_only for t in targets for sc in round_scenarios(plan, t))


def chasing_labels(plan: Plan, targets: list[Target]) -> list[str]:
    """The app/modes of the headline ratios a precision target asks to settle (none without a target)."""
    cfg = plan.settings("rounds")
    if cfg.target <= 0:
        return []
    able = [t for t in targets if not t.unavailable]
    try:
        pairs = headline.pairs(cfg.headline, [(t.label, t.app.modes[t.mode].is_jvm, t.default_mode) for t in able])
    except ValueError:  # a named pair with an app/mode unavailable here: the rounds say so when they start
        return []
    return [label for p in pairs for label in (p.numerator, p.denominator)]


def target_steps(plan: Plan, target: Target) -> list[Step]:
    label = target.label
    if target.unavailable:
        return [Step(f"{label} unavailable", 0)]
    start = _estimate_start_s(target)
    steps = []
    for sc in target_scenarios(plan, target):
        if sc.rounds_only and interleaved(plan):
            continue
        if sc.phase is Phase.ON_LOAD and not any(s.label == f"{label} {LAUNCH}" for s in steps):
            steps.append(Step(f"{label} {LAUNCH}", start + 2))
        seconds = sc.estimate_s(_estimate(plan, target, sc))
        if sc in round_scenarios(plan, target):  # only what runs outside the rounds
            seconds -= launch_estimate_s(plan, target, sc) * sc.planned_launches(plan.settings(sc.name))
        steps.append(Step(f"{label} {sc.name}", round(max(0.0, seconds), 6)))  # no float residue of the subtraction
    return steps


def planned_parts(plan: Plan, target: Target) -> tuple[set[str], list[Scenario]]:
    """The labels of a target's own steps and its scenarios in this plan (what a resumed run checks
    against the steps it finished)."""
    return {s.label for s in target_steps(plan, target)}, target_scenarios(plan, target)


def build_steps(plan: Plan, build_keys: list[str]) -> list[Step]:
    steps = []
    for sc in registry.in_phase(Phase.BUILD):
        if sc.name in plan["scenarios"]:
            steps += [Step(f"{key} {sc.name}", sc.estimate_s(Estimate(plan.settings(sc.name), plan.repeats, 0)))
                      for key in build_keys]
    return steps


@contextlib.contextmanager
def provision_db(run_id: str, topology: isolate.Topology, setup: isolate.CgroupSetup, say,
                 statement_stats: bool = False):
    """The lab's database: the one already running (left as it is), or a private one started for
    this run on the DB's CPUs (stopped at the end), counting SQL statements only when
    `statement_stats` (a profiling run: counting costs throughput, see postgres.STATEMENT_STATS_ENV)."""
    cluster = postgres.Cluster()
    if cluster.status().get("running"):
        conn = cluster.connection()
        say(f"using the running database {conn.display_url} (not pinned: it was started outside this run)")
        yield conn, cluster.server_pid(), "already running; not pinned"
        return
    group = isolate.Cgroup(run_id, "db", isolate.Limits(cpus=topology.db), setup=setup)
    try:
        conn = cluster.start(preexec=group.preexec, statement_stats=statement_stats)
        try:
            yield conn, cluster.server_pid(), f"private, CPUs {topology.db}"
        finally:
            with signals.shielded():
                cluster.stop(quiet=True)
    finally:
        with signals.shielded():
            group.close()


@contextlib.contextmanager
def provision_h2(run_id: str, targets: list[Target], topology: isolate.Topology, setup: isolate.CgroupSetup, say):
    """A private H2 over TCP on the DB's CPUs when an app of the plan uses one (db_server = "h2"),
    else None; stopped and its folder removed at the end, also on Ctrl-C."""
    users = [t.label for t in targets if not t.unavailable and t.app.db_server == "h2"]
    if not users:
        yield None
        return
    group = isolate.Cgroup(run_id, "h2", isolate.Limits(cpus=topology.db), setup=setup)
    server = h2.Server(log=say)
    try:
        conn = server.start(preexec=group.preexec)
        say(f"H2 {h2.H2_VERSION} over TCP at {conn.jdbc_url} (CPUs {topology.db}) for {', '.join(users)}")
        yield server
    finally:
        with signals.shielded():
            server.stop()
            group.close()


def _topology(plan: Plan) -> isolate.Topology:
    lim, topo = plan["limits"], plan["topology"]
    if not topo["app_cpus"]:
        return isolate.plan_topology(app_cpus=lim["cpus"])
    return isolate.Topology(app=topo["app_cpus"], db=topo["db_cpus"] or topo["app_cpus"],
                            driver=topo["driver_cpus"] or topo["app_cpus"], app_exclusive=False,
                            shared=[], reductions=[], description="set by the plan")


def _planned_anywhere(plan: Plan, targets: list[Target]) -> list[Scenario]:
    used = {sc.name for t in targets if not t.unavailable for sc in target_scenarios(plan, t)}
    return [sc for sc in registry.all_scenarios() if sc.name in used]


def run_plan(plan: Plan, say=print, apps_root: Path | None = None, resumed: "resume.Resumed | None" = None) -> str:
    """Run a plan end to end; returns the run id (also when interrupted: the run is kept).
    `apps_root`: where the apps are found (a user's own service), else the lab's apps/.
    `resumed`: an interrupted or failed run to go on with (perflab.resume), its finished steps skipped.
    On this machine or, with placement.kind = "kubernetes", with the apps' pods on a cluster: the
    same steps, scenarios and store either way; only where instances run and load comes from differ."""
    with contextlib.ExitStack() as held:  # the run's lock, held until the run ends
        if resumed is not None:  # refused at once while the run still goes on in another process
            store = held.enter_context(contextlib.closing(open_store()))
            held.enter_context(RunLock(store.run_dir(resumed.run_id), resumed.run_id))
        if plan["placement"]["kind"] == "kubernetes":
            if resumed is not None:
                raise LabError("--resume goes on with runs on this machine only; a run on a cluster starts again",
                               fix=f"./perflab run {plan.source}")
            return _run_on_cluster(plan, say, apps_root, held)
        return _run_local(plan, say, apps_root, resumed, held)


def _run_local(plan: Plan, say, apps_root: Path | None, resumed: "resume.Resumed | None",
               held: contextlib.ExitStack) -> str:
    doctor.ensure(log=say)
    targets = select_targets(plan, apps_root)
    setup = isolate.detect_cgroups()
    isolate.cleanup_stale(setup)
    topology = _topology(plan)
    used_jdks = preflight.check(plan, targets, setup, say)  # before any build or download: stop now, not later
    if resumed is not None:
        resume.check_sources(resumed, targets)

    for sc in _planned_anywhere(plan, targets):
        if sc.setup is not None:  # tools and references a scenario needs, before anything is launched
            sc.setup(plan.settings(sc.name), say)
    frameworks = {t.app.name: f"{t.app.framework} {t.app.framework_version}" for t in targets}
    env = environment.for_run(frameworks, setup, topology, used_jdks)
    if resumed is not None:  # a changed lab is refused now, before the builds
        resume.check_method(resumed, plan, env)
    builds: dict[str, Any] = {}
    variants: dict[str, apps.App] = {}
    unbuilt: dict[str, str] = {}  # versions that do not build here: recorded, and the plan goes on
    for t in targets:
        variant = t.app.for_mode(t.mode)
        t.unavailable = t.unavailable or unbuilt.get(variant.build_key, "")
        if not t.unavailable and variant.build_key not in builds:
            try:
                builds[variant.build_key] = version_builds.build(variant, log=say)
                variants[variant.build_key] = variant
            except version_builds.Unavailable as exc:
                t.unavailable = unbuilt[variant.build_key] = str(exc)
                say(f"unavailable: {exc}")

    env["sources"] = {key: build.hash for key, build in builds.items()}  # a resumed run must find them unchanged
    env.update(version_builds.what_was_built(builds, variants))  # what else changed with a version: its libraries
    store = open_store()
    recall(store, targets)  # Quarkus gets ready in 4 s and Thorntail in 20: the estimates use what was measured
    if resumed is None:
        run_id = store.begin_run(plan.data, env)
        held.enter_context(RunLock(store.run_dir(run_id), run_id))
    else:
        run_id = resume.reopen(store, resumed, targets, functools.partial(planned_parts, plan), say)
    store.set_targets(run_id, target_facts(targets))
    progress = _progress(plan, store, run_id, env, list(builds), targets)
    say(f"run {run_id}: plan {plan.name}, {len(targets)} app/mode(s), {progress.total} steps")
    _say_conditions(plan, topology, say)
    # The lab's own polling and sampling run on the driver's CPUs, never on the app's.
    own_affinity = os.sched_getaffinity(0)
    os.sched_setaffinity(0, topology.driver)

    def measure() -> None:
        with provision_db(run_id, topology, setup, say, statement_stats=bool(plan.settings("profile").enabled)) \
                as (conn, db_pid, db_placement), \
                provision_h2(run_id, targets, topology, setup, say) as h2_server:
            env["db_placement"] = db_placement
            if h2_server is not None:
                env["h2"] = f"H2 {h2.H2_VERSION} over TCP, private, CPUs {topology.db}"
            store.update_environment(run_id, env)
            lab = Lab(store, run_id, plan, topology, setup, conn, db_pid, progress, store.run_dir(run_id) / "logs",
                      h2=h2_server, done_steps=set(resumed.done) if resumed else set())
            if not setup.usable:
                lab.warn(f"limits not enforced: {setup.reason} (CPU affinity only)")
            _measure(lab, builds, variants, targets, env, store.rounds_record(run_id) if resumed else None)

    def cleanup() -> None:
        os.sched_setaffinity(0, own_affinity)
        isolate.cleanup_stale(setup)

    _guarded(store, run_id, progress, measure, cleanup, targets)
    return run_id


def _run_on_cluster(plan: Plan, say, apps_root: Path | None, held: contextlib.ExitStack) -> str:
    from perflab.kube import site  # loads the kubernetes client: only for a run on a cluster

    doctor.ensure(log=say)  # psql: the lab loads each app's rows into the database itself
    targets = select_targets(plan, apps_root)
    prep = site.prepare_run(plan, targets, say, apps_root)  # the cluster, the images (made now when asked), a dry run
    env = environment.capture(frameworks={t.app.name: f"{t.app.framework} {t.app.framework_version}" for t in targets})
    env["placement"], env["topology"] = prep.environment, prep.topology.as_dict()
    store = open_store()
    recall(store, targets)
    run_id = store.begin_run(site.recorded_plan(plan.data), env)
    held.enter_context(RunLock(store.run_dir(run_id), run_id))
    store.set_targets(run_id, target_facts(targets))
    progress = _progress(plan, store, run_id, env, [], targets)
    say(f"run {run_id}: plan {plan.name} on kube context {env['placement']['context']} "
        f"({env['placement']['version']}, {len(env['placement']['nodes'])} node(s)), {progress.total} steps")
    _say_conditions(plan, prep.topology, say)

    def measure() -> None:
        with site.grounds(prep, plan, run_id, say) as grounds:
            lab = Lab(store, run_id, plan, prep.topology, None, grounds.db, None, progress,
                      store.run_dir(run_id) / "logs", placement=grounds.placement)
            _measure(lab, {}, {}, targets, env, None)

    _guarded(store, run_id, progress, measure, lambda: None, targets)
    return run_id


def _progress(plan: Plan, store: Store, run_id: str, env: dict, build_keys: list[str], targets: list[Target]) -> Progress:
    """The run's steps with their estimates: from earlier complete runs of the same plan and method
    on this machine where there are any (the whole runs' durations set the estimates' scale)."""
    method = method_hash(plan.data, env)
    earlier = store.step_durations(plan.name, method)
    steps = [replace(s, earlier_s=earlier.get(s.label))
             for s in build_steps(plan, build_keys) + [s for t in targets for s in target_steps(plan, t)]
             + round_steps(plan, targets, 1, planned_rounds(plan, targets))]
    return Progress(steps, prior=prior_from_history(steps, store.durations(plan.name, method), store.paces()),
                    record=lambda step, took: store.add_step(run_id, step.label, step.estimate_s, took))


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


def _measure(lab: Lab, builds: dict[str, Any], variants: dict[str, apps.App], targets: list[Target], env: dict,
             earlier_rounds: dict | None) -> None:
    """The run's steps: builds, each app/mode's own scenarios, then the rounds."""
    _run_builds(lab, builds, variants)
    # several versions of one app/mode: their open-loop points are offered one rate (steady.open_loop_rate)
    lab.open_loop_basis = rounds.oldest_versions([t.label for t in targets if not t.unavailable])
    states = {}
    try:
        for target in targets:
            states[target.label] = _run_target(lab, target)
        _run_rounds(lab, [t for t in targets if states.get(t.label) is not None], states, earlier_rounds)
    finally:
        if lab.open_loop_rates:  # for the report by version: what rate every version was offered, and why
            env["open_loop_rates"] = lab.open_loop_rates
            lab.store.update_environment(lab.run_id, env)


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


def _guarded(store: Store, run_id: str, progress: Progress, measure, cleanup, targets: list[Target]) -> None:
    """Run `measure`; whatever happens, record how the run ended (complete, interrupted by Ctrl-C,
    or failed with the reason, also when every app/mode failed: run_status) and clean up."""
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
        try:
            progress.close()
            if status != "failed":
                store.finish_run(run_id, status)
        finally:
            with signals.shielded():
                cleanup()


def _run_builds(lab: Lab, builds: dict[str, Any], variants: dict[str, apps.App]) -> None:
    for sc in registry.in_phase(Phase.BUILD):
        if sc.name not in lab.plan["scenarios"]:
            continue
        for key, build in builds.items():
            if _done_before(lab, f"{key} {sc.name}"):
                continue
            lab.progress.start(f"{key} {sc.name}")
            mode = build_mode(key, variants[key].name)
            ctx = Context(lab, sc, variants[key], mode, lab.plan.settings(sc.name), build=build)
            sc.run(ctx)
            lab.progress.finish()


def _done_before(lab: Lab, label: str) -> bool:
    """A step a resumed run finished before its interruption: counted as done, not run again."""
    if label not in lab.done_steps:
        return False
    lab.progress.finish()
    return True


def _prepared_before(lab: Lab, target: Target, sc: Scenario, state: "_TargetState") -> bool:
    """A resumed run's preparation that ended before: the launches still to come need its result,
    taken from what it left when the scenario can (sc.reuse), else it runs again, its figures replaced."""
    label = f"{target.label} {sc.name}"
    if label not in lab.done_steps:
        return False
    result = sc.reuse(_context(lab, target, sc, state)) if sc.reuse is not None else None
    if result is None:
        lab.store.forget(lab.run_id, after=math.inf, parts=[(target.app.name, target.mode, sc.name)])
        return False
    if result:
        lab.mode_opts[(target.app.name, target.mode)] = list(result)
    state.results[sc.name] = result
    return _done_before(lab, label)


def _skip_done(lab: Lab, target: Target, sc: Scenario, state: "_TargetState") -> bool:
    """A scenario's step that ended before a resume: not run again; its result, which a later
    scenario may read (latency the sweep's), taken from what it stored where the scenario can."""
    if not _done_before(lab, f"{target.label} {sc.name}"):
        return False
    if sc.reuse is not None:
        state.results[sc.name] = sc.reuse(_context(lab, target, sc, state))
    return True


def _run_target(lab: Lab, target: Target) -> "_TargetState | None":
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
        _use_database(lab, app)
        state = _TargetState(verified=not lab.plan["verify"], plan=plan_for(lab.plan, app))
        on_load = [s for s in scenarios if s.phase is Phase.ON_LOAD]
        for sc in scenarios:
            if sc.phase is Phase.ON_LOAD or (sc.rounds_only and interleaved(lab.plan)):
                continue  # on the load instance, below; or launch by launch in the rounds
            if sc.phase is Phase.OWN_AFTER and state.load_pending:
                _on_load_instance(lab, target, on_load, state)
            if sc.phase is Phase.PREPARE and _prepared_before(lab, target, sc, state):
                continue
            if sc.phase is not Phase.PREPARE and _skip_done(lab, target, sc, state):
                continue
            _run_scenario(lab, target, sc, state)
        if state.load_pending:
            _on_load_instance(lab, target, on_load, state)
        return state
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


def _use_database(lab: Lab, app: apps.App) -> None:
    """The app's database, freshly loaded, and the lab told whose database's CPU to read."""
    _prepare_database(lab, app)
    lab.db_in_use = app.db_server
    if app.db_server == "h2":
        lab.h2.seed()


def _prepare_database(lab: Lab, app: apps.App) -> None:
    """The app's database, fresh for each app/mode: its own (perflab_<app>, with its schema and
    seed) when its descriptor brings one, else the contract's schema and seed. An app on H2 uses
    nothing of PostgreSQL's: its table is reloaded in H2 (see _run_target)."""
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
class _TargetState:
    verified: bool
    plan: Plan  # the plan as this app runs it (see plan_for)
    results: dict[str, Any] = field(default_factory=dict)  # what each scenario returned, for later ones
    load_pending: bool = True


def _context(lab: Lab, target: Target, sc: Scenario, state: _TargetState, **more) -> Context:
    given = {name: state.results[name] for name in sc.needs if name in state.results}
    return Context(lab, sc, target.app, target.mode, state.plan.settings(sc.name), results=given,
                   rounds=sc.launch is not None and interleaved(lab.plan), **more)


def _run_scenario(lab: Lab, target: Target, sc: Scenario, state: _TargetState) -> None:
    lab.progress.start(f"{target.label} {sc.name}")
    unable = lab.placement.unable(sc.name)
    if unable:  # e.g. cold start on a cluster without Knative
        lab.outcome(target.app.name, target.mode, sc.name, "unavailable", unable)
        lab.progress.finish()
        return
    verify = sc.verifies_contract and not state.verified
    result = sc.run(_context(lab, target, sc, state, verify=verify))
    if verify:
        state.verified = True
    if sc.phase is Phase.PREPARE and result:
        lab.mode_opts[(target.app.name, target.mode)] = list(result)  # e.g. a trained AOT cache
    state.results[sc.name] = result
    lab.progress.finish()


def _on_load_instance(lab: Lab, target: Target, scenarios: list[Scenario], state: _TargetState) -> None:
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
                state.results[sc.name] = sc.run(_context(lab, target, sc, state, inst=inst))
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


# --- rounds -----------------------------------------------------------------------------------


def _canary(lab: Lab, target: Target, n: int, when: str, readings: dict) -> None:
    """The host's speed on the app's CPU and on the load side's, stored per launch as figures and
    in `readings` (metric -> when -> ms, the launch's entry in the rounds)."""
    for side, cpus in (("app", lab.topology.app), ("load", lab.topology.driver)):
        try:
            reading = canary.measure(list(cpus))
        except (LabError, OSError, RuntimeError) as exc:
            lab.warn(f"host-speed canary: {exc}")
            return
        readings.setdefault(f"{side}_cpu_ms", {})[when] = reading.alu_ms
        readings.setdefault(f"{side}_cache_ms", {})[when] = reading.mem_ms
        # the integer chain is the CPU's speed (its repetitions agree to ~2 %); the pointer chase also
        # feels what neighbours do to the shared cache (CV 30-60 % on a busy host): kept beside it
        extra = {"round": n, "cpus": list(cpus), **reading.to_dict()}
        at = Point(when, {"when": when})
        lab.record(target.app.name, target.mode, "canary", f"{side}_cpu_ms", reading.alu_ms, "ms", point=at,
                   repeat=n, extra=extra)
        lab.record(target.app.name, target.mode, "canary", f"{side}_cache_ms", reading.mem_ms, "ms", point=at,
                   repeat=n, extra=extra)


def _takes_part(plan: Plan, sc: Scenario, n: int, unsettled: bool) -> bool:
    """A scenario's launch n runs in round n while n is within its planned launches; past them only
    the scenario whose values the ratios are of (steady) launches, and only while a headline ratio
    of its app/mode is `unsettled`."""
    return n <= sc.planned_launches(plan.settings(sc.name)) or (sc.rounds_only and unsettled)


def _settled_out_of_round(lab: Lab, n: int, settled: list[Target]) -> None:
    """Planned round n costs less than estimated where steady no longer launches past its own
    launches (the ratios of its app/mode settled): the round's estimate loses those launches."""
    less = sum(launch_estimate_s(lab.plan, t, sc) for t in settled for sc in round_scenarios(lab.plan, t)
               if sc.rounds_only and n > sc.planned_launches(lab.plan.settings(sc.name)))
    step = next((s for s in lab.progress.steps if s.label == f"round {n}"), None)
    if step is not None and less:
        step.estimate_s = max(0.0, step.estimate_s - less)


def _launch_in_round(lab: Lab, target: Target, state: _TargetState, sc: Scenario, n: int,
                     measure_intervals: int | None) -> LaunchResult | None:
    ctx = _context(lab, target, sc, state, measure_intervals=measure_intervals)
    return sc.launch(ctx, n)


def _intervals_worth_measuring(plan: Plan, launched: list[LaunchResult]) -> tuple[int | None, dict]:
    """From the launches so far, the intervals per launch that buy the most precision per second
    (Kalibera and Jones): when launches differ far more than intervals do, a launch's time is better
    spent on the next launch. None (measure as the plan says) until two launches have intervals."""
    interval_s = plan.settings("steady").interval_s if "steady" in plan["scenarios"] else 1
    before = [x.before_s for x in launched if x.intervals]
    two = ratios_ci.two_levels([x.intervals for x in launched], sum(before) / len(before) if before else 0.0,
                               interval_s) if before else None
    if two is None:
        return None, {}
    return two.optimal_intervals, two.to_dict()


def _run_rounds(lab: Lab, targets: list[Target], states: dict[str, _TargetState],
                earlier: dict | None = None) -> None:
    """The rounds scenarios' launches, one launch of every app/mode per round in a balanced order,
    then further rounds while a headline ratio is not settled (perflab.rounds). `earlier`: the
    rounds' record of the run being resumed; its finished rounds are kept, the rest run."""
    plan = lab.plan
    in_rounds = [t for t in targets if round_scenarios(plan, t)]
    if not in_rounds:
        return
    cfg: rounds.RoundSettings = plan.settings("rounds")
    seed = earlier["seed"] if earlier else (cfg.seed or rounds.draw_seed())
    labels = [t.label for t in in_rounds]
    by_label = {t.label: t for t in in_rounds}
    pairs = headline.pairs(cfg.headline, [(t.label, t.app.modes[t.mode].is_jvm, t.default_mode) for t in in_rounds])
    chasing = {label for p in pairs for label in (p.numerator, p.denominator)} if cfg.target > 0 else set()
    planned = planned_rounds(plan, in_rounds)
    order = rounds.orders(seed, labels, cfg.max_rounds + planned)
    values: dict[str, dict[int, float]] = {label: {} for label in labels}
    failures: dict[str, list[str]] = {label: [] for label in labels}
    failed: set[str] = set()
    done: dict[str, int] = {label: 0 for label in labels}
    took: dict[str, list[float]] = {label: [] for label in labels}
    launched: dict[str, list[LaunchResult]] = {label: [] for label in labels}
    caps: dict[str, int | None] = {}
    ran: dict[str, Counter] = {label: Counter() for label in labels}  # launches per scenario
    design = earlier.get("design", "") if earlier else rounds.BALANCED  # a run resumed keeps its own
    known = run_history.load(lab.store, lab.run_id) if cfg.target > 0 else run_history.History()
    priors = {p.label: prior for p in pairs if (prior := known.prior(p.label)) is not None}
    least = {p.label: rounds.least_rounds(cfg.target, priors.get(p.label), cfg.min_rounds) for p in pairs}
    record = {"seed": seed, "design": design, "orders": [], "headline": [p.label for p in pairs], "target": cfg.target,
              "ended": "", "ended_why": "", "ratios": [], "round_s": [], "launches": [], "least": least,
              "history": _history_record(known, pairs, priors, cfg, least)}
    use_canary = cfg.canary and lab.placement.kind == LOCAL  # the canary times this machine's CPUs
    if use_canary:
        canary.ensure(log=lab.progress.message)
    n = _restore_rounds(lab, earlier, record, planned, values, failures, failed, done, took, launched, ran,
                        lambda label, k: [sc.name for sc in round_scenarios(plan, by_label[label])
                                          if _takes_part(plan, sc, k, True)])
    for label in labels:
        caps[label] = _intervals_worth_measuring(plan, launched[label])[0]
    while True:
        states_now = rounds.ratio_states(pairs, values, cfg.target, least, priors, cfg.min_rounds)
        expected = {label: stats.mean(took[label]) if took[label] else sum(
            launch_estimate_s(plan, by_label[label], sc) for sc in round_scenarios(plan, by_label[label]))
            for label in labels if label not in failed}
        decision = rounds.next_round(cfg, n, planned, states_now, lab.progress.elapsed_s(), expected)
        record["ratios"] = [s.to_dict() for s in states_now]
        if not decision.more:
            record["ended"], record["ended_why"] = decision.why, rounds.ended_text(decision.why, cfg, n)
            break
        n += 1
        who = [label for label in order[n - 1] if label in decision.who and label not in failed]
        if not who:
            record["ended"], record["ended_why"] = "failed", "every app/mode of the rounds failed"
            break
        unsettled = rounds.unsettled_labels(states_now, cfg.target)
        if n > planned:
            lab.progress.steps.append(Step(f"round {n}", sum(expected[label] for label in who)))
            lab.progress.message(f"round {n}: " + "; ".join(
                f"{s.pair.label} +-{s.interval.half_width:.1%}" for s in states_now if s.interval is not None)
                + f" (target +-{cfg.target:.0%}): {', '.join(who)} again")
        else:
            settled = [by_label[label] for label in who if label in chasing and label not in unsettled]
            _settled_out_of_round(lab, n, settled)
        record["orders"].append(who)
        lab.store.save_rounds(lab.run_id, record)
        lab.progress.start(f"round {n}")
        round_started = time.monotonic()
        entries = []
        for position, label in enumerate(who, 1):
            target, state = by_label[label], states[label]
            entry = {"round": n, "place": position, "label": label, "value": None, "failed": "", "launched": []}
            lab.progress.update(f"{position}/{len(who)} {label}")
            started = time.monotonic()
            _use_database(lab, target.app)
            readings: dict = {}
            if use_canary:
                _canary(lab, target, n, "before", readings)
            for sc in round_scenarios(plan, target):
                if not _takes_part(plan, sc, n, label in unsettled):
                    continue
                try:
                    got = _launch_in_round(lab, target, state, sc, n, caps.get(label))
                except (AppFailed, LabError, OSError, RuntimeError, ValueError) as exc:
                    reason = str(exc) if isinstance(exc, AppFailed) else getattr(exc, "message", str(exc))
                    failures[label].append(f"launch {n}: {reason}")
                    entry["failed"] = reason
                    if done[label] == 0:
                        failed.add(label)
                        lab.outcome(target.app.name, target.mode, "run", "failed", reason)
                    break
                ran[label][sc.name] += 1
                entry["launched"].append(sc.name)
                if got is not None and got.value:
                    values[label][n] = got.value
                    launched[label].append(got)
                    entry.update(value=got.value, intervals=list(got.intervals), before_s=got.before_s)
            else:
                done[label] = n
            if use_canary:
                _canary(lab, target, n, "after", readings)
            took[label].append(time.monotonic() - started)
            entries.append({**entry, "took_s": took[label][-1], **({"canary": readings} if readings else {})})
        record["round_s"].append(round(time.monotonic() - round_started, 1))
        record["launches"] += entries  # what a resumed run needs of this round, stored before the round counts as done
        lab.store.save_rounds(lab.run_id, record)
        for label in who:  # how long the next rounds measure each app/mode, from the variances so far
            caps[label], record.setdefault("two_levels", {})[label] = _intervals_worth_measuring(plan, launched[label])
        lab.progress.finish()
    record["ratios"] = [s.to_dict() for s in rounds.ratio_states(pairs, values, cfg.target, least, priors,
                                                                  cfg.min_rounds)]
    record["rounds"] = n
    lab.store.save_rounds(lab.run_id, record)
    lab.progress.message(f"rounds: {record['ended_why']}")
    for label in labels:
        target, state = by_label[label], states[label]
        if label in failed:
            continue
        for sc in round_scenarios(plan, target):
            sc.after_launches(_context(lab, target, sc, state), ran[label][sc.name], failures[label])
    if use_canary:
        _flag_host_slow(lab, cfg)


def _history_record(known: run_history.History, pairs: list[headline.Pair], priors: dict[str, ratios_ci.Prior],
                    cfg: rounds.RoundSettings, least: dict[str, int]) -> dict:
    """What earlier runs of this plan, method and machine knew, stored with the run: each headline
    ratio's earlier intervals, the prior pooled from their rounds and the rounds it plans."""
    out: dict = {"runs": known.runs, "ratios": {}}
    for p in pairs:
        prior = priors.get(p.label)
        out["ratios"][p.label] = {
            "earlier": [x.to_dict() for x in known.ratios.get(p.label, [])],
            "prior": prior.to_dict() if prior else None,
            "planned": rounds.planned_from_prior(cfg.target, prior, least[p.label], cfg.max_rounds) if prior else None}
    return out


def _restore_rounds(lab: Lab, earlier: dict | None, record: dict, planned: int, values: dict, failures: dict,
                    failed: set, done: dict, took: dict, launched: dict, ran: dict,
                    launched_before: Callable[[str, int], list[str]]) -> int:
    """A resumed run's rounds as they stood after the last round that ended; returns its number.
    `launched_before`: the scenarios a round's launch ran, for a record that does not list them."""
    kept = resume.kept_launches(earlier, lab.done_steps)
    n = max((e["round"] for e in kept), default=0)
    for entry in kept:
        label = entry["label"]
        if label not in values:
            continue
        took[label].append(entry["took_s"])
        ran[label].update(entry["launched"] if "launched" in entry else launched_before(label, entry["round"]))
        if entry["value"]:
            values[label][entry["round"]] = entry["value"]
            launched[label].append(resume.launch_result(entry))
        if not entry["failed"]:
            done[label] = entry["round"]
            continue
        failures[label].append(f"launch {entry['round']}: {entry['failed']}")
        if done[label] == 0:
            failed.add(label)
    if n:
        record.update(orders=earlier["orders"][:n], round_s=earlier["round_s"][:n], launches=kept)
    for k in range(1, n + 1):
        if k > planned:  # a round added to settle a ratio: not among the planned steps
            lab.progress.steps.append(Step(f"round {k}", 0.0))
        _done_before(lab, f"round {k}")
    return n


def _flag_host_slow(lab: Lab, cfg: rounds.RoundSettings) -> None:
    """Flag every figure of a launch whose canary ran more than cfg.host_slow slower than the run's
    median on the same CPU (known only once every launch has run)."""
    readings = [f for f in lab.store.figures(lab.run_id) if f.scenario == "canary"]
    slow: set[tuple[str, str, int]] = set()
    for metric in ("app_cpu_ms", "load_cpu_ms"):
        ms = [f.value for f in readings if f.metric == metric]
        if len(ms) < 3:
            continue
        middle = sorted(ms)[len(ms) // 2]
        slow |= {(f.app, f.mode, f.repeat) for f in readings if f.metric == metric
                 and host_speed.slow(f.value, middle, cfg.host_slow)}
    startup = lab.plan.settings("startup")
    fed = lab.plan["steady"]["startup_figures"] and "startup" in lab.plan["scenarios"]
    for app, mode, n in sorted(slow):
        lab.store.add_flag(lab.run_id, app, mode, "steady", n, "host-slow")
        if n < startup.runs:
            lab.store.add_flag(lab.run_id, app, mode, "startup", n, "host-slow")
        if fed:
            lab.store.add_flag(lab.run_id, app, mode, "startup", startup.runs - 1 + n, "host-slow")
