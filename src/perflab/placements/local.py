"""The placement on one machine: each instance a process in its own cgroup under the plan's limits
(perflab.instance), the load generators (wrk closed loop, oha open loop) pinned to the driver's CPUs,
never the app's."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit
from typing import Mapping, Sequence

from perflab import isolate
from perflab.drivers import oha, wrk
from perflab.drivers.base import LoadResult
from perflab.instance import Instance, InstanceSpec
from perflab.placements import LOCAL


@dataclass(frozen=True)
class PinnedLoad:
    """wrk and oha on the driver's CPUs (none given: wherever the lab itself may run)."""

    cpus: tuple[int, ...] = ()

    @property
    def _pinned(self) -> list[int] | None:
        return list(self.cpus) or None

    def closed(self, url: str, *, connections: int, threads: int, duration_s: int, warmup_s: int = 0,
               timeout_s: float = 2.0, script: str | Path | None = None,
               script_args: Mapping[str, str] | None = None) -> LoadResult:
        return wrk.run_wrk(url, connections=connections, threads=threads, duration_s=duration_s, warmup_s=warmup_s,
                           timeout_s=timeout_s, cpus=self._pinned, script=script, script_args=script_args)

    def closed_intervals(self, url: str, *, interval_s: int, connections: int, threads: int, duration_s: int,
                         warmup_s: int = 0, timeout_s: float = 2.0, script: str | Path | None = None,
                         script_args: Mapping[str, str] | None = None) -> wrk.IntervalRuns:
        return wrk.run_wrk_intervals(url, interval_s=interval_s, connections=connections, threads=threads,
                                     duration_s=duration_s, warmup_s=warmup_s, timeout_s=timeout_s,
                                     cpus=self._pinned, script=script, script_args=script_args)

    def open(self, url: str, *, rate: float | None, duration_s: float, connections: int = 50,
             warmup_s: float = 0.0, timeout_s: float = 2.0, **request) -> LoadResult:
        return oha.run_oha(url, rate=rate, duration_s=duration_s, connections=connections, warmup_s=warmup_s,
                           timeout_s=timeout_s, cpus=self._pinned, **request)

    def spread(self, urls: Sequence[str], *, connections_per_url: int, duration_s: int,
               timeout_s: float = 2.0) -> LoadResult:
        """One wrk whose threads each load one of `urls` (instances on this machine: the same host
        and path, each its own port)."""
        ports = [urlsplit(u).port for u in urls]
        return wrk.run_wrk_spread(urls[0], ports, connections_per_port=connections_per_url, duration_s=duration_s,
                                  cpus=self._pinned, timeout_s=timeout_s)

    def threads_for(self, connections: int) -> int:
        return max(1, min(connections, len(self.cpus)))


@dataclass(frozen=True)
class LocalPlacement:
    load: PinnedLoad
    kind: str = LOCAL

    @classmethod
    def on(cls, driver_cpus: Sequence[int]) -> "LocalPlacement":
        return cls(PinnedLoad(tuple(driver_cpus)))

    def instance(self, spec: InstanceSpec, *, tag: str = "", port: int | None = None) -> Instance:
        return Instance(spec, port=port, tag=tag)

    def cold(self, spec: InstanceSpec, tag: str) -> Instance:
        """A cold-start launch: a fresh process, started."""
        return Instance(spec, tag=tag).start()

    def unable(self, scenario: str) -> str:
        return ""  # what cannot run on one machine is the scenario's to say (Scenario.not_on)

    def budget(self, name: str, budget_mb: int, spec: InstanceSpec) -> "CgroupBudget":
        limits = isolate.Limits(cpus=spec.limits.cpus, cpu_quota=spec.limits.cpu_quota, memory_mb=budget_mb)
        group = isolate.Cgroup(spec.run_id, name, limits, setup=spec.setup)
        group.oom_kill_single_members()  # the instances stand for separate pods: the kernel kills only the one it chooses
        return CgroupBudget(group, budget_mb)


@dataclass
class CgroupBudget:
    """Density's budget on one machine: one cgroup whose memory limit is the budget, every instance in it."""

    cgroup: isolate.Cgroup
    budget_mb: int

    @property
    def enforced(self) -> bool:
        return bool(self.cgroup.enforced.get("memory"))

    def instance(self, spec: InstanceSpec, *, tag: str, port: int | None = None) -> Instance:
        return Instance(replace(spec, limits=replace(spec.limits, memory_mb=self.budget_mb), cgroup=self.cgroup),
                        port=port, tag=tag)

    def memory_current(self) -> int | None:
        return self.cgroup.memory_current()

    def cpu_usage_s(self) -> float | None:
        return self.cgroup.cpu_usage_s()

    def oom_kills(self) -> int | None:
        return self.cgroup.oom_kills()

    def describe(self) -> dict:
        return self.cgroup.describe()

    def close(self) -> None:
        self.cgroup.close()
