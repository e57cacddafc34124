"""Child processes of the lab: start them in their own process group, stop the whole group, and
remember the ones that must outlive the command (servers started on purpose) in the work directory.

Every server the lab starts gets its own session, so stopping it kills the whole tree (a JVM's
helpers, PostgreSQL's backends) and a Ctrl-C in the terminal reaches only the lab, which then
cleans up in order.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterable

from perflab import signals
from perflab.paths import work_dir
from perflab.waiting import wait_until


def spawn(
    argv: list[str],
    *,
    log_path: Path,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    preexec: Callable[[], None] | None = None,
) -> subprocess.Popen:
    """Start argv in a new session with stdout and stderr appended to log_path."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        return signals.popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=preexec,
        )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); treat it as gone.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to a process group; False if it is already gone."""
    try:
        os.killpg(pgid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def stop_group(pgid: int, timeout: float = 10.0, proc: subprocess.Popen | None = None) -> None:
    """SIGTERM the process group, wait up to timeout, then SIGKILL what is left."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        pass

    def gone() -> bool:
        if proc is not None:
            proc.poll()  # reap it, or the group stays alive as a zombie
        return not group_alive(pgid)

    if not wait_until(gone, timeout):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        wait_until(gone, 5)
    if proc is not None:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


CHILD_PID = "child.pid"  # a long-running process started from a folder (a dev loop, a broker)


def remove_orphans(root: Path) -> list[Path]:
    """Folders under root named <what>-pid<N>-... whose owner N is gone (a kill -9 mid-run): the
    process recorded in their child.pid is stopped with its group, the folder removed."""
    gone = []
    for path in root.glob("*-pid*") if root.exists() else ():
        pid = path.name.rsplit("-pid", 1)[1].split("-", 1)[0]
        if not pid.isdigit() or Path(f"/proc/{pid}").exists():
            continue
        try:
            child = int((path / CHILD_PID).read_text())
        except (OSError, ValueError):
            child = None
        if child is not None and group_alive(child):
            stop_group(child, timeout=10)
        shutil.rmtree(path, ignore_errors=True)
        gone.append(path)
    return gone


def tail(path: Path, lines: int = 20) -> str:
    """The last lines of a log file, for error messages."""
    try:
        with open(path, "rb") as f:
            return b"".join(deque(f, maxlen=lines)).decode("utf-8", "replace")
    except OSError:
        return "(no log)"


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.2)
        return s.connect_ex((host, port)) == 0


# Listening ports come from outside the kernel's ephemeral range: a port the kernel hands out for
# bind(0) is in the range every outgoing connection takes its local port from, and between
# choosing it and a JVM binding it (seconds) a load driver or poller may take it ("address
# already in use"). Ports below the range are never taken that way.
_RANGE_FILE = "/proc/sys/net/ipv4/ip_local_port_range"
_LOWEST_PORT = 10000  # below: well-known and commonly configured service ports


def ephemeral_range() -> tuple[int, int]:
    try:
        with open(_RANGE_FILE) as f:
            low, high = (int(v) for v in f.read().split()[:2])
        return low, high
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


def candidate_range() -> tuple[int, int]:
    """Where to look: below the ephemeral range, or above it when there is no room below."""
    low, high = ephemeral_range()
    if low - 1 - _LOWEST_PORT >= 1000:
        return _LOWEST_PORT, low - 1
    return min(high + 1, 65535), 65535


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("", port))  # apps listen on every interface
            return True
        except OSError:
            return False


def free_port(rng: random.Random | None = None) -> int:
    """A TCP port free now and outside the ephemeral range (else any port the kernel gives)."""
    pick = rng or random
    lo, hi = candidate_range()
    if hi > lo:
        for _ in range(100):
            port = pick.randint(lo, hi)
            if _bindable(port):
                return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def who_listens(port: int) -> str | None:
    """A short description of the process listening on port, when /proc tells."""
    inode = None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    local, state = parts[1], parts[3]
                    if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                        inode = parts[9]
                        break
        except OSError:
            continue
        if inode:
            break
    if not inode:
        return None
    target = f"socket:[{inode}]"
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    with open(f"/proc/{pid}/cmdline", "rb") as c:
                        cmd = c.read().replace(b"\0", b" ").decode(errors="replace").strip()
                    return f"pid {pid}: {cmd[:120]}"
        except OSError:
            continue
    return None


# --- servers that outlive the command that started them ---------------------------------------


@dataclass
class Tracked:
    """A server started on purpose, remembered in the work directory until its stop."""

    name: str
    pid: int
    pgid: int
    url: str
    log: str
    started_at: float
    detail: dict


def _state_dir() -> Path:
    path = work_dir() / "state"
    path.mkdir(parents=True, exist_ok=True)
    return path


def remember(entry: Tracked) -> None:
    path = _state_dir() / f"{entry.name}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(entry), indent=2))
    tmp.replace(path)


def forget(name: str) -> None:
    (_state_dir() / f"{name}.json").unlink(missing_ok=True)


def recall(name: str) -> Tracked | None:
    path = _state_dir() / f"{name}.json"
    try:
        return Tracked(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def recall_all(prefix: str = "") -> Iterable[Tracked]:
    for path in sorted(_state_dir().glob(f"{prefix}*.json")):
        entry = recall(path.stem)
        if entry is not None:
            yield entry
