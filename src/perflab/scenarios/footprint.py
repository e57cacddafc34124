"""footprint: artifact size and build time, as measured by the build (KT-2020's artifact table)."""

from __future__ import annotations

from perflab import apps
from perflab.lab import Lab


def run(lab: Lab, app: apps.App, build: apps.BuildResult) -> None:
    """`app` as its mode builds it: a mode with a build of its own (native) has its own figures."""
    mode = app.build_key.split("@", 1)[1] if "@" in app.build_key else "all"
    flags = ["cached-build"] if build.cached else []
    extra = {"artifact": app.artifact, "built_at": build.built_at, "hash": build.hash}
    lab.record(app.name, mode, "footprint", "artifact_mb", build.artifact_bytes / 1e6, "MB", flags=flags, extra=extra)
    lab.record(app.name, mode, "footprint", "build_s", build.build_seconds, "s", flags=flags, extra=extra)
    lab.outcome(app.name, mode, "footprint", "ok")
