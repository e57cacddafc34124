"""Where an instance runs and how it is loaded: the seam between the scenarios and a placement.

A scenario launches instances and sends load only through its run's placement (``ctx.lab.placement``):
``instance(spec, tag=..., port=...)`` gives an instance of the app/mode (not started; ``start()``,
``wait_until_ready()``, ``first_response()``, ``sampler``, ``check_alive()``, ``stop()``), and
``load`` sends closed-loop, interval-by-interval, open-loop or spread load to a URL the instance
gives (``base_url``). On one machine (perflab.placements.local) an instance is a process in its own
cgroup and the load generator runs pinned to the driver's CPUs; the placement decides where the
load generator runs, so a scenario never names CPUs or a driver binary for it.

What a placement cannot do for a scenario is declared by the scenario (``Scenario.not_on``, one
reason per placement kind), and a run on that placement records it as unavailable with that reason
(today the cluster runner, perflab.kube.run).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Protocol, Sequence

if TYPE_CHECKING:
    from perflab.drivers.base import LoadResult
    from perflab.drivers.wrk import IntervalRuns
    from perflab.instance import Instance, InstanceSpec

LOCAL = "local"
KUBERNETES = "kubernetes"


class LoadGenerator(Protocol):
    """The load a scenario sends, in the load's own terms (the placement adds where it runs)."""

    def closed(self, url: str, *, connections: int, threads: int, duration_s: int, warmup_s: int = 0,
               timeout_s: float = 2.0, script: str | Path | None = None,
               script_args: Mapping[str, str] | None = None) -> "LoadResult": ...

    def closed_intervals(self, url: str, *, interval_s: int, connections: int, threads: int, duration_s: int,
                         warmup_s: int = 0, timeout_s: float = 2.0, script: str | Path | None = None,
                         script_args: Mapping[str, str] | None = None) -> "IntervalRuns": ...

    def open(self, url: str, *, rate: float | None, duration_s: float, connections: int = 50,
             warmup_s: float = 0.0, timeout_s: float = 2.0, **request) -> "LoadResult": ...

    def spread(self, url: str, ports: Sequence[int], *, connections_per_port: int, duration_s: int,
               timeout_s: float = 2.0) -> "LoadResult": ...

    def threads_for(self, connections: int) -> int:
        """A closed loop's driver threads for `connections`: one per driver CPU, at most one per connection."""
        ...


class Placement(Protocol):
    kind: str
    load: LoadGenerator

    def instance(self, spec: "InstanceSpec", *, tag: str = "", port: int | None = None) -> "Instance": ...
