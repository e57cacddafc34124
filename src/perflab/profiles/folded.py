"""Folded stacks: one line per distinct stack, frames from the root to the leaf joined by ';',
then a space and a weight (samples for CPU, bytes for allocation). The format flame-graph tools
read; stored gzip'ed."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

from perflab.errors import LabError

Stacks = Counter  # tuple of frames (root first) -> weight


def dumps(stacks: Stacks) -> str:
    return "".join(f"{';'.join(frames)} {weight:g}\n" for frames, weight in stacks.most_common() if weight > 0)


def loads(text: str, source: str = "folded stacks") -> Stacks:
    out: Stacks = Counter()
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        stack, _, weight = line.rpartition(" ")
        try:
            value = float(weight)
        except ValueError:
            raise LabError(f"{source}: line {n} does not end with a weight: {line[:80]!r}") from None
        if not stack:
            raise LabError(f"{source}: line {n} has no frames: {line[:80]!r}")
        out[tuple(stack.split(";"))] += value
    return out


def write(path: Path, stacks: Stacks) -> int:
    """Writes the stacks gzip'ed; returns the file's size in bytes."""
    path.write_bytes(gzip.compress(dumps(stacks).encode(), compresslevel=9))
    return path.stat().st_size


def read(path: Path) -> Stacks:
    try:
        return loads(gzip.decompress(path.read_bytes()).decode(), path.name)
    except (OSError, EOFError) as exc:
        raise LabError(f"{path.name}: not a gzip'ed folded-stacks file ({exc})") from None


def total(stacks: Stacks) -> float:
    return float(sum(stacks.values()))


def top_frames(stacks: Stacks, n: int = 15) -> list[tuple[str, float, float]]:
    """The frames with the largest self share (leaf of the sample), with their total share (on
    the stack at all, counted once per sample): (frame, self share, total share)."""
    whole = total(stacks)
    if not whole:
        return []
    own: Counter = Counter()
    anywhere: Counter = Counter()
    for frames, weight in stacks.items():
        own[frames[-1]] += weight
        for f in set(frames):
            anywhere[f] += weight
    return [(f, w / whole, anywhere[f] / whole) for f, w in own.most_common(n)]
