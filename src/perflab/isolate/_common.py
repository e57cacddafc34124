"""What the isolate modules share: the error a cgroup operation raises and helpers for the tiny
files under /sys/fs/cgroup and /proc (their errors are the caller's business)."""

from __future__ import annotations

from pathlib import Path


class CgroupError(RuntimeError):
    """A cgroup could not be created, filled, emptied or removed."""


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
