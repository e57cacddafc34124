"""Which layer a sample's CPU belongs to, from one data file per framework (layers/*.toml:
package or function prefixes per layer) on top of the common jvm.toml.

The rule: a sample belongs to the layer of its innermost frame that any prefix maps (the longest
matching prefix wins for that frame). JDK frames are mostly unmapped on purpose, so a socket read
in the JDBC driver counts for the driver and one in the HTTP server for the server. A sample no
frame of which maps is "other" (the app's own code, JDK code called from it).

The breakdown (breakdown()) makes the layers sum to the measured CPU per request: the Java
threads' CPU is split by the samples' shares; GC and JIT come from the CPU time of their own
threads (execution samples never see them); what remains of the measured CPU (the JVM's other
threads, the profiler's own, rounding between the cgroup's clock and the threads') is "other".
"""

from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from perflab.errors import LabError
from perflab.profiles.folded import Stacks

LAYERS_DIR = Path(__file__).parent / "layers"
LAYERS = ("http", "serialization", "persistence", "jdbc", "logging", "gc", "jit", "other")
LAYER_TITLES = {"http": "HTTP server", "serialization": "serialization", "persistence": "persistence/ORM",
                "jdbc": "JDBC driver", "logging": "logging", "gc": "GC", "jit": "JIT", "other": "other"}
# the files read for an app's framework (its first word, lower-cased), after jvm.toml
FRAMEWORK_FILES = {"quarkus": "quarkus", "spring": "spring", "thorntail": "thorntail", "go": "go"}


@dataclass(frozen=True)
class Mapping:
    prefixes: tuple[tuple[str, str], ...]  # (prefix, layer), longest first
    files: tuple[str, ...]

    def layer_of(self, frame: str) -> str | None:
        for prefix, layer in self.prefixes:
            if frame.startswith(prefix):
                return layer
        return None


def _read(path: Path) -> dict[str, str]:
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise LabError(f"{path.name}: not valid TOML: {exc}") from None
    table = data.get("layers")
    if not isinstance(table, dict):
        raise LabError(f"{path.name}: needs a [layers] table of layer = [prefixes]")
    out = {}
    for layer, prefixes in table.items():
        if layer not in LAYERS:
            raise LabError(f"{path.name}: unknown layer {layer!r}", fix=f"layers: {', '.join(LAYERS)}")
        if not isinstance(prefixes, list) or not all(isinstance(p, str) and p for p in prefixes):
            raise LabError(f"{path.name}: layers.{layer} must be a list of non-empty prefixes")
        for p in prefixes:
            out[p] = layer
    return out


@cache
def for_framework(framework: str) -> Mapping:
    """jvm.toml (except for Go) and the framework's own file; the framework's own wins on a tie."""
    key = FRAMEWORK_FILES.get((framework.split() or [""])[0].lower())
    names = ([] if key == "go" else ["jvm"]) + ([key] if key else [])
    merged: dict[str, str] = {}
    for name in names:
        merged.update(_read(LAYERS_DIR / f"{name}.toml"))
    ordered = tuple(sorted(merged.items(), key=lambda kv: -len(kv[0])))
    return Mapping(ordered, tuple(f"{n}.toml" for n in names))


def attribute(stacks: Stacks, mapping: Mapping) -> Counter:
    """Samples per layer, by the innermost frame that maps."""
    out: Counter = Counter()
    for frames, weight in stacks.items():
        layer = next((lay for f in reversed(frames) if (lay := mapping.layer_of(f))), "other")
        out[layer] += weight
    return out


@dataclass(frozen=True)
class Breakdown:
    measured_ms: float           # the app's CPU per request over the profiled window (its cgroup)
    layers: dict[str, float]     # layer -> ms/request; sums to measured_ms

    @property
    def total_ms(self) -> float:
        return sum(self.layers.values())


def breakdown(samples: Counter, *, measured_ms: float, java_ms: float | None, gc_ms: float = 0.0,
              jit_ms: float = 0.0) -> Breakdown:
    """The measured CPU per request by layer. `java_ms`: the CPU per request of the threads the
    samples come from (None: the samples cover all of the measured CPU, as Go's do)."""
    whole = sum(samples.values())
    share_of = java_ms if java_ms is not None else measured_ms - gc_ms - jit_ms
    layers = dict.fromkeys(LAYERS, 0.0)
    layers["gc"] += gc_ms
    layers["jit"] += jit_ms
    if whole:
        for layer, weight in samples.items():
            layers[layer] += share_of * weight / whole
    else:
        share_of = 0.0  # nothing sampled: all of it is unexplained
    layers["other"] += measured_ms - gc_ms - jit_ms - share_of
    return Breakdown(measured_ms, layers)
