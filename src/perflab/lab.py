"""What every scenario needs during a run: the store, the plan, the topology, the database, the
progress display, and helpers that record figures and outcomes the moment they are known."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from perflab import isolate, probes, procs
from perflab.apps import mode_jvm_opts
from perflab.errors import LabError, RunStopped
from perflab.h2 import Server as H2Server
from perflab.instance import InstanceSpec
from perflab.placements import Placement
from perflab.placements.local import LocalPlacement
from perflab.postgres import Connection
from perflab.progress import Progress
from perflab.settings import Plan
from perflab.store import NO_POINT, Point, Store



@dataclass
class Lab:
    store: Store
    run_id: str
    plan: Plan
    topology: isolate.Topology
    setup: isolate.CgroupSetup
    db: Connection
    db_pid: int | None
    progress: Progress
    log_dir: Path
    warnings: list[str] = field(default_factory=list)
    mode_opts: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # e.g. a trained AOT cache
    app_dbs: dict[str, Connection] = field(default_factory=dict)  # apps with a database of their own

    def db_for(self, app) -> Connection:
        """The database an app uses: its own when its descriptor brings one, else the contract's."""
        return self.app_dbs.get(app.name, self.db)
    h2: H2Server | None = None  # the H2 server, when an app of the plan uses one (db_server = "h2")
    db_in_use: str = "postgresql"  # the database of the app being measured: whose CPU db_cpu_s reads
    done_steps: set[str] = field(default_factory=set)  # a resumed run's steps that ended before: not run again
    # where instances run and load comes from (perflab.placements); on this machine unless given
    placement: Placement | None = None
    # several versions of one app/mode: each one's label -> the oldest version's, whose measured
    # throughput sets the rate all of them are offered at the open-loop point (steady.open_loop_rate);
    # with [steady] open_loop_basis, every app/mode's label -> that basis
    open_loop_basis: dict[str, str] = field(default_factory=dict)
    open_loop_rates: dict[str, dict] = field(default_factory=dict)  # the basis label -> the rate and its basis

    def __post_init__(self) -> None:
        if self.placement is None:  # a lab without a topology (tests of the report) sends no load
            self.placement = LocalPlacement.on(self.topology.driver if self.topology is not None else ())

    def spec(self, app, mode: str, *, memory_mb: int | None = None, cgroup=None) -> InstanceSpec:
        limits = self.plan["limits"]
        app = app.for_mode(mode)
        return InstanceSpec(
            run_id=self.run_id, app=app, mode=mode,
            limits=isolate.Limits(cpus=self.topology.app or None, cpu_quota=float(limits["cpus"]),
                                  memory_mb=memory_mb or limits["memory_mb"]),
            db_env=self.db_env(app), log_dir=self.log_dir,
            jvm_opts=mode_jvm_opts(app.mode(mode), limits) + self.mode_opts.get((app.name, mode), []),
            jdk=limits["jdk"] or None, sample_hz=self.plan["sample_hz"], setup=self.setup, cgroup=cgroup)

    def db_env(self, app) -> dict[str, str]:
        """The environment telling an app its database (the plan's pool sizes included)."""
        limits = self.plan["limits"]
        if app.db_server == "h2":
            if self.h2 is None or self.h2.conn is None:
                raise LabError(f"{app.name} needs the lab's H2 server, which is not running")
            env = self.h2.conn.app_env()
        else:
            env = self.db_for(app).app_env()
        return {**env, "DB_POOL_MIN": str(limits["pool_min"]), "DB_POOL_MAX": str(limits["pool_max"])}

    def record(self, app: str, mode: str, scenario: str, metric: str, value: float | None, unit: str,
               *, point: Point = NO_POINT, repeat: int = 0, flags: Iterable[str] = (),
               extra: dict[str, Any] | None = None) -> None:
        if value is None:
            return
        self.store.add_figure(self.run_id, app, mode, scenario, metric, value, unit, point=point.label,
                              params=dict(point.params), repeat=repeat, flags=flags, extra=extra)

    def outcome(self, app: str, mode: str, scenario: str, status: str, reason: str = "", *, quiet: bool = False) -> None:
        self.store.add_outcome(self.run_id, app, mode, scenario, status, reason)
        if status != "ok" and not quiet:
            self.warn(f"{app}/{mode} {scenario}: {status}" + (f": {reason}" if reason else ""))

    def warn(self, text: str) -> None:
        self.warnings.append(text)
        self.progress.message(f"warning: {text}")

    def db_cpu_s(self) -> float | None:
        pid = self.h2.pid if self.db_in_use == "h2" and self.h2 else self.db_pid
        return probes.tree_cpu_seconds(pid) if pid else None

    def check_database(self) -> None:
        """RunStopped when the database the app in use reads is gone (killed or crashed): every
        launch after it would serve nothing but errors, so the run stops at once, naming it, with
        every figure so far kept. Nothing to check for a database the lab did not start."""
        h2 = self.db_in_use == "h2" and self.h2
        pid = self.h2.pid if h2 else self.db_pid
        if pid and not procs.alive(pid):
            name = "H2 server" if h2 else "PostgreSQL"
            raise RunStopped(f"the lab's {name} (pid {pid}) is gone mid-run (killed or crashed): the app served "
                             f"no request", fix="./perflab run --resume RUN starts it again and measures what is left")

    def driver_cpus(self) -> list[int]:
        return list(self.topology.driver)
