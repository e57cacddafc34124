"""The Go reference's own profiles: its runtime's CPU profile, started and stopped over the
measured window through the loopback address the lab gives it (PERFLAB_PPROF_ADDR, served only
then: apps/go-reference/pprof.go), and its allocations as the difference of two heap profiles
(alloc_space) taken at the window's ends. Both are turned into folded stacks with
`go tool pprof -traces`."""

from __future__ import annotations

import re
import shutil
import subprocess
import urllib.request
from collections import Counter
from pathlib import Path

from perflab.errors import LabError
from perflab.profiles.folded import Stacks

ENV = "PERFLAB_PPROF_ADDR"
_UNITS = {"": 1, "ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1, "s": 1000, "B": 1, "kB": 1e3, "KB": 1e3,
          "MB": 1e6, "GB": 1e9, "TB": 1e12}


def _get(addr: str, path: str, timeout: float = 30.0) -> bytes:
    try:
        with urllib.request.urlopen(f"http://{addr}{path}", timeout=timeout) as r:
            return r.read()
    except OSError as exc:
        raise LabError(f"the app's profile endpoint {addr}{path} did not answer: {exc}") from None


def start(addr: str, folder: Path) -> Path:
    """Starts the CPU profile; returns the heap profile at the start (the allocations' base)."""
    base = folder / "heap-start.pb.gz"
    base.write_bytes(_get(addr, "/debug/pprof/allocs"))
    _get(addr, "/cpu/start")
    return base


def stop(addr: str, folder: Path) -> tuple[Path, Path]:
    """Stops the CPU profile: (CPU profile, heap profile at the end)."""
    cpu, heap = folder / "cpu.pb.gz", folder / "heap-end.pb.gz"
    cpu.write_bytes(_get(addr, "/cpu/stop"))
    heap.write_bytes(_get(addr, "/debug/pprof/allocs"))
    return cpu, heap


def _value(text: str) -> float:
    m = re.fullmatch(r"([0-9.]+)([a-zA-Zµ]*)", text)
    if not m or m.group(2) not in _UNITS:
        raise LabError(f"go tool pprof printed a value it is not known to print: {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def parse_traces(text: str) -> Stacks:
    """`go tool pprof -traces` output: blocks between dashed lines, the first line of each with
    the sample's value and its leaf frame, then one caller a line towards the root."""
    out: Stacks = Counter()
    for block in re.split(r"(?m)^-+\+-+$", text)[1:]:
        # an allocation profile's blocks open with a "bytes: SIZE" line (the sampled object size)
        lines = [ln for ln in block.splitlines() if ln.strip() and not ln.strip().startswith("bytes:")]
        if not lines:
            continue
        head = lines[0].split()
        if len(head) < 2:
            continue
        frames = [head[1]] + [ln.split()[0] for ln in lines[1:]]
        out[tuple(reversed(frames))] += _value(head[0])
    return out


def folded(profile: Path, base: Path | None = None, index: str | None = None) -> Stacks:
    go = shutil.which("go")
    if go is None:
        raise LabError("go is not installed: the Go reference's profiles need `go tool pprof`")
    cmd = [go, "tool", "pprof", "-traces"] + ([f"-sample_index={index}"] if index else []) \
        + ([f"-base={base}"] if base else []) + [str(profile)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise LabError(f"go tool pprof could not read {profile.name}: {out.stderr.strip()[-300:]}")
    return parse_traces(out.stdout)
