"""Scenarios a plan runs on one app/mode only (its `run_on` table), as their study ran them: e.g.
RT-2019's 3-hour soak on Quarkus native, and where native is unavailable on one declared stand-in,
instead of every mode. The first app/mode of the list that is in the run and available here runs
it; every other app/mode is told where it runs instead."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perflab.plan import Plan
    from perflab.targets import Target


def place(plan: "Plan", targets: list["Target"]) -> None:
    """Set each target's `elsewhere`: the run_on scenarios it does not run, and who runs them."""
    here = {t.label: t for t in targets if not t.unavailable}
    for scenario, labels in plan["run_on"].items():
        chosen = next((label for label in labels if label in here), None)
        where = chosen or f"none of {', '.join(labels)} (none runs here)"
        for t in targets:
            if t.label != chosen:
                t.elsewhere[scenario] = where
