"""The plan's [profile] table: whether steady's launches are profiled, and how much may be kept."""

from __future__ import annotations

from perflab.errors import LabError
from perflab.settings import Settings, setting


class ProfileSettings(Settings):
    enabled: bool = setting(False, "profile CPU and allocations over steady's measured window (JFR on JVM modes, "
                                   "pprof on the Go reference); the figures of a profiled run are marked 'profiled' "
                                   "and its method differs from an unprofiled one's (--profile turns it on)")
    keep_jfr: bool = setting(False, "also keep each raw .jfr recording beside its folded stacks")
    max_mb: float = setting(100.0, "the run's profiles take at most this much disk; once reached, later launches' "
                                   "profiles are not kept (and say so)", "MB", gt=0)


def check(data: dict, source: str) -> None:
    """Profiles are recorded by the lab on its own machine: not in pods on a cluster."""
    if data["profile"]["enabled"] and data["placement"]["kind"] != "local":
        raise LabError(f"{source}: profile.enabled needs placement.kind = \"local\": on {data['placement']['kind']} "
                       "the apps run in pods the lab cannot attach a profiler to",
                       fix="profile on the local placement, or set profile.enabled = false")
