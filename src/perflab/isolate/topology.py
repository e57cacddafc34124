"""Which CPUs the app, the DB and the load driver get (`plan_topology`), and which are online."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ._common import _read_text
from .cpu_quota import cpuset_size


@dataclass(frozen=True)
class Topology:
    """Which CPUs the app, the DB and the load driver get, and what that costs."""

    app: list[int]
    db: list[int]
    driver: list[int]
    app_exclusive: bool      # no other role runs on the app's CPUs
    shared: list[str]        # which roles share CPUs
    reductions: list[str]    # what was asked for and not given
    description: str

    def as_dict(self) -> dict:
        return {"app": self.app, "db": self.db, "driver": self.driver,
                "app_exclusive": self.app_exclusive, "shared": self.shared,
                "reductions": self.reductions, "description": self.description}


def plan_topology(ncpus: int | None = None, app_cpus: float = 1, *, db_cpus: int = 1,
                  driver_cpus: int | None = None,
                  cpus: Iterable[int] | None = None) -> Topology:
    """Place app, DB and load driver on CPUs.

    The app's CPUs are kept for the app alone whenever there are at least 2 CPUs (a driver on the
    app's CPU would measure itself). With one CPU left after the app, the driver and the DB
    share it. With more, the DB gets `db_cpus` of its own and the driver the rest (or
    `driver_cpus`). `cpus` gives the usable CPU numbers; by default those this process may use.
    A fractional `app_cpus` (a quota in cores, e.g. 1.5) gets the whole CPUs it needs (2).
    """
    if app_cpus <= 0 or db_cpus < 1 or (driver_cpus is not None and driver_cpus < 1):
        raise ValueError("app_cpus must be > 0, db_cpus and driver_cpus >= 1")
    app_cpus = cpuset_size(app_cpus)
    if cpus is not None:
        available = sorted(set(cpus))
    elif ncpus is not None:
        available = list(range(ncpus))
    else:
        available = sorted(os.sched_getaffinity(0))
    if not available:
        raise ValueError("no CPUs to place roles on")
    n = len(available)
    reductions: list[str] = []

    if n == 1:
        only = available[:1]
        if app_cpus > 1:
            reductions.append(f"app asked for {app_cpus} CPUs, got 1 (the machine has 1)")
        return Topology(app=only, db=only, driver=only, app_exclusive=False,
                        shared=[f"app, DB and driver share CPU {only[0]}"], reductions=reductions,
                        description=f"1 CPU: app, DB and load driver all share CPU {only[0]}; the "
                                    "app competes with the driver and the DB, so throughput and "
                                    "latency include their cost (flagged: not isolated)")

    app_n = min(app_cpus, n - 1)
    if app_n < app_cpus:
        reductions.append(f"app asked for {app_cpus} CPUs, got {app_n}: "
                          "one CPU is kept for the load driver and the DB")
    app, rest = available[:app_n], available[app_n:]

    if len(rest) == 1:
        side = rest
        if db_cpus > 1 or (driver_cpus or 1) > 1:
            reductions.append(f"driver and DB get CPU {side[0]} only")
        return Topology(app=app, db=side, driver=side, app_exclusive=True,
                        shared=[f"driver and DB share CPU {side[0]}"], reductions=reductions,
                        description=f"{n} CPUs: app alone on {_cpus_word(app)}; load driver "
                                    f"and PostgreSQL share CPU {side[0]}, so the app's CPU is the "
                                    "app's alone but the driver competes with the DB (a "
                                    "driver-bound point may be the DB's doing)")

    db_n = min(db_cpus, len(rest) - 1)
    if db_n < db_cpus:
        reductions.append(f"DB asked for {db_cpus} CPUs, got {db_n}")
    room = len(rest) - db_n
    driver_n = room if driver_cpus is None else min(driver_cpus, room)
    if driver_cpus is not None and driver_n < driver_cpus:
        reductions.append(f"driver asked for {driver_cpus} CPUs, got {driver_n}")
    driver, db = rest[:driver_n], rest[room:room + db_n]
    idle = rest[driver_n:room]
    return Topology(app=app, db=db, driver=driver, app_exclusive=True, shared=[],
                    reductions=reductions,
                    description=f"{n} CPUs: app on {_cpus_word(app)}, load driver on "
                                f"{_cpus_word(driver)}, PostgreSQL on {_cpus_word(db)}; no role "
                                "shares a CPU" + (f"; CPUs {_cpu_list(idle)} left idle"
                                                  if idle else ""))


def online_cpus() -> set[int]:
    """CPU numbers online on this machine (whatever this process's own affinity is)."""
    text = (_read_text(Path("/sys/devices/system/cpu/online")) or "").strip()
    found: set[int] = set()
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return found or set(range(os.cpu_count() or 1))


def _cpu_list(cpus: Sequence[int] | None) -> str:
    return ",".join(str(c) for c in sorted(cpus or []))


def _cpus_word(cpus: Sequence[int]) -> str:
    return f"CPU{'s' if len(cpus) > 1 else ''} {_cpu_list(cpus)}"
