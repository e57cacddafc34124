"""A run on this machine: the checks and builds before it, then a private PostgreSQL (and H2 where an
app uses it) on the database's CPUs, the lab's own work pinned to the load side's CPUs, and every
cgroup the run made removed at the end."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from perflab import environment, h2, isolate, postgres, preflight, registry, resume, signals, version_builds
from perflab.schedule import target_scenarios
from perflab.settings import Plan
from perflab.sites.base import Grounds, Ready, Say

if TYPE_CHECKING:
    from perflab.scenario import Scenario
    from perflab.targets import Target


class LocalSite:
    resumable = True

    def __init__(self) -> None:
        self.setup: isolate.CgroupSetup | None = None

    def prepare(self, plan: Plan, targets: list["Target"], say: Say, apps_root: Path | None,
                resumed: "resume.Resumed | None") -> Ready:
        self.setup = setup = isolate.detect_cgroups()
        isolate.cleanup_stale(setup)
        where = topology(plan)
        used_jdks = preflight.check(plan, targets, setup, say)  # before any build or download: stop now, not later
        if resumed is not None:
            resume.check_sources(resumed, targets)
        for sc in _planned_anywhere(plan, targets):
            if sc.setup is not None:  # tools and references a scenario needs, before anything is launched
                sc.setup(plan.settings(sc.name), say)
        frameworks = {t.app.name: f"{t.app.framework} {t.app.framework_version}" for t in targets}
        env = environment.for_run(frameworks, setup, where, used_jdks)
        if resumed is not None:  # a changed lab is refused now, before the builds
            resume.check_method(resumed, plan, env)
        ready = Ready(env, where, plan.data, f", {len(targets)} app/mode(s)")
        unbuilt: dict[str, str] = {}  # versions that do not build here: recorded, and the plan goes on
        for t in targets:
            variant = t.app.for_mode(t.mode)
            t.unavailable = t.unavailable or unbuilt.get(variant.build_key, "")
            if not t.unavailable and variant.build_key not in ready.builds:
                try:
                    ready.builds[variant.build_key] = version_builds.build(variant, log=say)
                    ready.variants[variant.build_key] = variant
                except version_builds.Unavailable as exc:
                    t.unavailable = unbuilt[variant.build_key] = str(exc)
                    say(f"unavailable: {exc}")
        env["sources"] = {key: build.hash for key, build in ready.builds.items()}  # a resumed run must find them unchanged
        env.update(version_builds.what_was_built(ready.builds, ready.variants))  # what else changed with a version
        return ready

    @contextlib.contextmanager
    def grounds(self, plan: Plan, run_id: str, ready: Ready, targets: list["Target"], say: Say) -> Iterator[Grounds]:
        setup = self.setup if self.setup is not None else isolate.detect_cgroups()
        where, env = ready.topology, ready.env
        # The lab's own polling and sampling run on the driver's CPUs, never on the app's.
        own_affinity = os.sched_getaffinity(0)
        os.sched_setaffinity(0, where.driver)
        try:
            with provision_db(run_id, where, setup, say, statement_stats=bool(plan.settings("profile").enabled)) \
                    as (conn, db_pid, db_placement), \
                    provision_h2(run_id, targets, where, setup, say) as h2_server:
                env["db_placement"] = db_placement
                if h2_server is not None:
                    env["h2"] = f"H2 {h2.H2_VERSION} over TCP, private, CPUs {where.db}"
                warnings = [] if setup.usable else [f"limits not enforced: {setup.reason} (CPU affinity only)"]
                yield Grounds(conn, db_pid, setup, h2_server, None, warnings)
        finally:
            with signals.shielded():
                os.sched_setaffinity(0, own_affinity)
                isolate.cleanup_stale(setup)


def topology(plan: Plan) -> isolate.Topology:
    """Which of this machine's CPUs the app, the database and the load generator get."""
    lim, topo = plan["limits"], plan["topology"]
    if not topo["app_cpus"]:
        return isolate.plan_topology(app_cpus=lim["cpus"])
    return isolate.Topology(app=topo["app_cpus"], db=topo["db_cpus"] or topo["app_cpus"],
                            driver=topo["driver_cpus"] or topo["app_cpus"], app_exclusive=False,
                            shared=[], reductions=[], description="set by the plan")


def _planned_anywhere(plan: Plan, targets: list["Target"]) -> list["Scenario"]:
    used = {sc.name for t in targets if not t.unavailable for sc in target_scenarios(plan, t)}
    return [sc for sc in registry.all_scenarios() if sc.name in used]


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

