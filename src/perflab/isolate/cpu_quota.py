"""A CPU limit in cores (1, 0.5, 1.5), as Kubernetes users set it, and how it holds on this machine:
a CFS quota of cores x period per period, on a cpuset of the whole CPUs the quota needs."""

from __future__ import annotations

import math

CFS_PERIOD_US = 100_000
MIN_QUOTA_US = 1000  # the kernel refuses CFS quotas under 1 ms
# The smallest limit both placements can hold: 1 ms of a 100 ms period here, 10 millicores there.
MIN_CORES = MIN_QUOTA_US / CFS_PERIOD_US


def quota_us(cores: float, period_us: int = CFS_PERIOD_US) -> int:
    """The CFS quota (cpu.cfs_quota_us, cpu.max's first field) that gives `cores` per period."""
    return max(MIN_QUOTA_US, round(cores * period_us))


def cpuset_size(cores: float) -> int:
    """Whole CPUs the quota needs to be reachable: 0.5 runs on one CPU, 1.5 on two."""
    return max(1, math.ceil(cores - 1e-9))


def check_cores(cores: float, machine_cpus: int | None, where: str = "limits.cpus") -> None:
    """A clear error for a limit no placement can hold; `machine_cpus` None skips the upper bound
    (on a cluster the nodes' size is the scheduler's to check)."""
    if not cores >= MIN_CORES:
        raise ValueError(f"{where} must be at least {MIN_CORES} (1 ms of CPU time per 100 ms), got {cores!r}")
    if round(cores * 1000, 6) != round(cores * 1000):
        raise ValueError(f"{where} = {cores!r} is finer than a millicore (0.001 CPU); Kubernetes cannot express it")
    if machine_cpus is not None and cores > machine_cpus:
        raise ValueError(f"{where} = {cores} is more CPUs than this machine has ({machine_cpus})")
