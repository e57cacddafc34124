"""The app/modes a plan measures: its apps (the contract's, the named ones and the user's own
folders), each planned version of them, and the modes asked for, with why one cannot run here and
which scenarios run on another app/mode instead (run_on)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from perflab import apps
from perflab.apps import versions
from perflab.errors import LabError

if TYPE_CHECKING:
    from perflab.settings import Plan


@dataclass
class Target:
    app: apps.App
    mode: str
    unavailable: str = ""  # why this app/mode cannot run here ("" = it can)
    ready_s: float | None = None  # how long it took to get ready in earlier runs here (None: no run yet)
    steady_s: dict[str, float] = field(default_factory=dict)  # per steady point: launch to steady state, earlier runs
    measure_s: dict[str, float] = field(default_factory=dict)  # per steady point: the measurement after it, earlier runs
    rest_mb: float | None = None  # its RSS at rest after start-up in earlier runs here (None: no run yet)
    elsewhere: dict[str, str] = field(default_factory=dict)  # scenario -> the app/mode it runs on instead (run_on)

    @property
    def default_mode(self) -> bool:
        return self.mode == next(iter(self.app.modes))

    @property
    def label(self) -> str:
        return f"{self.app.name}/{self.mode}"


AA_SUFFIX = "-aa"


def aa_copy(app: apps.App) -> apps.App:
    """The app under the name APP-aa, sharing its build: whatever differs between the two in a run
    is the lab's own noise."""
    return replace(app, name=app.name + AA_SUFFIX, copy_of=app.name, build_key=app.build_key)


def aa_headline(plan: Plan, apps_root: Path | None = None) -> list[str]:
    """The A/A pairs as rounds.headline entries: each app's main mode against its copy's."""
    found = apps.discover(apps_root)
    out = []
    for name in plan["aa"]:
        if name not in found:
            raise LabError(f"--aa {name}: unknown app", fix=f"known apps: {', '.join(found)}")
        main = next(iter(found[name].modes))
        out.append(f"{name}/{main}:{name}{AA_SUFFIX}/{main}")
    return out


def revision_variants(ab: dict) -> list[apps.App]:
    """`perflab ab`'s two sides: the app as its descriptor stands in each revision's folder, named
    APP@base and APP@head, each with its own build unless both are one folder (an A/A run of one
    commit, which shares its build as an A/A copy does)."""
    out = []
    for role in versions.REVISIONS:
        side = ab[role]
        if not Path(side["dir"]).is_dir():
            raise LabError(f"the {role} revision's folder {side['dir']} is gone",
                           fix="run perflab ab again: it checks the revision out anew")
        app = apps.load_dir(side["dir"], where=f"ab {role} ({side['rev'] or 'working tree'})")
        name = versions.variant_name(app.name, role)
        shared = out and ab["base"]["dir"] == side["dir"]
        out.append(replace(app, name=name, build_key=out[0].build_key if shared else name,
                           copy_of=out[0].name if shared else ""))
    if out[0].name.partition(versions.SEPARATOR)[0] != out[1].name.partition(versions.SEPARATOR)[0]:
        raise LabError(f"the base and head revisions hold different apps ({out[0].name} and {out[1].name})",
                       fix="perflab ab compares one app: its perflab.toml must name the same app in both")
    return out


def _planned_modes(app: apps.App, plan: Plan) -> list[str]:
    if "all" in plan["modes"]:
        return list(app.modes)
    # "main": each app's first mode (JVM for the frameworks, native for the Go reference)
    return [m for m in app.modes if m in plan["modes"] or ("main" in plan["modes"] and m == next(iter(app.modes)))]


def select_targets(plan: Plan, apps_root: Path | None = None) -> list[Target]:
    if plan["ab"]["base"]["dir"]:  # perflab ab: the app's two revisions in place of the plan's apps
        targets = []
        for variant in revision_variants(plan["ab"]):
            targets += [Target(variant, m, apps.unavailable(variant, m, plan["limits"]["jdk"] or None))
                        for m in _planned_modes(variant, plan)]
        place_run_on(plan, targets)
        check_open_loop_basis(plan, targets)
        return targets
    lab_apps = apps.discover(apps_root)
    # "all" means the apps that serve the contract: apps with an API of their own are named explicitly
    names = [n for n, a in lab_apps.items() if a.api == apps.CONTRACT_API and n not in plan["skip_apps"]] \
        if "all" in plan["apps"] else plan["apps"]
    # the user's own apps (app_dirs) join them
    found, added = apps.with_dirs(lab_apps, plan["app_dirs"])
    names = list(names) + [n for n in added if n not in names]
    targets = []
    for name in names:
        if name not in found:
            raise LabError(f"plan {plan.name}: unknown app {name!r}", fix=f"known apps: {', '.join(found)}")
        app = found[name]
        modes = _planned_modes(app, plan)
        variants = versions.expand(app, plan["versions"].get(name, []))  # app@version per planned version
        if name in plan["aa"]:  # the same build again under another name: an A/A pair
            variants = [app, aa_copy(app)]
        for variant in variants:
            for mode in modes:
                targets.append(Target(variant, mode, apps.unavailable(variant, mode, plan["limits"]["jdk"] or None)))
    place_run_on(plan, targets)
    check_open_loop_basis(plan, targets)
    return targets


def check_open_loop_basis(plan: Plan, targets: list[Target]) -> None:
    """[steady] open_loop_basis names one of the plan's app/modes (its throughput sets every
    app/mode's open-loop rate), or none."""
    basis = plan.settings("steady").open_loop_basis
    labels = [t.label for t in targets]
    if basis and basis not in labels:
        raise LabError(f"plan {plan.name}: [steady] open_loop_basis {basis!r} is not one of the plan's app/modes",
                       fix=f"allowed: {', '.join(labels)} (or empty: each launch's own throughput)")


def place_run_on(plan: "Plan", targets: list[Target]) -> None:
    """Scenarios a plan runs on one app/mode only (its `run_on` table), as their study ran them: e.g.
    RT-2019's 3-hour soak on Quarkus native, and where native is unavailable on one declared
    stand-in. The first app/mode of the list that is in the run and available here runs it; every
    other target's `elsewhere` says who runs it instead."""
    here = {t.label: t for t in targets if not t.unavailable}
    for scenario, labels in plan["run_on"].items():
        chosen = next((label for label in labels if label in here), None)
        where = chosen or f"none of {', '.join(labels)} (none runs here)"
        for t in targets:
            if t.label != chosen:
                t.elsewhere[scenario] = where
