"""JDK Flight Recorder over a window: started and stopped in the running JVM with the jcmd of the
JDK it runs on, with the minimal settings in perflab.jfc (execution samples and throttled
allocation samples, every other event off), and read back with that JDK's own `jfr` tool into
folded stacks. The tool of the JDK that wrote a recording always reads it; an older tool may not
know a newer JDK's event fields."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

from perflab.errors import LabError
from perflab.profiles.folded import Stacks

SETTINGS = Path(__file__).parent / "perflab.jfc"
RECORDING = "perflab-profile"
STACK_DEPTH = 64  # frames kept from the leaf; deeper stacks are cut at the root end


def java_home(pid: int) -> Path:
    """The JDK a running java process was started from (its executable's bin/..)."""
    try:
        exe = Path(os.readlink(f"/proc/{pid}/exe"))
    except OSError as exc:
        raise LabError(f"process {pid} is gone or not readable: {exc}") from None
    return exe.parent.parent


def _tool(home: Path, name: str) -> str:
    path = home / "bin" / name
    if not path.exists():
        raise LabError(f"the JDK at {home} has no {name} (a JRE without the JDK's tools)")
    return str(path)


def _jcmd(pid: int, *args: str, timeout: float = 30.0) -> str:
    cmd = [_tool(java_home(pid), "jcmd"), str(pid), *args]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise LabError(f"jcmd {args[0]} on process {pid} did not answer within {timeout:g} s") from None
    text = (out.stdout + out.stderr).strip()
    if out.returncode != 0 or "Could not" in text or "Exception" in text:
        raise LabError(f"jcmd {' '.join(args)} on process {pid} failed: {text[-300:]}")
    return text


def start(pid: int) -> None:
    """Starts the lab's recording in the JVM (kept in memory until stop)."""
    _jcmd(pid, "JFR.start", f"name={RECORDING}", f"settings={SETTINGS}")


def stop(pid: int, path: Path) -> None:
    """Stops the recording and writes it to `path`."""
    _jcmd(pid, "JFR.stop", f"name={RECORDING}", f"filename={path}", timeout=60.0)
    if not path.exists():
        raise LabError(f"JFR.stop left no recording at {path.name}")


def _frame(f: dict) -> str:
    method = f.get("method") or {}
    cls = ((method.get("type") or {}).get("name") or "?").replace("/", ".")
    return f"{cls}.{method.get('name') or '?'}"


def parse(recording: Path, home: Path) -> tuple[Stacks, Stacks, dict[str, int]]:
    """(CPU samples per stack, allocated bytes per stack, execution samples per thread name)."""
    cmd = [_tool(home, "jfr"), "print", "--json", "--stack-depth", str(STACK_DEPTH),
           "--events", "jdk.ExecutionSample,jdk.ObjectAllocationSample", str(recording)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise LabError(f"jfr print could not read {recording.name}: {out.stderr.strip()[-300:]}")
    try:
        events = json.loads(out.stdout)["recording"]["events"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise LabError(f"jfr print gave no events for {recording.name}: {exc}") from None
    cpu: Stacks = Counter()
    alloc: Stacks = Counter()
    by_thread: Counter = Counter()
    for e in events:
        values = e.get("values") or {}
        frames = ((values.get("stackTrace") or {}).get("frames")) or []
        stack = tuple(_frame(f) for f in reversed(frames))  # JFR lists the leaf first
        if not stack:
            continue
        if e.get("type") == "jdk.ExecutionSample":
            cpu[stack] += 1
            by_thread[((values.get("sampledThread") or {}).get("javaName")) or "?"] += 1
        else:
            alloc[stack] += float(values.get("weight") or 0)
    return cpu, alloc, dict(by_thread)
