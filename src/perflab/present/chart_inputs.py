"""What a scenario's charts read besides the run's figures (report.facts gathers them for a run).
Apart from facts, which states a whole run for a report, so the scenarios' charts need only this."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perflab.present.timelines import TimelineRow


@dataclass(frozen=True)
class ChartInputs:
    """What a scenario's charts read besides the run's figures: its own files, by app/mode
    (see perflab.scenario.Scenario.charts)."""

    samples: dict[str, Path]  # app/mode -> RSS/CPU samples CSV
    timelines: dict[str, list[TimelineRow]]  # app/mode -> intervals of all launches
    unread: list[str]  # files left out, "app/mode file: why"
