"""Container-like limits without a container engine.

Each role of a run (app, db, driver) gets its own cgroup, "perflab/<run-id>/<role>", on cgroup v2
or in each cgroup v1 hierarchy (cpu, cpuacct, cpuset, memory), with a cpuset, a CPU quota and a
memory limit (swap disabled). Without the rights to create cgroups the lab falls back to CPU
affinity and says so in `Cgroup.enforced`; it never pretends a limit held when it did not.

`plan_topology` decides which CPUs the app, the DB and the load driver get.
"""

from __future__ import annotations

import errno
import math
import os
import re
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

LAB_GROUP = "perflab"
CGROUP_ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("cpu", "cpuacct", "cpuset", "memory")
V2_CONTROLLERS = ("cpu", "cpuset", "memory")
CFS_PERIOD_US = 100_000
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
# Errors that mean "no rights here", as opposed to a bad limit or a bug.
_NO_RIGHTS = {errno.EACCES, errno.EPERM, errno.EROFS}


class CgroupError(RuntimeError):
    """A cgroup could not be created, filled, emptied or removed."""


# --------------------------------------------------------------------------------------------
# Detection
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CgroupSetup:
    """Which cgroup interface the lab can use here, and why."""

    kind: str  # "v2", "v1" or "none"
    reason: str
    v2_base: Path | None = None  # where "perflab/" is created on v2
    v2_controllers: frozenset[str] = frozenset()
    v1_mounts: dict[str, Path] = field(default_factory=dict)  # controller -> hierarchy mount

    @property
    def usable(self) -> bool:
        return self.kind in ("v2", "v1")

    @property
    def description(self) -> str:
        return f"{self.kind}: {self.reason}"

    def lab_dirs(self) -> list[Path]:
        """The "perflab" parent directory in every hierarchy the lab uses."""
        if self.kind == "v2" and self.v2_base is not None:
            return [self.v2_base / LAB_GROUP]
        if self.kind == "v1":
            return [mount / LAB_GROUP for mount in _distinct(self.v1_mounts.values())]
        return []

    @staticmethod
    def none(reason: str) -> "CgroupSetup":
        return CgroupSetup(kind="none", reason=reason)


@dataclass(frozen=True)
class _Mount:
    path: Path
    fstype: str
    options: frozenset[str]


def _parse_mounts(text: str) -> list[_Mount]:
    mounts = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 4 or parts[2] not in ("cgroup", "cgroup2"):
            continue
        # /proc/mounts escapes blanks in paths as octal (\040).
        path = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), parts[1])
        mounts.append(_Mount(Path(path), parts[2], frozenset(parts[3].split(","))))
    return mounts


def _writable(path: Path) -> bool:
    # access() reports EROFS for read-only mounts, and the caller's rights otherwise.
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


def _own_v2_path(proc_cgroup: Path) -> str | None:
    text = _read_text(proc_cgroup) or ""
    for line in text.splitlines():
        if line.startswith("0::"):
            return line[3:].strip() or "/"
    return None


def _choose_v2_base(mount: Path, proc_cgroup: Path) -> tuple[Path | None, str]:
    """The mount root when we may write there (root), else the highest delegated ancestor."""
    if _writable(mount):
        return mount, ""
    own = _own_v2_path(proc_cgroup)
    if own is None:
        return None, f"cgroup2 at {mount} is not writable and this process has no v2 cgroup"
    current = mount
    for part in [p for p in own.split("/") if p]:
        current = current / part
        if _writable(current) and os.access(current / "cgroup.subtree_control", os.W_OK):
            procs = (_read_text(current / "cgroup.procs") or "").split()
            if procs:
                return None, (f"delegated cgroup {current} holds processes, so controllers cannot "
                              "be enabled below it (cgroup v2 'no internal processes' rule)")
            return current, ""
    return None, f"no writable (delegated) cgroup under {mount} for uid {os.geteuid()}"


def detect_cgroups(mounts_file: Path | str = "/proc/self/mounts",
                   proc_cgroup: Path | str = "/proc/self/cgroup") -> CgroupSetup:
    """Say whether cgroup v2, v1 or nothing usable is available here, and why.

    v2 is preferred when its cpu and memory controllers are free for delegation; on a hybrid
    machine whose controllers are bound to v1 hierarchies, v1 is used.
    """
    mounts = _parse_mounts(_read_text(Path(mounts_file)) or "")
    reasons: list[str] = []

    for mount in (m for m in mounts if m.fstype == "cgroup2"):
        controllers = frozenset((_read_text(mount.path / "cgroup.controllers") or "").split())
        lacking = sorted({"cpu", "memory"} - controllers)
        if lacking:
            reasons.append(f"cgroup2 at {mount.path} offers controllers "
                           f"[{' '.join(sorted(controllers)) or 'none'}]; "
                           f"{', '.join(lacking)} not available (bound to v1 or disabled)")
            continue
        base, why = _choose_v2_base(mount.path, Path(proc_cgroup))
        if base is None:
            reasons.append(why)
            continue
        extra = "" if "cpuset" in controllers else " (no cpuset controller: CPUs by affinity)"
        return CgroupSetup(kind="v2", reason=f"cgroup v2 at {base}, controllers "
                           f"{' '.join(sorted(controllers & set(V2_CONTROLLERS)))}{extra}",
                           v2_base=base, v2_controllers=controllers)

    v1: dict[str, Path] = {}
    for mount in (m for m in mounts if m.fstype == "cgroup"):
        for controller in V1_CONTROLLERS:
            if controller in mount.options and controller not in v1:
                v1[controller] = mount.path
    if v1:
        missing = [c for c in ("cpu", "memory") if c not in v1]
        not_writable = [str(p) for p in _distinct(v1.values()) if not _writable(p)]
        if missing:
            reasons.append(f"cgroup v1 lacks the {', '.join(missing)} hierarchy")
        elif not_writable:
            why = "read-only" if _read_only(Path(not_writable[0])) else f"uid {os.geteuid()} has no rights"
            reasons.append(f"cgroup v1 hierarchies not writable ({why}): {', '.join(not_writable)}")
        else:
            absent = [c for c in V1_CONTROLLERS if c not in v1]
            note = f"; missing {', '.join(absent)}" if absent else ""
            return CgroupSetup(kind="v1", reason="cgroup v1 hierarchies "
                               f"{', '.join(f'{c}={p}' for c, p in v1.items())}{note}",
                               v1_mounts=v1)
    elif not reasons:
        reasons.append("no cgroup filesystem mounted")
    return CgroupSetup.none("; ".join(reasons))


def detect() -> CgroupSetup:
    """Short name for detect_cgroups() on this machine (used by `perflab doctor`)."""
    return detect_cgroups()


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


# --------------------------------------------------------------------------------------------
# Limits and one role's cgroup
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """Container-like limits for one role. None means "no limit of this kind"."""

    cpus: list[int] | None = None      # cpuset (and affinity)
    cpu_quota: float | None = None     # cores, e.g. 1.0 or 0.5
    memory_mb: int | None = None       # hard limit, swap disabled

    def __post_init__(self) -> None:
        if self.cpus is not None and (not self.cpus or any(c < 0 for c in self.cpus)):
            raise ValueError(f"cpus must be a non-empty list of CPU numbers, got {self.cpus!r}")
        if self.cpu_quota is not None and self.cpu_quota <= 0:
            raise ValueError(f"cpu_quota must be > 0 cores, got {self.cpu_quota!r}")
        if self.memory_mb is not None and self.memory_mb <= 0:
            raise ValueError(f"memory_mb must be > 0, got {self.memory_mb!r}")

    @property
    def memory_bytes(self) -> int | None:
        return None if self.memory_mb is None else int(self.memory_mb) * 1024 * 1024


class Cgroup:
    """The cgroup of one role of one run, created on construction.

    Launch the role's process with `subprocess.Popen(..., preexec_fn=cg.preexec)`: the child joins
    the group (and takes the CPU affinity) before exec, so every descendant is inside too.
    Use as a context manager, or call `close()`: it kills what is left and removes the group.
    """

    def __init__(self, run_id: str, role: str, limits: Limits | None = None,
                 setup: CgroupSetup | None = None) -> None:
        _check_name("run id", run_id)
        _check_name("role", role)
        self.run_id = run_id
        self.role = role
        self.limits = limits or Limits()
        self.setup = setup if setup is not None else detect_cgroups()
        self.dirs: list[Path] = []          # this role's directory in each hierarchy
        self._dir_of: dict[str, Path] = {}  # controller -> this role's directory
        self._marker: Path | None = None
        self._v2_active: set[str] = set()
        self.notes: list[str] = []
        self.cpus = sorted(set(self.limits.cpus)) if self.limits.cpus else None
        if self.cpus is not None:
            # Online CPUs, not this process's affinity: the lab may have pinned itself elsewhere.
            online = online_cpus()
            if not set(self.cpus) <= online:
                raise ValueError(f"CPUs {self.cpus} are not all available here "
                                 f"(online: {_cpu_list(sorted(online))})")

        self.mode = "affinity-only"
        why_not = self.setup.reason
        if self.setup.usable:
            try:
                self._create()
                self.mode = self.setup.kind
            except OSError as exc:
                self._remove_dirs(strict=False)
                if exc.errno not in _NO_RIGHTS:
                    raise CgroupError(f"cannot set up cgroup {self.name}: {exc}") from exc
                why_not = f"cannot create cgroup {self.name}: {exc}"
        self.enforced = self._enforcement(why_not)
        self._procs_paths = [os.fsencode(d / "cgroup.procs") for d in self.dirs]

    @property
    def name(self) -> str:
        return f"{LAB_GROUP}/{self.run_id}/{self.role}"

    # --- creation ---------------------------------------------------------------------------

    def _create(self) -> None:
        lab_dirs = (self.setup.lab_dirs() if self.setup.kind == "v1"
                    else [self.setup.v2_base / LAB_GROUP] if self.setup.v2_base else [])
        for lab in lab_dirs:
            if _read_pids(lab / self.run_id / self.role / "cgroup.procs"):
                raise CgroupError(f"cgroup {lab / self.run_id / self.role} already holds processes")
        self._marker = _claim_run(self.run_id)
        if self.setup.kind == "v2":
            self._create_v2()
        else:
            self._create_v1()

    def _create_v1(self) -> None:
        by_mount: dict[Path, list[str]] = {}
        for controller, mount in self.setup.v1_mounts.items():
            by_mount.setdefault(mount, []).append(controller)
        for mount, controllers in by_mount.items():
            chain = [mount / LAB_GROUP, mount / LAB_GROUP / self.run_id, mount / self.name]
            role_dir = chain[-1]
            for directory in chain:
                directory.mkdir(exist_ok=True)
                if directory == role_dir:
                    self.dirs.append(role_dir)  # from now on, teardown removes it
                if "cpuset" in controllers:
                    # v1 cpusets start empty: a task cannot join until cpus and mems are set.
                    _init_v1_cpuset(directory, self.cpus if directory == role_dir else None)
            for controller in controllers:
                self._dir_of[controller] = role_dir

        if self.limits.cpu_quota is not None and "cpu" in self._dir_of:
            cpu_dir = self._dir_of["cpu"]
            _write(cpu_dir / "cpu.cfs_period_us", CFS_PERIOD_US)
            _write(cpu_dir / "cpu.cfs_quota_us", _quota_us(self.limits.cpu_quota))
        mem_dir = self._dir_of["memory"]
        limit = self.limits.memory_bytes
        if limit is not None:
            _write(mem_dir / "memory.limit_in_bytes", limit)
            # mem+swap = mem: the group cannot use swap, as with `docker --memory-swap=--memory`.
            if (mem_dir / "memory.memsw.limit_in_bytes").exists():
                _write(mem_dir / "memory.memsw.limit_in_bytes", limit)
            elif _swap_present():
                self.notes.append("swap is on and memory.memsw is absent: swap not limited")
            if (mem_dir / "memory.swappiness").exists():
                _write(mem_dir / "memory.swappiness", 0)

    def _create_v2(self) -> None:
        assert self.setup.v2_base is not None
        base = self.setup.v2_base
        wanted = [c for c in V2_CONTROLLERS if c in self.setup.v2_controllers]
        active: set[str] = set(wanted)
        for directory in (base, base / LAB_GROUP, base / LAB_GROUP / self.run_id):
            directory.mkdir(exist_ok=True)
            active &= _enable_v2_controllers(directory, wanted)
        self._v2_active = active
        role_dir = base / self.name
        role_dir.mkdir(exist_ok=True)
        self.dirs.append(role_dir)
        for controller in active | {"cpu"}:  # cpu.stat exists even without the cpu controller
            self._dir_of[controller] = role_dir

        if self.cpus is not None and "cpuset" in active:
            _write(role_dir / "cpuset.cpus", _cpu_list(self.cpus))
        if self.limits.cpu_quota is not None and "cpu" in active:
            _write(role_dir / "cpu.max", f"{_quota_us(self.limits.cpu_quota)} {CFS_PERIOD_US}")
        limit = self.limits.memory_bytes
        if limit is not None and "memory" in active:
            _write(role_dir / "memory.max", limit)
            if (role_dir / "memory.swap.max").exists():
                _write(role_dir / "memory.swap.max", 0)
            elif _swap_present():
                self.notes.append("swap is on and memory.swap.max is absent: swap not limited")
        if "memory" in active and (role_dir / "memory.oom.group").exists():
            # An OOM kill takes the whole group, as a container runtime does.
            _write(role_dir / "memory.oom.group", 1)

    def _enforcement(self, why_not: str) -> dict:
        """What actually holds, per kind of limit, with the reason when something does not."""
        lim = self.limits
        if self.mode == "affinity-only":
            affinity = (f"CPU affinity {_cpu_list(self.cpus)} only" if self.cpus
                        else "no CPU affinity requested")
            return {"cpu": False, "memory": False,
                    "reason": f"limits not enforced ({why_not}); {affinity}"}
        gaps: list[str] = []
        cpu_ok = lim.cpus is not None or lim.cpu_quota is not None
        if not cpu_ok:
            gaps.append("no CPU limit requested")
        if lim.cpus is not None and not self._controls("cpuset"):
            gaps.append("no cpuset controller: CPUs held by affinity only")
            cpu_ok = False
        if lim.cpu_quota is not None and not self._controls("cpu"):
            gaps.append("no cpu controller: CPU quota not applied")
            cpu_ok = False
        mem_ok = lim.memory_mb is not None and self._controls("memory")
        if lim.memory_mb is None:
            gaps.append("no memory limit requested")
        elif not mem_ok:
            gaps.append("no memory controller: memory limit not applied")
        details = "; ".join(gaps + self.notes)
        return {"cpu": cpu_ok, "memory": mem_ok,
                "reason": f"cgroup {self.mode} {self.name}" + (f"; {details}" if details else "")}

    def _controls(self, controller: str) -> bool:
        if self.mode == "v2":
            return controller in self._v2_active
        return controller in self._dir_of

    # --- launching --------------------------------------------------------------------------

    @property
    def preexec(self) -> Callable[[], None]:
        """For Popen(preexec_fn=...): join the group, then pin to the CPUs, before exec.

        Runs in the forked child, so it only does raw system calls on values prepared here.
        """
        procs_paths = list(self._procs_paths)
        cpus = set(self.cpus) if self.cpus else None

        def join_group() -> None:
            pid = str(os.getpid()).encode()
            for path in procs_paths:
                fd = os.open(path, os.O_WRONLY)
                try:
                    os.write(fd, pid)
                finally:
                    os.close(fd)
            if cpus is not None:
                os.sched_setaffinity(0, cpus)

        return join_group

    def add_pid(self, pid: int) -> None:
        """Move an already running process (not its existing children) into the group."""
        for path in self._procs_paths:
            _write(Path(os.fsdecode(path)), pid)
        if self.cpus is not None:
            os.sched_setaffinity(pid, set(self.cpus))

    # --- readings (None when not measured by a cgroup) --------------------------------------

    def memory_current(self) -> int | None:
        """Bytes charged to the group now (includes page cache, as a container's figure does)."""
        return _read_int(self._file("memory", "memory.current", "memory.usage_in_bytes"))

    def memory_peak(self) -> int | None:
        """The kernel's own high-water mark of the group's memory (not sampled).
        None on v2 kernels older than 5.19, which have no memory.peak."""
        return _read_int(self._file("memory", "memory.peak", "memory.max_usage_in_bytes"))

    def oom_kills(self) -> int | None:
        """How many processes the kernel OOM-killed in this group."""
        return _read_keyed(self._file("memory", "memory.events", "memory.oom_control"),
                           "oom_kill")

    def cpu_usage_s(self) -> float | None:
        """CPU seconds used by everything that ran in the group."""
        if self.mode == "v2":
            usec = _read_keyed(self._file("cpu", "cpu.stat", ""), "usage_usec")
            return None if usec is None else usec / 1e6
        nsec = _read_int(self._file("cpuacct", "", "cpuacct.usage"))
        return None if nsec is None else nsec / 1e9

    def _file(self, controller: str, v2_name: str, v1_name: str) -> Path | None:
        directory = self._dir_of.get(controller)
        if directory is None or self.mode not in ("v1", "v2"):
            return None
        return directory / (v2_name if self.mode == "v2" else v1_name)

    def pids(self) -> list[int]:
        found: set[int] = set()
        for directory in self.dirs:
            found.update(_read_pids(directory / "cgroup.procs"))
        return sorted(found)

    def describe(self) -> dict:
        """What a result should record about the limits of this role."""
        return {"group": self.name, "mode": self.mode, "cpus": self.cpus,
                "cpu_quota": self.limits.cpu_quota, "memory_mb": self.limits.memory_mb,
                "enforced": dict(self.enforced)}

    # --- teardown ---------------------------------------------------------------------------

    def kill_all(self, timeout_s: float = 10.0) -> int:
        """SIGKILL every process in the group until it is empty; returns how many were sent."""
        return _kill_group(self.dirs, timeout_s)

    def remove(self, timeout_s: float = 10.0) -> None:
        """Kill what is left, then remove the role's group (and the run's, when it is empty)."""
        if not self.dirs:
            return
        self.kill_all(timeout_s)
        self._remove_dirs(strict=True, timeout_s=timeout_s)

    def _remove_dirs(self, strict: bool, timeout_s: float = 5.0) -> None:
        for directory in self.dirs:
            _rmdir_retry(directory, timeout_s, strict)
        self.dirs = []
        run_dirs = [lab / self.run_id for lab in self.setup.lab_dirs()]
        for run_dir in run_dirs:
            try:
                run_dir.rmdir()
            except OSError:
                pass  # another role of the run is still there
        if self._marker is not None and not any(d.exists() for d in run_dirs):
            self._marker.unlink(missing_ok=True)

    def close(self) -> None:
        self.remove()

    def __enter__(self) -> "Cgroup":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Cgroup({self.name!r}, mode={self.mode!r}, limits={self.limits!r})"


# --------------------------------------------------------------------------------------------
# Crashed runs
# --------------------------------------------------------------------------------------------


def owner_dir() -> Path:
    """Where each run records its owning process, so leftovers of crashed runs can be told apart
    from groups of a run still going on. Lives as long as cgroups do (until reboot) where it can."""
    override = os.environ.get("PERFLAB_RUNTIME_DIR")
    if override:
        return Path(override) / "cgroup-owners"
    if os.geteuid() == 0 and os.access("/run", os.W_OK):
        return Path("/run") / LAB_GROUP / "cgroup-owners"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.access(runtime, os.W_OK):
        return Path(runtime) / LAB_GROUP / "cgroup-owners"
    return Path(tempfile.gettempdir()) / f"{LAB_GROUP}-{os.geteuid()}" / "cgroup-owners"


def _claim_run(run_id: str) -> Path:
    """Record this process as the run's owner before any of its groups exist."""
    marker = owner_dir() / run_id
    marker.parent.mkdir(parents=True, exist_ok=True)
    if not _owner_alive(marker):
        marker.write_text(f"{os.getpid()} {_start_ticks(os.getpid())}\n")
    return marker


def _owner_alive(marker: Path) -> bool:
    fields = (_read_text(marker) or "").split()
    if len(fields) != 2 or not fields[0].isdigit():
        return False
    pid, ticks = int(fields[0]), fields[1]
    stat = _read_text(Path(f"/proc/{pid}/stat"))
    if stat is None:
        return False
    rest = stat[stat.rfind(")") + 2:].split()
    return rest[0] not in ("Z", "X") and rest[19] == ticks


def _start_ticks(pid: int) -> str:
    stat = _read_text(Path(f"/proc/{pid}/stat")) or ""
    rest = stat[stat.rfind(")") + 2:].split()
    return rest[19] if len(rest) > 19 else "0"


def cleanup_stale(setup: CgroupSetup | None = None, timeout_s: float = 10.0) -> list[str]:
    """Remove the perflab groups of runs whose owning process is gone (crashed runs), killing
    any process still in them. Groups of live runs are left alone. Returns the run ids removed."""
    setup = setup if setup is not None else detect_cgroups()
    run_ids: set[str] = set()
    for lab in setup.lab_dirs():
        if lab.is_dir():
            run_ids.update(p.name for p in lab.iterdir() if p.is_dir())
    markers = owner_dir()
    if markers.is_dir():
        run_ids.update(p.name for p in markers.iterdir())
    removed = []
    for run_id in sorted(run_ids):
        marker = markers / run_id
        if _owner_alive(marker):
            continue
        run_dirs = [lab / run_id for lab in setup.lab_dirs() if (lab / run_id).is_dir()]
        groups = [d for run_dir in run_dirs for d in _groups_below(run_dir)]
        _kill_group(groups, timeout_s)
        for group in groups:  # deepest first
            _rmdir_retry(group, timeout_s, strict=True)
        marker.unlink(missing_ok=True)
        removed.append(run_id)
    return removed


def _groups_below(directory: Path) -> list[Path]:
    """The directory and every cgroup below it, deepest first (the order rmdir needs)."""
    found = [directory]
    for child in directory.iterdir():
        if child.is_dir():
            found[:0] = _groups_below(child)
    return found


def _kill_group(dirs: Sequence[Path], timeout_s: float) -> int:
    """SIGKILL until no process is left; loops because a process may fork while being killed."""
    for directory in dirs:
        if (directory / "cgroup.kill").exists():
            try:
                _write(directory / "cgroup.kill", 1)  # v2, kernel >= 5.14: atomic
            except OSError:
                pass
    sent = 0
    deadline = time.monotonic() + timeout_s
    while True:
        pids = sorted({p for d in dirs for p in _read_pids(d / "cgroup.procs")})
        if not pids:
            return sent
        if time.monotonic() > deadline:
            raise CgroupError(f"processes {pids} still in {', '.join(map(str, dirs))} "
                              f"after {timeout_s} s of SIGKILL")
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                sent += 1
            except ProcessLookupError:
                pass
        time.sleep(0.01)


def _rmdir_retry(directory: Path, timeout_s: float, strict: bool) -> None:
    # A group just emptied may stay busy for a moment while the kernel finishes the exits.
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            directory.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                if strict:
                    raise CgroupError(f"cannot remove cgroup {directory}: {exc}") from exc
                return
            time.sleep(0.01)


# --------------------------------------------------------------------------------------------
# CPU topology
# --------------------------------------------------------------------------------------------


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
    app_cpus = math.ceil(app_cpus)
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


# --------------------------------------------------------------------------------------------
# Small file helpers (cgroup files are tiny; errors are the caller's business)
# --------------------------------------------------------------------------------------------


def _check_name(what: str, value: str) -> None:
    if not _NAME_RE.match(value):
        raise ValueError(f"{what} {value!r} must be letters, digits, '.', '_' or '-'")


def _cpu_list(cpus: Sequence[int] | None) -> str:
    return ",".join(str(c) for c in sorted(cpus or []))


def _cpus_word(cpus: Sequence[int]) -> str:
    return f"CPU{'s' if len(cpus) > 1 else ''} {_cpu_list(cpus)}"


def _quota_us(cores: float) -> int:
    return max(1000, round(cores * CFS_PERIOD_US))  # the kernel refuses quotas under 1 ms


def _distinct(paths: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))


def _write(path: Path, value: object) -> None:
    with open(path, "w") as fh:
        fh.write(str(value))


def _read_text(path: Path) -> str | None:
    try:
        with open(path) as fh:
            return fh.read()
    except (FileNotFoundError, ProcessLookupError, PermissionError, NotADirectoryError):
        return None


def _read_int(path: Path | None) -> int | None:
    text = None if path is None else _read_text(path)
    if text is None or not text.strip() or text.strip() == "max":
        return None
    return int(text.split()[0])


def _read_keyed(path: Path | None, key: str) -> int | None:
    """A value from a "key value" per line file (memory.events, cpu.stat, memory.oom_control)."""
    text = None if path is None else _read_text(path)
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            return int(parts[1])
    return None


def _read_pids(path: Path) -> list[int]:
    return [int(p) for p in (_read_text(path) or "").split()]


def online_cpus() -> set[int]:
    """CPU numbers online on this machine (whatever this process's own affinity is)."""
    text = (_read_text(Path("/sys/devices/system/cpu/online")) or "").strip()
    found: set[int] = set()
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return found or set(range(os.cpu_count() or 1))


def _swap_present() -> bool:
    return len((_read_text(Path("/proc/swaps")) or "").splitlines()) > 1


def _init_v1_cpuset(directory: Path, cpus: Sequence[int] | None) -> None:
    parent = directory.parent
    for name in ("cpuset.cpus", "cpuset.mems"):
        current = (_read_text(directory / name) or "").strip()
        if name == "cpuset.cpus" and cpus is not None:
            _write(directory / name, _cpu_list(cpus))
        elif not current:
            _write(directory / name, (_read_text(parent / name) or "").strip())


def _enable_v2_controllers(directory: Path, wanted: Sequence[str]) -> set[str]:
    """Enable controllers for the children of `directory`; returns those now enabled."""
    control = directory / "cgroup.subtree_control"
    enabled = {c.lstrip("+") for c in (_read_text(control) or "").split()}
    missing = [c for c in wanted if c not in enabled]
    if missing:
        try:
            _write(control, " ".join(f"+{c}" for c in missing))
        except OSError:
            for controller in missing:  # one refusal must not block the others
                try:
                    _write(control, f"+{controller}")
                except OSError:
                    pass
        enabled = {c.lstrip("+") for c in (_read_text(control) or "").split()}
    return enabled & set(wanted)
