"""steady's settings: the points a launch measures and the steady-state rule's parameters."""

from __future__ import annotations

from pydantic import field_validator, model_validator

from perflab.analysis.steadystate import Rule
from perflab.settings import Settings, setting
from perflab.store import Point, point


class SteadyPoint(Settings):
    path: str = setting("/fruits", "the path loaded")
    connections: int = setting(40, "closed-loop connections", "connections", ge=1)
    # a first point at a few connections warms a JVM up much sooner than the measured concurrency:
    # on one CPU, 40 busy request threads leave the JIT's compiler threads a small share of it
    warmup_max_s: float | None = setting(None, "this point's own warm-up maximum (empty: the scenario's "
                                               "warmup_max_s)", "s", gt=0)
    measure: bool = setting(True, "measure it once steady (false: a warm-up point only: its time to steady "
                                  "state is recorded, the next point follows at once)")


class SteadySettings(Settings):
    launches: int = setting(3, "fresh launches; each gives one value of every figure", "launches", ge=1)
    points: list[SteadyPoint] = setting([SteadyPoint()], "the points measured on each launch, in order")
    interval_s: int = setting(1, "one interval: its own throughput, latency and CPU", "s", ge=1)
    window: int = setting(10, "intervals judged together for steady state", "intervals", ge=3)
    max_cv: float = setting(0.10, "steady: the window's spread at most (1 s intervals of a JVM on one CPU vary "
                                  "by 5-10 % at steady state: GC, the driver sharing a CPU with the DB)", "ratio", gt=0)
    max_trend: float = setting(0.02, "steady: a significant trend may change throughput this much across the window",
                               "ratio", gt=0)
    max_step: float = setting(0.075, "steady: the last window's mean throughput within this of the window before it "
                                    "(the 90 % interval of the difference: a slow climb the trend test cannot see)",
                              "ratio", gt=0)
    max_jit_ms_per_s: float = setting(100.0, "steady (JVM modes): the JIT compiles at most this many ms a second "
                                             "(0: not checked)", "ms/s", ge=0)
    warmup_max_s: float = setting(120.0, "give up waiting for steady state after this (the point is marked)", "s",
                                  gt=0)
    warmup_min_s: float = setting(0.0, "watch the steady-state rule only after this much warm-up (a fixed "
                                       "warm-up first, as JMH's; 0: from the first interval)", "s", ge=0)
    jit_trace: bool = setting(False, "read the JIT's and GC's counters every half window through the warm-up too, "
                                     "and keep them with the launch (each reading costs the load side about 0.15 s "
                                     "of CPU: for studying warm-ups, bench/steady_onecpu.py)")
    warmup_cycles: int = setting(0, "before the steady-state rule is watched, this many cycles of load and pause "
                                    "(as the Quarkus team's lab warms up on few cores: the JIT's compiler threads "
                                    "catch up in the pauses; 0: continuous load)", "cycles", ge=0)
    warmup_boost_s: float = setting(0.0, "the launch's first point warms up this long on every CPU of the machine "
                                         "(its cgroup's cpuset and quota, and its threads), then gets its own limit "
                                         "back before the steady-state rule is watched (as Kubernetes' startup CPU "
                                         "boost, but after the JVM started: it sizes itself for its own CPUs; "
                                         "0: off)", "s", ge=0)
    canary_every_s: float = setting(0.0, "read the host-speed canary's integer chain on the app's CPU every this "
                                         "many seconds through the warm-up and measurement, timed on its own CPU "
                                         "clock (the CPU's speed inside the launch, where the readings around it "
                                         "see only its ends; about 2.5 ms of the app's CPU a reading; 0: off)",
                                    "s", ge=0)
    cycle_load_s: int = setting(15, "one warm-up cycle's load", "s", ge=1)
    cycle_pause_s: float = setting(15.0, "one warm-up cycle's pause", "s", ge=0)
    precision: float = setting(0.02, "measure until the 95 % CI of throughput is within +- this", "ratio", gt=0)
    measure_max_s: float = setting(60.0, "measure at most this long (the precision reached is stored)", "s", gt=0)
    open_loop_fraction: float = setting(0.0, "then an open-loop point at this fraction of the launch's steady "
                                             "throughput (of several versions of one app: of the oldest "
                                             "version's, the same rate for every version; 0: none)", "ratio",
                                        ge=0, le=1.5)
    open_loop_basis: str = setting("", "an app/mode of the run (e.g. \"spring-boot/jvm\") whose throughput sets "
                                       "every app/mode's open-loop rate: open_loop_fraction of it in its first launch "
                                       "that measured one, the same rate for all, so their CPU per request there is "
                                       "at equal load (the rounds launch it first; empty: each launch's own "
                                       "throughput, or the oldest version's)")
    open_loop_s: float = setting(10.0, "the open-loop point's duration", "s", ge=1)
    timeout_s: float = setting(180.0, "how long a launch may take to become ready", "s", gt=0)
    startup_figures: bool = setting(False, "each launch also gives the startup scenario's figures as a warm "
                                           "launch (time to first response, RSS after it), when the plan has "
                                           "startup: fewer launches for the same figures")

    @model_validator(mode="after")
    def _min_below_max(self) -> "SteadySettings":
        if self.warmup_min_s > self.warmup_max_s:
            raise ValueError(f"warmup_min_s ({self.warmup_min_s:g}) must not exceed warmup_max_s "
                             f"({self.warmup_max_s:g})")
        return self

    @field_validator("points")
    @classmethod
    def _some(cls, value: list[SteadyPoint]) -> list[SteadyPoint]:
        if not any(p.measure for p in value):
            raise ValueError("must list at least one measured point")
        return value

    def rule(self) -> Rule:
        return Rule(window=self.window, max_cv=self.max_cv, max_trend=self.max_trend, precision=self.precision,
                    max_step=self.max_step)


def point_of(p: SteadyPoint) -> Point:
    name = p.path.strip("/").split("/")[0] or "root"
    return point(f"{name} c={p.connections}", path=p.path, connections=p.connections, method="GET")


def headline_point(points: list[SteadyPoint]) -> SteadyPoint | None:
    """The point whose throughput a launch gives the rounds and whose rate the open-loop point
    takes a fraction of: the first measured one at the most connections (as the report's
    headline.cells reads them). Later points at as many connections are further request shapes
    on the warm launch; a point before it at fewer may be the JIT's warm-up."""
    measured = [p for p in points if p.measure]
    return max(measured, key=lambda p: p.connections) if measured else None
