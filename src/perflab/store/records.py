"""What the store hands back of a measurement: a figure, and the point on its curve it was measured at."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class Point:
    """Where on its curve a figure was measured: a label for people and its parameters as data
    (path, connections, rate, method, ...), which tables sort and select by."""

    label: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)


def point(label: str, **params: Any) -> Point:
    return Point(label, params)


NO_POINT = Point()


@dataclass
class Figure:
    run_id: str
    app: str
    mode: str
    scenario: str
    point: str
    metric: str
    repeat: int
    value: float
    unit: str
    flags: list[str]
    measured_at: float
    extra: dict
    params: dict = field(default_factory=dict)
