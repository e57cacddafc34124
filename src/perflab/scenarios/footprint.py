"""footprint: artifact size and build time, as measured by the build (KT-2020's artifact table).
Runs once per build (a mode with a build of its own, e.g. native, has its own figures)."""

from __future__ import annotations

from perflab.placements import KUBERNETES
from perflab.present.tables import Table
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.settings import Settings


class FootprintSettings(Settings):
    """No settings: the build says what it produced."""


def run(ctx: Context) -> None:
    build = ctx.build
    flags = ["cached-build"] if build.cached else []
    extra = {"artifact": ctx.app.artifact, "built_at": build.built_at, "hash": build.hash}
    ctx.record("artifact_mb", build.artifact_bytes / 1e6, "MB", flags=flags, extra=extra)
    ctx.record("build_s", build.build_seconds, "s", flags=flags, extra=extra)
    ctx.outcome("ok")


def build_mode(build_key: str, app_name: str) -> str:
    """The mode a build's figures are stored under: its own mode (key APP@MODE), or "all" for the
    app's shared build. The app's name may hold an '@' itself (quarkus@3.33.2, a framework version)."""
    return build_key[len(app_name) + 1:] if build_key.startswith(app_name + "@") else "all"


def tables(view: RunView) -> list[Table]:
    cells = view.find("footprint")
    if not cells:
        return []
    rows = []
    for app in dict.fromkeys(c.app for c in cells):
        mine = {c.metric: c for c in cells if c.app == app}
        modes = sorted({c.mode for c in cells if c.app == app})
        rows.append((app if modes == ["all"] else f"{app} ({', '.join(modes)})",
                     [mine.get("artifact_mb"), mine.get("build_s")]))
    return [Table("footprint", "Artifact and build", "app", ["artifact MB", "build s"], rows,
                  "the build's artifact (for the JVM apps the jar); c = time of a cached build")]



def describe(p: dict, plan: dict) -> str:
    return "artifact size and build time as measured by the build."

SCENARIO = Scenario(
    name="footprint", title="Footprint: artifact size and build time", phase=Phase.BUILD,
    settings=FootprintSettings, run=run, estimate_s=lambda e: 1.0, tables=tables, describe=describe,
    not_on=((KUBERNETES, "an artifact's size and build time are measured where the lab builds it, on this machine"),))
