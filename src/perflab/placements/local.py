"""The placement on one machine: each instance a process in its own cgroup under the plan's limits
(perflab.instance), the load generators (wrk closed loop, oha open loop) pinned to the driver's CPUs,
never the app's."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

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

    def spread(self, url: str, ports: Sequence[int], *, connections_per_port: int, duration_s: int,
               timeout_s: float = 2.0) -> LoadResult:
        return wrk.run_wrk_spread(url, ports, connections_per_port=connections_per_port, duration_s=duration_s,
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
