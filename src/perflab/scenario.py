"""What a scenario is: its name, its settings table, the phase it runs in, its time estimate, how it
runs and how its figures are shown. Each scenario module defines one `Scenario` and the registry
(perflab.registry) lists them in the lab's order; the runner, the plan schema, the progress
estimate, the terminal summary and the report all read that one definition.

A scenario runs with a `Context` bound to one app/mode and to itself: it can store only its own
figures, and what it needs from an earlier scenario's result is handed to it in `ctx.results`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable

from perflab.drivers.base import assess_load_side
from perflab.present.tables import TextTable
from perflab.settings import Settings
from perflab.store import NO_POINT, Point

if TYPE_CHECKING:
    from perflab.apps import App, BuildResult
    from perflab.instance import Instance
    from perflab.lab import Lab
    from perflab.placements import LoadGenerator
    from perflab.present.chart_inputs import ChartInputs
    from perflab.present.tables import Table
    from perflab.progress import Progress
    from perflab.results import RunView


class Phase(enum.Enum):
    """When a scenario runs for an app/mode; within a phase, in registry order."""

    BUILD = "once per build"
    PREPARE = "before anything is launched (when the mode needs it)"
    OWN_BEFORE = "own launches, before the load instance"
    ON_LOAD = "on the long-lived load instance"
    OWN_AFTER = "own launches, after the load instance"


@dataclass(frozen=True)
class Estimate:
    """What a scenario's time estimate may use: its settings, the plan's repeats, and how long
    one launch of this app/mode takes to answer (a rough guess before anything is measured)."""

    settings: Any
    repeats: int
    start_s: float
    # whether the mode runs on a JVM (it then needs the long warm-up); not guessed from start_s,
    # which is measured and can be a few seconds for a fast-starting JVM
    jvm: bool = False
    # the app itself, for a scenario whose work depends on which app it is (e.g. devloop's edits)
    app: Any = None
    # per steady point (its label): seconds from launch to steady state in earlier runs here
    steady_s: dict = field(default_factory=dict)
    # its RSS at rest after start-up in earlier runs here, MB (None before any)
    rest_mb: float | None = None
    # whether start_s is what launches of this app/mode took here (else a typical JVM's or binary's)
    start_measured: bool = False
    # per steady point (its label): seconds its measurement took after the warm-up in earlier runs here
    measure_s: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    phase: Phase
    settings: type[Settings]
    run: Callable[["Context"], Any]
    estimate_s: Callable[[Estimate], float]
    # the scenario's tables; None: one generic table of whatever it stored
    tables: Callable[["RunView"], list["Table"]] | None = None
    # the report's charts: (the run, this scenario's own files by target: .samples (RSS samples CSV paths)
    # and .timelines (intervals of its launches), colours by target) -> charts (None entries are dropped)
    charts: Callable[["RunView", "ChartInputs", dict], list] | None = None
    # sentences the summary and report print under the scenario's tables (e.g. how stable its
    # headline figures were): (the run) -> lines
    remarks: Callable[["RunView"], list[str]] | None = None
    # tables of words shown after its tables and before the remarks: (the run) -> tables
    text_tables: Callable[["RunView"], list[TextTable]] | None = None
    # the plan's settings in words for the report: (the stored plan's table, the whole plan) -> text
    describe: Callable[[dict, dict], str] | None = None
    # earlier scenarios whose results this one reads from ctx.results (when they ran)
    needs: tuple[str, ...] = ()
    # a resumed run (perflab.resume), for a step of this scenario that ended before: its result from
    # what the step left (a trained AOT cache, the figures it stored), for the scenarios that read it;
    # (ctx) -> result, None when nothing usable is left (a preparation then runs again)
    reuse: Callable[["Context"], Any] | None = None
    # once per run, before anything is launched, when the scenario is planned: e.g. build a tool
    # or a reference app it needs; (settings, say) -> None, raising LabError when it cannot
    setup: Callable[[Any, Callable[[str], None]], None] | None = None
    # its first launch checks the contract, so the load instance need not (when it runs first)
    verifies_contract: bool = False
    # whether it runs for an app/mode: PREPARE scenarios run when it says so (they are not listed in
    # plans); a planned scenario is skipped where it says no, with applies_why as the reason
    applies: Callable[["App", str], bool] | None = None
    applies_why: str = ""
    # the placements (perflab.placements, e.g. "kubernetes") it cannot run on, each with the reason
    # the run records: the one place that says where a scenario runs
    not_on: tuple[tuple[str, str], ...] = ()
    # the parameters of a point label stored before points carried parameters (old runs)
    legacy_params: Callable[[str], dict] | None = None
    # a rule across the plan's scenarios, checked when a plan is validated: (plan data, source), raises LabError
    check_plan: Callable[[dict, str], None] | None = None
    # other scenarios whose figures it may also store (steady's launches are start-up launches too)
    feeds: tuple[str, ...] = ()
    # launch by launch, for interleaved rounds (perflab.rounds): (ctx, n) runs fresh launch n (1, 2, ...)
    # and returns what the rounds judge (steady's throughput), or None; raises AppFailed
    launch: Callable[["Context", int], "LaunchResult | None"] | None = None
    # whether its estimate is built from what launches took on this machine (Estimate.start_s
    # measured, steady's time to steady state known at every point): the dry run and the progress
    # then take it as it is, without the pace of estimates made before anything was measured
    estimate_measured: Callable[[Estimate], bool] | None = None
    # how many launches the plan asks of it: (settings) -> count
    planned_launches: Callable[[Any], int] | None = None
    # after the rounds: (ctx, launches run, the failures' reasons) records how it ended
    after_launches: Callable[["Context", int, list[str]], None] | None = None
    # in rounds, run() has nothing left to do (steady); else run() still does the rest (startup's cold launch)
    rounds_only: bool = False
    # it sends load through the placement's load generator (a run on a cluster then starts its driver pod)
    sends_load: bool = False

    def why_not_on(self, placement: str) -> str:
        """Why it does not run on that placement ("" where it does)."""
        return dict(self.not_on).get(placement, "")

    def words(self, view: "RunView") -> tuple[list[TextTable], list[str]]:
        """Its tables of words and its remarks on a run (none where it declares none)."""
        return (self.text_tables(view) if self.text_tables else [], self.remarks(view) if self.remarks else [])


@dataclass(frozen=True)
class LaunchResult:
    """What one launch in the rounds gives the rounds: its headline value, and for the two-level
    split of its variance (perflab.analysis.ratios_ci.two_levels) its measured intervals' values and what the
    launch cost before them."""

    value: float | None
    intervals: tuple[float, ...] = ()
    before_s: float = 0.0
    steady: bool = True  # False: measured still warming up, not a steady-state value the ratios may pair


@dataclass
class Context:
    """One scenario on one app/mode."""

    lab: "Lab"
    scenario: Scenario
    app: "App"
    mode: str
    settings: Any
    inst: "Instance | None" = None                      # ON_LOAD: the shared load instance
    results: dict[str, Any] = field(default_factory=dict)  # earlier scenarios' results (see needs)
    build: "BuildResult | None" = None                  # BUILD: the build measured
    verify: bool = False                                # check the contract on the first launch
    rounds: bool = False                                # its launches come from the runner's rounds
    # in rounds: intervals worth measuring per launch, from the two levels' variances (None: until
    # the precision asked, as the plan says)
    measure_intervals: int | None = None

    @property
    def plan(self):
        return self.lab.plan

    @property
    def progress(self) -> "Progress":
        return self.lab.progress

    @property
    def repeats(self) -> int:
        return self.lab.plan.repeats

    def record(self, metric: str, value: float | None, unit: str, *, at: Point = NO_POINT, repeat: int = 0,
               flags: Iterable[str] = (), extra: dict[str, Any] | None = None, scenario: str | None = None) -> None:
        """Store a figure of this scenario or, with `scenario`, of one it declares it feeds."""
        if scenario is not None and scenario != self.scenario.name and scenario not in self.scenario.feeds:
            raise ValueError(f"scenario {self.scenario.name} may not store figures of {scenario}")
        self.lab.record(self.app.name, self.mode, scenario or self.scenario.name, metric, value, unit, point=at,
                        repeat=repeat, flags=flags, extra=extra)

    def load_side(self, driver_cpu_s: float, db_cpu_s: float | None, seconds: float,
                  app_cpu_share: float | None) -> tuple[bool, str]:
        """Whether the driver and the database (on this lab's CPUs), not the app (under the plan's CPU
        limit), set the pace of a measurement: perflab.drivers.base.assess_load_side."""
        return assess_load_side(driver_cpu_s, db_cpu_s, seconds, self.lab.driver_cpus(), list(self.lab.topology.db),
                                app_cpu_share, float(self.plan["limits"]["cpus"]))

    def add_file(self, kind: str, name: str, content: str | bytes):
        return self.lab.store.add_file(self.lab.run_id, self.app.name, self.mode, self.scenario.name, kind, name,
                                       content)

    def outcome(self, status: str, reason: str = "", *, part: str = "", quiet: bool = False) -> None:
        """How the scenario (or one named part of it, e.g. a sweep series) ended."""
        name = f"{self.scenario.name}:{part}" if part else self.scenario.name
        self.lab.outcome(self.app.name, self.mode, name, status, reason, quiet=quiet)

    def spec(self, **overrides):
        return self.lab.spec(self.app, self.mode, **overrides)

    @property
    def load(self) -> "LoadGenerator":
        """The load generator of the run's placement (perflab.placements)."""
        return self.lab.placement.load

    def instance(self, tag: str, spec=None, port: int | None = None) -> "Instance":
        """An instance of this app/mode under the plan's limits (or `spec`) where the run places it, not started."""
        return self.lab.placement.instance(spec or self.spec(), tag=tag, port=port)

    def launch(self, tag: str, spec=None) -> "Instance":
        """A fresh instance of this app/mode under the plan's limits (or `spec`), started."""
        return self.instance(tag, spec).start()
