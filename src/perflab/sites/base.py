"""The interface of a site (perflab.sites): what it settles before a run and what it holds while the run measures."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Protocol

from perflab.settings import Plan

if TYPE_CHECKING:
    from perflab import isolate
    from perflab.apps import App
    from perflab.h2 import Server as H2Server
    from perflab.placements import Placement
    from perflab.postgres import Connection
    from perflab.resume import Resumed
    from perflab.targets import Target

Say = Callable[[str], None]


@dataclass
class Ready:
    """What a site settled before the run begins."""

    env: dict  # the run's environment as it is stored (its method hash is taken from it)
    topology: "isolate.Topology"
    recorded_plan: dict  # the plan as it is stored with the run
    where: str  # how the run's first line says where it runs
    builds: dict[str, Any] = field(default_factory=dict)  # build key -> build (on this machine)
    variants: dict[str, "App"] = field(default_factory=dict)  # build key -> the app as built


@dataclass
class Grounds:
    """What the run holds while it measures."""

    db: "Connection"
    db_pid: int | None = None  # the database's server process, where the lab reads its CPU
    setup: "isolate.CgroupSetup | None" = None
    h2: "H2Server | None" = None
    placement: "Placement | None" = None  # None: this machine's (perflab.lab.Lab makes it)
    warnings: list[str] = field(default_factory=list)


class Site(Protocol):
    resumable: bool  # whether `--resume` can go on with a run here

    def prepare(self, plan: Plan, targets: list["Target"], say: Say, apps_root: Path | None,
                resumed: "Resumed | None") -> Ready:
        """Everything before the run's first step; raises LabError with the fix before anything is made."""
        ...

    def grounds(self, plan: Plan, run_id: str, ready: Ready, targets: list["Target"],
                say: Say) -> ContextManager[Grounds]:
        """The run's grounds while it measures; `ready.env` gains what they add (where the DB runs)."""
        ...
