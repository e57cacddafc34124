"""footprint: artifact size and build time, as measured by the build (KT-2020's artifact table)."""

from __future__ import annotations

from perflab import apps
from perflab.lab import Lab


def run(lab: Lab, app: apps.App, build: apps.BuildResult) -> None:
    flags = ["cached-build"] if build.cached else []
    extra = {"artifact": app.artifact, "built_at": build.built_at, "hash": build.hash}
    lab.record(app.name, "all", "footprint", "artifact_mb", build.artifact_bytes / 1e6, "MB", flags=flags, extra=extra)
    lab.record(app.name, "all", "footprint", "build_s", build.build_seconds, "s", flags=flags, extra=extra)
    lab.outcome(app.name, "all", "footprint", "ok")
