"""A profile of one app/mode and point: its launches' windows together (stacks summed, the CPU
per request by layer weighted by each window's requests, so the layers still sum to the measured
CPU per request), read from the run's stored profile files."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from perflab.errors import LabError
from perflab.profiles import folded, storage
from perflab.profiles.layers import LAYERS
from perflab.store import Store


@dataclass
class Profile:
    app: str
    mode: str
    point: str
    cpu: Counter = field(default_factory=Counter)
    alloc: Counter = field(default_factory=Counter)
    launches: list[int] = field(default_factory=list)
    requests: int = 0
    measured_ms: float | None = None
    layers_ms: dict[str, float] | None = None
    profiler: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def target(self) -> str:
        return f"{self.app}/{self.mode}"

    @property
    def label(self) -> str:
        return f"{self.target} {self.point}"


def combine(metas: list[tuple[dict, Counter, Counter]]) -> Profile:
    """One profile from the windows of several launches of the same app/mode and point."""
    first = metas[0][0]
    out = Profile(first["app"], first["mode"], first["point"], profiler=first.get("profiler", ""))
    weighted: Counter = Counter()
    measured = 0.0
    with_breakdown = 0
    for meta, cpu, alloc in metas:
        out.cpu.update(cpu)
        out.alloc.update(alloc)
        out.launches.append(meta["launch"])
        if meta.get("layers_ms") is None:
            out.notes.append(f"launch {meta['launch']}: {meta.get('why_no_breakdown', 'no breakdown')}")
            continue
        n = meta["requests"]
        out.requests += n
        measured += meta["measured_ms"] * n
        for layer, ms in meta["layers_ms"].items():
            weighted[layer] += ms * n
        with_breakdown += 1
    if with_breakdown and out.requests:
        out.measured_ms = measured / out.requests
        out.layers_ms = {layer: weighted[layer] / out.requests for layer in LAYERS}
    return out


def load(store: Store, run_id: str) -> list[Profile]:
    """Every profiled app/mode and point of a run, in the order they were stored."""
    groups: dict[tuple[str, str, str], list] = {}
    for f in storage.listed(store, run_id):
        if not f.path.name.endswith(".json"):
            continue
        try:
            meta = storage.load_meta(f.path)
            stem = str(f.path)[: -len(".json")]
            cpu = folded.read(Path(stem + ".cpu.folded.gz"))
            alloc = folded.read(Path(stem + ".alloc.folded.gz"))
        except (OSError, ValueError, LabError):
            continue  # pruned or damaged: the report says which app/modes have none
        groups.setdefault((meta["app"], meta["mode"], meta["point"]), []).append((meta, cpu, alloc))
    return [combine(sorted(g, key=lambda m: m[0]["launch"])) for g in groups.values()]
