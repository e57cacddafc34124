"""Where an instance runs and how it is loaded: the seam between the scenarios and a placement.

A scenario launches instances and sends load only through its run's placement (``ctx.lab.placement``):
``instance(spec, tag=..., port=...)`` gives an instance of the app/mode (not started; ``start()``,
``wait_until_ready()``, ``first_response()``, ``sampler``, ``check_alive()``, ``stop()``), and
``load`` sends closed-loop, interval-by-interval, open-loop or spread load to a URL the instance
gives (``load_url``; the lab's own requests go to ``base_url``); ``budget`` groups instances that
share one memory budget (density). On one machine (perflab.placements.local) an instance is a process in its own
cgroup and the load generator runs pinned to the driver's CPUs; the placement decides where the
load generator runs, so a scenario never names CPUs or a driver binary for it.

What a placement cannot do for a scenario is declared by the scenario (``Scenario.not_on``, one
reason per placement kind), and a run on that placement records it as unavailable with that reason
(perflab.runner records it before the app/mode's first step; what only the placement knows once the run
has begun, e.g. that a cluster has no Knative for cold start, its `unable` says).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Protocol, Sequence

if TYPE_CHECKING:
    from perflab.drivers.base import LoadResult
    from perflab.drivers.wrk import IntervalRuns
    from perflab.instance import Instance, InstanceSpec
    from perflab.probes import PollResult

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

    def spread(self, urls: Sequence[str], *, connections_per_url: int, duration_s: int,
               timeout_s: float = 2.0) -> "LoadResult":
        """All of `urls` (instances) loaded together, counted as one load."""
        ...

    def threads_for(self, connections: int) -> int:
        """A closed loop's driver threads for `connections`: one per driver CPU, at most one per connection."""
        ...


class BudgetGroup(Protocol):
    """Instances that share one memory budget (density): on one machine a cgroup whose memory limit
    is the budget, on a cluster a namespace whose ResourceQuota is."""

    enforced: bool  # whether the budget is enforced (the kernel, or the quota), not just compared against

    def instance(self, spec: "InstanceSpec", *, tag: str, port: int | None = None) -> "Instance": ...

    def memory_current(self) -> int | None: ...

    def cpu_usage_s(self) -> float | None: ...

    def oom_kills(self) -> int | None: ...

    def describe(self) -> dict: ...

    def close(self) -> None: ...


class ColdLaunch(Protocol):
    """What a cold-start launch gives: its time to first response, then its end."""

    def first_response(self, path: str, timeout_s: float, interval_ms: float = 5.0) -> "PollResult": ...

    def stop(self) -> object: ...


class Placement(Protocol):
    kind: str
    load: LoadGenerator

    def instance(self, spec: "InstanceSpec", *, tag: str = "", port: int | None = None) -> "Instance": ...

    def budget(self, name: str, budget_mb: int, spec: "InstanceSpec") -> BudgetGroup:
        """A group of `spec`'s instances sharing `budget_mb`, named after `name`; closed by the caller."""
        ...

    def cold(self, spec: "InstanceSpec", tag: str) -> "ColdLaunch":
        """A cold-start launch of `spec`: on one machine a fresh process; on a cluster the app/mode's
        Knative Service at zero, whose first response is the first request it gets."""
        ...

    def unable(self, scenario: str) -> str:
        """Why this placement, as found at the start of the run, cannot run `scenario` (e.g. a cluster
        without Knative for cold start); "" where it can. A scenario's own `not_on` says the rest."""
        ...
