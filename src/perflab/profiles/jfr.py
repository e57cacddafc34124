"""JDK Flight Recorder over a window: started and stopped in the running JVM with the jcmd of the
JDK it runs on, with the minimal settings in perflab.jfc (execution samples and throttled
allocation samples, every other event off), and read back with that JDK's own `jfr print` into
folded stacks. The jfr of the JDK that wrote a recording always reads it; an older one may not
know a newer JDK's event fields."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable
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


def start(pid: int, name: str = RECORDING) -> None:
    """Starts the lab's recording in the JVM (kept in memory until stop)."""
    _jcmd(pid, "JFR.start", f"name={name}", f"settings={SETTINGS}")


def discard(pid: int, name: str) -> None:
    """Stops a recording and keeps nothing of it."""
    _jcmd(pid, "JFR.stop", f"name={name}")


def stop(pid: int, path: Path) -> None:
    """Stops the recording and writes it to `path`."""
    _jcmd(pid, "JFR.stop", f"name={RECORDING}", f"filename={path}", timeout=60.0)
    if not path.exists():
        raise LabError(f"JFR.stop left no recording at {path.name}")


_BYTES = {"bytes": 1, "byte": 1, "kB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4}


def _weight(text: str) -> float:
    """An allocation sample's weight as `jfr print` writes it ("24 bytes", "253.6 kB": 1024-based)."""
    number, _, unit = text.strip().partition(" ")
    try:
        return float(number) * _BYTES[unit]
    except (ValueError, KeyError):
        raise LabError(f"jfr print wrote an allocation weight it is not known to write: {text!r}") from None


def read_events(lines: Iterable[str]) -> tuple[Stacks, Stacks, dict[str, int]]:
    """(CPU samples per stack, allocated bytes per stack, execution samples per thread name) from
    `jfr print`'s text (its JSON is some 25 times larger: every frame spells out its class loader
    and module; and the text leaves out hidden frames, such as lambda proxies whose class names
    carry an address that differs from launch to launch and would split one stack into many). An event opens with "jdk.NAME {" and closes with "}" at the line's start; its
    stack lists one frame a line, the leaf first, "..." where it was cut."""
    cpu: Stacks = Counter()
    alloc: Stacks = Counter()
    by_thread: Counter = Counter()
    kind, frames, in_stack, weight, thread = "", [], False, 0.0, "?"
    for line in lines:
        if not line.startswith(" "):
            if line.startswith("jdk."):
                kind, frames, in_stack, weight, thread = line.split()[0], [], False, 0.0, "?"
            elif line.startswith("}") and frames:
                stack = tuple(reversed(frames))
                if kind == "jdk.ExecutionSample":
                    cpu[stack] += 1
                    by_thread[thread] += 1
                elif kind == "jdk.ObjectAllocationSample":
                    alloc[stack] += weight
            continue
        text = line.strip()
        if in_stack:
            if text == "]":
                in_stack = False
            elif text != "...":
                frames.append(text.split("(", 1)[0])
        elif text.startswith("stackTrace = ["):
            in_stack = True
        elif text.startswith("weight = "):
            weight = _weight(text[len("weight = "):])
        elif text.startswith("sampledThread = "):
            thread = text[len("sampledThread = "):].split('"')[1] if '"' in text else "?"
    return cpu, alloc, dict(by_thread)


def parse(recording: Path, home: Path) -> tuple[Stacks, Stacks, dict[str, int]]:
    """(CPU samples per stack, allocated bytes per stack, execution samples per thread name)."""
    # JDK 11 records but has no jfr command (it came with JDK 12): a newer JDK's reads its recordings
    own = home / "bin" / "jfr"
    tool = str(own) if own.exists() else shutil.which("jfr") or _tool(home, "jfr")
    cmd = [tool, "print", "--stack-depth", str(STACK_DEPTH),
           "--events", "jdk.ExecutionSample,jdk.ObjectAllocationSample", str(recording)]
    with tempfile.TemporaryFile(mode="w+") as err, \
            subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True) as proc:
        try:
            found = read_events(proc.stdout)  # streamed: a long window's text never sits in memory whole
        finally:
            proc.stdout.close()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.returncode != 0:
            err.seek(0)
            raise LabError(f"jfr print could not read {recording.name}: {err.read().strip()[-300:]}")
    return found
