"""Two profiles set side by side (two apps in one run, two modes, one app in two runs): each
frame path's share of CPU in both, and the CPU per request each layer gained or lost (B minus A,
in ms/request; the layers of each side sum to its measured CPU per request, so their differences
sum to the difference of the measured figures)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from perflab.profiles import folded
from perflab.profiles.layers import LAYERS
from perflab.profiles.merged import Profile


def path_shares(stacks: folded.Stacks) -> dict[tuple[str, ...], float]:
    """Each frame path's share of all samples (the path and everything called from it)."""
    whole = folded.total(stacks)
    out: Counter = Counter()
    if not whole:
        return {}
    for frames, weight in stacks.items():
        for depth in range(1, len(frames) + 1):
            out[frames[:depth]] += weight / whole
    return dict(out)


@dataclass(frozen=True)
class LayerChange:
    layer: str
    a_ms: float
    b_ms: float

    @property
    def change_ms(self) -> float:
        return self.b_ms - self.a_ms


@dataclass(frozen=True)
class Difference:
    a: Profile
    b: Profile
    layers: list[LayerChange]  # largest change first; empty when a side has no breakdown

    @property
    def measured_change_ms(self) -> float | None:
        if self.a.measured_ms is None or self.b.measured_ms is None:
            return None
        return self.b.measured_ms - self.a.measured_ms

    def gap_layers(self, share: float = 0.8) -> list[LayerChange]:
        """The layers that make most of the gap: the largest changes in its direction, until they
        hold `share` of it."""
        gap = self.measured_change_ms
        if not gap:
            return []
        same_way = [c for c in self.layers if c.change_ms * gap > 0]
        out, held = [], 0.0
        for c in same_way:
            out.append(c)
            held += c.change_ms
            if abs(held) >= share * abs(gap):
                break
        return out


def difference(a: Profile, b: Profile) -> Difference:
    changes = []
    if a.layers_ms is not None and b.layers_ms is not None:
        changes = sorted((LayerChange(layer, a.layers_ms[layer], b.layers_ms[layer]) for layer in LAYERS),
                         key=lambda c: -abs(c.change_ms))
    return Difference(a, b, changes)
