"""Which cgroup interface the lab can use on this machine (v2, v1 or none), and why."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ._common import _read_text

LAB_GROUP = "perflab"
CGROUP_ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("cpu", "cpuacct", "cpuset", "memory")
V2_CONTROLLERS = ("cpu", "cpuset", "memory")


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


def _distinct(paths: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))
