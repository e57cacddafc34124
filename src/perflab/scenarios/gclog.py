"""GC counts and pause totals from a JVM's unified GC log (JDK 9+, `-Xlog:gc:file=...`).

Lines look like (decorators uptime, level, tags):
    [0.058s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 6M->1M(48M) 2.416ms
    [0.156s][info][gc] GC(22) Concurrent Mark Cycle
    [0.163s][info][gc] GC(22) Pause Remark 38M->27M(48M) 0.410ms
    [0.104s][info][gc] GC(52) Pause Full (Allocation Failure) 30M->14M(30M) 3.508ms
A collection is one GC(n) id (a G1 concurrent cycle with its Remark and Cleanup pauses is one);
a pause is a "Pause ..." line with its duration. `GcLogFollower` reads a growing log
incrementally, so a soak can attribute collections to the interval in which they happened.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable

GC_LOG_DECORATORS = "uptime,level,tags"

_LINE = re.compile(r"^\[(?P<uptime>[0-9.]+)s\](?:\[[^\]]*\])*\s+GC\((?P<id>\d+)\)\s+(?P<what>.*?)\s*$")
_DURATION = re.compile(r"\s(?P<ms>[0-9]+(?:\.[0-9]+)?)ms$")
_USING = re.compile(r"\]\s+Using (?P<collector>.+?)\s*$")


def jvm_gc_log_option(path: Path) -> str:
    """The JVM option that writes GC events to `path`, without rotation (a soak keeps it all)."""
    return f"-Xlog:gc:file={path}:{GC_LOG_DECORATORS}:filecount=0"


@dataclass(frozen=True)
class GcEvent:
    uptime_s: float
    gc_id: int
    text: str                 # e.g. "Pause Young (Normal) (G1 Evacuation Pause) 6M->1M(48M) 2.416ms"
    pause_ms: float | None    # None for a line that is not a pause (e.g. a concurrent cycle)

    @property
    def kind(self) -> str:
        """"young", "full", "other-pause" (Remark, Cleanup, ...) or "concurrent"/"other"."""
        if self.pause_ms is None:
            return "concurrent" if self.text.startswith("Concurrent") else "other"
        if self.text.startswith("Pause Young"):
            return "young"
        if self.text.startswith("Pause Full"):
            return "full"
        return "other-pause"


def parse_line(line: str) -> GcEvent | None:
    match = _LINE.match(line.strip())
    if not match:
        return None
    what = match.group("what")
    pause_ms = None
    if what.startswith("Pause"):
        duration = _DURATION.search(what)
        if duration:
            pause_ms = float(duration.group("ms"))
    return GcEvent(float(match.group("uptime")), int(match.group("id")), what, pause_ms)


def collector_of(text: str) -> str | None:
    """The collector the JVM says it uses ("G1", "Serial", "Parallel", ...)."""
    for line in text.splitlines()[:50]:
        match = _USING.search(line)
        if match:
            return match.group("collector")
    return None


@dataclass
class GcSummary:
    collections: int = 0          # distinct GC ids
    pauses: int = 0
    pause_total_ms: float = 0.0
    pause_max_ms: float = 0.0
    young_pauses: int = 0
    full_pauses: int = 0
    collector: str | None = None
    first_id: int | None = None
    last_id: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def summarize(events: Iterable[GcEvent], collector: str | None = None) -> GcSummary:
    out = GcSummary(collector=collector)
    ids: set[int] = set()
    for event in events:
        ids.add(event.gc_id)
        if event.pause_ms is not None:
            out.pauses += 1
            out.pause_total_ms += event.pause_ms
            out.pause_max_ms = max(out.pause_max_ms, event.pause_ms)
            out.young_pauses += event.kind == "young"
            out.full_pauses += event.kind == "full"
    out.collections = len(ids)
    if ids:
        out.first_id, out.last_id = min(ids), max(ids)
    return out


def parse(text: str) -> tuple[list[GcEvent], str | None]:
    """Every GC event of a whole log, and the collector it names."""
    events = [e for e in (parse_line(line) for line in text.splitlines()) if e is not None]
    return events, collector_of(text)


@dataclass
class GcLogFollower:
    """Reads the lines added to a GC log since the last call (an unfinished last line waits).

    A collection whose GC id was already seen in an earlier read (e.g. a concurrent cycle that
    spans two intervals) is counted once, in the interval where it began."""

    path: Path
    collector: str | None = None
    _position: int = 0
    _pending: bytes = b""
    _seen_ids: set[int] = field(default_factory=set)

    def read_new(self) -> GcSummary:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._position)
                chunk = fh.read()
        except FileNotFoundError:
            return GcSummary(collector=self.collector)
        self._position += len(chunk)
        lines = (self._pending + chunk).split(b"\n")
        self._pending = lines.pop()
        text = b"\n".join(lines).decode("utf-8", "replace")
        if self.collector is None:
            self.collector = collector_of(text)
        events = [e for e in (parse_line(line) for line in text.splitlines()) if e is not None]
        summary = summarize(events, self.collector)
        summary.collections = len({e.gc_id for e in events} - self._seen_ids)
        self._seen_ids.update(e.gc_id for e in events)
        return summary
