"""Flame graphs as plotly Icicle charts (the report inlines plotly.js already: no second library,
and the report stays one file that works offline): the root at the bottom, each frame as wide as
its share of the samples; click a frame to zoom into it. The differential one is drawn on B's
stacks and coloured by the share each frame path gained (red) or lost (blue) against A."""

from __future__ import annotations

import zlib

import plotly.graph_objects as go

from perflab.profiles import folded
from perflab.profiles.diff import path_shares

MIN_SHARE = 0.002   # frame paths under 0.2 % of the samples are left out (they would not be visible)
MAX_NODES = 3000    # and at most this many, the largest first: keeps a report's size bounded
ROOT = "all"


def _short(frame: str) -> str:
    """Class.method of a Java frame (package dropped), the function of a Go frame."""
    parts = frame.split(".")
    return ".".join(parts[-2:]) if len(parts) > 2 and "/" not in frame else frame.rsplit("/", 1)[-1]


def _kept(shares: dict[tuple[str, ...], float]) -> list[tuple[str, ...]]:
    big = sorted((p for p, s in shares.items() if s >= MIN_SHARE), key=lambda p: -shares[p])[:MAX_NODES]
    chosen = set(big)
    return sorted((p for p in big if len(p) == 1 or p[:-1] in chosen), key=len)  # every kept node's parent too


def _node_id(path: tuple[str, ...]) -> str:
    return ROOT + "".join(f";{f}" for f in path)


ROW_PX = 16  # a frame's row: enough for its label to be read


def _figure(ids, labels, parents, values, colors, hover, title: str, colorbar: dict | None) -> go.Figure:
    marker = {"colors": colors}
    if colorbar is not None:
        marker.update(colorbar)
    fig = go.Figure(go.Icicle(ids=ids, labels=labels, parents=parents, values=values, branchvalues="total",
                              marker=marker, hovertext=hover, hoverinfo="text", tiling={"orientation": "v",
                                                                                       "flip": "y"},
                              maxdepth=-1, textinfo="label"))
    depth = max((i.count(";") for i in ids), default=0) + 1
    fig.update_layout(title={"text": title, "x": 0.01, "xanchor": "left"}, height=min(1400, max(360, ROW_PX * depth + 90)),
                      margin={"l": 8, "r": 8, "t": 48, "b": 8}, template="none")
    return fig


def flame_graph(stacks: folded.Stacks, title: str) -> go.Figure | None:
    shares = path_shares(stacks)
    if not shares:
        return None
    paths = _kept(shares)
    ids = [ROOT] + [_node_id(p) for p in paths]
    parents = [""] + [_node_id(p[:-1]) if len(p) > 1 else ROOT for p in paths]
    values = [100.0] + [100 * shares[p] for p in paths]
    labels = [f"all ({folded.total(stacks):,.0f} samples)"] + [_short(p[-1]) for p in paths]
    hover = ["all samples"] + [f"{p[-1]}<br>{100 * shares[p]:.1f} % of the samples" for p in paths]
    palette = ["#e8743b", "#f2a541", "#f6c85f", "#ec9a5b", "#d9623b"]
    colors = ["#dddddd"] + [palette[zlib.crc32(p[-1].encode()) % len(palette)] for p in paths]
    return _figure(ids, labels, parents, values, colors, hover, title, None)


def differential_graph(a: folded.Stacks, b: folded.Stacks, title: str, a_name: str, b_name: str) -> go.Figure | None:
    """B's flame graph, each frame path coloured by its share in B minus its share in A."""
    sa, sb = path_shares(a), path_shares(b)
    if not sa or not sb:
        return None
    paths = _kept(sb)
    change = [100 * (sb[p] - sa.get(p, 0.0)) for p in paths]
    ids = [ROOT] + [_node_id(p) for p in paths]
    parents = [""] + [_node_id(p[:-1]) if len(p) > 1 else ROOT for p in paths]
    values = [100.0] + [100 * sb[p] for p in paths]
    labels = ["all"] + [_short(p[-1]) for p in paths]
    hover = ["all samples"] + [f"{p[-1]}<br>{b_name}: {100 * sb[p]:.1f} %, {a_name}: {100 * sa.get(p, 0.0):.1f} % "
                               f"({c:+.1f} points)" for p, c in zip(paths, change)]
    top = max((abs(c) for c in change), default=1.0) or 1.0
    colorbar = {"colorscale": "RdBu", "reversescale": True, "cmid": 0, "cmin": -top, "cmax": top, "showscale": True,
                "colorbar": {"title": {"text": "share<br>B - A<br>(points)"}}}
    return _figure(ids, labels, parents, values, [0.0] + change, hover, title, colorbar)
