"""The flags a running HotSpot JVM settled on, read back from the JVM itself (`jcmd <pid>
VM.flags`): what it applied after ergonomics, not what the command line asked. memneeds uses it to
show the heap each step really ran with (a later -Xmx in the options, or a JVM that ignores one,
would otherwise go unnoticed).

jcmd attaches to the JVM (its attach listener thread answers) and is itself a small JVM: read once
after a measurement, not during one. Never raises: (None, why) when it cannot be read.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

TIMEOUT_S = 20.0
_FLAG = re.compile(r"-XX:(\w+)=(\S+)")


def _jcmd(pid: int) -> str | None:
    """jcmd of the JDK the process runs on, else the one on PATH."""
    try:
        beside = Path(os.path.realpath(f"/proc/{pid}/exe")).parent / "jcmd"
        if beside.exists():
            return str(beside)
    except OSError:
        pass
    return shutil.which("jcmd")


def parse(text: str) -> dict[str, str]:
    """`-XX:Name=value` pairs of VM.flags' output (boolean +/- flags are left out)."""
    return {m.group(1): m.group(2) for m in _FLAG.finditer(text)}


def read(pid: int) -> tuple[dict[str, str], str]:
    """(flags, "") or ({}, why not)."""
    jcmd = _jcmd(pid)
    if jcmd is None:
        return {}, "no jcmd next to the process's java nor on PATH"
    try:
        res = subprocess.run([jcmd, "-J-XX:-UsePerfData", "-J-XX:TieredStopAtLevel=1", str(pid), "VM.flags"],
                             capture_output=True, text=True, timeout=TIMEOUT_S, env=dict(os.environ, LC_ALL="C"))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {}, f"{jcmd} failed: {exc}"
    flags = parse(res.stdout) if res.returncode == 0 else {}
    if not flags:
        said = [line.strip() for line in (res.stderr + res.stdout).splitlines()
                if line.strip() and not line.startswith("\t") and not line.rstrip().endswith(":")]
        return {}, f"jcmd {pid} VM.flags told nothing: {said[0] if said else f'exit code {res.returncode}'}"
    return flags, ""


def max_heap_mb(pid: int) -> tuple[float | None, str]:
    """The heap the JVM may grow to (MaxHeapSize) in MB, or (None, why not)."""
    flags, why = read(pid)
    if why:
        return None, why
    value = flags.get("MaxHeapSize")
    if value is None or not value.isdigit():
        return None, "VM.flags has no MaxHeapSize"
    return int(value) / 2**20, ""
