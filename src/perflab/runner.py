"""Running a plan: build -> provision (DB, limits, topology) -> per app and mode: verify, then
measure each planned scenario -> store. Figures are stored as they are measured; an app/mode that
fails is recorded with its reason and the run goes on; Ctrl-C stops cleanly and keeps the rest.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass

from perflab import aot, apps, doctor, environment, isolate, postgres, signals
from perflab.errors import LabError
from perflab.instance import Instance
from perflab.lab import AppFailed, Lab
from perflab.paths import work_dir
from perflab.plan import IMPLEMENTED, Plan
from perflab.progress import Progress, Step
from perflab.scenarios import coldstart, density, footprint, latency, memory, scaleup, soak, startup, sweep, write
from perflab.store import Store

LOAD_SCENARIOS = ("memory", "sweep", "latency", "write")
# Scenarios that launch their own instances: before the long-lived load instance, and after it
# (density reuses the sweep's max req/s for RT-2019's projection).
BEFORE_LOAD = {"scaleup": scaleup, "coldstart": coldstart}
AFTER_LOAD = {"density": density, "soak": soak}


@dataclass
class Target:
    app: apps.App
    mode: str
    unavailable: str = ""  # why this app/mode cannot run here ("" = it can)

    @property
    def default_mode(self) -> bool:
        return self.mode == next(iter(self.app.modes))


def scenarios_for(plan: Plan, target: Target) -> list[str]:
    return plan.scenarios_for(target.mode, target.default_mode)


def select_targets(plan: Plan) -> list[Target]:
    found = apps.discover()
    names = list(found) if "all" in plan["apps"] else plan["apps"]
    targets = []
    for name in names:
        if name not in found:
            raise LabError(f"plan {plan.name}: unknown app {name!r}", fix=f"known apps: {', '.join(found)}")
        app = found[name]
        modes = list(app.modes) if "all" in plan["modes"] else [m for m in plan["modes"] if m in app.modes]
        for mode in modes:
            targets.append(Target(app, mode, apps.unavailable(app, mode, plan["limits"]["jdk"] or None)))
    return targets


def _estimate_start_s(target: Target) -> float:
    return 1.0 if "{java}" not in " ".join(target.app.modes[target.mode].command) else 12.0


def plan_steps(plan: Plan, targets: list[Target]) -> list[Step]:
    """The steps the progress display counts down, with rough time estimates."""
    steps = []
    rep = plan["repeats"]
    for key in dict.fromkeys(t.app.for_mode(t.mode).build_key for t in targets if not t.unavailable):
        if "footprint" in plan["scenarios"]:
            steps.append(Step(f"{key} footprint", 1))
    for t in targets:
        sc = scenarios_for(plan, t)
        label = f"{t.app.name}/{t.mode}"
        if t.unavailable:
            steps.append(Step(f"{label} unavailable", 0))
            continue
        start = _estimate_start_s(t)
        if "startup" in sc:
            rest = plan["memory"]["rest_s"] if "memory" in sc else 0
            steps.append(Step(f"{label} startup", plan["startup"]["runs"] * (start + rest + 1)))
        for name, module in BEFORE_LOAD.items():
            if name in sc:
                steps += [Step(lbl, est) for lbl, est in module.steps(plan, label, start)]
        if any(s in sc for s in LOAD_SCENARIOS):
            steps.append(Step(f"{label} launch + verify", start + 2))
        if "memory" in sc:
            m = plan["memory"]
            steps.append(Step(f"{label} memory under load", m["warmup_s"] + rep * m["load_duration_s"]))
        if "sweep" in sc:
            s = plan["sweep"]
            for series in s["series"]:
                steps.append(Step(f"{label} sweep {series['name']}",
                                  s["warmup_s"] + rep * len(series["connections"]) * (s["duration_s"] + 0.5)))
        if "latency" in sc:
            lt = plan["latency"]
            steps.append(Step(f"{label} latency", lt["warmup_s"] + rep * len(lt["fractions"]) * (lt["duration_s"] + 0.5)))
        if "write" in sc:
            w = plan["write"]
            steps.append(Step(f"{label} write", 2 * w["warmup_s"] + rep * 2 * (w["duration_s"] + 0.5)))
        for name, module in AFTER_LOAD.items():
            if name in sc:
                steps += [Step(lbl, est) for lbl, est in module.steps(plan, label, start)]
    return steps


@contextlib.contextmanager
def provision_db(run_id: str, topology: isolate.Topology, setup: isolate.CgroupSetup, say):
    """The lab's database: the one already running (left as it is), or a private one started for
    this run on the DB's CPUs (stopped at the end)."""
    cluster = postgres.Cluster()
    if cluster.status().get("running"):
        conn = cluster.connection()
        say(f"using the running database {conn.display_url} (not pinned: it was started outside this run)")
        yield conn, cluster.server_pid(), "already running; not pinned"
        return
    group = isolate.Cgroup(run_id, "db", isolate.Limits(cpus=topology.db), setup=setup)
    try:
        conn = cluster.start(preexec=group.preexec)
        try:
            yield conn, cluster.server_pid(), f"private, CPUs {topology.db}"
        finally:
            with signals.shielded():
                cluster.stop(quiet=True)
    finally:
        with signals.shielded():
            group.close()


def run_plan(plan: Plan, say=print) -> str:
    """Run a plan end to end; returns the run id (also when interrupted: the run is kept)."""
    doctor.ensure(log=say)
    targets = select_targets(plan)
    not_yet = [s for s in plan["scenarios"] if s not in IMPLEMENTED]
    setup = isolate.detect_cgroups()
    isolate.cleanup_stale(setup)
    lim = plan["limits"]
    topology = isolate.plan_topology(app_cpus=lim["cpus"]) if not plan["topology"]["app_cpus"] else isolate.Topology(
        app=plan["topology"]["app_cpus"], db=plan["topology"]["db_cpus"] or plan["topology"]["app_cpus"],
        driver=plan["topology"]["driver_cpus"] or plan["topology"]["app_cpus"], app_exclusive=False,
        shared=[], reductions=[], description="set by the plan")

    if any("latency" in scenarios_for(plan, t) for t in targets) or plan["soak"]["rate"] > 0:
        from perflab.drivers import oha
        oha.ensure_oha(log=say)  # built once, before anything is launched (a cold build takes minutes)

    builds = {}
    for t in targets:
        variant = t.app.for_mode(t.mode)
        if not t.unavailable and variant.build_key not in builds:
            builds[variant.build_key] = apps.build(variant, log=say)
    if any("coldstart" in scenarios_for(plan, t) for t in targets):
        # the cold-start reference is built even when it is not one of the plan's apps
        ref = apps.discover().get(plan["coldstart"]["reference"])
        if ref is not None:
            ref_mode = coldstart.reference_mode(ref)
            variant = ref.for_mode(ref_mode)
            if variant.build_key not in builds and not apps.unavailable(ref, ref_mode):
                try:
                    apps.build(variant, log=say)
                except LabError as exc:
                    say(f"coldstart reference not built: {exc.message}")

    frameworks = {t.app.name: f"{t.app.framework} {t.app.framework_version}" for t in targets}
    env = environment.capture(frameworks=frameworks, cgroup=f"{setup.kind}: {setup.reason}" if not setup.usable else setup.kind)
    env["topology"] = topology.as_dict()
    store = Store()
    run_id = store.begin_run(plan.data, env)
    progress = Progress(plan_steps(plan, targets))
    say(f"run {run_id}: plan {plan.name}, {len(targets)} app/mode(s), {progress.total} steps")
    say(f"topology: {topology.description}")
    for reduction in plan["reductions"] + topology.reductions:
        say(f"reduction: {reduction}")
    log_dir = store.run_dir(run_id) / "logs"
    status = "complete"
    # The lab's own polling and sampling run on the driver's CPUs, never on the app's.
    own_affinity = os.sched_getaffinity(0)
    os.sched_setaffinity(0, topology.driver)
    try:
        with provision_db(run_id, topology, setup, say) as (conn, db_pid, db_placement):
            env["db_placement"] = db_placement
            store.update_environment(run_id, env)
            lab = Lab(store, run_id, plan, topology, setup, conn, db_pid, progress, log_dir)
            for scenario in not_yet:
                lab.outcome("*", "*", scenario, "not-run", "this scenario is not implemented yet")
            if not setup.usable:
                lab.warn(f"limits not enforced: {setup.reason} (CPU affinity only)")
            done_footprint = set()
            for target in targets:
                key = target.app.for_mode(target.mode).build_key
                if "footprint" in plan["scenarios"] and key in builds and key not in done_footprint:
                    progress.start(f"{key} footprint")
                    footprint.run(lab, target.app.for_mode(target.mode), builds[key])
                    done_footprint.add(key)
                    progress.finish()
                _run_target(lab, target)
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except BaseException as exc:
        status = "failed"
        store.finish_run(run_id, status, note=str(exc)[:500])
        raise
    finally:
        os.sched_setaffinity(0, own_affinity)
        progress.close()
        if status != "failed":
            store.finish_run(run_id, status)
        with signals.shielded():
            isolate.cleanup_stale(setup)
    return run_id


def _steps_for(lab: Lab, target: Target) -> int:
    label = f"{target.app.name}/{target.mode} "
    return sum(1 for s in lab.progress.steps if s.label.startswith(label))


def _run_target(lab: Lab, target: Target) -> None:
    app, mode = target.app, target.mode
    sc = scenarios_for(lab.plan, target)
    total = _steps_for(lab, target)
    done_before = lab.progress.done
    if target.unavailable:
        reason = target.unavailable.removeprefix("unavailable: ")
        lab.warn(f"{app.name}/{mode}: not measured, unavailable: {reason}")
        for s in [s for s in sc if s in IMPLEMENTED and s != "footprint"]:
            lab.outcome(app.name, mode, s, "unavailable", reason, quiet=True)
        if total:
            lab.progress.finish(skipped=total - 1)
        return
    postgres.load_contract(lab.db)
    verified = not lab.plan["verify"]
    try:
        if app.modes[mode].prepare or app.modes[mode].aot:
            lab.progress.update("preparing the mode")
            lab.mode_opts[(app.name, mode)] = aot.prepare_target(lab, app, mode)
        if "startup" in sc:
            lab.progress.start(f"{app.name}/{mode} startup")
            startup.run(lab, app, mode, verify=not verified)
            verified = True
            lab.progress.finish()
        _own_instances(lab, app, mode, BEFORE_LOAD, sc)
        if any(s in sc for s in LOAD_SCENARIOS):
            _load_scenarios(lab, target, verified)
        _own_instances(lab, app, mode, AFTER_LOAD, sc)
    except (AppFailed, LabError, OSError, RuntimeError, ValueError) as exc:
        # one app/mode failing (or a fault of the lab's own in one scenario) must not cost the
        # rest of the run: record it and go on
        reason = str(exc) if isinstance(exc, AppFailed) else f"{type(exc).__name__}: {exc}"
        lab.outcome(app.name, mode, "run", "failed", reason)
        for s in [s for s in sc if s in IMPLEMENTED and s != "footprint"]:
            lab.outcome(app.name, mode, s, "not-measured", f"the app/mode failed: {reason}", quiet=True)
    finally:
        left = total - (lab.progress.done - done_before)
        if left > 0:
            lab.progress.finish(skipped=left - 1)


def _own_instances(lab: Lab, app: apps.App, mode: str, modules: dict, sc: list[str]) -> None:
    for name, module in modules.items():
        if name in sc:
            lab.progress.start(f"{app.name}/{mode} {name}")
            module.run(lab, app, mode)
            lab.progress.finish()


def _load_scenarios(lab: Lab, target: Target, verified: bool) -> None:
    from perflab import contract, probes

    app, mode = target.app, target.mode
    sc = scenarios_for(lab.plan, target)
    lab.progress.start(f"{app.name}/{mode} launch + verify")
    inst = Instance(lab.spec(app, mode), tag="load").start()
    try:
        ready = probes.wait_ready(inst.base_url + app.ready_path, inst.spawn_ns, inst.running.proc,
                                  timeout_s=lab.plan["startup"]["timeout_s"], interval_ms=20)
        if not ready.ok:
            raise AppFailed(f"not ready: {inst.end_reason() or ready.reason}")
        if not verified:
            problems = contract.verify(inst.base_url)
            if problems:
                raise AppFailed("failed the contract check before measuring: " + "; ".join(problems[:5]))
        lab.progress.finish()
        plan_steps_left = []
        if "memory" in sc:
            plan_steps_left.append(("memory under load", lambda: memory.run(lab, inst)))
        if "sweep" in sc:
            for series in lab.plan["sweep"]["series"]:
                plan_steps_left.append((f"sweep {series['name']}", lambda s=series: sweep.run(lab, inst, s)))
        if "latency" in sc:
            plan_steps_left.append(("latency", lambda: latency.run(lab, inst)))
        if "write" in sc:
            plan_steps_left.append(("write", lambda: write.run(lab, inst)))
        for name, fn in plan_steps_left:
            lab.progress.start(f"{app.name}/{mode} {name}")
            try:
                fn()
            except (RuntimeError, OSError, ValueError) as exc:
                reason = inst.end_reason() or str(exc)
                lab.outcome(app.name, mode, name.split(" ")[0] if not name.startswith("sweep") else f"sweep:{name[6:]}",
                            "failed", reason)
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
