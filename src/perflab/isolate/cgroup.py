"""One role's cgroup: created with its limits on v2 or v1 (or affinity only, said so), joined by the
role's process before exec, read for memory, CPU and OOM kills, emptied and removed."""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ._common import CgroupError, _read_int, _read_keyed, _read_pids, _read_text, _write
from .cpu_quota import CFS_PERIOD_US, quota_us
from .detection import LAB_GROUP, V2_CONTROLLERS, CgroupSetup, detect_cgroups
from .stale import _claim_run, _kill_group, _rmdir_retry
from .topology import _cpu_list, online_cpus

# '@' as in an app built against another framework version (quarkus@3.33.2); cgroupfs takes it (systemd's user@0.service)
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$")
# Errors that mean "no rights here", as opposed to a bad limit or a bug.
_NO_RIGHTS = {errno.EACCES, errno.EPERM, errno.EROFS}


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
            _write(cpu_dir / "cpu.cfs_quota_us", quota_us(self.limits.cpu_quota))
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
            _write(role_dir / "cpu.max", f"{quota_us(self.limits.cpu_quota)} {CFS_PERIOD_US}")
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

    def oom_kill_single_members(self) -> bool:
        """Let an OOM kill take only the member the kernel chooses, not the whole group.

        For a group whose members stand for separate containers (e.g. density's instances): on
        cgroup v2 the lab's groups otherwise kill every member on OOM, as a container does. Call
        it before the members start. Writes 0 to memory.oom.group wherever the group has one and
        says whether it did: False when it has none (v1, no memory controller, affinity only),
        where an OOM kill never takes the whole group anyway.
        """
        files = [d / "memory.oom.group" for d in self.dirs if (d / "memory.oom.group").exists()]
        for path in files:
            _write(path, 0)
        return bool(files)

    # --- readings (None when not measured by a cgroup) --------------------------------------

    def memory_current(self) -> int | None:
        """Bytes charged to the group now (includes page cache, as a container's figure does)."""
        return _read_int(self._file("memory", "memory.current", "memory.usage_in_bytes"))

    def memory_peak(self) -> int | None:
        """The kernel's own high-water mark of the group's memory (not sampled).
        None on v2 kernels older than 5.19, which have no memory.peak."""
        return _read_int(self._file("memory", "memory.peak", "memory.max_usage_in_bytes"))

    def memory_inactive_file(self) -> int | None:
        """Inactive file-backed pages charged to the group: what docker stats leaves out of a
        container's memory usage (it shows memory.current less these)."""
        if self.mode == "v2":
            return _read_keyed(self._file("memory", "memory.stat", ""), "inactive_file")
        return _read_keyed(self._file("memory", "", "memory.stat"), "total_inactive_file")

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

    def cpu_throttled_s(self) -> float | None:
        """Time the group's CPU quota held it off its CPUs (CFS bandwidth throttling), cumulative."""
        if self.mode == "v2":
            usec = _read_keyed(self._file("cpu", "cpu.stat", ""), "throttled_usec")
            return None if usec is None else usec / 1e6
        nsec = _read_keyed(self._file("cpu", "", "cpu.stat"), "throttled_time")
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

    # --- changing the CPUs while it runs -------------------------------------------------------

    def move_cpus(self, cpus: Sequence[int] | None, quota: float | None) -> int:
        """Give the running group other CPUs and another quota (a warm-up's boost, then its own limits
        again: `move_cpus(self.cpus, self.limits.cpu_quota)`). The cpuset and the CFS quota where the
        group controls them, and the affinity of every thread already in it (each was pinned at exec,
        and a kernel keeps a thread's own affinity inside a wider cpuset); threads started later
        inherit their creator's. Returns the threads moved (0: the group holds no process)."""
        wanted = sorted(set(cpus)) if cpus else sorted(online_cpus())
        if self.mode in ("v1", "v2"):
            cpuset = self._dir_of.get("cpuset")
            if cpuset is not None and (self.mode == "v1" or "cpuset" in self._v2_active):
                _write(cpuset / "cpuset.cpus", _cpu_list(wanted))
            cpu = self._dir_of.get("cpu")
            if cpu is not None and (self.mode == "v1" or "cpu" in self._v2_active):
                if self.mode == "v2":
                    _write(cpu / "cpu.max", f"{quota_us(quota) if quota else 'max'} {CFS_PERIOD_US}")
                else:
                    _write(cpu / "cpu.cfs_quota_us", quota_us(quota) if quota else -1)
        moved = 0
        for pid in self.pids():
            for task in _tasks(pid):
                try:
                    os.sched_setaffinity(task, wanted)
                    moved += 1
                except (ProcessLookupError, PermissionError):
                    pass  # a thread that ended meanwhile
        return moved

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


def _check_name(what: str, value: str) -> None:
    if not _NAME_RE.match(value):
        raise ValueError(f"{what} {value!r} must be letters, digits, '.', '_', '@' or '-'")


def _tasks(pid: int) -> list[int]:
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except (FileNotFoundError, ProcessLookupError, ValueError):
        return []


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
