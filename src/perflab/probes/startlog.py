"""The framework's own start time, parsed from the line its log prints once started."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from .liveness import Process, _Liveness, _exit_reason


@dataclass
class StartLogMatch:
    ok: bool
    millis: float | None   # the start time the framework states, in ms
    line: str | None
    reason: str


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def watch_start_log(path: Path | str, pattern: str | re.Pattern[str], *, timeout_s: float = 120.0,
                    process: Process | None = None, poll_s: float = 0.01) -> StartLogMatch:
    """Follow a log file until a line matches `pattern`, whose named group "seconds" or
    "millis" holds the framework's start time (e.g. Quarkus "started in (?P<seconds>[\\d.]+)s").

    The file may not exist yet and may grow in pieces. timeout_s=0 scans what is there once.
    """
    regex = re.compile(pattern) if isinstance(pattern, str) else pattern
    if not {"seconds", "millis"} & set(regex.groupindex):
        raise ValueError(f"pattern {regex.pattern!r} needs a group named 'seconds' or 'millis'")
    path = Path(path)
    watch = _Liveness(process)
    deadline = time.monotonic() + timeout_s
    position, pending = 0, b""
    while True:
        exited, code = watch.exited()  # before reading, so a last line is not missed
        try:
            with open(path, "rb") as fh:
                if os.fstat(fh.fileno()).st_size < position:
                    position, pending = 0, b""  # truncated or replaced: start over
                fh.seek(position)
                chunk = fh.read()
                position += len(chunk)
        except FileNotFoundError:
            chunk = b""
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()  # an unfinished line waits for its end
        if exited or time.monotonic() >= deadline:
            lines.append(pending)  # nothing more will come: judge the last piece too
        for raw in lines:
            line = _ANSI.sub("", raw.decode("utf-8", "replace")).rstrip("\r")
            found = regex.search(line)
            if found:
                return StartLogMatch(ok=True, millis=_millis(found), line=line,
                                     reason="matched")
        if exited:
            return StartLogMatch(ok=False, millis=None, line=None,
                                 reason=f"{_exit_reason(code)} before its start line")
        if time.monotonic() >= deadline:
            where = "" if path.exists() else " (file never appeared)"
            return StartLogMatch(ok=False, millis=None, line=None,
                                 reason=f"no start line after {timeout_s:g} s in {path}{where}")
        time.sleep(poll_s)


def find_start(text: str, pattern: str | re.Pattern[str]) -> StartLogMatch:
    """The start line in a whole log's text (e.g. a pod's log, read through the API)."""
    regex = re.compile(pattern) if isinstance(pattern, str) else pattern
    for raw in text.splitlines():
        line = _ANSI.sub("", raw).rstrip("\r")
        found = regex.search(line)
        if found:
            return StartLogMatch(ok=True, millis=_millis(found), line=line, reason="matched")
    return StartLogMatch(ok=False, millis=None, line=None, reason="no start line in the log")


def _millis(found: re.Match[str]) -> float:
    groups = found.groupdict()
    if groups.get("millis") is not None:
        return float(groups["millis"].replace(",", "."))
    return float(groups["seconds"].replace(",", ".")) * 1000.0  # some locales write 1,234
